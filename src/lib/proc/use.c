// SPDX-License-Identifier: GPL-2.0
/*
 * use.c - the USE model: per resource, utilization / saturation / errors with
 * the numbers they come from, and the rules that flag a problem.
 *
 * The thresholds are the usual rules of thumb of the USE checklist: a resource
 * busy 90% of the window is close to its limit (80% for a disk or a NIC, whose
 * queueing grows sooner), any saturation (a queue, swapping, a stall) and any
 * error during the window is worth a look. Each rule says which sonde command
 * shows the cause.
 */
#include "lib/proc/use.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *use__kind_name(enum use_kind k)
{
	return k == USE_U ? "utilization" : k == USE_S ? "saturation" : "errors";
}

void use__runq_add(struct use_runq *rq, unsigned long long running, unsigned long long blocked)
{
	double r = running ? running - 1.0 : 0;	/* the reader itself was running */

	rq->samples++;
	rq->sum_running += r;
	rq->sum_blocked += blocked;
	if (r > rq->max_running)
		rq->max_running = r;
}

static struct use_resource *add_res(struct use_report *r, const char *type, const char *name)
{
	struct use_resource *n = realloc(r->res, (r->nr_res + 1) * sizeof(*n));

	if (!n)
		return NULL;
	r->res = n;
	n = &r->res[r->nr_res++];
	memset(n, 0, sizeof(*n));
	snprintf(n->type, sizeof(n->type), "%s", type);
	snprintf(n->name, sizeof(n->name), "%s", name);
	return n;
}

static void add_m(struct use_resource *res, enum use_kind k, const char *key, double v, enum use_unit u)
{
	if (res->n < USE_MAX_METRICS)
		res->m[res->n++] = (struct use_metric){ k, key, v, u };
}

