/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfscript.h - a streaming parser of `perf script` text (its default format,
 * which stackcollapse-perf.pl, inferno and speedscope read): a header line per
 * sample ("comm pid/tid [cpu] time: period event:"), then one line per frame
 * ("\t addr sym+off (dso)"), then a blank line. The parser owns the sample it
 * hands to the callback; it is valid only during the callback.
 */
#ifndef SONDE_PERFSCRIPT_H
#define SONDE_PERFSCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct ps_frame {
	const char *addr;	/* the hex text as printed */
	const char *func;	/* "main+0x12", "[unknown]", "a->b (inlined)" */
	const char *dso;	/* the text between the last parentheses */
};

struct ps_sample {
	const char *comm;
	const char *pid;	/* "?" when the header only has a tid */
	const char *tid;
	const char *event;	/* "cpu-clock:ppp", or "" (a header without "TIME:") */
	const char *period;	/* "1001001", or "" */
	const struct ps_frame *frames;	/* leaf first, as perf script prints them */
	size_t nr_frames;
	bool ended;		/* by a blank line or the next header, not by the end of the input */
	unsigned long line;	/* of the header */
};

typedef int (*ps_sample_fn)(const struct ps_sample *s, void *arg);
typedef void (*ps_warn_fn)(unsigned long line, const char *why, void *arg);

/*
 * Read every sample of in. Lines that are neither a header, a frame nor blank
 * are reported through warn (with their line number) and skipped. Returns 0, the
 * callback's non-zero value, or -errno (-EILSEQ: binary input, -EFBIG: a line
 * over UTIL_MAX_LINE; util__text_error() words them).
 */
int perfscript__read(FILE *in, ps_sample_fn fn, ps_warn_fn warn, void *arg);

#endif
