/* SPDX-License-Identifier: GPL-2.0 */
/*
 * target.h - what a command observes: a command it starts, processes or threads
 * it attaches to, or CPUs; the -p/-t/-a/-C options every such command shares,
 * checked once (target__setup), and whether a task is alive (target__alive).
 * Lists are malloc'd and owned by the target; target__free() frees them.
 *
 * One meaning for every command: -p PID observes the processes and all their
 * threads, -t TID only those threads, -a every CPU, -C CPUS some CPUs. With a
 * command as well (`-p PID -- sleep 5`, perf's idiom) the targets are observed
 * for as long as the command runs, and the command itself is not observed.
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

enum target_accept {
	TARGET_PID = 1 << 0,	/* -p */
	TARGET_TID = 1 << 1,	/* -t */
	TARGET_ALL = 1 << 2,	/* -a */
	TARGET_CPU = 1 << 3,	/* -C */
};

/* the -p/-t/-a/-C options as typed, and what the command accepts */
struct target_opts {
	unsigned accept;	/* enum target_accept: named in the message when nothing is given */
	const char *verb;	/* "sample", "count", "trace": in that message */
	const char *pids;	/* -p "12,34" */
	const char *tids;	/* -t "12,34" */
	const char *cpus;	/* -C "0-3,6" (implies system-wide) */
	bool all;		/* -a */
	bool have_cmd;		/* a command to run was given */
	bool default_all;	/* nothing given means -a (top, offcpu) instead of an error */
};

/*
 * Parse and check o into t: pids, tids and CPUs parsed, at most one of -p, -t
 * and -a/-C, every CPU online, every pid and tid alive. -p fills t->pids and
 * t->tids with every thread of each process; -a and -C fill t->cpus. Returns 0,
 * -EINVAL for a usage error (the command exits 129), -ESRCH when a pid or tid
 * does not exist or is a zombie (the command exits 1), -ENODEV for a CPU that
 * is not online, or another -errno; err says which, in one line ("invalid pid
 * 'abc': ...", "cannot attach to process 999999: no such process"). On error
 * too, target__free(t) frees what was filled.
 */
int target__setup(struct target *t, const struct target_opts *o, char *err, size_t errlen);

/*
 * Whether the task pid (a process or a thread) can still run code: true while
 * it exists and is not a zombie. A zombie is dead: it has exited and only waits
 * for its parent to reap it. A task sonde may not signal (EPERM) is alive; so
 * is a process whose first thread exited (its state reads Z) while others run.
 */
bool target__alive(pid_t pid);
/* true if any of the n tasks is alive */
bool target__any_alive(const pid_t *pids, int n);

/* a --pid/--tid filter list as -p checks it: 0, or -EINVAL with the same words in err */
int target__check_ids(const char *list, bool threads, char *err, size_t errlen);
/* parse "1,2,5" into pids; 0 or -EINVAL */
int target__parse_pids(const char *s, pid_t **out, int *n);
/* parse "0-3,6" into cpus; 0 or -EINVAL */
int target__parse_cpus(const char *s, int **out, int *n);
/* the online CPUs (from /sys/devices/system/cpu/online); 0 or -errno */
int target__online_cpus(int **out, int *n);
/* the threads of a process from /proc/PID/task; 0 or -errno (-ESRCH if gone) */
int target__threads(pid_t pid, pid_t **out, int *n);
/* the value of field name ("Tgid", "SigBlk") in /proc/PID/status, into buf; 0, or -errno (-ENOENT: no such field) */
int target__status_field(pid_t pid, const char *name, char *buf, size_t len);
/* the process (thread group) of task tid, from /proc/TID/status; tid itself when it cannot be read */
pid_t target__tgid(pid_t tid);
/* the comm of a task, into buf; "?" when it is gone */
void target__comm(pid_t tid, char *buf, size_t len);
void target__free(struct target *t);

#endif
