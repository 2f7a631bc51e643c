// SPDX-License-Identifier: GPL-2.0
/*
 * kernthenuser.c - CPU time first in the kernel, then in user code, for the
 * srcline tests: in_kernel() reads /dev/zero 16 MiB at a time under 33 nested
 * calls of nest(), so this program's frames fill the call chains while the
 * samples land in the kernel (or in libc's read, where a sample taken in the
 * kernel is often delivered: not in this program), then in_user() spins in a
 * loop of its own. perf 6.1 asks addr2line for the absolute addresses of those
 * frames and gives up on the program after 123 failures, within the first
 * samples: its report then shows in_user's samples as "in_user+OFFSET", not as
 * a line of this file.
 * usage: kernthenuser [KERNEL_SECONDS [USER_SECONDS]]   (of CPU time; default 0.3 0.3)
 */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static char buf[1 << 24];

/* CPU time: on a busy machine the phases still get their samples */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void in_kernel(double secs)
{
	double end = now() + secs;
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		exit(1);
	while (now() < end)	/* the clock is a syscall too: asked once per 8 reads */
		for (int i = 0; i < 8; i++)
			if (read(fd, buf, sizeof(buf)) < 0)
				exit(1);
	close(fd);
}

/* fn after depth nested calls: this program's frames fill the stacks */
__attribute__((noinline)) void nest(int depth, void (*fn)(double), double secs)
{
	if (depth > 0)
		nest(depth - 1, fn, secs);
	else
		fn(secs);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

__attribute__((noinline)) void in_user(double secs)
{
	double end = now() + secs;
	unsigned long x = sink;

	while (now() < end)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

int main(int argc, char **argv)
{
	nest(32, in_kernel, argc > 1 ? atof(argv[1]) : 0.3);
	in_user(argc > 2 ? atof(argv[2]) : 0.3);
	__asm__ volatile("" ::: "memory");	/* no tail call: main stays in the stacks */
	return 0;
}
