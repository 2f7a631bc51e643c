// SPDX-License-Identifier: GPL-2.0
/*
 * comptime.c - what is settled while compiling: fail() (a static assert that
 * only fires where it is reached), kfunc_exist() and kfunc_allowed() (asked
 * of the kernel's BTF and its verifier), kprobe_exist() (kprobes and the
 * symbol), tracepoint_exist() (tracefs, a field of its format), and the pruning of an if whose condition is a constant (a
 * positional parameter, getopt(), kfunc_*(), kprobe_exist()), so that the
 * branch not taken is neither checked nor generated; and config().KEY, the
 * program's configuration as config = { } and BPFTRACE_* left it.
 */
#include "lang/check_int.h"
#include "lang/comptime.h"
#include "lang/ktypes.h"
#include "lang/provider.h"
#include "lib/bpf/bpf_util.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool comptime__int(const struct node *n, long long *v)
{
	long long a, b, c;

	if (!n)
		return false;
	switch (n->kind) {
	case N_INT:
		*v = n->i;
		return true;
	case N_UNOP:
		if (!comptime__int(n->l, &a))
			return false;
		switch (n->op) {
		case T_MINUS: *v = (long long)(0ULL - (unsigned long long)a); return true;
		case T_NOT: *v = !a; return true;
		case T_BNOT: *v = ~a; return true;
		default: return false;
		}
	case N_TERNARY:
		if (!comptime__int(n->l, &a) || !comptime__int(a ? n->r : n->x, &b))
			return false;
		*v = b;
		return true;
	case N_BINOP:
		if (n->l && n->r && n->l->kind == N_STR && n->r->kind == N_STR && (n->op == T_EQ || n->op == T_NE)) {
			bool same = n->l->slen == n->r->slen && !memcmp(n->l->s, n->r->s, n->l->slen);

			*v = n->op == T_EQ ? same : !same;
			return true;
		}
		if (n->op == T_LAND || n->op == T_LOR) {	/* short-circuit: 0 && x is known whatever x is */
			if (!comptime__int(n->l, &a))
				return false;
			if (n->op == T_LAND ? !a : !!a) {
				*v = !!a;
				return true;
			}
			if (!comptime__int(n->r, &b))
				return false;
			*v = !!b;
			return true;
		}
		if (!comptime__int(n->l, &a) || !comptime__int(n->r, &b))
			return false;
		bool uns = !n->ty.sign && n->ty.kind == TY_INT && !(n->op >= T_EQ && n->op <= T_GE);
		unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;

		switch (n->op) {
		case T_PLUS: c = (long long)(ua + ub); break;
		case T_MINUS: c = (long long)(ua - ub); break;
		case T_STAR: c = (long long)(ua * ub); break;
		case T_SLASH: case T_PERCENT:
			if (!b) {
				c = 0;	/* bpftrace's (LLVM's) folding of a division by a constant 0 */
				break;
			}
			if (!uns && a == (-9223372036854775807LL - 1) && b == -1)
				return false;	/* left to the program */
			c = uns ? (long long)(n->op == T_SLASH ? ua / ub : ua % ub) : n->op == T_SLASH ? a / b : a % b;
			break;
		case T_BAND: c = a & b; break;
		case T_BOR: c = a | b; break;
		case T_BXOR: c = a ^ b; break;
		/* a count outside 0..63 folds to 0, as in bpftrace (gen.c's g_const_zero()) */
		case T_SHL: c = ub > 63 ? 0 : (long long)(ua << ub); break;
		case T_SHR: c = ub > 63 ? 0 : uns ? (long long)(ua >> ub) : a >> b; break;
		case T_EQ: c = a == b; break;
		case T_NE: c = a != b; break;
		case T_LT: c = a < b; break;
		case T_LE: c = a <= b; break;
		case T_GT: c = a > b; break;
		case T_GE: c = a >= b; break;
		default: return false;
		}
		*v = c;
		return true;
	default:
		return false;
	}
}

bool comptime__fold_if(struct program *p, struct node *s)
{
	long long v;

	(void)p;
	if (s->kind != N_IF || !comptime__int(s->l, &v))
		return false;
	struct node *taken = v ? s->r : s->x;

	s->kind = N_BLOCK;
	s->l = s->r = s->x = NULL;
	s->args = taken ? (taken->kind == N_BLOCK ? taken->args : taken) : NULL;
	return true;
}

/* fail(fmt, args...): the message, formatted now from literals */
static struct type check_fail(struct ck *c, struct node *n)
{
	struct type none = ty_kind(TY_NONE, 0);
	struct node *fmt = n->args, *a;
	char msg[512];
	size_t len = 0;

