// SPDX-License-Identifier: GPL-2.0
/*
 * check.c - the type checker: every expression gets a type, every map its key
 * and value types and its kind of aggregation, every scratch variable its type,
 * every printf/print its record layout; errors point at the source.
 */
#include "lang/check_int.h"
#include "lang/comptime.h"
#include "lang/enumfmt.h"
#include "lang/ktypes.h"
#include "lang/provider.h"
#include "lang/testbench.h"
#include "lang/provider_iter.h"
#include "lang/sortloop.h"
#include "lib/bpf/bpf_util.h"
#include "lib/syscall/syscalls.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* records are the same type when they have the same fields, in any order */
static bool same_record(const struct type *a, const struct type *b)
{
	if (!a->names || !b->names || a->ntup != b->ntup)
		return false;
	for (int i = 0; i < a->ntup; i++) {
		int j = 0;

		while (j < b->ntup && strcmp(a->names[i], b->names[j]))
			j++;
		if (j == b->ntup || !ck_same_kind(&a->tup[i], &b->tup[j]))
			return false;
	}
	return true;
}

bool ck_same_kind(const struct type *a, const struct type *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == TY_ARRAY)	/* uint8[4] is not int8[4] nor uint8[16] */
		return a->ntup == b->ntup && a->bits == b->bits && a->sign == b->sign;
	if (a->kind == TY_TUPLE && (a->names || b->names))
		return same_record(a, b);
	if (a->kind == TY_TUPLE) {
		if (a->ntup != b->ntup)
			return false;
		for (int i = 0; i < a->ntup; i++)
			if (!ck_same_kind(&a->tup[i], &b->tup[i]))
				return false;
	}
	return true;
}

static int check_block(struct ck *c, struct node *b);
static int check_stmt(struct ck *c, struct node *s);

struct mapinfo *ck_map_get(struct ck *c, struct node *n)
{
	for (struct mapinfo *m = c->prog->maps; m; m = m->next)
		if (!strcmp(m->name, n->s))
			return m;
	struct mapinfo *m = arena__alloc(c->prog->arena, sizeof(*m)), **t = &c->prog->maps;

	m->name = n->s;
	m->loc = n->loc;
	m->nkeys = -1;
	m->fd = -1;
	m->index = c->prog->nmaps++;
	while (*t)
		t = &(*t)->next;
	*t = m;
	return m;
}

/*
 * @m[t], t a tuple of all of @m's keys (as $kv.0 of a for loop over @m): a
 * map's keys are a tuple, so @m[(k1, k2)], @m[$t] and @m[k1, k2] are the same
 * map. The first use of @m with a tuple gives it the tuple's fields as keys.
 */
static int tuple_key(struct ck *c, struct node *n, struct mapinfo *m, struct type t)
{
	bool ok = t.kind == TY_TUPLE && !t.names && t.ntup == m->nkeys;

	for (int i = 0; ok && i < t.ntup; i++)
		ok = ck_same_kind(&t.tup[i], &m->key.tup[i]);
	if (!ok) {
		char a[64];

		lang__error(c->prog, n->args->loc, "'%s' has %d key%s: give them all, or a tuple of them (as $kv.0 in "
			    "a for loop over it); this is %s", m->name, m->nkeys, m->nkeys == 1 ? "" : "s",
			    type__str(&t, a, sizeof(a)));
		return -1;
	}
	for (int i = 0; i < t.ntup; i++)
		if (t.tup[i].size > m->key.tup[i].size)
			m->key.tup[i].size = t.tup[i].size;
	n->tuplekey = true;
	return 0;
}

/* the keys of @m[k1, k2] */
int ck_map_keys(struct ck *c, struct node *n)
{
	struct mapinfo *m = ck_map_get(c, n);
	int nk = n->i < 0 ? 0 : (int)n->i;
	int i = 0;
	struct type t1 = { .kind = TY_NONE };

	n->map = m;
	if (nk == 1) {	/* one key: a tuple of them all? */
		t1 = ck_expr(c, n->args);
		if (c->prog->err)
			return -1;
		if (t1.kind == TY_TUPLE && !t1.names && !t1.ntup) {
			lang__error(c->prog, n->args->loc, "the empty tuple cannot be a map key");
			return -1;
		}
		if (t1.kind == TY_TUPLE && !t1.names && m->nkeys < 0) {
			m->nkeys = t1.ntup;
			m->key = (struct type){ .kind = TY_TUPLE, .ntup = t1.ntup };
			m->key.tup = arena__alloc(c->prog->arena, (t1.ntup + 1) * sizeof(struct type));
			memcpy(m->key.tup, t1.tup, t1.ntup * sizeof(struct type));
		}
		if (m->nkeys > 1 || (m->nkeys == 1 && t1.kind == TY_TUPLE && !t1.names && t1.ntup == 1))
			return tuple_key(c, n, m, t1);
	}
	if (m->nkeys >= 0 && m->nkeys != nk) {
		lang__error(c->prog, n->loc, "'%s' is used with %d key%s here but %d elsewhere", m->name, nk,
			    nk == 1 ? "" : "s", m->nkeys);
		return -1;
	}
	bool first = m->nkeys < 0;

	if (first) {
		m->nkeys = nk;
		m->key.kind = TY_TUPLE;
		m->key.ntup = nk;
		m->key.tup = arena__alloc(c->prog->arena, (nk + 1) * sizeof(struct type));
	}
	for (struct node *k = n->args; k; k = k->next, i++) {
		struct type t = nk == 1 ? t1 : ck_expr(c, k);

		if (c->prog->err)
			return -1;
		if (t.kind == TY_VOID || t.kind == TY_CTX || t.kind == TY_AGG || t.kind == TY_MAPREF || t.kind == TY_NONE) {
			char b[64];

			lang__error(c->prog, k->loc, "a %s cannot be a map key", type__str(&t, b, sizeof(b)));
			return -1;
		}
		if (first) {
			m->key.tup[i] = t;
		} else if (!ck_same_kind(&m->key.tup[i], &t)) {
			char a[64], b[64];

			lang__error(c->prog, k->loc, "key %d of '%s' is %s here but %s elsewhere", i + 1, m->name,
				    type__str(&t, a, sizeof(a)), type__str(&m->key.tup[i], b, sizeof(b)));
			return -1;
		} else if (t.size > m->key.tup[i].size) {
			m->key.tup[i].size = t.size;
		}
	}
	return 0;
}

/* a kernel struct is an address read member by member: it is never copied whole */
int ck_no_struct(struct ck *c, const struct type *t, struct loc loc)
{
	if (t->kind != TY_STRUCT)
		return 0;
	lang__error(c->prog, loc, "a kernel struct, union or array cannot be copied: keep a pointer to it, or read its members");
	return -1;
}

/* a variable's or a map's type after it is assigned t (same kind): strings grow, also in tuples */
static void widen(struct ck *c, struct type *into, const struct type *t)
{
	if (into->kind == TY_TUPLE && t->kind == TY_TUPLE && !into->names && into->ntup == t->ntup) {
		struct type *tup = arena__alloc(c->prog->arena, (into->ntup + 1) * sizeof(struct type));
		int off = 0;

		memcpy(tup, into->tup, into->ntup * sizeof(struct type));
		for (int i = 0; i < into->ntup; i++) {
			widen(c, &tup[i], &t->tup[i]);
			off += round8(tup[i].size);
		}
		into->tup = tup;
		into->size = off;
	} else if (t->size > into->size) {
		into->size = t->size;
	}
}

