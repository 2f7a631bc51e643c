// SPDX-License-Identifier: GPL-2.0
/*
 * memleak_stacks.c - distinct unwound stacks, and which one each allocation
 * has: a chained hash of the stacks by their frames, and an array indexed by
 * sequence number (4 bytes an allocation).
 */
#include "lib/bpf/memleak_stacks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 4096

struct stk {
	uint64_t hash;
	int n, next;		/* next: the bucket's next stack, -1 at the end */
	uint64_t *ips;
};

struct memleak_stacks {
	struct stk *s;
	int nr, cap;
	int bucket[BUCKETS];
	int32_t *of;		/* of[seq]: stack index + 1, 0 for none */
	uint32_t nof;
};

struct memleak_stacks *memleak_stacks__new(void)
{
	struct memleak_stacks *t = calloc(1, sizeof(*t));

	for (int i = 0; t && i < BUCKETS; i++)
		t->bucket[i] = -1;
	return t;
}

void memleak_stacks__free(struct memleak_stacks *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nr; i++)
		free(t->s[i].ips);
	free(t->s);
	free(t->of);
	free(t);
}

static uint64_t hash_ips(const uint64_t *ips, int n)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)n;

	for (int i = 0; i < n; i++) {
		h ^= ips[i];
		h *= 1099511628211ULL;
		h ^= h >> 29;
	}
	return h;
}

/* the stack's index, entered if new; -errno */
static int intern(struct memleak_stacks *t, const uint64_t *ips, int n)
{
	uint64_t h = hash_ips(ips, n);
	int *b = &t->bucket[h % BUCKETS];
	struct stk *s;

	for (int i = *b; i >= 0; i = t->s[i].next)
		if (t->s[i].hash == h && t->s[i].n == n && !memcmp(t->s[i].ips, ips, n * sizeof(*ips)))
			return i;
	if (t->nr == t->cap) {
		int cap = t->cap ? t->cap * 2 : 64;
		struct stk *ns = realloc(t->s, cap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		t->s = ns;
		t->cap = cap;
	}
	s = &t->s[t->nr];
	*s = (struct stk){ .hash = h, .n = n, .next = *b, .ips = malloc(n * sizeof(*ips) + 1) };
	if (!s->ips)
		return -ENOMEM;
	memcpy(s->ips, ips, n * sizeof(*ips));
	*b = t->nr;
	return t->nr++;
}

int memleak_stacks__add(struct memleak_stacks *t, uint32_t seq, const uint64_t *ips, int n)
{
	int idx;

	if (!seq || n < 0)
		return -EINVAL;
	if (seq >= t->nof) {
		uint32_t nof = t->nof ? t->nof : 4096;
		int32_t *no;

		while (nof <= seq)
			nof *= 2;
		if (!(no = realloc(t->of, nof * sizeof(*no))))
			return -ENOMEM;
		memset(no + t->nof, 0, (nof - t->nof) * sizeof(*no));
		t->of = no;
		t->nof = nof;
	}
	if ((idx = intern(t, ips, n)) < 0)
		return idx;
	t->of[seq] = idx + 1;
	return 0;
}

int memleak_stacks__of(const struct memleak_stacks *t, uint32_t seq)
{
	return seq < t->nof ? t->of[seq] - 1 : -1;
}

const uint64_t *memleak_stacks__ips(const struct memleak_stacks *t, int idx, int *n)
{
	*n = t->s[idx].n;
	return t->s[idx].ips;
}

int memleak_stacks__nr(const struct memleak_stacks *t)
{
	return t->nr;
}