	if (c->dead)
		return none;	/* in a branch a constant condition drops */
	for (a = fmt; a; a = a->next)
		if (ck_expr(c, a).kind == TY_NONE || c->prog->err)
			return none;
	if (fmt->kind != N_STR) {
		lang__error(c->prog, fmt->loc, "the first argument of fail() is a format string literal");
		return none;
	}
	for (a = fmt->next; a; a = a->next)
		if (a->kind != N_INT && a->kind != N_STR) {
			lang__error(c->prog, a->loc, "fail() is settled while compiling: its arguments must be literals "
				    "(or positional parameters, getopt())");
			return none;
		}
	a = fmt->next;
	for (const char *f = fmt->s, *end = fmt->s + fmt->slen; f < end && len + 1 < sizeof(msg); f++) {
		if (*f != '%') {
			msg[len++] = *f;
			continue;
		}
		if (f + 1 < end && f[1] == '%') {
			msg[len++] = '%';
			f++;
			continue;
		}
		char spec[32] = "%";
		size_t sl = 1;

		for (f++; f < end && strchr("-+ #0123456789.", *f) && sl < 20; f++)
			spec[sl++] = *f;
		while (f < end && strchr("hlzjtL", *f))
			f++;
		if (f >= end || !strchr("diuxXocs", *f)) {
			lang__error(c->prog, fmt->loc, "fail(): unsupported format '%%%.*s'", (int)(f < end ? sl : sl - 1),
				    spec + 1);
			return none;
		}
		if (!a) {
			lang__error(c->prog, n->loc, "fail(): the format wants more arguments than it is given");
			return none;
		}
		bool str = *f == 's';

		if (str != (a->kind == N_STR)) {
			lang__error(c->prog, a->loc, "fail(): %%%c takes %s", *f, str ? "a string" : "an integer");
			return none;
		}
		if (!str && *f != 'c') {
			spec[sl++] = 'l';
			spec[sl++] = 'l';
		}
		spec[sl++] = *f;
		spec[sl] = 0;
		int w = str ? snprintf(msg + len, sizeof(msg) - len, spec, a->s)
			    : *f == 'c' ? snprintf(msg + len, sizeof(msg) - len, spec, (int)a->i)
			    : snprintf(msg + len, sizeof(msg) - len, spec, a->i);

		if (w > 0)
			len += (size_t)w < sizeof(msg) - len ? (size_t)w : sizeof(msg) - len - 1;
		a = a->next;
	}
	if (a) {
		lang__error(c->prog, a->loc, "fail(): more arguments than the format uses");
		return none;
	}
	msg[len] = 0;
	lang__error(c->prog, n->loc, "%s", msg);
	return none;
}

/* the BTF id of a kfunc in vmlinux: a FUNC the kernel tagged "bpf_kfunc" (or any FUNC, on kernels built without the tags) */
static int kfunc_id(struct program *p, const char *name)
{
	const struct btf *btf = ktypes__btf(p, NULL, 0);
	int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;
	bool tags = false;

	if (id <= 0)
		return -ENOENT;
	for (int i = 1, n = (int)btf__type_cnt(btf); i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const char *tn;

		if (!t || !btf_is_decl_tag(t) || !(tn = btf__name_by_offset(btf, t->name_off)) || strcmp(tn, "bpf_kfunc"))
			continue;
		tags = true;
		if ((int)t->type == id)
			return id;
	}
	return tags ? -ENOENT : id;
}

/* the verifier, asked: may a program of in's type call kfunc `id`? 1, 0, or -errno */
static int kfunc_allowed(struct program *p, struct ap_inst *in, const char *name, int id)
{
	struct bpf_insn code[] = {
		{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_KFUNC_CALL, .imm = id },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char *log = calloc(1, 65536), want[256];
	int type = in ? in->prog_type : BPF_PROG_TYPE_RAW_TRACEPOINT, fd, rc;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = 65536, .log_level = 1);

	if (!log)
		return -ENOMEM;
	if (in && type == BPF_PROG_TYPE_TRACING) {
		opts.expected_attach_type = strcmp(in->prov->name, "fexit") ? BPF_TRACE_FENTRY : BPF_TRACE_FEXIT;
		opts.attach_btf_id = in->attach_btf_id;
	}
	fd = bpf_prog_load(type, "sonde_kfunc", p->cfg.license, code, sizeof(code) / sizeof(code[0]), &opts);
	snprintf(want, sizeof(want), "calling kernel function %s is not allowed", name);
	if (fd >= 0) {
		close(fd);
		rc = 1;
	} else if (fd == -EPERM && !log[0]) {
		rc = -EPERM;
	} else {
		rc = !strstr(log, want);
	}
	free(log);
	return rc;
}

static struct type check_kfunc(struct ck *c, struct node *n, bool allowed)
{
	struct node *a = n->args;

	if (a->kind != N_STR) {
		lang__error(c->prog, a->loc, "%s() takes a kfunc name literal", n->s);
		return ty_kind(TY_NONE, 0);
	}
	int id = kfunc_id(c->prog, a->s);
	long long v = id > 0;

	if (allowed && id > 0) {
		int rc = kfunc_allowed(c->prog, c->in, a->s, id);

		if (rc < 0) {
			lang__error(c->prog, n->loc, "kfunc_allowed() asks the kernel's verifier: %s%s", strerror(-rc),
				    rc == -EPERM ? " (it needs root or CAP_BPF)" : "");
			return ty_kind(TY_NONE, 0);
		}
		v = rc;
	}
	n->kind = N_INT;
	n->i = v;
	n->args = NULL;
	return n->ty = ty_int(false, 64);
}

