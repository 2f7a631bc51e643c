/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lock_print.h - `sonde lock`'s tables: kernel lock contention in perf lock
 * contention's layout (by caller, by thread with -t, by lock address with
 * -l), and user-space locks (futex waits, then pthread mutexes with their wait
 * and hold times, mutexsnoop's view). Stacks under each row with stacks set
 * (perf's -v). Writes to out; owns nothing.
 */
#ifndef SONDE_LOCK_PRINT_H
#define SONDE_LOCK_PRINT_H

#include <stdbool.h>
#include <stdio.h>

struct lock_result;
struct symbolizer;
struct kdata;

struct lock_print {
	int aggr;		/* enum lock_aggr */
	int entries;		/* rows per table; 0: all */
	bool stacks;		/* every frame under each row */
};

void lock_print__kern(FILE *out, struct symbolizer *sym, const struct kdata *kd, const struct lock_result *r,
		      const struct lock_print *po);
void lock_print__user(FILE *out, struct symbolizer *sym, const struct lock_result *r, const struct lock_print *po);
/* perf lock's time cell: "%*.2f us" and so on, len columns wide */
void lock_print__time(FILE *out, unsigned long long ns, int len);

#endif
