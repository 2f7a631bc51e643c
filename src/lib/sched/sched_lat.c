// SPDX-License-Identifier: GPL-2.0
/*
 * sched_lat.c - perf sched latency's accounting: per task, the delay from
 * the moment it could run (a wakeup, or being preempted while runnable) to
 * the moment it ran, counted at each such switch-in; its run time from
 * sched_stat_runtime. The rules are perf's, so both give the same table from
 * the same file: a task first seen switching in is taken as runnable from
 * then; a wakeup counts only for a task that slept; sched_waking is not read
 * (perf sched latency reads sched_wakeup and sched_wakeup_new only).
 */
#include "lib/sched/sched.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { ST_SLEEPING, ST_WAIT_CPU, ST_SCHED_IN, ST_IGNORE };

struct lat_task {
	struct sched_thread *thread;
	size_t order;			/* creation: ties keep it */
	bool has_atom;
	int state;			/* of the last atom */
	uint64_t sched_out, wake_up;
	uint64_t runtime, total_lat, nr, max_lat, max_start, max_end;
	uint64_t hist[SCHED_LAT_SLOTS];
};

/* BCC's log2 slot of a delay in us (runqlat's): 0 and 1 us in slot 0 */
static unsigned us_slot(uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned s = 0;

	while (us > 1) {
		us >>= 1;
		s++;
	}
	return s < SCHED_LAT_SLOTS ? s : SCHED_LAT_SLOTS - 1;
}

struct lat_state {
	struct sched_reader *r;
	struct lat_task **tasks;
	size_t nr, cap;
	int cpu;			/* -C, or -1 */
	int *curr_pid;			/* per CPU, -1 unknown */
	int nr_cpus;
	struct sched_lat *out;
};

static struct lat_task *task_of(struct lat_state *s, int tid, bool *created)
{
	struct sched_thread *t = sched_reader__thread(s->r, -1, tid);
	struct lat_task *lt;

	if (!t || !(lt = sched_reader__priv(s->r, t, sizeof(*lt), created)))
		return NULL;
	if (!*created)
		return lt;
	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		void *p = realloc(s->tasks, cap * sizeof(*s->tasks));

		if (!p)
			return NULL;
		s->tasks = p;
		s->cap = cap;
	}
	lt->thread = t;
	lt->order = s->nr;
	s->tasks[s->nr++] = lt;
	return lt;
}

/* a new atom: the task left the CPU (or is first met) at time, runnable if state 'R' */
static void sched_out(struct lat_task *lt, bool runnable, uint64_t time)
{
	lt->has_atom = true;
	lt->sched_out = time;
	lt->state = runnable ? ST_WAIT_CPU : ST_SLEEPING;
	lt->wake_up = runnable ? time : 0;
}

static void sched_in(struct lat_task *lt, uint64_t time)
{
	uint64_t d;

	if (!lt->has_atom || lt->state != ST_WAIT_CPU)
		return;
	if (time < lt->wake_up) {
		lt->state = ST_IGNORE;
		return;
	}
	lt->state = ST_SCHED_IN;
	d = time - lt->wake_up;
	lt->hist[us_slot(d)]++;
	lt->total_lat += d;
	if (d > lt->max_lat) {
		lt->max_lat = d;
		lt->max_start = lt->wake_up;
		lt->max_end = time;
	}
	lt->nr++;
}

static int on_switch(struct lat_state *s, const struct sched_event *ev)
{
	struct lat_task *out, *in;
	bool created;

	if (ev->cpu >= 0 && ev->cpu < s->nr_cpus) {
		if (s->curr_pid[ev->cpu] != -1 && s->curr_pid[ev->cpu] != ev->prev_pid)
			s->out->nr_switch_bugs++;
		s->curr_pid[ev->cpu] = ev->next_pid;
	}
	out = task_of(s, ev->prev_pid, &created);
	if (!out)
		return -ENOMEM;
	/* perf reads the state as an index into "RSDTtZXxKWPNn": 0 is R */
	sched_out(out, ev->prev_state == 0, ev->time);
	in = task_of(s, ev->next_pid, &created);
	if (!in)
		return -ENOMEM;
	if (created)
		sched_out(in, true, ev->time);
	sched_in(in, ev->time);
	return 0;
}

