// SPDX-License-Identifier: GPL-2.0
/*
 * gen.c - BPF code generation straight from the typed AST, no IR and no LLVM.
 *
 * Registers: r6 holds the context for the whole program; every integer
 * expression leaves its value in r0; a binary operation parks its left operand
 * in a stack slot while the right one is computed, so nothing needs a
 * register allocator and nothing is ever lost across helper calls (which
 * clobber r1-r5). Strings, tuples, keys and records live in stack slots
 * handed out like a stack and released when a statement ends.
 */
#include "lang/comptime.h"
#include "lang/gen_int.h"
#include "lang/testbench.h"
#include "lang/builtins/task_ns.h"
#include "lang/provider_iter.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int g_emit(struct gen *g, struct bpf_insn i)
{
	struct bpf_code *c = g->c;

	if (c->n == c->cap) {
		int cap = c->cap ? c->cap * 2 : 256;
		struct bpf_insn *n = realloc(c->insns, cap * sizeof(*n));

		if (!n) {
			g->fail = true;
			return c->n - 1;
		}
		c->insns = n;
		c->cap = cap;
	}
	c->insns[c->n] = i;
	return c->n++;
}

void g_ld_imm64(struct gen *g, int reg, uint64_t v)
{
	if ((int64_t)v == (int32_t)v) {
		g_emit(g, MOV_IMM(reg, (int32_t)v));
		return;
	}
	g_emit(g, INSN(BPF_LD | BPF_DW | BPF_IMM, reg, 0, 0, (uint32_t)v));
	g_emit(g, INSN(0, 0, 0, 0, (uint32_t)(v >> 32)));
}

void g_ld_map(struct gen *g, int reg, int map)
{
	struct bpf_code *c = g->c;
	struct bpf_reloc *r = realloc(c->rel, (c->nrel + 1) * sizeof(*r));

	if (!r) {
		g->fail = true;
		return;
	}
	c->rel = r;
	c->rel[c->nrel].insn = c->n;
	c->rel[c->nrel].map = map;
	c->nrel++;
	g_emit(g, INSN(BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_MAP_FD, 0, 0));
	g_emit(g, INSN(0, 0, 0, 0, 0));
}

/* a forward jump to be patched to "here" */
void g_patch(struct gen *g, int at)
{
	if (at >= 0 && at < g->c->n)
		g->c->insns[at].off = (int16_t)(g->c->n - at - 1);
}

void g_push_fix(struct gen *g, int **arr, int *n, int at)
{
	int *a = realloc(*arr, (*n + 1) * sizeof(int));

	if (!a) {
		g->fail = true;
		return;
	}
	a[(*n)++] = at;
	*arr = a;
}

int g_round8(int n)
{
	return (n + 7) & ~7;
}

/*
 * What a probe returns. For a classic tracepoint, 0 tells the kernel to drop
 * the event for every perf user of that tracepoint too: a `perf record -e
 * sched:sched_switch` running beside a sonde program would lose the events
 * the program saw. 1 lets it go on (the cost was not measurable here: 1M
 * task:task_rename events, 250 ns each either way). kprobes and uprobes are
 * sonde's own (perf_event_open makes a private event for each), and a
 * perf_event program's 1 would write a sample nobody reads: they return 0.
 */
int g_keep(const struct gen *g)
{
	if (!g->in || g->cb)
		return 0;
	return g->in->prog_type == BPF_PROG_TYPE_TRACEPOINT;
}

/* a stack slot of n bytes: its fp offset */
int g_slot(struct gen *g, int n, struct loc loc)
{
	g->sp += g_round8(n > 0 ? n : 8);
	if (g->sp > g->maxsp)
		g->maxsp = g->sp;
	if (g->sp > STACK_MAX && !g->fail) {
		lang__error(g->prog, loc, "this probe needs more than the %d bytes of BPF stack (strings are %d bytes: "
			    "config = { max_strlen = N } makes them smaller)", STACK_MAX, g->prog->cfg.max_strlen);
		g->fail = true;
	}
	return -g->sp;
}

void g_zero(struct gen *g, int off, int n)
{
	for (int i = 0; i < n; i += 8)
		g_emit(g, ST(BPF_DW, FP, off + i, 0));
}

void g_fp_addr(struct gen *g, int reg, int off)
{
	g_emit(g, MOV_REG(reg, FP));
	g_emit(g, ALU_IMM(BPF_ADD, reg, off));
}

/* copy n bytes (a multiple of 8) from [src+soff] to [fp+doff] */
void g_copy(struct gen *g, int doff, int src, int soff, int n)
{
	for (int i = 0; i < n; i += 8) {
		g_emit(g, LDX(BPF_DW, R1, src, soff + i));
		g_emit(g, STX(BPF_DW, FP, R1, doff + i));
	}
}


void g_unsupported(struct gen *g, struct node *n, const char *what)
{
	if (!g->fail)
		lang__error(g->prog, n->loc, "%s is not supported by sonde probe yet", what);
	g->fail = true;
}

/* ---- builtins ---- */
/*
 * A raw tracepoint program's kernel stack starts where bpf_get_stackid() was
 * called: the program, then the kernel's glue (bpf_trace_runN, and on some
 * builds __bpf_trace_X) before the code that hit the tracepoint. The runtime
 * counts those frames once (env->rawtp_skip) and they are skipped, so
 * syscalls:sys_enter_X (run as a raw tracepoint, provider.c) starts at
 * syscall_trace_enter() as bpftrace's perf-event tracepoint starts at its
 * perf_syscall_enter(), and stacks do not differ by which program took them.
 * In a callback (a for loop's body) the frames between vary: nothing skipped.
 */
int g_kstack_skip(struct gen *g)
{
	return !g->cb && g->in && g->in->prog_type == BPF_PROG_TYPE_RAW_TRACEPOINT ? g->env->rawtp_skip : 0;
}

void g_stackid(struct gen *g, bool user)
{
	g_emit(g, MOV_REG(R1, R6));
	g_ld_map(g, R2, user ? MAPREF_USTACK : MAPREF_KSTACK);
	g_emit(g, MOV_IMM(R3, user ? BPF_F_USER_STACK : g_kstack_skip(g)));
	g_emit(g, CALL(BPF_FUNC_get_stackid));
	g_hcheck(g);
	if (g->prog->need_stack_len)
		g_stack_depth_tag(g, user);
}

