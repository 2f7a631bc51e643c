// SPDX-License-Identifier: GPL-2.0
/*
 * sched_map.c - perf sched map's view: a row per switch, a column per CPU,
 * the task each CPU runs named by two characters given in order of first
 * appearance, and a task's name said again when a COMM record renamed it.
 */
#include "lib/sched/sched.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct map_task {
	char name[3];
	bool renamed;
};

struct map_state {
	char next1, next2;
};

/* A0, B0 ... Z0, A1 ... Z9, A0 again; "." for the idle task */
static bool name_task(struct map_state *s, struct map_task *mt, const struct sched_thread *t)
{
	if (mt->name[0])
		return false;
	if (!strcmp(t->comm, "swapper")) {
		memcpy(mt->name, ". ", 3);
		return true;
	}
	mt->name[0] = s->next1;
	mt->name[1] = s->next2;
	if (s->next1 < 'Z') {
		s->next1++;
	} else {
		s->next1 = 'A';
		s->next2 = s->next2 < '9' ? s->next2 + 1 : '0';
	}
	return true;
}

static int grow_cpus(const char ***cur, int *n, int cpu)
{
	int m = cpu + 1;
	const char **p;

	if (m <= *n)
		return 0;
	p = realloc(*cur, m * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (int i = *n; i < m; i++)
		p[i] = NULL;
	*cur = p;
	*n = m;
	return 0;
}

int sched_map__run(struct sched_reader *r, int nr_cpus, int (*fn)(const struct sched_map_line *l, void *ctx),
		   void *ctx)
{
	struct map_state s = { .next1 = 'A', .next2 = '0' };
	struct sched_event ev;
	const char **cur = NULL;
	int ncur = 0, rc;

	rc = grow_cpus(&cur, &ncur, nr_cpus > 0 ? nr_cpus - 1 : 0);
	while (!rc && (rc = sched_reader__next(r, &ev)) > 0) {
		struct sched_map_line l = { 0 };
		struct sched_thread *t;
		struct map_task *mt;

		rc = 0;
		if (ev.type == SCHED_EV_COMM) {
			mt = sched_reader__priv(r, ev.thread, sizeof(*mt), NULL);
			if (!mt)
				rc = -ENOMEM;
			else
				mt->renamed = true;
			continue;
		}
		if (ev.type != SCHED_EV_SWITCH || ev.cpu < 0 || ev.cpu >= 4096)
			continue;
		/* perf counts the columns from the highest CPU seen, not one past it */
		if (ev.cpu > nr_cpus)
			nr_cpus = ev.cpu;
		if ((rc = grow_cpus(&cur, &ncur, ev.cpu > nr_cpus - 1 ? ev.cpu : nr_cpus - 1)))
			break;
		t = sched_reader__thread(r, -1, ev.next_pid);
		if (!t || !(mt = sched_reader__priv(r, t, sizeof(*mt), NULL))) {
			rc = -ENOMEM;
			break;
		}
		l.announce = name_task(&s, mt, t) || mt->renamed;
		mt->renamed = false;
		cur[ev.cpu] = mt->name;
		l.time = ev.time;
		l.cpu = ev.cpu;
		l.nr_cpus = nr_cpus;
		l.cur = cur;
		l.in = t;
		l.in_name = mt->name;
		rc = fn(&l, ctx);
	}
	sched_reader__drop_priv(r);
	free(cur);
	return rc;
}
