// SPDX-License-Identifier: GPL-2.0
/* statmodel.c - aggregated counts and derived metrics; see statmodel.h */
#include "lib/event/statmodel.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void runstat__add(struct runstat *s, double x)
{
	double delta;

	s->n += 1;
	delta = x - s->mean;
	s->mean += delta / s->n;
	s->m2 += delta * (x - s->mean);
}

double runstat__stddev_mean(const struct runstat *s)
{
	if (s->n < 2)
		return 0.0;
	return sqrt(s->m2 / (s->n - 1) / s->n);
}

double runstat__rel_pct(const struct runstat *s)
{
	if (!s->mean)
		return 0.0;
	return 100.0 * runstat__stddev_mean(s) / s->mean;
}

int statmodel__init(struct stat_model *m, struct evlist *evl, const struct counters *c,
		    enum stat_aggr aggr)
{
	memset(m, 0, sizeof(*m));
	m->evl = evl;
	m->aggr = aggr;
	m->nr_units = aggr == AGGR_GLOBAL ? 1 : c->nr_slots;
	m->unit_id = calloc(m->nr_units, sizeof(int));
	m->unit_label = calloc(m->nr_units, sizeof(char *));
	m->cell = calloc((size_t)evl->nr * m->nr_units, sizeof(*m->cell));
	m->supported = calloc(evl->nr, sizeof(bool));
	if (!m->unit_id || !m->unit_label || !m->cell || !m->supported) {
		statmodel__free(m);
		return -ENOMEM;
	}
	for (int u = 0; u < m->nr_units; u++) {
		int rc = 0;

		if (aggr == AGGR_CPU) {
			m->unit_id[u] = c->slots[u].cpu;
			rc = asprintf(&m->unit_label[u], "CPU%d", c->slots[u].cpu);
		} else if (aggr == AGGR_THREAD) {
			char comm[32];

			m->unit_id[u] = c->slots[u].pid;
			target__comm(c->slots[u].pid, comm, sizeof(comm));
			rc = asprintf(&m->unit_label[u], "%s-%d", comm, (int)c->slots[u].pid);
		} else {
			m->unit_label[u] = strdup("");
		}
		if (rc < 0 || !m->unit_label[u]) {
			m->unit_label[u] = NULL;
			statmodel__free(m);
			return -ENOMEM;
		}
	}
	for (int e = 0; e < evl->nr; e++)
		m->supported[e] = c->status[e] == CNT_OK;
	return 0;
}

void statmodel__take(struct stat_model *m, const struct counters *c, bool delta, bool accumulate)
{
	for (int e = 0; e < m->evl->nr; e++) {
		m->supported[e] = c->status[e] == CNT_OK;
		for (int u = 0; u < m->nr_units; u++) {
			struct stat_cell *cell = &m->cell[e * m->nr_units + u];
			struct counter_val v = m->aggr == AGGR_GLOBAL ? counters__sum(c, e, delta)
								    : counters__get(c, e, u, delta);
			double x = counter_val__scaled(v);

			if (accumulate) {
				/* -r: the shown value is the mean over the runs */
				runstat__add(&cell->rs, x < 0 ? 0 : x);
				cell->val = cell->rs.mean;
				cell->ena += v.ena;
				cell->run += v.run;
				if (x < 0 && cell->rs.n == 1)
					cell->val = -1;
			} else {
				cell->val = x;
				cell->ena = v.ena;
				cell->run = v.run;
			}
		}
	}
}

void statmodel__free(struct stat_model *m)
{
	if (m->unit_label)
		for (int u = 0; u < m->nr_units; u++)
			free(m->unit_label[u]);
	free(m->unit_label);
	free(m->unit_id);
	free(m->cell);
	free(m->supported);
	memset(m, 0, sizeof(*m));
}

/* find an event of the given type/config in the list, counted, to divide by */
static bool find_val(const struct stat_model *m, int u, unsigned type, unsigned long long config,
		     double *out)
{
	for (int e = 0; e < m->evl->nr; e++) {
		const struct perf_event_attr *a = &m->evl->ev[e].attr;

		if (a->type != type || a->config != config || !m->supported[e])
			continue;
		if (m->cell[e * m->nr_units + u].val < 0)
			continue;
		*out = m->cell[e * m->nr_units + u].val;
		return true;
	}
	return false;
}

static bool clock_ns(const struct stat_model *m, int u, double *ns)
{
	return find_val(m, u, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, ns) ||
	       find_val(m, u, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, ns);
}

