// SPDX-License-Identifier: GPL-2.0
/*
 * procstat.c - parsing /proc and /sys counters into a snapshot, and the rates
 * between snapshots. The layouts are the kernel's (Documentation/filesystems/
 * proc.rst, iostats.rst, accounting/psi.rst, admin-guide/cgroup-v1 and v2);
 * each parser accepts the older layouts still seen in the field (4-field cpu
 * lines, 14-field diskstats, the 2.6 partition lines, no "full" PSI line for cpu).
 */
#include "lib/proc/procstat.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const source_paths[PS__NR] = {
	[PS_STAT] = "stat", [PS_LOADAVG] = "loadavg", [PS_MEMINFO] = "meminfo",
	[PS_VMSTAT] = "vmstat", [PS_DISKSTATS] = "diskstats", [PS_NETDEV] = "net/dev",
	[PS_SNMP] = "net/snmp", [PS_NETSTAT] = "net/netstat", [PS_PSI_CPU] = "pressure/cpu",
	[PS_PSI_MEMORY] = "pressure/memory", [PS_PSI_IO] = "pressure/io",
	[PS_FILENR] = "sys/fs/file-nr", [PS_CGROUP] = "self/cgroup",
};

const char *procstat__source_path(enum ps_source s)
{
	return s < PS__NR ? source_paths[s] : "?";
}

/* the next line of *p (without its newline) into line[len]; false at the end */
static bool next_line(const char **p, char *line, size_t len)
{
	const char *s = *p, *e;
	size_t n;

	if (!*s)
		return false;
	e = strchr(s, '\n');
	n = e ? (size_t)(e - s) : strlen(s);
	*p = e ? e + 1 : s + n;
	if (n >= len)
		n = len - 1;	/* longer lines are cut: no field sonde reads is that far */
	memcpy(line, s, n);
	line[n] = 0;
	return true;
}

/* unsigned decimal at *p after blanks; false if none */
static bool get_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno)
		return false;
	*p = end;
	return true;
}

int procstat__parse_stat(struct ps_snap *s, const char *buf)
{
	char line[4096];
	bool have_total = false;

	while (next_line(&buf, line, sizeof(line))) {
		const char *p = line;
		uint64_t v[10] = { 0 };
		int n = 0;

		if (!strncmp(line, "cpu", 3)) {
			struct ps_cpu *c;
			int id = -1;

			p = line + 3;
			if (isdigit((unsigned char)*p)) {
				char *end;
				long l = strtol(p, &end, 10);

				if (l < 0 || l > 1 << 20)
					return -EINVAL;
				id = (int)l;
				p = end;
			} else if (*p != ' ') {
				continue;
			}
			while (n < 10 && get_u64(&p, &v[n]))
				n++;
			if (n < 4)
				return -EINVAL;
			if (id < 0) {
				c = &s->total;
				have_total = true;
			} else {
				struct ps_cpu *nc = realloc(s->cpus, (s->nr_cpus + 1) * sizeof(*nc));

				if (!nc)
					return -ENOMEM;
				s->cpus = nc;
				c = &s->cpus[s->nr_cpus++];
			}
			*c = (struct ps_cpu){ id, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9] };
			continue;
		}
		{
			static const struct { const char *key; size_t off; } keys[] = {
				{ "intr ", offsetof(struct ps_snap, intr) },
				{ "ctxt ", offsetof(struct ps_snap, ctxt) },
				{ "processes ", offsetof(struct ps_snap, processes) },
				{ "procs_running ", offsetof(struct ps_snap, procs_running) },
				{ "procs_blocked ", offsetof(struct ps_snap, procs_blocked) },
			};

			for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
				size_t kl = strlen(keys[k].key);

				if (!strncmp(line, keys[k].key, kl)) {
					p = line + kl;
					if (!get_u64(&p, (uint64_t *)((char *)s + keys[k].off)))
						return -EINVAL;
				}
			}
		}
	}
	return have_total ? 0 : -EINVAL;
}

