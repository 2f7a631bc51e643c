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
#include "lang/builtin.h"
#include "lang/gen.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define ALU_REG(op, d, s) INSN(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define ALU_IMM(op, d, i) INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define MOV_REG(d, s) ALU_REG(BPF_MOV, d, s)
#define MOV_IMM(d, i) ALU_IMM(BPF_MOV, d, i)
#define LDX(sz, d, s, o) INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define STX(sz, d, s, o) INSN(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define ST(sz, d, o, i) INSN(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
#define JMP_IMM(op, d, i, o) INSN(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define JMP_REG(op, d, s, o) INSN(BPF_JMP | (op) | BPF_X, d, s, o, 0)
#define JA(o) INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define CALL(f) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define XADD(d, s, o) INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)

enum { R0, R1, R2, R3, R4, R5, R6, R7, R8, R9, FP };
#define STACK_MAX 512

struct loopctx {
	int *brk, nbrk;
	int *cont, ncont;
	struct loopctx *outer;
};

struct gen {
	struct program *prog;
	struct probe *pr;
	struct ap_inst *in;
	const struct gen_env *env;
	struct bpf_code *c;
	int sp, maxsp;
	int *ret, nret;
	struct loopctx *loop;
	bool fail;
};

static int emit(struct gen *g, struct bpf_insn i)
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

static void ld_imm64(struct gen *g, int reg, uint64_t v)
{
	if ((int64_t)v == (int32_t)v) {
		emit(g, MOV_IMM(reg, (int32_t)v));
		return;
	}
	emit(g, INSN(BPF_LD | BPF_DW | BPF_IMM, reg, 0, 0, (uint32_t)v));
	emit(g, INSN(0, 0, 0, 0, (uint32_t)(v >> 32)));
}

static void ld_map(struct gen *g, int reg, int map)
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
	emit(g, INSN(BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_MAP_FD, 0, 0));
	emit(g, INSN(0, 0, 0, 0, 0));
}

/* a forward jump to be patched to "here" */
static void patch(struct gen *g, int at)
{
	if (at >= 0 && at < g->c->n)
		g->c->insns[at].off = (int16_t)(g->c->n - at - 1);
}

static void push_fix(struct gen *g, int **arr, int *n, int at)
{
	int *a = realloc(*arr, (*n + 1) * sizeof(int));

	if (!a) {
		g->fail = true;
		return;
	}
	a[(*n)++] = at;
	*arr = a;
}

static int round8(int n)
{
	return (n + 7) & ~7;
}

/* a stack slot of n bytes: its fp offset */
static int slot(struct gen *g, int n, struct loc loc)
{
	g->sp += round8(n > 0 ? n : 8);
	if (g->sp > g->maxsp)
		g->maxsp = g->sp;
	if (g->sp > STACK_MAX && !g->fail) {
		lang__error(g->prog, loc, "this probe needs more than the %d bytes of BPF stack (strings are %d bytes: "
			    "config = { max_strlen = N } makes them smaller)", STACK_MAX, g->prog->cfg.max_strlen);
		g->fail = true;
	}
	return -g->sp;
}

static void zero(struct gen *g, int off, int n)
{
	for (int i = 0; i < n; i += 8)
		emit(g, ST(BPF_DW, FP, off + i, 0));
}

static void fp_addr(struct gen *g, int reg, int off)
{
	emit(g, MOV_REG(reg, FP));
	emit(g, ALU_IMM(BPF_ADD, reg, off));
}

/* copy n bytes (a multiple of 8) from [src+soff] to [fp+doff] */
static void copy(struct gen *g, int doff, int src, int soff, int n)
{
	for (int i = 0; i < n; i += 8) {
		emit(g, LDX(BPF_DW, R1, src, soff + i));
		emit(g, STX(BPF_DW, FP, R1, doff + i));
	}
}

static void gen_int(struct gen *g, struct node *n);
static void gen_to(struct gen *g, struct node *n, int off, const struct type *dt);
static void gen_stmt(struct gen *g, struct node *s);

static void unsupported(struct gen *g, struct node *n, const char *what)
{
	if (!g->fail)
		lang__error(g->prog, n->loc, "%s is not supported by sonde probe yet", what);
	g->fail = true;
}

/* ---- builtins ---- */
static void stackid(struct gen *g, bool user)
{
	emit(g, MOV_REG(R1, R6));
	ld_map(g, R2, user ? MAPREF_USTACK : MAPREF_KSTACK);
	emit(g, MOV_IMM(R3, user ? BPF_F_USER_STACK : 0));
	emit(g, CALL(BPF_FUNC_get_stackid));
}

static void gen_bvar(struct gen *g, struct node *n)
{
	switch (n->op) {
	case BV_PID:
		emit(g, CALL(BPF_FUNC_get_current_pid_tgid));
		emit(g, ALU_IMM(BPF_RSH, R0, 32));
		break;
	case BV_TID:
		emit(g, CALL(BPF_FUNC_get_current_pid_tgid));
		emit(g, INSN(BPF_ALU | BPF_MOV | BPF_X, R0, R0, 0, 0));
		break;
	case BV_UID:
		emit(g, CALL(BPF_FUNC_get_current_uid_gid));
		emit(g, INSN(BPF_ALU | BPF_MOV | BPF_X, R0, R0, 0, 0));
		break;
	case BV_GID:
		emit(g, CALL(BPF_FUNC_get_current_uid_gid));
		emit(g, ALU_IMM(BPF_RSH, R0, 32));
		break;
	case BV_NSECS:
		emit(g, CALL(BPF_FUNC_ktime_get_ns));
		break;
	case BV_ELAPSED:
		emit(g, CALL(BPF_FUNC_ktime_get_ns));
		ld_imm64(g, R1, g->env->start_ns);
		emit(g, ALU_REG(BPF_SUB, R0, R1));
		break;
	case BV_CPU:
		emit(g, CALL(BPF_FUNC_get_smp_processor_id));
		break;
	case BV_NUMAID:
		emit(g, CALL(BPF_FUNC_get_numa_node_id));
		break;
	case BV_CGROUP:
		emit(g, CALL(BPF_FUNC_get_current_cgroup_id));
		break;
	case BV_RAND:
		emit(g, CALL(BPF_FUNC_get_prandom_u32));
		break;
	case BV_CPID:
		ld_imm64(g, R0, g->env->cpid);
		break;
	case BV_NCPUS:
		ld_imm64(g, R0, g->env->ncpus);
		break;
	case BV_CURTASK:
		emit(g, CALL(BPF_FUNC_get_current_task));
		break;
	case BV_KSTACK:
		stackid(g, false);
		break;
	case BV_ARG:
		if (g->in->prog_type == BPF_PROG_TYPE_RAW_TRACEPOINT)
			emit(g, LDX(BPF_DW, R0, R6, (int)n->i * 8));
		else
			emit(g, LDX(BPF_DW, R0, R6, provider__arg_offset((int)n->i)));
		break;
	case BV_RETVAL:
		emit(g, LDX(BPF_DW, R0, R6, provider__retval_offset()));
		break;
	default:
		unsupported(g, n, n->s);
	}
}

