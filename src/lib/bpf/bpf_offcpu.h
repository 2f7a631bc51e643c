/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_offcpu.h - the engine of `sonde offcpu`: load offcpu.bpf.c with its
 * filters, attach it to sched_switch (tp_btf where the kernel takes it, the
 * classic tracepoint otherwise), optionally sample on-CPU stacks for a
 * wall-clock profile, and read back the stacks aggregated in the kernel.
 * struct offcpu owns the skeleton and its perf events; an offcpu_profile owns
 * its entries and their frame arrays (offcpu_profile__free).
 */
#ifndef SONDE_BPF_OFFCPU_H_USER
#define SONDE_BPF_OFFCPU_H_USER

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/offcpu.h"

struct offcpu_opts {
	int filter;		/* enum offcpu_filter */
	const pid_t *targets;	/* tgids (OFFCPU_TGID) or tids (OFFCPU_TID) */
	int nr_targets;
	bool follow;		/* add the children of target processes as they fork */
	bool user_only, kern_only;	/* stacks */
	int threads;		/* 0: every thread; 1: user threads only; 2: kernel threads only */
	long state;		/* -1, or 0 R, 1 S, 2 D, 0x80 I */
	uint64_t min_ns, max_ns;
	int wall_hz;		/* > 0: also sample on-CPU stacks at this rate (wall-clock profile) */
	int max_stacks;		/* entries of the stack and aggregation maps; 0: 10240 */
	bool force_tracepoint;	/* do not use tp_btf even where it works (tests) */
	/* --call-graph dwarf: copy this much user stack (<= OFFCPU_DWARF_STACK) at each
	 * block and unwind it with DWARF CFI in user space (needs tp_btf) */
	int dwarf_size;
	struct symbolizer *sym;	/* dwarf: the unwinder's memory maps */
	/* dwarf: called before unwinding a stack of tgid, to bring its maps up to date */
	void (*before_unwind)(void *ctx, pid_t tgid);
	void *before_unwind_ctx;
	/* dwarf: called when a stack of tgid could not be unwound, to read its maps again (same ctx) */
	void (*refresh_maps)(void *ctx, pid_t tgid);
};

struct offcpu_entry {
	struct offcpu_key key;
	bool oncpu;		/* an on-CPU (--wall) entry */
	uint64_t ns;		/* off CPU: the time blocked; on CPU: samples x period */
	uint64_t count;		/* blocks, or samples */
	int nr_user, nr_kern;	/* frames, innermost first; 0 when missing */
	uint64_t *user, *kern;
};

struct offcpu_profile {
	struct offcpu_entry *e;
	int n;
	uint64_t stats[OFFCPU_STAT_NR];
	uint64_t dwarf_failed;	/* dwarf: stacks the unwinder could not walk (kept with their IP) */
	uint64_t prog_misses;	/* runs of the BPF programs the kernel skipped (recursion): events lost */
};

struct offcpu;

/* open and load; on error fills err (what failed and why) and returns -errno */
int offcpu__new(struct offcpu **out, const struct offcpu_opts *o, char *err, size_t errlen);
/* add targets to the in-kernel set after load (a `-- CMD` child); 0 or -errno */
int offcpu__add_targets(struct offcpu *oc, const pid_t *pids, int n);
int offcpu__attach(struct offcpu *oc, char *err, size_t errlen);
/* the map of target tgids/tids (grows on fork with opts.follow) */
int offcpu__targets_fd(const struct offcpu *oc);
/* dwarf: the ring buffer to poll (-1 otherwise) and its consumer (ctx is the struct offcpu) */
int offcpu__dwarf_fd(const struct offcpu *oc);
int offcpu__dwarf_event(void *ctx, void *data, size_t size);
/* stop collecting: detach the programs, so that what is read next is final */
void offcpu__detach(struct offcpu *oc);
/* "tp_btf" or "tracepoint": the sched_switch hook in use */
const char *offcpu__hook(const struct offcpu *oc);
/* read every aggregated stack, sorted by increasing time (as offcputime prints); 0 or -errno */
int offcpu__read(struct offcpu *oc, struct offcpu_profile *p);
void offcpu_profile__free(struct offcpu_profile *p);

struct symbolizer;
/* the name of a frame ("[unknown]" when it has none); valid as long as the symbolizer */
const char *offcpu__frame_name(struct symbolizer *s, pid_t tgid, uint64_t addr, bool kernel);
/* how many frames at the top of e's kernel stack belong to the tracing machinery itself */
int offcpu_entry__kern_skip(struct symbolizer *s, const struct offcpu_entry *e);
/* a stack id that is a miss, as BCC tells it: negative, but not -EFAULT (no user stack: a kernel thread) */
bool offcpu__stack_missed(int32_t id);
/*
 * Whether a frame-pointer user stack of p may lack frames: its innermost frame
 * is in another object than its caller (a library built without frame
 * pointers hides the caller of the function that blocked).
 */
bool offcpu_profile__fp_gap(struct symbolizer *s, const struct offcpu_profile *p);
void offcpu__free(struct offcpu *oc);

#endif
