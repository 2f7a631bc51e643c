// SPDX-License-Identifier: GPL-2.0
/*
 * mmapstorm.c - kernel lock contention with a known place: T threads of one
 * process map, touch and unmap memory for S seconds, so they queue on their
 * mm's mmap_lock (an rwsem: mmap and munmap take it for writing, the page
 * fault for reading).
 *
 *   mmapstorm [T [S [MS]]]    (default 4 threads, 1 second; after MS milliseconds, 0)
 *
 * The wait lets a tracer attach to the process before the storm starts. At
 * the end it says on stderr how many rounds of 100 maps the threads made:
 *   mmapstorm: R rounds in S s
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double secs = 1;
static long rounds[64];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *storm(void *arg)
{
	long me = (long)arg;
	double end = now() + secs;

	while (now() < end) {
		for (int i = 0; i < 100; i++) {
			char *p = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				exit(2);
			p[0] = 1;
			munmap(p, 1 << 16);
		}
		rounds[me]++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long nt = argc > 1 ? atol(argv[1]) : 4;
	pthread_t t[64];

	if (argc > 2)
		secs = atof(argv[2]);
	if (argc > 3)
		usleep(atol(argv[3]) * 1000);
	if (nt < 1 || nt > 64)
		return 1;
	for (long i = 0; i < nt; i++)
		if (pthread_create(&t[i], NULL, storm, (void *)i))
			return 1;
	long total = 0;

	for (long i = 0; i < nt; i++) {
		pthread_join(t[i], NULL);
		total += rounds[i];
	}
	fprintf(stderr, "mmapstorm: %ld rounds in %g s\n", total, secs);
	return 0;
}
