/* SPDX-License-Identifier: GPL-2.0 */
/*
 * procstat.h - the kernel's counters in /proc and /sys, parsed into a snapshot,
 * and the rates between two snapshots (the arithmetic of vmstat, mpstat, iostat
 * and sar -n DEV). No printing. A snapshot owns its arrays: procstat__free().
 *
 * Every parser takes a NUL-terminated buffer, so the tests and the fuzzer feed
 * them fixture files; procstat__read() reads the live files under a proc and a
 * sys directory ("/proc", "/sys", or a copy of them) and records, per source,
 * the errno of what it could not read.
 */
#ifndef SONDE_PROCSTAT_H
#define SONDE_PROCSTAT_H

#include <stdbool.h>
#include <stdint.h>

/* the sources a snapshot is made of; a bit each in ps_snap.have */
enum ps_source {
	PS_STAT, PS_LOADAVG, PS_MEMINFO, PS_VMSTAT, PS_DISKSTATS, PS_NETDEV,
	PS_SNMP, PS_NETSTAT, PS_PSI_CPU, PS_PSI_MEMORY, PS_PSI_IO, PS_FILENR,
	PS_CGROUP, PS__NR
};

/* the file of a source, relative to the proc directory ("pressure/cpu") */
const char *procstat__source_path(enum ps_source s);

struct ps_cpu {		/* one cpu line of /proc/stat, in USER_HZ ticks */
	int id;		/* -1 for the "cpu" total */
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal, guest, guest_nice;
};

struct ps_disk {	/* one line of /proc/diskstats */
	unsigned major, minor;
	char name[32];
	uint64_t rd_ios, rd_merges, rd_sectors, rd_ticks;
	uint64_t wr_ios, wr_merges, wr_sectors, wr_ticks;
	uint64_t in_flight, io_ticks, time_in_queue;
	uint64_t dc_ios, dc_merges, dc_sectors, dc_ticks, fl_ios, fl_ticks;
	int nfields;	/* 14 (before 4.18), 18 (4.18+) or 20 (5.5+) */
	long long ioerr;	/* /sys/block/NAME/device/ioerr_cnt, -1 if none */
};

struct ps_nic {		/* one interface of /proc/net/dev */
	char name[32];
	uint64_t rx_bytes, rx_packets, rx_errs, rx_drop, rx_fifo, rx_frame;
	uint64_t tx_bytes, tx_packets, tx_errs, tx_drop, tx_fifo, tx_colls, tx_carrier;
	long speed_mbps;	/* /sys/class/net/NAME/speed, -1 if unknown */
};

struct ps_psi_line {
	bool valid;
	double avg10, avg60, avg300;	/* percent */
	uint64_t total;			/* microseconds stalled since boot */
};

struct ps_psi {
	struct ps_psi_line some, full;
};

struct ps_cgroup {
	int version;		/* 1 or 2, 0 when no cgroup was found */
	char path[256];		/* the cgroup of this process */
	long long mem_limit;	/* bytes, -1 for none */
	long long mem_usage;	/* bytes, -1 if unread */
	long long mem_oom_kills;	/* memory.events oom_kill / memory.oom_control oom_kill, -1 if unread */
	long long cpu_quota_us, cpu_period_us;	/* quota -1 for none */
	long long nr_periods, nr_throttled, throttled_us;	/* cpu.stat, -1 if unread */
};

struct ps_snap {
	double t;			/* CLOCK_MONOTONIC seconds at read time */
	unsigned have;			/* 1 << enum ps_source for each source read */
	int err[PS__NR];		/* the errno of each source not read */

	/* /proc/stat */
	struct ps_cpu total;
	struct ps_cpu *cpus;
	int nr_cpus;
	uint64_t ctxt, intr, processes, procs_running, procs_blocked;

	/* /proc/loadavg */
	double load[3];
	unsigned runnable, threads;

	/* /proc/meminfo, kB (-1 when the line is missing) */
	long long mem_total, mem_free, mem_available, buffers, cached, swap_total, swap_free;
	long long dirty, writeback, slab, sreclaimable;

	/* /proc/vmstat */
	uint64_t pgfault, pgmajfault, pswpin, pswpout, oom_kill;
	uint64_t pgscan_kswapd, pgscan_direct, pgsteal_kswapd, pgsteal_direct, allocstall;

