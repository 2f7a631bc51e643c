// SPDX-License-Identifier: GPL-2.0
/* hist.c - grouping samples the way perf report does; see hist.h */
#include "lib/hist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hist {
	struct hist_opts o;
	struct hist_entry *e;
	size_t n, cap;
	size_t *index;		/* open addressing over e, by key hash */
	size_t index_cap;
	char **strs;		/* interned strings */
	size_t nstrs, strs_cap;
	size_t *str_index;
	size_t str_index_cap;
	uint64_t total, samples;
};

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	return h;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	return s ? hash_bytes(h, s, strlen(s) + 1) : hash_bytes(h, "\1", 1);
}

static const char *intern(struct hist *h, const char *s)
{
	uint64_t hv;
	size_t i, mask;

	if (!s)
		return NULL;
	if ((h->nstrs + 1) * 2 > h->str_index_cap) {
		size_t nc = h->str_index_cap ? h->str_index_cap * 2 : 256;
		size_t *ni = malloc(nc * sizeof(*ni));

		if (!ni)
			return NULL;
		for (size_t k = 0; k < nc; k++)
			ni[k] = SIZE_MAX;
		for (size_t k = 0; k < h->nstrs; k++) {
			size_t j = hash_str(1469598103934665603ULL, h->strs[k]) & (nc - 1);

			while (ni[j] != SIZE_MAX)
				j = (j + 1) & (nc - 1);
			ni[j] = k;
		}
		free(h->str_index);
		h->str_index = ni;
		h->str_index_cap = nc;
	}
	hv = hash_str(1469598103934665603ULL, s);
	mask = h->str_index_cap - 1;
	for (i = hv & mask; h->str_index[i] != SIZE_MAX; i = (i + 1) & mask)
		if (!strcmp(h->strs[h->str_index[i]], s))
			return h->strs[h->str_index[i]];
	if (h->nstrs == h->strs_cap) {
		size_t nc = h->strs_cap ? h->strs_cap * 2 : 256;
		char **ns = realloc(h->strs, nc * sizeof(*ns));

		if (!ns)
			return NULL;
		h->strs = ns;
		h->strs_cap = nc;
	}
	h->strs[h->nstrs] = strdup(s);
	if (!h->strs[h->nstrs])
		return NULL;
	h->str_index[i] = h->nstrs;
	return h->strs[h->nstrs++];
}

int hist__parse_sort(struct hist_opts *o, const char *spec, const char **bad)
{
	static const char *const names[HK_MAX] = { "comm", "pid", "tid", "dso", "sym", "cpu" };
	static char badbuf[64];
	const char *p = spec;

	o->nr_keys = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		int k;

		for (k = 0; k < HK_MAX; k++)
			if (strlen(names[k]) == len && !strncmp(p, names[k], len))
				break;
		if (k == HK_MAX || o->nr_keys == HK_MAX) {
			snprintf(badbuf, sizeof(badbuf), "%.*s", (int)(len < 60 ? len : 60), p);
			*bad = badbuf;
			return -EINVAL;
		}
		o->keys[o->nr_keys++] = k;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!o->nr_keys) {
		*bad = "";
		return -EINVAL;
	}
	return 0;
}

struct hist *hist__new(const struct hist_opts *o)
{
	struct hist *h = calloc(1, sizeof(*h));

	if (h)
		h->o = *o;
	return h;
}

static void cc_free(struct cc_node *n)
{
	while (n) {
		struct cc_node *next = n->next;

		cc_free(n->child);
		free(n);
		n = next;
	}
}

void hist__free(struct hist *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n; i++)
		cc_free(h->e[i].cc);
	for (size_t i = 0; i < h->nstrs; i++)
		free(h->strs[i]);
	free(h->strs);
	free(h->str_index);
	free(h->e);
	free(h->index);
	free(h);
}

static const char *short_dso(const char *dso)
{
	const char *slash;

	if (!dso)
		return "[unknown]";
	if (dso[0] == '[')
		return dso;
	slash = strrchr(dso, '/');
	return slash ? slash + 1 : dso;
}

