// SPDX-License-Identifier: GPL-2.0
/*
 * rtwake.c - a SCHED_FIFO task woken by a timer, for the wakeup_rt latency
 * tracer (tests/vm/t0815-vmrt-latency.sh).
 * usage: rtwake N MS [PRIO|dl]   becomes SCHED_FIFO PRIO (50), or with dl
 * SCHED_DEADLINE (1 ms of runtime every 10 ms, for wakeup_dl), and sleeps N
 * times MS milliseconds; exits 2 when it cannot change its policy.
 */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* the kernel's struct sched_attr (glibc before 2.41 has no sched_setattr) */
struct dl_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};

static int go_deadline(void)
{
	struct dl_attr a = { .size = sizeof(a), .policy = 6 /* SCHED_DEADLINE */, .runtime = 1000000,
			     .deadline = 10000000, .period = 10000000 };

	return syscall(SYS_sched_setattr, 0, &a, 0) ? -1 : 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, ms = argc > 2 ? atol(argv[2]) : 1;
	struct sched_param sp = { .sched_priority = argc > 3 ? atoi(argv[3]) : 50 };

	if (argc > 3 && !strcmp(argv[3], "dl") ? go_deadline() : sched_setscheduler(0, SCHED_FIFO, &sp))
		return 2;
	for (long i = 0; i < n; i++) {
		struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

		if (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL))
			return 1;
	}
	return 0;
}
