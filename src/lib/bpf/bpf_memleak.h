/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_memleak.h - the engine of `sonde memleak`: load memleak.bpf.c, attach it
 * to the allocator functions of one process's library (uprobes) or to the
 * kernel's allocator tracepoints, and read back the allocations still
 * outstanding, summed by stack. struct memleak owns the skeleton and its links;
 * a memleak_report owns its arrays (memleak_report__free).
 */
#ifndef SONDE_BPF_MEMLEAK_H_USER
#define SONDE_BPF_MEMLEAK_H_USER

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/memleak.h"

struct memleak_opts {
	pid_t pid;		/* > 0: user mode, in this process only; 0: kernel mode */
	const char *lib;	/* user mode: the allocator's object (the target's libc) */
	uint64_t min_size, max_size;	/* max 0: no limit */
	unsigned sample_every;	/* record one allocation in N (0, 1: all) */
	bool percpu;		/* kernel mode: per-CPU allocations instead of kmalloc, slabs and pages */
	bool combined;		/* keep the sums by stack in the kernel, read only them (no ages, no addresses) */
	bool trace;		/* -t: a struct memleak_trace per call in the ring buffer of memleak__trace_fd */
	/* --call-graph dwarf: copy this much user stack (0: frame pointers), unwound with sym's maps */
	unsigned dwarf_size;
	struct symbolizer *sym;
	void (*before_unwind)(void *ctx, pid_t pid);	/* bring sym's maps of pid up to date */
	void *before_unwind_ctx;
};

/* the outstanding allocations of one stack */
struct memleak_stack {
	int32_t stack_id;	/* < 0: no stack was captured */
	pid_t pid;
	uint64_t bytes, count;
	int nr;			/* frames, innermost first */
	uint64_t *ips;
};

/* one outstanding allocation (-a) */
struct memleak_addr {
	uint64_t addr, size;
};

struct memleak_report {
	struct memleak_stack *s;	/* by increasing bytes (as BCC prints them: the largest last) */
	int n;
	struct memleak_addr *a;		/* every allocation counted, by increasing size */
	int na;
	uint64_t stats[MEMLEAK_STAT_NR];
};

struct memleak;
struct symbolizer;

/* open, load and attach; on error fills err (what failed and why) and returns -errno */
int memleak__new(struct memleak **out, const struct memleak_opts *o, char *err, size_t errlen);
/*
 * --call-graph dwarf: the ring buffer of struct memleak_dwarf records, each to
 * be given to memleak__dwarf_consume (which unwinds it) before the report
 */
int memleak__dwarf_fd(const struct memleak *m);
int memleak__dwarf_consume(struct memleak *m, const void *data, size_t size);
/* stacks that could not be unwound (DWARF mode) */
uint64_t memleak__dwarf_failed(const struct memleak *m);
/* one of the counters of enum memleak_stat, summed over the CPUs */
uint64_t memleak__stat(const struct memleak *m, enum memleak_stat which);
/* -t: the ring buffer of struct memleak_trace records */
int memleak__trace_fd(const struct memleak *m);
/* the allocator functions attached (user mode) or tracepoints (kernel mode) */
int memleak__nr_attached(const struct memleak *m);
/*
 * The allocations outstanding now that are at least older_ns old, summed by
 * stack; 0 or -errno.
 */
int memleak__read(struct memleak *m, uint64_t older_ns, struct memleak_report *r);
void memleak_report__free(struct memleak_report *r);
/* detach every probe (what is read next stays as it is) */
void memleak__detach(struct memleak *m);
void memleak__free(struct memleak *m);

/* 1 when the ELF file at path has no program interpreter (a static binary: its allocator is its own), 0 when
 * it has one, or -errno */
int memleak__is_static(const char *path);

/* 1 when the ELF file at path is a Go program (its allocator is the Go runtime's), 0 when not, or -errno */
int memleak__is_go(const char *path);

#endif
