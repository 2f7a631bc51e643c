// SPDX-License-Identifier: GPL-2.0
/*
 * check_btf.c - the type checker's rules for kernel types: curtask, casts to
 * struct pointers, `p->f` and `s.f`, `*p`, `a[i]`, sizeof(struct x), and the
 * arguments of fentry/fexit probes. Each function fills the node (n->off, the
 * bitfield in n->id/n->op) and returns its type, or TY_NONE after an error.
 */
#include "lang/dwargs.h"
#include "lang/ktypes.h"
#include "lang/provider.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static struct type none(void)
{
	struct type t = { .kind = TY_NONE };

	return t;
}

/* uprobes see user memory through the pointers they are given; everything else the kernel's */
static bool user_probe(const struct ap_inst *in)
{
	const char *pn = in && in->prov ? in->prov->name : "";

	return !strcmp(pn, "uprobe") || !strcmp(pn, "uretprobe") || !strcmp(pn, "usdt");
}

static struct type fail(struct program *p, struct node *n, const char *msg)
{
	lang__error(p, n->loc, "%s", msg);
	return none();
}

struct type ckbtf__curtask(struct program *p)
{
	struct type t = { .kind = TY_INT, .size = 8, .bits = 64 };
	struct type *to = arena__alloc(p->arena, sizeof(*to));

	/* a struct task_struct * whose BTF id is looked up when it is first needed (BTF costs ~20 ms) */
	to->kind = TY_STRUCT;
	to->size = 8;
	to->btf_id = KTYPES_TASK_STRUCT;
	t.ptr = to;
	return t;
}

/* the pointed-to struct's BTF id, curtask's looked up now; 0 or -1 after an error */
static int resolve(struct program *p, struct node *n, struct type *st)
{
	char err[256];

	if (st->kind != TY_STRUCT || st->btf_id != KTYPES_TASK_STRUCT)
		return 0;
	st->btf_id = ktypes__find(p, "struct task_struct");
	if (st->btf_id > 0)
		return 0;
	if (!ktypes__btf(p, err, sizeof(err)))
		lang__error(p, n->loc, "%s", err);
	else
		lang__error(p, n->loc, "the kernel's BTF has no struct task_struct");
	return -1;
}

struct type ckbtf__cast(struct program *p, struct ap_inst *in, struct node *n, const struct type *a, int bits, bool sign)
{
	char err[256];
	struct type t = { .kind = TY_INT, .size = 8, .bits = 64 };
	struct type *to = arena__alloc(p->arena, sizeof(*to)), *at = to;

	if (a->kind != TY_INT)
		return fail(p, n, "only integers and pointers can be cast to a pointer");
	for (int i = 1; i < n->ptr; i++) {	/* (struct x **) */
		at->kind = TY_INT;
		at->size = 8;
		at->bits = 64;
		at->user = a->ptr ? a->user : user_probe(in);
		at->ptr = arena__alloc(p->arena, sizeof(*at));
		at = at->ptr;
	}
	if (bits) {
		at->kind = TY_INT;
		at->size = 8;
		at->bits = (uint8_t)bits;
		at->sign = sign;
	} else if (!strcmp(n->s, "void")) {
		at->kind = TY_VOID;
	} else {
		int id = ktypes__find(p, n->s);

		if (id <= 0) {
			if (!ktypes__btf(p, err, sizeof(err)))
				return fail(p, n, err);
			lang__error(p, n->loc, "unknown type '%s': the kernel's BTF has no such type (only kernel types can be "
				    "named here)", n->s);
			return none();
		}
		if (ktypes__type(p, id, a->ptr ? a->user : user_probe(in), at, err, sizeof(err)))
			return fail(p, n, err);
		if (at->kind == TY_STR) {	/* (char *) as a pointer to bytes */
			at->kind = TY_INT;
			at->size = 8;
			at->bits = 8;
			at->sign = true;
		}
	}
	t.ptr = to;
	t.user = a->ptr ? a->user : user_probe(in);
	return t;
}

