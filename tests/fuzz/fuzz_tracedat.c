// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_tracedat.c - `sonde ftrace report -i FILE` on outside bytes: the input
 * is a trace.dat, read by tracedat__report to the end (every line formatted,
 * then dropped). Errors are fine; crashes, leaks and hangs are not.
 */
#include <stdint.h>
#include <stddef.h>

#include "lib/tracefs/tracedat.h"

static int drop(const char *s, void *arg)
{
	(void)s;
	(void)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];

	tracedat__report(data, size, drop, NULL, err, sizeof(err));
	return 0;
}
