/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collapse.h - stacks folded into a folded-stack tree (folded.h), as
 * `perf script report stackcollapse` folds a recording and
 * stackcollapse-perf.pl folds perf script text. Used by `sonde collapse` and
 * `sonde flame -i`; the maps bpftrace prints, as stackcollapse-bpftrace.pl folds
 * them (collapse_bpftrace.c). Nothing here prints: skipped lines go to a callback, the
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
	bool period;		/* a recording: weight by the sample period, not 1 (text: always) */
	const char *event_filter;	/* NULL: the first event met */
	struct session_filter filter;	/* only these samples (--comms) */
	int max_stack;		/* 0: the default */
	/* bpftrace's maps */
	const char *map;	/* "@name": fold this map; NULL: the first keyed by a stack */
	bool offsets;		/* keep "+46" and ustack(perf)'s "ADDR sym+46 (module)" */
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

/*
 * Fold the maps bpftrace and `sonde probe` print (`@[ustack] = count()`), as
 * stackcollapse-bpftrace.pl folds them: each entry of one map keyed by a stack
 * becomes a stack (the key's other elements first, the frames root first) with
 * the entry's value as its count, added to slot. Offsets ("func+46") are
 * stripped unless o->offsets; only o->map and o->offsets are read. st->event
 * names the map folded, st->other a stack map left out, st->kept and
 * st->skipped count entries; warn (may be NULL) hears of each entry skipped.
 * Lines outside entries ("Attaching 2 probes...", printf's) and maps keyed
 * without a stack are passed over. 0 or -errno (util__text_error words them).
 */
int collapse__bpftrace(struct folded *f, FILE *in, const struct collapse_opts *o, enum folded_slot slot,
		       void (*warn)(unsigned long line, const char *why, void *arg), void *arg,
		       struct collapse_stats *st);

/*
 * Does text that starts with head[0..len) look like bpftrace's output (its
 * "Attaching N probes..." line first, or a map entry "@name[")? whole: head is
 * all of it (else its last, cut line is not looked at).
 */
bool collapse__is_bpftrace(const char *head, size_t len, bool whole);

/*
 * Read the first 64 KiB of in and say whether it is bpftrace's output.
 * *replay (the caller fcloses it; in stays open) reads in again from its first
 * byte. 0 or -errno.
 */
int collapse__sniff(FILE *in, bool *bpftrace, FILE **replay);

#endif
