// SPDX-License-Identifier: GPL-2.0
/*
 * lock_rows.c - what `sonde lock` does with the rows it read (bpf_lock.h):
 * sort them by perf lock contention's keys, merge user locks by address, find
 * the caller of a kernel contention, name lock types, add up the CPUs' parts
 * of a row.
 */
#include "lib/bpf/bpf_lock.h"
#include "lib/symbol/kdata.h"

#include <stdlib.h>
#include <string.h>

static enum lock_sort sort_key;

static uint64_t kvalue(const struct lock_row *r)
{
	switch (sort_key) {
	case LOCK_SORT_CONTENDED: return r->count;
	case LOCK_SORT_MAX: return r->max_ns;
	case LOCK_SORT_MIN: return r->min_ns;
	case LOCK_SORT_AVG: return r->count ? r->total_ns / r->count : 0;
	default: return r->total_ns;
	}
}

static uint64_t uvalue(const struct ulock_row *r)
{
	switch (sort_key) {
	case LOCK_SORT_CONTENDED: return r->kind == ULOCK_MUTEX ? r->contended : r->count;
	case LOCK_SORT_MAX: return r->wait_max_ns;
	case LOCK_SORT_AVG: return r->count ? r->wait_ns / r->count : 0;
	default: return r->wait_ns;
	}
}

static int cmp3(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;	/* largest first */
}

static int kcmp(const void *a, const void *b)
{
	const struct lock_row *x = a, *y = b;

	/* ties in a stable order: count, then the key */
	return cmp3(kvalue(x), kvalue(y)) ?: cmp3(x->count, y->count) ?: cmp3(y->addr, x->addr) ?:
	       cmp3(y->pid, x->pid) ?: cmp3(y->nips ? y->ips[0] : 0, x->nips ? x->ips[0] : 0);
}

static int ucmp(const void *a, const void *b)
{
	const struct ulock_row *x = a, *y = b;

	return cmp3(y->kind, x->kind) ?: cmp3(uvalue(x), uvalue(y)) ?: cmp3(x->count, y->count) ?:
	       cmp3(y->addr, x->addr) ?: cmp3(y->tgid, x->tgid);
}

bool lock_val__sum(const struct lock_val *vs, int n, struct lock_val *v)
{
	memset(v, 0, sizeof(*v));
	for (int i = 0; i < n; i++) {
		const struct lock_val *c = &vs[i];

		if (!c->count)
			continue;
		if (!v->count || c->min_ns < v->min_ns)
			v->min_ns = c->min_ns;
		if (!v->count) {	/* the type and name of one CPU's first */
			v->flags = c->flags;
			v->klass = c->klass;
			memcpy(v->comm, c->comm, sizeof(v->comm));
		}
		v->count += c->count;
		v->total_ns += c->total_ns;
		if (c->max_ns > v->max_ns)
			v->max_ns = c->max_ns;
	}
	return v->count > 0;
}

void lock_result__sort(struct lock_result *r, enum lock_sort key)
{
	sort_key = key;
	if (r->nk)
		qsort(r->k, r->nk, sizeof(*r->k), kcmp);
	if (r->nu)
		qsort(r->u, r->nu, sizeof(*r->u), ucmp);
}

void lock_result__merge_user_by_addr(struct lock_result *r)
{
	int n = 0;

	for (int i = 0; i < r->nu; i++) {
		struct ulock_row *s = &r->u[i], *d = NULL;

		for (int j = 0; j < n && !d; j++)
			if (r->u[j].kind == s->kind && r->u[j].tgid == s->tgid && r->u[j].addr == s->addr)
				d = &r->u[j];
		if (!d) {
			d = &r->u[n++];
			if (d != s)
				*d = *s;
			d->nips = 0;
			continue;
		}
		d->count += s->count;
		d->contended += s->contended;
		d->wait_ns += s->wait_ns;
		d->holds += s->holds;
		d->hold_ns += s->hold_ns;
		if (s->wait_max_ns > d->wait_max_ns)
			d->wait_max_ns = s->wait_max_ns;
		if (s->hold_max_ns > d->hold_max_ns)
			d->hold_max_ns = s->hold_max_ns;
	}
	r->nu = n;
}

int lock__caller(const struct kdata *kd, const uint64_t *ips, int n)
{
	int i = 0;

	while (i < n && kdata__lock_text(kd, ips[i]))
		i++;
	return i;
}

const char *lock__type_name(uint32_t flags)
{
	static const struct {
		uint32_t flags;
		const char *name;
	} types[] = {
		{ 0, "semaphore" },
		{ LCB_F_SPIN, "spinlock" },
		{ LCB_F_SPIN | LCB_F_READ, "rwlock:R" },
		{ LCB_F_SPIN | LCB_F_WRITE, "rwlock:W" },
		{ LCB_F_READ, "rwsem:R" },
		{ LCB_F_WRITE, "rwsem:W" },
		{ LCB_F_RT, "rtmutex" },
		{ LCB_F_RT | LCB_F_READ, "rwlock-rt:R" },
		{ LCB_F_RT | LCB_F_WRITE, "rwlock-rt:W" },
		{ LCB_F_PERCPU | LCB_F_READ, "pcpu-sem:R" },
		{ LCB_F_PERCPU | LCB_F_WRITE, "pcpu-sem:W" },
		{ LCB_F_MUTEX, "mutex" },
		{ LCB_F_MUTEX | LCB_F_SPIN, "mutex" },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].flags == flags)
			return types[i].name;
	return "unknown";
}

const char *lock__class_name(uint32_t klass)
{
	static const char *const names[] = { NULL, "mmap_lock", "siglock", "file_lock" };

	return klass < sizeof(names) / sizeof(names[0]) ? names[klass] : NULL;
}
