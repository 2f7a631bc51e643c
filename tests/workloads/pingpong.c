// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong.c - a context-switch-heavy workload: two threads pass one byte back
 * and forth over two pipes N times, so each round trip blocks each thread once.
 * Prints the time the loop took, which tracers slow down.
 *
 *   pingpong [N]    (default 100000; prints "pingpong: N round trips in S s")
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static long n = 100000;

__attribute__((noinline)) static void pong_loop(void)
{
	char c;

	for (long i = 0; i < n; i++)
		if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
			exit(2);
}

static void *pong(void *arg)
{
	(void)arg;
	pong_loop();
	return NULL;
}

__attribute__((noinline)) static void ping_loop(void)
{
	char c = 'x';

	for (long i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			exit(2);
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	pthread_t t;

	if (argc > 1)
		n = atol(argv[1]);
	if (pipe(ab) || pipe(ba) || pthread_create(&t, NULL, pong, NULL))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	ping_loop();
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_join(t, NULL);
	printf("pingpong: %ld round trips in %.3f s\n", n, (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