int procstat__parse_loadavg(struct ps_snap *s, const char *buf)
{
	double l[3];
	unsigned r, t;

	if (sscanf(buf, "%lf %lf %lf %u/%u", &l[0], &l[1], &l[2], &r, &t) != 5)
		return -EINVAL;
	for (int i = 0; i < 3; i++) {
		if (!(l[i] >= 0 && l[i] < 1e9))
			return -EINVAL;
		s->load[i] = l[i];
	}
	s->runnable = r;
	s->threads = t;
	return 0;
}

int procstat__parse_meminfo(struct ps_snap *s, const char *buf)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "MemTotal", offsetof(struct ps_snap, mem_total) },
		{ "MemFree", offsetof(struct ps_snap, mem_free) },
		{ "MemAvailable", offsetof(struct ps_snap, mem_available) },
		{ "Buffers", offsetof(struct ps_snap, buffers) },
		{ "Cached", offsetof(struct ps_snap, cached) },
		{ "SwapTotal", offsetof(struct ps_snap, swap_total) },
		{ "SwapFree", offsetof(struct ps_snap, swap_free) },
		{ "Dirty", offsetof(struct ps_snap, dirty) },
		{ "Writeback", offsetof(struct ps_snap, writeback) },
		{ "Slab", offsetof(struct ps_snap, slab) },
		{ "SReclaimable", offsetof(struct ps_snap, sreclaimable) },
	};
	char line[512];

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		*(long long *)((char *)s + keys[k].off) = -1;
	while (next_line(&buf, line, sizeof(line))) {
		char *colon = strchr(line, ':');
		const char *p;
		uint64_t v;

		if (!colon)
			continue;
		*colon = 0;
		p = colon + 1;
		if (!get_u64(&p, &v))
			continue;
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!strcmp(line, keys[k].key))
				*(long long *)((char *)s + keys[k].off) = v > LLONG_MAX ? LLONG_MAX : (long long)v;
	}
	if (s->mem_total <= 0)
		return -EINVAL;
	/* before 3.14 there is no MemAvailable: estimate it as free + page cache + buffers */
	if (s->mem_available < 0)
		s->mem_available = s->mem_free + (s->cached > 0 ? s->cached : 0) + (s->buffers > 0 ? s->buffers : 0);
	return 0;
}

int procstat__parse_vmstat(struct ps_snap *s, const char *buf)
{
	char line[512];
	int n = 0;

	while (next_line(&buf, line, sizeof(line))) {
		char *sp = strchr(line, ' ');
		const char *p;
		uint64_t v;

		if (!sp)
			continue;
		*sp = 0;
		p = sp + 1;
		if (!get_u64(&p, &v))
			continue;
		n++;
		if (!strcmp(line, "pgfault"))
			s->pgfault = v;
		else if (!strcmp(line, "pgmajfault"))
			s->pgmajfault = v;
		else if (!strcmp(line, "pswpin"))
			s->pswpin = v;
		else if (!strcmp(line, "pswpout"))
			s->pswpout = v;
		else if (!strcmp(line, "oom_kill"))
			s->oom_kill = v;
		else if (!strncmp(line, "pgscan_kswapd", 13))	/* pgscan_kswapd, or per zone before 4.8 */
			s->pgscan_kswapd += v;
		else if (!strncmp(line, "pgscan_direct", 13) && strcmp(line, "pgscan_direct_throttle"))
			s->pgscan_direct += v;
		else if (!strncmp(line, "pgsteal_kswapd", 14))
			s->pgsteal_kswapd += v;
		else if (!strncmp(line, "pgsteal_direct", 14))
			s->pgsteal_direct += v;
		else if (!strncmp(line, "allocstall", 10))	/* allocstall_<zone> since 4.10 */
			s->allocstall += v;
	}
	return n ? 0 : -EINVAL;
}