void gen_bvar(struct gen *g, struct node *n)
{
	switch (n->op) {
	case BV_PID:
		if (gentask__ns_pid(g, n, false))	/* sonde in a pid namespace: its numbers */
			break;
		g_emit(g, CALL(BPF_FUNC_get_current_pid_tgid));
		g_emit(g, ALU_IMM(BPF_RSH, R0, 32));
		break;
	case BV_TID:
		if (gentask__ns_pid(g, n, true))
			break;
		g_emit(g, CALL(BPF_FUNC_get_current_pid_tgid));
		g_emit(g, INSN(BPF_ALU | BPF_MOV | BPF_X, R0, R0, 0, 0));
		break;
	case BV_UID:
		g_emit(g, CALL(BPF_FUNC_get_current_uid_gid));
		g_emit(g, INSN(BPF_ALU | BPF_MOV | BPF_X, R0, R0, 0, 0));
		break;
	case BV_GID:
		g_emit(g, CALL(BPF_FUNC_get_current_uid_gid));
		g_emit(g, ALU_IMM(BPF_RSH, R0, 32));
		break;
	case BV_NSECS:	/* bpftrace 0.17's: time since boot, suspend included (what strftime() adds to) */
		g_emit(g, CALL(BPF_FUNC_ktime_get_boot_ns));
		break;
	case BV_HAS_CPID:
		g_ld_imm64(g, R0, g->env->cpid > 0);
		break;
	case BV_ELAPSED:
		g_emit(g, CALL(BPF_FUNC_ktime_get_ns));
		g_ld_imm64(g, R1, g->env->start_ns);
		g_emit(g, ALU_REG(BPF_SUB, R0, R1));
		break;
	case BV_CPU:
		g_emit(g, CALL(BPF_FUNC_get_smp_processor_id));
		break;
	case BV_NUMAID:
		g_emit(g, CALL(BPF_FUNC_get_numa_node_id));
		break;
	case BV_CGROUP:
		g_emit(g, CALL(BPF_FUNC_get_current_cgroup_id));
		break;
	case BV_RAND:
		g_emit(g, CALL(BPF_FUNC_get_prandom_u32));
		break;
	case BV_CPID:
		g_ld_imm64(g, R0, g->env->cpid);
		break;
	case BV_NCPUS:
		g_ld_imm64(g, R0, g->env->ncpus);
		break;
	case BV_CURTASK:
		g_emit(g, CALL(BPF_FUNC_get_current_task));
		break;
	case BV_CTX:	/* iter probes' context: its address */
		g_emit(g, MOV_REG(R0, g->cb ? R8 : R6));
		if (g->cb)
			g_emit(g, LDX(BPF_DW, R0, R8, 0));
		break;
	case BV_JIFFIES:
		g_emit(g, CALL(BPF_FUNC_jiffies64));
		break;
	case BV_USERMODE:	/* the privilege level in the saved cs (x86-64's pt_regs, also first in perf_event's context) */
		g_emit(g, LDX(BPF_DW, R0, R6, 136));
		g_emit(g, ALU_IMM(BPF_AND, R0, 3));
		g_emit(g, JMP_IMM(BPF_JEQ, R0, 3, 2));
		g_emit(g, MOV_IMM(R0, 0));
		g_emit(g, JA(1));
		g_emit(g, MOV_IMM(R0, 1));
		break;
	case BV_SARG: {	/* the stack above the return address: sp + 8 * (N + 1) */
		int mark = g->sp, t = g_slot(g, 8, n->loc);
		bool user = strcmp(g->in->prov->name, "kprobe") != 0;

		g_emit(g, ST(BPF_DW, FP, t, 0));
		g_emit(g, LDX(BPF_DW, R3, R6, 152));
		g_emit(g, ALU_IMM(BPF_ADD, R3, 8 * ((int)n->i + 1)));
		g_fp_addr(g, R1, t);
		g_emit(g, MOV_IMM(R2, 8));
		g_emit(g, CALL(user ? BPF_FUNC_probe_read_user : BPF_FUNC_probe_read_kernel));
		g_hcheck(g);
		g_emit(g, LDX(BPF_DW, R0, FP, t));
		g->sp = mark;
		break;
	}
	case BV_KSTACK:
		g_stackid(g, false);
		break;
	case BV_ARG:
		if (g->in->usdt)
			gen_usdt_arg(g, n);
		else if (g->in->prog_type == BPF_PROG_TYPE_RAW_TRACEPOINT)
			g_emit(g, LDX(BPF_DW, R0, R6, (int)n->i * 8));
		else
			g_emit(g, LDX(BPF_DW, R0, R6, provider__arg_offset((int)n->i)));
		break;
	case BV_RETVAL:
		if (g->in->prog_type == BPF_PROG_TYPE_TRACING)
			gen_btf__ctx_arg(g, n);
		else
			g_emit(g, LDX(BPF_DW, R0, R6, provider__retval_offset()));
		break;
	default:
		g_unsupported(g, n, n->s);
	}
}

/* sign- or zero-extend r0 from bits */
void g_extend(struct gen *g, int bits, bool sign)
{
	if (bits >= 64 || bits <= 0)
		return;
	g_emit(g, ALU_IMM(BPF_LSH, R0, 64 - bits));
	g_emit(g, ALU_IMM(sign ? BPF_ARSH : BPF_RSH, R0, 64 - bits));
}

const struct tp_field *g_field_of(struct gen *g, struct node *n)
{
	const struct tp_field *f = provider__field(g->in, n->s);

	if (!f && !g->fail) {
		lang__error(g->prog, n->loc, "tracepoint '%s' has no field '%s'", g->in->name, n->s);
		g->fail = true;
	}
	return f;
}

/* key of @m[...] into a fresh slot: its offset (hist maps get 8 more bytes for the bucket) */
int gen_key(struct gen *g, struct node *mapn)
{
	struct mapinfo *m = mapn->map;
	int off = g_slot(g, m->key_size, mapn->loc), at = 0, i = 0;

	if (!mapn->args) {
		g_emit(g, ST(BPF_DW, FP, off, 0));
		return off;
	}
	if (mapn->tuplekey) {
		g_tuple_key(g, mapn, off);
		return off;
	}
	for (struct node *k = mapn->args; k; k = k->next, i++) {
		gen_to(g, k, off + at, &m->key.tup[i]);
		at += g_round8(m->key.tup[i].size);
	}
	return off;
}

void g_lookup(struct gen *g, int map, int keyoff)
{
	g_ld_map(g, R1, map);
	g_fp_addr(g, R2, keyoff);
	g_emit(g, CALL(BPF_FUNC_map_lookup_elem));
}

void g_update(struct gen *g, int map, int keyoff, int valoff, int flags)
{
	for (struct mapinfo *m = g->prog->maps; m; m = m->next)	/* one no probe adds to is made small (runtime.c) */
		if (m->index == map)
			m->added = true;
	g_ld_map(g, R1, map);
	g_fp_addr(g, R2, keyoff);
	g_fp_addr(g, R3, valoff);
	g_emit(g, MOV_IMM(R4, flags));
	g_emit(g, CALL(BPF_FUNC_map_update_elem));
	g_hcheck(g);
}

/* r0 = the int value of @m[k] (0 when absent) */
void gen_map_read(struct gen *g, struct node *n)
{
	int mark = g->sp;
	int key = gen_key(g, n);

	if (n->map->percpu) {	/* count, sum, avg, min, max: summed (or min/max-ed) over all CPUs */
		g_fp_addr(g, R7, key);
		g_percpu_value(g, n->map, n->loc);
		g->sp = mark;
		return;
	}
	g_lookup(g, n->map->index, key);
	g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 1));
	g_emit(g, LDX(BPF_DW, R0, R0, 0));
	g->sp = mark;
}

/* compare two strings at fp offsets: r0 = 1 when equal up to the first NUL (or n bytes) */
void g_str_equal(struct gen *g, int a, int b, int n)
{
	int *fails = NULL, nf = 0, *oks = NULL, nok = 0;

	for (int i = 0; i < n; i++) {
		g_emit(g, LDX(BPF_B, R1, FP, a + i));
		g_emit(g, LDX(BPF_B, R2, FP, b + i));
		g_push_fix(g, &fails, &nf, g_emit(g, JMP_REG(BPF_JNE, R1, R2, 0)));
		g_push_fix(g, &oks, &nok, g_emit(g, JMP_IMM(BPF_JEQ, R1, 0, 0)));
	}
	for (int i = 0; i < nok; i++)
		g_patch(g, oks[i]);
	g_emit(g, MOV_IMM(R0, 1));
	int done = g_emit(g, JA(0));

	for (int i = 0; i < nf; i++)
		g_patch(g, fails[i]);
	g_emit(g, MOV_IMM(R0, 0));
	g_patch(g, done);
	free(fails);
	free(oks);
}

void gen_str_cmp(struct gen *g, struct node *l, struct node *r, int limit, bool eq_is_one)
{
	int mark = g->sp;
	int la = l->ty.size, lb = r->ty.size;
	int a = g_slot(g, la, l->loc), b = g_slot(g, lb, r->loc);
	int n = la < lb ? la : lb;

	gen_to(g, l, a, &l->ty);
	gen_to(g, r, b, &r->ty);
	if (limit >= 0 && limit < n)
		n = limit;
	/* a literal decides how far to look */
	if (r->kind == N_STR && (int)r->slen + 1 < n && limit < 0)
		n = (int)r->slen + 1;
	if (l->kind == N_STR && (int)l->slen + 1 < n && limit < 0)
		n = (int)l->slen + 1;
	g_str_equal(g, a, b, n);
	if (!eq_is_one)
		g_emit(g, ALU_IMM(BPF_XOR, R0, 1));
	g->sp = mark;
}

/* r0 = the n bytes of arrays (or buffers: length and bytes) l and r are equal (each zero-padded to 8-byte words in its slot) */
static void gen_bytes_equal(struct gen *g, struct node *l, struct node *r, int n)
{
	int mark = g->sp, words = g_round8(n), a = g_slot(g, words, l->loc), b = g_slot(g, words, r->loc);
	struct node *sides[2] = { l, r };
	int slots[2] = { a, b };

	for (int i = 0; i < 2; i++) {
		g_zero(g, slots[i], words);
		if (sides[i]->ty.kind == TY_ARRAY || sides[i]->ty.kind == TY_BUF)
			gen_to(g, sides[i], slots[i], &sides[i]->ty);
		else
			gen_str(g, sides[i], slots[i], words);
	}
	g_emit(g, MOV_IMM(R0, 0));
	for (int i = 0; i < words; i += 8) {
		g_emit(g, LDX(BPF_DW, R1, FP, a + i));
		g_emit(g, LDX(BPF_DW, R2, FP, b + i));
		g_emit(g, JMP_REG(BPF_JNE, R1, R2, (int16_t)((words - i) / 8 * 3 - 2)));
	}
	g_emit(g, MOV_IMM(R0, 1));
	g->sp = mark;
}

