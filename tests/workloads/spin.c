// SPDX-License-Identifier: GPL-2.0
/*
 * spin.c - burn CPU in T threads for S seconds, for attaching with -p/-t.
 * usage: spin SECONDS [THREADS]   (prints its pid, then "ready" once threads run)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double secs;
static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void spin_here(void)
{
	double end = now() + secs;

	while (now() < end)
		for (int i = 0; i < 100000; i++)
			sink += i;
}

static void *thread_fn(void *arg)
{
	(void)arg;
	spin_here();
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t th[64];

	secs = argc > 1 ? atof(argv[1]) : 1.0;
	if (nthreads > 64)
		nthreads = 64;
	for (int i = 1; i < nthreads; i++)
		pthread_create(&th[i], NULL, thread_fn, NULL);
	printf("%d ready\n", (int)getpid());
	fflush(stdout);
	spin_here();
	for (int i = 1; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return 0;
}