int procstat__parse_diskstats(struct ps_snap *s, const char *buf)
{
	char line[1024];

	while (next_line(&buf, line, sizeof(line))) {
		struct ps_disk d = { .ioerr = -1 };
		uint64_t v[17] = { 0 };
		const char *p;
		int off = 0, n = 0;
		struct ps_disk *nd;

		if (!*line)
			continue;
		if (sscanf(line, "%u %u %31s %n", &d.major, &d.minor, d.name, &off) != 3 || !off)
			return -EINVAL;
		p = line + off;
		while (n < 17 && get_u64(&p, &v[n]))
			n++;
		if (n == 4) {	/* a 2.6 partition line: reads, sectors read, writes, sectors written */
			d.rd_ios = v[0], d.rd_sectors = v[1], d.wr_ios = v[2], d.wr_sectors = v[3];
		} else if (n >= 11) {
			d.rd_ios = v[0], d.rd_merges = v[1], d.rd_sectors = v[2], d.rd_ticks = v[3];
			d.wr_ios = v[4], d.wr_merges = v[5], d.wr_sectors = v[6], d.wr_ticks = v[7];
			d.in_flight = v[8], d.io_ticks = v[9], d.time_in_queue = v[10];
			d.dc_ios = v[11], d.dc_merges = v[12], d.dc_sectors = v[13], d.dc_ticks = v[14];
			d.fl_ios = v[15], d.fl_ticks = v[16];
		} else {
			return -EINVAL;
		}
		d.nfields = n + 3;
		nd = realloc(s->disks, (s->nr_disks + 1) * sizeof(*nd));
		if (!nd)
			return -ENOMEM;
		s->disks = nd;
		s->disks[s->nr_disks++] = d;
	}
	return 0;
}