static int on_runtime(struct lat_state *s, const struct sched_event *ev)
{
	bool created;
	struct lat_task *lt = task_of(s, ev->task_pid, &created);

	if (!lt)
		return -ENOMEM;
	if (created)
		sched_out(lt, true, ev->time);
	lt->runtime += ev->runtime;
	return 0;
}

static int on_wakeup(struct lat_state *s, const struct sched_event *ev)
{
	bool created;
	struct lat_task *lt = task_of(s, ev->task_pid, &created);

	if (!lt)
		return -ENOMEM;
	if (created)
		sched_out(lt, false, ev->time);
	/* a wakeup of a task still on the run queue only changes its state */
	if (s->cpu == -1 && lt->state != ST_SLEEPING)
		return 0;
	s->out->nr_timestamps++;
	if (lt->sched_out > ev->time) {
		s->out->nr_unordered++;
		return 0;
	}
	lt->state = ST_WAIT_CPU;
	lt->wake_up = ev->time;
	return 0;
}

/* only with -C: the task moved in from a CPU not looked at */
static int on_migrate(struct lat_state *s, const struct sched_event *ev)
{
	bool created;
	struct lat_task *lt;

	if (s->cpu == -1)
		return 0;
	lt = task_of(s, ev->task_pid, &created);
	if (!lt)
		return -ENOMEM;
	if (created)
		sched_out(lt, true, ev->time);
	lt->sched_out = lt->wake_up = ev->time;
	s->out->nr_timestamps++;
	return 0;
}

/* ------------------------------------------------------------ the table */

static const enum sched_lat_key *sort_keys;
static int sort_nkeys;

static int cmp_key(const struct sched_lat_row *l, const struct sched_lat_row *r, enum sched_lat_key k)
{
	uint64_t a, b;

	switch (k) {
	case SCHED_LAT_PID: a = (uint64_t)(int64_t)l->tid; b = (uint64_t)(int64_t)r->tid; break;
	case SCHED_LAT_AVG:
		if (!l->switches)
			return -1;
		if (!r->switches)
			return 1;
		a = l->total_delay / l->switches;
		b = r->total_delay / r->switches;
		break;
	case SCHED_LAT_MAX: a = l->max_delay; b = r->max_delay; break;
	case SCHED_LAT_SWITCH: a = l->switches; b = r->switches; break;
	case SCHED_LAT_RUNTIME: a = l->runtime; b = r->runtime; break;
	default: return 0;
	}
	return a < b ? -1 : a > b;
}

/* the greatest first; equal rows keep their order (perf inserts them to the right) */
struct order_row { struct sched_lat_row row; size_t order; };

static int cmp_rows(const void *pa, const void *pb)
{
	const struct order_row *l = pa, *r = pb;

	for (int i = 0; i < sort_nkeys; i++) {
		int c = cmp_key(&l->row, &r->row, sort_keys[i]);

		if (c)
			return -c;
	}
	return l->order < r->order ? -1 : l->order > r->order;
}

/* perf's tree of tasks: the greatest tid first */
static int cmp_tid(const void *pa, const void *pb)
{
	const struct lat_task *l = *(struct lat_task *const *)pa, *r = *(struct lat_task *const *)pb;

	if (l->thread->tid != r->thread->tid)
		return l->thread->tid > r->thread->tid ? -1 : 1;
	return l->order < r->order ? -1 : l->order > r->order;
}

/* perf merges its tasks in that order into a tree of comms (the greatest name
   first): a comm's row is its task of the greatest tid */
static int cmp_merge(const void *pa, const void *pb)
{
	const struct lat_task *l = *(struct lat_task *const *)pa, *r = *(struct lat_task *const *)pb;
	int c = strcmp(r->thread->comm, l->thread->comm);

	return c ? c : cmp_tid(pa, pb);
}

