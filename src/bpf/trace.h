/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h - the types trace.bpf.c (kernel side of `sonde trace`) and its user
 * side share: the record of one syscall sent through the ring buffer, the
 * per-syscall capture plan set in rodata, and the in-kernel -c statistics.
 * Plain data only; nothing here is allocated.
 */
#ifndef SONDE_TRACE_H
#define SONDE_TRACE_H

#define TRACE_NR_MAX	512	/* syscall numbers below this are traced by number */
#define TRACE_CAP_MAX	512	/* bytes captured per string/buffer argument */
#define TRACE_NCAP	2	/* captured arguments per syscall */
#define TRACE_HIST	32	/* log2 buckets of the --histogram */
#define TRACE_ARGV_MAX	16	/* execve argv strings captured */

/* how an argument's memory is copied (trace_cap.mode) */
enum trace_cap_mode {
	CAP_NONE = 0,
	CAP_STR,	/* NUL-terminated string at entry; read again at exit if it faulted */
	CAP_BUF_IN,	/* arg[size] bytes at entry (write, sendto, connect's sockaddr) */
	CAP_BUF_RET,	/* ret bytes at exit when ret > 0 (read, recvfrom, getrandom) */
	CAP_FIX_IN,	/* `size` bytes at entry (struct in: timespec, sigaction, rlimit) */
	CAP_FIX_OUT,	/* `size` bytes at exit when ret >= 0 (struct out: stat, rlimit) */
	CAP_ARGV,	/* execve's argv: strings one after another, each NUL-ended */
	CAP_IOV_IN,	/* iovec array at entry (writev): [iov_base, iov_len] pairs, then data */
	CAP_IOV_RET,	/* iovec array, data at exit (readv) */
	CAP_BUF_ARGOUT,	/* `size` bytes at exit when ret >= 0 (pipe2's int[2], socketpair) */
	CAP_BUF_RET4,	/* 4 * ret bytes at exit when ret > 0 (getgroups' gid list) */
};

struct sc_cap {
	unsigned char arg;	/* argument index 0-5 */
	unsigned char mode;	/* enum trace_cap_mode */
	unsigned short size;	/* byte count (FIX) or index of the length argument (BUF_IN) */
};

enum trace_ev_type {
	TEV_SYSCALL = 1,	/* a finished syscall: entry and exit in one record */
	TEV_ENTER,		/* a syscall that does not return (exit, exit_group) or --unfinished */
	TEV_EXIT,		/* a traced thread ended: ret holds its exit code (wait status) */
	TEV_SIGNAL,		/* a signal was delivered: args[0] sig, data[0] the kernel's siginfo */
	TEV_BEGIN,		/* a syscall entered (only with several tasks: lines may interleave) */
};

/* sc_event.eflags */
#define EVF_PENDING_EXEC	1	/* an execve of a `-- CMD` child: traced only if it succeeds */

/* trace_event.cap_flags[] */
#define CAPF_FAULT	1	/* the user memory could not be read */
#define CAPF_REREAD	2	/* the first read faulted, the read at exit worked */
#define CAPF_MORE	4	/* there were more bytes than TRACE_CAP_MAX */

struct sc_event {
	unsigned long long ts;		/* entry, CLOCK_MONOTONIC ns */
	unsigned long long dur;		/* ns from entry to exit */
	long long ret;
	unsigned long long args[6];
	unsigned int tid, tgid;
	int nr;
	unsigned short type;		/* enum trace_ev_type */
	unsigned short aux;		/* execve: envp count; TEV_EXIT: 1 if the whole group */
	unsigned short cap_len[TRACE_NCAP];
	unsigned char cap_flags[TRACE_NCAP];
	unsigned char eflags;		/* EVF_* */
	unsigned char pad;
	unsigned char data[TRACE_NCAP][TRACE_CAP_MAX];
};

#define TRACE_EV_HDR	__builtin_offsetof(struct sc_event, data)

/* -c: in-kernel statistics per syscall number (a per-CPU array) */
struct sc_stat {
	unsigned long long calls;
	unsigned long long errors;
	unsigned long long ns;
	unsigned long long min_ns, max_ns;
	unsigned long long hist[TRACE_HIST];
};

/* counters in the per-CPU `counters` array */
enum trc_counter {
	TRC_LOST = 0,		/* ring buffer full: syscall records (a call's line) dropped */
	TRC_INFLIGHT_FULL,	/* no room to remember a syscall in progress */
	TRC_EVENTS,		/* records sent */
	TRC_REREAD,		/* strings not resident at entry, read at exit */
	TRC_LOST_BEGIN,		/* ring buffer full: entries for <unfinished ...> dropped (the call's
				   record still comes at its exit) */
	TRC_LOST_OTHER,		/* ring buffer full: signal and process exit records dropped */
	TRC_NR,
};

#endif