/*
 * bpftrace's answer for x << c, x >> c with a constant c outside 0..63 and for
 * x / 0, x % 0 of a constant 0: LLVM folds them to 0 (a divisor or shift
 * count known only at run time gets the BPF instruction's answer: x / 0 is 0,
 * x % 0 is x, the count taken modulo 64). True where op's result is that 0.
 */
static bool g_const_zero(int op, struct node *r)
{
	long long v;

	if (!comptime__int(r, &v))
		return false;
	switch (op) {
	case T_SHL: case T_SHR: case T_SHL_ASSIGN: case T_SHR_ASSIGN:
		return v < 0 || v > 63;
	case T_SLASH: case T_PERCENT: case T_DIV_ASSIGN: case T_MOD_ASSIGN:
		return v == 0;
	default:
		return false;
	}
}

/* a binary operation on two integers (not &&, ||, nor a comparison of strings, tuples or arrays) */
static bool g_plain_binop(const struct node *n)
{
	if (!n || n->kind != N_BINOP || n->op == T_LAND || n->op == T_LOR)
		return false;
	if (n->op != T_EQ && n->op != T_NE)
		return true;
	return n->l->ty.kind != TY_ARRAY && n->r->ty.kind != TY_ARRAY && n->l->ty.kind != TY_TUPLE &&
	       n->l->ty.kind != TY_STR && n->l->ty.kind != TY_BUF;
}

static void g_binop_rest(struct gen *g, struct node *n);
static bool g_ends(const struct node *s);

void gen_binop(struct gen *g, struct node *n)
{
	if ((n->op == T_EQ || n->op == T_NE) && (n->l->ty.kind == TY_ARRAY || n->r->ty.kind == TY_ARRAY ||
						 n->l->ty.kind == TY_BUF)) {
		gen_bytes_equal(g, n->l, n->r, n->id);
		if (n->op == T_NE)
			g_emit(g, ALU_IMM(BPF_XOR, R0, 1));
		return;
	}
	if ((n->op == T_EQ || n->op == T_NE) && n->l->ty.kind == TY_TUPLE) {
		gen_tuple_compare(g, n, n->op == T_NE);	/* tuple.c */
		return;
	}
	if ((n->op == T_EQ || n->op == T_NE) && n->l->ty.kind == TY_STR) {
		gen_str_cmp(g, n->l, n->r, -1, n->op == T_EQ);
		return;
	}
	long long v;

	if (((n->op >= T_EQ && n->op <= T_GE) || n->op == T_LAND || n->op == T_LOR) && comptime__int(n, &v)) {
		g_ld_imm64(g, R0, (uint64_t)v);	/* a condition known now (getopt() compares, 0 && x) */
		return;
	}
	if ((n->op == T_LAND || n->op == T_LOR) && comptime__int(n->r, &v)) {
		/* x && 1, x || 0: x as a bool; x && 0, x || 1: x for its effects, then the constant */
		gen_int(g, n->l);
		if ((n->op == T_LAND) == !!v) {
			g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 1));
			g_emit(g, MOV_IMM(R0, 1));
		} else {
			g_emit(g, MOV_IMM(R0, n->op == T_LOR));
		}
		return;
	}
	if (n->op == T_LAND || n->op == T_LOR) {
		gen_int(g, n->l);
		int j = g_emit(g, JMP_IMM(n->op == T_LAND ? BPF_JEQ : BPF_JNE, R0, 0, 0));

		gen_int(g, n->r);
		g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 2));
		g_emit(g, MOV_IMM(R0, 0));
		g_emit(g, JA(1));
		g_emit(g, MOV_IMM(R0, 1));
		/* the short circuit lands on the right constant */
		g->c->insns[j].off = (int16_t)(g->c->n - j - 1 - (n->op == T_LAND ? 3 : 1));
		return;
	}
	/* a chain 1+1+... leans left: its left spine in a loop, not by recursion */
	struct node *bottom = n;
	int depth = 0;

	while (g_plain_binop(bottom->l)) {
		bottom = bottom->l;
		depth++;
	}
	gen_int(g, bottom->l);
	for (int d = depth; d >= 0 && !g->fail; d--) {
		struct node *s = n;

		for (int k = 0; k < d; k++)	/* the spine has no parent links: walk down again */
			s = s->l;
		g_binop_rest(g, s);
	}
}

/* the BPF jump taken when comparison op holds (sign: a signed comparison), or -1 */
static int g_cmp_jop(int op, bool sign)
{
	switch (op) {
	case T_EQ: return BPF_JEQ;
	case T_NE: return BPF_JNE;
	case T_LT: return sign ? BPF_JSLT : BPF_JLT;
	case T_LE: return sign ? BPF_JSLE : BPF_JLE;
	case T_GT: return sign ? BPF_JSGT : BPF_JGT;
	case T_GE: return sign ? BPF_JSGE : BPF_JGE;
	default: return -1;
	}
}

/* the jump taken when the comparison jop does not hold */
static int g_jop_inverse(int jop)
{
	switch (jop) {
	case BPF_JEQ: return BPF_JNE;
	case BPF_JNE: return BPF_JEQ;
	case BPF_JLT: return BPF_JGE;
	case BPF_JGE: return BPF_JLT;
	case BPF_JLE: return BPF_JGT;
	case BPF_JGT: return BPF_JLE;
	case BPF_JSLT: return BPF_JSGE;
	case BPF_JSGE: return BPF_JSLT;
	case BPF_JSLE: return BPF_JSGT;
	default: return BPF_JSLE;	/* BPF_JSGT */
	}
}

/*
 * n's right operand when it is a constant that an instruction can hold (a
 * sign-extended 32-bit immediate: the same 64-bit value a register would
 * hold), and n's operation can take it: no pointer scaling.
 */
static bool g_imm_operand(const struct node *n, int32_t *imm)
{
	long long v;

	if (!comptime__int(n->r, &v) || v != (int32_t)v || n->l->ty.ptr || n->r->ty.ptr)
		return false;
	*imm = (int32_t)v;
	return true;
}

/* n's operation, its left operand's value in r0 */
static void g_binop_rest(struct gen *g, struct node *n)
{
	bool sign = n->l->ty.sign && n->r->ty.sign;	/* C's rule: unsigned wins */
	int jop = -1;
	int32_t imm;

	if (g_const_zero(n->op, n->r)) {
		g_emit(g, MOV_IMM(R0, 0));	/* the left operand was computed for its effects */
		return;
	}
	if (g_imm_operand(n, &imm)) {
		static const struct { int op, alu; } alu[] = {
			{ T_PLUS, BPF_ADD }, { T_MINUS, BPF_SUB }, { T_STAR, BPF_MUL }, { T_SLASH, BPF_DIV },
			{ T_PERCENT, BPF_MOD }, { T_BAND, BPF_AND }, { T_BOR, BPF_OR }, { T_BXOR, BPF_XOR },
			{ T_SHL, BPF_LSH },
		};

		for (size_t i = 0; i < sizeof(alu) / sizeof(alu[0]); i++)
			if (alu[i].op == n->op && (imm > 0 || (alu[i].alu != BPF_DIV && alu[i].alu != BPF_MOD))) {
				g_emit(g, ALU_IMM(alu[i].alu, R0, imm));
				return;
			}
		if (n->op == T_SHR) {
			g_emit(g, ALU_IMM(sign ? BPF_ARSH : BPF_RSH, R0, imm));
			return;
		}
		if ((jop = g_cmp_jop(n->op, sign)) >= 0) {
			g_emit(g, JMP_IMM(jop, R0, imm, 2));
			g_emit(g, MOV_IMM(R0, 0));
			g_emit(g, JA(1));
			g_emit(g, MOV_IMM(R0, 1));
			return;
		}
	}

	int mark = g->sp, tmp = g_slot(g, 8, n->loc);	/* after the left operand: a chain holds one slot */

	g_emit(g, STX(BPF_DW, FP, R0, tmp));
	gen_int(g, n->r);
	g_emit(g, MOV_REG(R1, R0));
	g_emit(g, LDX(BPF_DW, R0, FP, tmp));
	g->sp = mark;
	if ((n->op == T_PLUS || n->op == T_MINUS) && n->l->ty.ptr && !n->r->ty.ptr)
		gen_btf__scale(g, &n->l->ty, R1);

	switch (n->op) {
	case T_PLUS: g_emit(g, ALU_REG(BPF_ADD, R0, R1)); return;
	case T_MINUS: g_emit(g, ALU_REG(BPF_SUB, R0, R1)); return;
	case T_STAR: g_emit(g, ALU_REG(BPF_MUL, R0, R1)); return;
	case T_SLASH: g_emit(g, ALU_REG(BPF_DIV, R0, R1)); return;
	case T_PERCENT: g_emit(g, ALU_REG(BPF_MOD, R0, R1)); return;
	case T_BAND: g_emit(g, ALU_REG(BPF_AND, R0, R1)); return;
	case T_BOR: g_emit(g, ALU_REG(BPF_OR, R0, R1)); return;
	case T_BXOR: g_emit(g, ALU_REG(BPF_XOR, R0, R1)); return;
	case T_SHL: g_emit(g, ALU_REG(BPF_LSH, R0, R1)); return;
	case T_SHR: g_emit(g, ALU_REG(sign ? BPF_ARSH : BPF_RSH, R0, R1)); return;
	default:
		if ((jop = g_cmp_jop(n->op, sign)) < 0) {
			g_unsupported(g, n, "this operator");
			return;
		}
	}
	g_emit(g, JMP_REG(jop, R0, R1, 2));
	g_emit(g, MOV_IMM(R0, 0));
	g_emit(g, JA(1));
	g_emit(g, MOV_IMM(R0, 1));
}

