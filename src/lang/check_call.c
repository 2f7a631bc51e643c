// SPDX-License-Identifier: GPL-2.0
/*
 * check_call.c - a call of a builtin function: its row (builtins.h), its
 * argument count, where it may stand (aggregations, --unsafe), its
 * arguments' types, then its row's check(). Also what the rows' checks
 * share: the record layouts (sites) user space formats, constants, arrays.
 */
#include "lang/check_int.h"
#include "lang/ktypes.h"
#include "lang/provider.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a record for the user-space side: printf, print, cat, system, time */
int ck_make_site(struct ck *c, struct node *call, int kind, struct node *fmt, struct node *args, int nargs)
{
	if (call->id > 0) {	/* an earlier pass or instance made it: keep the widest strings */
		struct fmtsite *old = c->prog->sites[call->id - 1];
		int k = 0;

		for (struct node *a = args; a && k < old->nargs; a = a->next, k++)
			if (ck_same_kind(&old->args[k], &a->ty) && a->ty.size > old->args[k].size) {
				lang__error(c->prog, call->loc, "the strings given to %s() differ in size between "
					    "the probe's attach points", call->s);
				return -1;
			}
		return 0;
	}
	struct fmtsite *s = arena__alloc(c->prog->arena, sizeof(*s));
	uint32_t off = 8;

	s->kind = kind;
	s->fmt = fmt ? fmt->s : NULL;
	s->nargs = nargs;
	s->loc = call->loc;
	s->args = arena__alloc(c->prog->arena, (nargs + 1) * sizeof(struct type));
	int i = 0;

	for (struct node *a = args; a; a = a->next, i++) {
		if (ck_no_struct(c, &a->ty, a->loc))
			return -1;
		s->args[i] = a->ty;
		off += round8(a->ty.size);
	}
	s->size = off;
	if (off > 400) {
		lang__error(c->prog, call->loc, "the arguments of %s take %u bytes, more than the 400 the BPF stack leaves", call->s, off);
		return -1;
	}
	call->id = lang__add_site(c->prog, s) + 1;
	return call->id > 0 ? 0 : -1;
}

bool ck_is_const_int(struct node *n, long long *v)
{
	if (n->kind == N_INT) {
		*v = n->i;
		return true;
	}
	return false;
}

/* a fixed-size array (a tracepoint's args->saddr, a kernel type's u8[16] or char[16]): its bytes, else 0 */
int ck_array_size(struct ck *c, struct node *a)
{
	const struct tp_field *f;
	int elem, cnt;

	if (a->ty.kind == TY_ARRAY)
		return type__array_bytes(&a->ty);
	if ((a->ty.kind == TY_STRUCT || (a->ty.kind == TY_STR && a->ty.btf_id > 0)) &&
	    !ktypes__array(c->prog, a->ty.btf_id, &elem, &cnt))
		return ktypes__size(c->prog, a->ty.btf_id) > 0 ? ktypes__size(c->prog, a->ty.btf_id) : 0;
	if (a->kind != N_FIELD || !a->l || a->l->ty.kind != TY_CTX || !c->in)
		return 0;
	f = provider__field(c->in, a->s);
	return f && f->array ? f->size : 0;
}

/* a format or filter string the user-space side looks up by the value's site index */
int ck_aux_site(struct ck *c, struct node *call, const char *text)
{
	if (call->id > 0)
		return 0;
	struct fmtsite *s = arena__alloc(c->prog->arena, sizeof(*s));

	s->fmt = text;
	s->loc = call->loc;
	call->id = lang__add_site(c->prog, s) + 1;
	return call->id > 0 ? 0 : -1;
}

int ck_call_args(struct ck *c, struct node *n)
{
	struct node *a0 = n->args;

	/* str($1) is the parameter's text, even when it reads as a number (bpftrace) */
	if (a0 && a0->kind == N_POS && !strcmp(n->s, "str") && a0->i >= 1 && a0->i <= c->prog->nparams) {
		a0->kind = N_STR;
		a0->s = c->prog->params[a0->i - 1];
		a0->slen = strlen(a0->s);
	}
	for (struct node *a = n->args; a; a = a->next) {
		ck_expr(c, a);
		if (c->prog->err)
			return -1;
		if (a->ty.kind == TY_VOID || a->ty.kind == TY_CTX) {
			lang__error(c->prog, a->loc, "this cannot be an argument of %s()", n->s);
			return -1;
		}
	}
	return 0;
}

/* upstream's __builtin_comm, __builtin_cpu(): the builtin itself, whatever macros say */
void ck_builtin_prefix(struct node *n)
{
	int argn;
	const char *rest = n->s + 10;

	if (strncmp(n->s, "__builtin_", 10) || builtin__var(n->s, &argn) || builtin__func(n->s))
		return;
	if (builtin__var(rest, &argn) || builtin__func(rest))
		n->s = rest;
}

struct type ck_call(struct ck *c, struct node *n, struct node *assign_to)
{
	const struct builtin *f;
	struct type none = ty_kind(TY_NONE, 0), t;
	int nargs = (int)n->i;

	ck_builtin_prefix(n);
	f = builtin__func(n->s);

	if (!f || (!nargs && (f->flags & BF_NOARG_VAR))) {
		int argn;

		if (!nargs && builtin__var(n->s, &argn)) {	/* pid(), comm(): upstream's call spelling of a builtin */
			n->kind = N_IDENT;
			return ck_expr(c, n);
		}
		lang__error(c->prog, n->loc, "unknown function '%s'", n->s);
		return none;
	}
	if (nargs < f->min_args || nargs > f->max_args) {
		if (f->min_args == f->max_args)
			lang__error(c->prog, n->loc, "%s() takes %d argument%s, not %d", n->s, f->min_args,
				    f->min_args == 1 ? "" : "s", nargs);
		else
			lang__error(c->prog, n->loc, "%s() takes %d to %d arguments, not %d", n->s, f->min_args,
				    f->max_args, nargs);
		return none;
	}
	if ((f->flags & BF_AGG) && !assign_to) {
		lang__error(c->prog, n->loc, "%s() is an aggregation: assign it to a map, as in '@x = %s(...)'", n->s, n->s);
		return none;
	}
	if ((f->flags & BF_UNSAFE) && !c->prog->cfg.unsafe) {
		lang__error(c->prog, n->loc, "%s() changes the system: it needs --unsafe", n->s);
		return none;
	}
	n->op = f->id;
	if ((f->flags & BF_MAPARG) && (!n->args || n->args->kind != N_MAP)) {
		lang__error(c->prog, n->args ? n->args->loc : n->loc, "%s() takes a map as its first argument", n->s);
		return none;
	}
	if (!(f->flags & BF_OWN_ARGS) && ck_call_args(c, n))
		return none;
	t = f->check(c, n, f, assign_to);
	if ((f->flags & BF_BOOL) && t.kind == TY_INT)	/* upstream's bool (bool.c) */
		t.boolean = n->ty.boolean = true;
	return t;
}
