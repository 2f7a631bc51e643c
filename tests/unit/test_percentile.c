// SPDX-License-Identifier: GPL-2.0
/*
 * test_percentile.c - percentiles from buckets (lib/stats/percentile.c)
 * against distributions whose exact percentiles are known: each check
 * states the true value and that the report lies in [true, 2 x true) for
 * log2 buckets, within a step for linear ones.
 */
#include "unit.h"
#include "lib/stats/percentile.h"

#include <errno.h>
#include <stdint.h>

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
