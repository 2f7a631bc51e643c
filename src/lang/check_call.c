// SPDX-License-Identifier: GPL-2.0
/*
 * check_call.c - the type rules of the builtin functions: their arguments'
 * types and counts, what they return, which probes may call them, and the
 * record layouts printf, print, cat, system and the other output calls send.
 */
#include "lang/check_int.h"
#include "lang/comptime.h"
#include "lang/gen_task.h"
#include "lang/skboutput.h"
#include "lang/ktypes.h"
#include "lang/provider.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int count_verbs(struct ck *c, struct node *fmtn, int nargs)
{
	int n = 0;
	const char *s = fmtn->s;

	for (size_t i = 0; i < fmtn->slen; i++) {
		if (s[i] != '%')
			continue;
		if (i + 1 < fmtn->slen && s[i + 1] == '%') {
			i++;
			continue;
		}
		size_t j = i + 1;

		while (j < fmtn->slen && strchr("-+ #0123456789.hlLzjt", s[j]))
			j++;
		if (j >= fmtn->slen || !strchr("diuxXospcrfegEGa", s[j])) {
			struct loc l = fmtn->loc;

			lang__error(c->prog, l, "invalid format verb '%.*s'", (int)(j - i + (j < fmtn->slen)), s + i);
			return -1;
		}
		n++;
		i = j;
	}
	if (n != nargs) {
		lang__error(c->prog, fmtn->loc, "the format has %d verb%s but %d argument%s follow%s", n,
			    n == 1 ? "" : "s", nargs, nargs == 1 ? "" : "s", nargs == 1 ? "s" : "");
		return -1;
	}
	return 0;
}

/* a record for the user-space side: printf, print, cat, system, time */
static int make_site(struct ck *c, struct node *call, int kind, struct node *fmt, struct node *args, int nargs)
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
static int aux_site(struct ck *c, struct node *call, const char *text)
{
	if (call->id > 0)
		return 0;
	struct fmtsite *s = arena__alloc(c->prog->arena, sizeof(*s));

	s->fmt = text;
	s->loc = call->loc;
	call->id = lang__add_site(c->prog, s) + 1;
	return call->id > 0 ? 0 : -1;
}

/* buf, ntop, strftime, uaddr, cgroup_path, strerror, kptr, uptr (their arguments are checked) */
static struct type check_func_value(struct ck *c, struct node *n, int id)
{
	struct node *a0 = n->args, *a1 = a0->next;
	struct type none = ty_kind(TY_NONE, 0);
	char b[64];

