// SPDX-License-Identifier: GPL-2.0
/*
 * hist.c - BCC's and bpftrace's histogram layouts, reproduced from their
 * documented and observed output (see tests/unit/test_bpf_hist.c, whose
 * expected texts come from bpftrace 0.17 on this machine).
 */
#include "ui/hist.h"

#include <stdbool.h>
#include <string.h>

unsigned hist__log2_slot(uint64_t v)
{
	unsigned s = 0;

	while (v > 1) {
		v >>= 1;
		s++;
	}
	return s;
}

/* BCC: floor(width * val / max) stars, padded with spaces to width ('+' when over) */
static void bcc_stars(FILE *f, uint64_t val, uint64_t max, int width)
{
	int n = max ? (int)((double)(val < max ? val : max) * width / max) : 0;

	for (int i = 0; i < width; i++)
		fputc(i < n ? '*' : ' ', f);
	if (val > max)
		fputc('+', f);
}

void hist__print_log2(FILE *f, const uint64_t *slots, int n, const char *val_type)
{
	int idx_max = -1;
	uint64_t max = 0;

	for (int i = 0; i < n; i++) {
		if (slots[i])
			idx_max = i;
		if (slots[i] > max)
			max = slots[i];
	}
	if (idx_max < 0)
		return;
	bool wide = idx_max > 32;

	fprintf(f, "%*s%-*s : count     distribution\n", wide ? 15 : 5, "", wide ? 29 : 19, val_type);
	for (int i = 0; i <= idx_max; i++) {
		unsigned long long lo, hi;

		/* row i: [2^i, 2^(i+1) - 1], the first row "0 -> 1" */
		lo = i ? 1ULL << i : 0;
		hi = i >= 63 ? ~0ULL : (1ULL << (i + 1)) - 1;
		fprintf(f, "%*llu -> %-*llu : %-8llu |", wide ? 20 : 10, lo, wide ? 20 : 10, hi,
			(unsigned long long)slots[i]);
		bcc_stars(f, slots[i], max, wide ? 20 : 40);
		fputs("|\n", f);
	}
}

void hist__print_linear(FILE *f, const uint64_t *buckets, int n, uint64_t base, uint64_t step,
			const char *val_type)
{
	int lo = -1, hi = -1;
	uint64_t max = 0;

	for (int i = 0; i < n; i++) {
		if (buckets[i]) {
			if (lo < 0)
				lo = i;
			hi = i;
		}
		if (buckets[i] > max)
			max = buckets[i];
	}
	if (lo < 0)
		return;
	fprintf(f, "     %-13s : count     distribution\n", val_type);
	for (int i = lo; i <= hi; i++) {
		fprintf(f, "        %-10llu : %-8llu |", (unsigned long long)(base + i * step),
			(unsigned long long)buckets[i]);
		bcc_stars(f, buckets[i], max, 40);
		fputs("|\n", f);
	}
}

unsigned hist__bt_slot(int64_t v)
{
	if (v < 0)
		return 0;
	if (v == 0)
		return 1;
	return 2 + hist__log2_slot((uint64_t)v);
}

/* 2^power with bpftrace's K/M/G/T/P/E suffixes (powers of 1024) */
static void power_label(char *buf, size_t len, int power)
{
	static const char sfx[] = "KMGTPE";
	int s = power / 10;

	if (s > 6)
		s = 6;
	if (s)
		snprintf(buf, len, "%llu%c", 1ULL << (power - 10 * s), sfx[s - 1]);
	else
		snprintf(buf, len, "%llu", 1ULL << power);
}

/* a row: label in 16 columns, count in 8, then a bar of 52 */
static void bt_row(FILE *f, const char *label, uint64_t count, uint64_t max)
{
	int bar = max ? (int)((float)count / (float)max * 52) : 0;

	fprintf(f, "%-16s%8llu |", label, (unsigned long long)count);
	for (int i = 0; i < 52; i++)
		fputc(i < bar ? '@' : ' ', f);
	fputs("|\n", f);
}

static int bounds(const uint64_t *b, int n, int *lo, int *hi, uint64_t *max)
{
	*lo = *hi = -1;
	*max = 0;
	for (int i = 0; i < n; i++) {
		if (b[i]) {
			if (*lo < 0)
				*lo = i;
			*hi = i;
		}
		if (b[i] > *max)
			*max = b[i];
	}
	return *lo;
}

void hist__print_bt(FILE *f, const char *name, const uint64_t *buckets, int n)
{
	int lo, hi;
	uint64_t max;
	char label[64], a[24], b[24];

	fprintf(f, "%s: \n", name);
	if (bounds(buckets, n, &lo, &hi, &max) >= 0)
		for (int i = lo; i <= hi; i++) {
			if (i == 0)
				snprintf(label, sizeof(label), "(..., 0)");
			else if (i == 1)
				snprintf(label, sizeof(label), "[0]");
			else if (i == 2)
				snprintf(label, sizeof(label), "[1]");
			else {
				power_label(a, sizeof(a), i - 2);
				power_label(b, sizeof(b), i - 1);
				snprintf(label, sizeof(label), "[%s, %s)", a, b);
			}
			bt_row(f, label, buckets[i], max);
		}
	fputc('\n', f);
}

/* lhist numbers: K or M only for exact multiples */
static void lin_label(char *buf, size_t len, int64_t v)
{
	if (v && v % 1048576 == 0)
		snprintf(buf, len, "%lldM", (long long)(v / 1048576));
	else if (v && v % 1024 == 0)
		snprintf(buf, len, "%lldK", (long long)(v / 1024));
	else
		snprintf(buf, len, "%lld", (long long)v);
}

void hist__print_bt_linear(FILE *f, const char *name, const uint64_t *buckets, int n,
			   int64_t min, int64_t max_v, int64_t step)
{
	int lo, hi;
	uint64_t max;
	char label[80], a[32], b[32];

	fprintf(f, "%s: \n", name);
	if (bounds(buckets, n, &lo, &hi, &max) >= 0)
		for (int i = lo; i <= hi; i++) {
			if (i == 0) {
				lin_label(a, sizeof(a), min);
				snprintf(label, sizeof(label), "(..., %s)", a);
			} else if (i == n - 1) {
				lin_label(a, sizeof(a), max_v);
				snprintf(label, sizeof(label), "[%s, ...)", a);
			} else {
				lin_label(a, sizeof(a), min + (i - 1) * step);
				lin_label(b, sizeof(b), min + i * step);
				snprintf(label, sizeof(label), "[%s, %s)", a, b);
			}
			bt_row(f, label, buckets[i], max);
		}
	fputc('\n', f);
}
