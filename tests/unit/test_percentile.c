// SPDX-License-Identifier: GPL-2.0
/*
 * test_percentile.c - percentiles from buckets (lib/stats/percentile.c)
 * against distributions whose exact percentiles are known: each check
 * states the true value and that the report lies in [true, 2 x true) for
 * log2 buckets, within a step for linear ones.
 */
#include "unit.h"
#include "lib/stats/percentile.h"
#include "ui/hist.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

static void fill_log2(uint64_t *b, int64_t v, uint64_t n)
{
	int s = 0;

	while (v >> (s + 1))
		s++;
	b[s] += n;
}

/* linear buckets of 10: bucket b = [10b, 10b + 9] */
static void lin10(void *ctx, int b, int64_t *lo, int64_t *hi)
{
	(void)ctx;
	*lo = 10LL * b;
	*hi = 10LL * b + 9;
}

/* bpftrace's lhist overflow layout: bucket 2 holds [20, ...) */
static void lin_open(void *ctx, int b, int64_t *lo, int64_t *hi)
{
	(void)ctx;
	*lo = 10LL * b;
	*hi = b >= 2 ? INT64_MAX : 10LL * b + 9;
}

TEST(pctl_rank_nearest)
{
	CHECK_INT(pctl__rank(1000, 50), 500);
	CHECK_INT(pctl__rank(1000, 99), 990);
	CHECK_INT(pctl__rank(1000, 99.9), 999);	/* not 998 from 999.0000001 or 998.99999 */
	CHECK_INT(pctl__rank(1000, 100), 1000);
	CHECK_INT(pctl__rank(3, 50), 2);
	CHECK_INT(pctl__rank(1, 0.001), 1);
	CHECK_INT(pctl__rank(0, 50), 0);
	CHECK_INT(pctl__rank(7, 99.9), 7);
}

/* 850 x 2us, 120 x 1.5ms, 30 x 50ms (ns): the e2e workload's distribution */
TEST(pctl_log2_three_groups)
{
	uint64_t b[64] = { 0 };
	struct pctl p;

	fill_log2(b, 2000, 850);
	fill_log2(b, 1500000, 120);
	fill_log2(b, 50000000, 30);
	CHECK_INT(pctl__compute(b, 64, pctl__log2_range, NULL, PCTL_NO_MAX, 50, &p), 0);
	CHECK_INT(p.lo, 1024);	/* 2us in [1024, 2047] */
	CHECK_INT(p.value, 2047);
	CHECK(p.value >= 2000 && p.value < 4000);
	CHECK_INT(pctl__compute(b, 64, pctl__log2_range, NULL, PCTL_NO_MAX, 90, &p), 0);
	CHECK_INT(p.lo, 1048576);
	CHECK_INT(p.value, 2097151);
	CHECK(p.value >= 1500000 && p.value < 3000000);
	CHECK_INT(pctl__compute(b, 64, pctl__log2_range, NULL, PCTL_NO_MAX, 99, &p), 0);
	CHECK_INT(p.lo, 33554432);
	CHECK_INT(p.value, 67108863);
	CHECK(!p.open);
	/* the exact max pulls the tail's report down to the truth */
	CHECK_INT(pctl__compute(b, 64, pctl__log2_range, NULL, 50000000, 99.9, &p), 0);
	CHECK_INT(p.value, 50000000);
	CHECK_INT(pctl__compute(b, 64, pctl__log2_range, NULL, 50000000, 100, &p), 0);
	CHECK_INT(p.value, 50000000);
	/* a max below the low end is a wrong max: the bucket's end stays */
	CHECK_INT(pctl__compute(b, 64, pctl__log2_range, NULL, 5, 99, &p), 0);
	CHECK_INT(p.value, 67108863);
}

/* the brief's 990 fast + 10 slow: p99 is the 990th, still fast; p99.9 is slow */
TEST(pctl_log2_rank_edge)
{
	uint64_t b[64] = { 0 };
	struct pctl p;

	fill_log2(b, 10000, 990);
	fill_log2(b, 50000000, 10);
	CHECK_INT(pctl__compute(b, 64, pctl__log2_range, NULL, PCTL_NO_MAX, 99, &p), 0);
	CHECK_INT(p.lo, 8192);
	CHECK_INT(pctl__compute(b, 64, pctl__log2_range, NULL, PCTL_NO_MAX, 99.1, &p), 0);
	CHECK_INT(p.lo, 33554432);
	CHECK_INT(pctl__compute(b, 64, pctl__log2_range, NULL, PCTL_NO_MAX, 99.9, &p), 0);
	CHECK_INT(p.lo, 33554432);
}

/* uniform 0..99 in linear buckets of 10: pN is in [N-1's bucket], within a step */
TEST(pctl_linear_uniform)
{
	uint64_t b[10];
	struct pctl p;

	for (int i = 0; i < 10; i++)
		b[i] = 10;
	for (int q = 10; q <= 100; q += 10) {
		int64_t truth = q - 1;	/* rank q of 0..99 */

		CHECK_INT(pctl__compute(b, 10, lin10, NULL, PCTL_NO_MAX, q, &p), 0);
		CHECK(p.value >= truth && p.value - truth < 10);
		CHECK(p.lo <= truth);
	}
	CHECK_INT(pctl__compute(b, 10, lin10, NULL, PCTL_NO_MAX, 50, &p), 0);
	CHECK_INT(p.value, 49);
	CHECK_INT(pctl__compute(b, 10, lin10, NULL, 95, 100, &p), 0);
	CHECK_INT(p.value, 95);
}

