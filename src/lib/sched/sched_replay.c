// SPDX-License-Identifier: GPL-2.0
/*
 * sched_replay.c - perf sched replay: each task of a recording becomes a
 * thread that plays its part again, by perf 6.1's rules. A task (by tid, as
 * the tracepoints name it) is a list of atoms: RUN (burn the CPU time it ran
 * between a CPU's two switches), SLEEP (after each switch-out; a wakeup that
 * finds it there becomes a semaphore it waits on) and WAKEUP (post the
 * wakee's semaphore). The threads run the lists together, as often as asked,
 * and each round's wall and CPU time is what the caller reports.
 */
#include "lib/sched/sched.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum atom_type { ATOM_RUN, ATOM_SLEEP, ATOM_WAKEUP };

struct atom {
	enum atom_type type;
	uint64_t duration;		/* RUN */
	sem_t *wait_sem;		/* SLEEP: waited on, WAKEUP: posted (NULL: nothing to do) */
};

struct task {
	struct sched_replay_task pub;
	struct atom **atoms;
	size_t cap;
	pthread_t thread;
	bool started;
	sem_t start, done;
	uint64_t cpu;			/* the last round's CPU time (ns) */
	struct sched_replay *rp;
};

struct sched_replay {
	struct task **tasks;		/* in registration order */
	size_t nr, cap;
	struct task **by_pid;		/* pid -> task */
	size_t nr_pids;
	struct sched_replay_counts counts;
	uint64_t cpu_last_switched[4096];
	uint64_t run_overhead;
	volatile bool exiting;
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct atom *new_atom(struct task *t, enum atom_type type)
{
	struct atom *a;

	if (t->pub.nr_events == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		void *p = realloc(t->atoms, cap * sizeof(*t->atoms));

		if (!p)
			return NULL;
		t->atoms = p;
		t->cap = cap;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->type = type;
	t->atoms[t->pub.nr_events++] = a;
	return a;
}

static struct atom *last_atom(struct task *t)
{
	return t->pub.nr_events ? t->atoms[t->pub.nr_events - 1] : NULL;
}

static int add_sleep(struct sched_replay *rp, struct task *t)
{
	if (!new_atom(t, ATOM_SLEEP))
		return -ENOMEM;
	rp->counts.nr_sleep_events++;
	return 0;
}

/* a RUN right after a RUN grows it (perf's "run atoms optimized") */
static int add_run(struct sched_replay *rp, struct task *t, uint64_t duration)
{
	struct atom *last = last_atom(t), *a;

	if (last && last->type == ATOM_RUN) {
		rp->counts.nr_run_events_optimized++;
		last->duration += duration;
		return 0;
	}
	if (!(a = new_atom(t, ATOM_RUN)))
		return -ENOMEM;
	a->duration = duration;
	rp->counts.nr_run_events++;
	return 0;
}

/* a wakeup links to the wakee's last atom if it is a SLEEP no one woke yet */
static int add_wakeup(struct sched_replay *rp, struct task *waker, struct task *wakee)
{
	struct atom *a = new_atom(waker, ATOM_WAKEUP), *w = last_atom(wakee);

	if (!a)
		return -ENOMEM;
	if (!w || w->type != ATOM_SLEEP) {
		rp->counts.targetless_wakeups++;
		return 0;
	}
	if (w->wait_sem) {
		rp->counts.multitarget_wakeups++;
		return 0;
	}
	w->wait_sem = malloc(sizeof(*w->wait_sem));
	if (!w->wait_sem)
		return -ENOMEM;
	sem_init(w->wait_sem, 0, 0);
	a->wait_sem = w->wait_sem;
	rp->counts.nr_wakeup_events++;
	return 0;
}

/* perf's register_pid(): a task per pid, named at first sight, which starts asleep */
static struct task *task_of(struct sched_replay *rp, long pid, const char *comm)
{
	struct task *t;

	if (pid < 0)
		pid = 0;
	if ((size_t)pid >= rp->nr_pids) {
		size_t n = (size_t)pid + 1024;
		void *p = realloc(rp->by_pid, n * sizeof(*rp->by_pid));

		if (!p)
			return NULL;
		rp->by_pid = p;
		memset(rp->by_pid + rp->nr_pids, 0, (n - rp->nr_pids) * sizeof(*rp->by_pid));
		rp->nr_pids = n;
	}
	if (rp->by_pid[pid])
		return rp->by_pid[pid];
	if (rp->nr == rp->cap) {
		size_t cap = rp->cap ? rp->cap * 2 : 64;
		void *p = realloc(rp->tasks, cap * sizeof(*rp->tasks));

		if (!p)
			return NULL;
		rp->tasks = p;
		rp->cap = cap;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pub.nr = rp->nr;
	t->pub.pid = pid;
	snprintf(t->pub.comm, sizeof(t->pub.comm), "%s", comm);
	t->rp = rp;
	if (add_sleep(rp, t)) {
		free(t);
		return NULL;
	}
	rp->tasks[rp->nr++] = t;
	rp->by_pid[pid] = t;
	return t;
}

static int on_event(struct sched_replay *rp, const struct sched_event *ev)
{
	struct task *a, *b;

	switch (ev->type) {
	case SCHED_EV_SWITCH: {
		uint64_t t0, delta;

		if (ev->cpu < 0 || ev->cpu >= 4096)
			return 0;
		t0 = rp->cpu_last_switched[ev->cpu];
		delta = t0 ? ev->time - t0 : 0;
		if (t0 && ev->time < t0)
			return -EINVAL;	/* perf: "hm, delta < 0 ?" */
		if (!(a = task_of(rp, ev->prev_pid, ev->prev_comm)) || !task_of(rp, ev->next_pid, ev->next_comm))
			return -ENOMEM;
		rp->cpu_last_switched[ev->cpu] = ev->time;
		return add_run(rp, a, delta) ?: add_sleep(rp, a);
	}
	case SCHED_EV_WAKEUP: case SCHED_EV_WAKEUP_NEW:	/* perf 6.1 leaves sched_waking out */
		if (!(a = task_of(rp, ev->tid, "<unknown>")) || !(b = task_of(rp, ev->task_pid, ev->comm)))
			return -ENOMEM;
		return add_wakeup(rp, a, b);
	case SCHED_EV_FORK:
		if (!task_of(rp, ev->parent->tid, ev->parent->comm) || !task_of(rp, ev->thread->tid, ev->thread->comm))
			return -ENOMEM;
		return 0;
	default:
		return 0;
	}
}

int sched_replay__build(struct sched_reader *r, struct sched_replay **out)
{
	struct sched_replay *rp = calloc(1, sizeof(*rp));
	struct sched_event ev;
	int rc;

	*out = NULL;
	if (!rp)
		return -ENOMEM;
	while ((rc = sched_reader__next(r, &ev)) > 0)
		if ((rc = on_event(rp, &ev)))
			break;
	if (rc) {
		sched_replay__free(rp);
		return rc;
	}
	*out = rp;
	return 0;
}

const struct sched_replay_counts *sched_replay__counts(const struct sched_replay *rp)
{
	return &rp->counts;
}

size_t sched_replay__nr_tasks(const struct sched_replay *rp)
{
	return rp->nr;
}

const struct sched_replay_task *sched_replay__task(const struct sched_replay *rp, size_t i)
{
	return i < rp->nr ? &rp->tasks[i]->pub : NULL;
}

/* ------------------------------------------------------------ playing */

static void burn(const struct sched_replay *rp, uint64_t ns)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);

	while (now_ns(CLOCK_MONOTONIC) + rp->run_overhead < t0 + ns)
		;
}

static void nap(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };

