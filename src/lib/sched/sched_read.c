// SPDX-License-Identifier: GPL-2.0
/*
 * sched_read.c - the sched tracepoints of a recording decoded into events,
 * with the threads as perf's session tracks them: a thread is created on
 * first sight (named ":TID" until a COMM record names it), a FORK record
 * makes a new thread that takes its parent's name, tid 0 is "swapper". The
 * fields are found by name in the events' formats (the file's tracing data,
 * or tracefs), so kernels that moved them are read too.
 */
#include "lib/sched/sched.h"
#include "lib/perfdata/perfdata.h"
#include "lib/perfdata/tracedata.h"
#include "lib/tracefs/tracefs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tp_names[SCHED_EV_NR_TP] = {
	[SCHED_EV_SWITCH] = "sched_switch",
	[SCHED_EV_WAKEUP] = "sched_wakeup",
	[SCHED_EV_WAKING] = "sched_waking",
	[SCHED_EV_WAKEUP_NEW] = "sched_wakeup_new",
	[SCHED_EV_MIGRATE] = "sched_migrate_task",
	[SCHED_EV_RUNTIME] = "sched_stat_runtime",
};

struct field {
	unsigned off, size;
	int is_signed;
	bool ok;
};

/* per attr: which event, and where its fields are */
struct attr_info {
	int type;			/* enum sched_ev_type, -1 for other events */
	struct field f[6];		/* see the F_ names */
};
enum { F_PREV_PID, F_NEXT_PID, F_PREV_STATE, F_PREV_COMM, F_NEXT_COMM, F_X = F_PREV_PID };
/* for the per-task events: pid, comm, then runtime or orig_cpu, dest_cpu */
enum { F_PID, F_COMM, F_RUNTIME, F_ORIG = F_RUNTIME, F_DEST };

struct sched_reader {
	struct perfdata_reader *pr;
	struct tracedata *td;
	struct attr_info *ai;
	int nr_attrs;
	bool has[SCHED_EV_NR_TP];
	int nr_cpus;
	/* threads: every one ever made, and tid -> the current one (open addressing) */
	struct sched_thread **all;
	size_t nr_all, cap_all;
	struct sched_thread **slot;
	size_t nr_slots, nr_used;
	unsigned long nr_replaced;
	uint64_t bad, lost, lost_records, samples;
	struct sched_thread **with_priv;	/* threads whose priv an analysis made */
	size_t nr_priv, cap_priv;
};

static int type_of(const struct perfdata_attr *a)
{
	const char *n = a->name;

	if (a->attr.type != PERF_TYPE_TRACEPOINT)
		return -1;
	if (n && !strncmp(n, "sched:", 6)) {
		for (int t = 0; t < SCHED_EV_NR_TP; t++)
			if (!strcmp(n + 6, tp_names[t]))
				return t;
		return -1;
	}
	/* no event names in the file: this machine's ids */
	for (int t = 0; t < SCHED_EV_NR_TP; t++)
		if (tracefs__event_id("sched", tp_names[t]) == (long long)a->attr.config)
			return t;
	return -1;
}

static void find(struct sched_reader *r, uint64_t id, struct field *f, const char *name)
{
	f->ok = !tracedata__field(r->td, id, name, &f->off, &f->size, &f->is_signed);
}

static void resolve(struct sched_reader *r, struct attr_info *ai, uint64_t id)
{
	switch (ai->type) {
	case SCHED_EV_SWITCH:
		find(r, id, &ai->f[F_PREV_PID], "prev_pid");
		find(r, id, &ai->f[F_NEXT_PID], "next_pid");
		find(r, id, &ai->f[F_PREV_STATE], "prev_state");
		find(r, id, &ai->f[F_PREV_COMM], "prev_comm");
		find(r, id, &ai->f[F_NEXT_COMM], "next_comm");
		break;
	case SCHED_EV_MIGRATE:
		find(r, id, &ai->f[F_ORIG], "orig_cpu");
		find(r, id, &ai->f[F_DEST], "dest_cpu");
		/* fall through */
	default:
		find(r, id, &ai->f[F_PID], "pid");
		find(r, id, &ai->f[F_COMM], "comm");
		if (ai->type == SCHED_EV_RUNTIME)
			find(r, id, &ai->f[F_RUNTIME], "runtime");
		break;
	}
}

