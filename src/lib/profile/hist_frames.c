// SPDX-License-Identifier: GPL-2.0
/*
 * hist_frames.c - a hist's strings (each copied once, so entries and graph
 * nodes compare addresses), what it takes of a frame, and the stacks that wait
 * to be added with the sum of their samples; see hist_int.h
 */
#include "lib/profile/hist_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/symbol/symbol.h"

static uint64_t hash_str(uint64_t h, const char *s)
{
	return s ? hash_bytes(h, s, strlen(s) + 1) : hash_bytes(h, "\1", 1);
}

const char *hist__intern(struct hist *h, const char *s)
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

const char *hist__short_dso(struct hist *h, const char *dso)
{
	char buf[48];
	const char *n = session__dso_short_name(dso, buf, sizeof(buf));

	return n == buf ? hist__intern(h, buf) ?: dso : n;
}

static int grow_canon(struct hist *h)
{
	size_t nc = h->canon_cap ? h->canon_cap * 2 : 1024;
	struct canon_slot *n = calloc(nc, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < h->canon_cap; i++) {
		const struct canon_slot *o = &h->canon[i];
		size_t j;

		if (!o->p)
			continue;
		for (j = mix((uintptr_t)o->p, o->kind) & (nc - 1); n[j].p; j = (j + 1) & (nc - 1))
			;
		n[j] = *o;
	}
	free(h->canon);
	h->canon = n;
	h->canon_cap = nc;
	return 0;
}

/*
 * the hist's copy of p, a string of the frames (stable as long as the hist is used: the
 * symbolizer's), as kind makes it: the symbol, "symbol (inlined)" or the DSO's short name.
 * Made once per string, not per frame: then entries and graph nodes hash and compare their
 * strings by address. NULL: out of memory.
 */
static const char *canon(struct hist *h, const char *p, int kind)
{
	size_t mask, i;
	const char *s;

	if ((h->ncanon + 1) * 2 > h->canon_cap && grow_canon(h))
		return NULL;
	mask = h->canon_cap - 1;
	for (i = mix((uintptr_t)p, kind) & mask; h->canon[i].p; i = (i + 1) & mask)
		if (h->canon[i].p == p && h->canon[i].kind == kind)
			return h->canon[i].s;
	if (kind == CANON_INLINED) {	/* perf: "spin_inline (inlined)", an entry of its own */
		char buf[4200];

		snprintf(buf, sizeof(buf), "%s (inlined)", p);
		s = hist__intern(h, buf);
	} else {
		s = hist__intern(h, kind == CANON_DSO ? hist__short_dso(h, p) : p);
	}
	if (!s)
		return NULL;
	h->canon[i] = (struct canon_slot){ .p = p, .kind = kind, .s = s };
	h->ncanon++;
	return s;
}

int hist__frame(struct hist *h, const struct session_frame *f, struct hframe *o)
{
	const struct sym_frame *sf = &f->sym;

	memset(o, 0, sizeof(*o));
	o->ip = f->ip;
	o->dso_addr = sf->dso_addr;
	o->kernel = f->kernel;
	o->inlined = sf->inlined;
	o->has_dso = sf->dso;
	o->dso_rank = f->kernel ? 1 : sf->object ? 1 + symbolizer__dso_seq(sf) : sf->dso ? 1 : 0;
	o->key = sf->sym ? (f->kernel ? f->ip : sf->dso_addr) - sf->offset : f->ip;
	if (sf->sym) {
		o->name = canon(h, sf->sym, CANON_SYM);
		o->sym = sf->inlined ? canon(h, sf->sym, CANON_INLINED) : o->name;
		if (!o->name || !o->sym)
			return -ENOMEM;
	}
	if (!sf->dso && !h->unknown_dso)
		h->unknown_dso = hist__intern(h, "[unknown]");
	o->dso = sf->dso ? canon(h, sf->dso, CANON_DSO) : h->unknown_dso;
	return o->dso ? 0 : -ENOMEM;
}

static int grow_stack_index(struct hist *h)
{
	size_t nc = h->stack_index_cap ? h->stack_index_cap * 2 : 1024;
	size_t *ni = malloc(nc * sizeof(*ni));

	if (!ni)
		return -ENOMEM;
	for (size_t i = 0; i < nc; i++)
		ni[i] = SIZE_MAX;
	for (size_t k = 0; k < h->nstacks; k++) {
		size_t j = h->stacks[k].hash & (nc - 1);

		while (ni[j] != SIZE_MAX)
			j = (j + 1) & (nc - 1);
		ni[j] = k;
	}
	free(h->stack_index);
	h->stack_index = ni;
	h->stack_index_cap = nc;
	return 0;
}

static uint64_t thread_hash(uint64_t hv, const struct sample_info *si)
{
	return mix(mix(mix(mix(hv, (uintptr_t)si->comm), si->pid), si->tid), (uint32_t)si->cpu);
}

static bool same_thread(const struct sample_info *a, const struct sample_info *b)
{
	return a->comm == b->comm && a->pid == b->pid && a->tid == b->tid && a->cpu == b->cpu;
}