	switch (id) {
	case F_BUF: {
		int max = c->prog->cfg.max_strlen, arr = ck_array_size(c, a0);
		long long len = max;

		if (a0->ty.kind != TY_INT && a0->ty.kind != TY_STR && !arr) {
			lang__error(c->prog, a0->loc, "buf() takes a pointer or an array (this is a value of type %s)", type__str(&a0->ty, b, sizeof(b)));
			return none;
		}
		if (!a1 && !arr) {
			lang__error(c->prog, n->loc, "buf() takes a length unless its argument is a fixed-size array "
				    "(a tracepoint's array field, a kernel type's array)");
			return none;
		}
		if (a1 && a1->ty.kind != TY_INT) {
			lang__error(c->prog, a1->loc, "the length of buf() is an integer");
			return none;
		}
		if (a1 && ck_is_const_int(a1, &len) && len < 0) {
			lang__error(c->prog, a1->loc, "the length of buf() cannot be negative");
			return none;
		}
		if (!a1)
			len = arr;
		if (len > max) {
			if (a1 && a1->kind == N_INT && c->final)
				lang__warn(c->prog, n->loc, "buf() length is too long and will be shortened to %d bytes "
					   "(config = { max_strlen = N } changes it)", max);
			len = max;
		}
		return n->ty = ty_kind(TY_BUF, 8 + round8((int)len));
	}
	case F_NTOP: {
		struct node *addr = a1 ? a1 : a0;
		int arr = ck_array_size(c, addr);

		if (a1 && a0->ty.kind != TY_INT) {
			lang__error(c->prog, a0->loc, "ntop(af, addr) takes the address family as an integer (AF_INET is 2, "
				    "AF_INET6 is 10)");
			return none;
		}
		if (addr->ty.kind != TY_INT && !(arr == 4 || arr == 16)) {
			if (addr->ty.kind == TY_STR)
				lang__error(c->prog, addr->loc, "ntop() takes an integer or an array of 4 or 16 bytes "
					    "(a tracepoint's or a kernel type's); this is a value of type %s", type__str(&addr->ty, b, sizeof(b)));
			else
				lang__error(c->prog, addr->loc, "ntop() takes an integer or an array of 4 or 16 bytes (this is a value of type %s)",
					    type__str(&addr->ty, b, sizeof(b)));
			return none;
		}
		return n->ty = ty_kind(TY_INET, 24);
	}
	case F_STRFTIME:
		if (a0->kind != N_STR) {
			lang__error(c->prog, a0->loc, "the first argument of strftime() is a format string literal");
			return none;
		}
		if (a1->ty.kind != TY_INT) {
			lang__error(c->prog, a1->loc, "strftime() takes nanoseconds since boot (an integer such as nsecs), "
				    "not a value of type %s", type__str(&a1->ty, b, sizeof(b)));
			return none;
		}
		if (aux_site(c, n, a0->s))
			return none;
		return n->ty = ty_kind(TY_TIMESTAMP, 16);
	case F_CGROUP_PATH:
		if (a0->ty.kind != TY_INT) {
			lang__error(c->prog, a0->loc, "cgroup_path() takes a cgroup id (an integer such as cgroup), not a value of type %s",
				    type__str(&a0->ty, b, sizeof(b)));
			return none;
		}
		if (a1 && a1->kind != N_STR) {
			lang__error(c->prog, a1->loc, "the filter of cgroup_path() is a string literal (hierarchy names, "
				    "with * wildcards)");
			return none;
		}
		if (aux_site(c, n, a1 ? a1->s : "*"))
			return none;
		return n->ty = ty_kind(TY_CGPATH, 16);
	case F_STRERROR:
		if (a0->ty.kind != TY_INT) {
			lang__error(c->prog, a0->loc, "strerror() takes an error number, not a value of type %s",
				    type__str(&a0->ty, b, sizeof(b)));
			return none;
		}
		return n->ty = ty_kind(TY_STRERROR, 8);
	case F_KPTR: case F_UPTR:
		if (a0->ty.kind != TY_INT) {
			lang__error(c->prog, a0->loc, "%s() takes an address (an integer), not a value of type %s", n->s,
				    type__str(&a0->ty, b, sizeof(b)));
			return none;
		}
		n->ty = a0->ty;
		n->ty.user = n->ty.ptr && id == F_UPTR;	/* which memory a dereference reads */
		return n->ty;
	case F_UADDR: {
		const char *prov = c->in && c->in->prov ? c->in->prov->name : "";
		uint64_t addr, size;

		if (a0->kind != N_STR) {
			lang__error(c->prog, a0->loc, "uaddr() takes a symbol name literal");
			return none;
		}
		if ((strcmp(prov, "uprobe") && strcmp(prov, "uretprobe") && strcmp(prov, "usdt")) || !c->in->path) {
			lang__error(c->prog, n->loc, "uaddr() is only available in uprobes, uretprobes and usdt probes: "
				    "it looks the symbol up in the probed binary");
			return none;
		}
		if (provider__elf_symbol(c->in->path, a0->s, &addr, &size)) {
			lang__error(c->prog, a0->loc, "no function or object '%s' in the symbol tables of %s", a0->s, c->in->path);
			return none;
		}
		/* bpftrace's type: a pointer to an integer of the object's size (int64 * past 8 bytes) */
		struct type *pt = arena__alloc(c->prog->arena, sizeof(*pt));

		*pt = ty_int(true, size == 1 ? 8 : size == 2 ? 16 : size == 4 ? 32 : 64);
		n->ty = ty_int(false, 64);
		n->ty.ptr = pt;
		n->ty.user = true;
		return n->ty;
	}
	}
	return none;
}

struct type ck_call(struct ck *c, struct node *n, struct node *assign_to)
{
	const struct bfunc_desc *f = builtin__func(n->s);
	struct type none = ty_kind(TY_NONE, 0);
	int nargs = (int)n->i;

