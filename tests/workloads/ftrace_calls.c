// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_calls.c - a user function called a known number of times, for uprobe tests.
 * usage: ftrace_calls N   calls tick(i) N times and tock() once, then exits 0.
 */
#include <stdio.h>
#include <stdlib.h>

volatile long sink;

__attribute__((noinline)) long tick(long i)
{
	sink += i;
	return sink;
}

__attribute__((noinline)) void tock(void)
{
	sink = 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;

	for (long i = 0; i < n; i++)
		tick(i);
	tock();
	return 0;
}