/*
 * Jump when condition c is false (the jumps pushed on *fix, to be patched to
 * the false branch), fall through when it is true: a comparison becomes one
 * conditional jump, a && b the false jumps of each, instead of a 0/1 value
 * tested again (fewer instructions, and fewer paths for the verifier).
 */
void g_cond_false(struct gen *g, struct node *c, int **fix, int *nfix)
{
	long long v;

	if (g->fail)
		return;
	/*
	 * Inside a while loop, the 0/1 value tested again: there the direct
	 * jumps made the verifier's states stop matching from one iteration to
	 * the next (a loop of 160 reading a byte an iteration: 1,000,000
	 * instructions processed instead of 26,000, on 6.18).
	 */
	if (g->loop) {
		gen_int(g, c);
		g_push_fix(g, fix, nfix, g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0)));
		return;
	}
	if (comptime__int(c, &v)) {
		if (!v) {	/* a conditional jump: what follows stays reachable for the verifier's CFG check */
			g_emit(g, MOV_IMM(R0, 0));
			g_push_fix(g, fix, nfix, g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0)));
		}
		return;
	}
	if (c->kind == N_BINOP && c->op == T_LAND) {
		g_cond_false(g, c->l, fix, nfix);
		g_cond_false(g, c->r, fix, nfix);
		return;
	}
	if (c->kind == N_UNOP && c->op == T_NOT && c->l->ty.kind == TY_INT) {
		gen_int(g, c->l);
		g_push_fix(g, fix, nfix, g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 0)));
		return;
	}
	int jop = c->kind == N_BINOP ? g_cmp_jop(c->op, c->l->ty.sign && c->r->ty.sign) : -1;
	int32_t imm;

	if (jop < 0 || !g_plain_binop(c)) {
		gen_int(g, c);
		g_push_fix(g, fix, nfix, g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0)));
		return;
	}
	gen_int(g, c->l);
	if (g_imm_operand(c, &imm)) {
		g_push_fix(g, fix, nfix, g_emit(g, JMP_IMM(g_jop_inverse(jop), R0, imm, 0)));
		return;
	}
	int mark = g->sp, tmp = g_slot(g, 8, c->loc);

	g_emit(g, STX(BPF_DW, FP, R0, tmp));
	gen_int(g, c->r);
	g_emit(g, MOV_REG(R1, R0));
	g_emit(g, LDX(BPF_DW, R0, FP, tmp));
	g->sp = mark;
	g_push_fix(g, fix, nfix, g_emit(g, JMP_REG(g_jop_inverse(jop), R0, R1, 0)));
}

/* the value of a tuple-typed expression into a slot, for field access */
int g_tuple_base(struct gen *g, struct node *t)
{
	int reg, off = g_tuple_src(g, t, &reg);

	if (reg == FP)
		return off;
	int s = g_slot(g, t->ty.size, t->loc);

	g_copy(g, s, reg, off, g_round8(t->ty.size));
	return s;
}

int g_tuple_off(const struct type *t, int idx)
{
	int off = 0;

	for (int i = 0; i < idx; i++)
		off += g_round8(t->tup[i].size);
	return off;
}

/* [fp+slot] = the u64 at offset off of the syscall's pt_regs */
void g_sc_regs_read(struct gen *g, int off, int slot_off)
{
	g_fp_addr(g, R1, slot_off);
	g_emit(g, MOV_IMM(R2, 8));
	g_emit(g, LDX(BPF_DW, R3, R6, 0));
	g_emit(g, ALU_IMM(BPF_ADD, R3, off));
	g_emit(g, CALL(BPF_FUNC_probe_read_kernel));
	g_hcheck(g);
}

/* a field of a syscalls:sys_enter_X/sys_exit_X tracepoint, from the raw tracepoint's context */
void g_sc_field(struct gen *g, struct node *n, const struct tp_field *f)
{
	/* the syscall ABI's argument registers in struct pt_regs: di, si, dx, r10, r8, r9 */
	static const int regs[] = { 112, 104, 96, 56, 72, 64 };

	if (!strcmp(f->name, "__syscall_nr")) {
		g_ld_imm64(g, R0, (uint64_t)g->in->sc_nr);
		return;
	}
	if (g->in->sc_exit && !strcmp(f->name, "ret")) {
		g_emit(g, LDX(BPF_DW, R0, R6, 8));
		return;
	}
	int i = (f->off - 16) / 8;

	if (f->off < 16 || i >= 6 || g->in->sc_exit) {
		if (!g->fail)
			lang__error(g->prog, n->loc, "field '%s' of a syscall tracepoint is not readable here "
				    "(SONDE_PROBE_PERF_TRACEPOINTS=1 uses perf-event tracepoints, which have it)", f->name);
		g->fail = true;
		return;
	}
	int mark = g->sp, t = g_slot(g, 8, n->loc);

	g_sc_regs_read(g, regs[i], t);
	g_emit(g, LDX(BPF_DW, R0, FP, t));
	g->sp = mark;
	if (f->size < 8)
		g_extend(g, f->size * 8, f->sign);
}

void gen_field_int(struct gen *g, struct node *n)
{
	if (gen_btf__handles(n)) {
		gen_btf__int(g, n);
		return;
	}
	if (n->l->ty.kind == TY_CTX && (!strcmp(g->in->prov->name, "uprobe") ||	/* args.name: a register (dwargs.c) */
					 !strcmp(g->in->prov->name, "rawtracepoint"))) {	/* or args[i] of the raw tracepoint */
		g_emit(g, LDX(BPF_DW, R0, R6, n->off));
		if (!n->ty.ptr && n->ty.bits && n->ty.bits < 64)
			g_extend(g, n->ty.bits, n->ty.sign);
		return;
	}
	if (n->l->ty.kind == TY_CTX && g->in->prog_type == BPF_PROG_TYPE_TRACING) {
		gen_btf__ctx_arg(g, n);
		return;
	}
	if (n->l->ty.kind == TY_CTX && g->in->sc_nr >= 0) {
		const struct tp_field *f = g_field_of(g, n);

		if (f)
			g_sc_field(g, n, f);
		return;
	}
	if (n->l->ty.kind == TY_CTX) {
		const struct tp_field *f = g_field_of(g, n);
		static const int sizes[] = { [1] = BPF_B, [2] = BPF_H, [4] = BPF_W, [8] = BPF_DW };

		if (!f)
			return;
		if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) {
			g_unsupported(g, n, "a field of this size");
			return;
		}
		g_emit(g, LDX(sizes[f->size], R0, R6, f->off));
		if (f->sign)
			g_extend(g, f->size * 8, true);
		return;
	}
	int mark = g->sp, reg;
	int base = g_tuple_src(g, n->l, &reg);

	g_emit(g, LDX(BPF_DW, R0, reg, base + g_tuple_off(g_src_type(n->l), n->id)));
	g->sp = mark;
}

/* r0 = an optional argument's value, dflt when it is not given */
void g_int_or(struct gen *g, struct node *n, int32_t dflt)
{
	if (n)
		gen_int(g, n);
	else
		g_emit(g, MOV_IMM(R0, dflt));
}