int procstat__parse_netdev(struct ps_snap *s, const char *buf)
{
	char line[1024];

	while (next_line(&buf, line, sizeof(line))) {
		struct ps_nic c = { .speed_mbps = -1 };
		char *colon = strchr(line, ':'), *name = line;
		uint64_t v[16];
		const char *p;
		struct ps_nic *nn;
		int n = 0;

		if (strchr(line, '|'))	/* the two header lines */
			continue;
		if (!colon) {
			if (*line)
				return -EINVAL;
			continue;
		}
		*colon = 0;
		while (*name == ' ')
			name++;
		if (!*name || strlen(name) >= sizeof(c.name))
			return -EINVAL;
		strcpy(c.name, name);
		p = colon + 1;	/* 2.6 printed "eth0:123" with no blank after a long name */
		while (n < 16 && get_u64(&p, &v[n]))
			n++;
		if (n != 16)
			return -EINVAL;
		c.rx_bytes = v[0], c.rx_packets = v[1], c.rx_errs = v[2], c.rx_drop = v[3];
		c.rx_fifo = v[4], c.rx_frame = v[5];
		c.tx_bytes = v[8], c.tx_packets = v[9], c.tx_errs = v[10], c.tx_drop = v[11];
		c.tx_fifo = v[12], c.tx_colls = v[13], c.tx_carrier = v[14];
		nn = realloc(s->nics, (s->nr_nics + 1) * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		s->nics = nn;
		s->nics[s->nr_nics++] = c;
	}
	return 0;
}

static const struct snmp_key {
	const char *group, *key;
	size_t off;
} snmp_keys[] = {
	{ "Tcp", "ActiveOpens", offsetof(struct ps_snap, tcp_active_opens) },
	{ "Tcp", "PassiveOpens", offsetof(struct ps_snap, tcp_passive_opens) },
	{ "Tcp", "AttemptFails", offsetof(struct ps_snap, tcp_attempt_fails) },
	{ "Tcp", "EstabResets", offsetof(struct ps_snap, tcp_estab_resets) },
	{ "Tcp", "CurrEstab", offsetof(struct ps_snap, tcp_curr_estab) },
	{ "Tcp", "InSegs", offsetof(struct ps_snap, tcp_in_segs) },
	{ "Tcp", "OutSegs", offsetof(struct ps_snap, tcp_out_segs) },
	{ "Tcp", "RetransSegs", offsetof(struct ps_snap, tcp_retrans_segs) },
	{ "Tcp", "InErrs", offsetof(struct ps_snap, tcp_in_errs) },
	{ "Tcp", "OutRsts", offsetof(struct ps_snap, tcp_out_rsts) },
	{ "Udp", "InDatagrams", offsetof(struct ps_snap, udp_in_datagrams) },
	{ "Udp", "NoPorts", offsetof(struct ps_snap, udp_no_ports) },
	{ "Udp", "InErrors", offsetof(struct ps_snap, udp_in_errors) },
	{ "Udp", "OutDatagrams", offsetof(struct ps_snap, udp_out_datagrams) },
	{ "Udp", "RcvbufErrors", offsetof(struct ps_snap, udp_rcvbuf_errors) },
	{ "Udp", "SndbufErrors", offsetof(struct ps_snap, udp_sndbuf_errors) },
	{ "TcpExt", "ListenOverflows", offsetof(struct ps_snap, listen_overflows) },
	{ "TcpExt", "ListenDrops", offsetof(struct ps_snap, listen_drops) },
	{ "TcpExt", "TCPTimeouts", offsetof(struct ps_snap, tcp_timeouts) },
};

/* a pair "Group: k1 k2 ..." / "Group: v1 v2 ..."; values may be negative (MaxConn -1) */
static int snmp_pair(struct ps_snap *s, char *hdr, char *val)
{
	char *hc = strchr(hdr, ':'), *vc = strchr(val, ':');
	char *hs, *vs, *k, *v;

	if (!hc || !vc || hc - hdr != vc - val || strncmp(hdr, val, hc - hdr))
		return -EINVAL;
	*hc = 0;
	k = strtok_r(hc + 1, " \t", &hs);
	v = strtok_r(vc + 1, " \t", &vs);
	for (; k && v; k = strtok_r(NULL, " \t", &hs), v = strtok_r(NULL, " \t", &vs)) {
		for (size_t i = 0; i < sizeof(snmp_keys) / sizeof(snmp_keys[0]); i++) {
			char *end;
			long long x;

			if (strcmp(hdr, snmp_keys[i].group) || strcmp(k, snmp_keys[i].key))
				continue;
			errno = 0;
			x = strtoll(v, &end, 10);
			if (errno || *end)
				return -EINVAL;
			*(uint64_t *)((char *)s + snmp_keys[i].off) = x < 0 ? 0 : (uint64_t)x;
		}
	}
	return k || v ? -EINVAL : 0;	/* as many values as names */
}

int procstat__parse_snmp(struct ps_snap *s, const char *buf)
{
	char hdr[8192], val[8192];
	int pairs = 0;

	while (next_line(&buf, hdr, sizeof(hdr))) {
		int rc;

		if (!*hdr)
			continue;
		if (!next_line(&buf, val, sizeof(val)))
			return -EINVAL;
		rc = snmp_pair(s, hdr, val);
		if (rc)
			return rc;
		pairs++;
	}
	return pairs ? 0 : -EINVAL;
}

static int psi_line(struct ps_psi_line *l, const char *p)
{
	double a10, a60, a300;
	unsigned long long total;

	if (sscanf(p, " avg10=%lf avg60=%lf avg300=%lf total=%llu", &a10, &a60, &a300, &total) != 4)
		return -EINVAL;
	if (!(a10 >= 0 && a10 <= 100 && a60 >= 0 && a60 <= 100 && a300 >= 0 && a300 <= 100))
		return -EINVAL;
	*l = (struct ps_psi_line){ true, a10, a60, a300, total };
	return 0;
}

int procstat__parse_psi(struct ps_psi *p, const char *buf)
{
	char line[256];

	memset(p, 0, sizeof(*p));
	while (next_line(&buf, line, sizeof(line))) {
		int rc = 0;

		if (!strncmp(line, "some ", 5))
			rc = psi_line(&p->some, line + 4);
		else if (!strncmp(line, "full ", 5))
			rc = psi_line(&p->full, line + 4);
		else if (*line)
			rc = -EINVAL;
		if (rc)
			return rc;
	}
	return p->some.valid ? 0 : -EINVAL;
}

int procstat__parse_filenr(struct ps_snap *s, const char *buf)
{
	unsigned long long a, f, m;

	if (sscanf(buf, "%llu %llu %llu", &a, &f, &m) != 3)
		return -EINVAL;
	s->files_alloc = a, s->files_free = f, s->files_max = m;
	return 0;
}

int procstat__parse_cgroup_file(const char *buf, char *v2, char *v1mem, char *v1cpu, unsigned len)
{
	char line[4096];
	int n = 0;

	*v2 = *v1mem = *v1cpu = 0;
	while (next_line(&buf, line, sizeof(line))) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char *ctl, *tok, *sv;

		if (!c2)
			return *line ? -EINVAL : 0;
		*c1 = *c2 = 0;
		ctl = c1 + 1;
		if (c2[1] != '/' || strlen(c2 + 1) >= len || strstr(c2 + 1, "/../"))
			return -EINVAL;
		n++;
		if (!*ctl && !strcmp(line, "0")) {
			strcpy(v2, c2 + 1);
			continue;
		}
		for (tok = strtok_r(ctl, ",", &sv); tok; tok = strtok_r(NULL, ",", &sv)) {
			if (!strcmp(tok, "memory"))
				strcpy(v1mem, c2 + 1);
			else if (!strcmp(tok, "cpu"))
				strcpy(v1cpu, c2 + 1);
		}
	}
	return n ? 0 : -EINVAL;
}

