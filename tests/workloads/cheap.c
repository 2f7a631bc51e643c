// SPDX-License-Identifier: GPL-2.0
/*
 * cheap.c - the cheapest syscalls, for measuring what a tracer adds per call.
 * usage: cheap N   makes N/2 raw getppid() (glibc cannot cache it) and N/2
 * one-byte write()s to /dev/null, then prints the loop's own time in seconds
 * (CLOCK_MONOTONIC, start-up of any tracer left out) on stdout.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	int fd = open("/dev/null", O_WRONLY);
	struct timespec a, b;

	if (fd < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n / 2; i++) {
		syscall(SYS_getppid);
		if (write(fd, "x", 1) != 1)
			return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.6f\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
