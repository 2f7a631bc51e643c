/* SPDX-License-Identifier: GPL-2.0 */
/*
 * percentile.h - percentiles of a bucketed histogram, with their error bound.
 *
 * A percentile is found as HdrHistogram finds it: the bucket holding the
 * sample of rank ceil(q% x total) (nearest rank), reported as that bucket's
 * highest value (its inclusive upper end), lowered to the exact maximum
 * when the caller knows it. The reported value is never below the true one,
 * and the true one is at least the bucket's low end: for log2 buckets the
 * report is less than 2x the truth, for linear ones less than a step above.
 * Nothing here allocates; the caller owns every array.
 */
#ifndef SONDE_STATS_PERCENTILE_H
#define SONDE_STATS_PERCENTILE_H

#include <stdbool.h>
#include <stdint.h>

/* bucket b's values are [*lo, *hi] (inclusive); an open end is INT64_MIN / INT64_MAX */
typedef void (*pctl_range_fn)(void *ctx, int b, int64_t *lo, int64_t *hi);

struct pctl {
	int64_t value;		/* the reported percentile: min(bucket's hi, exact max) */
	int64_t lo, hi;		/* the bucket it is in: the true value lies in [lo, value] */
	int bucket;		/* its index, -1 when the histogram is empty */
	bool open;		/* the bucket has no upper end and no max was known: value is only a lower bound (lo) */
	bool above, below;	/* the bucket has no upper end (the truth is in [lo, value]: lo.. not within the
				   bound), no lower end (the truth is at most value, no bound below) */
};

#define PCTL_NO_MAX INT64_MIN	/* no exact maximum known */

/* the rank (1-based) of percentile q (0 < q <= 100) among total samples; 0 when total is 0 */
uint64_t pctl__rank(uint64_t total, double q);

/*
 * percentile q of n buckets (counts[b] samples each, in increasing order of
 * value) into *out; max is the exact largest sample or PCTL_NO_MAX.
 * Returns 0, -EINVAL for q outside (0, 100], -ENOENT for an empty histogram.
 */
int pctl__compute(const uint64_t *counts, int n, pctl_range_fn range, void *ctx, int64_t max, double q,
		  struct pctl *out);

/* the largest value the buckets can hold: the last non-empty bucket's upper end (INT64_MAX: open) */
int64_t pctl__bucket_max(const uint64_t *counts, int n, pctl_range_fn range, void *ctx);

/* ranges of common layouts: log2 buckets b = [2^b, 2^(b+1)), b 0 = [0, 1] (BCC's slots, trace's) */
void pctl__log2_range(void *ctx, int b, int64_t *lo, int64_t *hi);

#endif
