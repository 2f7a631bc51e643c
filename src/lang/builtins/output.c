// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - the builtins that send records to user space: printf, print,
 * print_log2_hist, print_linear_hist, cat, system, errorf/warnf, time,
 * exit, join, unwatch, and fdiv (a quotient printf's %f formats). Their type rules lay out the record (a fmtsite:
 * check_call.c's ck_make_site()); their code fills it on the BPF stack and
 * sends it through the ring buffer (g_send()).
 */
#include "lang/check_int.h"
#include "lang/gen_int.h"
#include "lang/provider_iter.h"

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

/* printf, cat, system, errorf, warnf: a format literal and its arguments */
static struct type check_format(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;
	struct type none = ty_kind(TY_NONE, 0);
	int nargs = (int)n->i;

	(void)assign_to;
	if (a0->kind == N_BLOCKEXPR && !a0->args && a0->x && a0->x->kind == N_STR) {	/* a macro's "fmt" */
		a0->x->next = a0->next;
		n->args = a0 = a0->x;
	}
	if (a0->kind != N_STR) {
		lang__error(c->prog, a0->loc, "the first argument of %s() is a format string literal", n->s);
		return none;
	}
	if (count_verbs(c, a0, nargs - 1))
		return none;
	if (f->id == F_ERRORF && n->id <= 0) {	/* "file:l:c-e: ERROR: text" on stderr, as upstream */
		bool err = !strcmp(n->s, "errorf");
		const char *fmt = ck_located_fmt(c, n, err ? "ERROR" : "WARNING", a0->s);

		if (!fmt || ck_make_site(c, n, err ? REC_ERRORF : REC_WARNF, NULL, a0->next, nargs - 1))
			return none;
		c->prog->sites[n->id - 1]->fmt = fmt;
		return n->ty = ty_kind(TY_VOID, 0);
	}
	if (ck_make_site(c, n, f->id == F_CAT ? REC_CAT : f->id == F_SYSTEM ? REC_SYSTEM : REC_PRINTF,
			 a0, a0->next, nargs - 1))
		return none;
	return n->ty = ty_kind(TY_VOID, 0);
}

static void gen_format(struct gen *g, struct node *n)
{
	if (n->op == F_PRINTF && iter__printf(g, n))	/* into the iterator's output */
		return;
	g_site_record(g, n, n->args->next);
}

/* print(@map[, top[, div]]) or print(value) */
static struct type check_print(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;
	struct type none = ty_kind(TY_NONE, 0);

	(void)f;
	(void)assign_to;
	if (a0->kind == N_MAP && a0->i < 0) {
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
	if (ck_call_args(c, n))
		return none;
	if (n->i > 1) {
		lang__error(c->prog, n->loc, "print() of a value takes one argument");
		return none;
	}
	if (ck_make_site(c, n, REC_PRINT_VAL, NULL, a0, 1))
		return none;
	return n->ty = ty_kind(TY_VOID, 0);
}

static void gen_print(struct gen *g, struct node *n)
{
	struct node *a0 = n->args;

	if (a0->kind == N_MAP && a0->i < 0)
		g_record(g, n, REC_PRINT_MAP, n->id - 1);
	else
		g_site_record(g, n, a0);
}

/*
 * print_log2_hist(@m[, "label"[, "section"]]) of a hist() map and
 * print_linear_hist() of an lhist() one: BCC's table methods, drawn as
 * libbpf-tools draws them (output.c's out__bcc_hist())
 */
static struct type check_bcc_hist(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;
	struct type none = ty_kind(TY_NONE, 0);
	bool log2 = f->id == F_PRINT_LOG2_HIST;

	(void)assign_to;
	if (a0->kind != N_MAP || a0->i >= 0) {
		lang__error(c->prog, a0->loc, "%s() takes a whole map: %s(@m[, \"label\"[, \"section\"]])", n->s, n->s);
		return none;
	}
	for (struct node *x = a0->next; x; x = x->next)
		if (x->kind != N_STR) {
			lang__error(c->prog, x->loc, "%s() takes string literals after the map: its label and section name",
				    n->s);
			return none;
		}
	a0->map = ck_map_get(c, a0);
	if (c->final && a0->map->agg != (log2 ? AGG_HIST : AGG_LHIST)) {
		lang__error(c->prog, a0->loc, "%s() prints a map of %s(): '%s' is not one", n->s,
			    log2 ? "hist" : "lhist", a0->s);
		return none;
	}
	if (n->id == 0) {
		struct fmtsite *s = arena__alloc(c->prog->arena, sizeof(*s));

		s->kind = REC_PRINT_MAP;
		s->map = a0->map;
		s->bcc = log2 ? BCC_LOG2 : BCC_LINEAR;
		s->label = a0->next ? a0->next->s : "value";
		s->section = a0->next && a0->next->next ? a0->next->next->s : a0->s + 1;
		s->size = 8;
		s->loc = n->loc;
		n->id = lang__add_site(c->prog, s) + 1;
	}
	return n->ty = ty_kind(TY_VOID, 0);
}

/* fdiv(a, b): a / b for printf's %f, %e and %g (BCC's "%-8.3f" of a float); the division is user space's */
static struct type check_fdiv(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args, *a1 = a0->next;
	char b[64];

	(void)f;
	(void)assign_to;
	for (struct node *x = a0; x; x = x->next)
		if (x->ty.kind != TY_INT) {
			lang__error(c->prog, x->loc, "fdiv() divides integers, not a value of type %s",
				    type__str(&x->ty, b, sizeof(b)));
			return ty_kind(TY_NONE, 0);
		}
	n->ty = ty_kind(TY_FDIV, 16);
	n->ty.sign = a0->ty.sign || a1->ty.sign;	/* unsigned: both read as u64 */
	return n->ty;
}

/* [a][b] */
static void gen_fdiv(struct gen *g, struct node *n, int off, int size)
{
	(void)size;
	gen_int(g, n->args);
	g_emit(g, STX(BPF_DW, FP, R0, off));
	gen_int(g, n->args->next);
	g_emit(g, STX(BPF_DW, FP, R0, off + 8));
}

static struct type check_time(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;

	(void)f;
	(void)assign_to;
	if (a0 && a0->kind != N_STR) {
		lang__error(c->prog, a0->loc, "time() takes a format string literal");
		return ty_kind(TY_NONE, 0);
	}
	if (ck_make_site(c, n, REC_TIME, a0, NULL, 0))
		return ty_kind(TY_NONE, 0);
	return n->ty = ty_kind(TY_VOID, 0);
}

static void gen_time(struct gen *g, struct node *n)
{
	g_record(g, n, REC_TIME, n->id - 1);
}

/* exit(CODE): sonde's exit status (upstream's; 0.17's exit() takes none) */
static struct type check_exit(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;

	(void)f;
	(void)assign_to;
	c->prog->need_exit = true;
	if (a0 && a0->ty.kind != TY_INT) {
		lang__error(c->prog, a0->loc, "exit() takes an integer exit code");
		return ty_kind(TY_NONE, 0);
	}
	return n->ty = ty_kind(TY_VOID, 0);
}

/* { REC_EXIT, code } */
static void gen_exit(struct gen *g, struct node *n)
{
	struct node *a0 = n->args;
	int mark = g->sp, buf = g_slot(g, 8, n->loc);

	g_int_or(g, a0, 0);
	g_emit(g, STX(BPF_W, FP, R0, buf + 4));
	g_emit(g, ST(BPF_W, FP, buf, REC_EXIT));
	g_send(g, buf, 8);
	/* marked in the lost map too (key 1): a full ring buffer cannot lose the exit */
	int k = g_slot(g, 8, n->loc);

	g_emit(g, ST(BPF_DW, FP, k, 1));
	g_lookup(g, MAPREF_LOST, k);
	g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 6));
	g_emit(g, LDX(BPF_W, R1, FP, buf + 4));
	g_emit(g, ALU_IMM(BPF_AND, R1, 0xff));
	g_emit(g, MOV_IMM(R2, 1));
	g_emit(g, ALU_IMM(BPF_LSH, R2, 32));
	g_emit(g, ALU_REG(BPF_OR, R1, R2));
	g_emit(g, STX(BPF_DW, R0, R1, 0));
	/* and in the exit map, which every CPU sees: the probes but END stop at once (gen__probe) */
	g_emit(g, ST(BPF_DW, FP, k, 0));
	g_lookup(g, MAPREF_EXIT, k);
	g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 2));
	g_emit(g, MOV_IMM(R1, 1));
	g_emit(g, STX(BPF_DW, R0, R1, 0));
	g->sp = mark;
	/* the probe ends here, as in bpftrace (@++; if (@) { exit(); } @++ leaves @ at 1) */
	g_push_fix(g, &g->ret, &g->nret, g_emit(g, JA(0)));
}

