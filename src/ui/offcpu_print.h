/* SPDX-License-Identifier: GPL-2.0 */
/*
 * offcpu_print.h - `sonde offcpu`'s renderers: the header line and the stacks
 * as BCC's offcputime prints them, or folded for flame graphs. They only read
 * the profile; frame names come from the caller's symbolizer.
 */
#ifndef SONDE_OFFCPU_PRINT_H
#define SONDE_OFFCPU_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/bpf/bpf_offcpu.h"

struct offcpu_print {
	bool user_only, kern_only;
	bool delimited;		/* a "-" frame (folded) or "--" line (text) between user and kernel stacks */
	bool wall;		/* folded: off-CPU frames carry flamegraph.pl's _[w] */
};

/*
 * "Tracing off-CPU time (us) of WHAT by user + kernel stack... Hit Ctrl-C to
 * end." (" for S secs." with a duration); what: "PID 12", "'cmd'", or NULL for
 * all threads
 */
void offcpu_print__header(FILE *out, const char *what, const struct offcpu_print *o, double duration);
/* each stack: kernel frames, then user frames, "-  comm (tid)", then microseconds */
void offcpu_print__text(FILE *out, struct symbolizer *s, const struct offcpu_profile *p, const struct offcpu_print *o);
/* comm;user frames;kernel frames, root first, then microseconds; same names merged. 0 or -errno */
int offcpu_print__folded(FILE *out, struct symbolizer *s, const struct offcpu_profile *p, const struct offcpu_print *o);

#endif