static int set_map_value(struct ck *c, struct node *mapn, struct type t, enum agg agg, struct loc loc)
{
	struct mapinfo *m = mapn->map;

	if (ck_no_struct(c, &t, loc))
		return -1;

	if (m->val.kind == TY_NONE) {
		m->val = t;
		m->agg = agg;
		return 0;
	}
	if (m->agg != agg || !ck_same_kind(&m->val, &t)) {
		char a[64], b[64];
		static const char *aggs[] = { "a value", "count()", "sum()", "avg()", "min()", "max()", "stats()",
					      "hist()", "lhist()" };

		if (m->agg != agg)
			lang__error(c->prog, loc, "'%s' is assigned %s here but %s elsewhere", m->name, aggs[agg], aggs[m->agg]);
		else
			lang__error(c->prog, loc, "'%s' is assigned %s here but %s elsewhere", m->name,
				    type__str(&t, a, sizeof(a)), type__str(&m->val, b, sizeof(b)));
		return -1;
	}
	widen(c, &m->val, &t);
	return 0;
}

static struct var *var_get(struct ck *c, const char *name)
{
	for (struct var *v = c->pr->vars; v; v = v->next)
		if (!strcmp(v->name, name) && !v->gone)
			return v;
	return NULL;
}

/*
 * A variable used outside the function it is declared in (a for loop's body
 * is one): written there, or declared in a body, it is shared (kept in a
 * per-CPU map); one of the probe's that a body only reads stays on the
 * probe's stack, which a callback can read (gen_loop.c).
 */
static void var_use(struct ck *c, struct var *v, bool write)
{
	if (!v || v->home == c->fn)
		return;
	if (write || v->home)
		v->shared = true;
	else
		v->xread = true;
}

static struct var *var_new(struct ck *c, const char *name)
{
	struct var *v = arena__alloc(c->prog->arena, sizeof(*v));

	v->name = name;
	v->home = c->fn;
	v->next = c->pr->vars;
	c->pr->vars = v;
	return v;
}

static int assign_var(struct ck *c, struct node *lhs, struct type t, struct loc loc)
{
	struct var *v = var_get(c, lhs->s);

	if (ck_no_struct(c, &t, loc))
		return -1;
	if (v && v->loopvar) {
		lang__error(c->prog, loc, "'%s' is the variable of a for loop over a map: it cannot be assigned", lhs->s);
		return -1;
	}
	if (!v) {
		v = var_new(c, lhs->s);
		v->ty = t;
	} else if (v->ty.kind == TY_NONE || v->ty.unknown) {
		v->ty = t;
	} else if (t.unknown) {
		/* code that is not generated: the variable keeps its type */
	} else if (!ck_same_kind(&v->ty, &t)) {
		char a[64], b[64];

		lang__error(c->prog, loc, "'%s' is %s and cannot be assigned %s", lhs->s,
			    type__str(&v->ty, a, sizeof(a)), type__str(&t, b, sizeof(b)));
		return -1;
	} else {
		widen(c, &v->ty, &t);
	}
	var_use(c, v, true);
	lhs->var = v;
	lhs->ty = v->ty;
	return 0;
}

int ck_assign_var(struct ck *c, struct node *var, struct type t, struct loc loc)
{
	return assign_var(c, var, t, loc);
}

/* the errno number <errno.h> names `name` (libc knows them: strerrorname_np), or -1 */
int ck_errno_value(const char *name)
{
	static const struct { const char *alias, *name; } aliases[] = {
		{ "EWOULDBLOCK", "EAGAIN" }, { "EDEADLOCK", "EDEADLK" }, { "ENOTSUP", "EOPNOTSUPP" },
	};

	if (name[0] != 'E')
		return -1;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i].alias))
			name = aliases[i].name;
	for (int e = 1; e < 256; e++) {
		const char *s = strerrorname_np(e);

		if (s && !strcmp(s, name))
			return e;
	}
	return -1;
}

/*
 * Whether kernel types in code that is not generated (a branch a constant drops,
 * a probe a constant predicate turns off) stay unknown: the kernel's BTF is not
 * parsed for them (5-10 ms of a tool's start-up) unless it was already. Their
 * values have no type then, which only code that is not generated may read: if
 * the check fails, the caller compiles again with the BTF (btf_deferred).
 */
static bool ck_defer_btf(struct ck *c)
{
	if (!c->dead || bpf_util__vmlinux_btf_loaded())
		return false;
	c->prog->btf_deferred = true;
	return true;
}

/* the value of such code: an integer as far as the rest of that code is concerned */
static struct type ty_unknown(void)
{
	struct type t = ty_int(false, 64);

	t.unknown = true;
	return t;
}

static struct type check_ident(struct ck *c, struct node *n)
{
	int argn = 0;
	const struct bvar_desc *b;

	ck_builtin_prefix(n);
	b = builtin__var(n->s, &argn);
	const struct provider *p = c->in ? c->in->prov : NULL;