	if (!f || (!nargs && (f->id == F_PCOMM || f->id == F_PPID || f->id == F_NSECS || f->id == F_PID_NS ||
			      f->id == F_TID_NS || f->id == F_COMM))) {
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
	if (comptime__handles(f->id))	/* getopt(), fail(), kfunc_*(): constants (comptime.c) */
		return ck_bool_result(n, comptime__call(c, n, f));
	if (f->id == F_HAS_KEY || f->id == F_LEN)
		return ck_bool_result(n, ck_map_fn(c, n, f));
	if (f->id == F_FIND)
		return ck_bool_result(n, ck_find(c, n));
	if (f->id >= F_IS_STR && f->id <= F_STATIC_ASSERT)
		return ck_bool_result(n, ck_type_fn(c, n, f));
	if (f->id >= F_STRLEN && f->id <= F_USERNAME)
		return ck_bool_result(n, ck_str_fn(c, n, f));
	if (f->id >= F_PID_NS && f->id <= F_SOCKET_COOKIE)
		return cktask__call(c, n, f);	/* gen_task.c */
	if (f->id == F_SKBOUTPUT)
		return ckskb__call(c, n);	/* skboutput.c */
	/* the arguments' types; a map argument is checked as a map */
	struct node *a0 = n->args;

	if (f->flags & BF_MAPARG) {
		if (!a0 || a0->kind != N_MAP) {
			lang__error(c->prog, a0 ? a0->loc : n->loc, "%s() takes a map as its first argument", n->s);
			return none;
		}
		if (f->id == F_DELETE) {
			if (a0->i < 0 && a0->next) {	/* delete(@m, key), delete(@m, (k1, k2)) */
				a0->args = a0->next;
				if (!a0->next->next && a0->next->kind == N_TUPLE && !a0->next->x && a0->next->i > 0)
					a0->args = a0->next->args;
				a0->i = 1;
				for (struct node *k = a0->args; k->next; k = k->next)
					a0->i++;
				a0->next = NULL;
			}
			if (ck_map_keys(c, a0))
				return none;
			/* upstream: true when the key was there and is gone, false when it was not there */
			n->ty = ty_int(false, 64);
			n->ty.boolean = true;
			return n->ty;
		} else {
			if (a0->i >= 0) {
				lang__error(c->prog, a0->loc, "%s() takes a whole map: write '%s'", n->s, a0->s);
				return none;
			}
			a0->map = ck_map_get(c, a0);
		}
		n->ty = ty_kind(TY_VOID, 0);
		return n->ty;
	}
	if (f->id == F_PRINT && a0->kind == N_MAP && a0->i < 0) {
		a0->map = ck_map_get(c, a0);
		for (struct node *x = a0->next; x; x = x->next) {
			long long v;

			if (!ck_is_const_int(x, &v) || v < 0) {
				lang__error(c->prog, x->loc, "print(@map, top, div) takes constant numbers");
				return none;
			}
		}
		if (n->id == 0) {
			struct fmtsite *s = arena__alloc(c->prog->arena, sizeof(*s));

			s->kind = REC_PRINT_MAP;
			s->map = a0->map;
			s->top = a0->next ? a0->next->i : 0;
			s->div = a0->next && a0->next->next ? a0->next->next->i : 0;
			s->size = 8;
			s->loc = n->loc;
			n->id = lang__add_site(c->prog, s) + 1;
		}
		n->ty = ty_kind(TY_VOID, 0);
		return n->ty;
	}
	for (struct node *a = n->args; a; a = a->next) {
		if (f->id == F_KADDR || f->id == F_REG || f->id == F_SIGNAL || f->id == F_KSTACK || f->id == F_USTACK ||
		    f->id == F_SIGNAL_THREAD || f->id == F_NSECS || f->id == F_PCOMM || f->id == F_PPID)
			break;
		ck_expr(c, a);
		if (c->prog->err)
			return none;
		if (a->ty.kind == TY_VOID || a->ty.kind == TY_CTX) {
			lang__error(c->prog, a->loc, "this cannot be an argument of %s()", n->s);
			return none;
		}
	}
	long long v;

	switch (f->id) {
	case F_PRINTF: case F_CAT: case F_SYSTEM: case F_ERRORF:
		if (a0->kind != N_STR) {
			lang__error(c->prog, a0->loc, "the first argument of %s() is a format string literal", n->s);
			return none;
		}
		if (count_verbs(c, a0, nargs - 1))
			return none;
		if (f->id == F_ERRORF && n->id <= 0) {	/* "file:l:c-e: ERROR: text" on stderr, as upstream */
			bool err = !strcmp(n->s, "errorf");
			const char *fmt = ck_located_fmt(c, n, err ? "ERROR" : "WARNING", a0->s);

			if (!fmt || make_site(c, n, err ? REC_ERRORF : REC_WARNF, NULL, a0->next, nargs - 1))
				return none;
			c->prog->sites[n->id - 1]->fmt = fmt;
			return n->ty = ty_kind(TY_VOID, 0);
		}
		if (make_site(c, n, f->id == F_CAT ? REC_CAT : f->id == F_SYSTEM ? REC_SYSTEM : REC_PRINTF,
			      a0, a0->next, nargs - 1))
			return none;
		return n->ty = ty_kind(TY_VOID, 0);
	case F_PRINT:
		if (nargs > 1) {
			lang__error(c->prog, n->loc, "print() of a value takes one argument");
			return none;
		}
		if (make_site(c, n, REC_PRINT_VAL, NULL, a0, 1))
			return none;
		return n->ty = ty_kind(TY_VOID, 0);
	case F_TIME:
		if (a0 && a0->kind != N_STR) {
			lang__error(c->prog, a0->loc, "time() takes a format string literal");
			return none;
		}
		if (make_site(c, n, REC_TIME, a0, NULL, 0))
			return none;
		return n->ty = ty_kind(TY_VOID, 0);
	case F_EXIT:	/* exit(CODE): sonde's exit status (upstream's; 0.17's exit() takes none) */
		if (a0 && a0->ty.kind != TY_INT) {
			lang__error(c->prog, a0->loc, "exit() takes an integer exit code");
			return none;
		}
		return n->ty = ty_kind(TY_VOID, 0);
	case F_UNWATCH:	/* the runtime closes the watchpoints on the address (provider_watch.c) */
		if (a0->ty.kind != TY_INT) {
			lang__error(c->prog, a0->loc, "unwatch() takes an address");
			return none;
		}
		return n->ty = ty_kind(TY_VOID, 0);
	case F_JOIN:
		if (a0->ty.kind != TY_INT || (a0->next && a0->next->kind != N_STR)) {
			lang__error(c->prog, n->loc, "join() takes an array of string pointers and a separator literal");
			return none;
		}
		c->prog->need_join = true;
		if (!n->id) {
			struct fmtsite *s = arena__alloc(c->prog->arena, sizeof(*s));

			s->kind = REC_JOIN;
			s->fmt = a0->next ? a0->next->s : " ";
			s->loc = n->loc;
			n->id = lang__add_site(c->prog, s) + 1;
		}
		return n->ty = ty_kind(TY_VOID, 0);
	case F_PATH: {	/* bpf_d_path(): fentry/fexit on the functions the kernel allows it in */
		char b[64];
		int sz = c->prog->cfg.max_strlen;

		if (!c->in || c->in->prov->prog_type != 26 /* BPF_PROG_TYPE_TRACING */) {
			lang__error(c->prog, n->loc, "path() is only available in fentry and fexit probes (the kernel's bpf_d_path)");
			return none;
		}
		if (!((a0->ty.kind == TY_STRUCT) || (a0->ty.kind == TY_INT && a0->ty.ptr && a0->ty.ptr->kind == TY_STRUCT)) ||
		    strcmp(ktypes__name(c->prog, a0->ty.kind == TY_STRUCT ? a0->ty.btf_id : a0->ty.ptr->btf_id, b, sizeof(b)),
			   "struct path")) {
			lang__error(c->prog, a0->loc, "path() takes a struct path or a pointer to one (args.file->f_path)");
			return none;
		}
		if (a0->next) {
			if (!ck_is_const_int(a0->next, &v) || v < 1) {
				lang__error(c->prog, a0->next->loc, "the size of path() must be a positive constant");
				return none;
			}
			if (v < sz)
				sz = (int)v;
		}
		return n->ty = ty_str(sz);
	}
	case F_STR:
		if (a0->ty.kind != TY_INT && a0->ty.kind != TY_STR) {
			char b[64];

			lang__error(c->prog, a0->loc, "str() takes an integer or a pointer, not a %s", type__str(&a0->ty, b, sizeof(b)));
			return none;
		}
		if (a0->next) {
			if (!ck_is_const_int(a0->next, &v) || v < 1) {
				lang__error(c->prog, a0->next->loc, "the length of str() must be a positive constant here");
				return none;
			}
			if (v > c->prog->cfg.max_strlen)
				v = c->prog->cfg.max_strlen;
			return n->ty = ty_str((int)v + 1 > c->prog->cfg.max_strlen ? c->prog->cfg.max_strlen : (int)v + 1);
		}
		return n->ty = a0->ty.kind == TY_STR ? a0->ty : ty_str(c->prog->cfg.max_strlen);
	case F_COUNT: case F_SUM: case F_AVG: case F_MIN: case F_MAX: case F_STATS: case F_HIST: case F_LHIST:
		if (a0 && a0->ty.kind != TY_INT) {
			lang__error(c->prog, a0->loc, "%s() takes an integer", n->s);
			return none;
		}
		if (f->id == F_LHIST) {
			long long mn, mx, st;
			struct node *a1 = a0->next, *a2 = a1->next, *a3 = a2->next;

			if (!ck_is_const_int(a1, &mn) || !ck_is_const_int(a2, &mx) || !ck_is_const_int(a3, &st)) {
				lang__error(c->prog, n->loc, "lhist() takes constant min, max and step");
				return none;
			}
			if (st <= 0 || mx <= mn || (mx - mn) / st > 1000) {
				lang__error(c->prog, n->loc, "lhist(): step must be > 0, max > min, and at most 1000 buckets");
				return none;
			}
			struct mapinfo *m = assign_to->map;

			if (m->lstep && (m->lmin != mn || m->lmax != mx || m->lstep != st)) {
				lang__error(c->prog, n->loc, "'%s' is an lhist(%lld, %lld, %lld) elsewhere: one map has one "
					    "bucket layout", m->name, m->lmin, m->lmax, m->lstep);
				return none;
			}
			m->lmin = mn;
			m->lmax = mx;
			m->lstep = st;
		}
		if (f->id == F_HIST) {
			struct mapinfo *m = assign_to->map;
			long long k = 0;

			if (a0->next && (!ck_is_const_int(a0->next, &k) || k < 0 || k > 5)) {
				lang__error(c->prog, a0->next->loc, "hist(n, k) takes a constant k from 0 to 5");
				return none;
			}
			if (m->agg == AGG_HIST && m->hist_k != k) {
				lang__error(c->prog, n->loc, "'%s' is a hist(n, %d) elsewhere: one map has one bucket layout",
					    m->name, m->hist_k);
				return none;
			}
			m->hist_k = (int)k;
		}
		return n->ty = ty_kind(TY_AGG, 8);
	case F_TSERIES:
		return ck_tseries(c, n, assign_to);
	case F_KSYM:
		return n->ty = ty_kind(TY_KSYM, 8);
	case F_USYM:
		c->prog->need_ustack = true;	/* its pid-seen map comes with the user stacks' */
		return n->ty = ty_kind(TY_USYM, 16);
	case F_KADDR:
		if (a0->kind != N_STR) {
			lang__error(c->prog, a0->loc, "kaddr() takes a symbol name literal");
			return none;
		}
		return n->ty = ty_int(false, 64);
	case F_STRNCMP:
		if (a0->ty.kind != TY_STR || a0->next->ty.kind != TY_STR ||
		    !ck_is_const_int(a0->next->next, &v) || v < 0) {
			lang__error(c->prog, n->loc, "strncmp() takes two strings and a constant length");
			return none;
		}
		return n->ty = ty_int(false, 64);
	case F_STRCONTAINS:
		if (a0->ty.kind != TY_STR || a0->next->kind != N_STR)	/* upstream's strstr(h, n) >= 0 */
			return ck_str_contains(c, n);
		return n->ty = ty_int(false, 64);
	case F_SIGNAL: case F_SIGNAL_THREAD:
		if (a0->kind != N_STR && a0->kind != N_INT) {
			lang__error(c->prog, a0->loc, "%s() takes a signal name or number", n->s);
			return none;
		}
		return n->ty = ty_kind(TY_VOID, 0);
	case F_PCOMM: case F_PPID:
		return ck_task_field(c, n, a0, f->id == F_PCOMM);
	case F_NSECS: {	/* nsecs(boot | monotonic | tai | sw_tai) */
		static const char *modes[] = { "boot", "monotonic", "tai", "sw_tai" };

		for (n->id = 0; n->id < 4 && (a0->kind != N_IDENT || strcmp(a0->s, modes[n->id])); n->id++)
			;
		if (n->id == 4) {
			lang__error(c->prog, a0->loc, "nsecs() takes a clock: boot, monotonic, tai or sw_tai");
			return none;
		}
		return n->ty = ty_int(false, 64);
	}
	case F_KSTACK: case F_USTACK:
		for (struct node *a = a0; a; a = a->next)
			if ((a->kind != N_IDENT || a != a0 || (strcmp(a->s, "bpftrace") && strcmp(a->s, "perf") &&
							       strcmp(a->s, "raw"))) && a->kind != N_INT) {
				lang__error(c->prog, a->loc, "%s() takes a mode (bpftrace, perf, raw) and a constant depth", n->s);
				return none;
			}
		if (f->id == F_KSTACK)
			c->prog->need_kstack = true;
		else
			c->prog->need_ustack = true;
		n->ty = f->id == F_KSTACK ? ty_kind(TY_KSTACK, 8) : ty_kind(TY_USTACK, 16);
		n->ty.smode = (uint8_t)c->prog->cfg.stack_mode;
		for (struct node *a = a0; a; a = a->next)
			if (a->kind == N_INT)
				n->ty.bits = a->i < 1 ? 1 : a->i > 127 ? 127 : (uint8_t)a->i;	/* frames shown */
			else
				n->ty.smode = !strcmp(a->s, "perf") ? STACK_PERF : !strcmp(a->s, "raw") ? STACK_RAW : STACK_BPFTRACE;
		return n->ty;
	case F_BSWAP:
		if (a0->ty.kind != TY_INT) {
			lang__error(c->prog, a0->loc, "bswap() takes an integer");
			return none;
		}
		return n->ty = ty_int(false, a0->ty.bits ? a0->ty.bits : 64);
	case F_CGROUPID: {
		long long id;

		if (a0->kind != N_STR) {
			lang__error(c->prog, a0->loc, "cgroupid() takes a path literal");
			return none;
		}
		if (builtin__cgroupid(a0->s, &id)) {
			lang__error(c->prog, a0->loc, errno == ENOTSUP ? "'%s' is not a cgroup v2 directory (cgroupid() gives the ids "
				    "of the unified hierarchy, which 'cgroup' reads)" : "cannot find the cgroup '%s': %s", a0->s,
				    strerror(errno));
			return none;
		}
		n->kind = N_INT;	/* known now */
		n->i = id;
		return n->ty = ty_int(false, 64);
	}
	case F_OVERRIDE:
		if (!c->in || strcmp(c->in->prov->name, "kprobe")) {
			lang__error(c->prog, n->loc, "override() is only available in kprobes");
			return none;
		}
		if (a0->ty.kind != TY_INT) {
			lang__error(c->prog, a0->loc, "override() takes an integer (the return value to force)");
			return none;
		}
		return n->ty = ty_kind(TY_VOID, 0);
	case F_BUF: case F_NTOP: case F_STRFTIME: case F_UADDR: case F_CGROUP_PATH: case F_STRERROR:
	case F_KPTR: case F_UPTR:
		return check_func_value(c, n, f->id);
	case F_PTON: {	/* an address's bytes, known when compiling: uint8[4] or uint8[16] */
		unsigned char bytes[16];
		bool v6 = a0->kind == N_STR && strchr(a0->s, ':');

		if (a0->kind != N_STR || inet_pton(v6 ? AF_INET6 : AF_INET, a0->s, bytes) != 1) {
			lang__error(c->prog, a0->loc, "pton() takes an IPv4 or IPv6 address literal (\"127.0.0.1\", \"::1\")");
			return none;
		}
		n->x = arena__alloc(c->prog->arena, sizeof(*n->x));
		n->x->kind = N_STR;
		n->x->s = arena__strndup(c->prog->arena, (const char *)bytes, v6 ? 16 : 4);
		n->x->slen = v6 ? 16 : 4;
		n->ty = ty_kind(TY_ARRAY, v6 ? 16 : 8);
		n->ty.ntup = v6 ? 16 : 4;
		n->ty.bits = 8;
		return n->ty;
	}
	case F_MACADDR: {	/* an array of 6 bytes, or a pointer to 6 bytes */
		int arr = ck_array_size(c, a0);

		if (arr ? arr != 6 : a0->ty.kind != TY_INT) {	/* an integer is an address, as in bpftrace */
			char b[64];

			lang__error(c->prog, a0->loc, "macaddr() takes an array of 6 bytes or a pointer to them (this is %s%s)",
				    arr ? "an array of another size" : "a value of type ", arr ? "" : type__str(&a0->ty, b, sizeof(b)));
			return none;
		}
		return n->ty = ty_kind(TY_MACADDR, 8);
	}
	case F_REG:
		if (a0->kind != N_STR) {
			lang__error(c->prog, a0->loc, "reg() takes a register name literal");
			return none;
		}
		if (!c->in || c->in->prov->prog_type != 2 /* BPF_PROG_TYPE_KPROBE */) {
			lang__error(c->prog, n->loc, "reg() is only available in uprobes and kprobes");
			return none;
		}
		return n->ty = ty_int(false, 64);
	default:
		break;
	}
	return none;
}

/* is_str(e), is_integer(e), is_literal(e): constants from e's type (e is not evaluated); static_assert() */
struct type ck_type_fn(struct ck *c, struct node *n, const struct bfunc_desc *f)
{
	struct node *a0 = n->args;
	bool lit = a0->kind == N_INT || a0->kind == N_STR || a0->kind == N_POS ||
		   (a0->kind == N_IDENT && (!strcmp(a0->s, "true") || !strcmp(a0->s, "false")));
	struct type t = ck_expr(c, a0);

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

/* has_key(@m, k...) and len(@m) */
struct type ck_map_fn(struct ck *c, struct node *n, const struct bfunc_desc *f)
{
	struct node *a0 = n->args;

