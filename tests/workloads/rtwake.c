// SPDX-License-Identifier: GPL-2.0
/*
 * rtwake.c - a SCHED_FIFO task woken by a timer, for the wakeup_rt latency
 * tracer (tests/vm/t0815-vmrt-latency.sh).
 * usage: rtwake N MS [PRIO]   becomes SCHED_FIFO PRIO (50) and sleeps N
 * times MS milliseconds; exits 2 when it cannot become real-time.
 */
#include <sched.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, ms = argc > 2 ? atol(argv[2]) : 1;
	struct sched_param sp = { .sched_priority = argc > 3 ? atoi(argv[3]) : 50 };

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		return 2;
	for (long i = 0; i < n; i++) {
		struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

		if (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL))
			return 1;
	}
	return 0;
}