TEST(pctl_open_bucket)
{
	uint64_t b[3] = { 1, 1, 8 };
	struct pctl p;

	CHECK_INT(pctl__compute(b, 3, lin_open, NULL, PCTL_NO_MAX, 99, &p), 0);
	CHECK(p.open);
	CHECK_INT(p.lo, 20);
	CHECK_INT(pctl__compute(b, 3, lin_open, NULL, 1234, 99, &p), 0);
	CHECK(!p.open);
	CHECK_INT(p.value, 1234);
	CHECK_INT(pctl__bucket_max(b, 3, lin_open, NULL), INT64_MAX);
}

TEST(pctl_empty_and_bad_q)
{
	uint64_t b[4] = { 0 };
	struct pctl p;

	CHECK_INT(pctl__compute(b, 4, lin10, NULL, PCTL_NO_MAX, 50, &p), -ENOENT);
	CHECK_INT(p.bucket, -1);
	b[1] = 1;
	CHECK_INT(pctl__compute(b, 4, lin10, NULL, PCTL_NO_MAX, 0, &p), -EINVAL);
	CHECK_INT(pctl__compute(b, 4, lin10, NULL, PCTL_NO_MAX, 100.5, &p), -EINVAL);
	CHECK_INT(pctl__compute(b, 4, lin10, NULL, PCTL_NO_MAX, 1, &p), 0);
	CHECK_INT(p.value, 19);
	CHECK_INT(pctl__bucket_max(b, 4, lin10, NULL), 19);
}

TEST(pctl_open_ends_flagged)
{
	uint64_t b[3] = { 2, 1, 0 };
	struct pctl p;

	/* lin_open's bucket 0 as a bucket open below */
	CHECK_INT(pctl__compute(b, 3, lin_open, NULL, PCTL_NO_MAX, 50, &p), 0);
	CHECK(!p.below && !p.above);
	b[2] = 5;
	CHECK_INT(pctl__compute(b, 3, lin_open, NULL, 99, 90, &p), 0);
	CHECK(p.above && !p.open);
	CHECK_INT(p.lo, 20);
	CHECK_INT(p.value, 99);
}

/* the lines as printed (ui/hist.c): a value per percentile, the bound, open buckets as ranges */
static char *line_bt(const struct hist_bt *h, const uint64_t *b, int n, int64_t max)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	hist__print_bt_percentiles(f, h, b, n, max);
	fclose(f);
	return buf;
}

TEST(pctl_lines_bpftrace_layouts)
{
	struct hist_bt log2 = { 0 }, k2 = { .k = 2 }, lin = { .linear = true, .min = 0, .max = 10, .step = 2 };
	uint64_t b[256] = { 0 };	/* hist(n, 2) has 250 buckets */
	char *s;

	b[hist__bt_slot(0)]++;	/* 0, 5, 100 */
	b[hist__bt_slot(5)]++;
	b[hist__bt_slot(100)]++;
	s = line_bt(&log2, b, 66, 100);
	CHECK_STR(s, "p50 7  p90 100  p99 100  p999 100  max 100  "
		     "(log2 buckets: each pNN is at most 2x the true value, never below it)\n");
	free(s);
	memset(b, 0, sizeof(b));
	b[0] = 2;	/* -3, -10 */
	s = line_bt(&log2, b, 66, -3);
	CHECK_STR(s, "p50 <=-3  p90 <=-3  p99 <=-3  p999 <=-3  max -3  "
		     "(log2 buckets: each pNN is at most 2x the true value, never below it)\n");
	free(s);
	memset(b, 0, sizeof(b));
	b[4] = 1;	/* lhist 7, 25, 12345 (0, 10, 2): [6, 8) and [10, ...) */
	b[6] = 2;
	s = line_bt(&lin, b, hist__bt_nr_buckets(&lin), 12345);
	CHECK_STR(s, "p50 10..12345  p90 10..12345  p99 10..12345  p999 10..12345  max 12345  "
		     "(linear buckets: each pNN is less than 2 above the true value, never below it)\n");
	free(s);
	s = line_bt(&lin, b, hist__bt_nr_buckets(&lin), PCTL_NO_MAX);
	CHECK_STR(s, "p50 >=10  p90 >=10  p99 >=10  p999 >=10  max >=10  "
		     "(linear buckets: each pNN is less than 2 above the true value, never below it)\n");
	free(s);
	memset(b, 0, sizeof(b));
	/* hist(n, 2): 1000 in [896, 1024), bucket ((9 - 2 + 1) << 2) + 3 + 1; 1100 in [1024, 1280), (9 << 2) + 0 + 1 */
	b[36] = 1;
	b[37] = 1;
	s = line_bt(&k2, b, hist__bt_nr_buckets(&k2), 1100);
	CHECK_STR(s, "p50 1023  p90 1100  p99 1100  p999 1100  max 1100  "
		     "(hist k=2 buckets: each pNN is at most 1.25x the true value, never below it)\n");
	free(s);
}

TEST(pctl_lines_log2_durations)
{
	uint64_t b[64] = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fill_log2(b, 50000, 850);	/* ns: 850 x 50us, 120 x 1.2ms, 30 x 50ms */
	fill_log2(b, 1200000, 120);
	fill_log2(b, 50000000, 30);
	hist__print_log2_percentiles(f, b, 64, 53478030, 1);
	hist__print_log2_percentiles(f, b, 64, PCTL_NO_MAX, 0);
	fclose(f);
	CHECK_STR(buf, "p50 65.5us  p90 2.10ms  p99 53.5ms  p999 53.5ms  max 53.5ms  "
		       "(log2 buckets: each pNN is at most 2x the true value, never below it)\n"
		       "p50 65535  p90 2097151  p99 67108863  p999 67108863  max 67108863  "
		       "(log2 buckets: each pNN is at most 2x the true value, never below it)\n");
	free(buf);
}
