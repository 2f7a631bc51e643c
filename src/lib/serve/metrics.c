// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - /metrics in Prometheus' text exposition format (0.0.4) or
 * OpenMetrics': the USE checklist's figures over the window since the last
 * scrape (lib/proc/use.c), the config's events counted system-wide as
 * `sonde stat -e -a` counts them (lib/event/counter.c), and the agent's own
 * counters. Series beyond the label limit of a family are dropped and
 * counted in sonde_series_dropped_total.
 */
#include "lib/serve/serve_int.h"
#include "lib/event/counter.h"
#include "lib/event/event.h"
#include "lib/proc/procstat.h"
#include "lib/proc/target.h"
#include "lib/proc/use.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>

#define USE_MIN_WINDOW 1.0	/* scrapes closer than this reuse the last window's figures */

struct metrics {
	pthread_mutex_t lock;
	struct evlist evl;
	struct counters cnt;
	struct target tg;
	bool counting;
	unsigned label_limit;
	struct ps_snap last;		/* the start of the next USE window */
	bool have_last;
	struct use_report use;		/* the last window's */
	bool have_use;
	struct serve_probe probes[SERVE_MAX_PROBES];	/* names and label names, copied */
	int nr_probes;
	struct serve_probe_src src;
};

enum { T_GAUGE, T_COUNTER, T_HISTOGRAM };

/* one sample line; a histogram's lines (_bucket.., _sum, _count) share their family and set */
struct series {
	char family[96];
	char suffix[8];		/* "_bucket", "_sum", "_count", "" */
	char labels[400];
	double value;
	int type;
	unsigned order;
	unsigned set;		/* the label set: what the label limit counts */
};

struct expo {
	struct series *s;
	size_t n, cap;
	unsigned limit;
	unsigned sets;
};

int metrics__new(struct metrics **out, const struct serve_config *c, char *err, size_t errlen)
{
	struct metrics *m = calloc(1, sizeof(*m));
	struct target_opts to = { .all = true, .accept = TARGET_ALL, .verb = "count" };
	int rc = 0;

	if (!m)
		return -ENOMEM;
	pthread_mutex_init(&m->lock, NULL);
	m->label_limit = c->label_limit ? c->label_limit : SERVE_DEFAULT_LABEL_LIMIT;
	m->src = c->src;
	for (int i = 0; i < c->nr_probes && !rc; i++)
		if (!(rc = serve_probe__copy(&m->probes[i], &c->probes[i])))
			m->nr_probes++;
	for (int i = 0; i < c->nr_events && !rc; i++)
		rc = evlist__parse(&m->evl, c->events[i].name, err, errlen);
	if (!rc && m->evl.nr != c->nr_events) {
		snprintf(err, errlen, "an event of the config names several events: give one per entry");
		rc = -EINVAL;
	}
	if (!rc && m->evl.nr) {
		rc = target__setup(&m->tg, &to, err, errlen);
		if (!rc)
			rc = counters__open(&m->cnt, &m->evl, &m->tg, err, errlen);
		m->counting = !rc;
		for (int i = 0; i < c->nr_events && !rc; i++) {
			if (!c->events[i].filter)
				continue;
			for (int s = 0; s < m->cnt.nr_slots && !rc; s++) {
				int fd = m->cnt.fd[i * m->cnt.nr_slots + s];

				if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, c->events[i].filter)) {
					rc = -errno;
					snprintf(err, errlen, "cannot set the filter '%s' of '%s': %s", c->events[i].filter,
						 c->events[i].name, strerror(errno));
				}
			}
		}
		if (!rc)
			rc = counters__enable(&m->cnt);
	}
	if (!rc && !procstat__read(&m->last, "/proc", "/sys"))
		m->have_last = true;
	if (rc) {
		metrics__free(m);
		return rc;
	}
	*out = m;
	return 0;
}

