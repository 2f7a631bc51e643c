// SPDX-License-Identifier: GPL-2.0
/*
 * tuple.c - indexing tuples and integer arrays, and array casts (upstream
 * bpftrace's docs/language.md, "Tuples" and "Array casts"):
 *   $t[1], (1, "a")[1 - 1], $b[2][1]   a tuple's element: the index is an
 *            integer known when compiling; the node becomes $t.1 (N_FIELD)
 *   $a[0]    an element of an integer array (pton()'s, a cast's): a constant
 *            index too, the element read with its width and sign
 *   (int8[8])x, (uint8[])x   an integer's bytes as an array of the same size
 *            (the count inferred from the integer's size when omitted)
 *   (uint64)$a, (uint32)pton("127.0.0.1")   an array's bytes as an integer of
 *            the same size; also a tracepoint's or a kernel type's byte array
 * Arrays are little-endian bytes, zero-padded to 8-byte words, as BPF keeps
 * them on its stack; the empty tuple () and (1,) are parsed in parse.c.
 */
#include "lang/check_int.h"
#include "lang/comptime.h"
#include "lang/gen_int.h"

#include <string.h>

static struct type none_ty(void)
{
	struct type t = { .kind = TY_NONE };
	return t;
}

/* the bytes of an integer value: its width when a cast gave it one, else 8 */
static int int_bytes(const struct type *t)
{
	return t->ptr || !t->bits ? 8 : t->bits / 8;
}

/* n is N_INDEX of a tuple or an integer array: its element's type */
struct type ck_index(struct ck *c, struct node *n, const struct type *a)
{
	struct type i = ck_expr(c, n->r);
	const char *what = a->kind == TY_TUPLE ? (a->names ? "record" : "tuple") : "array";
	long long v;

	if (c->prog->err)
		return none_ty();
	if (i.kind != TY_INT || !comptime__int(n->r, &v)) {
		lang__error(c->prog, n->r->loc, "the index of %s %s must be an integer known when compiling, as in "
			    "'$t[1]' or '$t[1 + 1]'", a->kind == TY_ARRAY ? "an" : "a", what);
		return none_ty();
	}
	if (v < 0 || v >= a->ntup) {
		if (a->ntup)
			lang__error(c->prog, n->r->loc, "index %lld is out of range: the %s has %d element%s (0 to %d)",
				    v, what, a->ntup, a->ntup == 1 ? "" : "s", a->ntup - 1);
		else
			lang__error(c->prog, n->r->loc, "index %lld is out of range: the tuple is empty", v);
		return none_ty();
	}
	if (a->kind == TY_ARRAY) {
		n->r->kind = N_INT;	/* gen_array_elem() reads the element at this constant */
		n->r->i = v;
		n->ty = ty_int(a->sign, a->bits ? a->bits : 8);
		return n->ty;
	}
	n->kind = N_FIELD;	/* $t[1] is $t.1 from now on */
	n->i = v;
	n->id = (int)v;
	n->s = NULL;
	n->r = NULL;
	n->arrow = false;
	return n->ty = a->tup[v];
}

/*
 * (T[N])x of an integer x, or (T)a of an array a (a->kind TY_ARRAY, or the
 * byte array of a tracepoint field or kernel type): bits and sign are T's
 */
struct type ck_array_cast(struct ck *c, struct node *n, const struct type *a, int bits, bool sign)
{
	char ts[64];

	if (!bits || !strcmp(n->s, "bool")) {
		lang__error(c->prog, n->loc, bits ? "an array cast takes an integer type, not bool" :
			    "unknown type '%s'", n->s);
		return none_ty();
	}
	if (n->i) {	/* to an array */
		long long eb = bits / 8, size = int_bytes(a), cnt = n->i < 0 ? size / eb : n->i;

		if (a->kind != TY_INT) {
			lang__error(c->prog, n->loc, "only an integer can be cast to an array; this is %s",
				    type__str(a, ts, sizeof(ts)));
			return none_ty();
		}
		if (n->i < 0 && cnt * eb != size) {
			lang__error(c->prog, n->loc, "cannot cast %s (%lld byte%s) to %s[]: its size is not a whole number "
				    "of %s elements", type__str(a, ts, sizeof(ts)), size, size == 1 ? "" : "s", n->s, n->s);
			return none_ty();
		}
		if (cnt * eb != size) {
			lang__error(c->prog, n->loc, "cannot cast %s (%lld byte%s) to %s[%lld] (%lld bytes): the array and "
				    "the integer must have the same size", type__str(a, ts, sizeof(ts)), size,
				    size == 1 ? "" : "s", n->s, cnt, cnt * eb);
			return none_ty();
		}
		n->i = cnt;
		n->ty = (struct type){ .kind = TY_ARRAY, .size = 8, .ntup = (int)cnt, .bits = (uint8_t)bits, .sign = sign };
		return n->ty;
	}
	int bytes = ck_array_size(c, n->l);

	if (!bytes) {
		lang__error(c->prog, n->loc, "only integers and arrays of integers can be cast; this is %s",
			    type__str(a, ts, sizeof(ts)));
		return none_ty();
	}
	if (bytes != bits / 8) {
		lang__error(c->prog, n->loc, "cannot cast %s (%d byte%s) to %s (%d byte%s): the array and the integer "
			    "must have the same size", a->kind == TY_ARRAY ? type__str(a, ts, sizeof(ts)) : "an array",
			    bytes, bytes == 1 ? "" : "s", n->s, bits / 8, bits == 8 ? "" : "s");
		return none_ty();
	}
	return n->ty = ty_int(sign, bits);
}

static int width(int bytes)
{
	return bytes == 1 ? BPF_B : bytes == 2 ? BPF_H : bytes == 4 ? BPF_W : BPF_DW;
}

/* [fp+off] = the size bytes of (T[N])x: x's low bytes, then zeroes */
void gen_array_cast(struct gen *g, struct node *n, int off, int size)
{
	gen_int(g, n->l);
	g_zero(g, off, size);
	g_emit(g, STX(width(type__array_bytes(&n->ty)), FP, R0, off));
}

/* r0 = (T)a, a an array of T's size */
void gen_array_to_int(struct gen *g, struct node *n)
{
	struct node *a = n->l;
	int mark = g->sp, words = g_round8(a->ty.size > 8 ? a->ty.size : 8), t = g_slot(g, words, n->loc);

	g_zero(g, t, words);
	if (a->ty.kind == TY_ARRAY)
		gen_to(g, a, t, &a->ty);
	else
		gen_str(g, a, t, words);	/* a tracepoint's or kernel type's bytes */
	g_emit(g, LDX(width(n->ty.bits / 8), R0, FP, t));
	g_extend(g, n->ty.bits, n->ty.sign);
	g->sp = mark;
}

/* r0 = $a[N] of an integer array (N a constant the type checker checked) */
void gen_array_elem(struct gen *g, struct node *n)
{
	int mark = g->sp, eb = n->ty.bits / 8, t = g_slot(g, n->l->ty.size, n->loc);

	gen_to(g, n->l, t, &n->l->ty);
	g_emit(g, LDX(width(eb), R0, FP, t + (int)n->r->i * eb));
	g_extend(g, n->ty.bits, n->ty.sign);
	g->sp = mark;
}
