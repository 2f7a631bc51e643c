/* SPDX-License-Identifier: GPL-2.0 */
/*
 * use_print.h - `sonde use`'s renderers: the USE report as text or JSON, and the
 * vmstat-like interval rows (-I). They only read the report, which stays the
 * caller's, and return nothing to own.
 */
#ifndef SONDE_USE_PRINT_H
#define SONDE_USE_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/proc/use.h"

/* the full report: per resource U/S/E, the flags with their next commands, what was not read */
void use_print__text(FILE *f, const struct use_report *r, bool per_cpu);
/* the same as one JSON object on one line; t >= 0 adds "time" (interval mode) */
void use_print__json(FILE *f, const struct use_report *r, double t);

/* interval mode: the column header, and one row per report (t: seconds since the start) */
void use_print__row_header(FILE *f);
void use_print__row(FILE *f, const struct use_report *r, double t);

#endif