/* sign- or zero-extend r0 from bits */
static void extend(struct gen *g, int bits, bool sign)
{
	if (bits >= 64 || bits <= 0)
		return;
	emit(g, ALU_IMM(BPF_LSH, R0, 64 - bits));
	emit(g, ALU_IMM(sign ? BPF_ARSH : BPF_RSH, R0, 64 - bits));
}

static const struct tp_field *field_of(struct gen *g, struct node *n)
{
	const struct tp_field *f = provider__field(g->in, n->s);

	if (!f && !g->fail) {
		lang__error(g->prog, n->loc, "tracepoint '%s' has no field '%s'", g->in->name, n->s);
		g->fail = true;
	}
	return f;
}

/* key of @m[...] into a fresh slot: its offset (hist maps get 8 more bytes for the bucket) */
static int gen_key(struct gen *g, struct node *mapn)
{
	struct mapinfo *m = mapn->map;
	int off = slot(g, m->key_size, mapn->loc), at = 0, i = 0;

	if (!mapn->args) {
		emit(g, ST(BPF_DW, FP, off, 0));
		return off;
	}
	for (struct node *k = mapn->args; k; k = k->next, i++) {
		gen_to(g, k, off + at, &m->key.tup[i]);
		at += round8(m->key.tup[i].size);
	}
	return off;
}

static void lookup(struct gen *g, int map, int keyoff)
{
	ld_map(g, R1, map);
	fp_addr(g, R2, keyoff);
	emit(g, CALL(BPF_FUNC_map_lookup_elem));
}

static void update(struct gen *g, int map, int keyoff, int valoff, int flags)
{
	ld_map(g, R1, map);
	fp_addr(g, R2, keyoff);
	fp_addr(g, R3, valoff);
	emit(g, MOV_IMM(R4, flags));
	emit(g, CALL(BPF_FUNC_map_update_elem));
}

/* r0 = the int value of @m[k] (0 when absent) */
static void gen_map_read(struct gen *g, struct node *n)
{
	int mark = g->sp;
	int key = gen_key(g, n);

	lookup(g, n->map->index, key);
	emit(g, JMP_IMM(BPF_JEQ, R0, 0, 1));
	emit(g, LDX(BPF_DW, R0, R0, 0));
	g->sp = mark;
}

/* compare two strings at fp offsets: r0 = 1 when equal up to the first NUL (or n bytes) */
static void str_equal(struct gen *g, int a, int b, int n)
{
	int *fails = NULL, nf = 0, *oks = NULL, nok = 0;

	for (int i = 0; i < n; i++) {
		emit(g, LDX(BPF_B, R1, FP, a + i));
		emit(g, LDX(BPF_B, R2, FP, b + i));
		push_fix(g, &fails, &nf, emit(g, JMP_REG(BPF_JNE, R1, R2, 0)));
		push_fix(g, &oks, &nok, emit(g, JMP_IMM(BPF_JEQ, R1, 0, 0)));
	}
	for (int i = 0; i < nok; i++)
		patch(g, oks[i]);
	emit(g, MOV_IMM(R0, 1));
	int done = emit(g, JA(0));

	for (int i = 0; i < nf; i++)
		patch(g, fails[i]);
	emit(g, MOV_IMM(R0, 0));
	patch(g, done);
	free(fails);
	free(oks);
}

static void gen_str_cmp(struct gen *g, struct node *l, struct node *r, int limit, bool eq_is_one)
{
	int mark = g->sp;
	int la = l->ty.size, lb = r->ty.size;
	int a = slot(g, la, l->loc), b = slot(g, lb, r->loc);
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
	str_equal(g, a, b, n);
	if (!eq_is_one)
		emit(g, ALU_IMM(BPF_XOR, R0, 1));
	g->sp = mark;
}

static void gen_binop(struct gen *g, struct node *n)
{
	if ((n->op == T_EQ || n->op == T_NE) && n->l->ty.kind == TY_STR) {
		gen_str_cmp(g, n->l, n->r, -1, n->op == T_EQ);
		return;
	}
	if (n->op == T_LAND || n->op == T_LOR) {
		gen_int(g, n->l);
		int j = emit(g, JMP_IMM(n->op == T_LAND ? BPF_JEQ : BPF_JNE, R0, 0, 0));

		gen_int(g, n->r);
		emit(g, JMP_IMM(BPF_JNE, R0, 0, 2));
		emit(g, MOV_IMM(R0, 0));
		emit(g, JA(1));
		emit(g, MOV_IMM(R0, 1));
		/* the short circuit lands on the right constant */
		g->c->insns[j].off = (int16_t)(g->c->n - j - 1 - (n->op == T_LAND ? 3 : 1));
		return;
	}
	int mark = g->sp, tmp = slot(g, 8, n->loc);

	gen_int(g, n->l);
	emit(g, STX(BPF_DW, FP, R0, tmp));
	gen_int(g, n->r);
	emit(g, MOV_REG(R1, R0));
	emit(g, LDX(BPF_DW, R0, FP, tmp));
	g->sp = mark;
	bool sign = n->l->ty.sign || n->r->ty.sign;
	int jop = -1;

	switch (n->op) {
	case T_PLUS: emit(g, ALU_REG(BPF_ADD, R0, R1)); return;
	case T_MINUS: emit(g, ALU_REG(BPF_SUB, R0, R1)); return;
	case T_STAR: emit(g, ALU_REG(BPF_MUL, R0, R1)); return;
	case T_SLASH: emit(g, ALU_REG(BPF_DIV, R0, R1)); return;
	case T_PERCENT: emit(g, ALU_REG(BPF_MOD, R0, R1)); return;
	case T_BAND: emit(g, ALU_REG(BPF_AND, R0, R1)); return;
	case T_BOR: emit(g, ALU_REG(BPF_OR, R0, R1)); return;
	case T_BXOR: emit(g, ALU_REG(BPF_XOR, R0, R1)); return;
	case T_SHL: emit(g, ALU_REG(BPF_LSH, R0, R1)); return;
	case T_SHR: emit(g, ALU_REG(sign ? BPF_ARSH : BPF_RSH, R0, R1)); return;
	case T_EQ: jop = BPF_JEQ; break;
	case T_NE: jop = BPF_JNE; break;
	case T_LT: jop = sign ? BPF_JSLT : BPF_JLT; break;
	case T_LE: jop = sign ? BPF_JSLE : BPF_JLE; break;
	case T_GT: jop = sign ? BPF_JSGT : BPF_JGT; break;
	case T_GE: jop = sign ? BPF_JSGE : BPF_JGE; break;
	default: unsupported(g, n, "this operator"); return;
	}
	emit(g, JMP_REG(jop, R0, R1, 2));
	emit(g, MOV_IMM(R0, 0));
	emit(g, JA(1));
	emit(g, MOV_IMM(R0, 1));
}