/* a file of one number ("max" and "-1" read as -1); 0 or -errno */
static int read_ll(const char *path, long long *v, int base)
{
	char *buf, *end;
	int rc = util__read_file(path, 64u << 20, &buf, NULL);

	if (rc)
		return rc;
	if (!strncmp(buf, "max", 3)) {
		*v = -1;
	} else {
		errno = 0;
		*v = strtoll(buf, &end, base);
		if (errno || end == buf)
			rc = -EINVAL;
	}
	free(buf);
	return rc;
}

/* KEY's value in a "key value" file (memory.events, cpu.stat, memory.oom_control), -1 if absent */
static long long read_keyed(const char *path, const char *key)
{
	char *buf, line[256];
	const char *p;
	long long v = -1;
	size_t kl = strlen(key);

	if (util__read_file(path, 64u << 20, &buf, NULL))
		return -1;
	p = buf;
	while (next_line(&p, line, sizeof(line)))
		if (!strncmp(line, key, kl) && line[kl] == ' ')
			v = strtoll(line + kl + 1, NULL, 10);
	free(buf);
	return v;
}

static void read_cgroup(struct ps_snap *s, const char *proc_dir, const char *sys_dir)
{
	struct ps_cgroup *cg = &s->cg;
	char path[PATH_MAX], v2[256], mem[256], cpu[256], base[PATH_MAX];
	char *buf;
	long long v;
	int rc;

	*cg = (struct ps_cgroup){ .mem_limit = -1, .mem_usage = -1, .mem_oom_kills = -1, .cpu_quota_us = -1,
				  .cpu_period_us = -1, .nr_periods = -1, .nr_throttled = -1, .throttled_us = -1 };
	snprintf(path, sizeof(path), "%s/self/cgroup", proc_dir);
	rc = util__read_file(path, 64u << 20, &buf, NULL);
	if (!rc) {
		rc = procstat__parse_cgroup_file(buf, v2, mem, cpu, sizeof(v2));
		free(buf);
	}
	if (rc) {
		s->err[PS_CGROUP] = -rc;
		return;
	}
	/* cgroup v2: /sys/fs/cgroup itself (unified) or /sys/fs/cgroup/unified (hybrid) */
	if (*v2) {
		snprintf(base, sizeof(base), "%s/fs/cgroup/cgroup.controllers", sys_dir);
		if (access(base, F_OK))
			snprintf(base, sizeof(base), "%s/fs/cgroup/unified%s", sys_dir, v2);
		else
			snprintf(base, sizeof(base), "%s/fs/cgroup%s", sys_dir, v2);
		snprintf(cg->path, sizeof(cg->path), "%s", v2);
		snprintf(path, sizeof(path), "%s/memory.max", base);
		if (!read_ll(path, &v, 10)) {
			cg->version = 2;
			cg->mem_limit = v;
			snprintf(path, sizeof(path), "%s/memory.current", base);
			if (!read_ll(path, &v, 10))
				cg->mem_usage = v;
			snprintf(path, sizeof(path), "%s/memory.events", base);
			cg->mem_oom_kills = read_keyed(path, "oom_kill");
		}
		snprintf(path, sizeof(path), "%s/cpu.max", base);
		if (!util__read_file(path, 64u << 20, &buf, NULL)) {
			long long q, per;

			cg->version = 2;
			if (sscanf(buf, "%lld %lld", &q, &per) == 2)
				cg->cpu_quota_us = q, cg->cpu_period_us = per;
			else if (sscanf(buf, "max %lld", &per) == 1)
				cg->cpu_period_us = per;
			free(buf);
		}
		snprintf(path, sizeof(path), "%s/cpu.stat", base);
		cg->nr_periods = read_keyed(path, "nr_periods");
		cg->nr_throttled = read_keyed(path, "nr_throttled");
		cg->throttled_us = read_keyed(path, "throttled_usec");
	}
	/* cgroup v1 controllers, where v2 did not have them */
	if (*mem && cg->mem_usage < 0) {
		snprintf(base, sizeof(base), "%s/fs/cgroup/memory%s", sys_dir, mem);
		snprintf(path, sizeof(path), "%s/memory.limit_in_bytes", base);
		if (!read_ll(path, &v, 10)) {
			cg->version = cg->version ? cg->version : 1;
			snprintf(cg->path, sizeof(cg->path), "%s", mem);
			cg->mem_limit = v >= (1LL << 62) ? -1 : v;	/* "no limit" is LONG_MAX rounded to a page */
			snprintf(path, sizeof(path), "%s/memory.usage_in_bytes", base);
			if (!read_ll(path, &v, 10))
				cg->mem_usage = v;
			snprintf(path, sizeof(path), "%s/memory.oom_control", base);
			cg->mem_oom_kills = read_keyed(path, "oom_kill");
		}
	}
	if (*cpu && cg->nr_periods < 0 && cg->cpu_quota_us < 0) {
		static const char *const dirs[] = { "cpu", "cpu,cpuacct", "cpuacct,cpu" };

		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			snprintf(base, sizeof(base), "%s/fs/cgroup/%s%s", sys_dir, dirs[i], cpu);
			snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", base);
			if (read_ll(path, &v, 10))
				continue;
			cg->version = cg->version ? cg->version : 1;
			cg->cpu_quota_us = v;
			snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", base);
			if (!read_ll(path, &v, 10))
				cg->cpu_period_us = v;
			snprintf(path, sizeof(path), "%s/cpu.stat", base);
			cg->nr_periods = read_keyed(path, "nr_periods");
			cg->nr_throttled = read_keyed(path, "nr_throttled");
			v = read_keyed(path, "throttled_time");	/* ns in v1 */
			cg->throttled_us = v < 0 ? -1 : v / 1000;
			break;
		}
	}
	if (cg->version)
		s->have |= 1u << PS_CGROUP;
	else
		s->err[PS_CGROUP] = ENOENT;
}

