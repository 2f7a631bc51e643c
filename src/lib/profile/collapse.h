/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collapse.h - stacks folded into a folded-stack tree (folded.h), as
 * `perf script report stackcollapse` folds a recording and
 * stackcollapse-perf.pl folds perf script text. Used by `sonde collapse` and
 * `sonde flame -i`. Nothing here prints: skipped lines go to a callback, the
 * rest is in struct collapse_stats.
 */
#ifndef SONDE_COLLAPSE_H
#define SONDE_COLLAPSE_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/flame/folded.h"
#include "lib/profile/session.h"

struct collapse_opts {
	bool pid, tid;		/* comm-PID, comm-PID/TID as the first frame */
	bool kernel, jit;	/* _[k] and _[j] annotations */
	bool addrs;		/* keep the addresses of unknown frames */
	bool inline_;		/* inlined frames, marked _[i] */
	bool period;		/* weight by the sample period, not 1 */
	const char *event_filter;	/* NULL: the first event met */
	struct session_filter filter;	/* only these samples (--comms) */
	int max_stack;		/* 0: the default */
};

struct collapse_stats {
	char event[128];	/* the event kept */
	bool other_events;	/* samples of other events were left out */
	unsigned long kept;	/* samples of the event kept */
	char other[128];	/* the first event left out */
	unsigned long skipped;	/* perf script lines skipped */
	unsigned long bad_records;	/* recording records that did not parse */
	char incomplete[256];	/* "" or what an unfinished or cut recording lost */
	char first_error[256];
};

/* fold the samples of a recording into f; 0 or -errno with one line in err */
int collapse__recording(struct folded *f, const char *path, const struct collapse_opts *o,
			struct collapse_stats *st, char *err, size_t errlen);

/* fold perf script text; warn (may be NULL) hears of each skipped line; 0 or -errno */
int collapse__perf_script(struct folded *f, FILE *in, const struct collapse_opts *o,
			  void (*warn)(unsigned long line, const char *why, void *arg), void *arg,
			  struct collapse_stats *st);

#endif
