// SPDX-License-Identifier: GPL-2.0
/*
 * leaky - a known answer for `sonde memleak` and valgrind --leak-check:
 * leak_small() leaks 5 blocks of 100 bytes (500 bytes), leak_big() leaks
 * 3 blocks of 4096 bytes (12288 bytes) from calloc; every other allocation
 * (malloc, calloc, realloc, posix_memalign, aligned_alloc) is freed. Then it
 * sleeps MS milliseconds (argv[1], default 0) and exits, so a tracer sees the
 * leaks while the process still lives. With "wait" as argv[2] it reads a byte
 * from stdin first (a tracer attaches by -p meanwhile). PAIRS more malloc/free
 * pairs (argv[3]) make it allocation-heavy, for bench/memleak.sh.
 * usage: leaky [MS [wait|- [PAIRS]]]
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *keep[64];	/* the freed blocks stay reachable until they are freed */

static void *leak_small(void)
{
	return malloc(100);
}

static void *leak_big(void)
{
	return calloc(1, 4096);
}

static void churn(void)
{
	int n = 0;
	void *p;

	for (int i = 0; i < 10; i++)
		keep[n++] = malloc(24 + i);
	keep[n++] = calloc(8, 64);
	keep[n] = malloc(10);
	keep[n] = realloc(keep[n], 5000);
	n++;
	if (!posix_memalign(&p, 64, 256))
		keep[n++] = p;
	keep[n++] = aligned_alloc(128, 1024);
	for (int i = 0; i < n; i++)
		free(keep[i]);
}

int main(int argc, char **argv)
{
	static volatile int nsmall = 5, nbig = 3;	/* volatile: loops the compiler keeps, one call site each */
	volatile void *sink;
	long ms = argc > 1 ? atol(argv[1]) : 0;
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };
	char c;

	if (argc > 2 && !strcmp(argv[2], "wait") && read(0, &c, 1) != 1)
		return 1;

	for (int i = 0; i < nsmall; i++) {
		sink = leak_small();
		churn();
	}
	for (int i = 0; i < nbig; i++)
		sink = leak_big();
	for (long i = argc > 3 ? atol(argv[3]) : 0; i > 0; i--) {
		void *volatile p = malloc(64);

		free(p);
	}
	(void)sink;
	nanosleep(&ts, NULL);
	return 0;
}
