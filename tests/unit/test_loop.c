// SPDX-License-Identifier: GPL-2.0
/*
 * test_loop.c - the event loop: ticks and callbacks that stop it, a started
 * command's own exit, and the one policy for ending a command sonde started
 * (the signal sonde got, SIGKILL after the grace time or at a second signal),
 * with the exit status each end gives.
 */
#include "unit.h"
#include "lib/loop/loop.h"
#include "lib/proc/workload.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int stop_at_3(void *ctx, int fd, short revents)
{
	(void)fd;
	(void)revents;
	return ++*(int *)ctx >= 3;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

TEST(loop_tick_stops_and_child_exit)
{
	struct loop l;
	int ticks = 0;
	pid_t pid;
	enum loop_end end;

	CHECK_INT(loop__init(&l), 0);
	CHECK_INT(loop__set_tick(&l, 10, stop_at_3, &ticks), 0);
	CHECK_INT(loop__run(&l), LOOP_STOP);
	CHECK_INT(ticks, 3);
	pid = fork();
	if (pid == 0)
		_exit(7);
	loop__set_child(&l, pid);
	ticks = -1000;
	end = loop__run(&l);
	CHECK_INT(end, LOOP_CHILD);
	CHECK(WIFEXITED(l.child_status) && WEXITSTATUS(l.child_status) == 7);
	CHECK_INT(loop__exit_code(&l, end), 7);
	loop__fini(&l);
}

static int readable(void *ctx, int fd, short revents)
{
	char c;

	(void)revents;
	if (read(fd, &c, 1) == 1)
		++*(int *)ctx;
	return c == 'q';
}

TEST(loop_fd_callback_and_output_close)
{
	struct loop l;
	int p[2], q[2], got = 0;

	CHECK_INT(pipe(p), 0);
	CHECK_INT(loop__init(&l), 0);
	CHECK_INT(loop__add_fd(&l, p[0], POLLIN, readable, &got), 0);
	CHECK_INT(write(p[1], "abq", 3), 3);
	CHECK_INT(loop__run(&l), LOOP_STOP);
	CHECK(got >= 1);
	loop__fini(&l);
	close(p[0]);
	close(p[1]);
	/* the reader of the watched output goes away: the loop ends */
	CHECK_INT(pipe(q), 0);
	CHECK_INT(loop__init(&l), 0);
	loop__watch_output(&l, q[1]);
	close(q[0]);
	CHECK_INT(loop__run(&l), LOOP_OUTPUT);
	loop__fini(&l);
	close(q[1]);
	signal(SIGPIPE, SIG_DFL);
}

/* a child that waits for a signal; with ignore_term it ignores SIGTERM and SIGINT */
static pid_t sleeper(bool ignore_term)
{
	pid_t pid = fork();

	if (pid == 0) {
		sigset_t none;

		/* dispositions first: a signal the loop forwards may be pending already */
		signal(SIGTERM, ignore_term ? SIG_IGN : SIG_DFL);
		signal(SIGINT, ignore_term ? SIG_IGN : SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (;;)
			pause();
	}
	return pid;
}

TEST(loop_signal_is_passed_to_the_started_command)
{
	struct loop l;
	pid_t pid;
	enum loop_end end;

	CHECK_INT(loop__init(&l), 0);
	pid = sleeper(false);
	loop__set_child(&l, pid);
	kill(getpid(), SIGINT);
	end = loop__run(&l);
	CHECK_INT(end, LOOP_SIGNAL);
	CHECK_INT(l.signo, SIGINT);
	CHECK(l.child_reaped);
	CHECK(WIFSIGNALED(l.child_status) && WTERMSIG(l.child_status) == SIGINT);
	CHECK_INT(loop__exit_code(&l, end), 130);	/* the command's status, as the shell shows it */
	CHECK(kill(pid, 0) && errno == ESRCH);		/* reaped */
	loop__fini(&l);
}

TEST(loop_duration_ends_the_command_and_exits_0)
{
	struct loop l;
	pid_t pid;
	enum loop_end end;

	CHECK_INT(loop__init(&l), 0);
	pid = sleeper(false);
	loop__set_child(&l, pid);
	CHECK_INT(loop__set_duration(&l, 0.02), 0);
	end = loop__run(&l);
	CHECK_INT(end, LOOP_DURATION);
	CHECK(WIFSIGNALED(l.child_status) && WTERMSIG(l.child_status) == SIGTERM);
	CHECK_INT(loop__exit_code(&l, end), 0);
	loop__fini(&l);
}

TEST(loop_second_signal_kills_a_command_that_ignores_the_first)
{
	struct loop l;
	pid_t pid;
	double t0;
	enum loop_end end;

	CHECK_INT(loop__init(&l), 0);
	pid = sleeper(true);
	usleep(20000);	/* its SIG_IGN is set */
	loop__set_child(&l, pid);
	kill(getpid(), SIGTERM);
	kill(getpid(), SIGINT);	/* a different signal: both are queued (read lowest first) */
	t0 = now();
	end = loop__run(&l);
	CHECK_INT(end, LOOP_SIGNAL);
	CHECK_INT(l.signo, SIGINT);
	CHECK(WIFSIGNALED(l.child_status) && WTERMSIG(l.child_status) == SIGKILL);
	CHECK(now() - t0 < LOOP_GRACE_MS / 2000.0);	/* at once, not after the grace time */
	loop__fini(&l);
}

TEST(loop_grace_time_then_sigkill)
{
	struct loop l;
	pid_t pid;
	double t0;

	CHECK_INT(loop__init(&l), 0);
	pid = sleeper(true);
	usleep(20000);
	loop__set_child(&l, pid);
	kill(getpid(), SIGTERM);
	t0 = now();
	CHECK_INT(loop__run(&l), LOOP_SIGNAL);
	CHECK(WIFSIGNALED(l.child_status) && WTERMSIG(l.child_status) == SIGKILL);
	CHECK(now() - t0 >= LOOP_GRACE_MS / 1000.0 - 0.05);
	loop__fini(&l);
}

TEST(loop_fini_ends_a_command_still_running)
{
	struct loop l;
	pid_t pid;

	CHECK_INT(loop__init(&l), 0);
	pid = sleeper(false);
	loop__set_child(&l, pid);
	loop__fini(&l);	/* e.g. the command failed before running the loop */
	CHECK(l.child_reaped);
	CHECK(WIFSIGNALED(l.child_status) && WTERMSIG(l.child_status) == SIGTERM);
	CHECK(kill(pid, 0) && errno == ESRCH);
}

static int count_calls(void *ctx, int fd, short revents)
{
	(void)fd;
	(void)revents;
	++*(int *)ctx;
	return 0;
}

static int stop_now(void *ctx, int fd, short revents)
{
	(void)ctx;
	(void)fd;
	(void)revents;
	return 1;
}

TEST(loop_hung_up_source_is_dropped_not_spun_on)
{
	struct loop l;
	int p[2], calls = 0;

	CHECK_INT(pipe(p), 0);
	close(p[1]);	/* the reader sees POLLHUP, without POLLIN, for ever */
	CHECK_INT(loop__init(&l), 0);
	CHECK_INT(loop__add_fd(&l, p[0], POLLIN, count_calls, &calls), 0);
	CHECK_INT(loop__set_tick(&l, 50, stop_now, NULL), 0);
	CHECK_INT(loop__run(&l), LOOP_STOP);
	CHECK_INT(calls, 1);
	loop__fini(&l);
	close(p[0]);
}

/* a loop in a thread told to stop on SIGUSR2: that signal, sent to the thread, ends it; SIGTERM is not its */
static void *usr2_loop(void *arg)
{
	struct loop l;
	sigset_t s;
	int *res = arg;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	loop__thread_stop_signal(SIGUSR2);
	if (loop__init(&l)) {
		res[0] = -1;
		return NULL;
	}
	res[1] = sigismember(&l.mask, SIGTERM) || sigismember(&l.mask, SIGINT);
	res[2] = sigismember(&l.mask, SIGUSR2);
	res[0] = (int)loop__run(&l);
	res[3] = l.signo;
	loop__fini(&l);
	return NULL;
}

TEST(loop_thread_stop_signal)
{
	pthread_t t;
	int res[4] = { -2, -2, -2, -2 };

	CHECK_INT(pthread_create(&t, NULL, usr2_loop, res), 0);
	usleep(50000);
	pthread_kill(t, SIGUSR2);	/* blocked in the thread until its loop takes it */
	pthread_join(t, NULL);
	CHECK_INT(res[0], LOOP_SIGNAL);
	CHECK_INT(res[1], 0);
	CHECK_INT(res[2], 1);
	CHECK_INT(res[3], SIGUSR2);
}