	struct ps_disk *disks;
	int nr_disks;
	struct ps_nic *nics;
	int nr_nics;

	/* /proc/net/snmp Tcp: and Udp:, /proc/net/netstat TcpExt: */
	uint64_t tcp_active_opens, tcp_passive_opens, tcp_attempt_fails, tcp_estab_resets;
	uint64_t tcp_curr_estab, tcp_in_segs, tcp_out_segs, tcp_retrans_segs, tcp_in_errs, tcp_out_rsts;
	uint64_t udp_in_datagrams, udp_no_ports, udp_in_errors, udp_out_datagrams;
	uint64_t udp_rcvbuf_errors, udp_sndbuf_errors;
	uint64_t listen_overflows, listen_drops, tcp_timeouts;

	struct ps_psi psi[3];		/* cpu, memory, io */

	/* /proc/sys/fs/file-nr */
	uint64_t files_alloc, files_free, files_max;
	/* /proc/sys/kernel/pid_max and threads-max, -1 if unread */
	long long pid_max, threads_max;

	struct ps_cgroup cg;
};

/* the parsers: 0, or -EINVAL when the text is not what the kernel writes */
int procstat__parse_stat(struct ps_snap *s, const char *buf);
int procstat__parse_loadavg(struct ps_snap *s, const char *buf);
int procstat__parse_meminfo(struct ps_snap *s, const char *buf);
int procstat__parse_vmstat(struct ps_snap *s, const char *buf);
int procstat__parse_diskstats(struct ps_snap *s, const char *buf);
int procstat__parse_netdev(struct ps_snap *s, const char *buf);
/* /proc/net/snmp and /proc/net/netstat share a layout: a header line, a value line */
int procstat__parse_snmp(struct ps_snap *s, const char *buf);
int procstat__parse_psi(struct ps_psi *p, const char *buf);
int procstat__parse_filenr(struct ps_snap *s, const char *buf);
/* the "N:controllers:/path" lines of /proc/PID/cgroup: the v2 path and the v1 memory/cpu ones */
int procstat__parse_cgroup_file(const char *buf, char *v2, char *v1mem, char *v1cpu, unsigned len);

/*
 * Read every source under proc_dir and sys_dir into s (zeroed first). Returns 0
 * when /proc/stat was read (nothing useful can be said without it) or its
 * -errno; other sources missing are left in s->err and s->have.
 */
int procstat__read(struct ps_snap *s, const char *proc_dir, const char *sys_dir);

/* re-read only procs_running/procs_blocked (cheap, for run-queue sampling); 0 or -errno */
int procstat__read_procs(const char *proc_dir, uint64_t *running, uint64_t *blocked);

void procstat__free(struct ps_snap *s);

/* ---- rates between two snapshots ---- */

struct ps_cpu_pct {	/* percent of the interval's ticks, mpstat's columns */
	double usr, nice, sys, iowait, irq, soft, steal, guest, gnice, idle;
	double busy;	/* 100 - idle - iowait */
};

/* a's and b's ticks of one CPU: false if no tick passed */
bool procstat__cpu_pct(const struct ps_cpu *a, const struct ps_cpu *b, struct ps_cpu_pct *out);

struct ps_disk_rate {	/* iostat -x's columns */
	double r_s, w_s, rkb_s, wkb_s, rrqm_s, wrqm_s;
	double r_await, w_await, await;		/* ms, 0 with no I/O */
	double aqu_sz, util;			/* requests, percent */
	double rareq_sz, wareq_sz;		/* kB */
};

void procstat__disk_rate(const struct ps_disk *a, const struct ps_disk *b, double dt,
			 struct ps_disk_rate *out);

/* b - a, 0 when the counter went backwards (a wrapped or reset counter) */
static inline uint64_t procstat__delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

/* the disk or NIC of that name in a snapshot, or NULL */
const struct ps_disk *procstat__find_disk(const struct ps_snap *s, const char *name);
const struct ps_nic *procstat__find_nic(const struct ps_snap *s, const char *name);

/* whether /proc/diskstats' device is a whole disk worth reporting (not a partition, loop or ram) */
bool procstat__disk_is_whole(const char *sys_dir, const struct ps_disk *d);

#endif
