/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_trace.h - the user side of trace.bpf.c (`sonde trace`): open, set the
 * filters and the capture plan in rodata, load, attach to raw_syscalls, read
 * the in-kernel statistics and loss counters, destroy. The tracer owns its
 * BPF objects; tracer__free() detaches and frees everything.
 */
#ifndef SONDE_BPF_TRACE_H
#define SONDE_BPF_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/trace.h"

struct tracer;

struct tracer_opts {
	bool all;		/* -a: every task but sonde */
	bool follow;		/* -f: children and threads */
	bool count_only;	/* -c: statistics only, no records */
	bool stats;		/* keep statistics beside the records (-C, --histogram) */
	bool failed_only;	/* --failed */
	bool begins;		/* send a record at entry too (several tasks: <unfinished ...> lines) */
	uint64_t min_ns;	/* --duration */
	const bool *set;	/* SYSCALL_NR_MAX entries: the syscalls to trace */
	const pid_t *pids;	/* -p: traced now */
	int nr_pids;
	pid_t child;		/* -- CMD: traced from its execve on */
	unsigned rb_mb;		/* ring buffer size in MiB (power of two) */
};

/* 0 or -errno with a message in err */
int tracer__new(struct tracer **out, const struct tracer_opts *o, char *err, size_t errlen);
int tracer__attach(struct tracer *t, char *err, size_t errlen);
void tracer__detach(struct tracer *t);
int tracer__ringbuf_fd(struct tracer *t);
/* the statistics of every syscall summed over CPUs into out[TRACE_NR_MAX]; 0 or -errno */
int tracer__stats(struct tracer *t, struct sc_stat *out);
uint64_t tracer__counter(struct tracer *t, enum trc_counter c);
/* how many traced processes (the targets map) are still alive (target__alive: zombies are dead) */
int tracer__alive(struct tracer *t);
void tracer__free(struct tracer *t);

#endif