/* a member of a struct (s.f) or of the struct a pointer points to (p->f) */
struct type ckbtf__field(struct program *p, struct node *n, const struct type *bt)
{
	char err[256], name[128];
	const struct type *st = bt;
	struct type t;
	int off, bitoff, bitsize, tid;

	if (bt->kind == TY_INT && bt->ptr) {
		if (resolve(p, n, bt->ptr))
			return none();
		st = bt->ptr;	/* '.' on a pointer reaches through it, as '->' does (bpftrace 0.18 on) */
	} else if (bt->kind == TY_STRUCT && n->arrow) {
		return fail(p, n, "this is a struct, not a pointer: use '.' to reach its member");
	}
	if (st->kind != TY_STRUCT || !n->s) {
		lang__error(p, n->loc, "%s has no members", st->kind == TY_VOID ? "a void pointer" : "this value");
		return none();
	}
	if (ktypes__member(p, st->btf_id, n->s, &off, &bitoff, &bitsize, &tid)) {
		lang__error(p, n->loc, "%s has no member '%s'", ktypes__name(p, st->btf_id, name, sizeof(name)), n->s);
		return none();
	}
	if (ktypes__type(p, tid, st->user, &t, err, sizeof(err)))
		return fail(p, n, err);
	if (bitsize && t.kind != TY_INT)
		return fail(p, n, "a bitfield that is not an integer");
	n->off = off;
	n->id = bitoff;
	n->op = bitsize;
	if (bitsize) {
		t.bits = 64;	/* extracted into a 64-bit value */
		n->ty = t;
	}
	return n->ty = t;
}

/* *p */
struct type ckbtf__deref(struct program *p, struct ap_inst *in, struct node *n, const struct type *a)
{
	if (a->kind == TY_INT && !a->ptr) {	/* an address as an integer (kaddr()): 8 bytes, as bpftrace reads it */
		struct type *to = arena__alloc(p->arena, sizeof(*to));
		struct type *pa = arena__alloc(p->arena, sizeof(*pa));

		to->kind = TY_INT;
		to->size = 8;
		to->bits = 64;
		*pa = *a;
		pa->ptr = to;
		pa->user = user_probe(in);
		n->l->ty = *pa;
		a = pa;
	}
	if (a->kind != TY_INT || !a->ptr)
		return fail(p, n, "only pointers can be dereferenced (cast the address first: *(uint32 *)arg0)");
	if (a->ptr->kind == TY_VOID)
		return fail(p, n, "a void pointer cannot be dereferenced: cast it to a pointer to a type first");
	if (resolve(p, n, a->ptr))
		return none();
	n->off = 0;
	n->id = 0;
	n->op = T_STAR;
	return n->ty = *a->ptr;
}

/* a[i]: an array member, or a pointer indexed like one */
struct type ckbtf__index(struct program *p, struct node *n, const struct type *a, const struct type *i)
{
	char err[256];
	struct type t;
	int eid, cnt;

	if (i->kind != TY_INT)
		return fail(p, n, "an index must be an integer");
	if (a->kind == TY_INT && a->ptr) {
		if (a->ptr->kind == TY_VOID)
			return fail(p, n, "a void pointer cannot be indexed");
		if (resolve(p, n, a->ptr))
			return none();
		n->id = a->ptr->kind == TY_STRUCT ? ktypes__size(p, a->ptr->btf_id) : a->ptr->kind == TY_INT && !a->ptr->ptr ?
			a->ptr->bits / 8 : 8;
		n->i = -1;	/* no bound */
		return n->ty = *a->ptr;
	}
	if (a->kind != TY_STRUCT || ktypes__array(p, a->btf_id, &eid, &cnt))
		return fail(p, n, "only arrays and pointers can be indexed");
	if (ktypes__type(p, eid, a->user, &t, err, sizeof(err)))
		return fail(p, n, err);
	n->id = ktypes__size(p, eid);
	n->i = cnt ? cnt : -1;	/* a flexible array (struct pid's numbers[]): no bound */
	if (n->id <= 0)
		return fail(p, n, "the array's elements have no size");
	return n->ty = t;
}