/* kprobe_exist("func"): may a kprobe be put on func here (kprobes, the symbol)? */
static struct type check_kprobe(struct ck *c, struct node *n)
{
	struct node *a = n->args;

	if (a->kind != N_STR) {
		lang__error(c->prog, a->loc, "%s() takes a kernel function's name literal", n->s);
		return ty_kind(TY_NONE, 0);
	}
	n->kind = N_INT;
	n->i = bpf_probe__kprobe(a->s, NULL);
	n->args = NULL;
	return n->ty = ty_int(false, 64);
}

/*
 * tracepoint_exist("group:name"[, "field"]): has the kernel this tracepoint
 * (tracefs), and that field in its format? A tool picks its route by it
 * (block_io_start came in 6.5, tcp_probe's skaddr in 6.3)
 */
static struct type check_tracepoint(struct ck *c, struct node *n)
{
	struct node *a = n->args, *f = a ? a->next : NULL;
	char group[128];
	const char *colon = a && a->kind == N_STR ? memchr(a->s, ':', a->slen) : NULL;
	int off, size;

	if (!colon || (size_t)(colon - a->s) >= sizeof(group) || (f && f->kind != N_STR)) {
		lang__error(c->prog, a->loc, "%s() takes a \"group:name\" literal and a field name literal", n->s);
		return ty_kind(TY_NONE, 0);
	}
	snprintf(group, sizeof(group), "%.*s", (int)(colon - a->s), a->s);
	n->kind = N_INT;
	n->i = bpf_probe__tracepoint(group, colon + 1, NULL) &&
	       (!f || !bpf_tp__field(group, colon + 1, f->s, &off, &size));
	n->args = NULL;
	return n->ty = ty_int(false, 64);
}

struct type comptime__call(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	(void)assign_to;
	switch (f->id) {
	case F_GETOPT: return getopt__check(c, n);
	case F_FAIL: return check_fail(c, n);
	case F_KFUNC_EXIST: return check_kfunc(c, n, false);
	case F_KPROBE_EXIST: return check_kprobe(c, n);
	case F_TRACEPOINT_EXIST: return check_tracepoint(c, n);
	default: return check_kfunc(c, n, true);
	}
}

/* ---- config().KEY ---- */
bool comptime__config(struct ck *c, struct node *n)
{
	static const char *modes[] = { "bpftrace", "perf", "raw", "bcc", "folded" };
	static const char *missing[] = { "error", "warn", "ignore" };
	const struct config *cfg = &c->prog->cfg;
	struct node *l = n->l;
	const char *k = n->s, *str = NULL;
	long long v = 0;
	bool boolean = false;

	if (!l || n->arrow || !k || !((l->kind == N_CALL && !strcmp(l->s, "config") && !l->args) ||
				      (l->kind == N_IDENT && !strcmp(l->s, "__builtin_config"))))
		return false;
	if (!strcmp(k, "max_strlen"))
		v = cfg->max_strlen;
	else if (!strcmp(k, "max_map_keys"))
		v = cfg->max_map_keys;
	else if (!strcmp(k, "max_cat_bytes"))
		v = cfg->max_cat_bytes;
	else if (!strcmp(k, "perf_rb_pages"))
		v = cfg->perf_rb_pages ? cfg->perf_rb_pages : 64;	/* upstream's default, sonde's too */
	else if (!strcmp(k, "stack_mode"))
		str = cfg->stack_mode >= 0 && cfg->stack_mode < 5 ? modes[cfg->stack_mode] : "bpftrace";
	else if (!strcmp(k, "missing_probes"))
		str = cfg->missing_probes >= 0 && cfg->missing_probes < 3 ? missing[cfg->missing_probes] : "error";
	else if (!strcmp(k, "license"))
		str = cfg->license ? cfg->license : "GPL";
	else if (!strcmp(k, "str_trunc_trailer"))
		str = cfg->trunc_trailer ? cfg->trunc_trailer : "";
	else if (!strcmp(k, "print_maps_on_exit"))
		v = !cfg->no_print_maps, boolean = true;
	else if (!strcmp(k, "cpp_demangle"))	/* sonde always demangles */
		v = 1, boolean = true;
	else {
		lang__error(c->prog, n->loc, "config() has no field '%s' (it has max_strlen, max_map_keys, max_cat_bytes, "
			    "perf_rb_pages, stack_mode, missing_probes, license, str_trunc_trailer, print_maps_on_exit, "
			    "cpp_demangle)", k);
		n->ty = ty_kind(TY_NONE, 0);
		return true;
	}
	n->l = NULL;
	if (str) {
		n->kind = N_STR;
		n->s = arena__strndup(c->prog->arena, str, strlen(str));
		n->slen = strlen(str);
	} else {
		n->kind = N_INT;
		n->i = v;
	}
	ck_expr(c, n);
	n->ty.boolean = boolean;
	return true;
}