/* unwatch(addr): the runtime closes the watchpoints on the address (provider_watch.c) */
static struct type check_unwatch(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	(void)f;
	(void)assign_to;
	if (n->args->ty.kind != TY_INT) {
		lang__error(c->prog, n->args->loc, "unwatch() takes an address");
		return ty_kind(TY_NONE, 0);
	}
	return n->ty = ty_kind(TY_VOID, 0);
}

/* { REC_UNWATCH, 0, addr } */
static void gen_unwatch(struct gen *g, struct node *n)
{
	int mark = g->sp, buf = g_slot(g, 16, n->loc);

	gen_int(g, n->args);
	g_emit(g, STX(BPF_DW, FP, R0, buf + 8));
	g_emit(g, ST(BPF_W, FP, buf, REC_UNWATCH));
	g_emit(g, ST(BPF_W, FP, buf + 4, 0));
	g_send(g, buf, 16);
	g->sp = mark;
}

/* join(array of string pointers[, separator]) */
static struct type check_join(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;

	(void)f;
	(void)assign_to;
	if (a0->ty.kind != TY_INT || (a0->next && a0->next->kind != N_STR)) {
		lang__error(c->prog, n->loc, "join() takes an array of string pointers and a separator literal");
		return ty_kind(TY_NONE, 0);
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
}

/* the record is too big for the stack: built in a per-CPU map value (r7) */
static void gen_join(struct gen *g, struct node *n)
{
	int mark = g->sp, arr = g_slot(g, 8, n->loc), k = g_slot(g, 8, n->loc), tmp = g_slot(g, 8, n->loc);
	int *ends = NULL, nends = 0;

	gen_int(g, n->args);
	g_emit(g, STX(BPF_DW, FP, R0, arr));
	g_emit(g, ST(BPF_DW, FP, k, 0));
	g_lookup(g, MAPREF_JOIN, k);
	int none = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

	g_emit(g, MOV_REG(R7, R0));
	g_rec_kind(g, R7, 0, REC_JOIN);
	g_emit(g, ST(BPF_W, R7, 4, n->id - 1));
	for (int i = 0; i < JOIN_ARGS; i++)
		g_emit(g, ST(BPF_B, R7, 8 + JOIN_LEN * i, 0));
	for (int i = 0; i < JOIN_ARGS; i++) {
		g_fp_addr(g, R1, tmp);
		g_emit(g, MOV_IMM(R2, 8));
		g_emit(g, LDX(BPF_DW, R3, FP, arr));
		g_emit(g, ALU_IMM(BPF_ADD, R3, 8 * i));
		g_emit(g, CALL(BPF_FUNC_probe_read));
		g_hcheck(g);
		g_push_fix(g, &ends, &nends, g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 0)));
		g_emit(g, LDX(BPF_DW, R3, FP, tmp));
		g_push_fix(g, &ends, &nends, g_emit(g, JMP_IMM(BPF_JEQ, R3, 0, 0)));
		g_emit(g, MOV_REG(R1, R7));
		g_emit(g, ALU_IMM(BPF_ADD, R1, 8 + JOIN_LEN * i));
		g_emit(g, MOV_IMM(R2, JOIN_LEN));
		g_emit(g, CALL(BPF_FUNC_probe_read_str));
		g_hcheck(g);
	}
	for (int i = 0; i < nends; i++)
		g_patch(g, ends[i]);
	free(ends);
	g_ld_map(g, R1, MAPREF_RINGBUF);
	g_emit(g, MOV_REG(R2, R7));
	g_emit(g, MOV_IMM(R3, 8 + JOIN_LEN * JOIN_ARGS));
	g_emit(g, MOV_IMM(R4, 0));
	g_emit(g, CALL(BPF_FUNC_ringbuf_output));
	g_patch(g, none);
	g->sp = mark;
}