/* the entry's key fields for a frame of a sample */
static void fill_key(struct hist_entry *k, const struct session_sample *smp, const struct session_frame *f)
{
	memset(k, 0, sizeof(*k));
	k->comm = smp->comm;
	k->pid = smp->s->pid;
	k->tid = smp->s->tid;
	k->cpu = smp->s->cpu;
	k->dso = short_dso(f->sym.dso);
	k->sym = f->sym.sym;
	k->addr = f->sym.dso ? f->sym.dso_addr : f->ip;
	k->level = f->kernel ? 'k' : '.';
}

static uint64_t key_hash(const struct hist *h, const struct hist_entry *k)
{
	uint64_t hv = 1469598103934665603ULL;

	for (int i = 0; i < h->o.nr_keys; i++) {
		switch (h->o.keys[i]) {
		case HK_COMM: hv = hash_str(hv, k->comm); break;
		case HK_PID: hv = hash_bytes(hv, &k->pid, sizeof(k->pid)); break;
		case HK_TID: hv = hash_bytes(hv, &k->tid, sizeof(k->tid)); break;
		case HK_CPU: hv = hash_bytes(hv, &k->cpu, sizeof(k->cpu)); break;
		case HK_DSO: hv = hash_str(hv, k->dso); break;
		case HK_SYM:
			hv = hash_str(hv, k->sym);
			if (!k->sym)
				hv = hash_bytes(hv, &k->addr, sizeof(k->addr));
			hv = hash_bytes(hv, &k->level, 1);
			break;
		default: break;
		}
	}
	return hv;
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool key_eq(const struct hist *h, const struct hist_entry *a, const struct hist_entry *b)
{
	for (int i = 0; i < h->o.nr_keys; i++) {
		switch (h->o.keys[i]) {
		case HK_COMM: if (!str_eq(a->comm, b->comm)) return false; break;
		case HK_PID: if (a->pid != b->pid) return false; break;
		case HK_TID: if (a->tid != b->tid) return false; break;
		case HK_CPU: if (a->cpu != b->cpu) return false; break;
		case HK_DSO: if (!str_eq(a->dso, b->dso)) return false; break;
		case HK_SYM:
			if (!str_eq(a->sym, b->sym) || a->level != b->level)
				return false;
			if (!a->sym && a->addr != b->addr)
				return false;
			break;
		default: break;
		}
	}
	return true;
}

static int grow_index(struct hist *h)
{
	size_t nc = h->index_cap ? h->index_cap * 2 : 1024;

	while (nc < 2 * (h->n + 1))	/* never full: the probe loop must end */
		nc *= 2;
	size_t *ni = malloc(nc * sizeof(*ni));

	if (!ni)
		return -ENOMEM;
	for (size_t i = 0; i < nc; i++)
		ni[i] = SIZE_MAX;
	for (size_t k = 0; k < h->n; k++) {
		size_t j = key_hash(h, &h->e[k]) & (nc - 1);

		while (ni[j] != SIZE_MAX)
			j = (j + 1) & (nc - 1);
		ni[j] = k;
	}
	free(h->index);
	h->index = ni;
	h->index_cap = nc;
	return 0;
}

static struct hist_entry *find_or_add(struct hist *h, const struct hist_entry *k)
{
	size_t mask, i;

	if ((h->n + 1) * 2 > h->index_cap && grow_index(h))
		return NULL;
	mask = h->index_cap - 1;
	for (i = key_hash(h, k) & mask; h->index[i] != SIZE_MAX; i = (i + 1) & mask)
		if (key_eq(h, &h->e[h->index[i]], k))
			return &h->e[h->index[i]];
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 256;
		struct hist_entry *ne = realloc(h->e, nc * sizeof(*ne));

		if (!ne)
			return NULL;
		h->e = ne;
		h->cap = nc;
	}
	h->e[h->n] = *k;
	h->e[h->n].comm = intern(h, k->comm);
	h->e[h->n].dso = intern(h, k->dso);
	h->e[h->n].sym = intern(h, k->sym);
	h->index[i] = h->n;
	return &h->e[h->n++];
}

static bool frame_same(const struct cc_node *n, const char *name, uint64_t ip)
{
	if (name || n->name)
		return str_eq(n->name, name);
	return n->ip == ip;
}

