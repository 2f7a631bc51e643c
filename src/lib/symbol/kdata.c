// SPDX-License-Identifier: GPL-2.0
/*
 * kdata.c - kernel data symbols and the lock text sections from /proc/kallsyms
 * (see kdata.h). A data symbol's size is not in kallsyms: it ends where the
 * next symbol of any kind starts.
 */
#include "lib/symbol/kdata.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ksd {
	uint64_t addr;
	char *name;	/* NULL: a symbol of another kind, kept only as the end of the one before */
};

struct kdata {
	struct ksd *syms;
	size_t n;
	uint64_t lock_lo, lock_hi, sched_lo, sched_hi;
	size_t ndata;
	uint64_t text_lo;	/* the lowest kernel text: heap, stacks and per-CPU offsets lie below */
};

static int ksd_cmp(const void *a, const void *b)
{
	const struct ksd *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->name == NULL) - (y->name == NULL);	/* a data symbol before another at the same address */
}

static void marker(struct kdata *k, const char *name, uint64_t addr)
{
	static const char *const names[] = { "__lock_text_start", "__lock_text_end",
					     "__sched_text_start", "__sched_text_end" };
	uint64_t *slots[] = { &k->lock_lo, &k->lock_hi, &k->sched_lo, &k->sched_hi };

	for (int i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			*slots[i] = addr;
}

int kdata__load(struct kdata **out, const char *path)
{
	struct kdata *k = calloc(1, sizeof(*k));
	size_t cap = 0, zero = 0;
	char line[1024];
	FILE *f;
	int err = 0;

	if (!k)
		return -ENOMEM;
	if (!(f = fopen(path, "re"))) {
		err = -errno;
		free(k);
		return err;
	}
	while (fgets(line, sizeof(line), f)) {
		char *e, *name, type;
		uint64_t addr = strtoull(line, &e, 16);
		bool data;

		if (e == line || e[0] != ' ' || !e[1] || e[2] != ' ')
			continue;
		type = e[1];
		name = e + 3;
		name[strcspn(name, " \t\n")] = 0;
		if (strchr(name, '[') || !*name || !strncmp(name, "__start", 7) || !strncmp(name, "__stop", 6))
			continue;
		if (!addr) {
			zero++;
			continue;
		}
		marker(k, name, addr);
		if ((type == 't' || type == 'T') && (!k->text_lo || addr < k->text_lo))
			k->text_lo = addr;
		data = strchr("dDbBrR", type) != NULL;
		if (k->n == cap) {
			size_t nc = cap ? cap * 2 : 65536;
			struct ksd *ns = realloc(k->syms, nc * sizeof(*ns));

			if (!ns) {
				err = -ENOMEM;
				break;
			}
			k->syms = ns;
			cap = nc;
		}
		k->syms[k->n].addr = addr;
		k->syms[k->n].name = data ? strdup(name) : NULL;
		if (data && !k->syms[k->n].name) {
			err = -ENOMEM;
			break;
		}
		k->ndata += data;
		k->n++;
	}
	fclose(f);
	if (!err && !k->n)
		err = zero ? -EPERM : -ENOENT;
	if (err) {
		kdata__free(k);
		return err;
	}
	qsort(k->syms, k->n, sizeof(*k->syms), ksd_cmp);
	*out = k;
	return 0;
}

void kdata__free(struct kdata *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		free(k->syms[i].name);
	free(k->syms);
	free(k);
}

const char *kdata__name(const struct kdata *k, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = k ? k->n : 0;

	if (!k || addr < k->text_lo)
		return NULL;
	while (lo < hi) {		/* the first symbol past addr */
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* the data symbol starting at or before addr, unless another kind starts in between */
	for (size_t i = lo; i-- > 0;) {
		if (k->syms[i].addr != k->syms[lo - 1].addr)
			break;
		if (k->syms[i].name && addr - k->syms[i].addr < (1 << 20)) {
			*off = addr - k->syms[i].addr;
			return k->syms[i].name;
		}
	}
	return NULL;
}

bool kdata__lock_text(const struct kdata *k, uint64_t addr)
{
	return k && ((addr >= k->lock_lo && addr < k->lock_hi) || (addr >= k->sched_lo && addr < k->sched_hi));
}

bool kdata__has_data(const struct kdata *k)
{
	/* without CONFIG_KALLSYMS_ALL a few section markers are left (__init_begin); with it, thousands */
	return k && k->ndata >= 64;
}