static int add_flag(struct use_report *r, const struct use_resource *res, enum use_kind k,
		    const char *next, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int add_flag(struct use_report *r, const struct use_resource *res, enum use_kind k,
		    const char *next, const char *fmt, ...)
{
	struct use_flag *f = realloc(r->flags, (r->nr_flags + 1) * sizeof(*f));
	va_list ap;

	if (!f)
		return -ENOMEM;
	r->flags = f;
	f = &r->flags[r->nr_flags++];
	memset(f, 0, sizeof(*f));
	if (strcmp(res->type, res->name))
		snprintf(f->resource, sizeof(f->resource), "%s %s", res->type, res->name);
	else
		snprintf(f->resource, sizeof(f->resource), "%s", res->name);
	f->kind = k;
	va_start(ap, fmt);
	vsnprintf(f->what, sizeof(f->what), fmt, ap);
	va_end(ap);
	snprintf(f->next, sizeof(f->next), "%s", next);
	return 0;
}

static int add_missing(struct use_report *r, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int add_missing(struct use_report *r, const char *what, const char *fmt, ...)
{
	struct use_missing *m = realloc(r->missing, (r->nr_missing + 1) * sizeof(*m));
	va_list ap;

	if (!m)
		return -ENOMEM;
	r->missing = m;
	m = &r->missing[r->nr_missing++];
	snprintf(m->what, sizeof(m->what), "%s", what);
	va_start(ap, fmt);
	vsnprintf(m->why, sizeof(m->why), fmt, ap);
	va_end(ap);
	return 0;
}

const struct use_metric *use__metric(const struct use_resource *res, const char *key)
{
	for (int i = 0; i < res->n; i++)
		if (!strcmp(res->m[i].key, key))
			return &res->m[i];
	return NULL;
}

const struct use_resource *use__find(const struct use_report *r, const char *type, const char *name)
{
	for (int i = 0; i < r->nr_res; i++)
		if (!strcmp(r->res[i].type, type) && (!name || !strcmp(r->res[i].name, name)))
			return &r->res[i];
	return NULL;
}

#define HAVE(s, src) ((s)->have & (1u << (src)))
#define D(f) ((double)procstat__delta(a->f, b->f))

/* percent of the window stalled, from the PSI totals (µs); -1 when unknown */
static double psi_pct(const struct ps_psi_line *a, const struct ps_psi_line *b, double dt)
{
	if (!a->valid || !b->valid || dt <= 0)
		return -1;
	return 100.0 * procstat__delta(a->total, b->total) / (dt * 1e6);
}

static void cpu_model(struct use_report *r, const struct ps_snap *a, const struct ps_snap *b,
		      const struct use_runq *rq, double dt)
{
	struct use_resource *res = add_res(r, "cpu", "cpu");
	struct ps_cpu_pct p;
	double runq, blocked, psi = psi_pct(&a->psi[0].some, &b->psi[0].some, dt);
	int hot = -1;
	double hot_busy = 0;

	if (!res)
		return;
	procstat__cpu_pct(&a->total, &b->total, &p);
	add_m(res, USE_U, "busy_pct", p.busy, UNIT_PCT);
	add_m(res, USE_U, "usr_pct", p.usr + p.nice, UNIT_PCT);
	add_m(res, USE_U, "sys_pct", p.sys + p.irq + p.soft, UNIT_PCT);
	add_m(res, USE_U, "iowait_pct", p.iowait, UNIT_PCT);
	add_m(res, USE_U, "steal_pct", p.steal, UNIT_PCT);
	add_m(res, USE_U, "cpus", r->ncpus, UNIT_COUNT);
	if (rq && rq->samples) {
		runq = rq->sum_running / rq->samples;
		blocked = rq->sum_blocked / rq->samples;
	} else {
		runq = b->procs_running ? b->procs_running - 1.0 : 0;
		blocked = b->procs_blocked;
	}
	add_m(res, USE_S, "runq", runq, UNIT_NUM);
	if (rq && rq->samples)
		add_m(res, USE_S, "runq_max", rq->max_running, UNIT_NUM);
	add_m(res, USE_S, "blocked", blocked, UNIT_NUM);
	if (HAVE(b, PS_LOADAVG)) {
		add_m(res, USE_S, "load1", b->load[0], UNIT_NUM);
		add_m(res, USE_S, "load5", b->load[1], UNIT_NUM);
		add_m(res, USE_S, "load15", b->load[2], UNIT_NUM);
	}
	if (psi >= 0) {
		add_m(res, USE_S, "psi_some_pct", psi, UNIT_PCT);
		add_m(res, USE_S, "psi_some_avg10", b->psi[0].some.avg10, UNIT_PCT);
	}
	add_m(res, USE_S, "ctxsw_s", D(ctxt) / dt, UNIT_PER_S);
	snprintf(res->note[USE_E], sizeof(res->note[0]), "no CPU error counters in /proc (machine checks go to the kernel log)");

	for (int i = 0; i < b->nr_cpus; i++) {
		const struct ps_cpu *ca = NULL, *cb = &b->cpus[i];
		struct ps_cpu_pct q;
		struct use_resource *c;
		char name[16];

		for (int j = 0; j < a->nr_cpus; j++)
			if (a->cpus[j].id == cb->id)
				ca = &a->cpus[j];
		if (!ca || !procstat__cpu_pct(ca, cb, &q))
			continue;
		snprintf(name, sizeof(name), "cpu%d", cb->id);
		c = add_res(r, "cpu", name);
		if (!c)
			return;
		res = &r->res[0];	/* add_res may have moved it */
		c->detail = true;
		add_m(c, USE_U, "busy_pct", q.busy, UNIT_PCT);
		add_m(c, USE_U, "usr_pct", q.usr + q.nice, UNIT_PCT);
		add_m(c, USE_U, "sys_pct", q.sys + q.irq + q.soft, UNIT_PCT);
		add_m(c, USE_U, "iowait_pct", q.iowait, UNIT_PCT);
		if (q.busy > hot_busy)
			hot_busy = q.busy, hot = cb->id;
	}

	if (p.busy >= 90)
		add_flag(r, res, USE_U, "sonde record -F 99 -a -g -- sleep 10; sonde report",
			 "CPUs %.0f%% busy over %.1f s (user %.0f%%, system %.0f%%): see what runs",
			 p.busy, dt, p.usr + p.nice, p.sys + p.irq + p.soft);
	else if (hot >= 0 && r->ncpus > 1 && hot_busy >= 90 && p.busy <= 70) {
		char next[96];

		snprintf(next, sizeof(next), "sonde record -F 99 -C %d -g -- sleep 10; sonde report", hot);
		add_flag(r, res, USE_U, next,
			 "cpu%d is %.0f%% busy while all CPUs average %.0f%%: one thread (or one interrupt) is the limit",
			 hot, hot_busy, p.busy);
	}
	if (runq > r->ncpus || (psi >= 10))
		add_flag(r, res, USE_S, "sonde record -F 99 -a -g -- sleep 10; sonde offcpu -a",
			 "%.1f runnable tasks on average for %d CPUs%s%.0f%%: tasks wait for a CPU",
			 runq, r->ncpus, psi >= 0 ? ", cpu pressure " : "", psi >= 0 ? psi : 0.0);
	if (HAVE(b, PS_LOADAVG) && b->load[0] > r->ncpus && p.busy < 50)
		add_flag(r, res, USE_S, "sonde offcpu -a",
			 "load %.2f on %d CPUs but CPUs only %.0f%% busy: tasks are blocked (disk I/O, locks) rather than running",
			 b->load[0], r->ncpus, p.busy);
	else if (blocked >= 1 || p.iowait >= 20)
		add_flag(r, res, USE_S, "sonde offcpu -a",
			 "%.1f tasks blocked in uninterruptible sleep on average, iowait %.0f%%: see where they wait",
			 blocked, p.iowait);
	if (p.steal >= 10)
		add_flag(r, res, USE_S, "(nothing inside this VM shows why: ask who runs the host)",
			 "the hypervisor took %.0f%% of the CPU time (steal): other guests share these CPUs", p.steal);
}

static void mem_model(struct use_report *r, const struct ps_snap *a, const struct ps_snap *b, double dt)
{
	struct use_resource *res;
	double used, swp, psi_s = psi_pct(&a->psi[1].some, &b->psi[1].some, dt);
	double psi_f = psi_pct(&a->psi[1].full, &b->psi[1].full, dt);

	if (!HAVE(b, PS_MEMINFO) && !HAVE(b, PS_VMSTAT))
		return;
	res = add_res(r, "memory", "memory");
	if (!res)
		return;
	used = 0;
	if (HAVE(b, PS_MEMINFO)) {
		/* in double: a corrupt copy's values may be anything, and their difference too */
		double in_use = (double)b->mem_total - (double)b->mem_available;

		used = 100.0 * in_use / b->mem_total;
		add_m(res, USE_U, "used_pct", used, UNIT_PCT);
		add_m(res, USE_U, "in_use_mib", in_use / 1024.0, UNIT_MIB);
		add_m(res, USE_U, "available_mib", b->mem_available / 1024.0, UNIT_MIB);
		add_m(res, USE_U, "total_mib", b->mem_total / 1024.0, UNIT_MIB);
		if (b->swap_total > 0)
			add_m(res, USE_U, "swap_used_pct",
			      100.0 * ((double)b->swap_total - (double)b->swap_free) / b->swap_total, UNIT_PCT);
	}
	swp = 0;
	if (HAVE(b, PS_VMSTAT) && HAVE(a, PS_VMSTAT)) {
		swp = (D(pswpin) + D(pswpout)) / dt;
		add_m(res, USE_S, "swap_pages_s", swp, UNIT_PER_S);
		add_m(res, USE_S, "majflt_s", D(pgmajfault) / dt, UNIT_PER_S);
		add_m(res, USE_S, "scan_direct_s", D(pgscan_direct) / dt, UNIT_PER_S);
		add_m(res, USE_S, "scan_kswapd_s", D(pgscan_kswapd) / dt, UNIT_PER_S);
	}
	if (psi_s >= 0)
		add_m(res, USE_S, "psi_some_pct", psi_s, UNIT_PCT);
	if (psi_f >= 0)
		add_m(res, USE_S, "psi_full_pct", psi_f, UNIT_PCT);
	if (HAVE(b, PS_VMSTAT)) {
		add_m(res, USE_E, "oom_kills", D(oom_kill), UNIT_COUNT);
		add_m(res, USE_E, "oom_kills_since_boot", b->oom_kill, UNIT_COUNT);
	}

	if (used >= 90)
		add_flag(r, res, USE_U, "sonde record -e page-faults -a -g -- sleep 10; sonde report",
			 "%.0f%% of memory in use (%.0f MiB available): see who allocates",
			 used, b->mem_available / 1024.0);
	if (swp > 0 || D(pgscan_direct) > 0 || psi_s >= 5)
		add_flag(r, res, USE_S, "sonde ftrace -e 'vmscan:mm_vmscan_direct_reclaim_*' --duration 10",
			 "memory is short: %.0f pages/s swapped, %.0f pages/s scanned by direct reclaim, memory pressure %.1f%%",
			 swp, D(pgscan_direct) / dt, psi_s > 0 ? psi_s : 0.0);
	if (D(oom_kill) > 0)
		add_flag(r, res, USE_E, "sonde ftrace -e oom:mark_victim",
			 "the OOM killer killed %.0f process(es) during the sample", D(oom_kill));
}

static void disk_model(struct use_report *r, const struct ps_snap *a, const struct ps_snap *b,
		       double dt, const char *sys_dir)
{
	double io_some = psi_pct(&a->psi[2].some, &b->psi[2].some, dt);
	double io_full = psi_pct(&a->psi[2].full, &b->psi[2].full, dt);

	if (io_some >= 0) {	/* I/O pressure is system-wide: its own row, before the disks */
		struct use_resource *io = add_res(r, "io", "io");

		if (!io)
			return;
		add_m(io, USE_S, "psi_some_pct", io_some, UNIT_PCT);
		if (io_full >= 0)
			add_m(io, USE_S, "psi_full_pct", io_full, UNIT_PCT);
		add_m(io, USE_S, "psi_full_avg10", b->psi[2].full.avg10, UNIT_PCT);
		snprintf(io->note[USE_U], sizeof(io->note[0]), "per disk below");
		snprintf(io->note[USE_E], sizeof(io->note[0]), "per disk below");
		if (io_full >= 5)
			add_flag(r, io, USE_S, "sonde offcpu -a",
				 "all non-idle tasks were stalled on I/O %.1f%% of the time (io pressure full): I/O bound whatever the disks' utilization says",
				 io_full);
	}
	for (int i = 0; i < b->nr_disks; i++) {
		const struct ps_disk *db = &b->disks[i], *da = procstat__find_disk(a, db->name);
		struct ps_disk_rate d;
		struct use_resource *res;
		char next[160];

		if (!da || !procstat__disk_is_whole(sys_dir, db))
			continue;
		if (!db->rd_ios && !db->wr_ios)	/* never used since boot: iostat -z leaves it out too */
			continue;
		procstat__disk_rate(da, db, dt, &d);
		res = add_res(r, "disk", db->name);
		if (!res)
			return;
		add_m(res, USE_U, "util_pct", d.util, UNIT_PCT);
		add_m(res, USE_U, "reads_s", d.r_s, UNIT_PER_S);
		add_m(res, USE_U, "writes_s", d.w_s, UNIT_PER_S);
		add_m(res, USE_U, "read_kb_s", d.rkb_s, UNIT_KB_S);
		add_m(res, USE_U, "write_kb_s", d.wkb_s, UNIT_KB_S);
		add_m(res, USE_S, "aqu_sz", d.aqu_sz, UNIT_NUM);
		add_m(res, USE_S, "await_ms", d.await, UNIT_MS);
		add_m(res, USE_S, "r_await_ms", d.r_await, UNIT_MS);
		add_m(res, USE_S, "w_await_ms", d.w_await, UNIT_MS);
		add_m(res, USE_S, "in_flight", db->in_flight, UNIT_COUNT);
		if (db->ioerr >= 0)
			add_m(res, USE_E, "io_errors", da->ioerr >= 0 && db->ioerr >= da->ioerr ? db->ioerr - da->ioerr : 0, UNIT_COUNT);
		else
			snprintf(res->note[USE_E], sizeof(res->note[0]), "no error counter for this device (device/ioerr_cnt is SCSI only)");

		snprintf(next, sizeof(next), "sonde ftrace -e block:block_rq_issue -e block:block_rq_complete --duration 5");
		if (d.util >= 80)
			add_flag(r, res, USE_U, next, "%s busy %.0f%% of the time (%.0f reads/s, %.0f writes/s, %.0f kB/s): see who does the I/O",
				 db->name, d.util, d.r_s, d.w_s, d.rkb_s + d.wkb_s);
		if (d.aqu_sz >= 1 || (d.r_s + d.w_s >= 1 && d.await >= 50))
			add_flag(r, res, USE_S, "sonde offcpu -a",
				 "%s has %.1f requests queued on average and %.1f ms await: I/O waits for the device",
				 db->name, d.aqu_sz, d.await);
		if (db->ioerr >= 0 && da->ioerr >= 0 && db->ioerr > da->ioerr)
			add_flag(r, res, USE_E, "sonde ftrace -e block:block_rq_error",
				 "%s reported %lld I/O errors during the sample", db->name, db->ioerr - da->ioerr);
	}
}

static void net_model(struct use_report *r, const struct ps_snap *a, const struct ps_snap *b, double dt)
{
	for (int i = 0; i < b->nr_nics; i++) {
		const struct ps_nic *nb = &b->nics[i], *na = procstat__find_nic(a, nb->name);
		struct use_resource *res;
		double rx, tx, drops, errs, util = -1;

		if (!na || !strcmp(nb->name, "lo"))
			continue;
		if (!nb->rx_packets && !nb->tx_packets)	/* never used: sar -n DEV shows it, USE has nothing to say */
			continue;
		rx = procstat__delta(na->rx_bytes, nb->rx_bytes) / 1024.0 / dt;
		tx = procstat__delta(na->tx_bytes, nb->tx_bytes) / 1024.0 / dt;
		drops = procstat__delta(na->rx_drop, nb->rx_drop) + procstat__delta(na->tx_drop, nb->tx_drop) +
			procstat__delta(na->rx_fifo, nb->rx_fifo) + procstat__delta(na->tx_fifo, nb->tx_fifo);
		errs = procstat__delta(na->rx_errs, nb->rx_errs) + procstat__delta(na->tx_errs, nb->tx_errs) +
		       procstat__delta(na->rx_frame, nb->rx_frame) + procstat__delta(na->tx_carrier, nb->tx_carrier);
		res = add_res(r, "net", nb->name);
		if (!res)
			return;
		if (nb->speed_mbps > 0) {
			/* full duplex: the busier direction against the link speed */
			util = 100.0 * (rx > tx ? rx : tx) * 1024 * 8 / (nb->speed_mbps * 1e6);
			add_m(res, USE_U, "util_pct", util, UNIT_PCT);
			add_m(res, USE_U, "speed_mbps", nb->speed_mbps, UNIT_COUNT);
		} else {
			snprintf(res->note[USE_U], sizeof(res->note[0]), "link speed unknown (virtual NIC): throughput only");
		}
		add_m(res, USE_U, "rx_kb_s", rx, UNIT_KB_S);
		add_m(res, USE_U, "tx_kb_s", tx, UNIT_KB_S);
		add_m(res, USE_U, "rx_pkt_s", procstat__delta(na->rx_packets, nb->rx_packets) / dt, UNIT_PER_S);
		add_m(res, USE_U, "tx_pkt_s", procstat__delta(na->tx_packets, nb->tx_packets) / dt, UNIT_PER_S);
		add_m(res, USE_S, "drops", drops, UNIT_COUNT);
		add_m(res, USE_E, "errors", errs, UNIT_COUNT);
		add_m(res, USE_E, "errors_since_boot", nb->rx_errs + nb->tx_errs + nb->rx_frame + nb->tx_carrier, UNIT_COUNT);
		if (util >= 80)
			add_flag(r, res, USE_U, "sonde record -F 99 -a -g -- sleep 10; sonde report",
				 "%s at %.0f%% of its %ld Mb/s link", nb->name, util, nb->speed_mbps);
		if (drops > 0)
			add_flag(r, res, USE_S, "sonde ftrace -e skb:kfree_skb --duration 10",
				 "%s dropped %.0f packets during the sample (queues full): the drop reasons are in kfree_skb",
				 nb->name, drops);
		if (errs > 0)
			add_flag(r, res, USE_E, "sonde ftrace -e 'net:*' --duration 10",
				 "%s counted %.0f receive/transmit errors during the sample (driver, cable or link)", nb->name, errs);
	}
}

static void tcp_model(struct use_report *r, const struct ps_snap *a, const struct ps_snap *b, double dt)
{
	struct use_resource *res;
	double out, retr, ovf;

	if (!HAVE(b, PS_SNMP))
		return;
	res = add_res(r, "tcp", "tcp");
	if (!res)
		return;
	out = D(tcp_out_segs);
	retr = D(tcp_retrans_segs);
	ovf = D(listen_overflows);
	add_m(res, USE_U, "estab", b->tcp_curr_estab, UNIT_COUNT);
	add_m(res, USE_U, "active_opens_s", D(tcp_active_opens) / dt, UNIT_PER_S);
	add_m(res, USE_U, "passive_opens_s", D(tcp_passive_opens) / dt, UNIT_PER_S);
	add_m(res, USE_U, "out_segs_s", out / dt, UNIT_PER_S);
	add_m(res, USE_S, "retrans_s", retr / dt, UNIT_PER_S);
	add_m(res, USE_S, "retrans_pct", out ? 100.0 * retr / out : 0, UNIT_PCT);
	if (HAVE(b, PS_NETSTAT)) {
		add_m(res, USE_S, "listen_overflows", ovf, UNIT_COUNT);
		add_m(res, USE_S, "listen_drops", D(listen_drops), UNIT_COUNT);
	}
	add_m(res, USE_E, "in_errs", D(tcp_in_errs), UNIT_COUNT);
	add_m(res, USE_E, "attempt_fails", D(tcp_attempt_fails), UNIT_COUNT);
	add_m(res, USE_E, "estab_resets", D(tcp_estab_resets), UNIT_COUNT);
	add_m(res, USE_E, "udp_errors", D(udp_in_errors) + D(udp_rcvbuf_errors) + D(udp_sndbuf_errors), UNIT_COUNT);

	if (retr >= 10 && retr >= out / 100)
		add_flag(r, res, USE_S, "sonde ftrace -e tcp:tcp_retransmit_skb --duration 10",
			 "%.0f TCP segments retransmitted (%.1f%% of those sent): loss or congestion on the path",
			 retr, 100.0 * retr / out);
	if (ovf > 0)
		add_flag(r, res, USE_S, "sonde offcpu -a",
			 "%.0f connections overflowed a listen queue: the server does not accept() fast enough", ovf);
	if (D(tcp_in_errs) > 0 || D(udp_rcvbuf_errors) > 0)
		add_flag(r, res, USE_E, "sonde ftrace -e skb:kfree_skb --duration 10",
			 "%.0f bad TCP segments and %.0f UDP receive-buffer overflows during the sample",
			 D(tcp_in_errs), D(udp_rcvbuf_errors));
}

static void misc_model(struct use_report *r, const struct ps_snap *a, const struct ps_snap *b, double dt)
{
	struct use_resource *res;
	long long tmax;

	if (HAVE(b, PS_FILENR) && b->files_max) {
		double u = 100.0 * b->files_alloc / (double)b->files_max;

		res = add_res(r, "fds", "fds");
		if (!res)
			return;
		add_m(res, USE_U, "used_pct", u, UNIT_PCT);
		add_m(res, USE_U, "allocated", b->files_alloc, UNIT_COUNT);
		add_m(res, USE_U, "max", b->files_max, UNIT_COUNT);
		snprintf(res->note[USE_S], sizeof(res->note[0]), "none: opening a file does not queue");
		snprintf(res->note[USE_E], sizeof(res->note[0]), "EMFILE/ENFILE failures are not counted in /proc");
		if (u >= 80)
			add_flag(r, res, USE_U, "sonde ftrace -e syscalls:sys_exit_openat --filter 'ret < 0'",
				 "%.0f%% of the system's file handles in use (fs.file-max %llu)", u,
				 (unsigned long long)b->files_max);
	}
	tmax = b->pid_max;
	if (b->threads_max > 0 && (tmax < 0 || b->threads_max < tmax))
		tmax = b->threads_max;
	if (HAVE(b, PS_LOADAVG)) {
		res = add_res(r, "tasks", "tasks");
		if (!res)
			return;
		if (tmax > 0)
			add_m(res, USE_U, "used_pct", 100.0 * b->threads / tmax, UNIT_PCT);
		add_m(res, USE_U, "threads", b->threads, UNIT_COUNT);
		if (tmax > 0)
			add_m(res, USE_U, "max", tmax, UNIT_COUNT);
		add_m(res, USE_U, "forks_s", D(processes) / dt, UNIT_PER_S);
		snprintf(res->note[USE_E], sizeof(res->note[0]), "fork failures (EAGAIN) are not counted in /proc");
		if (tmax > 0 && b->threads >= 0.8 * tmax)
			add_flag(r, res, USE_U, "sonde ftrace -e sched:sched_process_fork --duration 5",
				 "%u threads of the %lld allowed (kernel.pid_max / kernel.threads-max)", b->threads, tmax);
	}
	if (HAVE(b, PS_CGROUP) && (b->cg.mem_limit > 0 || b->cg.cpu_quota_us > 0)) {
		res = add_res(r, "cgroup", b->cg.path);
		if (!res)
			return;
		if (b->cg.mem_limit > 0 && b->cg.mem_usage >= 0) {
			double u = 100.0 * b->cg.mem_usage / b->cg.mem_limit;

			add_m(res, USE_U, "mem_used_pct", u, UNIT_PCT);
			add_m(res, USE_U, "mem_limit_mib", b->cg.mem_limit / 1048576.0, UNIT_MIB);
			if (u >= 90)
				add_flag(r, res, USE_U, "sonde record -e page-faults -a -g -- sleep 10; sonde report",
					 "the cgroup uses %.0f%% of its %.0f MiB memory limit", u, b->cg.mem_limit / 1048576.0);
		}
		if (b->cg.cpu_quota_us > 0 && b->cg.cpu_period_us > 0) {
			double thr = a->cg.nr_throttled >= 0 && b->cg.nr_throttled >= 0 ? D(cg.nr_throttled) : 0;
			double thr_ms = a->cg.throttled_us >= 0 && b->cg.throttled_us >= 0 ? D(cg.throttled_us) / 1000.0 : 0;

			add_m(res, USE_U, "cpu_limit", (double)b->cg.cpu_quota_us / b->cg.cpu_period_us, UNIT_NUM);
			add_m(res, USE_S, "nr_throttled", thr, UNIT_COUNT);
			add_m(res, USE_S, "throttled_ms", thr_ms, UNIT_MS);
			if (thr > 0)
				add_flag(r, res, USE_S, "sonde record -F 99 -a -g -- sleep 10; sonde report",
					 "the cgroup's CPU limit (%.2f CPUs) throttled it %.0f times, %.0f ms in all",
					 (double)b->cg.cpu_quota_us / b->cg.cpu_period_us, thr, thr_ms);
		}
		if (b->cg.mem_oom_kills >= 0) {
			double k = a->cg.mem_oom_kills >= 0 ? D(cg.mem_oom_kills) : 0;

			add_m(res, USE_E, "oom_kills", k, UNIT_COUNT);
			if (k > 0)
				add_flag(r, res, USE_E, "sonde ftrace -e oom:mark_victim",
					 "the cgroup's memory limit made the OOM killer kill %.0f process(es)", k);
		}
	}
}

static void missing_model(struct use_report *r, const struct ps_snap *b)
{
	for (int i = 0; i < PS__NR; i++) {
		const char *path = procstat__source_path(i);
		int e = b->err[i];

		if (!e)
			continue;
		if (i >= PS_PSI_CPU && i <= PS_PSI_IO) {
			if (e == ENOENT)
				add_missing(r, path, "no PSI in this kernel (CONFIG_PSI off): stalls are not measured");
			else if (e == EOPNOTSUPP)
				add_missing(r, path, "PSI is off (booted with psi=0): add psi=1 to the kernel command line");
			else
				add_missing(r, path, "%s", strerror(e));
		} else if (i == PS_CGROUP) {
			if (e != ENOENT)
				add_missing(r, path, "cannot read this process's cgroup: %s", strerror(e));
		} else if (e == EINVAL) {
			add_missing(r, path, "not in a layout sonde knows: left out");
		} else {
			add_missing(r, path, "%s%s", strerror(e),
				    e == ENOENT || e == EACCES ? " (a container or a restricted /proc?)" : "");
		}
	}
}

int use__build(struct use_report *r, const struct ps_snap *a, const struct ps_snap *b,
	       const struct use_runq *rq, const char *sys_dir)
{
	double dt = b->t - a->t;

	memset(r, 0, sizeof(*r));
	if (dt <= 0)
		dt = 1e-9;
	r->duration = b->t - a->t;
	r->ncpus = b->nr_cpus ? b->nr_cpus : 1;
	memcpy(r->load, b->load, sizeof(r->load));
	cpu_model(r, a, b, rq, dt);
	mem_model(r, a, b, dt);
	disk_model(r, a, b, dt, sys_dir);
	net_model(r, a, b, dt);
	tcp_model(r, a, b, dt);
	misc_model(r, a, b, dt);
	missing_model(r, b);
	return r->nr_res ? 0 : -ENOMEM;
}

void use__free(struct use_report *r)
{
	free(r->res);
	free(r->flags);
	free(r->missing);
	memset(r, 0, sizeof(*r));
}