	nanosleep(&ts, NULL);
}

void sched_replay__calibrate(struct sched_replay *rp, struct sched_replay_calib *c)
{
	uint64_t t0, d, min = UINT64_MAX;

	for (int i = 0; i < 10; i++) {	/* what a zero burn costs: taken off every burn */
		t0 = now_ns(CLOCK_MONOTONIC);
		burn(rp, 0);
		d = now_ns(CLOCK_MONOTONIC) - t0;
		min = d < min ? d : min;
	}
	rp->run_overhead = c->run_overhead = min;
	min = UINT64_MAX;
	for (int i = 0; i < 10; i++) {	/* what a 10 us sleep takes past 10 us */
		t0 = now_ns(CLOCK_MONOTONIC);
		nap(10000);
		d = now_ns(CLOCK_MONOTONIC) - t0;
		min = d < min ? d : min;
	}
	c->sleep_overhead = min - 10000;
	t0 = now_ns(CLOCK_MONOTONIC);
	burn(rp, 1000000);
	c->run_test = now_ns(CLOCK_MONOTONIC) - t0;
	t0 = now_ns(CLOCK_MONOTONIC);
	nap(1000000);
	c->sleep_test = now_ns(CLOCK_MONOTONIC) - t0;
}

static void *task_main(void *arg)
{
	struct task *t = arg;

	for (;;) {
		uint64_t c0;

		while (sem_wait(&t->start) && errno == EINTR)
			;
		if (t->rp->exiting)
			return NULL;
		c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		for (size_t i = 0; i < t->pub.nr_events; i++) {
			struct atom *a = t->atoms[i];

			if (a->type == ATOM_RUN)
				burn(t->rp, a->duration);
			else if (a->type == ATOM_SLEEP && a->wait_sem)
				while (sem_wait(a->wait_sem) && errno == EINTR)
					;
			else if (a->type == ATOM_WAKEUP && a->wait_sem)
				sem_post(a->wait_sem);
		}
		t->cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		sem_post(&t->done);
	}
}

