/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tep_safe.h - libtraceevent's tep_parse_event on an event format from a file
 * (perf.data's TRACING_DATA, trace.dat): formats sonde did not read from this
 * kernel's tracefs.
 */
#ifndef SONDE_TEP_SAFE_H
#define SONDE_TEP_SAFE_H

#include <stddef.h>

struct tep_handle;

/*
 * tep_parse_event(tep, buf, len, sys), except that a format whose print fmt makes
 * libtraceevent divide by zero returns -1 instead of ending sonde with SIGFPE:
 * libtraceevent 1.7 (Debian 12's) evaluates constant arithmetic in a print fmt
 * while parsing it ("x / 0", "x / (1 - 1)") without checking the divisor. 0 when
 * the parse ran (libtraceevent may still have refused the format: left out, as
 * perf and trace-cmd do), -1 for the division.
 */
int tep_safe__parse_event(struct tep_handle *tep, const char *buf, size_t len, const char *sys);

#endif
