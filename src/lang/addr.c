// SPDX-License-Identifier: GPL-2.0
/*
 * addr.c - the address-of operator '&' (bpftrace's unstable feature, behind
 * config unstable_addr = error | warn | enable; warn by default):
 *   &$x      where the scratch variable lives (the BPF stack, or the per-CPU
 *            map value of variables shared with for-loop bodies)
 *   &@m      the BPF map itself (its struct bpf_map in the kernel), a void *,
 *            as bpftrace gives it
 *   &@m[k]   where @m[k]'s value is in the map (0 when there is no such key):
 *            sonde's, bpftrace has no address of a map value
 *   &$p->f, &s.f, &$a[i], &*$p   the address of a member, element or pointee
 *            in kernel or user memory (what reading it would read)
 *   &args.f  a tracepoint field in the event record (perf-event tracepoints)
 * Anything else (a literal, a builtin, a computed value, a uprobe's or fentry's
 * argument, which live in registers) is refused with the reason.
 */
#include "lang/check_int.h"
#include "lang/gen_int.h"
#include "lang/provider.h"

#include <string.h>

static struct type none_ty(void)
{
	struct type t = { .kind = TY_NONE };
	return t;
}

/* a pointer (TY_INT with ptr) to a copy of t */
static struct type ptr_to(struct program *p, const struct type *t, bool user)
{
	struct type r = ty_int(false, 64), *to = arena__alloc(p->arena, sizeof(*to));

	*to = *t;
	r.ptr = to;
	r.user = user;
	return r;
}

static bool unstable_ok(struct ck *c, struct node *n)
{
	struct config *cfg = &c->prog->cfg;

	if (cfg->unstable_addr == UNSTABLE_ERROR) {
		lang__error(c->prog, n->loc, "address-of operator (&) feature is not enabled by default. To enable this "
			    "unstable feature, set the config flag to enable. unstable_addr=enable");
		return false;
	}
	if (cfg->unstable_addr == UNSTABLE_WARN) {
		lang__warn(c->prog, n->loc, "Script is using an unstable feature: address-of operator (&). To prevent this "
			   "warning you must explicitly enable it in the config e.g. unstable_addr=enable");
		cfg->unstable_addr = UNSTABLE_WARNED;
	}
	return true;
}

static bool in_memory(const struct node *x)
{
	if (x->kind == N_UNOP)
		return x->op == T_STAR;
	if (x->kind == N_INDEX)
		return x->l && (x->l->ty.kind == TY_STRUCT || (x->l->ty.kind == TY_INT && x->l->ty.ptr));
	return x->kind == N_FIELD && x->l &&
	       (x->l->ty.kind == TY_STRUCT || (x->l->ty.kind == TY_INT && x->l->ty.ptr));
}

struct type ck_addr(struct ck *c, struct node *n)
{
	struct node *x = n->l;
	struct type t;

	if (!unstable_ok(c, n))
		return none_ty();
	if (x->kind == N_MAP && !x->args) {	/* the map itself */
		struct type v = { .kind = TY_VOID };

		x->map = ck_map_get(c, x);
		return n->ty = ptr_to(c->prog, &v, false);
	}
	if (x->kind == N_MAP) {
		if (ck_map_keys(c, x))
			return none_ty();
		struct mapinfo *m = x->map;

		if (m->agg != AGG_NONE && m->agg != AGG_COUNT && m->agg != AGG_SUM) {
			lang__error(c->prog, n->loc, "'&' of an aggregation's value: %s holds several numbers per CPU", m->name);
			return none_ty();
		}
		if (m->val.kind == TY_NONE) {	/* not assigned yet: the first pass comes back */
			if (c->final)
				lang__error(c->prog, x->loc, "the type of %s's values is not known (it is never assigned)", m->name);
			return none_ty();
		}
		return n->ty = ptr_to(c->prog, &m->val, false);
	}
	t = ck_expr(c, x);
	if (c->prog->err)
		return none_ty();
	if (x->kind == N_VAR) {
		if (x->var && x->var->loopvar) {
			lang__error(c->prog, n->loc, "'&' of a for loop's variable: it is a copy made for each iteration");
			return none_ty();
		}
		return n->ty = ptr_to(c->prog, &t, false);
	}
	if (x->kind == N_FIELD && x->l && x->l->ty.kind == TY_CTX) {
		if (strcmp(c->in->prov->name, "tracepoint") || c->in->sc_nr >= 0) {
			lang__error(c->prog, n->loc, "'&args.%s': %s arguments are in registers, not in memory: they have "
				    "no address", x->s ? x->s : "", c->in->sc_nr >= 0 ? "this syscall tracepoint's (read as raw "
				    "syscalls)" : "this probe's");
			return none_ty();
		}
		return n->ty = ptr_to(c->prog, &t, false);
	}
	if (in_memory(x))
		return n->ty = ptr_to(c->prog, &t, t.user);
	lang__error(c->prog, n->loc, "'&' takes a variable ($x), a map (@m or @m[k]), or a member, element or pointee "
		    "in memory ($p->f, $a[i], *$p, args.f)");
	return none_ty();
}

void gen_addrof(struct gen *g, struct node *n)
{
	struct node *x = n->l;

	if (x->kind == N_MAP && !x->args) {
		g_ld_map(g, R0, x->map->index);
	} else if (x->kind == N_MAP) {
		int mark = g->sp, key = gen_key(g, x);

		g_lookup(g, x->map->index, key);	/* r0: the value's address, or 0 */
		g->sp = mark;
	} else if (x->kind == N_VAR) {
		g_emit(g, MOV_REG(R0, g_vbase(g, x->var)));
		g_emit(g, ALU_IMM(BPF_ADD, R0, g_voff(g, x->var)));
	} else if (x->kind == N_FIELD && x->l->ty.kind == TY_CTX) {
		g_emit(g, MOV_REG(R0, R6));
		g_emit(g, ALU_IMM(BPF_ADD, R0, x->off));
	} else {
		gen_btf__addr(g, x);
	}
}