/* the value of a tuple-typed expression into a slot, for field access */
static int tuple_base(struct gen *g, struct node *t)
{
	if (t->kind == N_VAR)
		return t->var->slot;
	int off = slot(g, t->ty.size, t->loc);

	gen_to(g, t, off, &t->ty);
	return off;
}

static int tuple_off(const struct type *t, int idx)
{
	int off = 0;

	for (int i = 0; i < idx; i++)
		off += round8(t->tup[i].size);
	return off;
}

/* [fp+slot] = the u64 at offset off of the syscall's pt_regs */
static void sc_regs_read(struct gen *g, int off, int slot_off)
{
	fp_addr(g, R1, slot_off);
	emit(g, MOV_IMM(R2, 8));
	emit(g, LDX(BPF_DW, R3, R6, 0));
	emit(g, ALU_IMM(BPF_ADD, R3, off));
	emit(g, CALL(BPF_FUNC_probe_read_kernel));
}

/* a field of a syscalls:sys_enter_X/sys_exit_X tracepoint, from the raw tracepoint's context */
static void sc_field(struct gen *g, struct node *n, const struct tp_field *f)
{
	/* the syscall ABI's argument registers in struct pt_regs: di, si, dx, r10, r8, r9 */
	static const int regs[] = { 112, 104, 96, 56, 72, 64 };

	if (!strcmp(f->name, "__syscall_nr")) {
		ld_imm64(g, R0, (uint64_t)g->in->sc_nr);
		return;
	}
	if (g->in->sc_exit && !strcmp(f->name, "ret")) {
		emit(g, LDX(BPF_DW, R0, R6, 8));
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
	int mark = g->sp, t = slot(g, 8, n->loc);

	sc_regs_read(g, regs[i], t);
	emit(g, LDX(BPF_DW, R0, FP, t));
	g->sp = mark;
	if (f->size < 8)
		extend(g, f->size * 8, f->sign);
}

static void gen_field_int(struct gen *g, struct node *n)
{
	if (n->l->ty.kind == TY_CTX && g->in->sc_nr >= 0) {
		const struct tp_field *f = field_of(g, n);

		if (f)
			sc_field(g, n, f);
		return;
	}
	if (n->l->ty.kind == TY_CTX) {
		const struct tp_field *f = field_of(g, n);
		static const int sizes[] = { [1] = BPF_B, [2] = BPF_H, [4] = BPF_W, [8] = BPF_DW };

		if (!f)
			return;
		if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) {
			unsupported(g, n, "a field of this size");
			return;
		}
		emit(g, LDX(sizes[f->size], R0, R6, f->off));
		if (f->sign)
			extend(g, f->size * 8, true);
		return;
	}
	int mark = g->sp;
	int base = tuple_base(g, n->l);

	emit(g, LDX(BPF_DW, R0, FP, base + tuple_off(&n->l->ty, n->id)));
	g->sp = mark;
}

static long long kaddr(const char *sym)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], t;
	unsigned long long a;
	long long r = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &t, name) == 3 && !strcmp(name, sym)) {
			r = (long long)a;
			break;
		}
	fclose(f);
	return r;
}

static void gen_call_int(struct gen *g, struct node *n)
{
	struct node *a0 = n->args;

	switch (n->op) {
	case F_KADDR: {
		long long a = kaddr(a0->s);

		if (a < 0 && !g->fail) {
			lang__error(g->prog, a0->loc, "no kernel symbol '%s' in /proc/kallsyms (data symbols need "
				    "CONFIG_KALLSYMS_ALL)", a0->s);
			g->fail = true;
		}
		ld_imm64(g, R0, (uint64_t)a);
		return;
	}
	case F_KSYM:
		gen_int(g, a0);
		return;
	case F_STRNCMP:
		gen_str_cmp(g, a0, a0->next, (int)a0->next->next->i, false);
		return;
	case F_STRCONTAINS: {
		int mark = g->sp, h = slot(g, a0->ty.size, a0->loc);
		const char *needle = a0->next->s;
		int nl = (int)a0->next->slen;
		int *found = NULL, nfound = 0, *ends = NULL, nends = 0;

		gen_to(g, a0, h, &a0->ty);
		for (int i = 0; i + nl <= a0->ty.size; i++) {
			int *miss = NULL, nmiss = 0;

			for (int k = 0; k < nl; k++) {
				emit(g, LDX(BPF_B, R1, FP, h + i + k));
				if (k == 0)
					push_fix(g, &ends, &nends, emit(g, JMP_IMM(BPF_JEQ, R1, 0, 0)));
				push_fix(g, &miss, &nmiss, emit(g, JMP_IMM(BPF_JNE, R1, (unsigned char)needle[k], 0)));
			}
			push_fix(g, &found, &nfound, emit(g, JA(0)));
			for (int k = 0; k < nmiss; k++)
				patch(g, miss[k]);
			free(miss);
		}
		for (int k = 0; k < nends; k++)
			patch(g, ends[k]);
		emit(g, MOV_IMM(R0, nl == 0));
		int done = emit(g, JA(0));

		for (int k = 0; k < nfound; k++)
			patch(g, found[k]);
		emit(g, MOV_IMM(R0, 1));
		patch(g, done);
		free(found);
		free(ends);
		g->sp = mark;
		return;
	}
	case F_BSWAP: {
		int bits = n->ty.bits ? n->ty.bits : 64;

		gen_int(g, a0);
		emit(g, INSN(BPF_ALU | BPF_END | BPF_TO_BE, R0, 0, 0, bits < 16 ? 16 : bits));
		if (bits == 8)
			emit(g, ALU_IMM(BPF_RSH, R0, 8));
		return;
	}
	case F_REG: {
		static const struct { const char *n; int off; } regs[] = {
			{ "r15", 0 }, { "r14", 8 }, { "r13", 16 }, { "r12", 24 }, { "bp", 32 }, { "rbp", 32 },
			{ "bx", 40 }, { "rbx", 40 }, { "r11", 48 }, { "r10", 56 }, { "r9", 64 }, { "r8", 72 },
			{ "ax", 80 }, { "rax", 80 }, { "cx", 88 }, { "rcx", 88 }, { "dx", 96 }, { "rdx", 96 },
			{ "si", 104 }, { "rsi", 104 }, { "di", 112 }, { "rdi", 112 }, { "orig_ax", 120 },
			{ "ip", 128 }, { "rip", 128 }, { "cs", 136 }, { "flags", 144 }, { "sp", 152 },
			{ "rsp", 152 }, { "ss", 160 },
		};
		for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
			if (!strcmp(regs[i].n, a0->s)) {
				emit(g, LDX(BPF_DW, R0, R6, regs[i].off));
				return;
			}
		if (!g->fail)
			lang__error(g->prog, a0->loc, "unknown register '%s'", a0->s);
		g->fail = true;
		return;
	}
	case F_KSTACK:
		stackid(g, false);
		return;
	default:
		unsupported(g, n, "this function as a value");
	}
}

