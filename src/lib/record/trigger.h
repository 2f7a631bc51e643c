/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trigger.h - the conditions a flight recorder (`sonde record --flight`)
 * watches itself, parsed from --trigger, and the rolling window behind a
 * percentile trigger.
 *
 *   syscall:NAME > DURATION          one call of syscall NAME slower than that
 *   pNN(NAME) > DURATION [over S]    the NNth percentile of NAME's latency over
 *                                    the last S seconds (default 10)
 *
 * ">=" may stand for ">". DURATION has a unit: ns, us, ms, s (100ms, 1.5s).
 * pNN reads as HdrHistogram's names do: p50, p90, p99, p999 (99.9), p9999;
 * p99.9 is the same as p999. Nothing here allocates but the window, which
 * pct_window__free() frees.
 */
#ifndef SONDE_TRIGGER_H
#define SONDE_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/flight.h"	/* the histogram's shape */

enum trigger_kind {
	TRIGGER_SYSCALL,	/* syscall:NAME > D */
	TRIGGER_PCT,		/* pNN(NAME) > D */
};

#define TRIGGER_DEFAULT_WINDOW 10	/* seconds of a pNN trigger's window */
#define TRIGGER_MAX_WINDOW 3600

struct trigger {
	enum trigger_kind kind;
	char syscall[64];
	double pct;		/* TRIGGER_PCT: 0 < pct < 100 (99, 99.9) */
	uint64_t threshold_ns;
	bool or_equal;		/* >= */
	unsigned window_s;	/* TRIGGER_PCT: seconds of the rolling window */
	uint64_t min_calls;	/* TRIGGER_PCT: calls the window needs before the percentile means something */
	char text[160];		/* as written, spaces normalised: "syscall:read > 100ms" */
};

/* parse s into t; 0, or -EINVAL with one line in err saying what is wrong and what is expected */
int trigger__parse(const char *s, struct trigger *t, char *err, size_t errlen);

/*
 * A duration with a unit (ns, us, ms, s, m; "1.5s"); bare numbers are
 * seconds when bare_unit_s, else refused. 0 or -EINVAL.
 */
int trigger__parse_duration(const char *s, bool bare_unit_s, uint64_t *ns);

/* does a latency of ns pass t's threshold */
bool trigger__exceeds(const struct trigger *t, uint64_t ns);

/* "203 ms", "1.50 s", "870 us": a latency for messages */
void trigger__fmt_ns(uint64_t ns, char *buf, size_t len);

/* the log-linear bucket of a latency, and the lowest and highest ns a bucket holds */
uint32_t trigger__bucket(uint64_t ns);
uint64_t trigger__bucket_low(uint32_t b);
uint64_t trigger__bucket_high(uint32_t b);

/*
 * The rolling window of a percentile trigger: one slot of buckets per push
 * (the caller pushes once a second), made from cumulative counts (the BPF
 * histogram is never cleared: each slot is the difference from the last push).
 */
struct pct_window {
	unsigned nslots, next, filled;
	uint64_t *slots;	/* nslots * FLIGHT_NBUCKETS */
	uint64_t *prev;		/* the cumulative counts at the last push */
};

int pct_window__init(struct pct_window *w, unsigned nslots);
void pct_window__push(struct pct_window *w, const uint64_t *cumulative);
/*
 * The pct-th percentile of the calls in the window: the highest latency of the
 * bucket holding it (within 1/16, 6.25%, above the true value), and the calls
 * counted. 0, or -ENODATA when the window holds none.
 */
int pct_window__value(const struct pct_window *w, double pct, uint64_t *value, uint64_t *count);
void pct_window__free(struct pct_window *w);

#endif