/* sizeof(struct x), sizeof(task_struct): -1 when it is not a kernel type */
int ckbtf__sizeof(struct program *p, const char *name)
{
	int id = ktypes__find(p, name);

	return id > 0 ? ktypes__size(p, id) : -1;
}

/* args.name / args->name / argN in fentry and fexit probes, typed from the function's BTF */
struct type ckbtf__fentry_arg(struct program *p, struct ap_inst *in, struct node *n, const char *name)
{
	char err[256];
	struct type t;
	int fid, proto, tid, index;

	if (ktypes__func(p, in->sym, &fid, &proto)) {
		lang__error(p, n->loc, "the kernel's BTF has no function '%s'", in->sym);
		return none();
	}
	if (!name) {	/* retval */
		index = ktypes__nparams(p, proto);
		tid = ktypes__ret(p, proto);
	} else if (ktypes__param(p, proto, name, &index, &tid)) {
		lang__error(p, n->loc, "%s() has no parameter '%s'", in->sym, name);
		return none();
	}
	if (ktypes__type(p, tid, false, &t, err, sizeof(err)))
		return fail(p, n, err);
	if (t.kind == TY_STRUCT || t.kind == TY_STR)
		return fail(p, n, "a struct passed by value cannot be read here");
	if (t.kind == TY_VOID)
		return fail(p, n, "the function returns nothing");
	n->off = index * 8;
	return n->ty = t;
}

/* args.name in rawtracepoint:EVENT, typed from the kernel's __bpf_trace_EVENT (its first parameter is the probe's data) */
struct type ckbtf__rawtp_arg(struct program *p, struct ap_inst *in, struct node *n)
{
	char fname[160], err[256];
	struct type ty;
	int fid, proto, index, tid;

	snprintf(fname, sizeof(fname), "__bpf_trace_%s", in->event ? in->event : "");
	if (ktypes__func(p, fname, &fid, &proto))
		return fail(p, n, "the kernel's BTF does not name this raw tracepoint's arguments (no __bpf_trace_ function)");
	if (!n->s || ktypes__param(p, proto, n->s, &index, &tid) || index < 1) {
		lang__error(p, n->loc, "raw tracepoint '%s' has no argument '%s'", in->event, n->s ? n->s : "");
		return none();
	}
	if (ktypes__type(p, tid, false, &ty, err, sizeof(err)))
		return fail(p, n, err);
	if (ty.kind == TY_STRUCT || ty.kind == TY_STR || ty.kind == TY_VOID)
		return fail(p, n, "an argument passed by value cannot be read here");
	n->off = (index - 1) * 8;
	return n->ty = ty;
}

int ckbtf__tp_ptr(struct program *p, const char *ctype, bool user, struct type *out)
{
	const char *s = strstr(ctype, "struct ");
	char name[128], err[256];
	int n = 0, stars = 0, id;

	if (!s)
		return -1;
	s += 7;
	while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= '0' && s[n] <= '9') || s[n] == '_')
		n++;
	if (!n || n >= (int)sizeof(name))
		return -1;
	for (const char *q = s + n; *q; q++)
		stars += *q == '*';
	if (stars != 1)
		return -1;
	snprintf(name, sizeof(name), "struct %.*s", n, s);
	id = ktypes__find(p, name);
	if (id <= 0)
		return -1;
	memset(out, 0, sizeof(*out));
	out->kind = TY_INT;
	out->size = 8;
	out->bits = 64;
	out->user = user;
	out->ptr = arena__alloc(p->arena, sizeof(*out->ptr));
	return ktypes__type(p, id, user, out->ptr, err, sizeof(err)) ? -1 : 0;
}