static void inc_target(struct gen *g, struct node *n, bool post);

static void gen_int(struct gen *g, struct node *n)
{
	if (g->fail)
		return;
	switch (n->kind) {
	case N_INT:
		ld_imm64(g, R0, (uint64_t)n->i);
		return;
	case N_IDENT:
		gen_bvar(g, n);
		return;
	case N_VAR:
		emit(g, LDX(BPF_DW, R0, FP, n->var->slot));
		return;
	case N_MAP:
		gen_map_read(g, n);
		return;
	case N_CALL:
		gen_call_int(g, n);
		return;
	case N_BINOP:
		gen_binop(g, n);
		return;
	case N_UNOP:
		gen_int(g, n->l);
		if (n->op == T_MINUS)
			emit(g, ALU_IMM(BPF_NEG, R0, 0));
		else if (n->op == T_BNOT)
			emit(g, ALU_IMM(BPF_XOR, R0, -1));
		else if (n->op == T_NOT) {
			emit(g, JMP_IMM(BPF_JEQ, R0, 0, 2));
			emit(g, MOV_IMM(R0, 0));
			emit(g, JA(1));
			emit(g, MOV_IMM(R0, 1));
		}
		return;
	case N_TERNARY: {
		gen_int(g, n->l);
		int j = emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

		gen_int(g, n->r);
		int k = emit(g, JA(0));

		patch(g, j);
		gen_int(g, n->x);
		patch(g, k);
		return;
	}
	case N_FIELD:
		gen_field_int(g, n);
		return;
	case N_CAST:
		gen_int(g, n->l);
		extend(g, n->ty.bits, n->ty.sign);
		return;
	case N_PREINC: case N_POSTINC:
		inc_target(g, n, n->kind == N_POSTINC);
		return;
	default:
		unsupported(g, n, "this expression");
	}
}

/* ---- values into memory ---- */
static void str_literal(struct gen *g, const char *s, size_t len, int off, int size)
{
	for (int i = 0; i < size; i += 8) {
		uint64_t v = 0;

		for (int k = 0; k < 8; k++)
			if ((size_t)(i + k) < len && i + k < size - 1)
				v |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
		if (!v) {
			emit(g, ST(BPF_DW, FP, off + i, 0));
		} else {
			ld_imm64(g, R1, v);
			emit(g, STX(BPF_DW, FP, R1, off + i));
		}
	}
}

static void gen_str(struct gen *g, struct node *n, int off, int size)
{
	switch (n->kind) {
	case N_STR:
		str_literal(g, n->s, n->slen, off, size);
		return;
	case N_IDENT:
		if (n->op == BV_COMM) {
			zero(g, off, size);
			fp_addr(g, R1, off);
			emit(g, MOV_IMM(R2, size < 16 ? size : 16));
			emit(g, CALL(BPF_FUNC_get_current_comm));
			return;
		}
		if (n->op == BV_PROBE || n->op == BV_FUNC) {
			const char *s = n->op == BV_PROBE ? g->in->name : g->in->sym ? g->in->sym : "";

			str_literal(g, s, strlen(s), off, size);
			return;
		}
		break;
	case N_VAR: {
		int vs = n->var->ty.size < size ? n->var->ty.size : size;

		copy(g, off, FP, n->var->slot, vs);
		if (vs < size)
			zero(g, off + vs, size - vs);
		return;
	}
	case N_MAP: {
		int mark = g->sp, key = gen_key(g, n);
		int vs = (int)n->map->value_size < size ? (int)n->map->value_size : size;

		zero(g, off, size);
		lookup(g, n->map->index, key);
		int j = emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

		copy(g, off, R0, 0, vs);
		patch(g, j);
		g->sp = mark;
		return;
	}
	case N_FIELD:
		if (n->l->ty.kind == TY_CTX) {
			const struct tp_field *f = field_of(g, n);

			if (!f)
				return;
			zero(g, off, size);
			if (f->data_loc) {
				emit(g, LDX(BPF_W, R3, R6, f->off));
				emit(g, ALU_IMM(BPF_AND, R3, 0xffff));
				emit(g, ALU_REG(BPF_ADD, R3, R6));
				fp_addr(g, R1, off);
				emit(g, MOV_IMM(R2, size));
				emit(g, CALL(BPF_FUNC_probe_read_kernel_str));
			} else {
				fp_addr(g, R1, off);
				emit(g, MOV_IMM(R2, f->size < size ? f->size : size));
				emit(g, MOV_REG(R3, R6));
				emit(g, ALU_IMM(BPF_ADD, R3, f->off));
				emit(g, CALL(BPF_FUNC_probe_read_kernel));
			}
			return;
		} else {
			int mark = g->sp, base = tuple_base(g, n->l);
			int fs = n->ty.size < size ? n->ty.size : size;

			copy(g, off, FP, base + tuple_off(&n->l->ty, n->id), fs);
			if (fs < size)
				zero(g, off + fs, size - fs);
			g->sp = mark;
			return;
		}
	case N_CALL:
		if (n->op == F_STR) {
			struct node *a = n->args;
			int len = n->ty.size < size ? n->ty.size : size;

			if (a->next && a->next->i + 1 < len)
				len = (int)a->next->i + 1;
			if (a->ty.kind == TY_STR) {
				gen_str(g, a, off, size);
				if (len < size) {	/* str(s, n): cut at n */
					emit(g, ST(BPF_B, FP, off + len - 1, 0));
					for (int i = len; i < size; i++)
						emit(g, ST(BPF_B, FP, off + i, 0));
				}
				return;
			}
			zero(g, off, size);
			gen_int(g, a);
			emit(g, MOV_REG(R3, R0));
			fp_addr(g, R1, off);
			emit(g, MOV_IMM(R2, len));
			/* bpf_probe_read_str reads user or kernel memory (x86-64's split address space) */
			emit(g, CALL(BPF_FUNC_probe_read_str));
			return;
		}
		break;
	case N_TERNARY: {
		gen_int(g, n->l);
		int j = emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

		gen_str(g, n->r, off, size);
		int k = emit(g, JA(0));

		patch(g, j);
		gen_str(g, n->x, off, size);
		patch(g, k);
		return;
	}
	default:
		break;
	}
	unsupported(g, n, "this string expression");
}