void gen_int(struct gen *g, struct node *n)
{
	if (g->fail)
		return;
	switch (n->kind) {
	case N_INT:
		g_ld_imm64(g, R0, (uint64_t)n->i);
		return;
	case N_IDENT:	/* -k: kstack's get_stackid() names the builtin */
		G_KLOC(g, n->loc, n->loc.col + n->loc.len, gen_bvar(g, n));
		return;
	case N_VAR:
		g_emit(g, LDX(BPF_DW, R0, g_vbase(g, n->var), g_voff(g, n->var)));
		return;
	case N_MAP:
		gen_map_read(g, n);
		return;
	case N_CALL:
		G_KLOC(g, n->loc, g->prog->cfg.helper_check ? g_kloc_call_end(g, n->loc) : 0, gen_call_int(g, n));
		return;
	case N_BINOP:
		gen_binop(g, n);
		return;
	case N_UNOP:
		if (n->op == T_STAR) {
			G_KLOC(g, n->loc, n->loc.col + 1, gen_btf__int(g, n));	/* -kk: the '*' */
			return;
		}
		if (n->op == T_BAND) {
			gen_addrof(g, n);
			return;
		}
		gen_int(g, n->l);
		if (n->op == T_MINUS)
			g_emit(g, ALU_IMM(BPF_NEG, R0, 0));
		else if (n->op == T_BNOT)
			g_emit(g, ALU_IMM(BPF_XOR, R0, -1));
		else if (n->op == T_NOT) {
			g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 2));
			g_emit(g, MOV_IMM(R0, 0));
			g_emit(g, JA(1));
			g_emit(g, MOV_IMM(R0, 1));
		}
		return;
	case N_TERNARY: {
		long long v;
		int *no = NULL, nno = 0;

		if (comptime__int(n->l, &v)) {	/* getopt("ms", false) ? a : b: the branch taken, alone */
			gen_int(g, v ? n->r : n->x);
			return;
		}
		g_cond_false(g, n->l, &no, &nno);
		gen_int(g, n->r);
		int k = g_emit(g, JA(0));

		for (int i = 0; i < nno; i++)
			g_patch(g, no[i]);
		free(no);
		gen_int(g, n->x);
		g_patch(g, k);
		return;
	}
	case N_FIELD:
		gen_field_int(g, n);
		return;
	case N_INDEX:
		if (n->l->ty.kind == TY_STR) {
			gen_str_index(g, n);
			return;
		}
		gen_btf__int(g, n);
		return;
	case N_CAST:
		if (!n->ptr && n->l->ty.kind != TY_INT) {	/* (uint32)pton("127.0.0.1") */
			gen_array_to_int(g, n);
			return;
		}
		gen_int(g, n->l);
		g_extend(g, n->ty.bits, n->ty.sign);
		if (n->ty.boolean) {	/* (bool)x: x != 0 */
			g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 1));
			g_emit(g, MOV_IMM(R0, 1));
		}
		return;
	case N_PREINC: case N_POSTINC:
		g_inc_target(g, n, n->kind == N_POSTINC);
		return;
	case N_BLOCKEXPR:
		g_block_stmts(g, n);
		gen_int(g, n->x);
		return;
	default:
		g_unsupported(g, n, "this expression");
	}
}

/* ---- values into memory ---- */
void g_str_literal(struct gen *g, const char *s, size_t len, int off, int size)
{
	for (int i = 0; i < size; i += 8) {
		uint64_t v = 0;

		for (int k = 0; k < 8; k++)
			if ((size_t)(i + k) < len && i + k < size - 1)
				v |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
		if (!v) {
			g_emit(g, ST(BPF_DW, FP, off + i, 0));
		} else {
			g_ld_imm64(g, R1, v);
			g_emit(g, STX(BPF_DW, FP, R1, off + i));
		}
	}
}

static void gen_str1(struct gen *g, struct node *n, int off, int size);

void gen_str(struct gen *g, struct node *n, int off, int size)
{
	if (n->kind == N_CALL && g->prog->cfg.helper_check)	/* -kk: str(p) names the call */
		G_KLOC(g, n->loc, g_kloc_call_end(g, n->loc), gen_str1(g, n, off, size));
	else
		gen_str1(g, n, off, size);
}

static void gen_str1(struct gen *g, struct node *n, int off, int size)
{
	switch (n->kind) {
	case N_STR:
		g_str_literal(g, n->s, n->slen, off, size);
		return;
	case N_IDENT:
		if (n->op == BV_COMM) {
			g_zero(g, off, size);
			g_fp_addr(g, R1, off);
			g_emit(g, MOV_IMM(R2, size < 16 ? size : 16));
			g_emit(g, CALL(BPF_FUNC_get_current_comm));
			return;
		}
		if (n->op == BV_PROBE || n->op == BV_FUNC || n->op == BV_PROBETYPE) {
			const char *pn = g->in->prov->name;
			const char *s = n->op == BV_PROBE ? g->in->name : n->op == BV_PROBETYPE ?
				(!strcmp(pn, "BEGIN") || !strcmp(pn, "END") ? "special" : pn) : g->in->sym ? g->in->sym : "";

			g_str_literal(g, s, strlen(s), off, size);
			return;
		}
		break;
	case N_VAR: {
		int vs = n->var->ty.size < size ? n->var->ty.size : size;

		g_copy(g, off, g_vbase(g, n->var), g_voff(g, n->var), vs);
		if (vs < size)
			g_zero(g, off + vs, size - vs);
		return;
	}
	case N_MAP: {
		int mark = g->sp, key = gen_key(g, n);
		int vs = (int)n->map->value_size < size ? (int)n->map->value_size : size;

		g_zero(g, off, size);
		g_lookup(g, n->map->index, key);
		int j = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

		g_copy(g, off, R0, 0, vs);
		g_patch(g, j);
		g->sp = mark;
		return;
	}
	case N_INDEX: case N_UNOP:
		if (gen_btf__handles(n)) {
			gen_btf__str(g, n, off, size);
			return;
		}
		break;
	case N_FIELD:
		if (gen_btf__handles(n)) {
			gen_btf__str(g, n, off, size);
			return;
		}
		if (n->l->ty.kind == TY_CTX) {
			const struct tp_field *f = g_field_of(g, n);

			if (!f)
				return;
			g_zero(g, off, size);
			if (f->data_loc) {
				g_emit(g, LDX(BPF_W, R3, R6, f->off));
				g_emit(g, ALU_IMM(BPF_AND, R3, 0xffff));
				g_emit(g, ALU_REG(BPF_ADD, R3, R6));
				g_fp_addr(g, R1, off);
				g_emit(g, MOV_IMM(R2, size));
				g_emit(g, CALL(BPF_FUNC_probe_read_kernel_str));
				g_hcheck(g);
			} else {
				g_fp_addr(g, R1, off);
				g_emit(g, MOV_IMM(R2, f->size < size ? f->size : size));
				g_emit(g, MOV_REG(R3, R6));
				g_emit(g, ALU_IMM(BPF_ADD, R3, f->off));
				g_emit(g, CALL(BPF_FUNC_probe_read_kernel));
				g_hcheck(g);
			}
			return;
		} else {
			int mark = g->sp, reg, base = g_tuple_src(g, n->l, &reg);
			int fs = n->ty.size < size ? n->ty.size : size;

			g_copy(g, off, reg, base + g_tuple_off(g_src_type(n->l), n->id), fs);
			if (fs < size)
				g_zero(g, off + fs, size - fs);
			g->sp = mark;
			return;
		}
	case N_CALL: {	/* str(), path(), comm(pid), syscall_name(): their row's gen_str (builtins.h) */
		const struct builtin *b = builtin__of(n);

		if (b && b->gen_str) {
			b->gen_str(g, n, off, size);
			return;
		}
		if (n->ty.kind == TY_BUF || n->ty.kind == TY_INET || n->ty.kind == TY_TIMESTAMP || n->ty.kind == TY_CGPATH ||
		    n->ty.kind == TY_MACADDR || n->ty.kind == TY_ARRAY || n->ty.kind == TY_FDIV) {
			gen_call_value(g, n, off, size);	/* a branch of ?: */
			return;
		}
		break;
	}
	case N_CAST:
		if (n->ty.kind == TY_ARRAY) {	/* (int8[8])x */
			gen_array_cast(g, n, off, size);
			return;
		}
		break;
	case N_TERNARY: {
		long long v;
		int *no = NULL, nno = 0;

		if (comptime__int(n->l, &v)) {
			gen_str(g, v ? n->r : n->x, off, size);
			return;
		}
		g_cond_false(g, n->l, &no, &nno);
		gen_str(g, n->r, off, size);
		int k = g_emit(g, JA(0));

		for (int i = 0; i < nno; i++)
			g_patch(g, no[i]);
		free(no);
		gen_str(g, n->x, off, size);
		g_patch(g, k);
		return;
	}
	case N_BLOCKEXPR:
		g_block_stmts(g, n);
		gen_str(g, n->x, off, size);
		return;
	default:
		break;
	}
	g_unsupported(g, n, "this string expression");
}


