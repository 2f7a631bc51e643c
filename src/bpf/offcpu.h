/* SPDX-License-Identifier: GPL-2.0 */
/*
 * offcpu.h - types shared by offcpu.bpf.c (kernel side) and src/lib/bpf/bpf_offcpu.c
 * (user side): the key and value of the in-kernel off-CPU (and --wall on-CPU)
 * aggregation, and the loss counters. Nothing here is
 * allocated: these are plain layouts both sides agree on.
 */
#ifndef SONDE_BPF_OFFCPU_H
#define SONDE_BPF_OFFCPU_H

#define OFFCPU_COMM_LEN 16
#define OFFCPU_MAX_DEPTH 127	/* frames per stack, as perf's default max-stack */

/* target filter modes (rodata filter_mode) */
enum offcpu_filter {
	OFFCPU_ALL = 0,		/* every thread but the idle ones */
	OFFCPU_TGID = 1,	/* threads whose tgid is in the targets map */
	OFFCPU_TID = 2,		/* threads whose tid is in the targets map */
};

/* one aggregated off-CPU stack */
struct offcpu_key {
	__u32 pid;		/* the thread (tid) */
	__u32 tgid;		/* its process */
	__s32 user_stack_id;	/* ids in the stacks map, or a negative errno */
	__s32 kern_stack_id;
	char comm[OFFCPU_COMM_LEN];
	__u64 ustack;		/* dwarf: the user stack walked in the kernel (offcpu_ustack, by this hash); 0: none */
};

struct offcpu_val {
	__u64 total_ns;		/* time blocked, summed */
	__u64 count;		/* how many times the thread blocked there */
};

/* counters the user side reports: what the kernel side had to drop */
enum offcpu_stat {
	OFFCPU_STAT_SWITCHES,	/* switch-outs of tracked threads */
	OFFCPU_STAT_START_FULL,	/* a switch-out not remembered: start map full */
	OFFCPU_STAT_INFO_FULL,	/* blocked time lost: aggregation map full */
	OFFCPU_STAT_USTACK_ERR,	/* user stack not captured (stack map full or fault) */
	OFFCPU_STAT_KSTACK_ERR,	/* kernel stack not captured */
	OFFCPU_STAT_SAMPLES,	/* --wall: on-CPU samples of tracked threads */
	OFFCPU_STAT_RB_LOST,	/* dwarf: blocks or samples kept with frame-pointer stacks (no copy, ring buffer full) */
	OFFCPU_STAT_DWARF_NOSTACK,	/* --call-graph dwarf: no user stack could be copied */
	OFFCPU_STAT_BLOCKS,	/* blocks ended (a switch-in of a thread whose switch-out was seen) */
	OFFCPU_STAT_UNSEEN_IN,	/* blocks whose switch-in the tracepoint did not report: ended at the next switch-out */
	OFFCPU_STAT_UNSEEN_EST,	/* of those, blocks whose end could not be told from the scheduler's runtime */
	OFFCPU_STAT_TEST_IN,	/* tests (SONDE_TEST_OFFCPU_HIDE_IN): tracked switch-ins, to hide every Nth */
	OFFCPU_STAT_WALKED,	/* dwarf: user stacks walked in the kernel with cached rules */
	OFFCPU_STAT_WALK_MISS,	/* dwarf: stacks copied for the user side (a rule was not cached) */
	OFFCPU_STAT_NR,
};

/*
 * --call-graph dwarf: the user registers (perf_regs order, UNWIND_REGS_MASK:
 * AX BX CX DX SI DI BP SP IP R8..R15) and a copy of the user stack from SP,
 * written into the ring buffer when the thread leaves the CPU (a block's
 * start), or when the on-CPU sampler fires (--wall: sent up to
 * stack[stack_size]).
 */
#define OFFCPU_DWARF_STACK 8192
#define OFFCPU_DWARF_NREGS 17

#define OFFCPU_DWARF_ONCPU 1	/* an on-CPU sample (--wall), not a block */
#define OFFCPU_DWARF_START 2	/* a block's start: its time follows in an offcpu_dwarf_end */

struct offcpu_dwarf {
	struct offcpu_key key;	/* user_stack_id is not used: the user side unwinds */
	__u64 ns;
	__u64 regs[OFFCPU_DWARF_NREGS];
	__u32 stack_size;
	__u32 flags;		/* OFFCPU_DWARF_* */
	__u32 tag;		/* the process's tag in the rule cache (offcpu_ucfi) */
	__u32 pad;
	__u8 stack[OFFCPU_DWARF_STACK];
};

/* the end of a block whose start went as a copy (a record of this size) */
struct offcpu_dwarf_end {
	__u32 tid;
	__u32 pad;
	__u64 ns;
};

/*
 * The walk in the kernel (dwarf mode): the user side unwinds the first copies
 * of a process's stacks with DWARF CFI and leaves, for every frame it walked,
 * the frame's CFI rule in a cache the BPF program reads; from then on a
 * thread blocking there is walked in the kernel, reading only its return
 * addresses (and saved frame pointers), and its stack is aggregated there
 * like a frame-pointer one. A frame whose rule is not cached sends a copy of
 * the stack as before, and the user side adds its rules.
 *
 * The cache is an mmap-able array of 2-entry buckets indexed by a hash of
 * (tag, pc), written by the user side while the programs read it: an entry is
 * written pc = 0, rule, pc, and read pc, rule, pc again, so that a reader
 * never takes the rule of another pc.
 */
#define OFFCPU_UCFI_BUCKETS 32768	/* power of 2 */
#define OFFCPU_UCFI_FRAME0 (1ULL << 63)	/* pc: the interrupted IP itself, not a return address */

/* a rule: the low 32 bits are the process's tag, the high 32 bits say how to find the caller */
#define OFFCPU_UCFI_OFF_BITS 20		/* CFA = (SP or BP) + a signed 20-bit offset in bytes */
#define OFFCPU_UCFI_BP (1U << 20)	/* the CFA is BP-based (else SP-based) */
#define OFFCPU_UCFI_END (1U << 21)	/* the outermost frame: no caller (or the unwinder stops here) */
#define OFFCPU_UCFI_BPSAVED (1U << 22)	/* the caller's BP is at CFA + (signed bits 24-31) * 8 */
#define OFFCPU_UCFI_VALID (1U << 23)	/* set in every rule (a rule is never 0) */

struct offcpu_ucfi {
	__u64 pc;		/* 0: empty */
	__u64 rule;		/* (rule << 32) | tag */
};

struct offcpu_ucfi_bucket {
	struct offcpu_ucfi e[2];
};

/* a user stack walked in the kernel, innermost frame first */
struct offcpu_ustack {
	__u32 n;
	__u32 pad;
	__u64 ips[OFFCPU_MAX_DEPTH];
};

/* a process's tag: its tgid, how many times it exec'ed, and its mmap base (random at each exec) */
static inline __u32 offcpu_ucfi__tag(__u32 tgid, __u64 exec_id, __u64 mmap_base)
{
	return (__u32)(((tgid ^ exec_id << 32) * 0x9e3779b97f4a7c15ULL) >> 32) ^ (__u32)(mmap_base >> 12);
}

/* the bucket of (tag, pc): shared by both sides */
static inline __u32 offcpu_ucfi__bucket(__u64 pc, __u32 tag)
{
	__u64 h = (pc ^ ((__u64)tag << 17)) * 0x9e3779b97f4a7c15ULL;

	return (__u32)(h >> 40) & (OFFCPU_UCFI_BUCKETS - 1);
}

#endif