	if (f->id == F_LEN && (a0->kind != N_MAP || a0->i >= 0))	/* len(kstack), len($s), len(@s[k]) */
		return ck_stack_len(c, n);
	if (a0->kind != N_MAP || (f->id == F_LEN && (a0->i >= 0 || a0->next))) {
		lang__error(c->prog, a0->loc, f->id == F_LEN ? "len() takes a whole map, as in 'len(@m)', or a "
			    "stack" : "has_key() takes a map and a key, "
			    "as in 'has_key(@m, k)'");
		return ty_kind(TY_NONE, 0);
	}
	if (f->id == F_LEN) {
		a0->map = ck_map_get(c, a0);
		return n->ty = ty_int(true, 64);
	}
	if (a0->i < 0 && a0->next) {	/* has_key(@m, k1, k2) and has_key(@m, (k1, k2)) are @m[k1, k2] */
		struct node *k = a0->next;

		if (!k->next && k->kind == N_TUPLE && !k->x)
			k = k->args;
		a0->args = k;
		a0->i = 0;
		for (; k; k = k->next)
			a0->i++;
		a0->next = NULL;
	}
	if (a0->i <= 0) {
		lang__error(c->prog, n->loc, "has_key() takes a map with keys and a key, as in 'has_key(@m, k)'");
		return ty_kind(TY_NONE, 0);
	}
	if (ck_map_keys(c, a0))
		return ty_kind(TY_NONE, 0);
	return n->ty = ty_int(false, 64);
}

/*
 * pcomm / pcomm(task): task->group_leader->comm; ppid / ppid(task):
 * task->real_parent->tgid (task defaults to curtask). n is rewritten into those
 * member reads and checked as such.
 */
struct type ck_task_field(struct ck *c, struct node *n, struct node *task, bool comm)
{
	struct node *t = task, *mid = arena__alloc(c->prog->arena, sizeof(*mid));
	struct node *top = arena__alloc(c->prog->arena, sizeof(*top));

	if (!t) {
		t = arena__alloc(c->prog->arena, sizeof(*t));
		t->kind = N_IDENT;
		t->s = "curtask";
		t->loc = n->loc;
	}
	mid->kind = N_FIELD;
	mid->arrow = true;
	mid->l = t;
	mid->s = comm ? "group_leader" : "real_parent";
	mid->loc = n->loc;
	top->kind = N_FIELD;
	top->arrow = true;
	top->l = mid;
	top->s = comm ? "comm" : "tgid";
	top->loc = n->loc;
	top->next = n->next;
	*n = *top;
	return ck_expr(c, n);
}
