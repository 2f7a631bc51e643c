// SPDX-License-Identifier: GPL-2.0
/*
 * sortloop.c - for ($kv : @m) sort(KEY[, LIMIT]) { body }: the body's output,
 * row by row, in ascending order of KEY, at most LIMIT rows that print
 * something (0 or none: all). It is what the top tools need (filetop,
 * biotop, tcptop, slabratetop): a map printed as columns, its largest
 * entries first (`sort(-$kv.1)`), a few of them.
 *
 * The loop still runs in the kernel, in hash order; it sends three kinds of
 * records and user space (output_rows.c) puts the text in order:
 *   REC_ROWS_BEGIN  before the loop, the limit at offset 8;
 *   REC_ROW         at the start of each pass, KEY at offset 8 (its site
 *                   holds KEY's type): what the body prints next is this row;
 *   REC_ROWS_END    after the loop (also when the body returned): sort, print.
 * KEY is an integer (signed as its type is), a string (byte order) or a
 * tuple of them (element by element); equal keys keep the loop's order.
 * LIMIT is evaluated around the loop, KEY in the body, where $kv is known.
 */
#include "lang/check_int.h"
#include "lang/gen_int.h"
#include "lang/sortloop.h"

#include <string.h>

static bool sortable(const struct type *t)
{
	if (t->kind == TY_INT || t->kind == TY_STR)
		return true;
	if (t->kind != TY_TUPLE || t->names)
		return false;
	for (int i = 0; i < t->ntup; i++)
		if (!sortable(&t->tup[i]))
			return false;
	return true;
}

int sortloop__check_limit(struct ck *c, struct node *s)
{
	struct node *x = s->x;

	if (strcmp(x->s, "sort") || x->i < 1 || x->i > 2) {
		lang__error(c->prog, x->loc, "a sorted loop is written 'for ($kv : @m) sort(KEY[, LIMIT]) { ... }'");
		return -1;
	}
	struct node *lim = x->args->next;

	if (lim && ck_expr(c, lim).kind != TY_INT) {
		if (!c->prog->err)
			lang__error(c->prog, lim->loc, "sort()'s limit is an integer: the most rows printed");
		return -1;
	}
	return c->prog->err ? -1 : 0;
}

int sortloop__check_key(struct ck *c, struct node *s)
{
	struct node *x = s->x, *key = x->args;
	struct type t = ck_expr(c, key);

	if (c->prog->err)
		return -1;
	if (!sortable(&t)) {
		lang__error(c->prog, key->loc, "sort() orders rows by an integer, a string or a tuple of them");
		return -1;
	}
	/* the site of REC_ROW: made once, its key type the last pass's (the generator converts to it) */
	struct fmtsite *site = x->id > 0 ? c->prog->sites[x->id - 1] : arena__alloc(c->prog->arena, sizeof(*site));

	if (x->id <= 0) {
		site->kind = REC_ROW;
		site->nargs = 1;
		site->args = arena__alloc(c->prog->arena, sizeof(struct type));
		site->loc = x->loc;
		x->id = lang__add_site(c->prog, site) + 1;
		if (x->id <= 0)
			return -1;
	}
	site->args[0] = t;
	site->size = 8 + round8(t.size);
	if (site->size > 400) {
		lang__error(c->prog, key->loc, "sort()'s key takes %u bytes, more than the 400 the BPF stack leaves",
			    site->size - 8);
		return -1;
	}
	return 0;
}

void sortloop__gen_begin(struct gen *g, struct node *s)
{
	struct node *lim = s->x->args->next;
	int mark = g->sp, buf = g_slot(g, 16, s->x->loc);

	g_int_or(g, lim, 0);
	g_emit(g, STX(BPF_DW, FP, R0, buf + 8));
	g_emit(g, ST(BPF_W, FP, buf, REC_ROWS_BEGIN));
	g_emit(g, ST(BPF_W, FP, buf + 4, 0));
	g_send(g, buf, 16);
	g->sp = mark;
}

void sortloop__gen_row(struct gen *g, struct node *s)
{
	struct fmtsite *site = g->prog->sites[s->x->id - 1];
	int mark = g->sp, buf = g_slot(g, site->size, s->x->loc);

	g_zero(g, buf, site->size);
	gen_to(g, s->x->args, buf + 8, &site->args[0]);
	g_emit(g, ST(BPF_W, FP, buf, REC_ROW));
	g_emit(g, ST(BPF_W, FP, buf + 4, s->x->id - 1));
	g_send(g, buf, site->size);
	g->sp = mark;
}

void sortloop__gen_end(struct gen *g, struct node *s)
{
	g_record(g, s->x, REC_ROWS_END, 0);
}