/*
 * debugf("fmt", args...): the kernel's bpf_trace_vprintk() (5.16+), read in
 * tracefs' trace_pipe, as upstream's. The format goes to the kernel as
 * written: %d %u %x %s %c %p, with l and ll; at most 12 arguments, integers
 * or strings (each string copied to the stack, its address the argument).
 */
enum { DEBUGF_ARGS = 12 };

static struct type check_debugf(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;
	int i = 0;

	(void)f;
	(void)assign_to;
	if (a0->kind != N_STR || a0->slen > 256) {
		lang__error(c->prog, a0->loc, "the first argument of debugf() is a format string literal (256 bytes at most)");
		return ty_kind(TY_NONE, 0);
	}
	for (struct node *a = a0->next; a; a = a->next, i++)
		if (i == DEBUGF_ARGS || (a->ty.kind != TY_INT && a->ty.kind != TY_STR)) {
			lang__error(c->prog, a->loc, i == DEBUGF_ARGS ? "debugf() takes at most %d arguments after its format" :
				    "debugf() prints integers and strings only", DEBUGF_ARGS);
			return ty_kind(TY_NONE, 0);
		}
	return n->ty = ty_kind(TY_VOID, 0);
}

static void gen_debugf(struct gen *g, struct node *n)
{
	struct node *a0 = n->args;
	int mark = g->sp, flen = (int)a0->slen + 1, fmt = g_slot(g, flen, n->loc), nargs = 0;

	for (struct node *a = a0->next; a; a = a->next)
		nargs++;
	int data = g_slot(g, nargs ? nargs * 8 : 8, n->loc), i = 0;

	gen_str(g, a0, fmt, g_round8(flen));
	for (struct node *a = a0->next; a; a = a->next, i++) {
		if (a->ty.kind == TY_STR) {
			int s = g_slot(g, a->ty.size, a->loc);

			gen_str(g, a, s, a->ty.size);
			g_fp_addr(g, R0, s);
		} else {
			gen_int(g, a);
		}
		g_emit(g, STX(BPF_DW, FP, R0, data + 8 * i));
	}
	g_fp_addr(g, R1, fmt);
	g_emit(g, MOV_IMM(R2, flen));
	if (nargs) {
		g_fp_addr(g, R3, data);
	} else {
		g_emit(g, MOV_IMM(R3, 0));
	}
	g_emit(g, MOV_IMM(R4, nargs * 8));
	g_emit(g, CALL(BPF_FUNC_trace_vprintk));
	g->sp = mark;
}

