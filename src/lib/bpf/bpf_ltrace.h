/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_ltrace.h - the engine of `sonde ltrace`: load ltrace.bpf.c, set the
 * capture plans, attach its uprobe/uretprobe pair to PLT stubs (one link per
 * object and direction where the kernel has uprobe_multi links, the function
 * named by the BPF cookie), and hand the ring buffer to the caller's loop.
 * struct ltrace owns the skeleton and its links; ltrace__free() detaches.
 */
#ifndef SONDE_BPF_LTRACE_H
#define SONDE_BPF_LTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/ltrace.h"

/* one uprobe/uretprobe pair: a stub at offset in the file at path, and the plan its cookie names */
struct ltrace_probe {
	const char *path;
	uint64_t offset;
	uint32_t cookie;
};

struct ltrace_opts {
	pid_t pid;			/* > 0: the probes fire in this process only (no -f) */
	const pid_t *targets;		/* processes traced now */
	int nr_targets;
	pid_t held;			/* a started command held before its exec: traced from the exec on */
	bool follow;			/* -f: children too */
	bool syscalls;			/* -S */
	bool hold_exec;			/* stop a traced process that execs until ltrace__release() */
	const char *dl_path;		/* the dynamic loader, whose _dl_debug_state() at dl_offset */
	uint64_t dl_offset;		/* says when libraries come and go (LT_DLOPEN); NULL: not watched */
	const struct ltrace_probe *probes;
	int nr_probes;
	const struct lt_plan *plans;	/* by cookie */
	int nr_plans;
	const struct lt_plan *sysplans;	/* LT_SYS_MAX of them, or NULL */
};

struct ltrace;

/* open, load and attach; on error err says what failed and why; 0 or -errno */
int ltrace__new(struct ltrace **out, const struct ltrace_opts *o, char *err, size_t errlen);
int ltrace__ringbuf_fd(const struct ltrace *l);
/* whether the probes are uprobe_multi links (else one perf-event uprobe each) */
bool ltrace__multi(const struct ltrace *l);
/* whether the entry program does the PLT stub's jump (no single-step trap per call; after Linux 6.18) */
bool ltrace__jumps(const struct ltrace *l);
uint64_t ltrace__counter(const struct ltrace *l, enum lt_counter c);
/*
 * More probes, after an exec or a dlopen: the plans of cookies first.. on,
 * then the probes (grouped by path); pid > 0: in that process only.
 * 0 or -errno, err saying why
 */
int ltrace__attach(struct ltrace *l, const struct ltrace_probe *p, int n, const struct lt_plan *plans, int nplans,
		   uint32_t first, pid_t pid, char *err, size_t errlen);
/* a process held at its exec (an LT_EXEC record whose idx is 1) runs on; 0 or -errno */
int ltrace__release(struct ltrace *l, pid_t pid);
/* remove every probe (the ring buffer stays readable) */
void ltrace__detach(struct ltrace *l);
void ltrace__free(struct ltrace *l);

#endif