int ckbtf__has_field(struct program *p, const char *type, const char *members)
{
	char err[256], part[128];
	int id = ktypes__find(p, type);
	const char *m = members;

	if (id <= 0)
		return 0;
	while (*m) {
		size_t len = strcspn(m, ".");
		int off, bitoff, bitsize, tid;
		struct type t;

		snprintf(part, sizeof(part), "%.*s", (int)len, m);
		if (ktypes__member(p, id, part, &off, &bitoff, &bitsize, &tid))
			return 0;
		m += len;
		if (*m == '.') {
			m++;
			if (ktypes__type(p, tid, false, &t, err, sizeof(err)) || t.kind != TY_STRUCT)
				return 0;
			id = t.btf_id;
		}
	}
	return 1;
}

long long ckbtf__offsetof(struct program *p, struct node *n, const char *type, const char *members)
{
	char name[128], err[256], part[128];
	int id = ktypes__find(p, type);
	long long total = 0;
	const char *m = members;

	if (id <= 0) {
		if (!ktypes__btf(p, err, sizeof(err)))
			lang__error(p, n->loc, "%s", err);
		else
			lang__error(p, n->loc, "offsetof(%s, ...): no such struct (neither the script's nor the kernel's)", type);
		return -1;
	}
	while (*m) {
		size_t len = strcspn(m, ".");
		int off, bitoff, bitsize, tid;
		struct type t;

		snprintf(part, sizeof(part), "%.*s", (int)len, m);
		if (ktypes__member(p, id, part, &off, &bitoff, &bitsize, &tid)) {
			lang__error(p, n->loc, "%s has no member '%s'", ktypes__name(p, id, name, sizeof(name)), part);
			return -1;
		}
		if (bitsize) {
			lang__error(p, n->loc, "'%s' is a bitfield: it has no byte offset", part);
			return -1;
		}
		total += off;
		m += len;
		if (*m == '.') {
			m++;
			if (ktypes__type(p, tid, false, &t, err, sizeof(err)) || t.kind != TY_STRUCT) {
				lang__error(p, n->loc, "'%s' is not a struct: it has no members", part);
				return -1;
			}
			id = t.btf_id;
		}
	}
	return total;
}

struct type ckbtf__uprobe_arg(struct program *p, struct ap_inst *in, struct node *n)
{
	struct dwparam prm[32];
	char err[256];
	struct type t;
	int np = in->path && in->sym ? dwargs__params(p, in->path, in->sym, prm, 32) : -ENOENT, i;

	if (np == -ENODATA) {
		lang__error(p, n->loc, "'%s' has no DWARF: a uprobe's args.NAME needs its debug information (arg0..arg5 "
			    "do not)", in->path);
		return none();
	}
	for (i = 0; i < np && strcmp(prm[i].name, n->s ? n->s : ""); i++)
		;
	if (np < 0 || i == np) {
		lang__error(p, n->loc, "%s() has no parameter '%s' in the DWARF of '%s'", in->sym, n->s ? n->s : "", in->path);
		return none();
	}
	if (provider__arg_offset(i) < 0) {
		lang__error(p, n->loc, "'%s' is parameter %d of %s(): only the first six are in registers", n->s, i + 1, in->sym);
		return none();
	}
	if (prm[i].btf_id < 0 || ktypes__type(p, prm[i].btf_id, true, &t, err, sizeof(err)) ||
	    t.kind == TY_STRUCT || t.kind == TY_STR || t.kind == TY_VOID) {
		lang__error(p, n->loc, "'%s' (%s) cannot be read from a register: a struct passed by value, a float or "
			    "an unknown type", n->s, prm[i].type);
		return none();
	}
	n->off = provider__arg_offset(i);
	n->id = i;
	return n->ty = t;
}
