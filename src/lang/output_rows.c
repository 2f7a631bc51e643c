// SPDX-License-Identifier: GPL-2.0
/*
 * output_rows.c - the user side of `for ($kv : @m) sort(KEY[, LIMIT])`
 * (sortloop.c). Between REC_ROWS_BEGIN and REC_ROWS_END every record's text
 * goes to the open row: out->f is, meanwhile, a memory stream of its own,
 * started by each REC_ROW with its key. At the end the rows are sorted by key
 * (equal keys in arrival order) and the first LIMIT that hold text are
 * written where the loop began, which is the row of an outer sorted loop
 * when loops nest.
 */
#include "lang/output.h"

#include <stdlib.h>
#include <string.h>

struct row {
	char *text;
	size_t len;
	uint8_t *key;
	const struct type *t;
	int seq;
};

struct rowgroup {
	FILE *saved;		/* where the loop began: the rows go there */
	long long limit;
	struct row *v;
	int n, cap;
	FILE *cur;		/* the open row's stream, which out->f is, or NULL */
	struct rowgroup *outer;
};

static int cmp_key(const struct type *t, const uint8_t *a, const uint8_t *b)
{
	switch (t->kind) {
	case TY_INT: {
		uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

		if (x == y)
			return 0;
		if (t->sign)
			return (int64_t)x < (int64_t)y ? -1 : 1;
		return x < y ? -1 : 1;
	}
	case TY_STR:
		return strncmp((const char *)a, (const char *)b, t->size);
	case TY_TUPLE: {
		int off = 0;

		for (int i = 0; i < t->ntup; i++) {
			int r = cmp_key(&t->tup[i], a + off, b + off);

			if (r)
				return r;
			off += (t->tup[i].size + 7) & ~7;
		}
		return 0;
	}
	default:
		return memcmp(a, b, t->size);
	}
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	int r = cmp_key(a->t, a->key, b->key);

	return r ? r : a->seq - b->seq;
}

static void close_row(struct out *o, struct rowgroup *g)
{
	if (!g->cur)
		return;
	fclose(g->cur);
	g->cur = NULL;
	o->f = g->saved;
}

void out__rows_begin(struct out *o, long long limit)
{
	struct rowgroup *g = calloc(1, sizeof(*g));

	if (!g)
		return;
	g->saved = o->f;
	g->limit = limit;
	g->outer = o->rows;
	o->rows = g;
}

void out__rows_row(struct out *o, const struct type *key, const uint8_t *data)
{
	struct rowgroup *g = o->rows;

	if (!g)
		return;
	close_row(o, g);
	if (g->n == g->cap) {
		int cap = g->cap ? g->cap * 2 : 64;
		struct row *v = realloc(g->v, cap * sizeof(*v));

		if (!v)
			return;
		g->v = v;
		g->cap = cap;
	}
	struct row *r = &g->v[g->n];

	memset(r, 0, sizeof(*r));
	r->key = malloc(key->size ? key->size : 1);
	if (!r->key)
		return;
	memcpy(r->key, data, key->size);
	r->t = key;
	r->seq = g->n;
	g->cur = open_memstream(&r->text, &r->len);
	if (!g->cur) {
		free(r->key);
		return;
	}
	g->n++;
	o->f = g->cur;
}

void out__rows_end(struct out *o)
{
	struct rowgroup *g = o->rows;
	long long shown = 0;

	if (!g)
		return;
	close_row(o, g);
	if (g->n)	/* an empty map: no rows, and qsort's base may be NULL */
		qsort(g->v, g->n, sizeof(*g->v), cmp_row);
	for (int i = 0; i < g->n; i++) {
		struct row *r = &g->v[i];

		if (r->len && (g->limit <= 0 || shown < g->limit)) {
			fwrite(r->text, 1, r->len, g->saved);
			shown++;
		}
		free(r->text);
		free(r->key);
	}
	free(g->v);
	o->f = g->saved;
	o->rows = g->outer;
	free(g);
}

void out__rows_flush(struct out *o)
{
	while (o->rows)
		out__rows_end(o);
}