int sched_reader__open(struct sched_reader **out, const char *path, char *err, size_t errlen)
{
	struct sched_reader *r = calloc(1, sizeof(*r));
	const struct perfdata_attr *attrs;
	const struct perfdata_features *feat;
	int rc;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	rc = perfdata_reader__open(&r->pr, path, err, errlen);
	if (rc)
		goto fail;
	feat = perfdata_reader__features(r->pr);
	rc = tracedata__new(&r->td, feat->tracing_data, feat->tracing_data_size, err, errlen);
	if (rc)
		goto fail;
	r->nr_cpus = (int)feat->nr_cpus_online;
	attrs = perfdata_reader__attrs(r->pr, &r->nr_attrs);
	r->ai = calloc(r->nr_attrs ? r->nr_attrs : 1, sizeof(*r->ai));
	if (!r->ai) {
		rc = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < r->nr_attrs; i++) {
		r->ai[i].type = type_of(&attrs[i]);
		if (r->ai[i].type < 0)
			continue;
		resolve(r, &r->ai[i], attrs[i].attr.config);
		r->has[r->ai[i].type] = true;
	}
	if (!r->has[SCHED_EV_SWITCH]) {
		snprintf(err, errlen, "'%s' has no sched:sched_switch events: record with 'sonde sched record' "
			 "or 'perf sched record'", path);
		rc = -ENOENT;
		goto fail;
	}
	*out = r;
	return 0;
fail:
	sched_reader__free(r);
	return rc;
}

void sched_reader__free(struct sched_reader *r)
{
	if (!r)
		return;
	sched_reader__drop_priv(r);
	free(r->with_priv);
	for (size_t i = 0; i < r->nr_all; i++)
		free(r->all[i]);
	free(r->all);
	free(r->slot);
	free(r->ai);
	tracedata__free(r->td);
	perfdata_reader__free(r->pr);
	free(r);
}

bool sched_reader__has(const struct sched_reader *r, enum sched_ev_type type)
{
	return type < SCHED_EV_NR_TP && r->has[type];
}

int sched_reader__nr_cpus(const struct sched_reader *r)
{
	return r->nr_cpus;
}

void sched_reader__counts(const struct sched_reader *r, uint64_t *bad, uint64_t *lost, uint64_t *lost_records,
			  uint64_t *samples)
{
	*bad = r->bad;
	*lost = r->lost;
	*lost_records = r->lost_records;
	*samples = r->samples;
}

struct sched_thread *const *sched_reader__threads(const struct sched_reader *r, size_t *n)
{
	*n = r->nr_all;
	return r->all;
}

/* ------------------------------------------------------------ threads */

void *sched_reader__priv(struct sched_reader *r, struct sched_thread *t, size_t size, bool *created)
{
	if (created)
		*created = false;
	if (t->priv)
		return t->priv;
	if (r->nr_priv == r->cap_priv) {
		size_t cap = r->cap_priv ? r->cap_priv * 2 : 256;
		void *p = realloc(r->with_priv, cap * sizeof(*r->with_priv));

		if (!p)
			return NULL;
		r->with_priv = p;
		r->cap_priv = cap;
	}
	t->priv = calloc(1, size);
	if (!t->priv)
		return NULL;
	r->with_priv[r->nr_priv++] = t;
	if (created)
		*created = true;
	return t->priv;
}

void sched_reader__drop_priv(struct sched_reader *r)
{
	for (size_t i = 0; i < r->nr_priv; i++) {
		free(r->with_priv[i]->priv);
		r->with_priv[i]->priv = NULL;
	}
	r->nr_priv = 0;
}

static size_t hash(int tid, size_t n)
{
	return ((uint32_t)tid * 2654435761u) & (n - 1);
}

static struct sched_thread **lookup(struct sched_reader *r, int tid)
{
	size_t i;