static void send(struct gen *g, int buf, int size);

/*
 * The first user address of a process tells user space to read its memory
 * map now, while it runs: its stacks are then symbolized even after it exits.
 * [fp+pidoff] holds the pid.
 */
static void new_pid(struct gen *g, int pidoff)
{
	int mark = g->sp, rec = slot(g, 8, g->pr->loc), one = slot(g, 8, g->pr->loc);

	emit(g, LDX(BPF_DW, R1, FP, pidoff));
	emit(g, STX(BPF_W, FP, R1, rec + 4));
	emit(g, ST(BPF_W, FP, rec, REC_PID));
	lookup(g, MAPREF_PIDS, rec + 4);
	int seen = emit(g, JMP_IMM(BPF_JNE, R0, 0, 0));

	emit(g, ST(BPF_DW, FP, one, 1));
	ld_map(g, R1, MAPREF_PIDS);
	fp_addr(g, R2, rec + 4);
	fp_addr(g, R3, one);
	emit(g, MOV_IMM(R4, BPF_NOEXIST));
	emit(g, CALL(BPF_FUNC_map_update_elem));
	emit(g, JMP_IMM(BPF_JNE, R0, 0, 0));
	int dup = g->c->n - 1;

	send(g, rec, 8);
	patch(g, seen);
	patch(g, dup);
	g->sp = mark;
}

static void gen_to(struct gen *g, struct node *n, int off, const struct type *dt)
{
	if (g->fail)
		return;
	switch (n->ty.kind) {
	case TY_INT: case TY_KSYM: case TY_KSTACK:
		if (n->kind == N_CALL && (n->op == F_KSYM || n->op == F_KSTACK))
			gen_call_int(g, n);
		else
			gen_int(g, n);
		emit(g, STX(BPF_DW, FP, R0, off));
		return;
	case TY_USTACK: case TY_USYM:
		if (n->kind == N_VAR) {
			copy(g, off, FP, n->var->slot, 16);
			return;
		}
		if (n->ty.kind == TY_USTACK)
			stackid(g, true);
		else
			gen_int(g, n->args);
		emit(g, STX(BPF_DW, FP, R0, off));
		emit(g, CALL(BPF_FUNC_get_current_pid_tgid));
		emit(g, ALU_IMM(BPF_RSH, R0, 32));
		emit(g, STX(BPF_DW, FP, R0, off + 8));
		new_pid(g, off + 8);
		return;
	case TY_STR:
		gen_str(g, n, off, dt->kind == TY_STR ? dt->size : n->ty.size);
		return;
	case TY_TUPLE:
		if (n->kind == N_TUPLE) {
			int i = 0, at = 0;

			for (struct node *a = n->args; a; a = a->next, i++) {
				const struct type *et = dt->kind == TY_TUPLE && i < dt->ntup ? &dt->tup[i] : &a->ty;

				gen_to(g, a, off + at, et);
				at += round8(et->size);
			}
			return;
		}
		if (n->kind == N_VAR) {
			copy(g, off, FP, n->var->slot, round8(n->ty.size));
			return;
		}
		if (n->kind == N_MAP) {
			int mark = g->sp, key = gen_key(g, n);

			zero(g, off, dt->size);
			lookup(g, n->map->index, key);
			int j = emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

			copy(g, off, R0, 0, dt->size < (int)n->map->value_size ? dt->size : (int)n->map->value_size);
			patch(g, j);
			g->sp = mark;
			return;
		}
		break;
	default:
		break;
	}
	unsupported(g, n, "a value of this type here");
}

/* ---- maps ---- */
static void map_store(struct gen *g, struct node *mapn, struct node *val)
{
	int mark = g->sp, key = gen_key(g, mapn);
	struct mapinfo *m = mapn->map;
	int v = slot(g, m->value_size, val->loc);

	if (m->val.kind != TY_INT && m->val.kind != TY_KSYM && m->val.kind != TY_KSTACK)
		zero(g, v, m->value_size);
	gen_to(g, val, v, &m->val);
	update(g, m->index, key, v, BPF_ANY);
	g->sp = mark;
}

/* @m[k] op= r0-producing rhs, and ++/--: read, change, write (r0 = new value, or old for post) */
static void map_rmw(struct gen *g, struct node *mapn, int op, struct node *rhs, long long delta, bool post)
{
	int mark = g->sp, key = gen_key(g, mapn);
	int v = slot(g, 8, mapn->loc), old = slot(g, 8, mapn->loc);

	if (rhs)
		gen_int(g, rhs);
	else
		ld_imm64(g, R0, (uint64_t)delta);
	emit(g, STX(BPF_DW, FP, R0, v));
	lookup(g, mapn->map->index, key);
	emit(g, MOV_IMM(R1, 0));
	emit(g, JMP_IMM(BPF_JEQ, R0, 0, 1));
	emit(g, LDX(BPF_DW, R1, R0, 0));
	emit(g, STX(BPF_DW, FP, R1, old));
	emit(g, LDX(BPF_DW, R2, FP, v));
	switch (op) {
	case T_ADD_ASSIGN: case T_INC: emit(g, ALU_REG(BPF_ADD, R1, R2)); break;
	case T_SUB_ASSIGN: emit(g, ALU_REG(BPF_SUB, R1, R2)); break;
	case T_MUL_ASSIGN: emit(g, ALU_REG(BPF_MUL, R1, R2)); break;
	case T_DIV_ASSIGN: emit(g, ALU_REG(BPF_DIV, R1, R2)); break;
	case T_MOD_ASSIGN: emit(g, ALU_REG(BPF_MOD, R1, R2)); break;
	case T_AND_ASSIGN: emit(g, ALU_REG(BPF_AND, R1, R2)); break;
	case T_OR_ASSIGN: emit(g, ALU_REG(BPF_OR, R1, R2)); break;
	case T_XOR_ASSIGN: emit(g, ALU_REG(BPF_XOR, R1, R2)); break;
	case T_SHL_ASSIGN: emit(g, ALU_REG(BPF_LSH, R1, R2)); break;
	case T_SHR_ASSIGN: emit(g, ALU_REG(BPF_ARSH, R1, R2)); break;
	}
	emit(g, STX(BPF_DW, FP, R1, v));
	update(g, mapn->map->index, key, v, BPF_ANY);
	emit(g, LDX(BPF_DW, R0, FP, post ? old : v));
	g->sp = mark;
}

