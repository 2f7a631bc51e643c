/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tep_safe.h - libtraceevent's parsers on input from a file (perf.data's
 * TRACING_DATA, trace.dat): event formats and printk formats sonde did not read
 * from this kernel's tracefs. What they parse belongs to the tep handle, freed
 * with it (tep_free).
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
 * perf and trace-cmd do), -1 for the division. A format 1.7 would read past the
 * end of (a NUL in it, or a field's "[" not closed on its line) is not parsed:
 * left out too, 0.
 */
int tep_safe__parse_event(struct tep_handle *tep, const char *buf, size_t len, const char *sys);

/*
 * tep_parse_printk_formats(tep, text) on the lines of text it reads within bounds:
 * libtraceevent 1.7 reads past a line "ADDR" with no ':' or nothing after it, and
 * before a format shorter than 3 characters (it looks for a closing "\n" at its end
 * minus 2). Those lines name no format anyway: they are left out.
 */
void tep_safe__parse_printk_formats(struct tep_handle *tep, const char *text);

#endif
