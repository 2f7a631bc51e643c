// SPDX-License-Identifier: GPL-2.0
/*
 * spiky.c - the flight recorder's known answer: thousands of fast reads and,
 * now and then, a slow one in a known function.
 * usage: spiky SECONDS PERIOD_MS SPIKE_MS [FAST_PER_MS [SLOW_COUNT]]
 *   Runs SECONDS, on CPU all along: each millisecond FAST_PER_MS (default 50)
 *   reads of one byte of /dev/zero, then a spin to the next millisecond. Every
 *   PERIOD_MS, spike(): spike_compute() spins 50 ms, then spike_read() reads a
 *   pipe that a thread writes SPIKE_MS later, SLOW_COUNT times (default 1).
 *   Each slow read prints "slow read N: M ms" on stdout when it returns; at
 *   the end "spiky: N fast reads in S s" (bench/flight.sh's throughput).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int zero_fd, pipe_fd[2];
static long spike_ms, nr_fast;
static volatile unsigned long sink;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void spin_until(double t)
{
	while (now_ms() < t)
		sink++;
}

__attribute__((noinline)) void fast_reads(int n)
{
	char c;

	for (int i = 0; i < n; i++)
		if (read(zero_fd, &c, 1) != 1)
			exit(1);
	nr_fast += n;
}

static void *late_writer(void *arg)
{
	struct timespec ts = { spike_ms / 1000, spike_ms % 1000 * 1000000L };

	(void)arg;
	nanosleep(&ts, NULL);
	if (write(pipe_fd[1], "x", 1) != 1)
		exit(1);
	return NULL;
}

__attribute__((noinline)) void spike_compute(void)
{
	spin_until(now_ms() + 50);
}

/*
 * A read that waits spike_ms for its byte. The syscall instruction is here,
 * not in libc's read(): a frame-pointer walk loses the caller of a leaf
 * without a frame, and the known function must be in the stack.
 */
__attribute__((noinline)) double spike_read(void)
{
	pthread_t th;
	double t0 = now_ms();
	char c;
	long ret;

	if (pthread_create(&th, NULL, late_writer, NULL))
		exit(1);
#if defined(__x86_64__)
	__asm__ volatile("syscall" : "=a"(ret) : "0"(0L /* SYS_read */), "D"((long)pipe_fd[0]), "S"(&c), "d"(1L)
			 : "rcx", "r11", "memory");
#else
	ret = read(pipe_fd[0], &c, 1);
#endif
	if (ret != 1)
		exit(1);
	pthread_join(th, NULL);
	return now_ms() - t0;
}

__attribute__((noinline)) void spike(int slow, int *nr)
{
	spike_compute();
	for (int i = 0; i < slow; i++) {
		double ms = spike_read();

		printf("slow read %d: %.0f ms\n", ++*nr, ms);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10, period = argc > 2 ? atof(argv[2]) : 3000;
	int fast = argc > 4 ? atoi(argv[4]) : 50, slow = argc > 5 ? atoi(argv[5]) : 1, nr = 0;
	double t0 = now_ms(), next_spike = t0 + period, t;

	spike_ms = argc > 3 ? atol(argv[3]) : 200;
	zero_fd = open("/dev/zero", O_RDONLY);
	if (zero_fd < 0 || pipe(pipe_fd))
		return 1;
	for (t = t0; t < t0 + seconds * 1e3; t = now_ms()) {
		if (t >= next_spike) {
			spike(slow, &nr);
			next_spike += period;
			continue;
		}
		fast_reads(fast);
		spin_until(t + 1);
	}
	printf("spiky: %ld fast reads in %.2f s\n", nr_fast, (now_ms() - t0) / 1e3);
	return 0;
}
