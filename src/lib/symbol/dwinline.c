// SPDX-License-Identifier: GPL-2.0
/*
 * dwinline.c - which inlined functions cover an address: a per-DSO index of
 * the DW_TAG_inlined_subroutine ranges of each compilation unit, and of its
 * DW_TAG_subprogram ranges (the function they are in, as DWARF names it),
 * built the first time an address of that CU is asked for (one walk of its
 * DIE tree), then searched by binary search. libdw's dwarf_getscopes() answers the same
 * question but walks the CU again for every address: 30x slower on libc.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/symbol/symbol_int.h"

struct inl_range {
	Dwarf_Addr lo, hi;
	Dwarf_Addr maxhi;	/* the largest hi of this range and every one before it */
	int depth;		/* 0: a function; 1 for an inline directly in one, 2 inside that one... */
	Dwarf_Die die;
};

struct cu_index {
	Dwarf_Off off;		/* the CU's DIE offset; 0: empty slot */
	struct inl_range *r;
	size_t n, cap;
};

struct inline_index {
	struct cu_index *cus;
	size_t cap, used;
};

static int add(struct cu_index *c, Dwarf_Die *die, int depth)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (start >= end)
			continue;
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 64;
			struct inl_range *r = realloc(c->r, cap * sizeof(*r));

			if (!r)
				return -ENOMEM;
			c->r = r;
			c->cap = cap;
		}
		c->r[c->n++] = (struct inl_range){ .lo = start, .hi = end, .depth = depth, .die = *die };
	}
	return 0;
}

static int walk(struct cu_index *c, Dwarf_Die *die, int depth, int level)
{
	Dwarf_Die child;
	int err = 0;

	if (level > 256 || dwarf_child(die, &child) != 0)
		return 0;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_inlined_subroutine:
			err = add(c, &child, depth + 1);
			if (!err)
				err = walk(c, &child, depth + 1, level + 1);
			break;
		case DW_TAG_subprogram:	/* its code (an abstract instance has none) */
			err = add(c, &child, depth);
			if (!err)
				err = walk(c, &child, depth, level + 1);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
			err = walk(c, &child, depth, level + 1);
			break;
		default:
			break;
		}
	} while (!err && dwarf_siblingof(&child, &child) == 0);
	return err;
}

static int range_cmp(const void *a, const void *b)
{
	const struct inl_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static struct cu_index *cu_get(struct inline_index *ix, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu) + 1;	/* +1: 0 marks empty slots */
	size_t i;

	if ((ix->used + 1) * 2 > ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : 64;
		struct cu_index *n = calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t k = 0; k < ix->cap; k++) {
			if (!ix->cus[k].off)
				continue;
			for (i = (ix->cus[k].off * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1); n[i].off; i = (i + 1) & (cap - 1))
				;
			n[i] = ix->cus[k];
		}
		free(ix->cus);
		ix->cus = n;
		ix->cap = cap;
	}
	for (i = (off * 0x9e3779b97f4a7c15ULL >> 20) & (ix->cap - 1); ix->cus[i].off; i = (i + 1) & (ix->cap - 1))
		if (ix->cus[i].off == off)
			return &ix->cus[i];
	struct cu_index *c = &ix->cus[i];

	c->off = off;
	ix->used++;
	if (walk(c, cu, 0, 0)) {
		c->n = 0;	/* out of memory: this CU shows no inlined frames */
		return c;
	}
	if (c->n)	/* qsort() of no array is undefined, even of 0 elements */
		qsort(c->r, c->n, sizeof(*c->r), range_cmp);
	for (size_t k = 0; k < c->n; k++)
		c->r[k].maxhi = k && c->r[k - 1].maxhi > c->r[k].hi ? c->r[k - 1].maxhi : c->r[k].hi;
	return c;
}

int dwinline__find(struct dso *d, Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out, int max, Dwarf_Die *func)
{
	struct inl_range *hit[SYM_MAX_INLINE], *fn = NULL;
	struct cu_index *c;
	size_t lo;
	int n = 0;

	if (!d->inl) {
		d->inl = calloc(1, sizeof(*d->inl));
		if (!d->inl)
			return -ENOMEM;
	}
	c = cu_get(d->inl, cu);
	if (!c)
		return -ENOMEM;
	lo = sym__upper_bound(c->r, c->n, sizeof(*c->r), offsetof(struct inl_range, lo), addr);
	for (size_t k = lo; k > 0 && c->r[k - 1].maxhi > addr; k--) {
		struct inl_range *r = &c->r[k - 1];

		if (addr >= r->hi)
			continue;
		if (!r->depth) {	/* a function: the narrowest (a nested one) */
			if (!fn || r->hi - r->lo < fn->hi - fn->lo)
				fn = r;
		} else if (n < SYM_MAX_INLINE) {
			hit[n++] = r;
		}
	}
	if (func && fn)
		*func = fn->die;
	/* innermost first: the deepest inline */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && hit[j]->depth > hit[j - 1]->depth; j--) {
			struct inl_range *t = hit[j];

			hit[j] = hit[j - 1];
			hit[j - 1] = t;
		}
	if (n > max)
		n = max;
	for (int i = 0; i < n; i++)
		out[i] = hit[i]->die;
	return n;
}

void dwinline__free(struct inline_index *ix)
{
	if (!ix)
		return;
	for (size_t i = 0; i < ix->cap; i++)
		free(ix->cus[i].r);
	free(ix->cus);
	free(ix);
}