/* add the path frames[from], frames[from+step], ... (count frames) to the entry's graph */
static int cc_add(struct hist *h, struct hist_entry *e, const struct session_frame *frames,
		  int from, int step, int count, uint64_t period)
{
	struct cc_node **level = &e->cc, *n = NULL;

	for (int i = 0, idx = from; i < count; i++, idx += step) {
		const struct session_frame *f = &frames[idx];
		const char *name = f->sym.sym;
		struct cc_node *c;

		for (c = *level; c; c = c->next)
			if (frame_same(c, name, f->ip))
				break;
		if (!c) {
			c = calloc(1, sizeof(*c));
			if (!c)
				return -ENOMEM;
			c->name = intern(h, name);
			c->ip = f->ip;
			c->inlined = f->sym.inlined;
			c->next = *level;
			*level = c;
		}
		c->hits += period;
		n = c;
		level = &c->child;
	}
	if (n)
		n->self += period;
	return 0;
}

int hist__add(struct hist *h, const struct session_sample *smp)
{
	/* without PERF_SAMPLE_PERIOD every sample stands for the attr's period, as in perf */
	uint64_t period = smp->ev->attr && !(smp->ev->attr->attr.sample_type & PERF_SAMPLE_PERIOD)
				  ? smp->ev->attr->attr.sample_period : smp->s->period;
	int nf = smp->nr_frames;
	struct hist_entry key, *e;
	size_t seen[128];	/* entries already counted for this sample (indices: the array moves) */
	int nseen = 0;

	if (nf < 1)
		return 0;
	if (!period)
		period = 1;
	h->total += period;
	h->samples++;
	fill_key(&key, smp, &smp->frames[0]);
	e = find_or_add(h, &key);
	if (!e)
		return -ENOMEM;
	e->self += period;
	e->nr_self++;
	e->children += period;
	e->nr_children++;
	if (h->o.callchain) {
		int rc = h->o.caller ? cc_add(h, e, smp->frames, nf - 1, -1, nf, period)
				     : cc_add(h, e, smp->frames, 0, 1, nf, period);
		if (rc)
			return rc;
	}
	if (!h->o.children)
		return 0;
	seen[nseen++] = e - h->e;
	for (int i = 1; i < nf; i++) {
		bool dup = false;
		size_t eidx;

		fill_key(&key, smp, &smp->frames[i]);
		e = find_or_add(h, &key);
		if (!e)
			return -ENOMEM;
		eidx = e - h->e;
		for (int k = 0; k < nseen; k++)
			dup |= seen[k] == eidx;
		if (dup)
			continue;	/* recursion: count a frame once per sample */
		if (nseen < 128)
			seen[nseen++] = eidx;
		e->children += period;
		e->nr_children++;
		if (h->o.callchain) {
			int rc = h->o.caller ? cc_add(h, e, smp->frames, i, -1, i + 1, period)
					     : cc_add(h, e, smp->frames, i, 1, nf - i, period);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int cmp_entry_children(const void *a, const void *b)
{
	const struct hist_entry *x = a, *y = b;

	if (x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->sym ? x->sym : "", y->sym ? y->sym : "");
}

static int cmp_entry_self(const void *a, const void *b)
{
	const struct hist_entry *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->sym ? x->sym : "", y->sym ? y->sym : "");
}

static void cc_sort(struct cc_node **head)
{
	/* insertion sort of a sibling list by hits, descending (lists are short) */
	struct cc_node *sorted = NULL, *n = *head;

	while (n) {
		struct cc_node *next = n->next, **p = &sorted;

		while (*p && (*p)->hits >= n->hits)
			p = &(*p)->next;
		n->next = *p;
		*p = n;
		n = next;
	}
	*head = sorted;
	for (n = sorted; n; n = n->next)
		cc_sort(&n->child);
}

void hist__sort(struct hist *h)
{
	if (h->n)
		qsort(h->e, h->n, sizeof(*h->e), h->o.children ? cmp_entry_children : cmp_entry_self);
	/* the index points at old positions: rebuild it so later adds still work */
	free(h->index);
	h->index = NULL;
	h->index_cap = 0;
	grow_index(h);
	for (size_t i = 0; i < h->n; i++)
		cc_sort(&h->e[i].cc);
}

size_t hist__nr_entries(const struct hist *h) { return h->n; }
const struct hist_entry *hist__entry(const struct hist *h, size_t i) { return &h->e[i]; }
uint64_t hist__total_period(const struct hist *h) { return h->total; }
uint64_t hist__nr_samples(const struct hist *h) { return h->samples; }
const struct hist_opts *hist__opts(const struct hist *h) { return &h->o; }
