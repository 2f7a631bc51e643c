/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload.h - start a command the way profilers do: fork it stopped, let the
 * caller attach counters or probes to its pid, then let it exec. The caller
 * owns the struct workload and the child: it reaps it (directly, or through
 * the event loop of lib/loop), and start/abort close the pipes.
 */
#ifndef SONDE_WORKLOAD_H
#define SONDE_WORKLOAD_H

#include <stdbool.h>
#include <sys/types.h>

struct workload {
	pid_t pid;
	int go_fd;	/* write end: one byte lets the child exec */
	int err_fd;	/* read end: the child's errno if exec failed */
	bool stdout_to_stderr;	/* set before prepare(): the child's stdout is our stderr (our stdout
				   carries data, as with `record -o -`) */
};

/* fork a child that waits before exec'ing argv (searched in PATH); 0 or -errno */
int workload__prepare(struct workload *w, char *const argv[]);

/*
 * Let the child exec. Returns 0 when exec succeeded, or the -errno exec failed
 * with (the child then exits 127 for ENOENT, 126 otherwise, as a shell does).
 */
int workload__start(struct workload *w);

/* the shell's status for a command that could not be exec'd with -errno err: 127 not found, else 126 */
int workload__exec_code(int err);

/* kill and reap a prepared child that will not be started */
void workload__abort(struct workload *w);

/*
 * End a started command that runs on: send it `sig`, give it grace_ms to
 * exit, then SIGKILL; reap it and keep its wait status in *status (if not
 * NULL). The policy every command shares (README "Exit status"); the event
 * loop does the same without blocking (lib/loop/loop.h).
 */
void workload__end(pid_t pid, int sig, int grace_ms, int *status);

/* the shell's exit status for a waitpid() status: the code, or 128+signal */
int workload__exit_code(int status);

#endif