	if (!strcmp(n->s, "true") || !strcmp(n->s, "false")) {
		n->kind = N_INT;
		n->i = n->s[0] == 't';
		return n->ty = ty_int(false, 64);
	}
	if (!b && ck_str_ident(n))	/* username, default_str_length */
		return ck_call(c, n, NULL);
	if (!b) {
		if (ck_defer_btf(c))	/* an enumerator of a dropped branch (biolatency's REQ_OP_READ with -F) */
			return n->ty = ty_unknown();
		if (!enumfmt__ident(c->prog, n))	/* an enumerator, the script's or the kernel's: TCP_ESTABLISHED */
			return n->ty;
		if (c->prog->errno_names && ck_errno_value(n->s) > 0) {	/* #include <errno.h>: EPERM is 1 */
			n->kind = N_INT;
			n->i = ck_errno_value(n->s);
			return n->ty = ty_int(true, 64);
		}
		const struct syscall_desc *sd = !c->prog->syscall_names ? NULL :
			!strncmp(n->s, "__NR_", 5) ? syscall__by_name(n->s + 5) :
			!strncmp(n->s, "SYS_", 4) ? syscall__by_name(n->s + 4) : NULL;

		if (sd) {	/* #include <syscall.h>: __NR_read is 0 */
			n->kind = N_INT;
			n->i = sd->nr;
			return n->ty = ty_int(true, 64);
		}
		const char *def = NULL;
		int r = kconst__value(c->prog, n->s, &n->i, &def);

		if (!r) {	/* an #included header's #define: AF_INET is 2 */
			n->kind = N_INT;
			return n->ty = ty_int(true, 64);
		}
		if (r == -EINVAL)
			lang__error(c->prog, n->loc, "'%s' is #defined as '%s' by an included header: not an integer "
				    "constant sonde can compute", n->s, def);
		else
			lang__error(c->prog, n->loc, "unknown identifier '%s'", n->s);
		return ty_kind(TY_NONE, 0);
	}
	n->op = b->id;
	n->i = argn;
	switch (b->id) {
	case BV_COMM:
		return n->ty = ty_str(16);
	case BV_KSTACK:
		c->prog->need_kstack = true;
		n->ty = ty_kind(TY_KSTACK, 8);
		n->ty.smode = (uint8_t)c->prog->cfg.stack_mode;
		return n->ty;
	case BV_USTACK:
		c->prog->need_ustack = true;
		n->ty = ty_kind(TY_USTACK, 16);
		n->ty.smode = (uint8_t)c->prog->cfg.stack_mode;
		return n->ty;
	case BV_CURTASK:
		return n->ty = ckbtf__curtask(c->prog);
	case BV_PCOMM: case BV_PPID:
		return ck_task_field(c, n, NULL, b->id == BV_PCOMM);
	case BV_PROBETYPE:
		return n->ty = ty_str(16);
	case BV_HAS_CPID:	/* upstream's bool (bool.c) */
		n->ty = ty_int(false, 64);
		n->ty.boolean = true;
		return n->ty;
	case BV_CTX:
		return n->ty = iter__ctx(c->prog, c->in, n);	/* provider_iter.c */
	case BV_FUNC:
		if (!p || (strcmp(p->name, "uprobe") && strcmp(p->name, "uretprobe") && strcmp(p->name, "kprobe") &&
			   strcmp(p->name, "kretprobe") && strcmp(p->name, "fentry") && strcmp(p->name, "fexit"))) {
			lang__error(c->prog, n->loc, "'func' is only available in uprobes and kprobes");
			return ty_kind(TY_NONE, 0);
		}
		return n->ty = ty_str(c->prog->cfg.max_strlen);
	case BV_PROBE: {	/* whole, as bpftrace prints it: as long as the probe's longest name (up to 256) */
		if (c->probe_len_of != c->pr) {	/* once per probe: uprobe:libc:* has thousands of instances */
			int len = c->prog->cfg.max_strlen;

			for (struct ap_inst *in = c->pr->inst; in; in = in->next)
				if ((int)strlen(in->name) + 1 > len)
					len = (int)strlen(in->name) + 1;
			c->probe_len_of = c->pr;
			c->probe_len = len > 256 ? 256 : len;
		}
		return n->ty = ty_str(c->probe_len);
	}
	case BV_ARG:
		if (!p || (!p->has_args)) {
			lang__error(c->prog, n->loc, "'%s' is not available in %s probes", n->s, p ? p->name : "these");
			return ty_kind(TY_NONE, 0);
		}
		if (p->prog_type == 2 && provider__arg_offset(argn) < 0 && strcmp(p->name, "usdt")) {
			lang__error(c->prog, n->loc, "only arg0 to arg5 are in registers (the rest are on the stack)");
			return ty_kind(TY_NONE, 0);
		}
		return n->ty = ty_int(false, 64);
	case BV_RETVAL:
		if (!p || !p->has_retval) {
			lang__error(c->prog, n->loc, "'retval' is only available in uretprobes, kretprobes and fexit probes");
			return ty_kind(TY_NONE, 0);
		}
		if (!strcmp(p->name, "fexit"))
			return ckbtf__fentry_arg(c->prog, c->in, n, NULL);
		return n->ty = ty_int(false, 64);
	case BV_ARGS:
		if (!p || (!p->has_fields && strcmp(p->name, "rawtracepoint"))) {
			lang__error(c->prog, n->loc, "'args' is only available in tracepoints here");
			return ty_kind(TY_NONE, 0);
		}
		return n->ty = ty_kind(TY_CTX, 0);
	case BV_USERMODE:	/* read from the registers the probe was given */
		if (p && (!strcmp(p->name, "BEGIN") || !strcmp(p->name, "END"))) {	/* BEGIN, END: user mode */
			n->kind = N_INT;
			n->i = 1;
			return n->ty = ty_int(false, 64);
		}
		if (!p || (p->prog_type != 2 /* KPROBE */ && p->prog_type != 7 /* PERF_EVENT */) ||
		    !strcmp(p->name, "software") || !strcmp(p->name, "hardware") || !strcmp(p->name, "interval")) {
			lang__error(c->prog, n->loc, "'usermode' is only available in profile, kprobe and uprobe probes");
			return ty_kind(TY_NONE, 0);
		}
		return n->ty = ty_int(false, 64);
	case BV_SARG:
		if (!p || (strcmp(p->name, "uprobe") && strcmp(p->name, "kprobe"))) {
			lang__error(c->prog, n->loc, "'%s' (an argument on the stack) is only available in uprobes and kprobes", n->s);
			return ty_kind(TY_NONE, 0);
		}
		return n->ty = ty_int(false, 64);
	default:
		return n->ty = ty_int(false, 64);
	}
}

static struct type check_field(struct ck *c, struct node *n)
{
	if (comptime__config(c, n))	/* config().max_strlen: a constant */
		return n->ty;

	struct type bt = ck_expr(c, n->l);

	if (c->prog->err)
		return bt;
	if (bt.kind == TY_NONE && c->dead && c->prog->btf_deferred)	/* a member of one left unknown */
		return n->ty = bt;
	if (bt.unknown && c->dead)
		return n->ty = ty_unknown();
	if (bt.kind == TY_CTX && !strcmp(c->in->prov->name, "uprobe"))
		return ckbtf__uprobe_arg(c->prog, c->in, n);
	if (bt.kind == TY_CTX && !strcmp(c->in->prov->name, "rawtracepoint"))
		return ckbtf__rawtp_arg(c->prog, c->in, n);
	if (bt.kind == TY_CTX && c->in->prov->prog_type == 26 /* BPF_PROG_TYPE_TRACING: fentry, fexit */)
		return ckbtf__fentry_arg(c->prog, c->in, n, n->s ? n->s : "");
	if (bt.kind == TY_STRUCT || (bt.kind == TY_INT && bt.ptr)) {
		/* curtask's members in a branch a constant drops (syscount's -P) */
		if (bt.ptr && bt.ptr->kind == TY_STRUCT && ck_defer_btf(c))
			return n->ty = ty_unknown();
		return ckbtf__field(c->prog, n, &bt);
	}
	if (bt.kind == TY_CTX) {
		const struct tp_field *f = n->s ? provider__field(c->in, n->s) : NULL;

		if (!f) {
			lang__error(c->prog, n->loc, "tracepoint '%s' has no field '%s'", c->in->name, n->s ? n->s : "");
			return ty_kind(TY_NONE, 0);
		}
		n->off = f->off;
		if (f->array || f->data_loc) {
			if (f->array && f->size > 1 && strstr(n->s, "") && 0)
				return bt;
			return n->ty = ty_str(f->data_loc ? c->prog->cfg.max_strlen : f->size);
		}
		if (f->ptr && f->ctype && strstr(f->ctype, "struct ")) {
			/* a pointer to a kernel struct: typed from BTF (syscalls' arguments point to user memory) */
			struct type pt;

			if (!ckbtf__tp_ptr(c->prog, f->ctype, c->in->group && !strcmp(c->in->group, "syscalls"), &pt))
				return n->ty = pt;
		}
		if (f->ptr && f->ctype && strstr(f->ctype, "char") && strchr(strchr(f->ctype, '*') ? strchr(f->ctype, '*') + 1 : "", '*')) {
			/* char ** (execve's argv): an array of addresses, in user memory for syscalls */
			struct type *el = arena__alloc(c->prog->arena, sizeof(*el));

			*el = ty_int(false, 64);
			el->user = c->in->group && !strcmp(c->in->group, "syscalls");
			n->ty = ty_int(false, 64);
			n->ty.ptr = el;
			n->ty.user = el->user;
			return n->ty;
		}
		n->ty = ty_int(f->sign, f->size * 8 > 64 ? 64 : f->size * 8);
		n->ty.btf_id = enumfmt__field_enum(c->prog, f->ctype);	/* enum x: printf's %s names it */
		return n->ty;
	}
	if (bt.kind == TY_TUPLE) {
		int idx = (int)n->i;

		if (n->s && bt.names) {
			for (idx = 0; idx < bt.ntup && strcmp(bt.names[idx], n->s); idx++)
				;
		}
		if (idx < 0 || idx >= bt.ntup || (n->s && !bt.names)) {
			if (n->s)
				lang__error(c->prog, n->loc, "the %s has no field '%s'", bt.names ? "record" : "tuple", n->s);
			else
				lang__error(c->prog, n->loc, "the %s has no field %lld", bt.names ? "record" : "tuple", n->i);
			return ty_kind(TY_NONE, 0);
		}
		n->id = idx;
		return n->ty = bt.tup[idx];
	}
	{
		char b[64];

		lang__error(c->prog, n->loc, "a %s has no fields (cast it to a pointer to a kernel struct first: "
			    "((struct task_struct *)arg0)->pid)", type__str(&bt, b, sizeof(b)));
	}
	return ty_kind(TY_NONE, 0);
}

