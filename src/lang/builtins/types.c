// SPDX-License-Identifier: GPL-2.0
/*
 * types.c - the builtins settled while compiling: is_str(), is_integer(),
 * is_literal(), is_ptr(), is_array(), is_unsigned_integer() and
 * static_assert() (from their argument's type, which is not evaluated),
 * and getopt(), fail(), kfunc_exist(), kfunc_allowed() (comptime.c,
 * getopt.c). Each becomes a constant: nothing is generated for them.
 */
#include "lang/check_int.h"
#include "lang/comptime.h"
#include "lang/ktypes.h"

#include <string.h>

static struct type check_type_fn(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;
	bool lit = a0->kind == N_INT || a0->kind == N_STR || a0->kind == N_POS ||
		   (a0->kind == N_IDENT && (!strcmp(a0->s, "true") || !strcmp(a0->s, "false")));
	struct type t = ck_expr(c, a0);

	(void)assign_to;
	if (c->prog->err)
		return ty_kind(TY_NONE, 0);
	if (f->id == F_STATIC_ASSERT) {
		if (a0->kind != N_INT) {
			lang__error(c->prog, a0->loc, "static_assert() takes a condition known when compiling");
			return ty_kind(TY_NONE, 0);
		}
		if (a0->next->kind != N_STR) {
			lang__error(c->prog, a0->next->loc, "static_assert() takes a message literal");
			return ty_kind(TY_NONE, 0);
		}
		if (!a0->i) {
			lang__error(c->prog, n->loc, "static_assert failed: %s", a0->next->s);
			return ty_kind(TY_NONE, 0);
		}
		return n->ty = ty_kind(TY_VOID, 0);
	}
	n->kind = N_INT;
	switch (f->id) {
	case F_IS_STR: n->i = t.kind == TY_STR; break;
	case F_IS_INTEGER: n->i = t.kind == TY_INT && !t.ptr; break;
	case F_IS_PTR: n->i = t.kind == TY_INT && t.ptr; break;
	case F_IS_ARRAY: n->i = t.kind == TY_STRUCT && t.btf_id > 0 && !ktypes__array(c->prog, t.btf_id, &(int){ 0 }, &(int){ 0 }); break;
	case F_IS_UNSIGNED: n->i = t.kind == TY_INT && !t.ptr && !t.sign; break;
	default: n->i = lit;
	}
	n->args = NULL;
	return n->ty = ty_int(false, 64);
}

#define TYPE_FN(name, id) { name, id, 1, 1, BF_OWN_ARGS | BF_BOOL, .check = check_type_fn }

const struct builtin builtins_types[] = {
	TYPE_FN("is_str", F_IS_STR), TYPE_FN("is_integer", F_IS_INTEGER), TYPE_FN("is_literal", F_IS_LITERAL),
	TYPE_FN("is_ptr", F_IS_PTR), TYPE_FN("is_array", F_IS_ARRAY), TYPE_FN("is_unsigned_integer", F_IS_UNSIGNED),
	{ "static_assert", F_STATIC_ASSERT, 2, 2, BF_STMT | BF_OWN_ARGS, .check = check_type_fn },
	/* comptime.c */
	{ "getopt", F_GETOPT, 1, 3, BF_OWN_ARGS, .check = comptime__call },
	{ "fail", F_FAIL, 1, 8, BF_STMT | BF_OWN_ARGS, .check = comptime__call },
	{ "kfunc_exist", F_KFUNC_EXIST, 1, 1, BF_OWN_ARGS | BF_BOOL, .check = comptime__call },
	{ "kfunc_allowed", F_KFUNC_ALLOWED, 1, 1, BF_OWN_ARGS | BF_BOOL, .check = comptime__call },
	{ "kprobe_exist", F_KPROBE_EXIST, 1, 1, BF_OWN_ARGS | BF_BOOL, .check = comptime__call },
	{ "tracepoint_exist", F_TRACEPOINT_EXIST, 1, 2, BF_OWN_ARGS | BF_BOOL, .check = comptime__call },
	{ NULL },
};
