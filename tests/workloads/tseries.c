// SPDX-License-Identifier: GPL-2.0
/*
 * tseries.c - workloads with known timing and known stacks for sonde probe's
 * tseries() and len(ustack) tests.
 * usage: tseries bursts MS N   for k = 1..N: waits for the next multiple of MS
 *                              milliseconds of CLOCK_REALTIME, then MS/4 more,
 *                              and makes k * 10 getppid() calls (so burst k
 *                              falls in the k-th interval of MS ms)
 * usage: tseries depth A B     calls getppid() from A nested calls of
 *                              recurse(), then from B: their user stacks
 *                              differ by B - A frames
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void wait_slot(long ms)
{
	struct timespec now, until;
	long long ns, step = ms * 1000000LL;

	clock_gettime(CLOCK_REALTIME, &now);
	ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
	ns = (ns / step + 1) * step + step / 4;
	until.tv_sec = ns / 1000000000LL;
	until.tv_nsec = ns % 1000000000LL;
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &until, NULL))
		;
}

__attribute__((noinline)) static long recurse(int n)
{
	long r;

	if (n <= 1)
		r = syscall(SYS_getppid);
	else
		r = recurse(n - 1);
	__asm__ volatile("" : : "r"(r) : "memory");	/* not a tail call */
	return r;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "bursts")) {
		long ms = atol(argv[2]), n = atol(argv[3]);

		for (long k = 1; k <= n; k++) {
			wait_slot(ms);
			for (long i = 0; i < k * 10; i++)
				syscall(SYS_getppid);
		}
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "depth")) {
		recurse(atoi(argv[2]));
		recurse(atoi(argv[3]));
		return 0;
	}
	fprintf(stderr, "usage: tseries bursts MS N | tseries depth A B\n");
	return 2;
}
