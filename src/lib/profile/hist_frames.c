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

static uint64_t stack_hash(uint32_t stack_id, const struct sample_info *si)
{
	return mix(mix(mix(mix(mix(stack_id, (uintptr_t)si->comm), si->pid), si->tid), (uint32_t)si->cpu), 1);
}

struct hstack *hist__stack_find(struct hist *h, uint32_t stack_id, const struct sample_info *si)
{
	size_t mask, i;

	if (!h->nstacks)
		return NULL;
	mask = h->stack_index_cap - 1;
	for (i = stack_hash(stack_id, si) & mask; h->stack_index[i] != SIZE_MAX; i = (i + 1) & mask) {
		struct hstack *st = &h->stacks[h->stack_index[i]];

		if (st->stack_id == stack_id && st->si.comm == si->comm && st->si.pid == si->pid &&
		    st->si.tid == si->tid && st->si.cpu == si->cpu)
			return st;
	}
	return NULL;
}

struct hstack *hist__stack_new(struct hist *h, uint32_t stack_id, const struct sample_info *si,
			       const struct hframe *hf, int nf, const struct hframe *self)
{
	uint64_t hv = stack_hash(stack_id, si);
	size_t mask, i;
	struct hstack *st;

	if ((h->nstacks + 1) * 2 > h->stack_index_cap && grow_stack_index(h))
		return NULL;
	/* written once through (and again after a flush): pages of their own */
	if (util__grow_mapped(&h->stacks, &h->stacks_cap, h->nstacks + 1, sizeof(*h->stacks)) ||
	    util__grow_mapped(&h->pool, &h->pool_cap, h->npool + nf + 1, sizeof(*h->pool)))
		return NULL;
	mask = h->stack_index_cap - 1;
	for (i = hv & mask; h->stack_index[i] != SIZE_MAX; i = (i + 1) & mask)
		;
	st = &h->stacks[h->nstacks];
	*st = (struct hstack){ .hash = hv, .stack_id = stack_id, .nf = nf, .si = *si, .first = h->npool };
	memcpy(&h->pool[h->npool], hf, nf * sizeof(*hf));
	h->pool[h->npool + nf] = *self;
	h->npool += nf + 1;
	h->stack_index[i] = h->nstacks++;
	return st;
}