static void add(struct sched_lat_row *row, const struct lat_task *lt)
{
	row->runtime += lt->runtime;
	row->switches += lt->nr;
	row->total_delay += lt->total_lat;
	for (int i = 0; i < SCHED_LAT_SLOTS; i++)
		row->hist[i] += lt->hist[i];
	if (lt->max_lat > row->max_delay) {
		row->max_delay = lt->max_lat;
		row->max_start = lt->max_start;
		row->max_end = lt->max_end;
	}
}

static int table(struct lat_state *s, const enum sched_lat_key *keys, int nkeys, bool per_pid)
{
	struct order_row *rows = calloc(s->nr ? s->nr : 1, sizeof(*rows));
	struct sched_lat *out = s->out;
	size_t n = 0;

	if (!rows)
		return -ENOMEM;
	qsort(s->tasks, s->nr, sizeof(*s->tasks), per_pid ? cmp_tid : cmp_merge);
	for (size_t i = 0; i < s->nr; i++) {
		const struct lat_task *lt = s->tasks[i];

		if (per_pid || !n || strcmp(rows[n - 1].row.comm, lt->thread->comm)) {
			rows[n].row.thread = lt->thread;
			rows[n].row.comm = lt->thread->comm;
			rows[n].row.tid = lt->thread->tid;
			rows[n].order = n;
			n++;
		}
		rows[n - 1].row.nr_merged++;
		add(&rows[n - 1].row, lt);
	}
	sort_keys = keys;
	sort_nkeys = nkeys;
	qsort(rows, n, sizeof(*rows), cmp_rows);
	out->rows = calloc(n ? n : 1, sizeof(*out->rows));
	if (!out->rows) {
		free(rows);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (!rows[i].row.switches || !strcmp(rows[i].row.comm, "swapper"))
			continue;
		out->rows[out->nr_rows++] = rows[i].row;
		out->total_runtime += rows[i].row.runtime;
		out->total_switches += rows[i].row.switches;
	}
	free(rows);
	return 0;
}

int sched_lat__compute(struct sched_reader *r, const enum sched_lat_key *keys, int nkeys, bool per_pid,
		       int cpu, struct sched_lat *out)
{
	struct lat_state s = { .r = r, .cpu = cpu, .out = out };
	struct sched_event ev;
	uint64_t bad, samples;
	int rc;

	memset(out, 0, sizeof(*out));
	s.nr_cpus = 4096;
	s.curr_pid = malloc(s.nr_cpus * sizeof(int));
	if (!s.curr_pid)
		return -ENOMEM;
	for (int i = 0; i < s.nr_cpus; i++)
		s.curr_pid[i] = -1;
	while ((rc = sched_reader__next(r, &ev)) > 0) {
		switch (ev.type) {
		case SCHED_EV_SWITCH: rc = on_switch(&s, &ev); break;
		case SCHED_EV_RUNTIME: rc = on_runtime(&s, &ev); break;
		case SCHED_EV_WAKEUP: case SCHED_EV_WAKEUP_NEW: rc = on_wakeup(&s, &ev); break;
		case SCHED_EV_MIGRATE: rc = on_migrate(&s, &ev); break;
		default: rc = 0; break;
		}
		if (rc)
			break;
	}
	if (!rc)
		rc = table(&s, keys, nkeys, per_pid);
	sched_reader__counts(r, &bad, &out->nr_lost, &out->nr_lost_chunks, &samples);
	out->nr_events = samples;
	sched_reader__drop_priv(r);
	free(s.tasks);
	free(s.curr_pid);
	if (rc)
		sched_lat__free(out);
	return rc;
}

void sched_lat__free(struct sched_lat *l)
{
	free(l->rows);
	l->rows = NULL;
	l->nr_rows = 0;
}

int sched_lat__key(const char *name)
{
	static const char *const names[] = { "pid", "avg", "max", "switch", "runtime" };

	for (int i = 0; i < 5; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}
