/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist.h - histograms printed exactly as the tools people know print them:
 * BCC's log2 and linear histograms (biolatency, runqlat...) and bpftrace's
 * hist() and lhist(). The caller owns the bucket arrays; nothing is allocated.
 */
#ifndef SONDE_UI_HIST_H
#define SONDE_UI_HIST_H

#include <stdint.h>
#include <stdio.h>

/* BCC's log2 slot of v: 0 holds 0 and 1, slot i (i >= 1) holds [2^i, 2^(i+1)) */
unsigned hist__log2_slot(uint64_t v);

/*
 * BCC's print_log2_hist: "     usecs               : count     distribution",
 * then one row per slot up to the last non-empty one, "low -> high : count |***|".
 * Prints nothing when every slot is empty.
 */
void hist__print_log2(FILE *f, const uint64_t *slots, int n, const char *val_type);

/* BCC's print_linear_hist: rows base + i*step from the first to the last non-empty bucket */
void hist__print_linear(FILE *f, const uint64_t *buckets, int n, uint64_t base, uint64_t step,
			const char *val_type);

/* bpftrace's hist() bucket of v: 0 negative, 1 zero, 2 one, k >= 3 [2^(k-2), 2^(k-1)) */
unsigned hist__bt_slot(int64_t v);

/*
 * bpftrace's hist() output for map `name` (with its key, e.g. "@usecs[bash]"):
 * "@name: " (0.17's trailing space), rows "[lo, hi)   count |@@@@|" from the
 * first to the last non-empty bucket, then a blank line.
 */
void hist__print_bt(FILE *f, const char *name, const uint64_t *buckets, int n);

/*
 * bpftrace's lhist(v, min, max, step) output: buckets[0] is (..., min),
 * buckets[1 + i] is [min + i*step, min + (i+1)*step), buckets[last] is [max, ...);
 * n = (max - min) / step + 2. Empty buckets at both ends are left out.
 */
void hist__print_bt_linear(FILE *f, const char *name, const uint64_t *buckets, int n,
			   int64_t min, int64_t max, int64_t step);

#endif
