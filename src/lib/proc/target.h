/* SPDX-License-Identifier: GPL-2.0 */
/*
 * target.h - what a command observes: a command it starts, processes or threads
 * it attaches to, or CPUs. Lists are malloc'd and owned by the target.
 */
#ifndef SONDE_TARGET_H
#define SONDE_TARGET_H

#include <stdbool.h>
#include <sys/types.h>

struct target {
	pid_t *pids;		/* -p: processes (every thread of each) */
	int nr_pids;
	pid_t *tids;		/* -t: threads */
	int nr_tids;
	int *cpus;		/* -C, or every online CPU with -a */
	int nr_cpus;
	bool system_wide;	/* -a or -C */
	pid_t child;		/* the started command, 0 if none */
};

/* parse "1,2,5" into pids; 0 or -EINVAL */
int target__parse_pids(const char *s, pid_t **out, int *n);
/* parse "0-3,6" into cpus; 0 or -EINVAL */
int target__parse_cpus(const char *s, int **out, int *n);
/* the online CPUs (from /sys/devices/system/cpu/online); 0 or -errno */
int target__online_cpus(int **out, int *n);
/* the threads of a process from /proc/PID/task; 0 or -errno (-ESRCH if gone) */
int target__threads(pid_t pid, pid_t **out, int *n);
/* the comm of a task, into buf; "?" when it is gone */
void target__comm(pid_t tid, char *buf, size_t len);
void target__free(struct target *t);

#endif
