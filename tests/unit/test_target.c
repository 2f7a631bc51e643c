// SPDX-License-Identifier: GPL-2.0
/* test_target.c - target__alive's one meaning, target__setup's checks and words */
#include "unit.h"
#include "lib/event/sampler.h"
#include "lib/proc/target.h"
#include "opt.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

TEST(target_alive_zombie_is_dead)
{
	pid_t child = fork();
	int status;

	if (child == 0)
		_exit(0);
	CHECK(child > 0);
	CHECK(target__alive(getpid()));
	/* not reaped yet: a zombie, which kill(pid, 0) still finds */
	for (int i = 0; i < 200 && target__alive(child); i++)
		usleep(5000);
	CHECK(!kill(child, 0));
	CHECK(!target__alive(child));
	waitpid(child, &status, 0);
	CHECK(!target__alive(child));
	CHECK(!target__alive(0));
	CHECK(!target__alive(-1));
	CHECK(!target__any_alive(&child, 1));
	{
		pid_t both[2] = { child, getpid() };

		CHECK(target__any_alive(both, 2));
	}
}

static void *park(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

TEST(target_alive_leader_gone_threads_run)
{
	int fds[2];
	pid_t child;
	char c;

	CHECK(!pipe(fds));
	child = fork();
	if (child == 0) {
		pthread_t th;

		pthread_create(&th, NULL, park, NULL);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		syscall(SYS_exit, 0);	/* the first thread only: the process goes on */
	}
	CHECK(read(fds[0], &c, 1) == 1);
	usleep(50000);
	CHECK(target__alive(child));	/* its /proc state says Z, but a thread runs */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK(!target__alive(child));
	close(fds[0]);
	close(fds[1]);
}

static void *sleep_thread(void *arg)
{
	pid_t *tid = arg;

	__atomic_store_n(tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	pause();
	return NULL;
}

TEST(target_tgid_of_a_thread)
{
	pthread_t th;
	pid_t tid = 0;

	char v[64];

	CHECK_INT(target__tgid(getpid()), getpid());
	CHECK(!target__status_field(getpid(), "Name", v, sizeof(v)) && *v && !strchr(v, '\n'));
	CHECK_INT(target__status_field(getpid(), "NoSuchField", v, sizeof(v)), -ENOENT);
	CHECK(!target__status_field(getpid(), "Threads", v, sizeof(v)) && atoi(v) >= 1);
	CHECK(!pthread_create(&th, NULL, sleep_thread, &tid));
	for (int i = 0; i < 200 && !__atomic_load_n(&tid, __ATOMIC_SEQ_CST); i++)
		usleep(5000);
	CHECK(tid > 0 && tid != getpid());
	CHECK_INT(target__tgid(tid), getpid());
	pthread_cancel(th);
	pthread_join(th, NULL);
	/* gone: itself, as the callers want. pthread_join() returns when the thread clears its
	 * tid, a little before the kernel removes it from /proc: wait for that */
	char task[64];

	snprintf(task, sizeof(task), "/proc/self/task/%d", (int)tid);
	for (int i = 0; i < 400 && !access(task, F_OK); i++)
		usleep(5000);
	CHECK_INT(target__tgid(tid), tid);
}

TEST(target_setup_words)
{
	struct target t;
	char err[256];
	struct target_opts o = { .accept = TARGET_PID | TARGET_TID | TARGET_ALL | TARGET_CPU, .verb = "sample" };
	char self[32];

	CHECK_INT(target__setup(&t, &o, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "nothing to sample: give a command, -p PID, -t TID or -a");
	target__free(&t);
	o.accept = TARGET_PID | TARGET_ALL;
	o.verb = "trace";
	CHECK_INT(target__setup(&t, &o, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "nothing to trace: give a command, -p PID or -a");
	target__free(&t);

	o.pids = "abc";
	CHECK_INT(target__setup(&t, &o, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "invalid pid 'abc': give process ids like 12 or 12,34");
	target__free(&t);
	o.pids = "1";
	o.all = true;
	CHECK_INT(target__setup(&t, &o, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "-p, -t and -a/-C cannot be combined");
	target__free(&t);
	o.all = false;
	o.pids = "4000000";
	CHECK_INT(target__setup(&t, &o, err, sizeof(err)), -ESRCH);
	CHECK_STR(err, "cannot attach to process 4000000: no such process");
	target__free(&t);
	o.pids = NULL;
	o.tids = "4000000";
	CHECK_INT(target__setup(&t, &o, err, sizeof(err)), -ESRCH);
	CHECK_STR(err, "cannot attach to thread 4000000: no such thread");
	target__free(&t);
	o.tids = NULL;
	o.cpus = "0-x";
	CHECK_INT(target__setup(&t, &o, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "invalid CPU list '0-x': give CPUs like 0-3,6");
	target__free(&t);
	o.cpus = "65000";
	CHECK_INT(target__setup(&t, &o, err, sizeof(err)), -ENODEV);
	target__free(&t);
	o.cpus = NULL;

	/* -p with a command: perf's "observe PID while the command runs" */
	snprintf(self, sizeof(self), "%d", (int)getpid());
	o.pids = self;
	o.have_cmd = true;
	CHECK_INT(target__setup(&t, &o, err, sizeof(err)), 0);
	CHECK_INT(t.nr_pids, 1);
	CHECK(t.nr_tids >= 1 && !t.system_wide && !t.child);
	target__free(&t);

	/* nothing given where the whole system is the default */
	o.pids = NULL;
	o.have_cmd = false;
	o.default_all = true;
	CHECK_INT(target__setup(&t, &o, err, sizeof(err)), 0);
	CHECK(t.system_wide && t.nr_cpus >= 1);
	target__free(&t);
}

/* opt__parse_target(): the options, the command left, the targets resolved; a pid gone is -1, t freed */
TEST(opt_parse_target)
{
	static const char *const usage[] = { "sonde x [<options>] [--] <command>", NULL };
	struct target_opts to = { .verb = "observe", .accept = TARGET_PID | TARGET_ALL };
	const struct opt opts[] = { OPT_TARGET_PID(&to), OPT_TARGET_ALL(&to), OPT_END() };
	char pid[16], *argv[] = { "x", "-p", pid, "--", "true", "1", NULL }, *gone[] = { "x", "-p", "4000000", NULL };
	struct target t;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	CHECK_INT(opt__parse_target(6, argv, opts, usage, OPT_STOP_AT_NON_OPTION, &to, &t), 2);
	CHECK(to.have_cmd);
	CHECK_STR(argv[0], "true");
	CHECK_INT(t.nr_pids, 1);
	CHECK_INT(t.pids[0], getpid());
	CHECK(t.nr_tids >= 1 && !t.system_wide);
	target__free(&t);
	to = (struct target_opts){ .accept = TARGET_PID | TARGET_ALL };
	CHECK_INT(opt__parse_target(3, gone, opts, usage, OPT_STOP_AT_NON_OPTION, &to, &t), -1);
	CHECK(!to.have_cmd && !t.pids && !t.tids && !t.cpus);
}

TEST(sampler_parse_freq)
{
	uint64_t hz = 7;
	char err[256];
	int max = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");

	if (f) {
		if (fscanf(f, "%d", &max) != 1)
			max = 0;
		fclose(f);
	}
	CHECK_INT(sampler__parse_freq("99", &hz, err, sizeof(err)), 0);
	CHECK_INT((int)hz, 99);
	CHECK_INT(sampler__parse_freq("0", &hz, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "invalid frequency '0': give samples per second, 1 or more, or 'max'");
	CHECK_INT(sampler__parse_freq("-5", &hz, err, sizeof(err)), -EINVAL);
	CHECK_INT(sampler__parse_freq("fast", &hz, err, sizeof(err)), -EINVAL);
	if (max > 0) {
		CHECK_INT(sampler__parse_freq("max", &hz, err, sizeof(err)), 0);
		CHECK_INT((int)hz, max);
		CHECK_INT(sampler__parse_freq("4000000", &hz, err, sizeof(err)), -EINVAL);
	}
}