void metrics__free(struct metrics *m)
{
	if (!m)
		return;
	if (m->counting)
		counters__close(&m->cnt);
	target__free(&m->tg);
	evlist__free(&m->evl);
	if (m->have_last)
		procstat__free(&m->last);
	if (m->have_use)
		use__free(&m->use);
	for (int i = 0; i < m->nr_probes; i++)
		serve_probe__free(&m->probes[i]);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* a metric name: [a-zA-Z0-9_], anything else becomes '_' */
static void metric_name(char *dst, size_t len, const char *a, const char *b, const char *c)
{
	snprintf(dst, len, "%s%s%s%s%s", a, b ? "_" : "", b ? b : "", c ? "_" : "", c ? c : "");
	for (char *p = dst; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			*p = '_';
}

static int add_line(struct expo *e, const char *family, const char *suffix, const char *labels, double v, int type,
		    unsigned set)
{
	if (e->n == e->cap) {
		size_t nc = e->cap ? 2 * e->cap : 256;
		struct series *ns = realloc(e->s, nc * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		e->s = ns;
		e->cap = nc;
	}
	struct series *s = &e->s[e->n];

	snprintf(s->family, sizeof(s->family), "%s", family);
	snprintf(s->suffix, sizeof(s->suffix), "%s", suffix);
	snprintf(s->labels, sizeof(s->labels), "%s", labels ? labels : "");
	s->value = v;
	s->type = type;
	s->set = set;
	s->order = (unsigned)e->n++;
	return 0;
}

static int add(struct expo *e, const char *family, const char *labels, double v, bool counter)
{
	return add_line(e, family, "", labels, v, counter ? T_COUNTER : T_GAUGE, e->sets++);
}

/* one label: name="escaped value" */
static void label(char *dst, size_t len, const char *name, const char *value)
{
	char esc[256];

	serve__label_escape(esc, sizeof(esc), value);
	snprintf(dst, len, "%s=\"%s\"", name, esc);
}

static int add_use(struct expo *e, const struct use_report *r)
{
	char fam[96], lab[300];
	int rc = 0;

	for (int i = 0; i < r->nr_res && !rc; i++) {
		const struct use_resource *res = &r->res[i];

		label(lab, sizeof(lab), "resource", res->name);
		for (int k = 0; k < res->n && !rc; k++) {
			if (!isfinite(res->m[k].value))
				continue;
			metric_name(fam, sizeof(fam), "sonde_use", res->type, res->m[k].key);
			rc = add(e, fam, lab, res->m[k].value, false);
		}
	}
	return rc;
}

/* a new USE window when the last one is old enough */
static void refresh_use(struct metrics *m)
{
	struct ps_snap now;

	if (procstat__read(&now, "/proc", "/sys"))
		return;
	if (!m->have_last) {
		m->last = now;
		m->have_last = true;
		return;
	}
	if (now.t - m->last.t < USE_MIN_WINDOW) {
		procstat__free(&now);
		return;
	}
	if (m->have_use)
		use__free(&m->use);
	m->have_use = !use__build(&m->use, &m->last, &now, NULL, "/sys");
	procstat__free(&m->last);
	m->last = now;
}

static int cmp_series(const void *a, const void *b)
{
	const struct series *x = a, *y = b;
	int c = strcmp(x->family, y->family);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

static void print_value(FILE *f, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%.0f\n", v);
	else
		fprintf(f, "%.9g\n", v);
}

static const char *type_name(int type)
{
	return type == T_COUNTER ? "counter" : type == T_HISTOGRAM ? "histogram" : "gauge";
}

/* sorted by family, each with its TYPE line; label sets past the limit dropped and counted */
static int write_expo(struct expo *e, bool om, FILE *f)
{
	struct expo dropped = { 0 };
	size_t i = 0;
	int rc = 0;

	qsort(e->s, e->n, sizeof(*e->s), cmp_series);
	while (i < e->n) {
		size_t j = i;
		const struct series *s = &e->s[i];
		char base[96];
		unsigned sets = 0, shown = 0;

		while (j < e->n && !strcmp(e->s[j].family, s->family))
			j++;
		snprintf(base, sizeof(base), "%s", s->family);
		if (om && s->type == T_COUNTER && strlen(base) > 6 && !strcmp(base + strlen(base) - 6, "_total"))
			base[strlen(base) - 6] = 0;
		fprintf(f, "# TYPE %s %s\n", base, type_name(s->type));
		for (size_t k = i; k < j; k++) {
			if (k == i || e->s[k].set != e->s[k - 1].set)
				sets++;
			if (sets > e->limit)
				continue;
			shown = sets;
			fprintf(f, "%s%s%s%s%s ", e->s[k].family, e->s[k].suffix, e->s[k].labels[0] ? "{" : "",
				e->s[k].labels, e->s[k].labels[0] ? "}" : "");
			print_value(f, e->s[k].value);
		}
		if (sets > shown) {
			char lab[160];

			label(lab, sizeof(lab), "family", s->family);
			rc = add(&dropped, "sonde_series_dropped_total", lab, (double)(sets - shown), true);
		}
		i = j;
	}
	if (!rc) {
		fprintf(f, "# TYPE %s counter\n", om ? "sonde_series_dropped" : "sonde_series_dropped_total");
		for (size_t k = 0; k < dropped.n; k++) {
			fprintf(f, "sonde_series_dropped_total{%s} ", dropped.s[k].labels);
			print_value(f, dropped.s[k].value);
		}
	}
	if (om)
		fprintf(f, "# EOF\n");
	free(dropped.s);
	return rc;
}

/* ---- the probe programs' maps ---- */

struct probe_ctx {
	struct expo *e;
	const struct serve_probe *p;
};

/* the label names of map's key: the config's, else key (one part) or key1, key2, ... */
static const char *part_name(const struct serve_probe *p, const char *map, int nparts, int i, char *buf, size_t len)
{
	if (*map == '@')
		map++;
	for (int l = 0; l < p->nr_labels; l++)
		if (!strcmp(p->labels[l].map, map) && i < p->labels[l].n)
			return p->labels[l].names[i];
	if (nparts == 1)
		return "key";
	snprintf(buf, len, "key%d", i + 1);
	return buf;
}

static int add_mentry(void *ctx, const struct serve_mentry *me)
{
	struct probe_ctx *pc = ctx;
	struct expo *e = pc->e;
	const char *map = me->map[0] == '@' ? me->map + 1 : me->map;
	char fam[96], labels[400] = "", one[300], name[16], le[40];
	size_t o = 0;
	unsigned set = e->sets++;
	uint64_t cum = 0;
	int rc = 0, top = me->nb;

	metric_name(fam, sizeof(fam), "sonde_probe", pc->p->name, *map ? map : NULL);
	for (int i = 0; i < me->nparts; i++) {
		label(one, sizeof(one), part_name(pc->p, me->map, me->nparts, i, name, sizeof(name)), me->parts[i]);
		o += snprintf(labels + o, o < sizeof(labels) ? sizeof(labels) - o : 0, "%s%s", i ? "," : "", one);
		if (o >= sizeof(labels))
			return 0;	/* keys too long for a label set: left out */
	}
	if (me->type != SERVE_HISTOGRAM) {
		if (me->type == SERVE_COUNTER)
			snprintf(fam + strlen(fam), sizeof(fam) - strlen(fam), "_total");
		return add_line(e, fam, "", labels, me->value, me->type == SERVE_COUNTER ? T_COUNTER : T_GAUGE, set);
	}
	/* the buckets up to the last that counted something (65 of hist()'s would be mostly empty) */
	while (top > 0 && !me->counts[top - 1])
		top--;
	for (int b = 0; b < top && !rc; b++) {
		cum += me->counts[b];
		if (b == me->nb - 1 && me->last_unbounded)
			break;
		snprintf(le, sizeof(le), "le=\"%lld\"", me->le[b]);
		snprintf(one, sizeof(one), "%s%s%s", labels, *labels ? "," : "", le);
		rc = add_line(e, fam, "_bucket", one, (double)cum, T_HISTOGRAM, set);
	}
	snprintf(one, sizeof(one), "%s%sle=\"+Inf\"", labels, *labels ? "," : "");
	if (!rc)
		rc = add_line(e, fam, "_bucket", one, (double)cum, T_HISTOGRAM, set);
	if (!rc)	/* unknown: the map keeps counts per bucket, as ebpf_exporter says 0 */
		rc = add_line(e, fam, "_sum", labels, 0, T_HISTOGRAM, set);
	if (!rc)
		rc = add_line(e, fam, "_count", labels, (double)cum, T_HISTOGRAM, set);
	return rc;
}

static int add_probes(struct metrics *m, struct expo *e)
{
	char lab[160];
	int rc = 0;

	for (int i = 0; i < m->nr_probes && !rc; i++) {
		struct probe_ctx pc = { .e = e, .p = &m->probes[i] };

		if (m->src.each)
			rc = m->src.each(m->src.ctx, i, add_mentry, &pc);
		label(lab, sizeof(lab), "probe", m->probes[i].name);
		if (!rc && m->src.output_lines)
			rc = add(e, "sonde_probe_output_lines_total", lab, (double)m->src.output_lines(m->src.ctx, i), true);
	}
	return rc;
}

int metrics__render(struct metrics *m, const struct serve_stats *st, bool openmetrics, struct serve_buf *out)
{
	struct expo e = { .limit = m->label_limit };
	char lab[300];
	FILE *f;
	int rc = 0;

	pthread_mutex_lock(&m->lock);
	refresh_use(m);
	if (m->have_use)
		rc = add_use(&e, &m->use);
	if (!rc && m->counting && !counters__read(&m->cnt)) {
		for (int i = 0; i < m->evl.nr && !rc; i++) {
			double v = counter_val__scaled(counters__sum(&m->cnt, i, false));

			if (v < 0)
				continue;
			label(lab, sizeof(lab), "event", m->evl.ev[i].name);
			rc = add(&e, "sonde_event_total", lab, v, true);
		}
	}
	if (!rc)
		rc = add_probes(m, &e);
	pthread_mutex_unlock(&m->lock);
	if (!rc)
		rc = add(&e, "sonde_http_requests_total", NULL, (double)st->requests, true);
	if (!rc)
		rc = add(&e, "sonde_profiles_total", NULL, (double)st->profiles, true);
	if (!rc)
		rc = add(&e, "sonde_profiles_shared_total", NULL, (double)st->shared, true);
	if (!rc)
		rc = add(&e, "sonde_requests_refused_total", NULL, (double)st->refused, true);
	if (!rc)
		rc = add(&e, "sonde_bad_requests_total", NULL, (double)st->bad_requests, true);
	if (!rc) {
		if (!(f = open_memstream(&out->data, &out->len)))
			rc = -ENOMEM;
		else {
			rc = write_expo(&e, openmetrics, f);
			if (fclose(f) && !rc)
				rc = -ENOMEM;
			if (rc) {
				free(out->data);
				out->data = NULL;
			}
		}
	}
	free(e.s);
	return rc;
}
