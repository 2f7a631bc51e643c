// SPDX-License-Identifier: GPL-2.0
/* diag.c - how sonde speaks to the user on stderr: errors, warnings, hints, debug */
#include "sonde.h"

#include <stdarg.h>
#include <stdio.h>

int verbose;

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("sonde: ", fmt, ap);
	va_end(ap);
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("sonde: warning: ", fmt, ap);
	va_end(ap);
}

void hint(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("hint: ", fmt, ap);
	va_end(ap);
}

void debug(int level, const char *fmt, ...)
{
	va_list ap;

	if (verbose < level)
		return;
	va_start(ap, fmt);
	vreport("sonde: debug: ", fmt, ap);
	va_end(ap);
}