static int cast_bits(const char *s, bool *sign)
{
	static const struct { const char *n; int bits; bool sign; } t[] = {
		{ "int8", 8, 1 }, { "int16", 16, 1 }, { "int32", 32, 1 }, { "int64", 64, 1 },
		{ "uint8", 8, 0 }, { "uint16", 16, 0 }, { "uint32", 32, 0 }, { "uint64", 64, 0 },
		{ "s8", 8, 1 }, { "s16", 16, 1 }, { "s32", 32, 1 }, { "s64", 64, 1 },
		{ "u8", 8, 0 }, { "u16", 16, 0 }, { "u32", 32, 0 }, { "u64", 64, 0 },
		{ "char", 8, 1 }, { "short", 16, 1 }, { "int", 32, 1 }, { "long", 64, 1 }, { "bool", 8, 0 },
		{ "unsigned", 32, 0 }, { "unsigned int", 32, 0 }, { "unsigned long", 64, 0 }, { "size_t", 64, 0 },
		{ "pid_t", 32, 1 }, { "unsigned char", 8, 0 }, { "unsigned short", 16, 0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(s, t[i].n)) {
			*sign = t[i].sign;
			return t[i].bits;
		}
	return 0;
}

/* n's type, its left operand's type a already known (ck_expr walks a chain's left spine) */
static struct type ck_binop(struct ck *c, struct node *n, struct type a)
{
	struct type none = ty_kind(TY_NONE, 0);
	struct type b = ck_expr(c, n->r);

	if (c->prog->err)
		return none;
	if ((n->op == T_EQ || n->op == T_NE) && (a.kind == TY_ARRAY || b.kind == TY_ARRAY)) {
		/* args->saddr == pton("127.0.0.1"): the bytes, all of them */
		int na = ck_array_size(c, n->l), nb = ck_array_size(c, n->r);

		if (!na || na != nb) {
			lang__error(c->prog, n->loc, "only arrays of the same size can be compared (%d and %d bytes)", na, nb);
			return none;
		}
		n->id = na;
		return n->ty = ty_int(false, 64);
	}
	if ((n->op == T_EQ || n->op == T_NE) && a.kind == TY_STR && b.kind == TY_STR)
		return n->ty = ty_int(false, 64);
	if ((n->op == T_EQ || n->op == T_NE) && a.kind == TY_BUF && b.kind == TY_BUF) {
		n->id = a.size > b.size ? a.size : b.size;	/* their lengths and bytes, zero-padded alike */
		return n->ty = ty_int(false, 64);
	}
	if ((n->op == T_EQ || n->op == T_NE) && a.kind == TY_TUPLE && b.kind == TY_TUPLE)
		return ck_tuple_compare(c, n, &a, &b);	/* tuple.c */
	if ((a.kind == TY_TUPLE || b.kind == TY_TUPLE) && a.kind == b.kind) {
		lang__error(c->prog, n->loc, "tuples are compared with == and != only");
		return none;
	}
	if (a.kind != TY_INT || b.kind != TY_INT) {
		char x[64], y[64];

		lang__error(c->prog, n->loc, "type mismatch: %s %s %s", type__str(&a, x, sizeof(x)),
			    n->op == T_EQ ? "==" : n->op == T_NE ? "!=" : "with", type__str(&b, y, sizeof(y)));
		return none;
	}
	bool cmp = n->op >= T_EQ && n->op <= T_NOT;

	if (a.ptr && b.ptr && !cmp) {
		lang__error(c->prog, n->loc, "arithmetic on two pointers is not supported (cast one to an integer)");
		return none;
	}
	if ((n->op == T_PLUS || n->op == T_MINUS) && a.ptr && !b.ptr)
		return n->ty = a;	/* pointer arithmetic: scaled by the size of what it points to */
	/* C's rule (and bpftrace's): one unsigned 64-bit operand makes the operation unsigned */
	n->ty = ty_int(cmp ? false : (a.sign && b.sign), 64);
	n->ty.boolean = cmp && ck_bool_op(&a, &b);
	return n->ty;
}

struct type ck_expr(struct ck *c, struct node *n)
{
	struct type none = ty_kind(TY_NONE, 0);

	if (c->prog->err || !n)	/* a missing operand was reported by the parser */
		return none;
	switch (n->kind) {
	case N_INT:
		return n->ty = (struct type){ .kind = TY_INT, .size = 8, .sign = true, .bits = 64, .btf_id = n->ty.btf_id,
					      .boolean = n->ty.boolean };
	case N_STR:
		return n->ty = ty_str((int)n->slen + 1 > c->prog->cfg.max_strlen ? c->prog->cfg.max_strlen : (int)n->slen + 1);
	case N_POS: {
		const char *v = n->i >= 1 && n->i <= c->prog->nparams ? c->prog->params[n->i - 1] : NULL;
		char *end;
		long long x;

		errno = 0;
		x = v ? strtoll(v, &end, 0) : 0;
		if (v && *v && !*end && errno == ERANGE && *v != '-') {	/* 0xffffffffffffffff: an unsigned 64-bit one */
			unsigned long long u;

			errno = 0;
			u = strtoull(v, &end, 0);
			if (!*end && !errno) {
				n->kind = N_INT;
				n->i = (long long)u;
				return n->ty = ty_int(false, 64);
			}
		}
		if (v && *v && !*end) {
			n->kind = N_INT;
			n->i = x;
			return n->ty = ty_int(true, 64);
		}
		if (!v) {	/* bpftrace: a missing parameter is 0 (or "" inside str()) */
			n->kind = N_INT;
			n->i = 0;
			return n->ty = ty_int(true, 64);
		}
		n->kind = N_STR;
		n->s = v;
		n->slen = strlen(v);
		return ck_expr(c, n);
	}
	case N_NPOS:
		n->kind = N_INT;
		n->i = c->prog->nparams;
		return n->ty = ty_int(true, 64);
	case N_IDENT:
		return check_ident(c, n);
	case N_VAR: {
		struct var *v = var_get(c, n->s);

		if (v && v->ty.kind == TY_NONE && v->declared)	/* let $x; if ($x) ...: upstream's 0 */
			v->ty = ty_int(true, 64);
		if (!v || v->ty.kind == TY_NONE) {
			lang__error(c->prog, n->loc, "variable '%s' is used before it is assigned", n->s);
			return none;
		}
		if (v->ty.unknown && !c->dead) {	/* the caller compiles again, with the BTF */
			lang__error(c->prog, n->loc, "variable '%s' has a kernel type not yet known", n->s);
			return none;
		}
		var_use(c, v, false);
		n->var = v;
		return n->ty = v->ty;
	}
	case N_MAP:
		if (ck_map_keys(c, n))
			return none;
		if (n->map->val.kind == TY_NONE) {
			if (c->final) {
				lang__error(c->prog, n->loc, "'%s' is read but never assigned", n->s);
				return none;
			}
			return n->ty = ty_int(true, 64);
		}
		if (n->map->agg == AGG_HIST || n->map->agg == AGG_LHIST || n->map->agg == AGG_STATS ||
		    n->map->agg == AGG_TSERIES) {
			/* count, sum, avg, min and max read as one integer over all CPUs (gen_map_read) */
			static const char *names[] = { [AGG_HIST] = "hist()", [AGG_LHIST] = "lhist()",
						       [AGG_STATS] = "stats()", [AGG_TSERIES] = "tseries()" };

			lang__error(c->prog, n->loc, "'%s' is a %s map: it has no single value to read in a probe "
				    "(print it instead; count, sum, avg, min and max maps can be read)", n->s,
				    names[n->map->agg]);
			return none;
		}
		return n->ty = n->map->agg ? ty_int(true, 64) : n->map->val;
	case N_CALL:
		return ck_call(c, n, NULL);
	case N_SIZEOF: {
		bool sign;
		int bits = n->s ? cast_bits(n->s, &sign) : 0;

		if (!n->s && n->l && n->l->kind == N_IDENT && !builtin__var(n->l->s, &(int){ 0 }) &&
		    enumfmt__typedef_bits(c->prog, n->l->s, &sign) > 0) {	/* sizeof(uint64_t): a kernel typedef */
			n->kind = N_INT;
			n->i = enumfmt__typedef_bits(c->prog, n->l->s, &sign) / 8;
			return n->ty = ty_int(false, 64);
		}
		if (n->op == 2) {	/* has_field(): known now, so an if on it drops the branch not taken */
			n->kind = N_INT;
			n->i = ckbtf__has_field(c->prog, n->s, n->r->s);
			return n->ty = ty_int(false, 64);
		}
		if (n->op == 1) {	/* offsetof */
			long long off = ckbtf__offsetof(c->prog, n, n->s, n->r->s);

			if (off < 0)
				return none;
			n->kind = N_INT;
			n->i = off;
			return n->ty = ty_int(false, 64);
		}

		if (n->s && !bits && !n->ptr) {
			int sz = ckbtf__sizeof(c->prog, n->s);

			if (sz < 0) {
				lang__error(c->prog, n->loc, "sizeof(%s): the kernel's BTF has no such type", n->s);
				return none;
			}
			n->kind = N_INT;
			n->i = (long long)sz * (n->i > 0 ? n->i : 1);	/* sizeof(struct x[2]) */
			return n->ty = ty_int(false, 64);
		}
		if (n->l)
			ck_expr(c, n->l);
		n->kind = N_INT;
		n->i = (n->ptr ? 8 : n->s ? bits / 8 : n->l->ty.kind == TY_INT ? (n->l->ty.bits ? n->l->ty.bits / 8 : 8) :
			n->l->ty.kind == TY_ARRAY ? type__array_bytes(&n->l->ty) :
			n->l->ty.kind == TY_TUPLE ? ck_tuple_sizeof(&n->l->ty) : n->l->ty.size) * (n->s && n->i > 0 ? n->i : 1);
		return n->ty = ty_int(false, 64);
	}
	case N_BINOP: {	/* a chain 1+1+... leans left: its left spine in a loop, not by recursion */
		struct node *bottom = n;

		if (n->op == T_PLUS && n->l->kind == N_POS && n->r->kind == N_INT) {	/* str($1 + 1): "hello" + 1 */
			ck_expr(c, n->l);
			if (n->l->kind == N_STR && n->r->i >= 0 && (size_t)n->r->i <= n->l->slen) {
				n->kind = N_STR;
				n->s = n->l->s + n->r->i;
				n->slen = n->l->slen - (size_t)n->r->i;
				return ck_expr(c, n);
			}
		}
		int depth = 0;

		while (bottom->l && bottom->l->kind == N_BINOP) {
			bottom = bottom->l;
			depth++;
		}
		struct type a = ck_expr(c, bottom->l);

		for (int d = depth; d >= 0 && !c->prog->err; d--) {
			struct node *s = n;

			for (int k = 0; k < d; k++)	/* the spine has no parent links: walk down again */
				s = s->l;
			a = ck_binop(c, s, a);
		}
		return c->prog->err ? none : a;
	}
	case N_UNOP: {
		if (n->op == T_BAND)
			return ck_addr(c, n);
		struct type a = ck_expr(c, n->l);

		if (c->prog->err)
			return none;
		if (n->op == T_STAR && a.unknown && c->dead)
			return n->ty = ty_unknown();
		if (n->op == T_STAR && n->l->kind == N_UNOP && n->l->op == T_BAND && n->l->l->kind == N_VAR) {
			struct node *next = n->next;

			*n = *n->l->l;	/* *&$v is $v, whatever its type (a tuple cannot be read through a pointer) */
			n->next = next;
			return ck_expr(c, n);
		}
		if (n->op == T_STAR)
			return ckbtf__deref(c->prog, c->in, n, &a);
		if (a.kind != TY_INT) {
			lang__error(c->prog, n->loc, "this operator takes an integer");
			return none;
		}
		n->ty = ty_int(n->op == T_MINUS ? true : a.sign, 64);
		n->ty.boolean = n->op == T_NOT && ck_bool_op(&a, &a);
		return n->ty;
	}
	case N_TERNARY: {
		struct type a = ck_expr(c, n->l), b = ck_expr(c, n->r), d = ck_expr(c, n->x);

		if (c->prog->err)
			return none;
		if (a.kind != TY_INT || !ck_same_kind(&b, &d)) {
			lang__error(c->prog, n->loc, a.kind != TY_INT ? "the condition is not an integer" :
				    "both branches of ?: must have the same type");
			return none;
		}
		n->ty = b;
		if (d.size > b.size)
			n->ty.size = d.size;
		return n->ty;
	}
	case N_FIELD:
		return check_field(c, n);
	case N_INDEX: {
		struct type a = ck_expr(c, n->l), i;

		if (c->prog->err)
			return none;
		if (a.unknown && c->dead)
			return n->ty = ty_unknown();
		if (a.kind == TY_TUPLE || a.kind == TY_ARRAY)
			return ck_index(c, n, &a);	/* tuple.c */
		i = ck_expr(c, n->r);
		if (c->prog->err)
			return none;
		if (a.kind == TY_STR && i.kind == TY_INT)	/* $s[i]: a char, 0 past the end (gen_str_index) */
			return n->ty = ty_int(true, 8);
		return ckbtf__index(c->prog, n, &a, &i);
	}
	case N_TUPLE: {
		int k = 0, off = 0;

		n->ty.kind = TY_TUPLE;
		n->ty.ntup = (int)n->i;
		n->ty.tup = arena__alloc(c->prog->arena, (n->i + 1) * sizeof(struct type));
		if (n->x) {	/* a record: the names of its fields */
			int j = 0;

			n->ty.names = arena__alloc(c->prog->arena, (n->i + 1) * sizeof(char *));
			for (struct node *id = n->x; id && j < n->ty.ntup; id = id->next)
				n->ty.names[j++] = id->s;
		}
		for (struct node *a = n->args; a; a = a->next, k++) {
			n->ty.tup[k] = ck_expr(c, a);
			if (c->prog->err)
				return none;
			if (a->ty.kind == TY_VOID || a->ty.kind == TY_CTX || a->ty.kind == TY_AGG || a->ty.kind == TY_NONE) {
				lang__error(c->prog, a->loc, "this cannot be in a tuple");
				return none;
			}
			off += round8(a->ty.size);
		}
		n->ty.size = off;
		return n->ty;
	}
	case N_CAST: {
		struct type a = ck_expr(c, n->l);
		bool sign = false;
		int bits = cast_bits(n->s, &sign);

		int eid = !bits && !n->ptr ? enumfmt__field_enum(c->prog, n->s) : 0;	/* (enum x)v */

		if (!bits && !n->ptr && !eid)
			bits = enumfmt__typedef_bits(c->prog, n->s, &sign);	/* a kernel typedef: (uint64_t)x */
		if (eid)
			bits = enumfmt__bits(c->prog, eid, &sign);
		if (c->prog->err)
			return none;
		if (!n->ptr && (n->i || a.kind == TY_ARRAY || (a.kind != TY_INT && ck_array_size(c, n->l))))
			return ck_array_cast(c, n, &a, bits, sign);	/* tuple.c */
		if (n->ptr && !bits && strcmp(n->s, "void") && ck_defer_btf(c))
			return n->ty = ty_unknown();	/* (struct request *)arg0 in a dropped branch */
		if (n->ptr)
			return n->ty = ckbtf__cast(c->prog, c->in, n, &a, bits, sign);
		if (!bits || a.kind != TY_INT) {
			lang__error(c->prog, n->loc, bits ? "only integers can be cast" : "unknown type '%s'", n->s);
			return none;
		}
		n->ty = ty_int(sign, bits);
		n->ty.boolean = !strcmp(n->s, "bool");	/* (bool)x: x != 0 (gen.c) */
		n->ty.btf_id = eid;
		n->ty.enumname = eid > 0;	/* 0.17 refuses the cast: upstream's printing */
		return n->ty;
	}
	case N_PREINC: case N_POSTINC:
		if (n->l->kind == N_MAP) {
			if (ck_map_keys(c, n->l))
				return none;
			if (set_map_value(c, n->l, ty_int(true, 64), AGG_NONE, n->loc))
				return none;
		} else if (n->l->kind == N_VAR) {
			struct var *v = var_get(c, n->l->s);

			if (v && v->loopvar) {
				lang__error(c->prog, n->l->loc, "'%s' is the variable of a for loop over a map: it cannot be "
					    "assigned", n->l->s);
				return none;
			}
			if (v && v->ty.kind == TY_NONE && v->declared)	/* let $x; $x++ */
				v->ty = ty_int(true, 64);
			if (!v || v->ty.kind != TY_INT) {
				lang__error(c->prog, n->l->loc, v ? "'%s' is not an integer" : "variable '%s' is used before it is assigned",
					    n->l->s);
				return none;
			}
			var_use(c, v, true);
			n->l->var = v;
			n->l->ty = v->ty;
		} else {
			lang__error(c->prog, n->loc, "++ and -- apply to maps and variables");
			return none;
		}
		return n->ty = ty_int(true, 64);
	case N_BLOCKEXPR:
		for (struct node *s = n->args; s; s = s->next)
			if (check_stmt(c, s))
				return none;
		if (!n->x) {
			if (n->s)
				lang__error(c->prog, n->loc, "macro '%s' has no value: the last statement of its body ends "
					    "with ';'", n->s);
			else
				lang__error(c->prog, n->loc, "this block has no value: its last statement ends with ';'");
			return none;
		}
		return n->ty = ck_expr(c, n->x);
	case N_TYPE:
		lang__error(c->prog, n->loc, "typeof() is a type, not a value: it goes in sizeof(), a cast, 'let $x: "
			    "typeof(...)' or a macro's argument");
		return none;
	default:
		lang__error(c->prog, n->loc, "this statement cannot be used as a value");
		return none;
	}
}

static int check_assign(struct ck *c, struct node *s)
{
	struct node *lhs = s->l, *rhs = s->r;

	if (lhs->kind == N_MAP) {
		if (ck_map_keys(c, lhs))
			return -1;
		if (rhs->kind == N_CALL) {
			const struct builtin *f = builtin__func(rhs->s);

			if (f && (f->flags & BF_AGG)) {	/* the map takes the row's kind of aggregation */
				if (s->op != T_ASSIGN) {
					lang__error(c->prog, s->loc, "an aggregation is assigned with '='");
					return -1;
				}
				ck_call(c, rhs, lhs);
				if (c->prog->err)
					return -1;
				/* bpftrace prints a sum() of unsigned values unsigned, the other aggregations signed;
				 * a tseries() of unsigned values draws no axis below 0 (output_tseries.c) */
				return set_map_value(c, lhs, ty_int((f->id != F_SUM && f->id != F_TSERIES) || !rhs->args ||
								    rhs->args->ty.sign, 64),
						     (enum agg)f->agg, s->loc);
			}
		}
		struct type t = ck_expr(c, rhs);

		if (c->prog->err)
			return -1;
		if (t.kind == TY_NONE && c->dead && c->prog->btf_deferred)
			lhs->map->deferred = true;
		if (t.kind == TY_VOID || t.kind == TY_CTX || t.kind == TY_NONE) {
			lang__error(c->prog, rhs->loc, "this has no value to store");
			return -1;
		}
		if (s->op != T_ASSIGN && t.kind != TY_INT) {
			lang__error(c->prog, s->loc, "compound assignment takes integers");
			return -1;
		}
		struct type v = t.kind == TY_INT ? ty_int(t.sign, 64) : t;

		v.boolean = t.kind == TY_INT && t.boolean && s->op == T_ASSIGN;
		if (t.kind == TY_INT && t.ptr && s->op == T_ASSIGN)	/* @p = (int32 *)x: @p++ steps 4 bytes */
			v.ptr = t.ptr, v.user = t.user;
		if (t.kind == TY_INT && !t.ptr && s->op == T_ASSIGN)	/* @e = ONE: printf's %s names it */
			v.btf_id = t.btf_id, v.enumname = t.enumname;
		return set_map_value(c, lhs, v, AGG_NONE, s->loc);
	}
	if (lhs->kind == N_VAR) {
		struct type t = ck_expr(c, rhs);

		if (c->prog->err)
			return -1;
		if (t.kind == TY_VOID || t.kind == TY_CTX || t.kind == TY_NONE || t.kind == TY_AGG) {
			lang__error(c->prog, rhs->loc, "this has no value to store");
			return -1;
		}
		if (s->op != T_ASSIGN) {
			struct var *v = var_get(c, lhs->s);

			if (!v || v->ty.kind != TY_INT || t.kind != TY_INT) {
				lang__error(c->prog, s->loc, v ? "compound assignment takes integers" :
					    "variable '%s' is used before it is assigned", lhs->s);
				return -1;
			}
		}
		return assign_var(c, lhs, t, s->loc);
	}
	lang__error(c->prog, lhs->loc, "assigning to fields is not supported by sonde probe yet");
	return -1;
}

/*
 * for ($kv : @m) { ... }: $kv is (key, value), the key a tuple itself when
 * @m has several keys. Per-CPU aggregations that reduce to one number
 * (count, sum, avg, min, max) give that number, summed over the CPUs by the
 * loop; hist, lhist and stats have no single value and are refused, as
 * bpftrace does. $kv is read-only and ends with the loop.
 */
/* a loop body that is a function of its own (c->fn is s->id, c->loops counted it): check it unless rc, then
 * return to outer; the loop's variable and those first assigned in the body end with it, as in bpftrace */
static int check_loop_fn(struct ck *c, struct node *s, int outer, int rc)
{
	if (!rc)
		rc = check_block(c, s->r);
	c->loops--;
	c->fn = outer;
	for (struct var *x = c->pr->vars; x; x = x->next)
		if (x->home == s->id)
			x->gone = true;
	return rc;
}

static int check_for_map(struct ck *c, struct node *s)
{
	struct node *mapn = s->l;
	struct loc vloc = { .line = s->off ? s->off : s->loc.line, .col = (int)s->i, .len = (int)strlen(s->s) };

	if (var_get(c, s->s)) {
		lang__error(c->prog, vloc, "the loop variable '%s' would hide the variable of that name: choose another name",
			    s->s);
		return -1;
	}
	if (mapn->kind != N_MAP || mapn->i >= 0) {
		lang__error(c->prog, mapn->loc, "for iterates over a whole map: write 'for (%s : @name)'", s->s);
		return -1;
	}
	struct mapinfo *m = ck_map_get(c, mapn);

	mapn->map = m;
	if (s->x && sortloop__check_limit(c, s))
		return -1;
	if (m->val.kind == TY_NONE) {
		if (c->final) {
			lang__error(c->prog, mapn->loc, "'%s' is iterated but never assigned", m->name);
			return -1;
		}
		return 0;	/* assigned further on: the second pass checks the body */
	}
	if (m->nkeys <= 0) {
		lang__error(c->prog, mapn->loc, "'%s' has no keys: for iterates over the entries of a map with keys",
			    m->name);
		return -1;
	}
	if (m->agg == AGG_HIST || m->agg == AGG_LHIST || m->agg == AGG_STATS || m->agg == AGG_TSERIES) {
		static const char *names[] = { [AGG_HIST] = "hist()", [AGG_LHIST] = "lhist()", [AGG_STATS] = "stats()",
					       [AGG_TSERIES] = "tseries()" };

		lang__error(c->prog, mapn->loc, "'%s' is a %s map: it has no single value per key to iterate over "
			    "(print it instead)", m->name, names[m->agg]);
		return -1;
	}
	struct type *tt = arena__alloc(c->prog->arena, 2 * sizeof(struct type));
	struct type kv = { .kind = TY_TUPLE, .ntup = 2, .tup = tt };

	if (m->nkeys == 1) {
		tt[0] = m->key.tup[0];
	} else {
		tt[0] = m->key;
		tt[0].tup = arena__alloc(c->prog->arena, m->nkeys * sizeof(struct type));
		tt[0].size = 0;
		for (int i = 0; i < m->nkeys; i++) {
			tt[0].tup[i] = m->key.tup[i];
			tt[0].size += round8(m->key.tup[i].size);
		}
	}
	tt[1] = m->agg != AGG_NONE ? ty_int(true, 64) : m->val;
	kv.size = round8(tt[0].size) + round8(tt[1].size);

	int outer = c->fn;

	s->id = c->fn = ++c->nfn;
	struct var *v = var_new(c, s->s);

	v->ty = kv;
	v->loopvar = true;
	s->var = v;
	c->loops++;
	return check_loop_fn(c, s, outer, s->x ? sortloop__check_key(c, s) : 0);
}

/* for ($i : a..b) with bounds known only at run time, in a probe's own code: the body is a function
 * of its own, as a for over a map's is; $i and the body's variables end with the loop */
static int check_range_callback(struct ck *c, struct node *s)
{
	int outer = c->fn;

	s->id = c->fn = ++c->nfn;
	struct var *v = var_new(c, s->s);

	v->ty = ty_int(true, 64);
	s->var = v;
	c->loops++;
	return check_loop_fn(c, s, outer, 0);
}

/*
 * The branch a constant condition drops (kept in the block's x) is checked anyway,
 * for the variables it assigns (0.17 scripts read them after the if; they read 0
 * then), with whatever it would report forgotten: it may be code for another kernel,
 * and fail() in it stays quiet. No code is generated for it.
 */
static void check_dropped(struct ck *c, struct node *b)
{
	struct program *p = c->prog;
	int nerr = p->nerr;
	size_t nwarn = p->warn ? strlen(p->warn) : 0;

	if (!b)
		return;
	c->dead++;
	check_block(c, b);
	c->dead--;
	free(p->err);
	p->err = NULL;
	p->nerr = nerr;
	if (p->warn)
		p->warn[nwarn] = 0;
}

static int check_stmt(struct ck *c, struct node *s)
{
	long long cv;

	switch (s->kind) {
	case N_EXPR:
		if (s->l->kind == N_CALL) {
			const struct builtin *f = builtin__func(s->l->s);

			if (f && (f->flags & BF_AGG)) {
				lang__error(c->prog, s->l->loc, "%s() is an aggregation: assign it to a map, as in '@x = %s(...)'",
					    s->l->s, s->l->s);
				return -1;
			}
		}
		ck_expr(c, s->l);
		return c->prog->err ? -1 : 0;
	case N_ASSIGN:
		return check_assign(c, s);
	case N_LET:
		if (!var_get(c, s->s))
			var_new(c, s->s);
		var_get(c, s->s)->declared = !s->r && !s->x;
		if (!s->r && s->x && s->x->kind == N_TYPE && s->x->l &&	/* let $x: typeof(e), not typeof(size_t) */
		    (s->x->l->kind != N_IDENT || builtin__var(s->x->l->s, &(int){ 0 }))) {
			struct node lhs = { .kind = N_VAR, .s = s->s, .loc = s->loc };
			struct type t = ck_expr(c, s->x->l);

			if (c->prog->err)
				return -1;
			return assign_var(c, &lhs, t, s->loc);
		}
		if (s->r) {
			struct node lhs = { .kind = N_VAR, .s = s->s, .loc = s->loc };
			struct type t = ck_expr(c, s->r);

			if (c->prog->err)
				return -1;
			return assign_var(c, &lhs, t, s->loc);
		}
		return 0;
	case N_IF:
		if (ck_expr(c, s->l).kind != TY_INT && !c->prog->err)
			lang__error(c->prog, s->l->loc, "the condition is not an integer");
		if (!c->prog->err && comptime__int(s->l, &cv)) {	/* a constant condition: only its branch */
			struct node *drop = cv ? s->x : s->r;

			comptime__fold_if(c->prog, s);
			s->x = drop;	/* checked again on each pass, never generated (check_block) */
			return check_block(c, s);
		}
		if (c->prog->err || check_block(c, s->r))
			return -1;
		return s->x ? check_block(c, s->x) : 0;
	case N_WHILE:
		if (ck_expr(c, s->l).kind != TY_INT && !c->prog->err)
			lang__error(c->prog, s->l->loc, "the condition is not an integer");
		c->loops++;
		int rc = c->prog->err ? -1 : check_block(c, s->r);

		c->loops--;
		return rc;
	case N_UNROLL: {
		long long v;

		if (s->l->kind == N_POS)	/* unroll ($1): a number given on the command line */
			ck_expr(c, s->l);
		if (!ck_is_const_int(s->l, &v) || v < 1 || v > 100) {
			lang__error(c->prog, s->l->loc, "unroll takes a constant from 1 to 100");
			return -1;
		}
		return check_block(c, s->r);
	}
	case N_FOR_RANGE: {
		struct node lhs = { .kind = N_VAR, .s = s->s, .loc = s->loc };
		long long a, b;

		if (ck_expr(c, s->l).kind != TY_INT || ck_expr(c, s->x).kind != TY_INT) {
			if (!c->prog->err)
				lang__error(c->prog, s->loc, "a range takes integers");
			return -1;
		}
		/* bounds the verifier may not see end (@m[k], a map's value): a bpf_loop() callback (gen_loop.c) */
		if (!c->fn && !var_get(c, s->s) && !(comptime__int(s->l, &a) && comptime__int(s->x, &b)))
			return check_range_callback(c, s);
		if (assign_var(c, &lhs, ty_int(true, 64), s->loc))
			return -1;
		s->var = lhs.var;
		c->loops++;
		rc = check_block(c, s->r);
		c->loops--;
		return rc;
	}
	case N_FOR_MAP:
		return check_for_map(c, s);
	case N_BREAK: case N_CONTINUE:
		if (!c->loops) {
			lang__error(c->prog, s->loc, "%s outside a loop", s->kind == N_BREAK ? "break" : "continue");
			return -1;
		}
		return 0;
	case N_RETURN:
		return s->l ? testbench__check_return(c, s) : 0;
	case N_BLOCK:
		return check_block(c, s);
	default:
		lang__error(c->prog, s->loc, "this is not a statement");
		return -1;
	}
}

static int check_block(struct ck *c, struct node *b)
{
	if (b->kind == N_BLOCK && b->x)
		check_dropped(c, b->x);
	if (b->kind != N_BLOCK)
		return check_stmt(c, b);
	for (struct node *s = b->args; s; s = s->next)
		if (check_stmt(c, s))
			return -1;
	return 0;
}

static int check_probe(struct ck *c, struct probe *pr)
{
	c->pr = pr;
	c->in = pr->inst;
	/* variables are per probe and their types come in order */
	pr->vars = NULL;
	c->fn = c->nfn = 0;
	if (pr->pred) {
		struct type t = ck_expr(c, pr->pred);

		if (c->prog->err)
			return -1;
		if (t.kind != TY_INT) {
			lang__error(c->prog, pr->pred->loc, "the predicate is not an integer");
			return -1;
		}
		/* a tool's probe its options turn off (syscount's sys_enter without -L) */
		long long v;

		pr->never = comptime__int(pr->pred, &v) && !v;
	}
	if (!pr->never)
		return check_block(c, pr->body);
	c->dead++;	/* its errors are the script's all the same, but its kernel types can wait */
	int rc = check_block(c, pr->body);

	c->dead--;
	return rc;
}

/* the layout BPF sees: key and value sizes, map type */
static void layout_maps(struct program *prog)
{
	for (struct mapinfo *m = prog->maps; m; m = m->next) {
		uint32_t ks = 0;

		for (int i = 0; i < m->key.ntup; i++)
			ks += round8(m->key.tup[i].size);
		if (m->agg == AGG_HIST || m->agg == AGG_LHIST)
			ks += 8;
		m->key_size = ks ? ks : 8;
		m->max_entries = prog->cfg.max_map_keys;
		switch (m->agg) {
		case AGG_NONE:
			m->value_size = round8(m->val.size ? m->val.size : 8);
			m->bpf_type = 1;	/* BPF_MAP_TYPE_HASH */
			break;
		case AGG_AVG: case AGG_STATS: case AGG_MIN: case AGG_MAX:
			m->value_size = 16;
			m->bpf_type = 5;	/* BPF_MAP_TYPE_PERCPU_HASH */
			m->percpu = true;
			break;
		default:
			m->value_size = 8;
			m->bpf_type = 5;
			m->percpu = true;
			break;
		}
		if (m->agg == AGG_TSERIES)
			ck_tseries_layout(prog, m);
	}
}

int lang__check(struct program *prog)
{
	struct ck c = { .prog = prog };

	if (ktypes__script(prog))
		return -EINVAL;
	for (int pass = 0; pass < 2 && !prog->err; pass++) {
		c.final = pass == 1;
		for (struct probe *pr = prog->probes; pr && !prog->err; pr = pr->next) {
			/* each instance may see different tracepoint fields: check them all */
			for (struct ap_inst *in = pr->inst; in && !prog->err; in = in->next) {
				c.pr = pr;
				c.in = in;
				if (check_probe(&c, pr))
					break;
				if (!pr->inst)
					break;
			}
			if (!pr->inst && !prog->err)
				check_probe(&c, pr);
		}
	}
	if (prog->err)
		return -EINVAL;
	for (struct mapinfo *m = prog->maps; m; m = m->next)
		if (m->val.kind == TY_NONE && m->deferred) {
			/* no live code stores or reads it (a live read failed the check): a placeholder */
			m->val = ty_int(true, 64);
		} else if (m->val.kind == TY_NONE) {
			lang__error(prog, m->loc, "'%s' is used but never assigned", m->name);
			return -EINVAL;
		}
	layout_maps(prog);
	return 0;
}