static void inc_target(struct gen *g, struct node *n, bool post)
{
	long long d = n->op == T_INC ? 1 : -1;

	if (n->l->kind == N_MAP) {
		map_rmw(g, n->l, T_INC, NULL, d, post);
		return;
	}
	int s = n->l->var->slot;

	emit(g, LDX(BPF_DW, R0, FP, s));
	emit(g, MOV_REG(R1, R0));
	emit(g, ALU_IMM(BPF_ADD, R1, (int)d));
	emit(g, STX(BPF_DW, FP, R1, s));
	if (!post)
		emit(g, MOV_REG(R0, R1));
}

/* r0 = the log2 bucket of r0 (bpftrace's: <0 -> 0, 0 -> 1, [2^k, 2^k+1) -> k + 2) */
static void log2_bucket(struct gen *g)
{
	emit(g, JMP_IMM(BPF_JSGE, R0, 0, 2));
	emit(g, MOV_IMM(R0, 0));
	int d1 = emit(g, JA(0));

	emit(g, JMP_IMM(BPF_JNE, R0, 0, 2));
	emit(g, MOV_IMM(R0, 1));
	int d2 = emit(g, JA(0));

	emit(g, MOV_IMM(R1, 0));
	for (int s = 32; s >= 1; s /= 2) {
		emit(g, MOV_REG(R2, R0));
		emit(g, ALU_IMM(BPF_RSH, R2, s));
		emit(g, JMP_IMM(BPF_JEQ, R2, 0, 2));
		emit(g, MOV_REG(R0, R2));
		emit(g, ALU_IMM(BPF_ADD, R1, s));
	}
	emit(g, MOV_REG(R0, R1));
	emit(g, ALU_IMM(BPF_ADD, R0, 2));
	patch(g, d1);
	patch(g, d2);
}

static void lin_bucket(struct gen *g, const struct mapinfo *m)
{
	long long nb = (m->lmax - m->lmin) / m->lstep;

	ld_imm64(g, R1, (uint64_t)m->lmin);
	emit(g, JMP_REG(BPF_JSGE, R0, R1, 2));
	emit(g, MOV_IMM(R0, 0));
	int d1 = emit(g, JA(0));

	ld_imm64(g, R1, (uint64_t)m->lmax);
	emit(g, JMP_REG(BPF_JSLT, R0, R1, 2));
	ld_imm64(g, R0, (uint64_t)nb + 1);
	int d2 = emit(g, JA(0));

	ld_imm64(g, R1, (uint64_t)m->lmin);
	emit(g, ALU_REG(BPF_SUB, R0, R1));
	ld_imm64(g, R1, (uint64_t)m->lstep);
	emit(g, ALU_REG(BPF_DIV, R0, R1));
	emit(g, ALU_IMM(BPF_ADD, R0, 1));
	patch(g, d1);
	patch(g, d2);
}

static void gen_agg(struct gen *g, struct node *mapn, struct node *call)
{
	struct mapinfo *m = mapn->map;
	int mark = g->sp;
	int key = gen_key(g, mapn);
	int v = slot(g, 8, call->loc), init = slot(g, 16, call->loc);

	if (call->args)
		gen_int(g, call->args);
	else
		emit(g, MOV_IMM(R0, 1));
	emit(g, STX(BPF_DW, FP, R0, v));
	if (m->agg == AGG_HIST || m->agg == AGG_LHIST) {
		if (m->agg == AGG_HIST)
			log2_bucket(g);
		else
			lin_bucket(g, m);
		emit(g, STX(BPF_DW, FP, R0, key + (int)m->key_size - 8));
		emit(g, ST(BPF_DW, FP, v, 1));
	}
	/* what a new entry starts with */
	switch (m->agg) {
	case AGG_AVG: case AGG_STATS:
		emit(g, ST(BPF_DW, FP, init, 1));
		emit(g, LDX(BPF_DW, R1, FP, v));
		emit(g, STX(BPF_DW, FP, R1, init + 8));
		break;
	case AGG_MIN: case AGG_MAX:
		emit(g, LDX(BPF_DW, R1, FP, v));
		emit(g, STX(BPF_DW, FP, R1, init));
		emit(g, ST(BPF_DW, FP, init + 8, 1));
		break;
	default:
		emit(g, LDX(BPF_DW, R1, FP, v));
		emit(g, STX(BPF_DW, FP, R1, init));
		break;
	}
	lookup(g, m->index, key);
	int have = emit(g, JMP_IMM(BPF_JNE, R0, 0, 0));

	update(g, m->index, key, init, BPF_NOEXIST);
	int done1 = emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

	lookup(g, m->index, key);	/* another CPU created it first */
	int done2 = emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

	patch(g, have);
	emit(g, LDX(BPF_DW, R1, FP, v));
	switch (m->agg) {
	case AGG_AVG: case AGG_STATS:
		emit(g, MOV_IMM(R2, 1));
		emit(g, XADD(R0, R2, 0));
		emit(g, XADD(R0, R1, 8));
		break;
	case AGG_MIN: case AGG_MAX:
		emit(g, LDX(BPF_DW, R2, R0, 8));
		emit(g, JMP_IMM(BPF_JEQ, R2, 0, 2));
		emit(g, LDX(BPF_DW, R2, R0, 0));
		emit(g, JMP_REG(m->agg == AGG_MIN ? BPF_JSGE : BPF_JSLE, R1, R2, 2));
		emit(g, STX(BPF_DW, R0, R1, 0));
		emit(g, ST(BPF_DW, R0, 8, 1));
		break;
	default:	/* per-CPU value: no other CPU writes it */
		emit(g, XADD(R0, R1, 0));
		break;
	}
	patch(g, done1);
	patch(g, done2);
	g->sp = mark;
}

