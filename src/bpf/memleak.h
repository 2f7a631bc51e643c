/* SPDX-License-Identifier: GPL-2.0 */
/* memleak.h - what memleak.bpf.c and its user side (lib/bpf/bpf_memleak.c) share. Plain data only. */
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

/* --call-graph dwarf: the registers and the stack at an allocator's return, unwound by the user side */
#define MEMLEAK_DWARF_STACK 8192
#define MEMLEAK_DWARF_NREGS 17	/* AX..IP, R8..R15: the perf_regs order of UNWIND_REGS_MASK */

struct memleak_dwarf {
	__u32 seq;		/* the allocation's stack_id (> 0) */
	__u32 stack_size;
	__u32 pid, pad;
	__u64 regs[MEMLEAK_DWARF_NREGS];
	__u8 stack[MEMLEAK_DWARF_STACK];
};

/* -t: one record per call, as BCC's memleak prints it with bpf_trace_printk */
enum memleak_trace_kind {
	MEMLEAK_TRACE_ALLOC_ENTER,	/* size */
	MEMLEAK_TRACE_ALLOC_EXIT,	/* size, addr */
	MEMLEAK_TRACE_FREE,		/* addr, size: a recorded allocation freed */
};

struct memleak_trace {
	__u64 ts, size, addr;
	__u32 kind, pid, cpu, pad;
	char comm[16];
};

enum memleak_stat {
	MEMLEAK_STAT_ALLOCS,	/* allocations recorded */
	MEMLEAK_STAT_FREES,	/* frees of a recorded allocation */
	MEMLEAK_STAT_FULL,	/* allocations lost: the allocs map was full */
	MEMLEAK_STAT_NOSTACK,	/* stacks not captured (stack map full) */
	MEMLEAK_STAT_LOST,	/* -t records lost: the ring buffer was full */
	MEMLEAK_STAT_NR,
};

#endif
