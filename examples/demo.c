// SPDX-License-Identifier: GPL-2.0
/*
 * demo.c - the bundled workload for `make demo` and the tests: a small "service"
 * whose costs are known in advance.
 *   - hot_loop()    burns CPU (about 60% of its on-CPU time) under main -> work -> hot_loop
 *   - warm_loop()   burns less (about 30%)            under main -> work -> warm_loop
 *   - cold_path()   a little                          under main -> work -> cold_path
 *   - it writes to /dev/null and opens /etc/hostname in a loop (syscalls)
 *   - it sleeps in nanosleep (blocked, off-CPU time) between rounds
 * usage: demo [SECONDS]   (default 2)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* each hot function runs its own loop, so the samples land in it (self time) */
#define SPIN(n) do {                                                        \
		unsigned long x_ = sink;                                    \
		for (unsigned long i_ = 0; i_ < (n); i_++)                  \
			x_ = x_ * 6364136223846793005UL + 1442695040888963407UL; \
		sink = x_;                                                  \
	} while (0)
/* an empty asm after a call keeps it from becoming a tail jump, so the caller
 * keeps its frame in sampled stacks */
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

__attribute__((noinline)) void hot_loop(void) { SPIN(6000000); }
__attribute__((noinline)) void warm_loop(void) { SPIN(3000000); }
__attribute__((noinline)) void cold_path(void) { SPIN(500000); }

__attribute__((noinline)) void do_io(void)
{
	char buf[64];
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	for (int i = 0; i < 50; i++) {
		int fd = open("/etc/hostname", O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf)) < 0)
				perror("read");
			close(fd);
		}
		if (null >= 0 && write(null, "x", 1) < 0)
			perror("write");
	}
	if (null >= 0)
		close(null);
}

__attribute__((noinline)) void work(void)
{
	hot_loop();
	warm_loop();
	cold_path();
	do_io();
	KEEP_FRAME();
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0, end = now() + secs;
	struct timespec nap = { 0, 5 * 1000 * 1000 };	/* 5 ms blocked per round */
	int rounds = 0;

	do {
		work();
		nanosleep(&nap, NULL);
		rounds++;
	} while (now() < end);
	printf("demo: %d rounds in %.1f s\n", rounds, secs);
	return 0;
}
