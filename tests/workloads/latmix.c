// SPDX-License-Identifier: GPL-2.0
/*
 * latmix.c - a latency distribution known in advance, for percentile tests:
 * raw nanosleep() calls in groups, COUNT:USEC each (USEC 0: a call that
 * returns at once), the groups in the order given.
 * usage: latmix 850:0 120:1200 30:50000   (p50 fast, p90 ~1.2ms, p99 ~50ms)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int a = 1; a < argc; a++) {
		long n, us;

		if (sscanf(argv[a], "%ld:%ld", &n, &us) != 2) {
			fprintf(stderr, "latmix: '%s' is not COUNT:USEC\n", argv[a]);
			return 2;
		}
		for (long i = 0; i < n; i++) {
			struct timespec ts = { us / 1000000, us % 1000000 * 1000L };

			if (syscall(SYS_nanosleep, &ts, NULL))
				return 1;
		}
	}
	return 0;
}
