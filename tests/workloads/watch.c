// SPDX-License-Identifier: GPL-2.0
/*
 * watch.c - memory writes a watchpoint test can count exactly.
 *   watch fixed N   write the 8 bytes at 0x10000000 (mapped there) N times
 *   watch func N    call bump(0, p) N times: each adds 1 to *p (p from malloc),
 *                   so watchpoint:bump+arg1:8:w sees N writes
 *   watch read N    read the 8 bytes at 0x10000000 N times (no writes after the first)
 * Prints the sum it ends with, so the writes cannot be optimized away.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define FIXED ((void *)0x10000000UL)

__attribute__((noinline)) void bump(int unused, volatile long *p)
{
	(void)unused;
	(*p)++;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 10, sum = 0;
	const char *mode = argc > 1 ? argv[1] : "fixed";

	if (!strcmp(mode, "func")) {
		volatile long *p = malloc(sizeof(*p));

		if (!p)
			return 1;
		*p = 0;
		for (long i = 0; i < n; i++)
			bump(0, p);
		sum = *p;
	} else {
		volatile long *p = mmap(FIXED, 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (p == MAP_FAILED || (void *)p != FIXED) {
			perror("mmap 0x10000000");
			return 1;
		}
		if (!strcmp(mode, "read")) {
			for (long i = 0; i < n; i++)
				sum += *p;
		} else {
			for (long i = 0; i < n; i++)
				*p = i + 1;
			sum = *p;
		}
	}
	printf("%ld\n", sum);
	return 0;
}