static void set(struct stat_metric *o, const char *fmt, double v, const char *unit)
{
	o->has = true;
	o->fmt = fmt;
	o->value = v;
	snprintf(o->unit, sizeof(o->unit), "%s", unit);
}

static void ratio_pct(struct stat_metric *o, double num, double den, const char *unit)
{
	set(o, "%7.2f%%", den ? 100.0 * num / den : 0, unit);
}

#define HW(x)    PERF_TYPE_HARDWARE, PERF_COUNT_HW_##x
#define CACHE(c, op, r) \
	(PERF_COUNT_HW_CACHE_##c | (PERF_COUNT_HW_CACHE_OP_##op << 8) | (PERF_COUNT_HW_CACHE_RESULT_##r << 16))

void statmodel__metric(const struct stat_model *m, int ev, int u, struct stat_metric *o)
{
	const struct perf_event_attr *a = &m->evl->ev[ev].attr;
	double v = m->cell[ev * m->nr_units + u].val, den, ns;

	memset(o, 0, sizeof(*o));
	if (!m->supported[ev] || v < 0)
		return;
	if (a->type == PERF_TYPE_SOFTWARE &&
	    (a->config == PERF_COUNT_SW_TASK_CLOCK || a->config == PERF_COUNT_SW_CPU_CLOCK)) {
		if (m->wall_ns > 0)
			set(o, "%8.3f", v / m->wall_ns, "CPUs utilized");
		return;
	}
	if (a->type == PERF_TYPE_HARDWARE) {
		switch (a->config) {
		case PERF_COUNT_HW_CPU_CYCLES:
			if (clock_ns(m, u, &ns))
				set(o, "%8.3f", ns ? v / ns : 0, "GHz");
			return;
		case PERF_COUNT_HW_INSTRUCTIONS:
			if (find_val(m, u, HW(CPU_CYCLES), &den))
				set(o, "%7.2f ", den ? v / den : 0, "insn per cycle");
			return;
		case PERF_COUNT_HW_BRANCH_MISSES:
			if (find_val(m, u, HW(BRANCH_INSTRUCTIONS), &den))
				ratio_pct(o, v, den, "of all branches");
			return;
		case PERF_COUNT_HW_CACHE_MISSES:
			if (find_val(m, u, HW(CACHE_REFERENCES), &den))
				ratio_pct(o, v, den, "of all cache refs");
			return;
		case PERF_COUNT_HW_STALLED_CYCLES_FRONTEND:
			if (find_val(m, u, HW(CPU_CYCLES), &den))
				ratio_pct(o, v, den, "frontend cycles idle");
			return;
		case PERF_COUNT_HW_STALLED_CYCLES_BACKEND:
			if (find_val(m, u, HW(CPU_CYCLES), &den))
				ratio_pct(o, v, den, "backend cycles idle");
			return;
		default:
			break;
		}
	}
	if (a->type == PERF_TYPE_HW_CACHE) {
		static const struct {
			unsigned long long miss, ref;
			const char *unit;
		} pairs[] = {
			{ CACHE(L1D, READ, MISS), CACHE(L1D, READ, ACCESS), "of all L1-dcache accesses" },
			{ CACHE(L1I, READ, MISS), CACHE(L1I, READ, ACCESS), "of all L1-icache accesses" },
			{ CACHE(LL, READ, MISS), CACHE(LL, READ, ACCESS), "of all LL-cache accesses" },
			{ CACHE(DTLB, READ, MISS), CACHE(DTLB, READ, ACCESS), "of all dTLB cache accesses" },
			{ CACHE(ITLB, READ, MISS), CACHE(ITLB, READ, ACCESS), "of all iTLB cache accesses" },
		};

		for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
			if (a->config == pairs[i].miss) {
				if (find_val(m, u, PERF_TYPE_HW_CACHE, pairs[i].ref, &den))
					ratio_pct(o, v, den, pairs[i].unit);
				return;
			}
	}
	/* everything else: a rate per second of counted CPU time */
	if (clock_ns(m, u, &ns)) {
		double r = ns ? 1e9 * v / ns : 0;
		const char *unit = "/sec";

		if (r > 1e9) {
			r /= 1e9;
			unit = "G/sec";
		} else if (r > 1e6) {
			r /= 1e6;
			unit = "M/sec";
		} else if (r > 1e3) {
			r /= 1e3;
			unit = "K/sec";
		}
		set(o, "%8.3f", r, unit);
	}
}