int sched_replay__start(struct sched_replay *rp)
{
	pthread_attr_t attr;
	int rc = 0;

	/* each task wakes the next one at its end, the last the first (perf's cross-task wakeups) */
	for (size_t i = 0; !rc && i < rp->nr; i++)
		rc = add_wakeup(rp, rp->tasks[i], rp->tasks[i + 1 == rp->nr ? 0 : i + 1]);
	if (rc)
		return rc;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (size_t i = 0; i < rp->nr && !rc; i++) {
		struct task *t = rp->tasks[i];

		sem_init(&t->start, 0, 0);
		sem_init(&t->done, 0, 0);
		rc = -pthread_create(&t->thread, &attr, task_main, t);
		t->started = !rc;
	}
	pthread_attr_destroy(&attr);
	return rc;
}

int sched_replay__round(struct sched_replay *rp, uint64_t *wall, uint64_t *cpu)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);

	*cpu = 0;
	for (size_t i = 0; i < rp->nr; i++)
		sem_post(&rp->tasks[i]->start);
	for (size_t i = 0; i < rp->nr; i++) {
		while (sem_wait(&rp->tasks[i]->done) && errno == EINTR)
			;
		*cpu += rp->tasks[i]->cpu;
	}
	*wall = now_ns(CLOCK_MONOTONIC) - t0;
	return 0;
}

void sched_replay__free(struct sched_replay *rp)
{
	if (!rp)
		return;
	rp->exiting = true;
	for (size_t i = 0; i < rp->nr; i++)
		if (rp->tasks[i]->started)
			sem_post(&rp->tasks[i]->start);
	for (size_t i = 0; i < rp->nr; i++) {
		struct task *t = rp->tasks[i];

		if (t->started)
			pthread_join(t->thread, NULL);
		for (size_t j = 0; j < t->pub.nr_events; j++) {
			if (t->atoms[j]->type == ATOM_SLEEP && t->atoms[j]->wait_sem) {
				sem_destroy(t->atoms[j]->wait_sem);
				free(t->atoms[j]->wait_sem);
			}
			free(t->atoms[j]);
		}
		free(t->atoms);
		free(t);
	}
	free(rp->tasks);
	free(rp->by_pid);
	free(rp);
}
