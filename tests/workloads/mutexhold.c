// SPDX-License-Identifier: GPL-2.0
/*
 * mutexhold.c - two threads contend one pthread mutex with a known answer:
 * each takes the mutex N times, holds it MS milliseconds (asleep), lets it go
 * and rests a millisecond, so the other thread waits for it. Each thread times
 * its own pthread_mutex_lock calls; the totals are printed at the end:
 *
 *   mutexhold [N [MS]]    (default 20, 10)
 *   mutexhold: mutex 0x... locks 40 wait_ns W hold_ns H
 *
 * The mutex is taken in hold_it(), called from worker(): the caller a lock
 * tracer should name. Once the threads are done, main() takes it once more
 * with pthread_mutex_trylock (the 2N+1st acquisition, which does not wait).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static long n = 20, ms = 10;
static long long wait_ns[2], hold_ns[2];

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void nap(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	while (nanosleep(&ts, &ts))
		;
}

__attribute__((noinline)) static void hold_it(int me)
{
	long long t0 = now_ns(), t1;

	pthread_mutex_lock(&mutex);
	t1 = now_ns();
	wait_ns[me] += t1 - t0;
	nap(ms * 1000000L);
	hold_ns[me] += now_ns() - t1;
	pthread_mutex_unlock(&mutex);
}

static void *worker(void *arg)
{
	int me = (int)(long)arg;

	for (long i = 0; i < n; i++) {
		hold_it(me);
		nap(1000000L);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc > 1)
		n = atol(argv[1]);
	if (argc > 2)
		ms = atol(argv[2]);
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (pthread_mutex_trylock(&mutex))
		return 1;
	pthread_mutex_unlock(&mutex);
	printf("mutexhold: mutex %p locks %ld wait_ns %lld hold_ns %lld\n", (void *)&mutex, 2 * n,
	       wait_ns[0] + wait_ns[1], hold_ns[0] + hold_ns[1]);
	return 0;
}
