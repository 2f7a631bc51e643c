// SPDX-License-Identifier: GPL-2.0
/*
 * threads.c - create exactly N threads with pthread_create(), each running
 * thread_worker() (a known start routine for threadsnoop), join them, then
 * stay MS milliseconds (a tracer names the start routine from the live
 * process's maps), exit 0.
 * usage: threads N [MS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void *thread_worker(void *arg)
{
	sink += (unsigned long)arg;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;

	for (long i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, thread_worker, (void *)i)) {
			perror("pthread_create");
			return 1;
		}
		pthread_join(t, NULL);
	}
	if (argc > 2)
		usleep(atoi(argv[2]) * 1000);
	return 0;
}
