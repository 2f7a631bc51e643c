/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lock.h - types shared by lock.bpf.c (kernel side) and src/lib/bpf/bpf_lock.c
 * (user side): the keys and values of the in-kernel aggregation of kernel lock
 * contention (lock:contention_begin/end), futex waits and pthread mutexes,
 * and the loss counters. Plain layouts, nothing allocated.
 */
#ifndef SONDE_BPF_LOCK_H
#define SONDE_BPF_LOCK_H

#define LOCK_MAX_DEPTH 64	/* frames per stack */

/* target filter modes (rodata filter_mode) */
enum lock_filter {
	LOCK_ALL = 0,		/* every thread but sonde's */
	LOCK_TGID = 1,		/* threads whose tgid is in the targets map */
	LOCK_TID = 2,		/* threads whose tid is in the targets map */
};

/* what a kernel contention is aggregated by (rodata aggr_mode), as perf lock contention */
enum lock_aggr {
	LOCK_AGGR_CALLER = 0,	/* the kernel stack */
	LOCK_AGGR_TASK = 1,	/* the thread (-t) */
	LOCK_AGGR_ADDR = 2,	/* the lock's address (-l) */
};

/* the lock types of the tracepoint's flags (include/trace/events/lock.h) */
#define LCB_F_SPIN	(1U << 0)
#define LCB_F_READ	(1U << 1)
#define LCB_F_WRITE	(1U << 2)
#define LCB_F_RT	(1U << 3)
#define LCB_F_PERCPU	(1U << 4)
#define LCB_F_MUTEX	(1U << 5)

/* locks the BPF side names by where they lie in the contending task (value's klass) */
enum lock_class {
	LOCK_CLASS_NONE = 0,
	LOCK_CLASS_MMAP = 1,	/* current->mm->mmap_lock */
	LOCK_CLASS_SIGHAND = 2,	/* current->sighand->siglock */
	LOCK_CLASS_FILES = 3,	/* current->files->file_lock */
};

struct lock_key {
	__u64 addr;		/* LOCK_AGGR_ADDR: the lock */
	__s32 stack_id;		/* LOCK_AGGR_CALLER: kernel stack id, or a negative errno */
	__u32 pid;		/* LOCK_AGGR_TASK: the thread */
};

struct lock_val {
	__u64 total_ns, max_ns, min_ns;
	__u32 count;
	__u32 flags;		/* LCB_F_* of the first contention */
	__u32 klass;		/* enum lock_class */
	__u32 pad;
	char comm[16];		/* the first thread to contend */
};

/* user-space locks: a futex word waited on, or a pthread mutex */
enum ulock_kind {
	ULOCK_FUTEX = 0,
	ULOCK_MUTEX = 1,
};

struct ulock_key {
	__u64 addr;		/* the futex word or the pthread_mutex_t */
	__u64 caller;		/* the return address of pthread_mutex_lock (its caller), when in it */
	__s32 stack_id;		/* user stack id, or a negative errno */
	__u32 tgid;
	__u32 kind;		/* enum ulock_kind */
	__u32 pad;
};

struct ulock_val {
	__u64 wait_ns, wait_max_ns;	/* futex: time in FUTEX_WAIT*; mutex: time in pthread_mutex_lock */
	__u64 hold_ns, hold_max_ns;	/* mutex: from the lock's return to pthread_mutex_unlock */
	__u64 count;			/* futex: waits; mutex: acquisitions */
	__u64 contended;		/* mutex: acquisitions that waited in the kernel (a futex wait inside) */
	__u64 holds;			/* mutex: unlocks matched to an acquisition */
	char comm[16];			/* the first thread seen */
};

enum lock_stat {
	LOCK_STAT_BEGIN,	/* contention_begin of tracked threads */
	LOCK_STAT_NESTED,	/* a begin while one was pending (mutex spin then sleep): kept the first */
	LOCK_STAT_UNMATCHED,	/* an end with no begin or of another lock */
	LOCK_STAT_FULL,		/* lost: a map was full */
	LOCK_STAT_STACK_ERR,	/* stacks not captured */
	LOCK_STAT_FUTEX,	/* futex waits ended */
	LOCK_STAT_MUTEX,	/* pthread_mutex_lock returns */
	LOCK_STAT_NR,
};

#endif
