// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls.c - a deterministic syscall workload with known counts.
 * usage: syscalls N   makes exactly N getppid(), N openat()+close() of
 * /etc/hostname, N one-byte write()s to /dev/null, then exits 0.
 * usage: syscalls N EXIT  ... then exits with EXIT.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	int null = open("/dev/null", O_WRONLY);

	for (long i = 0; i < n; i++) {
		int fd;

		syscall(SYS_getppid);
		fd = open("/etc/hostname", O_RDONLY);
		if (fd >= 0)
			close(fd);
		if (write(null, "x", 1) != 1)
			return 2;
	}
	close(null);
	return argc > 2 ? atoi(argv[2]) : 0;
}