	if (!r->nr_slots)
		return NULL;
	for (i = hash(tid, r->nr_slots); r->slot[i]; i = (i + 1) & (r->nr_slots - 1))
		if (r->slot[i]->tid == tid)
			return &r->slot[i];
	return &r->slot[i];
}

static int grow(struct sched_reader *r)
{
	size_t n = r->nr_slots ? r->nr_slots * 2 : 1024;
	struct sched_thread **old = r->slot;
	size_t old_n = r->nr_slots;

	r->slot = calloc(n, sizeof(*r->slot));
	if (!r->slot) {
		r->slot = old;
		return -ENOMEM;
	}
	r->nr_slots = n;
	for (size_t i = 0; i < old_n; i++)
		if (old[i])
			*lookup(r, old[i]->tid) = old[i];
	free(old);
	return 0;
}

/* a new thread for tid in place of the current one (a FORK, or first sight) */
static struct sched_thread *new_thread(struct sched_reader *r, int pid, int tid)
{
	struct sched_thread *t, **s;

	if ((r->nr_used + 1) * 2 > r->nr_slots && grow(r))
		return NULL;
	if (r->nr_all == r->cap_all) {
		size_t cap = r->cap_all ? r->cap_all * 2 : 256;
		void *p = realloc(r->all, cap * sizeof(*r->all));

		if (!p)
			return NULL;
		r->all = p;
		r->cap_all = cap;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	t->ppid = -1;
	if (tid == 0) {
		strcpy(t->comm, "swapper");
		t->comm_set = true;
	} else {
		snprintf(t->comm, sizeof(t->comm), ":%d", tid);
	}
	r->all[r->nr_all++] = t;
	s = lookup(r, tid);
	if (!*s)
		r->nr_used++;
	else
		(*s)->replaced = ++r->nr_replaced;
	*s = t;
	return t;
}

struct sched_thread *sched_reader__thread(struct sched_reader *r, int pid, int tid)
{
	struct sched_thread **s = lookup(r, tid);