/* ---- records to user space ---- */
static void send(struct gen *g, int buf, int size)
{
	ld_map(g, R1, MAPREF_RINGBUF);
	fp_addr(g, R2, buf);
	emit(g, MOV_IMM(R3, size));
	emit(g, MOV_IMM(R4, 0));
	emit(g, CALL(BPF_FUNC_ringbuf_output));
	/* a full ring buffer loses the record: count it (a per-CPU array, key 0) */
	int ok = emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));
	int k = slot(g, 8, g->pr->loc);

	emit(g, ST(BPF_DW, FP, k, 0));
	lookup(g, MAPREF_LOST, k);
	emit(g, JMP_IMM(BPF_JEQ, R0, 0, 2));
	emit(g, MOV_IMM(R1, 1));
	emit(g, XADD(R0, R1, 0));
	g->sp -= 8;
	patch(g, ok);
}

static void record(struct gen *g, struct node *call, int kind, int arg)
{
	int mark = g->sp, buf = slot(g, 8, call->loc);

	emit(g, ST(BPF_W, FP, buf, kind));
	emit(g, ST(BPF_W, FP, buf + 4, arg));
	send(g, buf, 8);
	g->sp = mark;
}

static void site_record(struct gen *g, struct node *call, struct node *args)
{
	struct fmtsite *s = g->prog->sites[call->id - 1];
	int mark = g->sp, buf = slot(g, s->size, call->loc), at = 8, i = 0;

	emit(g, ST(BPF_W, FP, buf, s->kind));
	emit(g, ST(BPF_W, FP, buf + 4, call->id - 1));
	for (struct node *a = args; a && i < s->nargs; a = a->next, i++) {
		gen_to(g, a, buf + at, &s->args[i]);
		at += round8(s->args[i].size);
	}
	send(g, buf, s->size);
	g->sp = mark;
}

static int signo(struct node *a)
{
	static const struct { const char *n; int s; } sigs[] = {
		{ "SIGHUP", SIGHUP }, { "SIGINT", SIGINT }, { "SIGQUIT", SIGQUIT }, { "SIGILL", SIGILL },
		{ "SIGTRAP", SIGTRAP }, { "SIGABRT", SIGABRT }, { "SIGBUS", SIGBUS }, { "SIGFPE", SIGFPE },
		{ "SIGKILL", SIGKILL }, { "SIGUSR1", SIGUSR1 }, { "SIGSEGV", SIGSEGV }, { "SIGUSR2", SIGUSR2 },
		{ "SIGPIPE", SIGPIPE }, { "SIGALRM", SIGALRM }, { "SIGTERM", SIGTERM }, { "SIGCHLD", SIGCHLD },
		{ "SIGCONT", SIGCONT }, { "SIGSTOP", SIGSTOP }, { "SIGTSTP", SIGTSTP },
	};
	if (a->kind == N_INT)
		return (int)a->i;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!strcmp(a->s, sigs[i].n) || !strcmp(a->s, sigs[i].n + 3))
			return sigs[i].s;
	return -1;
}

static void gen_call_stmt(struct gen *g, struct node *n)
{
	struct node *a0 = n->args;

	switch (n->op) {
	case F_PRINTF: case F_CAT: case F_SYSTEM: case F_ERRORF:
		site_record(g, n, a0->next);
		return;
	case F_PRINT:
		if (a0->kind == N_MAP && a0->i < 0)
			record(g, n, REC_PRINT_MAP, n->id - 1);
		else
			site_record(g, n, a0);
		return;
	case F_TIME:
		record(g, n, REC_TIME, n->id - 1);
		return;
	case F_EXIT:
		record(g, n, REC_EXIT, 0);
		return;
	case F_JOIN: {
		/* the record is too big for the stack: build it in a per-CPU map value (r7) */
		int mark = g->sp, arr = slot(g, 8, n->loc), k = slot(g, 8, n->loc), tmp = slot(g, 8, n->loc);
		int *ends = NULL, nends = 0;

		gen_int(g, a0);
		emit(g, STX(BPF_DW, FP, R0, arr));
		emit(g, ST(BPF_DW, FP, k, 0));
		lookup(g, MAPREF_JOIN, k);
		int none = emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

		emit(g, MOV_REG(R7, R0));
		emit(g, ST(BPF_W, R7, 0, REC_JOIN));
		emit(g, ST(BPF_W, R7, 4, n->id - 1));
		for (int i = 0; i < JOIN_ARGS; i++)
			emit(g, ST(BPF_B, R7, 8 + JOIN_LEN * i, 0));
		for (int i = 0; i < JOIN_ARGS; i++) {
			fp_addr(g, R1, tmp);
			emit(g, MOV_IMM(R2, 8));
			emit(g, LDX(BPF_DW, R3, FP, arr));
			emit(g, ALU_IMM(BPF_ADD, R3, 8 * i));
			emit(g, CALL(BPF_FUNC_probe_read));
			push_fix(g, &ends, &nends, emit(g, JMP_IMM(BPF_JNE, R0, 0, 0)));
			emit(g, LDX(BPF_DW, R3, FP, tmp));
			push_fix(g, &ends, &nends, emit(g, JMP_IMM(BPF_JEQ, R3, 0, 0)));
			emit(g, MOV_REG(R1, R7));
			emit(g, ALU_IMM(BPF_ADD, R1, 8 + JOIN_LEN * i));
			emit(g, MOV_IMM(R2, JOIN_LEN));
			emit(g, CALL(BPF_FUNC_probe_read_str));
		}
		for (int i = 0; i < nends; i++)
			patch(g, ends[i]);
		free(ends);
		ld_map(g, R1, MAPREF_RINGBUF);
		emit(g, MOV_REG(R2, R7));
		emit(g, MOV_IMM(R3, 8 + JOIN_LEN * JOIN_ARGS));
		emit(g, MOV_IMM(R4, 0));
		emit(g, CALL(BPF_FUNC_ringbuf_output));
		patch(g, none);
		g->sp = mark;
		return;
	}
	case F_CLEAR: case F_ZERO:
		record(g, n, n->op == F_CLEAR ? REC_CLEAR : REC_ZERO, a0->map->index);
		return;
	case F_DELETE: {
		int mark = g->sp, key = gen_key(g, a0);

		ld_map(g, R1, a0->map->index);
		fp_addr(g, R2, key);
		emit(g, CALL(BPF_FUNC_map_delete_elem));
		g->sp = mark;
		return;
	}
	case F_SIGNAL: {
		int s = signo(a0);

		if (s <= 0 || s >= 64) {
			if (!g->fail)
				lang__error(g->prog, a0->loc, "unknown signal");
			g->fail = true;
			return;
		}
		emit(g, MOV_IMM(R1, s));
		emit(g, CALL(BPF_FUNC_send_signal));
		return;
	}
	default:
		if (n->ty.kind == TY_INT)
			gen_int(g, n);
		else if (n->ty.kind != TY_VOID) {
			int mark = g->sp, t = slot(g, n->ty.size, n->loc);

			gen_to(g, n, t, &n->ty);
			g->sp = mark;
		}
	}
}

