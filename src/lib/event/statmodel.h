/* SPDX-License-Identifier: GPL-2.0 */
/*
 * statmodel.h - the counts `sonde stat` shows, apart from how they are shown:
 * one cell per event and per aggregation unit (everything, a CPU, a thread),
 * with running statistics across -r repeats, and the derived metrics perf
 * prints in its '#' column. The model owns its arrays; statmodel__free().
 */
#ifndef SONDE_STATMODEL_H
#define SONDE_STATMODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/event/counter.h"
#include "lib/event/event.h"

/* Welford's running mean and variance */
struct runstat {
	double n, mean, m2;
};
void runstat__add(struct runstat *s, double x);
/* standard deviation of the mean, as perf's stddev_stats() */
double runstat__stddev_mean(const struct runstat *s);
/* that, in percent of the mean (0 when the mean is 0) */
double runstat__rel_pct(const struct runstat *s);

enum stat_aggr {
	AGGR_GLOBAL,
	AGGR_CPU,	/* -A: one unit per CPU */
	AGGR_THREAD,	/* --per-thread: one unit per thread */
};

struct stat_cell {
	double val;		/* scaled count; < 0 when the event never ran */
	uint64_t ena, run;
	struct runstat rs;	/* across repeats */
};

struct stat_model {
	struct evlist *evl;
	enum stat_aggr aggr;
	int nr_units;
	int *unit_id;		/* CPU number or tid */
	char **unit_label;	/* "CPU0", "sleep-2521" */
	struct stat_cell *cell;	/* [ev * nr_units + unit] */
	bool *supported;	/* per event */
	double wall_ns;		/* the period counted (the interval in -I) */
	struct runstat wall;	/* elapsed ns across repeats */
	int runs;
};

/* shape the model for counters c (units follow c's slots for -A/--per-thread) */
int statmodel__init(struct stat_model *m, struct evlist *evl, const struct counters *c,
		    enum stat_aggr aggr);
/* take the counts (delta since the last read when delta) into the cells */
void statmodel__take(struct stat_model *m, const struct counters *c, bool delta, bool accumulate);
void statmodel__free(struct stat_model *m);

struct stat_metric {
	bool has;
	double value;
	const char *fmt;	/* printf format for value: "%8.3f" */
	char unit[40];		/* "CPUs utilized", "K/sec", "of all branches" */
};

/* the '#' column for event ev in unit u, as perf-stat's shadow metrics */
void statmodel__metric(const struct stat_model *m, int ev, int u, struct stat_metric *out);

#endif
