// SPDX-License-Identifier: GPL-2.0
/*
 * test_procstat.c - the /proc parsers against fixture files (tests/fixtures/proc/:
 * vm-6.18 copied from this VM, old-2.6 with the layouts of 2.6 kernels,
 * container-v2 a cgroup v2 container with a restricted /proc, corrupt), the
 * rates (iostat's and mpstat's arithmetic) and the USE rules.
 */
#include "unit.h"
#include "lib/proc/procstat.h"
#include "lib/proc/use.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *fixture(const char *name)
{
	static char path[PATH_MAX];

	/* the build dir is ROOT/build or ROOT/build-san: the fixtures are in ROOT/tests */
	snprintf(path, sizeof(path), "%s/../tests/fixtures/proc/%s", unit__build_dir(), name);
	return path;
}

static char *slurp_fixture(const char *name)
{
	static char buf[65536];
	FILE *f = fopen(fixture(name), "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

#define NEAR(a, b) (fabs((a) - (b)) < 1e-6)

TEST(procstat_vm_real_layout)
{
	struct ps_snap s;
	const struct ps_disk *d;
	const struct ps_nic *n;
	char sys[PATH_MAX];

	snprintf(sys, sizeof(sys), "%s/sysfs", fixture("vm-6.18"));
	CHECK_INT(procstat__read(&s, fixture("vm-6.18"), sys), 0);
	for (int i = 0; i < PS__NR; i++)
		if (i != PS_CGROUP && !(s.have & (1u << i))) {
			unit__fail(__FILE__, __LINE__, "source %s not read: %s", procstat__source_path(i), strerror(s.err[i]));
			procstat__free(&s);
			return;
		}
	CHECK_INT(s.nr_cpus, 2);
	CHECK_INT(s.total.user, 102340);
	CHECK_INT(s.total.steal, 182);
	CHECK_INT(s.cpus[1].id, 1);
	CHECK_INT(s.cpus[1].iowait, 901);
	CHECK_INT(s.ctxt, 3050152);
	CHECK_INT(s.procs_running, 3);
	CHECK(NEAR(s.load[0], 4.14) && NEAR(s.load[2], 2.14));
	CHECK_INT(s.threads, 116);
	CHECK_INT(s.mem_total, 24684084);
	CHECK_INT(s.mem_available, 23989400);
	CHECK_INT(s.pgmajfault, 7406);
	d = procstat__find_disk(&s, "vda");
	CHECK(d != NULL);
	CHECK_INT(d->nfields, 20);	/* 5.5+: discard and flush columns */
	CHECK_INT(d->rd_ios, 193820);
	CHECK_INT(d->wr_sectors, 3613296);
	CHECK_INT(d->io_ticks, 20156);
	CHECK_INT(d->time_in_queue, 222401);
	CHECK_INT(d->fl_ticks, 1141);
	n = procstat__find_nic(&s, "eth0");
	CHECK(n != NULL);
	CHECK_INT(n->rx_bytes, 240297622);
	CHECK_INT(n->tx_packets, 3857);
	CHECK_INT(s.tcp_out_segs, 3271);
	CHECK_INT(s.tcp_active_opens, 32);
	CHECK(s.psi[2].full.valid);
	CHECK_INT(s.psi[2].full.total, 7801625);
	CHECK(NEAR(s.psi[2].some.avg300, 0.29));
	CHECK_INT(s.files_alloc, 829);
	CHECK_INT(s.files_max, 2466170);
	CHECK_INT(s.pid_max, 32768);
	procstat__free(&s);
}

TEST(procstat_old_kernel_layouts)
{
	struct ps_snap s;
	const struct ps_disk *d;
	const struct ps_nic *n;

	CHECK_INT(procstat__read(&s, fixture("old-2.6"), "/nonexistent"), 0);
	CHECK_INT(s.nr_cpus, 2);
	CHECK_INT(s.total.steal, 0);	/* 8 fields: steal is there, guest is not */
	CHECK_INT(s.total.softirq, 456);
	/* no MemAvailable before 3.14: free + cached + buffers */
	CHECK_INT(s.mem_available, 69936 + 115124 + 15812);
	CHECK_INT(s.swap_total, 524280);
	/* per-zone scan counters before 4.8, pgscan_direct_throttle is not a scan */
	CHECK_INT(s.pgscan_kswapd, 105);
	CHECK_INT(s.pgscan_direct, 8);
	CHECK_INT(s.allocstall, 2);
	CHECK_INT(s.nr_disks, 3);
	d = procstat__find_disk(&s, "hda");
	CHECK(d && d->nfields == 14 && d->time_in_queue == 23705160);
	d = procstat__find_disk(&s, "hda1");	/* the 4-field partition line */
	CHECK(d && d->nfields == 7 && d->rd_ios == 35486 && d->wr_sectors == 38030 && d->rd_ticks == 0);
	CHECK(!procstat__disk_is_whole("/nonexistent", d));
	CHECK(procstat__disk_is_whole("/nonexistent", procstat__find_disk(&s, "sda")));
	n = procstat__find_nic(&s, "eth0");	/* "eth0:1215645028": no blank after the colon */
	CHECK(n && n->rx_bytes == 1215645028ULL && n->rx_errs == 3 && n->rx_frame == 2 && n->rx_drop == 1);
	CHECK_INT(s.tcp_retrans_segs, 321);	/* MaxConn -1 before it does not upset the parser */
	CHECK_INT(s.tcp_curr_estab, 10);
	CHECK_INT(s.udp_in_errors, 1);
	CHECK(!(s.have & (1u << PS_NETSTAT)));
	CHECK_INT(s.err[PS_NETSTAT], ENOENT);
	CHECK_INT(s.err[PS_PSI_CPU], ENOENT);	/* no PSI before 4.20 */
	CHECK_INT(s.files_max, 26213);
	procstat__free(&s);
}

TEST(procstat_cgroup_files)
{
	char v2[256], mem[256], cpu[256];

	CHECK_INT(procstat__parse_cgroup_file(slurp_fixture("old-2.6/self/cgroup"), v2, mem, cpu, sizeof(v2)), 0);
	CHECK_STR(v2, "");
	CHECK_STR(mem, "/docker/abc");
	CHECK_STR(cpu, "/docker/abc");	/* from "cpu,cpuacct" */
	CHECK_INT(procstat__parse_cgroup_file(slurp_fixture("vm-6.18/self/cgroup"), v2, mem, cpu, sizeof(v2)), 0);
	CHECK_STR(v2, "/");
	CHECK_STR(mem, "/process_api/b3448e1d");
	CHECK_INT(procstat__parse_cgroup_file("1:cpu:/../../etc\n", v2, mem, cpu, sizeof(v2)), -EINVAL);
	CHECK_INT(procstat__parse_cgroup_file("nonsense", v2, mem, cpu, sizeof(v2)), -EINVAL);
}

TEST(procstat_container_cgroup_v2)
{
	struct ps_snap s;
	char sys[PATH_MAX];

	snprintf(sys, sizeof(sys), "%s/sysfs", fixture("container-v2"));
	CHECK_INT(procstat__read(&s, fixture("container-v2"), sys), 0);
	CHECK(s.have & (1u << PS_CGROUP));
	CHECK_INT(s.cg.version, 2);
	CHECK_STR(s.cg.path, "/");
	CHECK_INT(s.cg.mem_limit, 536870912);
	CHECK_INT(s.cg.mem_usage, 501219328);
	CHECK_INT(s.cg.mem_oom_kills, 2);
	CHECK_INT(s.cg.cpu_quota_us, 50000);
	CHECK_INT(s.cg.cpu_period_us, 100000);
	CHECK_INT(s.cg.nr_throttled, 1200);
	CHECK_INT(s.cg.throttled_us, 45000000);
	/* cpu pressure without its "full" line (before 5.13) */
	CHECK(s.psi[0].some.valid && !s.psi[0].full.valid);
	CHECK(NEAR(s.psi[0].some.avg10, 12.5));
	/* a restricted /proc: what is missing is recorded, not fatal */
	CHECK_INT(s.err[PS_DISKSTATS], ENOENT);
	CHECK_INT(s.err[PS_SNMP], ENOENT);
	CHECK_INT(s.nr_disks, 0);
	procstat__free(&s);
}

TEST(procstat_corrupt_files)
{
	struct ps_snap s = { 0 };
	struct ps_psi p;

	CHECK_INT(procstat__read(&s, fixture("corrupt"), "/nonexistent"), -EINVAL);	/* no cpu line */
	procstat__free(&s);
	memset(&s, 0, sizeof(s));
	CHECK_INT(procstat__parse_loadavg(&s, slurp_fixture("corrupt/loadavg")), -EINVAL);
	CHECK_INT(procstat__parse_meminfo(&s, slurp_fixture("corrupt/meminfo")), -EINVAL);	/* no MemTotal */
	CHECK_INT(procstat__parse_diskstats(&s, slurp_fixture("corrupt/diskstats")), -EINVAL);
	CHECK_INT(procstat__parse_netdev(&s, slurp_fixture("corrupt/net/dev")), -EINVAL);
	CHECK_INT(procstat__parse_snmp(&s, slurp_fixture("corrupt/net/snmp")), -EINVAL);	/* 3 names, 2 values */
	CHECK_INT(procstat__parse_psi(&p, slurp_fixture("corrupt/pressure/cpu")), -EINVAL);	/* 500% */
	CHECK_INT(procstat__parse_stat(&s, "cpu 1 2\n"), -EINVAL);	/* too few fields */
	CHECK_INT(procstat__parse_stat(&s, "cpu99999999999 1 2 3 4\n"), -EINVAL);
	CHECK_INT(procstat__parse_filenr(&s, "12\n"), -EINVAL);
	procstat__free(&s);
}

TEST(procstat_cpu_pct_like_mpstat)
{
	/* 1 s at USER_HZ 100 on one CPU: 60 user of which 10 guest, 20 system, 10 iowait, 10 idle */
	struct ps_cpu a = { 0 }, b = { .user = 60, .guest = 10, .system = 20, .iowait = 10, .idle = 10 };
	struct ps_cpu_pct p;

	CHECK(procstat__cpu_pct(&a, &b, &p));
	CHECK(NEAR(p.usr, 50) && NEAR(p.guest, 10) && NEAR(p.sys, 20) && NEAR(p.iowait, 10) && NEAR(p.idle, 10));
	CHECK(NEAR(p.busy, 80));
	CHECK(!procstat__cpu_pct(&b, &b, &p));	/* no tick passed */
	/* a counter that went backwards (CPU hot-unplugged and back) counts as 0, not 2^64 */
	CHECK_INT(procstat__delta(10, 5), 0);
}

TEST(procstat_disk_rate_like_iostat)
{
	/* 2 s: 100 reads of 8 sectors in 300 ms, 50 writes of 16 sectors in 500 ms, 1000 ms busy, 1600 ms queued */
	struct ps_disk a = { .rd_ios = 1000, .rd_sectors = 8000, .rd_ticks = 100, .wr_ios = 10, .wr_sectors = 160,
			     .wr_ticks = 50, .io_ticks = 5000, .time_in_queue = 7000 };
	struct ps_disk b = a;
	struct ps_disk_rate r;

	b.rd_ios += 100, b.rd_sectors += 800, b.rd_ticks += 300;
	b.wr_ios += 50, b.wr_sectors += 800, b.wr_ticks += 500;
	b.io_ticks += 1000, b.time_in_queue += 1600;
	procstat__disk_rate(&a, &b, 2.0, &r);
	CHECK(NEAR(r.r_s, 50) && NEAR(r.w_s, 25));
	CHECK(NEAR(r.rkb_s, 200) && NEAR(r.wkb_s, 200));
	CHECK(NEAR(r.r_await, 3) && NEAR(r.w_await, 10));
	CHECK(NEAR(r.await, 800.0 / 150));
	CHECK(NEAR(r.aqu_sz, 0.8));
	CHECK(NEAR(r.util, 50));
	CHECK(NEAR(r.rareq_sz, 4) && NEAR(r.wareq_sz, 8));
}

/* two snapshots of a 2-CPU machine, 1 s apart, busy or idle */
static void two_snaps(struct ps_snap *a, struct ps_snap *b, bool busy)
{
	static struct ps_cpu ca[2], cb[2];

	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	a->have = b->have = (1u << PS_STAT) | (1u << PS_LOADAVG) | (1u << PS_MEMINFO) | (1u << PS_VMSTAT);
	a->t = 100, b->t = 101;
	for (int i = 0; i < 2; i++) {
		ca[i] = (struct ps_cpu){ .id = i, .user = 1000, .idle = 1000 };
		cb[i] = ca[i];
		if (busy)
			cb[i].user += 100;
		else
			cb[i].idle += 100;
	}
	a->cpus = ca, b->cpus = cb, a->nr_cpus = b->nr_cpus = 2;
	a->total = (struct ps_cpu){ .id = -1, .user = 2000, .idle = 2000 };
	b->total = a->total;
	if (busy)
		b->total.user += 200;
	else
		b->total.idle += 200;
	a->mem_total = b->mem_total = 1000000;
	a->mem_available = b->mem_available = 800000;
	b->load[0] = busy ? 4 : 0.1;
	b->threads = 100;
	a->pid_max = b->pid_max = a->threads_max = b->threads_max = -1;
}

static bool has_flag(const struct use_report *r, const char *res, enum use_kind k)
{
	for (int i = 0; i < r->nr_flags; i++)
		if (!strcmp(r->flags[i].resource, res) && r->flags[i].kind == k)
			return true;
	return false;
}

TEST(use_rules_busy_and_idle)
{
	struct ps_snap a, b;
	struct use_report r;
	struct use_runq rq = { 0 };
	const struct use_resource *cpu;

	two_snaps(&a, &b, true);
	for (int i = 0; i < 10; i++)
		use__runq_add(&rq, 5, 0);	/* 4 runnable besides the reader */
	CHECK_INT(use__build(&r, &a, &b, &rq, "/nonexistent"), 0);
	cpu = use__find(&r, "cpu", "cpu");
	CHECK(cpu != NULL);
	CHECK(NEAR(use__metric(cpu, "busy_pct")->value, 100));
	CHECK(NEAR(use__metric(cpu, "runq")->value, 4));
	CHECK(has_flag(&r, "cpu", USE_U));
	CHECK(has_flag(&r, "cpu", USE_S));
	CHECK(use__find(&r, "cpu", "cpu1") != NULL);
	CHECK(NEAR(use__metric(use__find(&r, "memory", NULL), "used_pct")->value, 20));
	use__free(&r);

	two_snaps(&a, &b, false);
	CHECK_INT(use__build(&r, &a, &b, NULL, "/nonexistent"), 0);
	CHECK_INT(r.nr_flags, 0);
	use__free(&r);

	/* OOM kills during the window are errors */
	two_snaps(&a, &b, false);
	b.oom_kill = 1;
	CHECK_INT(use__build(&r, &a, &b, NULL, "/nonexistent"), 0);
	CHECK(has_flag(&r, "memory", USE_E));
	use__free(&r);
}

TEST(use_rules_hot_cpu_and_blocked)
{
	struct ps_snap a, b;
	struct use_report r;

	/* one CPU at 100%, the other idle: average 50%, a single-threaded limit */
	two_snaps(&a, &b, false);
	b.cpus[0].idle -= 100, b.cpus[0].user += 100;
	b.total.idle -= 100, b.total.user += 100;
	CHECK_INT(use__build(&r, &a, &b, NULL, "/nonexistent"), 0);
	CHECK(has_flag(&r, "cpu", USE_U));
	CHECK(strstr(r.flags[0].what, "cpu0") != NULL);
	CHECK(strstr(r.flags[0].next, "-C 0") != NULL);
	use__free(&r);

	/* load 4 on 2 idle CPUs: blocked tasks, off-CPU analysis next */
	two_snaps(&a, &b, false);
	b.load[0] = 4;
	CHECK_INT(use__build(&r, &a, &b, NULL, "/nonexistent"), 0);
	CHECK(has_flag(&r, "cpu", USE_S));
	CHECK(strstr(r.flags[0].next, "offcpu") != NULL);
	use__free(&r);
}

TEST(use_cgroup_throttling)
{
	struct ps_snap a, b;
	struct use_report r;
	char sys[PATH_MAX];

	snprintf(sys, sizeof(sys), "%s/sysfs", fixture("container-v2"));
	CHECK_INT(procstat__read(&a, fixture("container-v2"), sys), 0);
	CHECK_INT(procstat__read(&b, fixture("container-v2"), sys), 0);
	b.t = a.t + 1;
	b.cg.nr_throttled += 10;
	b.cg.throttled_us += 250000;
	CHECK_INT(use__build(&r, &a, &b, NULL, sys), 0);
	CHECK(use__find(&r, "cgroup", "/") != NULL);
	CHECK(has_flag(&r, "cgroup /", USE_S));
	CHECK(NEAR(use__metric(use__find(&r, "cgroup", NULL), "throttled_ms")->value, 250));
	CHECK(r.nr_missing >= 2);	/* diskstats and net/snmp are said to be missing */
	use__free(&r);
	procstat__free(&a);
	procstat__free(&b);
}