/*
 * The first user address of a process tells user space to read its memory
 * map now, while it runs: its stacks are then symbolized even after it exits.
 * [fp+pidoff] holds the pid.
 */
void g_new_pid(struct gen *g, int pidoff)
{
	int mark = g->sp, rec = g_slot(g, 8, g->pr->loc), one = g_slot(g, 8, g->pr->loc);

	g_emit(g, LDX(BPF_DW, R1, FP, pidoff));
	g_emit(g, STX(BPF_W, FP, R1, rec + 4));
	g_emit(g, ST(BPF_W, FP, rec, REC_PID));
	g_lookup(g, MAPREF_PIDS, rec + 4);
	int seen = g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 0));

	g_emit(g, ST(BPF_DW, FP, one, 1));
	g_ld_map(g, R1, MAPREF_PIDS);
	g_fp_addr(g, R2, rec + 4);
	g_fp_addr(g, R3, one);
	g_emit(g, MOV_IMM(R4, BPF_NOEXIST));
	g_emit(g, CALL(BPF_FUNC_map_update_elem));
	g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 0));
	int dup = g->c->n - 1;

	g_send(g, rec, 8);
	g_patch(g, seen);
	g_patch(g, dup);
	g->sp = mark;
}

/* tuple st at reg+base to FP+off as tuple dt: the same fields, dt's strings as long or longer */
static void tuple_copy(struct gen *g, int off, const struct type *dt, int reg, int base, const struct type *st)
{
	int n = g_round8(dt->size) < g_round8(st->size) ? g_round8(dt->size) : g_round8(st->size);

	if (dt->kind == TY_TUPLE && st->kind == TY_TUPLE && dt->ntup == st->ntup && !dt->names &&
	    dt->size != st->size) {
		for (int i = 0, a = 0, b = 0; i < dt->ntup; i++) {
			tuple_copy(g, off + a, &dt->tup[i], reg, base + b, &st->tup[i]);
			a += g_round8(dt->tup[i].size);
			b += g_round8(st->tup[i].size);
		}
		return;
	}
	g_copy(g, off, reg, base, n);
	if (g_round8(dt->size) > n)
		g_zero(g, off + n, g_round8(dt->size) - n);
}

void gen_to(struct gen *g, struct node *n, int off, const struct type *dt)
{
	if (g->fail)
		return;
	if (n->kind == N_BLOCKEXPR) {
		g_block_stmts(g, n);
		gen_to(g, n->x, off, dt);
		return;
	}
	switch (n->ty.kind) {
	case TY_INT: case TY_KSYM: case TY_KSTACK: case TY_STRERROR: case TY_USERNAME: case TY_DISKNAME: case TY_MEMINFO:
	case TY_PCTL: case TY_SIGNAME:
		if (n->kind == N_CALL && (n->op == F_KSYM || n->op == F_KSTACK))
			G_KLOC(g, n->loc, g->prog->cfg.helper_check ? g_kloc_call_end(g, n->loc) : 0, gen_call_int(g, n));
		else
			gen_int(g, n);
		g_emit(g, STX(BPF_DW, FP, R0, off));
		return;
	case TY_USTACK: case TY_USYM:
		if (n->kind == N_VAR) {
			g_copy(g, off, g_vbase(g, n->var), g_voff(g, n->var), 16);
			return;
		}
		if (n->kind == N_FIELD && n->l->ty.kind == TY_TUPLE) {	/* $kv.0.1: the id and the pid as kept */
			int mark = g->sp, reg, base = g_tuple_src(g, n->l, &reg);

			g_copy(g, off, reg, base + g_tuple_off(g_src_type(n->l), n->id), 16);
			g->sp = mark;
			return;
		}
		if (n->kind == N_MAP) {	/* @a = @u: the id and the pid as the map keeps them */
			int mark = g->sp, key = gen_key(g, n);

			g_zero(g, off, 16);
			g_lookup(g, n->map->index, key);
			int j = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

			g_copy(g, off, R0, 0, 16);
			g_patch(g, j);
			g->sp = mark;
			return;
		}
		if (n->ty.kind == TY_USYM && (n->kind != N_CALL || !n->args)) {
			g_unsupported(g, n, "a symbol from here");
			return;
		}
		if (n->ty.kind == TY_USTACK)	/* -k: ustack, or ustack(...) */
			G_KLOC(g, n->loc, !g->prog->cfg.helper_check ? 0 : n->kind == N_CALL ? g_kloc_call_end(g, n->loc) :
			       n->loc.col + n->loc.len, g_stackid(g, true));
		else
			gen_int(g, n->args);
		g_emit(g, STX(BPF_DW, FP, R0, off));
		g_emit(g, CALL(BPF_FUNC_get_current_pid_tgid));
		g_emit(g, ALU_IMM(BPF_RSH, R0, 32));
		g_emit(g, STX(BPF_DW, FP, R0, off + 8));
		g_new_pid(g, off + 8);
		return;
	case TY_STR:
		gen_str(g, n, off, dt->kind == TY_STR ? dt->size : n->ty.size);
		return;
	case TY_BUF: case TY_INET: case TY_TIMESTAMP: case TY_CGPATH: case TY_MACADDR: case TY_ARRAY: case TY_FDIV:
		/* fixed-size bytes: made by their function, else copied as a string's are */
		if (n->kind == N_CALL)
			gen_call_value(g, n, off, dt->kind == n->ty.kind ? dt->size : n->ty.size);
		else
			gen_str(g, n, off, dt->kind == n->ty.kind ? dt->size : n->ty.size);
		return;
	case TY_TUPLE:
		if (n->kind == N_TUPLE) {
			int i = 0, at = 0;

			for (struct node *a = n->args; a; a = a->next, i++) {
				const struct type *et = dt->kind == TY_TUPLE && i < dt->ntup ? &dt->tup[i] : &a->ty;

				if (dt->kind == TY_TUPLE && dt->names && n->ty.names) {	/* records: by name */
					int j = g_field_index(dt, n->ty.names[i]);

					gen_to(g, a, off + g_tuple_off(dt, j), &dt->tup[j]);
					continue;
				}
				gen_to(g, a, off + at, et);
				at += g_round8(et->size);
			}
			return;
		}
		if (n->kind == N_TERNARY) {	/* c ? (a, b) : (x, y): each branch written as the whole's type */
			long long v;
			int *no = NULL, nno = 0;
			const struct type *t = dt->kind == TY_TUPLE ? dt : &n->ty;

			if (comptime__int(n->l, &v)) {
				gen_to(g, v ? n->r : n->x, off, t);
				return;
			}
			g_cond_false(g, n->l, &no, &nno);
			gen_to(g, n->r, off, t);
			int k = g_emit(g, JA(0));

			for (int i = 0; i < nno; i++)
				g_patch(g, no[i]);
			free(no);
			gen_to(g, n->x, off, t);
			g_patch(g, k);
			return;
		}
		if (n->kind == N_VAR || n->kind == N_FIELD) {	/* a variable or a tuple in one ($kv.0) */
			int mark = g->sp, reg, base = g_tuple_src(g, n, &reg);

			tuple_copy(g, off, dt, reg, base, g_src_type(n));
			g->sp = mark;
			return;
		}
		if (n->kind == N_MAP) {
			int mark = g->sp, key = gen_key(g, n);

			g_zero(g, off, dt->size);
			g_lookup(g, n->map->index, key);
			int j = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

			g_copy(g, off, R0, 0, dt->size < (int)n->map->value_size ? dt->size : (int)n->map->value_size);
			g_patch(g, j);
			g->sp = mark;
			return;
		}
		break;
	default:
		break;
	}
	g_unsupported(g, n, "a value of this type here");
}

/* ---- maps ---- */
void g_map_store(struct gen *g, struct node *mapn, struct node *val)
{
	int mark = g->sp, key = gen_key(g, mapn);
	struct mapinfo *m = mapn->map;
	int v = g_slot(g, m->value_size, val->loc);

	if (m->val.kind != TY_INT && m->val.kind != TY_KSYM && m->val.kind != TY_KSTACK)
		g_zero(g, v, m->value_size);
	gen_to(g, val, v, &m->val);
	g_update(g, m->index, key, v, BPF_ANY);
	g->sp = mark;
}

