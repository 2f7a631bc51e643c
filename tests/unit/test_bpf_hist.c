// SPDX-License-Identifier: GPL-2.0
/*
 * test_bpf_hist.c - the histogram printers against real output (the
 * language prints its maps with ui/hist.c): the bpftrace texts below were
 * printed by bpftrace 0.17 on this machine for
 *   @h = hist(0), hist(1) x2, hist(5), hist(1500), hist(3000000)
 *   @k = lhist(2048, 1024, 8192, 1024), lhist(5000, 1024, 8192, 1024)
 *   @l = lhist(3, 0, 10, 2), lhist(7, 0, 10, 2) x2, lhist(20, 0, 10, 2)
 * and the BCC ones follow the layout of biolatency/runqlat.
 */
#include "unit.h"
#include "ui/hist.h"

#include <stdlib.h>

/* a map as the language prints it: "@name: ", the rows, a blank line */
static char *capture_bt(const uint64_t *b, int n, int lin, int64_t min, int64_t max, int64_t step, const char *name)
{
	struct hist_bt h = { .linear = lin, .min = min, .max = max, .step = step };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fprintf(f, "%s: \n", name);
	hist__print_bt(f, &h, b, n, 1);
	fputc('\n', f);
	fclose(f);
	return buf;
}

TEST(bpf_hist_bpftrace_log2)
{
	int64_t vals[] = { 0, 1, 1, 5, 1500, 3000000 };
	uint64_t b[66] = { 0 };
	char *s;

	for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		b[hist__bt_slot(vals[i])]++;
	s = capture_bt(b, 66, 0, 0, 0, 0, "@h");
	CHECK_STR(s,
	"@h: \n"
	"[0]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"[1]                    2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[2, 4)                 0 |                                                    |\n"
	"[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"[8, 16)                0 |                                                    |\n"
	"[16, 32)               0 |                                                    |\n"
	"[32, 64)               0 |                                                    |\n"
	"[64, 128)              0 |                                                    |\n"
	"[128, 256)             0 |                                                    |\n"
	"[256, 512)             0 |                                                    |\n"
	"[512, 1K)              0 |                                                    |\n"
	"[1K, 2K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"[2K, 4K)               0 |                                                    |\n"
	"[4K, 8K)               0 |                                                    |\n"
	"[8K, 16K)              0 |                                                    |\n"
	"[16K, 32K)             0 |                                                    |\n"
	"[32K, 64K)             0 |                                                    |\n"
	"[64K, 128K)            0 |                                                    |\n"
	"[128K, 256K)           0 |                                                    |\n"
	"[256K, 512K)           0 |                                                    |\n"
	"[512K, 1M)             0 |                                                    |\n"
	"[1M, 2M)               0 |                                                    |\n"
	"[2M, 4M)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"\n");
	free(s);
	CHECK_INT(hist__bt_slot(-5), 0);
	CHECK_INT(hist__bt_slot(2), 3);
	CHECK_INT(hist__bt_slot(3), 3);
	CHECK_INT(hist__bt_slot(4), 4);
}

/* lhist bucket of v as bpftrace computes it */
static int lslot(int64_t v, int64_t min, int64_t max, int64_t step)
{
	if (v < min)
		return 0;
	if (v >= max)
		return (max - min) / step + 1;
	return 1 + (v - min) / step;
}

TEST(bpf_hist_bpftrace_linear)
{
	uint64_t b[16] = { 0 };
	char *s;

	b[lslot(2048, 1024, 8192, 1024)]++;
	b[lslot(5000, 1024, 8192, 1024)]++;
	s = capture_bt(b, (8192 - 1024) / 1024 + 2, 1, 1024, 8192, 1024, "@k");
	CHECK_STR(s,
	"@k: \n"
	"[2K, 3K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[3K, 4K)               0 |                                                    |\n"
	"[4K, 5K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"\n");
	free(s);
	memset(b, 0, sizeof(b));
	b[lslot(3, 0, 10, 2)]++;
	b[lslot(7, 0, 10, 2)] += 2;
	b[lslot(20, 0, 10, 2)]++;
	s = capture_bt(b, 10 / 2 + 2, 1, 0, 10, 2, "@l");
	CHECK_STR(s,
	"@l: \n"
	"[2, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"[4, 6)                 0 |                                                    |\n"
	"[6, 8)                 2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[8, 10)                0 |                                                    |\n"
	"[10, ...)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"\n");
	free(s);
}

TEST(bpf_hist_bcc_log2)
{
	uint64_t slots[8] = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK_INT(hist__log2_slot(0), 0);
	CHECK_INT(hist__log2_slot(1), 0);
	CHECK_INT(hist__log2_slot(2), 1);
	CHECK_INT(hist__log2_slot(7), 2);
	CHECK_INT(hist__log2_slot(8), 3);
	slots[hist__log2_slot(2)] = 2;
	slots[hist__log2_slot(5)] = 1;
	slots[hist__log2_slot(100)] = 8;
	hist__print_log2(f, slots, 8, "usecs");
	hist__print_log2(f, (uint64_t[4]){ 0 }, 4, "usecs");	/* nothing at all */
	fclose(f);
	CHECK_STR(buf,
		  "     usecs               : count    distribution\n"
		  "         0 -> 1          : 0        |                                        |\n"
		  "         2 -> 3          : 2        |**********                              |\n"
		  "         4 -> 7          : 1        |*****                                   |\n"
		  "         8 -> 15         : 0        |                                        |\n"
		  "        16 -> 31         : 0        |                                        |\n"
		  "        32 -> 63         : 0        |                                        |\n"
		  "        64 -> 127        : 8        |****************************************|\n");
	free(buf);
}

/* past slot 32 libbpf-tools widens the columns to 20 and halves the bar */
TEST(bpf_hist_bcc_log2_wide)
{
	uint64_t slots[34] = { 0 };
	char *buf = NULL, *want = NULL;
	size_t len = 0, wlen = 0;
	FILE *f = open_memstream(&buf, &len), *w = open_memstream(&want, &wlen);

	slots[0] = 3;
	slots[33] = 1;
	hist__print_log2(f, slots, 34, "nsecs");
	fclose(f);
	fprintf(w, "%15s%-29s : count    distribution\n", "", "nsecs");
	for (int i = 0; i < 34; i++)
		fprintf(w, "%20llu -> %-20llu : %-8d |%s|\n", i ? 1ULL << i : 0ULL, (2ULL << i) - 1,
			i == 0 ? 3 : i == 33 ? 1 : 0,
			i == 0 ? "********************" : i == 33 ? "******              " : "                    ");
	fclose(w);
	CHECK_STR(buf, want);
	free(buf);
	free(want);
}

TEST(bpf_hist_bcc_linear)
{
	uint64_t b[10] = { 0, 0, 4, 0, 2, 0, 0, 0, 0, 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	hist__print_linear(f, b, 10, 0, 5, "msecs");
	fclose(f);
	CHECK_STR(buf,
		  "     msecs         : count     distribution\n"
		  "        10         : 4        |****************************************|\n"
		  "        20         : 2        |********************                    |\n");
	free(buf);
}

/* -f json: bpftrace 0.17 printed these arrays for lhist(3 | -1 | 20, 0, 10, 2) and hist(-1 | 0 | 1 | 5) */
TEST(bpf_hist_bpftrace_json)
{
	uint64_t l[7] = { 0 }, h[66] = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	l[lslot(3, 0, 10, 2)]++;
	l[lslot(-1, 0, 10, 2)]++;
	l[lslot(20, 0, 10, 2)]++;
	hist__print_bt_json(f, &(struct hist_bt){ .linear = true, .min = 0, .max = 10, .step = 2 }, l, 7);
	fputc('\n', f);
	for (int64_t v = -1; v <= 5; v += v == 1 ? 4 : 1)
		h[hist__bt_slot(v)]++;
	hist__print_bt_json(f, &(struct hist_bt){ 0 }, h, 66);
	fclose(f);
	CHECK_STR(buf, "[{\"max\": -1, \"count\": 1}, {\"min\": 0, \"max\": 1, \"count\": 0}, "
		       "{\"min\": 2, \"max\": 3, \"count\": 1}, {\"min\": 4, \"max\": 5, \"count\": 0}, "
		       "{\"min\": 6, \"max\": 7, \"count\": 0}, {\"min\": 8, \"max\": 9, \"count\": 0}, "
		       "{\"min\": 10, \"count\": 1}]\n"
		       "[{\"max\": -1, \"count\": 1}, {\"min\": 0, \"max\": 0, \"count\": 1}, "
		       "{\"min\": 1, \"max\": 1, \"count\": 1}, {\"min\": 2, \"max\": 3, \"count\": 0}, "
		       "{\"min\": 4, \"max\": 7, \"count\": 1}]");
	free(buf);
	CHECK_INT(hist__bt_nr_buckets(&(struct hist_bt){ .linear = true, .min = 0, .max = 10, .step = 2 }), 7);
	CHECK_INT(hist__bt_nr_buckets(&(struct hist_bt){ .k = 2 }), (62 << 2) + 2);
}
