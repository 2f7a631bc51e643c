/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ltrace.h - what ltrace.bpf.c (the kernel side of `sonde ltrace`) and its
 * user side (lib/bpf/bpf_ltrace.c) share: the records of the ring buffer and
 * the capture plan of each traced function. Plain data only.
 */
#ifndef SONDE_LTRACE_H
#define SONDE_LTRACE_H

#define LT_NSTR		3	/* strings captured per call */
#define LT_STR_MAX	256	/* bytes captured per string (so -s shows at most 255) */
#define LT_MAX_FUNCS	8192	/* PLT entries probed (the cookie indexes the plans) */
#define LT_SYS_MAX	512	/* syscall numbers with a plan */

enum lt_ev_type {
	LT_ENTRY = 1,	/* a library call began: args, the caller's return address */
	LT_RETURN,	/* it returned: args[0] the return value */
	LT_SYS_ENTER,	/* -S: a syscall began (idx: its number) */
	LT_SYS_EXIT,	/* and ended: args[0] its return value */
	LT_EXIT,	/* a traced process ended: args[0] its wait status */
	LT_SIGNAL,	/* a signal reached a traced thread (idx: its number) */
	LT_EXEC,	/* a traced process ran a new program (idx 1: it is held until released) */
	LT_DLOPEN,	/* the dynamic loader changed a traced process's libraries (idx as LT_EXEC) */
};

/* how an argument (or the return value: arg 6) is captured */
enum lt_cap_mode {
	LT_CAP_NONE = 0,
	LT_CAP_STR,	/* a NUL-ended string */
	LT_CAP_BUF,	/* bytes, as many as argument `len` says (write's buffer) */
};

#define LT_RET_ARG 6	/* lt_plan.arg[i] for the return value */

struct lt_plan {
	unsigned char n;		/* captures used */
	unsigned char arg[LT_NSTR];	/* 0-5, or LT_RET_ARG */
	unsigned char mode[LT_NSTR];	/* enum lt_cap_mode */
	unsigned char len[LT_NSTR];	/* LT_CAP_BUF: the argument that holds the length */
	int got_rel;			/* a PLT stub: its GOT slot less its address (0: none) */
};

struct lt_event {
	unsigned long long ts;		/* CLOCK_MONOTONIC ns */
	unsigned long long args[6];	/* entry: arguments; return: args[0] the value */
	unsigned long long ip;		/* entry: where the call returns to (-i) */
	unsigned int pid, tid;
	unsigned int idx;		/* the function (its cookie), or the syscall number */
	unsigned short type;		/* enum lt_ev_type */
	unsigned short nstr;		/* strings below (0: the record ends at str) */
	short str_len[LT_NSTR];		/* bytes read with their NUL, or -errno; BUF: bytes read */
	unsigned char str_arg[LT_NSTR];
	unsigned char pad;
	char str[LT_NSTR][LT_STR_MAX];
};

#define LT_EV_HDR	__builtin_offsetof(struct lt_event, str)

/* counters in the per-CPU `counters` array */
enum lt_counter {
	LT_LOST = 0,	/* records dropped: the ring buffer was full */
	LT_CALLS,	/* library calls seen */
	LT_NR,
};

#endif
