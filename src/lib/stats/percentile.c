// SPDX-License-Identifier: GPL-2.0
/*
 * percentile.c - percentiles from histogram buckets (see percentile.h for the
 * definition and the bound). Ranks are integers: q is taken in thousandths
 * of a percent so that 99.9 x 1000 samples is rank 999, not 998.999...
 */
#include "lib/stats/percentile.h"

#include <errno.h>
#include <math.h>

uint64_t pctl__rank(uint64_t total, double q)
{
	uint64_t milli = (uint64_t)llround(q * 1000);	/* q in 1/1000 % */
	unsigned __int128 num = (unsigned __int128)total * milli;
	uint64_t r = (uint64_t)((num + 99999) / 100000);	/* ceil(total * q / 100) */

	if (!total)
		return 0;
	if (r < 1)
		r = 1;
	return r > total ? total : r;
}

int pctl__compute(const uint64_t *counts, int n, pctl_range_fn range, void *ctx, int64_t max, double q,
		  struct pctl *out)
{
	uint64_t total = 0, seen = 0, rank;

	out->bucket = -1;
	out->open = out->above = out->below = false;
	out->value = out->lo = out->hi = 0;
	if (!(q > 0 && q <= 100))
		return -EINVAL;
	for (int b = 0; b < n; b++)
		total += counts[b];
	rank = pctl__rank(total, q);
	if (!rank)
		return -ENOENT;
	for (int b = 0; b < n; b++) {
		seen += counts[b];
		if (seen < rank)
			continue;
		range(ctx, b, &out->lo, &out->hi);
		out->bucket = b;
		out->value = out->hi;
		if (max != PCTL_NO_MAX && max < out->value)
			out->value = max;
		if (out->lo != INT64_MIN && out->value < out->lo)	/* a max below the bucket: a bad max, keep the bucket's */
			out->value = out->hi;
		if (out->value == INT64_MAX)	/* an open top end and no maximum: only "at least lo" */
			out->open = true;
		out->above = out->hi == INT64_MAX;
		out->below = out->lo == INT64_MIN;
		return 0;
	}
	return -ENOENT;
}

int64_t pctl__bucket_max(const uint64_t *counts, int n, pctl_range_fn range, void *ctx)
{
	int64_t lo, hi;

	for (int b = n - 1; b >= 0; b--)
		if (counts[b]) {
			range(ctx, b, &lo, &hi);
			return hi;
		}
	return PCTL_NO_MAX;
}

void pctl__log2_range(void *ctx, int b, int64_t *lo, int64_t *hi)
{
	(void)ctx;
	*lo = b ? (int64_t)1 << b : 0;
	*hi = b >= 62 ? INT64_MAX : ((int64_t)1 << (b + 1)) - 1;
}
