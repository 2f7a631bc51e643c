/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist.h - histograms printed exactly as the tools people know print them:
 * BCC's log2 and linear histograms (biolatency, runqlat...) and bpftrace's
 * hist() and lhist() (the language's maps print with these). The caller owns
 * the bucket arrays and buffers; nothing is allocated.
 */
#ifndef SONDE_UI_HIST_H
#define SONDE_UI_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* BCC's log2 slot of v: 0 holds 0 and 1, slot i (i >= 1) holds [2^i, 2^(i+1)) */
unsigned hist__log2_slot(uint64_t v);

/*
 * libbpf-tools' print_log2_hist: "     usecs               : count    distribution",
 * then one row per slot from 0 up to the last non-empty one, "low -> high : count |***|"
 * (40 stars; past slot 32, wider columns and 20 stars). Prints nothing when every
 * slot is empty.
 */
void hist__print_log2(FILE *f, const uint64_t *slots, int n, const char *val_type);

/*
 * libbpf-tools' print_linear_hist (runqlen): "     runqlen       : count     distribution",
 * then a row base + i*step for each non-empty bucket
 */
void hist__print_linear(FILE *f, const uint64_t *buckets, int n, int64_t base, int64_t step,
			const char *val_type);

/* bpftrace's hist() bucket of v: 0 negative, 1 zero, 2 one, k >= 3 [2^(k-2), 2^(k-1)) */
unsigned hist__bt_slot(int64_t v);

/* a bpftrace histogram's buckets: hist(v, k) (linear false) or lhist(v, min, max, step) */
struct hist_bt {
	bool linear;
	int k;				/* hist: each power of two split in 2^k buckets (0 to 5) */
	long long min, max, step;	/* lhist */
};

/*
 * how many buckets the map holds: hist ((64 - k) << k) + 2, lhist
 * (max - min) / step + 2 (below min, the steps, max and above)
 */
int hist__bt_nr_buckets(const struct hist_bt *h);

/* bucket b's label: "(..., 0)", "[0]", "[4, 8)", "[1K, 2K)", "[100, ...)" */
void hist__bt_label(const struct hist_bt *h, int b, char *buf, size_t len);
/*
 * the values bucket b holds, as -f json gives them: HIST_BT_MIN and/or
 * HIST_BT_MAX say which of *min, *max there are (the first bucket has only a
 * max, lhist's last only a min)
 */
enum { HIST_BT_MIN = 1, HIST_BT_MAX = 2 };
unsigned hist__bt_range(const struct hist_bt *h, int b, long long *min, long long *max);
/* bpftrace's bar: v / max of 52 '@', padded with spaces; buf holds 53 */
void hist__bt_bar(char *buf, size_t len, unsigned long long v, unsigned long long max);

/*
 * bpftrace 0.17's rows "[lo, hi)   count |@@@@|" (16-wide labels, 8-wide
 * counts, 52-wide bars) from the first to the last non-empty bucket; counts
 * are shown divided by div (bars are not). The "@name[key]:" line before and
 * the blank line after are the caller's.
 */
void hist__print_bt(FILE *f, const struct hist_bt *h, const uint64_t *buckets, int n, uint64_t div);
/*
 * sonde probe --percentiles: the line under a histogram, "p50 N  p90 N  p99 N
 * p999 N  max N  (BOUND)", each pNN its bucket's highest value lowered to max
 * (lib/stats/percentile.h), max the exact largest value or PCTL_NO_MAX (then
 * the last bucket's end); BOUND says how far a pNN can be from the truth
 */
void hist__print_bt_percentiles(FILE *f, const struct hist_bt *h, const uint64_t *buckets, int n, int64_t max);
/* percentile q of those buckets as a number: the value, lo when it is only "at least lo"; 0 without samples */
int64_t hist__bt_percentile(const struct hist_bt *h, const uint64_t *buckets, int n, int64_t max, double q);
/* percentile q of those buckets as the line writes it ("2047", "10..12345", "<=-3"; "0" without samples) */
void hist__bt_percentile_text(char *buf, size_t len, const struct hist_bt *h, const uint64_t *buckets, int n,
			       int64_t max, double q);
/*
 * the same line under BCC's log2 slots (slot 0 [0, 1], i [2^i, 2^(i+1))):
 * values times unit_ns shown as durations ("65.5us", "2.10ms"), or plain
 * numbers when unit_ns is 0; max in the slots' unit, or PCTL_NO_MAX
 */
void hist__print_log2_percentiles(FILE *f, const uint64_t *slots, int n, int64_t max, uint64_t unit_ns);
/* ns as "850ns", "2.05us", "50.1ms", "1.20s": three significant digits */
void hist__fmt_ns(char *buf, size_t len, uint64_t ns);
/* the same buckets as bpftrace's -f json array: [{"min": .., "max": .., "count": ..}, ...] */
void hist__print_bt_json(FILE *f, const struct hist_bt *h, const uint64_t *buckets, int n);

#endif