/* @m[k] op= r0-producing rhs, and ++/--: read, change, write (r0 = new value, or old for post) */
void g_map_rmw(struct gen *g, struct node *mapn, int op, struct node *rhs, long long delta, bool post)
{
	int mark = g->sp, key = gen_key(g, mapn);
	int v = g_slot(g, 8, mapn->loc), old = g_slot(g, 8, mapn->loc);

	if (rhs)
		gen_int(g, rhs);
	else
		g_ld_imm64(g, R0, (uint64_t)delta);
	if (!rhs && mapn->map->val.ptr)
		gen_btf__scale(g, &mapn->map->val, R0);	/* @p++ on an int32 *: 4 bytes on */
	g_emit(g, STX(BPF_DW, FP, R0, v));
	g_lookup(g, mapn->map->index, key);
	g_emit(g, MOV_IMM(R1, 0));
	g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 1));
	g_emit(g, LDX(BPF_DW, R1, R0, 0));
	g_emit(g, STX(BPF_DW, FP, R1, old));
	g_emit(g, LDX(BPF_DW, R2, FP, v));
	if (rhs && (op == T_ADD_ASSIGN || op == T_SUB_ASSIGN) && mapn->map->val.ptr && !rhs->ty.ptr)
		gen_btf__scale(g, &mapn->map->val, R2);	/* @p -= 4 on an int32 *: 16 bytes back, as @p = @p - 4 */
	switch (rhs && g_const_zero(op, rhs) ? -1 : op) {
	case -1: g_emit(g, MOV_IMM(R1, 0)); break;
	case T_ADD_ASSIGN: case T_INC: g_emit(g, ALU_REG(BPF_ADD, R1, R2)); break;
	case T_SUB_ASSIGN: g_emit(g, ALU_REG(BPF_SUB, R1, R2)); break;
	case T_MUL_ASSIGN: g_emit(g, ALU_REG(BPF_MUL, R1, R2)); break;
	case T_DIV_ASSIGN: g_emit(g, ALU_REG(BPF_DIV, R1, R2)); break;
	case T_MOD_ASSIGN: g_emit(g, ALU_REG(BPF_MOD, R1, R2)); break;
	case T_AND_ASSIGN: g_emit(g, ALU_REG(BPF_AND, R1, R2)); break;
	case T_OR_ASSIGN: g_emit(g, ALU_REG(BPF_OR, R1, R2)); break;
	case T_XOR_ASSIGN: g_emit(g, ALU_REG(BPF_XOR, R1, R2)); break;
	case T_SHL_ASSIGN: g_emit(g, ALU_REG(BPF_LSH, R1, R2)); break;
	case T_SHR_ASSIGN: g_emit(g, ALU_REG(BPF_ARSH, R1, R2)); break;
	}
	g_emit(g, STX(BPF_DW, FP, R1, v));
	g_update(g, mapn->map->index, key, v, BPF_ANY);
	g_emit(g, LDX(BPF_DW, R0, FP, post ? old : v));
	g->sp = mark;
}

void g_inc_target(struct gen *g, struct node *n, bool post)
{
	long long d = n->op == T_INC ? 1 : -1;

	if (n->l->kind == N_MAP) {
		g_map_rmw(g, n->l, T_INC, NULL, d, post);
		return;
	}
	int s = g_voff(g, n->l->var);

	g_emit(g, LDX(BPF_DW, R0, g_vbase(g, n->l->var), s));
	g_emit(g, MOV_REG(R1, R0));
	g_emit(g, ALU_IMM(BPF_ADD, R1, (int)d));
	g_emit(g, STX(BPF_DW, g_vbase(g, n->l->var), R1, s));
	if (!post)
		g_emit(g, MOV_REG(R0, R1));
}

/* the statements of a block expression (its value is the caller's to generate) */
void g_block_stmts(struct gen *g, struct node *b)
{
	for (struct node *s = b->args; s && !g->fail; s = s->next) {
		gen_stmt(g, s);
		/* nothing after exit(), return, break or continue runs: no code the verifier would call unreachable */
		if (g_ends(s))
			break;
	}
}

/* the index of a record's field, by name */
int g_field_index(const struct type *t, const char *name)
{
	for (int i = 0; t->names && i < t->ntup; i++)
		if (!strcmp(t->names[i], name))
			return i;
	return 0;
}

/* does s always end the probe or leave the loop (its last statement exit(), return, break, continue)? */
static bool g_ends(const struct node *s)
{
	if (!s)
		return false;
	if (s->kind == N_BLOCK) {
		const struct node *last = s->args;

		while (last && last->next)
			last = last->next;
		return g_ends(last);
	}
	if (s->kind == N_UNROLL)	/* its body runs at least once */
		return g_ends(s->r);
	if (s->kind == N_IF && s->x)
		return g_ends(s->r) && g_ends(s->x);
	return s->kind == N_RETURN || s->kind == N_BREAK || s->kind == N_CONTINUE ||
	       (s->kind == N_EXPR && s->l->kind == N_CALL && s->l->s && !strcmp(s->l->s, "exit"));
}

void gen_block(struct gen *g, struct node *b)
{
	if (b->kind != N_BLOCK) {
		gen_stmt(g, b);
		return;
	}
	for (struct node *s = b->args; s && !g->fail; s = s->next) {
		gen_stmt(g, s);
		/* nothing after exit(), return, break or continue runs: no code the verifier would call unreachable */
		if (g_ends(s))
			break;
	}
}

void g_var_store(struct gen *g, struct var *v, struct node *val)
{
	if (v->shared) {	/* built on the stack, then copied to the per-CPU map */
		int mark = g->sp, t = g_slot(g, v->ty.size, val->loc);

		gen_to(g, val, t, &v->ty);
		g_copy_regs(g, g_vbase(g, v), g_voff(g, v), FP, t, g_round8(v->ty.size ? v->ty.size : 8));
		g->sp = mark;
		return;
	}
	gen_to(g, val, v->slot, &v->ty);
}

void g_loop_end(struct gen *g, struct loopctx *l, int cont_target)
{
	for (int i = 0; i < l->ncont; i++)
		g->c->insns[l->cont[i]].off = (int16_t)(cont_target - l->cont[i] - 1);
	for (int i = 0; i < l->nbrk; i++)
		g_patch(g, l->brk[i]);
	free(l->brk);
	free(l->cont);
	g->loop = l->outer;
}

static void gen_stmt1(struct gen *g, struct node *s);

/* an expression as a statement: a call, or c ? printf(...) : printf(...) (bpftrace runs the branch taken) */
static void gen_expr_stmt(struct gen *g, struct node *e)
{
	if (e->kind == N_CALL) {
		gen_call_stmt(g, e);
	} else if (e->kind == N_TERNARY && e->ty.kind == TY_VOID) {
		gen_int(g, e->l);
		int j = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

		gen_expr_stmt(g, e->r);
		bool left = e->r->kind == N_CALL && e->r->s && !strcmp(e->r->s, "exit");	/* no jump after exit()'s */
		int k = left ? -1 : g_emit(g, JA(0));

		g_patch(g, j);
		gen_expr_stmt(g, e->x);
		if (k >= 0)
			g_patch(g, k);
	} else if (e->ty.kind == TY_INT) {
		gen_int(g, e);
	}
}

/* -k names the statement, or for `@m[k] = v` its '=' (as bpftrace 0.17), or the call it makes */
void gen_stmt(struct gen *g, struct node *s)
{
	struct loc at = s->loc;
	int end = 0;

	if (g->prog->cfg.helper_check) {
		if (s->kind == N_EXPR && s->l->kind == N_CALL)
			end = g_kloc_call_end(g, at = s->l->loc);
		else if (s->kind == N_ASSIGN && s->l->kind == N_MAP && s->op == T_ASSIGN &&
			 !(s->r->kind == N_CALL && s->r->ty.kind == TY_AGG))
			end = at.col + 1;
		else if (s->kind == N_ASSIGN && s->l->kind == N_MAP)
			end = g_kloc_stmt_end(g, at = s->l->loc);
		else
			end = g_kloc_stmt_end(g, at);
	}
	G_KLOC(g, at, end, gen_stmt1(g, s));
}

