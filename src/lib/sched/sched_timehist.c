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
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct th_task {
	uint64_t ready_to_run, last_time;
	long long last_state;
	uint64_t migrations;
	struct sched_th_total tot;	/* the summary's: every switch-out */
};

struct th_state {
	struct sched_reader *r;
	const struct sched_th_opts *o;
	struct sched_thread **idle;	/* per CPU */
	uint64_t *last_switch;		/* per CPU */
	int nr_cpus;
	int idle_max_cpu;		/* perf's idle_threads array: the CPUs online, grown to powers of two */
	int idle_init;			/* the CPUs whose idle task perf makes at the start */
	uint64_t start, end;		/* the first and the last switch */
	bool use_waking;
};

/* perf's update_stats(): Welford's running mean and M2, min and max */
static void tot_add(struct sched_th_total *t, uint64_t v)
{
	double delta;

	if (!t->nr_switches)
		t->min_run = UINT64_MAX;
	t->nr_switches++;
	delta = (double)v - t->mean;
	t->mean += delta / (double)t->nr_switches;
	t->m2 += delta * ((double)v - t->mean);
	if (v > t->max_run)
		t->max_run = v;
	if (v < t->min_run)
		t->min_run = v;
	t->run += v;
}

double sched_th_total__rel_stddev(const struct sched_th_total *t)
{
	double sd;

	if (t->nr_switches < 2 || !t->mean)
		return 0;
	sd = sqrt(t->m2 / (double)(t->nr_switches - 1) / (double)t->nr_switches);
	return 100.0 * sd / t->mean;
}

static struct th_task *task_of(struct th_state *s, struct sched_thread *t)
{
	return sched_reader__priv(s->r, t, sizeof(struct th_task), NULL);
}

static struct sched_thread *idle_of(struct th_state *s, int cpu)
{
	if (cpu >= s->idle_max_cpu) {	/* perf's get_idle_thread(): roundup_pow_of_two(cpu + 1) */
		int j = 1;

		while (j < cpu + 1)
			j <<= 1;
		s->idle_max_cpu = j;
	}
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
	tot_add(&tt->tot, l->run);
	tt->tot.delay += l->delay;
	if (tprev && tt->last_time && tt->last_time <= tprev) {	/* perf: by the state it last left in */
		if (tt->last_state == 0)
			tt->tot.preempt += l->wait;
		else if (tt->last_state == 2)
			tt->tot.iowait += l->wait;
		else
			tt->tot.sleep += l->wait;
	}
	if (!s->start)
		s->start = ev->time;
	s->end = ev->time;
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
	tt->tot.migrations++;
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

/* perf's machine__for_each_thread(): hash buckets of tid mod 256, each a tree by tid, then its dead list */
static int cmp_machine(const void *pa, const void *pb)
{
	const struct sched_thread *a = ((const struct sched_th_total *)pa)->thread;
	const struct sched_thread *b = ((const struct sched_th_total *)pb)->thread;

	if ((a->tid & 255) != (b->tid & 255))
		return (a->tid & 255) < (b->tid & 255) ? -1 : 1;
	if (!a->replaced != !b->replaced)
		return a->replaced ? 1 : -1;
	if (a->replaced)
		return a->replaced < b->replaced ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int summarize(struct th_state *s, struct sched_th_summary *sum)
{
	size_t n;
	struct sched_thread *const *all = sched_reader__threads(s->r, &n);

	memset(sum, 0, sizeof(*sum));
	sum->tasks = calloc(n ? n : 1, sizeof(*sum->tasks));
	sum->idle = calloc(s->idle_max_cpu ? s->idle_max_cpu : 1, sizeof(*sum->idle));
	if (!sum->tasks || !sum->idle) {
		sched_th_summary__free(sum);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct th_task *tt = all[i]->priv;

		if (tt && tt->tot.nr_switches) {
			sum->tasks[sum->nr_tasks] = tt->tot;
			sum->tasks[sum->nr_tasks++].thread = all[i];
		}
	}
	qsort(sum->tasks, sum->nr_tasks, sizeof(*sum->tasks), cmp_machine);
	sum->nr_idle = s->idle_max_cpu;
	for (int c = 0; c < s->idle_max_cpu && c < s->nr_cpus; c++) {
		const struct th_task *tt = s->idle[c] ? s->idle[c]->priv : NULL;

		if (tt) {
			sum->idle[c].nr_switches = tt->tot.nr_switches;
			sum->idle[c].run = tt->tot.run;
		}
		/* perf made its idle task: a line, "idle entire time window" without switches */
		sum->idle[c].present = tt || c < s->idle_init;
	}
	sum->start = s->start;
	sum->end = s->end;
	return 0;
}

void sched_th_summary__free(struct sched_th_summary *s)
{
	free(s->tasks);
	free(s->idle);
	s->tasks = NULL;
	s->idle = NULL;
	s->nr_tasks = 0;
	s->nr_idle = 0;
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
	s.idle_max_cpu = s.idle_init = *max_cpu;
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
	if (rc >= 0 && o->summary) {
		int src = summarize(&s, o->summary);

		o->summary->max_cpu = *max_cpu;
		if (src)
			rc = src;
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
