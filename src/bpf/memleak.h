/* SPDX-License-Identifier: GPL-2.0 */
/* memleak.h - what memleak.bpf.c and its user side (lib/bpf/bpf_memleak.c) share */
#ifndef SONDE_BPF_MEMLEAK_H
#define SONDE_BPF_MEMLEAK_H

#define MEMLEAK_MAX_ALLOCS 1000000	/* outstanding allocations the kernel keeps */
#define MEMLEAK_MAX_STACKS 10240

/* one outstanding allocation, by its address */
struct memleak_alloc {
	__u64 size;
	__u64 ts;		/* CLOCK_MONOTONIC ns of the allocation */
	__s32 stack_id;		/* in stack_traces; < 0: not captured */
	__u32 pid;		/* tgid */
};

/* --combined-only: the outstanding allocations of one stack, kept in the kernel */
struct memleak_combined {
	__u64 bytes;
	__u64 count;
};

enum memleak_stat {
	MEMLEAK_STAT_ALLOCS,	/* allocations recorded */
	MEMLEAK_STAT_FREES,	/* frees of a recorded allocation */
	MEMLEAK_STAT_FULL,	/* allocations lost: the allocs map was full */
	MEMLEAK_STAT_NOSTACK,	/* stacks not captured (stack map full) */
	MEMLEAK_STAT_NR,
};

#endif
