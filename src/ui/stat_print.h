/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stat_print.h - `sonde stat`'s renderers: perf stat's text layout, its -x CSV
 * and its --json lines, from a stat_model. Nothing here counts anything, and
 * nothing returned is to own: the model stays the caller's, the separator
 * stat_print__thousands_sep() gives is the locale's.
 */
#ifndef SONDE_STAT_PRINT_H
#define SONDE_STAT_PRINT_H

#include <stdio.h>

#include "lib/event/statmodel.h"

enum stat_format { STAT_STD, STAT_CSV, STAT_JSON };

struct stat_print {
	FILE *out;
	enum stat_format fmt;
	const char *sep;	/* for STAT_CSV */
	int runs;		/* -r; noise shown when > 1 */
	const char *thousands;	/* the locale's thousands separator for the text layout, or NULL */
	bool no_scale;		/* --no-scale: raw counts, not scaled by the running share */
};

/* "\n Performance counter stats for 'ls -l' (3 runs):\n\n" (text layout only) */
void stat_print__header(const struct stat_print *p, const char *what, int runs);
/* the "#           time ..." line above interval rows */
void stat_print__interval_header(const struct stat_print *p, enum stat_aggr aggr);
/* every row of the model; ts < 0 outside interval mode */
void stat_print__rows(const struct stat_print *p, const struct stat_model *m, double ts);
/* elapsed, and user/sys when ru_valid */
void stat_print__footer(const struct stat_print *p, const struct stat_model *m,
			bool ru_valid, double user_s, double sys_s);

/* this locale's thousands separator (LC_NUMERIC, as perf's %' follows it; "" in C), for thousands */
const char *stat_print__thousands_sep(void);

#endif
