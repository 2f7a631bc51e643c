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
 *   $a == $b, $a != $b   tuples compared element by element
 */
#include "lang/check_int.h"
#include "lang/comptime.h"
#include "lang/gen_int.h"

#include <stdlib.h>
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

/*
 * sizeof() of a tuple: its size as a C struct of its elements, as bpftrace
 * lays one out (each at its own alignment, the whole padded to the largest):
 * ((int8)1, (int16)1, (int32)1) is 8. sonde keeps each element 8-aligned
 * instead; that is how it stores them, not what the type's size means.
 */
static int c_layout(const struct type *t, int *align)
{
	int off = 0, max = 1;

	if (t->kind != TY_TUPLE) {
		*align = t->kind == TY_STR || t->kind == TY_BUF ? 1 : t->kind == TY_INT ? int_bytes(t) : 8;
		return t->kind == TY_INT ? int_bytes(t) : t->size;
	}
	for (int i = 0; i < t->ntup; i++) {
		int a, sz = c_layout(&t->tup[i], &a);

		off = (off + a - 1) / a * a + sz;
		max = a > max ? a : max;
	}
	*align = max;
	return (off + max - 1) / max * max;
}

int ck_tuple_sizeof(const struct type *t)
{
	int align;

	return c_layout(t, &align);
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
		long long eb = bits / 8, size = int_bytes(a), cnt;

		if (a->kind == TY_STR)	/* (int8[])"hello": a literal's bytes and its NUL, else the string's size */
			size = n->l->kind == N_STR ? (long long)n->l->slen + 1 : a->size;
		cnt = n->i < 0 ? size / eb : n->i;
		if (a->kind != TY_INT && a->kind != TY_STR) {
			lang__error(c->prog, n->loc, "only an integer or a string can be cast to an array; this is %s",
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
				    "the %s must have the same size", type__str(a, ts, sizeof(ts)), size,
				    size == 1 ? "" : "s", n->s, cnt, cnt * eb, a->kind == TY_STR ? "string" : "integer");
			return none_ty();
		}
		n->i = cnt;
		n->ty = (struct type){ .kind = TY_ARRAY, .size = a->kind == TY_STR ? (int)((size + 7) / 8 * 8) : 8,
				       .ntup = (int)cnt, .bits = (uint8_t)bits, .sign = sign };
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

/* [fp+off] = the size bytes of (T[N])x: x's low bytes (a string's bytes), then zeroes */
void gen_array_cast(struct gen *g, struct node *n, int off, int size)
{
	if (n->l->ty.kind == TY_STR) {
		g_zero(g, off, size);
		gen_str(g, n->l, off, size);
		return;
	}
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

/* the index of record t's field name, or -1 */
static int field_pos(const struct type *t, const char *name)
{
	for (int i = 0; t->names && i < t->ntup; i++)
		if (!strcmp(t->names[i], name))
			return i;
	return -1;
}

/*
 * $a == $b of two tuples (upstream compares them element by element, each side
 * evaluated once): the same number of elements, each pair comparable: integers,
 * strings (up to the first NUL), arrays of the same size, fixed-size values
 * of the same kind and size (ntop's, macaddr's), and tuples in the same way;
 * records pair their fields by name. 0: comparable, else an error was given.
 */
static int tuple_cmp_check(struct ck *c, struct node *n, const struct type *a, const struct type *b, const char *path)
{
	char x[96], y[96], sub[64], at[80] = "";

	if (path[0])
		snprintf(at, sizeof(at), "tuple element %s: ", path);
	if (a->kind == TY_TUPLE && b->kind == TY_TUPLE) {
		if (a->ntup != b->ntup || !a->names != !b->names) {
			lang__error(c->prog, n->loc, "%s%s and %s cannot be compared: %s", at, type__str(a, x, sizeof(x)),
				    type__str(b, y, sizeof(y)), a->ntup != b->ntup ?
				    "they have different numbers of elements" : "a record's fields have names, a tuple's do not");
			return -1;
		}
		for (int i = 0; i < a->ntup; i++) {
			int j = a->names ? field_pos(b, a->names[i]) : i;

			if (j < 0) {
				lang__error(c->prog, n->loc, "%srecords %s and %s cannot be compared: the second has no "
					    "field '%s'", at, type__str(a, x, sizeof(x)), type__str(b, y, sizeof(y)),
					    a->names[i]);
				return -1;
			}
			if (a->names)
				snprintf(sub, sizeof(sub), "%s.%s", path, a->names[i]);
			else
				snprintf(sub, sizeof(sub), "%s.%d", path, i);
			if (tuple_cmp_check(c, n, &a->tup[i], &b->tup[j], sub))
				return -1;
		}
		return 0;
	}
	if (a->kind == b->kind && (a->kind == TY_INT || a->kind == TY_STR))
		return 0;
	if (a->kind == b->kind && a->size == b->size &&
	    (a->kind == TY_ARRAY || a->kind == TY_INET || a->kind == TY_MACADDR))
		return 0;
	lang__error(c->prog, n->loc, "%s%s and %s cannot be compared", at, type__str(a, x, sizeof(x)),
		    type__str(b, y, sizeof(y)));
	return -1;
}

struct type ck_tuple_compare(struct ck *c, struct node *n, const struct type *a, const struct type *b)
{
	if (tuple_cmp_check(c, n, a, b, ""))
		return none_ty();
	n->ty = ty_int(false, 64);
	n->ty.boolean = true;
	return n->ty;
}

/* jumps to the fails (appended to *fails) where element a (at fp+ao) differs from b (at fp+bo) */
static void tuple_cmp_gen(struct gen *g, const struct type *a, int ao, const struct type *b, int bo, int **fails, int *nf)
{
	switch (a->kind) {
	case TY_TUPLE:
		for (int i = 0; i < a->ntup; i++) {
			int j = a->names ? g_field_index(b, a->names[i]) : i;

			tuple_cmp_gen(g, &a->tup[i], ao + g_tuple_off(a, i), &b->tup[j], bo + g_tuple_off(b, j), fails, nf);
		}
		return;
	case TY_STR:
		g_str_equal(g, ao, bo, a->size < b->size ? a->size : b->size);
		g_push_fix(g, fails, nf, g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0)));
		return;
	case TY_INT:	/* stored as 64-bit words, extended by their sign */
		g_emit(g, LDX(BPF_DW, R1, FP, ao));
		g_emit(g, LDX(BPF_DW, R2, FP, bo));
		g_push_fix(g, fails, nf, g_emit(g, JMP_REG(BPF_JNE, R1, R2, 0)));
		return;
	default:	/* the same size of bytes, zero-padded to words */
		for (int i = 0; i < g_round8(a->size); i += 8) {
			g_emit(g, LDX(BPF_DW, R1, FP, ao + i));
			g_emit(g, LDX(BPF_DW, R2, FP, bo + i));
			g_push_fix(g, fails, nf, g_emit(g, JMP_REG(BPF_JNE, R1, R2, 0)));
		}
		return;
	}
}

/* r0 = (n->l == n->r) of two tuples, each evaluated once; != when ne */
void gen_tuple_compare(struct gen *g, struct node *n, bool ne)
{
	int mark = g->sp, la = g_round8(n->l->ty.size), lb = g_round8(n->r->ty.size);
	int a = g_slot(g, la ? la : 8, n->l->loc), b = g_slot(g, lb ? lb : 8, n->r->loc);
	int *fails = NULL, nf = 0;

	g_zero(g, a, la ? la : 8);
	g_zero(g, b, lb ? lb : 8);
	gen_to(g, n->l, a, &n->l->ty);
	gen_to(g, n->r, b, &n->r->ty);
	tuple_cmp_gen(g, &n->l->ty, a, &n->r->ty, b, &fails, &nf);
	g_emit(g, MOV_IMM(R0, !ne));
	int done = g_emit(g, JA(0));

	for (int i = 0; i < nf; i++)
		g_patch(g, fails[i]);
	g_emit(g, MOV_IMM(R0, ne));
	g_patch(g, done);
	free(fails);
	g->sp = mark;
}
