// SPDX-License-Identifier: GPL-2.0
/*
 * naps.c - sleeps through the nanosleep system call itself: glibc's
 * nanosleep() and sleep() call clock_nanosleep, which naptime.bt (it traces
 * sys_enter_nanosleep) does not see.
 * usage: naps N MS   makes N raw nanosleep() calls of MS milliseconds each.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, ms = argc > 2 ? atol(argv[2]) : 10;

	for (long i = 0; i < n; i++) {
		struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

		if (syscall(SYS_nanosleep, &ts, NULL))
			return 1;
	}
	return 0;
}
