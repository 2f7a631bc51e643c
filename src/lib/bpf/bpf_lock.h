/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_lock.h - the engine of `sonde lock`: kernel lock contention
 * (lock:contention_begin/end) and user-space lock waits (futex syscalls,
 * pthread_mutex_lock/unlock uprobes), aggregated in the kernel by lock.bpf.c,
 * read back here as rows to sort and print. A lock_trace owns its skeleton and
 * links; a lock_result owns its rows (lock_result__free).
 */
#ifndef SONDE_BPF_LOCK_H_USER
#define SONDE_BPF_LOCK_H_USER

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>
#include "bpf/lock.h"

struct lock_trace;
struct kdata;

struct lock_opts {
	int filter;			/* enum lock_filter */
	const pid_t *targets;		/* tgids (LOCK_TGID) or tids (LOCK_TID) */
	int nr_targets;
	bool follow;			/* LOCK_TGID: add the processes the targets fork (uprobes then */
					/* fire in every process, the BPF side filters) */
	int aggr;			/* enum lock_aggr (kernel locks) */
	bool user;			/* user-space locks instead of kernel ones */
	const char *libc;		/* with user: the C library whose pthread_mutex_lock/unlock to probe */
};

/* one row of kernel contention: a stack, a thread or a lock address */
struct lock_row {
	uint64_t addr;
	pid_t pid;
	char comm[16];
	int nips;
	uint64_t ips[LOCK_MAX_DEPTH];
	uint64_t count, total_ns, max_ns, min_ns;
	uint32_t flags, klass;
};

/* one row of user-space locks: a futex word or a mutex, by stack (or by address alone after merging) */
struct ulock_row {
	int kind;			/* enum ulock_kind */
	pid_t tgid;
	char comm[16];
	uint64_t addr;
	int nips;
	uint64_t ips[LOCK_MAX_DEPTH + 1];	/* a mutex's caller is put second, after pthread_mutex_lock */
	uint64_t count, contended, wait_ns, wait_max_ns, holds, hold_ns, hold_max_ns;
};

struct lock_result {
	struct lock_row *k;
	int nk;
	struct ulock_row *u;
	int nu;
	uint64_t stats[LOCK_STAT_NR];
};

/* sort keys, as perf lock contention -k names them */
enum lock_sort { LOCK_SORT_TOTAL, LOCK_SORT_CONTENDED, LOCK_SORT_MAX, LOCK_SORT_MIN, LOCK_SORT_AVG };

/* open, set the options, load; 0 or -errno with err filled (one line) */
int lock_trace__new(struct lock_trace **out, const struct lock_opts *o, char *err, size_t errlen);
/* 0; 1 when the mutex uprobes could not attach (err says why: futex waits are traced alone); or -errno */
int lock_trace__attach(struct lock_trace *t, char *err, size_t errlen);
void lock_trace__detach(struct lock_trace *t);
int lock_trace__targets_fd(const struct lock_trace *t);
/* read the aggregation maps; 0 or -errno */
int lock_trace__read(struct lock_trace *t, struct lock_result *r);
void lock_trace__free(struct lock_trace *t);

/* the n CPUs' parts of a row of the per-CPU map added up into *v; false when none has a wait */
bool lock_val__sum(const struct lock_val *vs, int n, struct lock_val *v);
/* sort rows by key, largest first */
void lock_result__sort(struct lock_result *r, enum lock_sort key);
/* -l for user locks: one row per process, kind and address (stacks dropped) */
void lock_result__merge_user_by_addr(struct lock_result *r);
void lock_result__free(struct lock_result *r);
/* index in ips of the first frame outside the kernel's lock and scheduler text (the caller); n when none */
int lock__caller(const struct kdata *kd, const uint64_t *ips, int n);
/* "spinlock", "rwsem:W", ... as perf lock contention names the tracepoint's flags */
const char *lock__type_name(uint32_t flags);
/* "mmap_lock", "siglock", "file_lock" for enum lock_class, else NULL */
const char *lock__class_name(uint32_t klass);

#endif