	if (s && *s) {
		if ((*s)->pid == -1 && pid != -1)
			(*s)->pid = pid;
		return *s;
	}
	return new_thread(r, pid, tid);
}

/* ------------------------------------------------------------ events */

static long long field_int(const struct field *f, const uint8_t *raw, uint32_t size)
{
	if (!f->ok || f->off + f->size > size)
		return 0;
	switch (f->size) {
	case 1: return f->is_signed ? (long long)(int8_t)raw[f->off] : (long long)raw[f->off];
	case 2: { uint16_t v; memcpy(&v, raw + f->off, 2); return f->is_signed ? (long long)(int16_t)v : (long long)v; }
	case 4: { uint32_t v; memcpy(&v, raw + f->off, 4); return f->is_signed ? (long long)(int32_t)v : (long long)v; }
	case 8: { uint64_t v; memcpy(&v, raw + f->off, 8); return (long long)v; }
	default: return 0;
	}
}

static void field_str(const struct field *f, const uint8_t *raw, uint32_t size, char *buf, size_t len)
{
	size_t n = 0;

	if (f->ok && f->off + f->size <= size)
		for (; n < f->size && n + 1 < len && raw[f->off + n]; n++)
			buf[n] = (char)raw[f->off + n];
	buf[n] = 0;
}

static void decode(const struct attr_info *ai, const struct perfdata_sample *s, struct sched_event *ev)
{
	const uint8_t *raw = s->raw;
	uint32_t n = s->raw_size;

	if (ai->type == SCHED_EV_SWITCH) {
		ev->prev_pid = (int)field_int(&ai->f[F_PREV_PID], raw, n);
		ev->next_pid = (int)field_int(&ai->f[F_NEXT_PID], raw, n);
		ev->prev_state = field_int(&ai->f[F_PREV_STATE], raw, n);
		field_str(&ai->f[F_PREV_COMM], raw, n, ev->prev_comm, sizeof(ev->prev_comm));
		field_str(&ai->f[F_NEXT_COMM], raw, n, ev->next_comm, sizeof(ev->next_comm));
		return;
	}
	ev->task_pid = (int)field_int(&ai->f[F_PID], raw, n);
	field_str(&ai->f[F_COMM], raw, n, ev->comm, sizeof(ev->comm));
	if (ai->type == SCHED_EV_RUNTIME)
		ev->runtime = (uint64_t)field_int(&ai->f[F_RUNTIME], raw, n);
	if (ai->type == SCHED_EV_MIGRATE) {
		ev->orig_cpu = (int)field_int(&ai->f[F_ORIG], raw, n);
		ev->dest_cpu = (int)field_int(&ai->f[F_DEST], raw, n);
	}
}

/*
 * perf's fork: the child is a new thread named as its parent, if the parent
 * has a name; a parent known with another pid is taken for a stale one (its
 * fork was lost) and replaced by a new, unnamed thread first
 */
static void fork_thread(struct sched_reader *r, const struct perfdata_event *pe, struct sched_event *ev)
{
	struct sched_thread *parent = sched_reader__thread(r, (int)pe->task.ppid, (int)pe->task.ptid);
	struct sched_thread *child;
	char comm[32];
	bool named;

	if (parent && parent->pid != (int)pe->task.ppid)
		parent = new_thread(r, (int)pe->task.ppid, (int)pe->task.ptid);
	named = parent && parent->comm_set;

	if (named)
		memcpy(comm, parent->comm, sizeof(comm));
	child = new_thread(r, (int)pe->task.pid, (int)pe->task.tid);
	if (child && named) {
		memcpy(child->comm, comm, sizeof(comm));
		child->comm_set = true;
	}
	if (child && parent)
		child->ppid = parent->tid;
	ev->type = SCHED_EV_FORK;
	ev->thread = child;
	ev->parent = parent;
}

int sched_reader__next(struct sched_reader *r, struct sched_event *ev)
{
	struct perfdata_event pe;
	int rc;

	for (;;) {
		rc = perfdata_reader__next(r->pr, &pe);
		if (rc == -EBADMSG) {
			r->bad++;
			continue;
		}
		if (rc <= 0)
			return rc;
		memset(ev, 0, sizeof(*ev));
		ev->time = pe.time;
		ev->cpu = (int)pe.cpu;
		switch (pe.type) {
		case PERF_RECORD_COMM: {
			struct sched_thread *t = sched_reader__thread(r, (int)pe.comm.pid, (int)pe.comm.tid);

			if (!t)
				return -ENOMEM;
			snprintf(t->comm, sizeof(t->comm), "%s", pe.comm.comm);
			t->comm_set = true;
			ev->type = SCHED_EV_COMM;
			ev->thread = t;
			return 1;
		}
		case PERF_RECORD_FORK:
			fork_thread(r, &pe, ev);
			if (!ev->thread || !ev->parent)
				return -ENOMEM;
			return 1;
		case PERF_RECORD_EXIT: {	/* perf marks the thread of that tid, if it knows one */
			struct sched_thread **t = lookup(r, (int)pe.task.tid);

			if (t && *t)
				(*t)->dead = true;
			continue;
		}
		case PERF_RECORD_LOST:
		case PERF_RECORD_LOST_SAMPLES:
			r->lost += pe.lost.lost;
			r->lost_records += pe.type == PERF_RECORD_LOST;
			ev->type = SCHED_EV_LOST;
			ev->lost = pe.lost.lost;
			return 1;
		case PERF_RECORD_SAMPLE:
			r->samples++;
			if (pe.attr_idx < 0 || pe.attr_idx >= r->nr_attrs || r->ai[pe.attr_idx].type < 0)
				continue;
			ev->type = r->ai[pe.attr_idx].type;
			ev->pid = (int)pe.sample.pid;
			ev->tid = (int)pe.sample.tid;
			ev->cpu = (int)pe.sample.cpu;
			ev->time = pe.sample.time;
			decode(&r->ai[pe.attr_idx], &pe.sample, ev);
			return 1;
		default:
			continue;
		}
	}
}