static void gen_stmt1(struct gen *g, struct node *s)
{
	int mark = g->sp;

	switch (s->kind) {
	case N_EXPR:
		gen_expr_stmt(g, s->l);
		break;
	case N_ASSIGN:
		if (s->l->kind == N_MAP) {
			if (s->r->kind == N_CALL && s->r->ty.kind == TY_AGG)
				gen_agg(g, s->l, s->r);
			else if (s->op == T_ASSIGN)
				g_map_store(g, s->l, s->r);
			else
				g_map_rmw(g, s->l, s->op, s->r, 0, false);
		} else if (s->op == T_ASSIGN) {
			g_var_store(g, s->l->var, s->r);
		} else {
			struct node bin = { .kind = N_BINOP, .l = s->l, .r = s->r, .loc = s->loc };
			static const int ops[] = {
				[T_ADD_ASSIGN] = T_PLUS, [T_SUB_ASSIGN] = T_MINUS, [T_MUL_ASSIGN] = T_STAR,
				[T_DIV_ASSIGN] = T_SLASH, [T_MOD_ASSIGN] = T_PERCENT, [T_AND_ASSIGN] = T_BAND,
				[T_OR_ASSIGN] = T_BOR, [T_XOR_ASSIGN] = T_BXOR, [T_SHL_ASSIGN] = T_SHL,
				[T_SHR_ASSIGN] = T_SHR,
			};
			bin.op = ops[s->op];
			bin.ty = s->l->var->ty;
			s->l->ty = s->l->var->ty;
			gen_binop(g, &bin);
			g_emit(g, STX(BPF_DW, g_vbase(g, s->l->var), R0, g_voff(g, s->l->var)));
		}
		break;
	case N_LET:
		if (s->r || (!s->x && s->s)) {
			struct var *v = NULL;
			struct node zero = { .kind = N_INT, .ty = { .kind = TY_INT, .size = 8, .sign = true, .bits = 64 } };

			for (struct var *x = g->pr->vars; x; x = x->next)
				if (!strcmp(x->name, s->s) && !x->gone)
					v = x;
			if (v && (s->r || v->ty.kind == TY_INT))	/* let $x;: 0 again each time */
				g_var_store(g, v, s->r ? s->r : &zero);
		}
		break;
	case N_IF: {
		int *no = NULL, nno = 0;

		g_cond_false(g, s->l, &no, &nno);
		gen_block(g, s->r);
		if (s->x && !g_ends(s->r)) {
			int k = g_emit(g, JA(0));

			for (int i = 0; i < nno; i++)
				g_patch(g, no[i]);
			gen_block(g, s->x);
			g_patch(g, k);
		} else {	/* then {...; exit(); }: no jump over else (unreachable) */
			for (int i = 0; i < nno; i++)
				g_patch(g, no[i]);
			if (s->x)
				gen_block(g, s->x);
		}
		free(no);
		break;
	}
	case N_WHILE: {
		struct loopctx l = { .outer = g->loop };
		int top = g->c->n;

		gen_int(g, s->l);
		g_push_fix(g, &l.brk, &l.nbrk, g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0)));
		g->loop = &l;
		gen_block(g, s->r);
		if (!g_ends(s->r) || l.ncont)
			g_emit(g, JA((int16_t)(top - g->c->n - 1)));
		g_loop_end(g, &l, top);
		break;
	}
	case N_FOR_RANGE: {
		struct loopctx l = { .outer = g->loop };

		if (s->id) {	/* bounds known at run time: a bpf_loop() callback (check.c) */
			gen_for_range(g, s);
			break;
		}
		int lim = g_slot(g, 8, s->loc);

		gen_int(g, s->x);
		g_emit(g, STX(BPF_DW, FP, R0, lim));
		gen_int(g, s->l);
		g_emit(g, STX(BPF_DW, g_vbase(g, s->var), R0, g_voff(g, s->var)));
		int top = g->c->n;

		g_emit(g, LDX(BPF_DW, R0, g_vbase(g, s->var), g_voff(g, s->var)));
		g_emit(g, LDX(BPF_DW, R1, FP, lim));
		g_push_fix(g, &l.brk, &l.nbrk, g_emit(g, JMP_REG(BPF_JSGE, R0, R1, 0)));
		g->loop = &l;
		gen_block(g, s->r);
		int cont = g->c->n;

		if (!g_ends(s->r) || l.ncont) {	/* a body that always leaves never steps on */
			g_emit(g, LDX(BPF_DW, R0, g_vbase(g, s->var), g_voff(g, s->var)));
			g_emit(g, ALU_IMM(BPF_ADD, R0, 1));
			g_emit(g, STX(BPF_DW, g_vbase(g, s->var), R0, g_voff(g, s->var)));
			g_emit(g, JA((int16_t)(top - g->c->n - 1)));
		}
		g_loop_end(g, &l, cont);
		break;
	}
	case N_FOR_MAP:
		gen_for_map(g, s);
		break;
	case N_UNROLL:
		for (long long i = 0; i < s->l->i && !g->fail; i++) {
			gen_block(g, s->r);
			if (g_ends(s->r))	/* the later copies would be unreachable */
				break;
		}
		break;
	case N_BREAK:
		g_push_fix(g, &g->loop->brk, &g->loop->nbrk, g_emit(g, JA(0)));
		break;
	case N_CONTINUE:
		g_push_fix(g, &g->loop->cont, &g->loop->ncont, g_emit(g, JA(0)));
		break;
	case N_RETURN:
		testbench__gen_return(g, s);	/* a test: probe's verdict */
		g_push_fix(g, &g->ret, &g->nret, g_emit(g, JA(0)));
		break;
	case N_BLOCK:
		gen_block(g, s);
		break;
	default:
		g_unsupported(g, s, "this statement");
	}
	g->sp = mark;
}

int gen__probe(struct program *prog, struct probe *pr, struct ap_inst *in, const struct gen_env *env,
	       struct bpf_code *out)
{
	struct gen g = { .prog = prog, .pr = pr, .in = in, .env = env, .c = out };

	memset(out, 0, sizeof(*out));
	in->tp_btf = gen_btf__tp_btf(prog, in);
	g_emit(&g, MOV_REG(R6, R1));
	/*
	 * after exit(), no probe but END runs: its events would come after the exit's,
	 * and an interval:ms:1 probe would run again before it is detached (an
	 * iterator goes on to its end, as bpftrace's does)
	 */
	if (prog->need_exit && strcmp(in->prov->name, "END") && strcmp(in->prov->name, "iter") &&
	    strcmp(in->prov->name, "test") && strcmp(in->prov->name, "bench")) {	/* each test runs alone */
		int k = g_slot(&g, 8, pr->loc);

		g_emit(&g, ST(BPF_DW, FP, k, 0));
		g_lookup(&g, MAPREF_EXIT, k);
		g_emit(&g, JMP_IMM(BPF_JEQ, R0, 0, 2));
		g_emit(&g, LDX(BPF_DW, R0, R0, 0));
		g_push_fix(&g, &g.ret, &g.nret, g_emit(&g, JMP_IMM(BPF_JNE, R0, 0, 0)));
		g.sp = 0;
	}
	if (in->sc_nr >= 0) {
		/* raw_syscalls:sys_enter/sys_exit: args[0] is the pt_regs, args[1] the number (or the return value) */
		if (in->sc_exit) {
			int t = g_slot(&g, 8, pr->loc);

			g_sc_regs_read(&g, 120, t);	/* orig_ax */
			g_emit(&g, LDX(BPF_DW, R1, FP, t));
		} else {
			g_emit(&g, LDX(BPF_DW, R1, R6, 8));
		}
		g_push_fix(&g, &g.ret, &g.nret, g_emit(&g, JMP_IMM(BPF_JNE, R1, in->sc_nr, 0)));
	}
	iter__prologue(&g);	/* iter probes: nothing to do on the last call */
	/* scratch variables: a zeroed slot each, for the whole program */
	for (struct var *v = pr->vars; v; v = v->next) {
		if (v->home || v->shared)	/* a for loop's own, or shared with one: gen_loop.c */
			continue;
		v->slot = g_slot(&g, v->ty.size ? v->ty.size : 8, pr->loc);
		g_zero(&g, v->slot, g_round8(v->ty.size ? v->ty.size : 8));
	}
	g_shared_vars(&g);
	testbench__gen_prologue(&g);
	if (pr->pred)
		g_cond_false(&g, pr->pred, &g.ret, &g.nret);
	gen_block(&g, pr->body);
	for (int i = 0; i < g.nret; i++)
		g_patch(&g, g.ret[i]);
	free(g.ret);
	testbench__gen_epilogue(&g);	/* r0 = 0, or a test's verdict */
	g_emit(&g, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	out->stack = g.maxsp;
	if (g.subs && g_subs_link(&g))	/* the for loops' callbacks go after the main program */
		g.fail = true;
	if (g.fail || out->n > 1000000) {
		if (!prog->err)
			lang__error(prog, pr->loc, "cannot generate code for this probe");
		bpf_code__free(out);
		return -EINVAL;
	}
	return 0;
}

void bpf_code__free(struct bpf_code *c)
{
	free(c->insns);
	free(c->rel);
	free(c->subs);
	memset(c, 0, sizeof(*c));
}
