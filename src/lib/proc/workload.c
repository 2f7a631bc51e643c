// SPDX-License-Identifier: GPL-2.0
/* workload.c - fork, hold, then exec a command; see workload.h */
#include "lib/proc/workload.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int workload__prepare(struct workload *w, char *const argv[])
{
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(go[0]); close(go[1]); close(err[0]); close(err[1]);
		return -e;
	}
	if (pid == 0) {
		char c, path[4096];
		const char *file = argv[0];
		int e;

		close(go[1]);
		close(err[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		{
			sigset_t none;

			sigemptyset(&none);
			sigprocmask(SIG_SETMASK, &none, NULL);
		}
		if (w->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		/* PATH searched now: execvp's failed execve()s would reach the tracing (execsnoop) */
		if (!util__find_command(argv[0], path, sizeof(path)))
			file = path;
		/* ready: from here until exec the child makes no system call but the read,
		 * so tracing attached after prepare() sees none of this set-up */
		if (write(err[1], "r", 1) != 1)
			_exit(127);
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* the parent gave up */
		execv(file, argv);
		if (errno == ENOEXEC || file == argv[0])	/* a script without #! (execvp runs sh), or not found */
			execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(workload__exec_code(-e));
	}
	close(go[0]);
	close(err[1]);
	w->pid = pid;
	w->go_fd = go[1];
	w->err_fd = err[0];
	{
		char r;
		ssize_t n;

		do
			n = read(w->err_fd, &r, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1) {	/* the child died before it was ready */
			workload__abort(w);
			return -ECHILD;
		}
	}
	return 0;
}

int workload__start(struct workload *w)
{
	int e = 0;
	ssize_t n;

	if (write(w->go_fd, "g", 1) != 1)
		e = errno;
	close(w->go_fd);
	w->go_fd = -1;
	if (e) {
		close(w->err_fd);
		return -e;
	}
	do
		n = read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	return n == sizeof(e) ? -e : 0;
}

void workload__abort(struct workload *w)
{
	if (w->go_fd >= 0)
		close(w->go_fd);
	if (w->err_fd >= 0)
		close(w->err_fd);
	w->go_fd = w->err_fd = -1;
	kill(w->pid, SIGKILL);
	while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
		;
}

void workload__end(pid_t pid, int sig, int grace_ms, int *status)
{
	int st = 0;
	pid_t r;

	if (pid <= 0)
		return;
	kill(pid, sig);
	for (int waited = 0; sig != SIGKILL && waited < grace_ms; waited += 10) {
		while ((r = waitpid(pid, &st, WNOHANG)) < 0 && errno == EINTR)
			;
		if (r == pid || r < 0)
			goto out;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
out:
	if (status)
		*status = st;
}

int workload__exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

int workload__exec_code(int err)
{
	return err == -ENOENT ? 127 : 126;
}
