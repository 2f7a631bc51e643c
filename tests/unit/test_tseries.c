// SPDX-License-Identifier: GPL-2.0
/*
 * test_tseries.c - the tseries graph against the two examples of upstream
 * bpftrace's docs/stdlib.md (their "@:" line and the blank line after are the
 * map printer's, not the graph's), and its edge cases.
 */
#include "unit.h"
#include "lang/output.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *graph_of(const int64_t *v, const bool *has, int n, uint64_t first, uint64_t step, bool unsig)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	setenv("TZ", "UTC", 1);
	tzset();
	out__tseries_graph(f, v, has, n, first, step, unsig);
	fclose(f);
	return buf;
}

static char *graph(const int64_t *v, const bool *has, int n, uint64_t first, uint64_t step)
{
	return graph_of(v, has, n, first, step, false);
}

static uint64_t at(int h, int m, int s, int ms)
{
	return (((uint64_t)h * 60 + m) * 60 + s) * 1000000000ULL + (uint64_t)ms * 1000000ULL;
}

/* docs/stdlib.md, tseries, example two: a zigzag from -5 to 5, every 100 ms */
TEST(tseries_docs_zigzag)
{
	static const int64_t v[20] = { -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 4, 3, 2, 1, 0, -1, -2, -3, -4 };
	bool has[20];
	const char *want =
		"             -5                                                  5\n"
		"hh:mm:ss.ms  |___________________________________________________|\n"
		"10:39:49.300 *                         .                         | -5\n"
		"10:39:49.400 |    *                    .                         | -4\n"
		"10:39:49.500 |         *               .                         | -3\n"
		"10:39:49.600 |              *          .                         | -2\n"
		"10:39:49.700 |                   *     .                         | -1\n"
		"10:39:49.800 |                         *                         | 0\n"
		"10:39:49.900 |                         .    *                    | 1\n"
		"10:39:50.000 |                         .         *               | 2\n"
		"10:39:50.100 |                         .              *          | 3\n"
		"10:39:50.200 |                         .                   *     | 4\n"
		"10:39:50.300 |                         .                         * 5\n"
		"10:39:50.400 |                         .                   *     | 4\n"
		"10:39:50.500 |                         .              *          | 3\n"
		"10:39:50.600 |                         .         *               | 2\n"
		"10:39:50.700 |                         .    *                    | 1\n"
		"10:39:50.800 |                         *                         | 0\n"
		"10:39:50.900 |                   *     .                         | -1\n"
		"10:39:51.000 |              *          .                         | -2\n"
		"10:39:51.100 |         *               .                         | -3\n"
		"10:39:51.200 |    *                    .                         | -4\n"
		"             v___________________________________________________v\n"
		"             -5                                                  5\n";

	for (int i = 0; i < 20; i++)
		has[i] = true;
	char *got = graph(v, has, 20, at(10, 39, 49, 300), 100000000ULL);

	CHECK_STR(got, want);
	free(got);
}

/* docs/stdlib.md, tseries, example one: the minimum of random values 0..9 per 100 ms (first 6 lines) */
TEST(tseries_docs_min)
{
	static const int64_t v[6] = { 0, 0, 1, 2, 1, 0 };
	bool has[6] = { true, true, true, true, true, true };
	const char *want =
		"             0                                                   2\n"
		"hh:mm:ss.ms  |___________________________________________________|\n"
		"10:41:46.700 *                                                   | 0\n"
		"10:41:46.800 *                                                   | 0\n"
		"10:41:46.900 |                         *                         | 1\n"
		"10:41:47.000 |                                                   * 2\n"
		"10:41:47.100 |                         *                         | 1\n"
		"10:41:47.200 *                                                   | 0\n"
		"             v___________________________________________________v\n"
		"             0                                                   2\n";
	char *got = graph(v, has, 6, at(10, 41, 46, 700), 100000000ULL);

	CHECK_STR(got, want);
	free(got);
}

/* one value: min - 1 and max + 1 around it, the point in the middle; a missing interval is '-'; seconds: no fraction */
TEST(tseries_flat_and_missing)
{
	static const int64_t v[3] = { 7, 0, 7 };
	bool has[3] = { true, false, true };
	const char *want =
		"         6                                                   8\n"
		"hh:mm:ss |___________________________________________________|\n"
		"01:00:00 |                         *                         | 7\n"
		"01:00:01 |                                                   | -\n"
		"01:00:02 |                         *                         | 7\n"
		"         v___________________________________________________v\n"
		"         6                                                   8\n";
	char *got = graph(v, has, 3, at(1, 0, 0, 0), 1000000000ULL);

	CHECK_STR(got, want);
	free(got);
	got = graph(v, (bool[3]){ false, false, false }, 3, 0, 1000000000ULL);
	CHECK_STR(got, "<no data>");
	free(got);
}

/* a flat line of zeros: unsigned values keep 0 as the bottom (upstream's tseries_min), signed ones go to -1 */
TEST(tseries_flat_zero_unsigned)
{
	static const int64_t v[2] = { 0, 0 };
	bool has[2] = { true, true };
	const char *want =
		"             0                                                   1\n"
		"hh:mm:ss.ms  |___________________________________________________|\n"
		"00:00:00.500 *                                                   | 0\n"
		"00:00:00.600 *                                                   | 0\n"
		"             v___________________________________________________v\n"
		"             0                                                   1\n";
	char *got = graph_of(v, has, 2, at(0, 0, 0, 500), 100000000ULL, true);

	CHECK_STR(got, want);
	free(got);
	got = graph_of(v, has, 2, at(0, 0, 0, 500), 100000000ULL, false);
	CHECK(strstr(got, "             -1 ") == got);
	free(got);
}
