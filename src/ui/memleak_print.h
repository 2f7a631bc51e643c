/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memleak_print.h - `sonde memleak`'s renderers: the outstanding allocations
 * by stack as BCC's memleak prints them, or folded stacks weighted by bytes
 * (flamegraph.pl, sonde flame). Frame names come from the caller's symbolizer.
 */
#ifndef SONDE_MEMLEAK_PRINT_H
#define SONDE_MEMLEAK_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/bpf/bpf_memleak.h"

struct symbolizer;

struct memleak_print {
	int top;		/* stacks shown: the top N by bytes */
	bool show_allocs;	/* -a: "addr = ... size = ..." of every allocation first */
	bool kernel;		/* kernel stacks */
};

/* "[HH:MM:SS] Top N stacks with outstanding allocations:", then the top stacks, the largest last */
void memleak_print__text(FILE *out, struct symbolizer *s, const struct memleak_report *r,
			 const struct memleak_print *o);
/* one line per stack: frames root first, ';'-separated, then the bytes */
void memleak_print__folded(FILE *out, struct symbolizer *s, const struct memleak_report *r,
			   const struct memleak_print *o);
/* -t: one line per call, "COMM-PID [CPU] SECONDS: alloc entered, size = N" (BCC's trace_pipe line) */
void memleak_print__trace(FILE *out, const struct memleak_trace *e);
/*
 * A gzip'd pprof profile of every stack (not only the top): samples of
 * inuse_objects/count and inuse_space/bytes, as a Go heap profile's in-use
 * view; 0 or -errno with err filled.
 */
int memleak_print__pprof(FILE *out, struct symbolizer *s, const struct memleak_report *r,
			 const struct memleak_print *o, char *err, size_t errlen);

#endif
