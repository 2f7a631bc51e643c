/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_print.h - `sonde sched`'s renderers: perf sched latency's table and
 * perf sched timehist's lines, column for column as perf 6.1 prints them.
 * They only read the engine's results (lib/sched/sched.h), which stay the
 * caller's, and return nothing to own.
 */
#ifndef SONDE_SCHED_PRINT_H
#define SONDE_SCHED_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/sched/sched.h"

/* the table, its TOTAL line and perf's INFO lines */
void sched_print__latency(FILE *out, const struct sched_lat *l);
/*
 * latency --hist: per row of the table, in its order, runqlat's histogram of
 * the delays in usecs after "pid = TID COMM" (per_pid) or "comm = COMM (N
 * tasks)", and its percentile line
 */
void sched_print__latency_hist(FILE *out, const struct sched_lat *l, bool per_pid);

struct sched_th_print {
	FILE *out;
	int comm_width;		/* grows with the longest task name, as perf's does */
	const int *max_cpu;	/* the engine's: -V prints max_cpu + 1 columns */
	bool visual, state, wakeups, next;
};

/* the three header lines; comm_width starts at 30 */
void sched_print__th_header(struct sched_th_print *p);
/* one line; a sched_th__run() callback (ctx: struct sched_th_print); returns 0 */
int sched_print__th_line(const struct sched_th_line *l, void *ctx);

/* timehist -s/-S: perf's "Runtime summary", its terminated tasks, idle stats and totals */
void sched_print__th_summary(struct sched_th_print *p, const struct sched_th_summary *s);

/* perf sched replay's counts and its task list (what comes before the rounds) */
void sched_print__replay_head(FILE *out, const struct sched_replay_calib *c, const struct sched_replay *rp);
/* one round: "#1  : 2121.586, ravg: 2121.59, cpu: 133.49 / 133.49" (averages over repeat rounds, as perf's) */
struct sched_replay_avg {
	unsigned long nr_runs;
	uint64_t run_avg, cpu_avg;
};
void sched_print__replay_round(FILE *out, struct sched_replay_avg *a, unsigned repeat, uint64_t wall, uint64_t cpu);

/* one line of perf sched map; a sched_map__run() callback (ctx: the FILE *); returns 0 */
int sched_print__map_line(const struct sched_map_line *l, void *ctx);

#endif