/* ---- statements ---- */
static void gen_block(struct gen *g, struct node *b)
{
	if (b->kind != N_BLOCK) {
		gen_stmt(g, b);
		return;
	}
	for (struct node *s = b->args; s && !g->fail; s = s->next)
		gen_stmt(g, s);
}

static void var_store(struct gen *g, struct var *v, struct node *val)
{
	gen_to(g, val, v->slot, &v->ty);
}

static void loop_end(struct gen *g, struct loopctx *l, int cont_target)
{
	for (int i = 0; i < l->ncont; i++)
		g->c->insns[l->cont[i]].off = (int16_t)(cont_target - l->cont[i] - 1);
	for (int i = 0; i < l->nbrk; i++)
		patch(g, l->brk[i]);
	free(l->brk);
	free(l->cont);
	g->loop = l->outer;
}

static void gen_stmt(struct gen *g, struct node *s)
{
	int mark = g->sp;

	switch (s->kind) {
	case N_EXPR:
		if (s->l->kind == N_CALL)
			gen_call_stmt(g, s->l);
		else if (s->l->ty.kind == TY_INT)
			gen_int(g, s->l);
		break;
	case N_ASSIGN:
		if (s->l->kind == N_MAP) {
			if (s->r->kind == N_CALL && s->r->ty.kind == TY_AGG)
				gen_agg(g, s->l, s->r);
			else if (s->op == T_ASSIGN)
				map_store(g, s->l, s->r);
			else
				map_rmw(g, s->l, s->op, s->r, 0, false);
		} else if (s->op == T_ASSIGN) {
			var_store(g, s->l->var, s->r);
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
			emit(g, STX(BPF_DW, FP, R0, s->l->var->slot));
		}
		break;
	case N_LET:
		if (s->r) {
			struct var *v = NULL;

			for (struct var *x = g->pr->vars; x; x = x->next)
				if (!strcmp(x->name, s->s))
					v = x;
			if (v)
				var_store(g, v, s->r);
		}
		break;
	case N_IF: {
		gen_int(g, s->l);
		int j = emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

		gen_block(g, s->r);
		if (s->x) {
			int k = emit(g, JA(0));

			patch(g, j);
			gen_block(g, s->x);
			patch(g, k);
		} else {
			patch(g, j);
		}
		break;
	}
	case N_WHILE: {
		struct loopctx l = { .outer = g->loop };
		int top = g->c->n;

		gen_int(g, s->l);
		push_fix(g, &l.brk, &l.nbrk, emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0)));
		g->loop = &l;
		gen_block(g, s->r);
		emit(g, JA((int16_t)(top - g->c->n - 1)));
		loop_end(g, &l, top);
		break;
	}
	case N_FOR_RANGE: {
		struct loopctx l = { .outer = g->loop };
		int lim = slot(g, 8, s->loc);

		gen_int(g, s->x);
		emit(g, STX(BPF_DW, FP, R0, lim));
		gen_int(g, s->l);
		emit(g, STX(BPF_DW, FP, R0, s->var->slot));
		int top = g->c->n;

		emit(g, LDX(BPF_DW, R0, FP, s->var->slot));
		emit(g, LDX(BPF_DW, R1, FP, lim));
		push_fix(g, &l.brk, &l.nbrk, emit(g, JMP_REG(BPF_JSGE, R0, R1, 0)));
		g->loop = &l;
		gen_block(g, s->r);
		int cont = g->c->n;

		emit(g, LDX(BPF_DW, R0, FP, s->var->slot));
		emit(g, ALU_IMM(BPF_ADD, R0, 1));
		emit(g, STX(BPF_DW, FP, R0, s->var->slot));
		emit(g, JA((int16_t)(top - g->c->n - 1)));
		loop_end(g, &l, cont);
		break;
	}
	case N_UNROLL:
		for (long long i = 0; i < s->l->i && !g->fail; i++)
			gen_block(g, s->r);
		break;
	case N_BREAK:
		push_fix(g, &g->loop->brk, &g->loop->nbrk, emit(g, JA(0)));
		break;
	case N_CONTINUE:
		push_fix(g, &g->loop->cont, &g->loop->ncont, emit(g, JA(0)));
		break;
	case N_RETURN:
		push_fix(g, &g->ret, &g->nret, emit(g, JA(0)));
		break;
	case N_BLOCK:
		gen_block(g, s);
		break;
	default:
		unsupported(g, s, "this statement");
	}
	g->sp = mark;
}

int gen__probe(struct program *prog, struct probe *pr, struct ap_inst *in, const struct gen_env *env,
	       struct bpf_code *out)
{
	struct gen g = { .prog = prog, .pr = pr, .in = in, .env = env, .c = out };

	memset(out, 0, sizeof(*out));
	emit(&g, MOV_REG(R6, R1));
	if (in->sc_nr >= 0) {
		/* raw_syscalls:sys_enter/sys_exit: args[0] is the pt_regs, args[1] the number (or the return value) */
		if (in->sc_exit) {
			int t = slot(&g, 8, pr->loc);

			sc_regs_read(&g, 120, t);	/* orig_ax */
			emit(&g, LDX(BPF_DW, R1, FP, t));
		} else {
			emit(&g, LDX(BPF_DW, R1, R6, 8));
		}
		push_fix(&g, &g.ret, &g.nret, emit(&g, JMP_IMM(BPF_JNE, R1, in->sc_nr, 0)));
	}
	/* scratch variables: a zeroed slot each, for the whole program */
	for (struct var *v = pr->vars; v; v = v->next) {
		v->slot = slot(&g, v->ty.size ? v->ty.size : 8, pr->loc);
		zero(&g, v->slot, round8(v->ty.size ? v->ty.size : 8));
	}
	if (pr->pred) {
		gen_int(&g, pr->pred);
		push_fix(&g, &g.ret, &g.nret, emit(&g, JMP_IMM(BPF_JEQ, R0, 0, 0)));
	}
	gen_block(&g, pr->body);
	for (int i = 0; i < g.nret; i++)
		patch(&g, g.ret[i]);
	free(g.ret);
	emit(&g, MOV_IMM(R0, 0));
	emit(&g, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	out->stack = g.maxsp;
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
	memset(c, 0, sizeof(*c));
}
