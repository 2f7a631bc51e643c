// SPDX-License-Identifier: GPL-2.0
/*
 * sched_timehist.c - perf sched timehist's accounting: at each switch, for the
 * task leaving the CPU, how long it ran (since the CPU's previous switch), how
 * long it had waited off the CPU before that (since its own last switch-out)
 * and how much of that wait was run-queue delay (since its wakeup). The idle
 * task is one "<idle>" thread per CPU. sched_waking is the wakeup when the
 * recording has it (perf's choice), else sched_wakeup.
 */
#include "lib/sched/sched.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct th_task {
	uint64_t ready_to_run, last_time;
	long long last_state;
	uint64_t migrations;
};

struct th_state {
	struct sched_reader *r;
	const struct sched_th_opts *o;
	struct sched_thread **idle;	/* per CPU */
	uint64_t *last_switch;		/* per CPU */
	int nr_cpus;
	bool use_waking;
};

static struct th_task *task_of(struct th_state *s, struct sched_thread *t)
{
	return sched_reader__priv(s->r, t, sizeof(struct th_task), NULL);
}

static struct sched_thread *idle_of(struct th_state *s, int cpu)
{
	if (!s->idle[cpu]) {
		s->idle[cpu] = calloc(1, sizeof(**s->idle));
		if (!s->idle[cpu])
			return NULL;
		strcpy(s->idle[cpu]->comm, "<idle>");
		s->idle[cpu]->comm_set = true;
	}
	return s->idle[cpu];
}

static int on_switch(struct th_state *s, const struct sched_event *ev, struct sched_th_line *l)
{
	struct sched_thread *t;
	struct th_task *tt;
	uint64_t tprev = s->last_switch[ev->cpu];

	t = ev->prev_pid == 0 ? idle_of(s, ev->cpu) : sched_reader__thread(s->r, ev->pid, ev->tid ? ev->tid : ev->pid);
	if (!t || !(tt = task_of(s, t)))
		return -ENOMEM;
	memset(l, 0, sizeof(*l));
	l->kind = SCHED_TH_SWITCH;
	l->time = ev->time;
	l->cpu = ev->cpu;
	l->thread = t;
	l->state = (int)ev->prev_state;
	l->next_comm = ev->next_comm;
	l->next_pid = ev->next_pid;
	if (tprev) {
		l->run = ev->time - tprev;
		if (tt->ready_to_run && tt->ready_to_run <= tprev)
			l->delay = tprev - tt->ready_to_run;
		if (tt->last_time && tt->last_time <= tprev)
			l->wait = tprev - tt->last_time;
	}
	tt->last_time = ev->time;
	tt->last_state = (int)ev->prev_state;
	tt->ready_to_run = 0;
	s->last_switch[ev->cpu] = ev->time;
	return 1;
}

static int on_wakeup(struct th_state *s, const struct sched_event *ev, struct sched_th_line *l)
{
	struct sched_thread *t = sched_reader__thread(s->r, 0, ev->task_pid);
	struct th_task *tt;

	if (!t || !(tt = task_of(s, t)))
		return -ENOMEM;
	if (!tt->ready_to_run)
		tt->ready_to_run = ev->time;
	if (!s->o->wakeups)
		return 0;
	memset(l, 0, sizeof(*l));
	l->kind = SCHED_TH_WAKEUP;
	l->time = ev->time;
	l->cpu = ev->cpu;
	l->other = t;
	l->thread = sched_reader__thread(s->r, ev->pid, ev->tid);
	return l->thread ? 1 : -ENOMEM;
}

static int on_migrate(struct th_state *s, const struct sched_event *ev, struct sched_th_line *l)
{
	struct sched_thread *t = sched_reader__thread(s->r, 0, ev->task_pid);
	struct th_task *tt;

	if (!t || !(tt = task_of(s, t)))
		return -ENOMEM;
	tt->migrations++;
	memset(l, 0, sizeof(*l));
	l->kind = SCHED_TH_MIGRATE;
	l->time = ev->time;
	l->cpu = ev->cpu;
	l->other = t;
	l->orig_cpu = ev->orig_cpu;
	l->dest_cpu = ev->dest_cpu;
	l->thread = sched_reader__thread(s->r, ev->pid, ev->tid);
	return l->thread ? 1 : -ENOMEM;
}

int sched_th__run(struct sched_reader *r, const struct sched_th_opts *o, int *max_cpu,
		  int (*fn)(const struct sched_th_line *l, void *ctx), void *ctx)
{
	struct th_state s = { .r = r, .o = o, .nr_cpus = 4096 };
	struct sched_event ev;
	struct sched_th_line l;
	int rc;

	s.use_waking = sched_reader__has(r, SCHED_EV_WAKING);
	s.idle = calloc(s.nr_cpus, sizeof(*s.idle));
	s.last_switch = calloc(s.nr_cpus, sizeof(*s.last_switch));
	if (!s.idle || !s.last_switch) {
		rc = -ENOMEM;
		goto out;
	}
	*max_cpu = sched_reader__nr_cpus(r) ? sched_reader__nr_cpus(r) : 4;
	while ((rc = sched_reader__next(r, &ev)) > 0) {
		if (ev.type < SCHED_EV_NR_TP && (ev.cpu < 0 || ev.cpu >= s.nr_cpus))
			continue;
		if (ev.type < SCHED_EV_NR_TP && ev.cpu > *max_cpu)
			*max_cpu = ev.cpu;
		switch (ev.type) {
		case SCHED_EV_SWITCH:
			rc = on_switch(&s, &ev, &l);
			break;
		case SCHED_EV_WAKEUP:
			rc = s.use_waking ? 0 : on_wakeup(&s, &ev, &l);
			break;
		case SCHED_EV_WAKING: case SCHED_EV_WAKEUP_NEW:
			rc = on_wakeup(&s, &ev, &l);
			break;
		case SCHED_EV_MIGRATE:
			rc = o->migrations ? on_migrate(&s, &ev, &l) : 0;
			break;
		case SCHED_EV_LOST:
			memset(&l, 0, sizeof(l));
			l.kind = SCHED_TH_LOST;
			l.time = ev.time;
			l.cpu = ev.cpu;
			l.lost = ev.lost;
			rc = 1;
			break;
		default:
			rc = 0;
			break;
		}
		if (rc > 0)
			rc = fn(&l, ctx);
		if (rc)
			break;
	}
out:
	sched_reader__drop_priv(r);
	if (s.idle)
		for (int i = 0; i < s.nr_cpus; i++)
			free(s.idle[i]);
	free(s.idle);
	free(s.last_switch);
	return rc;
}
