// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu.c - a workload that blocks for known times in known functions, for
 * `sonde offcpu` tests: block_here() sleeps N x SLEEP_MS in nanosleep, then
 * wait_pipe() reads a pipe N x PIPE_MS that a feeder thread writes to after
 * sleeping PIPE_MS each time. With BURN_MS, burn_here() spins on CPU that long
 * before each sleep (for wall-clock profiles). At the end it prints to stderr the
 * time each function really took (CLOCK_MONOTONIC, so run-queue delays included):
 * "offcpu: block_here US us, wait_pipe US us, feeder US us, burn_here US us";
 * with BURN_MS also ", burn_on_cpu US us, burn_runnable US us, burn_slices N us":
 * burn_here's time on a CPU and waiting on a run queue, and how many times it
 * ran, as the kernel counts them (schedstat; N is a count, "us" only keeps the
 * line's one pattern).
 * With OFFCPU_SPLIT_US=N in the environment, also ", wait_pipe_short US us": the
 * pipe waits of at most N us, summed (for --min-block/--max-block tests).
 *
 *   offcpu [N [SLEEP_MS [PIPE_MS [BURN_MS]]]]    (default 10 100 50 0)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int n = 10, sleep_ms = 100, pipe_ms = 50, burn_ms;
static volatile unsigned long sink;
static int fds[2];
static double in_block, in_pipe, in_feeder, in_burn;	/* ms spent in each */
static double in_pipe_short, split_ms = -1;		/* pipe waits of at most split_ms */
static double burn_run, burn_wait, burn_slices;	/* burn_here: ms on a CPU, ms on a run queue, times run (schedstat) */

static double now_ms(void);

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* the kernel's own account of this thread: ms on a CPU, ms waiting on a run queue, times run */
__attribute__((noinline)) static void schedstat(double *run, double *wait, double *slices)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "re");
	unsigned long long r = 0, w = 0, n = 0;

	if (f) {
		if (fscanf(f, "%llu %llu %llu", &r, &w, &n) != 3)
			r = w = n = 0;
		fclose(f);
	}
	*run = r / 1e6;
	*wait = w / 1e6;
	*slices = n;
}

__attribute__((noinline)) void burn_here(int ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end)
		for (int i = 0; i < 10000; i++)
			sink += i;
	in_burn += now_ms() - end + ms;
}

__attribute__((noinline)) void block_here(int ms)
{
	double t = now_ms();

	msleep(ms);
	in_block += now_ms() - t;
}

__attribute__((noinline)) void wait_pipe(void)
{
	double t = now_ms();
	char c;

	if (read(fds[0], &c, 1) != 1)
		exit(2);
	t = now_ms() - t;
	in_pipe += t;
	if (t <= split_ms)
		in_pipe_short += t;
}

static void *feeder(void *arg)
{
	(void)arg;
	for (int i = 0; i < n; i++) {
		double t = now_ms();

		msleep(pipe_ms);
		in_feeder += now_ms() - t;
		if (write(fds[1], "x", 1) != 1)
			exit(2);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		n = atoi(argv[1]);
	if (argc > 2)
		sleep_ms = atoi(argv[2]);
	if (argc > 3)
		pipe_ms = atoi(argv[3]);
	if (argc > 4)
		burn_ms = atoi(argv[4]);
	if (getenv("OFFCPU_SPLIT_US"))
		split_ms = atof(getenv("OFFCPU_SPLIT_US")) / 1000;
	for (int i = 0; i < n; i++) {
		if (burn_ms) {
			/* read outside burn_here: its own time holds no schedstat() */
			double r0, w0, n0, r1, w1, n1;

			schedstat(&r0, &w0, &n0);
			burn_here(burn_ms);
			schedstat(&r1, &w1, &n1);
			burn_run += r1 - r0;
			burn_wait += w1 - w0;
			burn_slices += n1 - n0;
		}
		block_here(sleep_ms);
	}
	if (pipe(fds) || pthread_create(&t, NULL, feeder, NULL))
		return 1;
	for (int i = 0; i < n; i++)
		wait_pipe();
	pthread_join(t, NULL);
	fprintf(stderr, "offcpu: block_here %.0f us, wait_pipe %.0f us, feeder %.0f us, burn_here %.0f us",
		in_block * 1000, in_pipe * 1000, in_feeder * 1000, in_burn * 1000);
	if (split_ms >= 0)
		fprintf(stderr, ", wait_pipe_short %.0f us", in_pipe_short * 1000);
	if (burn_ms)
		fprintf(stderr, ", burn_on_cpu %.0f us, burn_runnable %.0f us, burn_slices %.0f us",
			burn_run * 1000, burn_wait * 1000, burn_slices);
	fprintf(stderr, "\n");
	return 0;
}