static size_t alias_slot(const struct hist *h, uint32_t stack_id, const struct sample_info *si)
{
	return thread_hash(stack_id, si) & (h->alias_cap - 1);
}

struct hstack *hist__stack_find(struct hist *h, uint32_t stack_id, const struct sample_info *si)
{
	size_t mask, i;

	if (!h->naliases)
		return NULL;
	mask = h->alias_cap - 1;
	for (i = alias_slot(h, stack_id, si); h->aliases[i].stack_id; i = (i + 1) & mask) {
		struct hstack *st = &h->stacks[h->aliases[i].st];

		if (h->aliases[i].stack_id == stack_id && same_thread(&st->si, si))
			return st;
	}
	return NULL;
}

/* stack_id of si is the waiting stack st from now on; -ENOMEM */
static int alias_add(struct hist *h, uint32_t stack_id, const struct sample_info *si, size_t st)
{
	size_t i;

	if ((h->naliases + 1) * 2 > h->alias_cap) {
		size_t nc = h->alias_cap ? h->alias_cap * 2 : 1024, oc = h->alias_cap;
		struct stack_alias *old = h->aliases, *n = calloc(nc, sizeof(*n));

		if (!n)
			return -ENOMEM;
		h->aliases = n;
		h->alias_cap = nc;
		for (size_t k = 0; k < oc; k++) {
			if (!old[k].stack_id)
				continue;
			for (i = alias_slot(h, old[k].stack_id, &h->stacks[old[k].st].si); n[i].stack_id;
			     i = (i + 1) & (nc - 1))
				;
			n[i] = old[k];
		}
		free(old);
	}
	for (i = alias_slot(h, stack_id, si); h->aliases[i].stack_id; i = (i + 1) & (h->alias_cap - 1))
		;
	h->aliases[i] = (struct stack_alias){ .stack_id = stack_id, .st = (uint32_t)st };
	h->naliases++;
	return 0;
}

/*
 * a and b make the same entries and graph nodes: the same strings (interned: one pointer),
 * function and level; and for a frame of no symbol, the same addresses (its entry and node
 * are its address's)
 */
static bool same_frame(const struct hframe *a, const struct hframe *b)
{
	return a->name == b->name && a->sym == b->sym && a->dso == b->dso && a->key == b->key &&
	       a->dso_rank == b->dso_rank && a->kernel == b->kernel && a->inlined == b->inlined &&
	       a->has_dso == b->has_dso && (a->name || (a->ip == b->ip && a->dso_addr == b->dso_addr));
}

static uint64_t frame_hash(uint64_t hv, const struct hframe *f)
{
	hv = mix(mix(mix(hv, (uintptr_t)f->sym), (uintptr_t)f->dso), f->key);
	hv = mix(hv, f->dso_rank << 3 | f->kernel << 2 | f->inlined << 1 | f->has_dso);
	return f->name ? hv : mix(mix(hv, f->ip), f->dso_addr);
}

struct hstack *hist__stack_get(struct hist *h, uint32_t stack_id, const struct sample_info *si,
			       const struct hframe *hf, int nf, const struct hframe *self)
{
	uint64_t hv = frame_hash(thread_hash((uint64_t)nf, si), self);
	size_t mask, i, k;
	struct hstack *st;

	for (int f = 0; f < nf; f++)
		hv = frame_hash(hv, &hf[f]);
	if ((h->nstacks + 1) * 2 > h->stack_index_cap && grow_stack_index(h))
		return NULL;
	mask = h->stack_index_cap - 1;
	for (i = hv & mask; (k = h->stack_index[i]) != SIZE_MAX; i = (i + 1) & mask) {
		const struct hframe *p;
		int f;

		st = &h->stacks[k];
		if (st->hash != hv || st->nf != nf || !same_thread(&st->si, si))
			continue;
		p = &h->pool[st->first];
		for (f = 0; f < nf && same_frame(&p[f], &hf[f]); f++)
			;
		if (f == nf && same_frame(&p[nf], self))
			return stack_id && alias_add(h, stack_id, si, k) ? NULL : st;
	}
	/* written once through (and again after a flush): pages of their own */
	if (util__grow_mapped(&h->stacks, &h->stacks_cap, h->nstacks + 1, sizeof(*h->stacks)) ||
	    util__grow_mapped(&h->pool, &h->pool_cap, h->npool + nf + 1, sizeof(*h->pool)))
		return NULL;
	st = &h->stacks[h->nstacks];
	*st = (struct hstack){ .hash = hv, .nf = nf, .si = *si, .first = h->npool };
	memcpy(&h->pool[h->npool], hf, nf * sizeof(*hf));
	h->pool[h->npool + nf] = *self;
	h->npool += nf + 1;
	h->stack_index[i] = h->nstacks++;
	return stack_id && alias_add(h, stack_id, si, h->nstacks - 1) ? NULL : st;
}

void hist__stacks_forget(struct hist *h)
{
	h->nstacks = 0;
	h->npool = 0;
	for (size_t i = 0; i < h->stack_index_cap; i++)
		h->stack_index[i] = SIZE_MAX;
	if (h->naliases)
		memset(h->aliases, 0, h->alias_cap * sizeof(*h->aliases));
	h->naliases = 0;
}
