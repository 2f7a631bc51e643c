// SPDX-License-Identifier: GPL-2.0
/*
 * hist.c - BCC's and bpftrace's histogram layouts, reproduced from their
 * documented and observed output (see tests/unit/test_bpf_hist.c, whose
 * expected texts come from bpftrace 0.17 on this machine).
 */
#include "ui/hist.h"

#include <stdbool.h>
#include <string.h>

#include "lib/stats/percentile.h"

unsigned hist__log2_slot(uint64_t v)
{
	unsigned s = 0;

	while (v > 1) {
		v >>= 1;
		s++;
	}
	return s;
}

/* libbpf-tools: min(val, max) * width / max stars, padded with spaces to width ('+' when over) */
static void bcc_stars(FILE *f, uint64_t val, uint64_t max, int width)
{
	int n = max ? (int)((val < max ? val : max) * (unsigned __int128)width / max) : 0;

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

	fprintf(f, "%*s%-*s : count    distribution\n", wide ? 15 : 5, "", wide ? 29 : 19, val_type);
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

void hist__print_linear(FILE *f, const uint64_t *buckets, int n, int64_t base, int64_t step,
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
		if (!buckets[i])	/* as libbpf-tools: an empty step has no row (BCC Python's has) */
			continue;
		fprintf(f, "        %-10lld : %-8llu |", (long long)(base + i * step),
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

int hist__bt_nr_buckets(const struct hist_bt *h)
{
	if (h->linear)
		return h->step > 0 ? (int)((h->max - h->min) / h->step) + 2 : 0;
	return ((64 - h->k) << h->k) + 2;
}

/* n with bpftrace's K/M/G/T/P/E suffix where it is a multiple of a power of 1024 */
static void suffixed(char *buf, size_t len, long long n)
{
	static const char *sfx[] = { "", "K", "M", "G", "T", "P", "E" };
	int i = 0;
	bool neg = n < 0;
	unsigned long long u = neg ? -(unsigned long long)n : (unsigned long long)n;

	while (u >= 1024 && u % 1024 == 0 && i < 6) {
		u /= 1024;
		i++;
	}
	snprintf(buf, len, "%s%llu%s", neg ? "-" : "", u, sfx[i]);
}

static void log2_label(char *buf, size_t len, int b)
{
	char lo[32], hi[32];

	if (b == 0) {
		snprintf(buf, len, "(..., 0)");
	} else if (b == 1) {
		snprintf(buf, len, "[0]");
	} else if (b == 2) {
		snprintf(buf, len, "[1]");
	} else {
		suffixed(lo, sizeof(lo), 1LL << (b - 2));
		suffixed(hi, sizeof(hi), b - 1 >= 63 ? 0 : 1LL << (b - 1));
		snprintf(buf, len, "[%s, %s)", lo, b - 1 >= 63 ? "..." : hi);
	}
}

static void linear_label(char *buf, size_t len, int b, long long min, long long max, long long step)
{
	char lo[32], hi[32];
	long long nb = (max - min) / step;

	if (b == 0) {
		suffixed(lo, sizeof(lo), min);
		snprintf(buf, len, "(..., %s)", lo);
	} else if (b > nb) {
		suffixed(lo, sizeof(lo), max);
		snprintf(buf, len, "[%s, ...)", lo);
	} else {
		suffixed(lo, sizeof(lo), min + (b - 1) * step);
		suffixed(hi, sizeof(hi), min + b * step);
		snprintf(buf, len, "[%s, %s)", lo, hi);
	}
}

/* hist(n, k): where bucket index idx (> 2^k) starts: (2^k + its k low bits) << (idx >> k) - 1 */
static uint64_t histk_start(int idx, int k, int *power)
{
	int n = 1 << k, sub = idx & (n - 1);

	*power = (idx >> k) - 1;
	if (*power < 0 || *power > 63)	/* not a bucket a map can hold: no shift past 64 bits */
		*power = *power < 0 ? 0 : 63;
	return (uint64_t)(n + sub) << *power;
}

/* that start as bpftrace writes it: a multiple of its decade's K/M/G.. */
static void histk_bound(char *buf, size_t len, int idx, int k)
{
	int power, decade;

	histk_start(idx, k, &power);
	decade = power / 10;
	snprintf(buf, len, "%llu%s", (unsigned long long)((1ULL << (power - 10 * decade)) * ((1 << k) + (idx & ((1 << k) - 1)))),
		 decade ? (const char *[]){ "", "K", "M", "G", "T", "P", "E" }[decade > 6 ? 6 : decade] : "");
}

static void histk_label(char *buf, size_t len, int b, int k)
{
	char lo[32], hi[32];

	if (b == 0) {
		snprintf(buf, len, "(..., 0)");
	} else if (b <= 2 << k) {
		snprintf(buf, len, "[%d]", b - 1);
	} else {
		histk_bound(lo, sizeof(lo), b - 1, k);
		histk_bound(hi, sizeof(hi), b, k);
		snprintf(buf, len, "[%s, %s)", lo, hi);
	}
}

void hist__bt_label(const struct hist_bt *h, int b, char *buf, size_t len)
{
	if (h->linear)
		linear_label(buf, len, b, h->min, h->max, h->step);
	else if (h->k)
		histk_label(buf, len, b, h->k);
	else
		log2_label(buf, len, b);
}

unsigned hist__bt_range(const struct hist_bt *h, int b, long long *min, long long *max)
{
	int power;

	*min = 0;
	*max = -1;
	if (h->linear) {
		long long nb = (h->max - h->min) / h->step;

		if (b == 0) {
			*max = h->min - 1;
			return HIST_BT_MAX;
		}
		if (b > nb) {
			*min = h->max;
			return HIST_BT_MIN;
		}
		*min = h->min + (b - 1) * h->step;
		*max = h->min + b * h->step - 1;
	} else if (b == 0) {
		return HIST_BT_MAX;
	} else if (h->k && b > 2 << h->k) {
		*min = (long long)histk_start(b - 1, h->k, &power);
		*max = (long long)(histk_start(b, h->k, &power) - 1);
	} else if (h->k || b < 3) {
		*min = *max = b - 1;
	} else {
		*min = (long long)(1ULL << (b - 2));
		*max = (long long)((b - 1 >= 64 ? 0 : 1ULL << (b - 1)) - 1);
	}
	return HIST_BT_MIN | HIST_BT_MAX;
}

void hist__bt_bar(char *buf, size_t len, unsigned long long v, unsigned long long max)
{
	int w = max ? (int)((float)v / (float)max * 52) : 0;

	if (w > 52)
		w = 52;
	if (len < 53)
		return;
	memset(buf, '@', w);
	memset(buf + w, ' ', 52 - w);
	buf[52] = 0;
}

/* the first and last non-empty buckets (lo < 0: none), and the largest count */
static void span(const uint64_t *b, int n, int *lo, int *hi, uint64_t *max)
{
	*lo = *hi = -1;
	*max = 0;
	for (int i = 0; i < n; i++)
		if (b[i]) {
			if (*lo < 0)
				*lo = i;
			*hi = i;
			if (b[i] > *max)
				*max = b[i];
		}
}

void hist__print_bt(FILE *f, const struct hist_bt *h, const uint64_t *buckets, int n, uint64_t div)
{
	int lo, hi;
	uint64_t max;
	char label[64], bar[64];

	span(buckets, n, &lo, &hi, &max);
	for (int b = lo; lo >= 0 && b <= hi; b++) {
		uint64_t v = div > 1 ? buckets[b] / div : buckets[b];

		hist__bt_label(h, b, label, sizeof(label));
		hist__bt_bar(bar, sizeof(bar), buckets[b], max);
		fprintf(f, "%-16s%8llu |%s|\n", label, (unsigned long long)v, bar);
	}
}

void hist__print_bt_json(FILE *f, const struct hist_bt *h, const uint64_t *buckets, int n)
{
	int lo, hi;
	uint64_t max;

	span(buckets, n, &lo, &hi, &max);
	fputc('[', f);
	for (int b = lo; lo >= 0 && b <= hi; b++) {
		long long mn, mx;
		unsigned has = hist__bt_range(h, b, &mn, &mx);

		fputs(b > lo ? ", {" : "{", f);
		if (has & HIST_BT_MIN)
			fprintf(f, "\"min\": %lld, ", mn);
		if (has & HIST_BT_MAX)
			fprintf(f, "\"max\": %lld, ", mx);
		fprintf(f, "\"count\": %llu}", (unsigned long long)buckets[b]);
	}
	fputc(']', f);
}

static void bt_range(void *ctx, int b, int64_t *lo, int64_t *hi)
{
	long long mn, mx;
	unsigned has = hist__bt_range(ctx, b, &mn, &mx);

	*lo = has & HIST_BT_MIN ? mn : INT64_MIN;
	*hi = has & HIST_BT_MAX ? mx : INT64_MAX;
}

void hist__fmt_ns(char *buf, size_t len, uint64_t ns)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	double x = (double)ns;
	int u = 0;

	while (x >= 999.5 && u < 3) {
		x /= 1000;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%llu%s", (unsigned long long)ns, unit[u]);
	else
		snprintf(buf, len, "%.*f%s", x < 9.995 ? 2 : x < 99.95 ? 1 : 0, x, unit[u]);
}

static size_t num_text(char *buf, size_t len, int64_t v, uint64_t unit_ns)
{
	if (unit_ns && v >= 0)
		hist__fmt_ns(buf, len, (uint64_t)v * unit_ns);
	else
		snprintf(buf, len, "%lld", (long long)v);
	return strlen(buf);
}

/*
 * a percentile's text: the value (a duration when unit_ns); in a bucket
 * open above (lhist's last), "lo..max" or ">=lo" without a max; in one open
 * below (the negatives, lhist's first), "<=value": no bound holds there
 */
static void pctl_text(char *buf, size_t len, const struct pctl *p, uint64_t unit_ns)
{
	size_t n = 0;

	if (p->above) {
		if (p->open)
			n = (size_t)snprintf(buf, len, ">=");
		n += num_text(buf + n, len - n, p->lo, unit_ns);
		if (!p->open && n + 2 < len && p->value != p->lo) {
			memcpy(buf + n, "..", 3);
			num_text(buf + n + 2, len - n - 2, p->value, unit_ns);
		}
		return;
	}
	if (p->below)
		n = (size_t)snprintf(buf, len, "<=");
	num_text(buf + n, len - n, p->value, unit_ns);
}

static const struct { double q; const char *name; } pctl_qs[] = {
	{ 50, "p50" }, { 90, "p90" }, { 99, "p99" }, { 99.9, "p999" }, { 100, "max" },
};

void hist__print_log2_percentiles(FILE *f, const uint64_t *slots, int n, int64_t max, uint64_t unit_ns)
{
	char v[40];

	for (unsigned i = 0; i < sizeof(pctl_qs) / sizeof(pctl_qs[0]); i++) {
		struct pctl p;

		if (pctl__compute(slots, n, pctl__log2_range, NULL, max, pctl_qs[i].q, &p))
			return;
		if (pctl_qs[i].q == 100 && max != PCTL_NO_MAX)	/* the exact max as it is */
			num_text(v, sizeof(v), max, unit_ns);
		else
			pctl_text(v, sizeof(v), &p, unit_ns);
		fprintf(f, "%s %s  ", pctl_qs[i].name, v);
	}
	fprintf(f, "(log2 buckets: each pNN is at most 2x the true value, never below it)\n");
}

void hist__bt_percentile_text(char *buf, size_t len, const struct hist_bt *h, const uint64_t *buckets, int n,
			       int64_t max, double q)
{
	struct pctl p;

	if (pctl__compute(buckets, n, bt_range, (void *)h, max, q, &p)) {
		snprintf(buf, len, "0");	/* no sample: 0, as HdrHistogram says */
		return;
	}
	if (q == 100 && max != PCTL_NO_MAX)
		num_text(buf, len, max, 0);
	else
		pctl_text(buf, len, &p, 0);
}

int64_t hist__bt_percentile(const struct hist_bt *h, const uint64_t *buckets, int n, int64_t max, double q)
{
	struct pctl p;

	if (pctl__compute(buckets, n, bt_range, (void *)h, max, q, &p))
		return 0;
	return q == 100 && max != PCTL_NO_MAX ? max : p.open ? p.lo : p.value;
}

void hist__print_bt_percentiles(FILE *f, const struct hist_bt *h, const uint64_t *buckets, int n, int64_t max)
{
	char v[40];

	for (unsigned i = 0; i < sizeof(pctl_qs) / sizeof(pctl_qs[0]); i++) {
		struct pctl p;

		if (pctl__compute(buckets, n, bt_range, (void *)h, max, pctl_qs[i].q, &p))
			return;
		if (pctl_qs[i].q == 100 && max != PCTL_NO_MAX)
			num_text(v, sizeof(v), max, 0);
		else
			pctl_text(v, sizeof(v), &p, 0);
		fprintf(f, "%s %s  ", pctl_qs[i].name, v);
	}
	if (h->linear)
		fprintf(f, "(linear buckets: each pNN is less than %lld above the true value, never below it)\n",
			h->step);
	else if (h->k)
		fprintf(f, "(hist k=%d buckets: each pNN is at most %gx the true value, never below it)\n", h->k,
			1.0 + 1.0 / (1 << h->k));
	else
		fprintf(f, "(log2 buckets: each pNN is at most 2x the true value, never below it)\n");
}