typedef int (*parse_fn)(struct ps_snap *s, const char *buf);

static int parse_psi_cpu(struct ps_snap *s, const char *b) { return procstat__parse_psi(&s->psi[0], b); }
static int parse_psi_mem(struct ps_snap *s, const char *b) { return procstat__parse_psi(&s->psi[1], b); }
static int parse_psi_io(struct ps_snap *s, const char *b) { return procstat__parse_psi(&s->psi[2], b); }

static const parse_fn parsers[PS__NR] = {
	[PS_STAT] = procstat__parse_stat, [PS_LOADAVG] = procstat__parse_loadavg,
	[PS_MEMINFO] = procstat__parse_meminfo, [PS_VMSTAT] = procstat__parse_vmstat,
	[PS_DISKSTATS] = procstat__parse_diskstats, [PS_NETDEV] = procstat__parse_netdev,
	[PS_SNMP] = procstat__parse_snmp, [PS_NETSTAT] = procstat__parse_snmp,
	[PS_PSI_CPU] = parse_psi_cpu, [PS_PSI_MEMORY] = parse_psi_mem, [PS_PSI_IO] = parse_psi_io,
	[PS_FILENR] = procstat__parse_filenr,
};

int procstat__read(struct ps_snap *s, const char *proc_dir, const char *sys_dir)
{
	char path[PATH_MAX];

	memset(s, 0, sizeof(*s));
	s->t = util__now_s();
	for (int i = 0; i < PS__NR; i++) {
		char *buf;
		int rc;

		if (!parsers[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", proc_dir, source_paths[i]);
		rc = util__read_file(path, 64u << 20, &buf, NULL);
		if (!rc) {
			rc = parsers[i](s, buf);
			free(buf);
		}
		if (rc)
			s->err[i] = -rc;
		else
			s->have |= 1u << i;
	}
	if (!(s->have & (1u << PS_STAT)))
		return -s->err[PS_STAT];
	for (int i = 0; i < s->nr_disks; i++) {
		char name[32], *c;
		long long v;

		snprintf(name, sizeof(name), "%s", s->disks[i].name);
		for (c = name; *c; c++)
			if (*c == '/')
				*c = '!';
		snprintf(path, sizeof(path), "%s/block/%s/device/ioerr_cnt", sys_dir, name);
		if (!read_ll(path, &v, 0))
			s->disks[i].ioerr = v;
	}
	for (int i = 0; i < s->nr_nics; i++) {
		long long v;

		snprintf(path, sizeof(path), "%s/class/net/%s/speed", sys_dir, s->nics[i].name);
		if (!read_ll(path, &v, 10) && v > 0)
			s->nics[i].speed_mbps = v;
	}
	snprintf(path, sizeof(path), "%s/sys/kernel/pid_max", proc_dir);
	if (read_ll(path, &s->pid_max, 10))
		s->pid_max = -1;
	snprintf(path, sizeof(path), "%s/sys/kernel/threads-max", proc_dir);
	if (read_ll(path, &s->threads_max, 10))
		s->threads_max = -1;
	read_cgroup(s, proc_dir, sys_dir);
	return 0;
}

int procstat__read_procs(const char *proc_dir, uint64_t *running, uint64_t *blocked)
{
	char path[PATH_MAX], *buf, *p;
	int rc;

	snprintf(path, sizeof(path), "%s/stat", proc_dir);
	rc = util__read_file(path, 64u << 20, &buf, NULL);
	if (rc)
		return rc;
	rc = -EINVAL;
	p = strstr(buf, "\nprocs_running ");
	if (p && sscanf(p, "\nprocs_running %" SCNu64, running) == 1) {
		p = strstr(buf, "\nprocs_blocked ");
		if (p && sscanf(p, "\nprocs_blocked %" SCNu64, blocked) == 1)
			rc = 0;
	}
	free(buf);
	return rc;
}

void procstat__free(struct ps_snap *s)
{
	free(s->cpus);
	free(s->disks);
	free(s->nics);
	s->cpus = NULL;
	s->disks = NULL;
	s->nics = NULL;
	s->nr_cpus = s->nr_disks = s->nr_nics = 0;
}

bool procstat__cpu_pct(const struct ps_cpu *a, const struct ps_cpu *b, struct ps_cpu_pct *o)
{
	/* guest time is also counted in user (and guest_nice in nice): mpstat subtracts it */
	double user = procstat__delta(a->user, b->user), nice = procstat__delta(a->nice, b->nice);
	double guest = procstat__delta(a->guest, b->guest), gnice = procstat__delta(a->guest_nice, b->guest_nice);
	double sys = procstat__delta(a->system, b->system), idle = procstat__delta(a->idle, b->idle);
	double iow = procstat__delta(a->iowait, b->iowait), irq = procstat__delta(a->irq, b->irq);
	double soft = procstat__delta(a->softirq, b->softirq), steal = procstat__delta(a->steal, b->steal);
	double total = user + nice + sys + idle + iow + irq + soft + steal;

	memset(o, 0, sizeof(*o));
	if (total <= 0)
		return false;
	o->usr = 100.0 * (user > guest ? user - guest : 0) / total;
	o->nice = 100.0 * (nice > gnice ? nice - gnice : 0) / total;
	o->sys = 100.0 * sys / total;
	o->iowait = 100.0 * iow / total;
	o->irq = 100.0 * irq / total;
	o->soft = 100.0 * soft / total;
	o->steal = 100.0 * steal / total;
	o->guest = 100.0 * guest / total;
	o->gnice = 100.0 * gnice / total;
	o->idle = 100.0 * idle / total;
	o->busy = 100.0 - o->idle - o->iowait;
	if (o->busy < 0)
		o->busy = 0;
	return true;
}

void procstat__disk_rate(const struct ps_disk *a, const struct ps_disk *b, double dt, struct ps_disk_rate *o)
{
	double rd = procstat__delta(a->rd_ios, b->rd_ios), wr = procstat__delta(a->wr_ios, b->wr_ios);
	double rt = procstat__delta(a->rd_ticks, b->rd_ticks), wt = procstat__delta(a->wr_ticks, b->wr_ticks);
	double rs = procstat__delta(a->rd_sectors, b->rd_sectors), ws = procstat__delta(a->wr_sectors, b->wr_sectors);

	memset(o, 0, sizeof(*o));
	if (dt <= 0)
		return;
	o->r_s = rd / dt;
	o->w_s = wr / dt;
	o->rkb_s = rs / 2 / dt;		/* sectors are 512 bytes whatever the device's */
	o->wkb_s = ws / 2 / dt;
	o->rrqm_s = procstat__delta(a->rd_merges, b->rd_merges) / dt;
	o->wrqm_s = procstat__delta(a->wr_merges, b->wr_merges) / dt;
	o->r_await = rd ? rt / rd : 0;
	o->w_await = wr ? wt / wr : 0;
	o->await = rd + wr ? (rt + wt) / (rd + wr) : 0;
	o->rareq_sz = rd ? rs / 2 / rd : 0;
	o->wareq_sz = wr ? ws / 2 / wr : 0;
	o->aqu_sz = procstat__delta(a->time_in_queue, b->time_in_queue) / (dt * 1000.0);
	o->util = procstat__delta(a->io_ticks, b->io_ticks) / (dt * 10.0);
	if (o->util > 100)
		o->util = 100;
}

const struct ps_disk *procstat__find_disk(const struct ps_snap *s, const char *name)
{
	for (int i = 0; i < s->nr_disks; i++)
		if (!strcmp(s->disks[i].name, name))
			return &s->disks[i];
	return NULL;
}

const struct ps_nic *procstat__find_nic(const struct ps_snap *s, const char *name)
{
	for (int i = 0; i < s->nr_nics; i++)
		if (!strcmp(s->nics[i].name, name))
			return &s->nics[i];
	return NULL;
}

bool procstat__disk_is_whole(const char *sys_dir, const struct ps_disk *d)
{
	char path[PATH_MAX], name[32], *c;

	if (!strncmp(d->name, "loop", 4) || !strncmp(d->name, "ram", 3))
		return false;
	snprintf(name, sizeof(name), "%s", d->name);
	for (c = name; *c; c++)
		if (*c == '/')
			*c = '!';
	snprintf(path, sizeof(path), "%s/block/%s", sys_dir, name);
	if (!access(path, F_OK))
		return true;
	/* no /sys (a container): partitions end in a digit after a letter-named disk, or pN */
	snprintf(path, sizeof(path), "%s/block", sys_dir);
	if (!access(path, F_OK))
		return false;
	return d->nfields != 7;
}