const struct builtin builtins_output[] = {
	{ "printf", F_PRINTF, 1, 17, BF_STMT, .check = check_format, .gen_stmt = gen_format },
	{ "cat", F_CAT, 1, 8, BF_STMT, .check = check_format, .gen_stmt = gen_format },
	{ "system", F_SYSTEM, 1, 8, BF_STMT | BF_UNSAFE, .check = check_format, .gen_stmt = gen_format },
	{ "errorf", F_ERRORF, 1, 8, BF_STMT, .check = check_format, .gen_stmt = gen_format },
	{ "warnf", F_ERRORF, 1, 8, BF_STMT, .check = check_format, .gen_stmt = gen_format },
	{ "print", F_PRINT, 1, 3, BF_STMT | BF_OWN_ARGS, .check = check_print, .gen_stmt = gen_print },
	{ "print_log2_hist", F_PRINT_LOG2_HIST, 1, 3, BF_STMT | BF_OWN_ARGS, .check = check_bcc_hist,
	  .gen_stmt = gen_print },
	{ "print_linear_hist", F_PRINT_LINEAR_HIST, 1, 3, BF_STMT | BF_OWN_ARGS, .check = check_bcc_hist,
	  .gen_stmt = gen_print },
	{ "fdiv", F_FDIV, 2, 2, 0, .check = check_fdiv, .gen_value = gen_fdiv },
	{ "time", F_TIME, 0, 1, BF_STMT, .check = check_time, .gen_stmt = gen_time },
	{ "exit", F_EXIT, 0, 1, BF_STMT, .check = check_exit, .gen_stmt = gen_exit },
	{ "unwatch", F_UNWATCH, 1, 1, BF_STMT, .check = check_unwatch, .gen_stmt = gen_unwatch },
	{ "join", F_JOIN, 1, 2, BF_STMT, .check = check_join, .gen_stmt = gen_join },
	{ "debugf", F_DEBUGF, 1, 1 + DEBUGF_ARGS, BF_STMT, .check = check_debugf, .gen_stmt = gen_debugf },
	{ NULL },
};
