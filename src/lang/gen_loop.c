// SPDX-License-Identifier: GPL-2.0
/*
 * gen_loop.c - for ($kv : @map) { body }: a call of bpf_for_each_map_elem()
 * (kernel 5.13+) whose callback is the body, generated as a BPF subprogram
 * and placed after the main program. break returns 1 (the helper stops),
 * continue and the end of the body return 0; return sets a flag and returns
 * 1, and each caller that sees the flag returns in turn.
 *
 * r6, the probe's context, is kept in a 16-byte slot of the main frame with
 * that flag; the callback's ctx argument points to it (kept in r8, passed on
 * by nested loops) so args, kstack and the rest work in the body too.
 *
 * Variables: one used only in the probe, or only in one loop body, lives on
 * that function's stack, as usual; one of the probe's that bodies only read
 * stays there too, and callbacks read it through r8. One written in a body
 * and used around it (the type checker marks it shared) lives in a per-CPU
 * array's value (one per attach point), which the main program and each
 * callback look up into r9 at their start. Not the main program's stack,
 * through a pointer: the verifier checks a callback as a loop until its
 * states repeat, and a counter on the stack (`$n++; if ($n == 10) { break; }`)
 * is a new state at every pass, while a value read from a map is just "some
 * number". The price: a while loop or a range around the body cannot count
 * with such a variable (the verifier cannot see it end).
 *
 * for ($i : a..b) whose bounds the verifier could not see end (a map's value)
 * is a bpf_loop() (5.17+) of b - a steps over a callback made the same way:
 * $i is a + the step's index, a kept in the main frame beside the context.
 *
 * A per-CPU map (count, sum, avg, min, max) hands the callback only this CPU's
 * value: the callback reads every CPU's with bpf_map_lookup_percpu_elem()
 * (5.19+) and reduces them the way `print` does.
 */
#include "lang/gen_int.h"
#include "lang/sortloop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef BPF_FUNC_map_lookup_percpu_elem
#define BPF_FUNC_map_lookup_percpu_elem 195
#endif
#ifndef BPF_FUNC_loop
#define BPF_FUNC_loop 181
#endif
#define LOOP_MAX (1 << 23)	/* bpf_loop()'s most iterations */

struct gfix {
	struct bpf_code *owner;	/* the code holding the LD_IMM64 */
	int insn;
	int target;		/* index in subs */
};

struct gsubs {
	struct bpf_code **code;
	int *parent;		/* the sub whose body holds this loop, -1 for the main program */
	struct loc *loc;
	int n;
	struct gfix *fix;
	int nfix;
};

/* the register a variable is addressed from: its own frame, the shared map value, or the main frame */
int g_vbase(const struct gen *g, const struct var *v)
{
	if (v->shared)
		return R9;
	return g->cb && !v->home ? R8 : FP;
}

/* its offset from there */
int g_voff(const struct gen *g, const struct var *v)
{
	return !v->shared && g->cb && !v->home ? v->slot - g->ctxslot : v->slot;
}

/*
 * This program's key in its per-program maps (MAPREF_VARS, MAPREF_STRS): its
 * attach point's number among all the program's. One value per program, not
 * per probe: programs of one probe may nest on a CPU (a perf event's
 * interrupting a raw tracepoint's); the kernel does not let a program nest in
 * itself.
 */
int g_inst_key(const struct gen *g)
{
	int k = 0;

	for (const struct probe *pr = g->prog->probes; pr; pr = pr->next)
		for (const struct ap_inst *in = pr->inst; in; in = in->next, k++)
			if (in == g->in)
				return k;
	return 0;
}

/* r9 = this program's value of MAPREF_VARS; returns with r0 = ret when there is none */
static void g_vars_lookup(struct gen *g, int ret)
{
	int mark = g->sp, key = g_slot(g, 8, g->pr->loc);

	g_emit(g, ST(BPF_DW, FP, key, g_inst_key(g)));
	g_lookup(g, MAPREF_VARS, key);
	g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 2));
	g_emit(g, MOV_IMM(R0, ret));
	g_emit(g, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	g_emit(g, MOV_REG(R9, R0));
	g->sp = mark;
}

/* the main program's start: lay out the shared variables, point r9 at them, zero them */
void g_shared_vars(struct gen *g)
{
	int off = 0;

	for (struct var *v = g->pr->vars; v; v = v->next)
		if (v->shared) {
			v->slot = off;
			off += g_round8(v->ty.size ? v->ty.size : 8);
		}
	g->vars_size = g->c->vars_size = off;
	if (!off)
		return;
	g_vars_lookup(g, 0);
	for (int i = 0; i < off; i += 8)
		g_emit(g, ST(BPF_DW, R9, i, 0));
}

/* copy n bytes (a multiple of 8) from [sreg+soff] to [dreg+doff], through r1 */
void g_copy_regs(struct gen *g, int dreg, int doff, int sreg, int soff, int n)
{
	for (int i = 0; i < n; i += 8) {
		g_emit(g, LDX(BPF_DW, R1, sreg, soff + i));
		g_emit(g, STX(BPF_DW, dreg, R1, doff + i));
	}
}

/*
 * Where a tuple-typed expression's bytes are: *reg = the base register, the
 * offset returned. Variables are read in place (in the main frame from a
 * callback), fields of tuples ($kv.0.1) add their offsets; anything else is
 * evaluated into a fresh slot.
 */
const struct type *g_src_type(const struct node *t)
{
	if (t->kind == N_VAR && t->var)
		return &t->var->ty;
	if (t->kind == N_FIELD && t->l->ty.kind == TY_TUPLE) {
		const struct type *l = g_src_type(t->l);

		if (l->kind == TY_TUPLE && t->id < l->ntup)
			return &l->tup[t->id];
	}
	return &t->ty;
}

int g_tuple_src(struct gen *g, struct node *t, int *reg)
{
	if (t->kind == N_VAR) {
		*reg = g_vbase(g, t->var);
		return g_voff(g, t->var);
	}
	if (t->kind == N_FIELD && t->l->ty.kind == TY_TUPLE) {
		int base = g_tuple_src(g, t->l, reg);

		return base + g_tuple_off(g_src_type(t->l), t->id);
	}
	int off = g_slot(g, t->ty.size, t->loc);

	gen_to(g, t, off, &t->ty);
	*reg = FP;
	return off;
}

/* the key of @m[t], t a tuple of all its keys: field by field, each at the key's offset and size */
void g_tuple_key(struct gen *g, struct node *mapn, int off)
{
	const struct mapinfo *m = mapn->map;
	const struct type *t = &mapn->args->ty;
	int reg, base = g_tuple_src(g, mapn->args, &reg), at = 0;

	for (int i = 0; i < t->ntup && i < m->key.ntup; i++) {
		int ks = g_round8(m->key.tup[i].size), ts = g_round8(t->tup[i].size), n = ks < ts ? ks : ts;

		g_copy(g, off + at, reg, base + g_tuple_off(t, i), n);
		if (n < ks)
			g_zero(g, off + at + n, ks - n);
		at += ks;
	}
}

int g_subs_add(struct gen *g, struct bpf_code *code, struct loc loc)
{
	struct gsubs *s = g->subs;
	struct bpf_code **c = realloc(s->code, (s->n + 1) * sizeof(*c));

	if (c)
		s->code = c;
	int *p = realloc(s->parent, (s->n + 1) * sizeof(*p));

	if (p)
		s->parent = p;
	struct loc *l = realloc(s->loc, (s->n + 1) * sizeof(*l));

	if (l)
		s->loc = l;
	if (!c || !p || !l) {
		g->fail = true;
		return -1;
	}
	int parent = -1;

	for (int i = 0; i < s->n; i++)
		if (s->code[i] == g->c)
			parent = i;
	s->code[s->n] = code;
	s->parent[s->n] = parent;
	s->loc[s->n] = loc;
	return s->n++;
}

int g_subs_new(struct gen *g, struct loc loc, struct bpf_code **out)
{
	struct bpf_code *code = calloc(1, sizeof(*code));
	int sub;

	if (!code) {
		g->fail = true;
		return -1;
	}
	sub = g_subs_add(g, code, loc);
	if (sub < 0) {
		free(code);
		return -1;
	}
	*out = code;
	return sub;
}

/* the list of callbacks, made on first use: 0 or -1 (g->fail) */
int g_subs_init(struct gen *g)
{
	if (!g->subs && !(g->subs = calloc(1, sizeof(*g->subs))))
		g->fail = true;
	return g->subs ? 0 : -1;
}

/* r2 = the address of subprogram `target` (an LD_IMM64 with src_reg BPF_PSEUDO_FUNC, resolved at link) */
void g_ld_func(struct gen *g, int reg, int target)
{
	struct gsubs *s = g->subs;
	struct gfix *f = realloc(s->fix, (s->nfix + 1) * sizeof(*f));

	if (!f) {
		g->fail = true;
		return;
	}
	s->fix = f;
	s->fix[s->nfix++] = (struct gfix){ .owner = g->c, .insn = g->c->n, .target = target };
	g_emit(g, INSN(BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_FUNC, 0, 0));
	g_emit(g, INSN(0, 0, 0, 0, 0));
}

/* r0 = the value of a per-CPU aggregation for the key at r7, over all CPUs */
void g_percpu_value(struct gen *g, const struct mapinfo *m, struct loc loc)
{
	int ncpu = g->env->possible_cpus > 0 ? g->env->possible_cpus : g->env->ncpus > 0 ? g->env->ncpus : 1;
	int mark = g->sp, acc = g_slot(g, 16, loc);	/* sum or min/max; count or "set" */

	g_zero(g, acc, 16);
	for (int cpu = 0; cpu < ncpu && !g->fail; cpu++) {
		g_ld_map(g, R1, m->index);
		g_emit(g, MOV_REG(R2, R7));
		g_emit(g, MOV_IMM(R3, cpu));
		g_emit(g, CALL(BPF_FUNC_map_lookup_percpu_elem));
		int none = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

		switch (m->agg) {
		case AGG_AVG:	/* {count, total} */
			for (int k = 0; k < 16; k += 8) {
				g_emit(g, LDX(BPF_DW, R1, R0, k));
				g_emit(g, LDX(BPF_DW, R2, FP, acc + k));
				g_emit(g, ALU_REG(BPF_ADD, R2, R1));
				g_emit(g, STX(BPF_DW, FP, R2, acc + k));
			}
			break;
		case AGG_MIN: case AGG_MAX: {	/* {value, set} */
			g_emit(g, LDX(BPF_DW, R1, R0, 8));
			int unset = g_emit(g, JMP_IMM(BPF_JEQ, R1, 0, 0));

			g_emit(g, LDX(BPF_DW, R1, R0, 0));
			g_emit(g, LDX(BPF_DW, R2, FP, acc + 8));
			int first = g_emit(g, JMP_IMM(BPF_JEQ, R2, 0, 0));

			g_emit(g, LDX(BPF_DW, R2, FP, acc));
			int keep = g_emit(g, JMP_REG(m->agg == AGG_MIN ? BPF_JSGE : BPF_JSLE, R1, R2, 0));

			g_patch(g, first);
			g_emit(g, STX(BPF_DW, FP, R1, acc));
			g_emit(g, ST(BPF_DW, FP, acc + 8, 1));
			g_patch(g, unset);
			g_patch(g, keep);
			break;
		}
		default:	/* count, sum */
			g_emit(g, LDX(BPF_DW, R1, R0, 0));
			g_emit(g, LDX(BPF_DW, R2, FP, acc));
			g_emit(g, ALU_REG(BPF_ADD, R2, R1));
			g_emit(g, STX(BPF_DW, FP, R2, acc));
		}
		g_patch(g, none);
	}
	if (m->agg == AGG_AVG) {
		/* total / count, rounded toward zero like C's (and print's) division; 0 without entries */
		g_emit(g, LDX(BPF_DW, R1, FP, acc));
		g_emit(g, LDX(BPF_DW, R0, FP, acc + 8));
		g_emit(g, JMP_IMM(BPF_JNE, R1, 0, 2));
		g_emit(g, MOV_IMM(R0, 0));
		int done = g_emit(g, JA(0));
		int neg = g_emit(g, JMP_IMM(BPF_JSLT, R0, 0, 0));

		g_emit(g, ALU_REG(BPF_DIV, R0, R1));
		int done2 = g_emit(g, JA(0));

		g_patch(g, neg);
		g_emit(g, ALU_IMM(BPF_NEG, R0, 0));
		g_emit(g, ALU_REG(BPF_DIV, R0, R1));
		g_emit(g, ALU_IMM(BPF_NEG, R0, 0));
		g_patch(g, done);
		g_patch(g, done2);
	} else {
		g_emit(g, LDX(BPF_DW, R0, FP, acc));
	}
	g->sp = mark;
}

/* can the end of the code be reached: by falling off its last instruction, or by a jump? */
static bool in_list(const int *a, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (a[i] == x)
			return true;
	return false;
}

static bool end_reached(const struct bpf_code *c, const struct loopctx *l, const int *ret, int nret)
{
	if (!c->n)
		return true;
	const struct bpf_insn *last = &c->insns[c->n - 1];

	if (last->code != (BPF_JMP | BPF_JA) && last->code != (BPF_JMP | BPF_EXIT))
		return true;
	for (int i = 0; i < c->n; i++) {
		int cls = BPF_CLASS(c->insns[i].code), op = BPF_OP(c->insns[i].code);

		/* breaks and returns are not patched yet */
		bool brk = in_list(l->brk, l->nbrk, i) || in_list(ret, nret, i);

		if ((cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT && !brk &&
		    i + c->insns[i].off + 1 == c->n)
			return true;
	}
	return false;
}

/* does a loop body hold a return (its own or a nested loop's)? */
static bool has_return(const struct node *s)
{
	if (!s)
		return false;
	switch (s->kind) {
	case N_RETURN:
		return true;
	case N_EXPR:	/* exit() ends the probe as return does */
		return s->l->kind == N_CALL && s->l->s && !strcmp(s->l->s, "exit");
	case N_BLOCK:
		for (const struct node *x = s->args; x; x = x->next)
			if (has_return(x))
				return true;
		return false;
	case N_IF:
		return has_return(s->r) || has_return(s->x);
	case N_WHILE: case N_FOR_RANGE: case N_FOR_MAP: case N_UNROLL:
		return has_return(s->r);
	default:
		return false;
	}
}

/* a callback's body and its ends: continue returns 0, break 1, return sets the flag after the context and returns 1 */
static void callback_body(struct gen *g, struct gen *cg, struct node *s, struct bpf_code *code)
{
	struct loopctx l = { 0 };

	cg->loop = &l;
	gen_block(cg, s->r);
	int cont = cg->c->n;

	if (l.ncont || end_reached(cg->c, &l, cg->ret, cg->nret)) {	/* the verifier refuses unreachable code */
		g_emit(cg, MOV_IMM(R0, 0));
		g_emit(cg, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	}
	bool brk = l.nbrk > 0;

	g_loop_end(cg, &l, cont);	/* break lands here */
	if (brk) {
		g_emit(cg, MOV_IMM(R0, 1));
		g_emit(cg, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	}
	if (cg->nret) {	/* return: tell the caller (the flag after the context), stop */
		for (int i = 0; i < cg->nret; i++)
			g_patch(cg, cg->ret[i]);
		g_emit(cg, ST(BPF_DW, R8, 8, 1));
		g_emit(cg, MOV_IMM(R0, 1));
		g_emit(cg, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	}
	free(cg->ret);
	code->stack = cg->maxsp;
	if (cg->fail)
		g->fail = true;
}

/* a loop body's own variables (home: its id) get slots in its callback, zeroed at each pass but skip (the loop's) */
static void body_vars(struct gen *cg, struct probe *pr, int id, const struct var *skip, struct loc loc)
{
	for (struct var *v = pr->vars; v; v = v->next)
		if (v->home == id && !v->shared) {
			v->slot = g_slot(cg, v->ty.size ? v->ty.size : 8, loc);
			if (v != skip)
				g_zero(cg, v->slot, g_round8(v->ty.size ? v->ty.size : 8));
		}
}
/* the callback: r1 = map, r2 = key, r3 = value, r4 = the context's slot in the main frame, then a
 * flag the callback sets on return */
static void gen_callback(struct gen *g, struct node *s, struct bpf_code *code)
{
	struct gen cg = { .prog = g->prog, .pr = g->pr, .in = g->in, .env = g->env, .c = code,
			  .cb = true, .ctxslot = g->ctxslot, .vars_size = g->vars_size, .subs = g->subs };
	struct mapinfo *m = s->l->map;
	struct var *kv = s->var;
	const struct type *kt = &kv->ty.tup[0], *vt = &kv->ty.tup[1];
	int ksz = g_round8(kt->size), vsz = g_round8(vt->size);
	int kcopy = ksz < (int)m->key_size ? ksz : (int)m->key_size;
	int vcopy = vsz < (int)m->value_size ? vsz : (int)m->value_size;

	g_emit(&cg, MOV_REG(R8, R4));
	g_emit(&cg, LDX(BPF_DW, R6, R8, 0));
	g_emit(&cg, MOV_REG(R7, R2));	/* the key and the value, across the lookup */
	g_emit(&cg, STX(BPF_DW, FP, R3, -8));
	cg.sp = cg.maxsp = 8;
	if (cg.vars_size)
		g_vars_lookup(&cg, 1);
	/* the body's own variables, $kv among them unless a nested loop reads it: new at each pass */
	body_vars(&cg, g->pr, s->id, kv, s->loc);
	/* $kv = (key, value) */
	int b = g_vbase(&cg, kv);

	g_copy_regs(&cg, b, kv->slot, R7, 0, kcopy);
	for (int i = kcopy; i < ksz; i += 8)
		g_emit(&cg, ST(BPF_DW, b, kv->slot + i, 0));
	if (m->percpu) {
		g_percpu_value(&cg, m, s->loc);
		g_emit(&cg, STX(BPF_DW, b, R0, kv->slot + ksz));
	} else {
		g_emit(&cg, LDX(BPF_DW, R3, FP, -8));
		g_copy_regs(&cg, b, kv->slot + ksz, R3, 0, vcopy);
		for (int i = vcopy; i < vsz; i += 8)
			g_emit(&cg, ST(BPF_DW, b, kv->slot + ksz + i, 0));
	}
	if (s->x)
		sortloop__gen_row(&cg, s);
	callback_body(g, &cg, s, code);
}

void gen_for_map(struct gen *g, struct node *s)
{
	struct mapinfo *m = s->l->map;
	int mark = g->sp;

	if (!s->var || !m) {
		g_unsupported(g, s, "this for loop");
		return;
	}
	if (!g->subs) {
		g->subs = calloc(1, sizeof(*g->subs));
		if (!g->subs) {
			g->fail = true;
			return;
		}
	}
	int ctxslot = 0;

	if (!g->cb) {	/* the context, for the callback to find, and the flag of return */
		ctxslot = g->ctxslot = g_slot(g, 16, s->loc);
		g_emit(g, STX(BPF_DW, FP, R6, ctxslot));
		g_emit(g, ST(BPF_DW, FP, ctxslot + 8, 0));
	}
	struct bpf_code *code;
	int sub = g_subs_new(g, s->loc, &code);

	if (sub < 0)
		return;
	gen_callback(g, s, code);
	if (s->x)
		sortloop__gen_begin(g, s);
	g_ld_map(g, R1, m->index);
	g_ld_func(g, R2, sub);
	if (g->cb) {
		g_emit(g, MOV_REG(R3, R8));
	} else {
		g_fp_addr(g, R3, ctxslot);
	}
	g_emit(g, MOV_IMM(R4, 0));
	g_emit(g, CALL(BPF_FUNC_for_each_map_elem));
	if (s->x)
		sortloop__gen_end(g, s);
	if (has_return(s->r)) {	/* the body returned: so does this function */
		g_emit(g, LDX(BPF_DW, R1, g->cb ? R8 : FP, g->cb ? 8 : ctxslot + 8));
		g_push_fix(g, &g->ret, &g->nret, g_emit(g, JMP_IMM(BPF_JNE, R1, 0, 0)));
	}
	g->sp = mark;
}

/* the range's callback: r1 = the step's index, r2 = the context's slot in the main frame (then the flag,
 * then a); $i = a + index */
static void gen_range_callback(struct gen *g, struct node *s, struct bpf_code *code, int startslot)
{
	struct gen cg = { .prog = g->prog, .pr = g->pr, .in = g->in, .env = g->env, .c = code,
			  .cb = true, .ctxslot = g->ctxslot, .vars_size = g->vars_size, .subs = g->subs };
	struct var *iv = s->var;

	g_emit(&cg, MOV_REG(R8, R2));
	g_emit(&cg, LDX(BPF_DW, R6, R8, 0));
	g_emit(&cg, MOV_REG(R7, R1));	/* the index, across the lookup */
	if (cg.vars_size)
		g_vars_lookup(&cg, 1);
	body_vars(&cg, g->pr, s->id, iv, s->loc);
	g_emit(&cg, LDX(BPF_DW, R0, R8, startslot - g->ctxslot));
	g_emit(&cg, ALU_REG(BPF_ADD, R0, R7));
	g_emit(&cg, STX(BPF_DW, g_vbase(&cg, iv), R0, g_voff(&cg, iv)));
	callback_body(g, &cg, s, code);
}

void gen_for_range(struct gen *g, struct node *s)
{
	int mark = g->sp;

	if (!s->var || g->cb || g_subs_init(g)) {	/* check.c makes one only in a probe's own code */
		g_unsupported(g, s, "this for loop");
		return;
	}
	int ctxslot = g->ctxslot = g_slot(g, 16, s->loc), startslot = g_slot(g, 8, s->loc);
	struct bpf_code *code;

	g_emit(g, STX(BPF_DW, FP, R6, ctxslot));	/* the context, for the callback to find, and the flag of return */
	g_emit(g, ST(BPF_DW, FP, ctxslot + 8, 0));
	int sub = g_subs_new(g, s->loc, &code);

	if (sub < 0)
		return;
	gen_range_callback(g, s, code, startslot);
	gen_int(g, s->l);
	g_emit(g, STX(BPF_DW, FP, R0, startslot));
	gen_int(g, s->x);
	g_emit(g, LDX(BPF_DW, R1, FP, startslot));
	g_emit(g, ALU_REG(BPF_SUB, R0, R1));	/* the steps: none when b <= a, at most bpf_loop's */
	int none = g_emit(g, JMP_IMM(BPF_JSLE, R0, 0, 0));

	g_emit(g, JMP_IMM(BPF_JLE, R0, LOOP_MAX, 1));
	g_emit(g, MOV_IMM(R0, LOOP_MAX));
	g_emit(g, MOV_REG(R1, R0));
	g_ld_func(g, R2, sub);
	g_fp_addr(g, R3, ctxslot);
	g_emit(g, MOV_IMM(R4, 0));
	g_emit(g, CALL(BPF_FUNC_loop));
	g_patch(g, none);
	if (has_return(s->r)) {	/* the body returned: so does the probe */
		g_emit(g, LDX(BPF_DW, R1, FP, ctxslot + 8));
		g_push_fix(g, &g->ret, &g->nret, g_emit(g, JMP_IMM(BPF_JNE, R1, 0, 0)));
	}
	g->sp = mark;
}

static int round32(int n)
{
	return (n + 31) & ~31;
}

/* append the callbacks to the main program, resolve their addresses; frees g->subs */
int g_subs_link(struct gen *g)
{
	struct gsubs *s = g->subs;
	struct bpf_code *out = g->c;
	int rc = 0, *start = calloc(s->n + 1, sizeof(int));

	if (!start || (s->n && !(out->subs = calloc(s->n, sizeof(int)))))
		rc = -ENOMEM;
	/* the verifier adds up the stack of the frames of a call chain: at most 512 bytes */
	for (int i = 0; i < s->n && !rc && !g->fail; i++) {
		int depth = round32(s->code[i]->stack);

		for (int p = s->parent[i]; p >= 0; p = s->parent[p])
			depth += round32(s->code[p]->stack);
		depth += round32(out->stack);
		if (depth > STACK_MAX) {
			lang__error(g->prog, s->loc[i], "this for loop's body and the code around it need %d bytes of BPF "
				    "stack together, more than %d (strings are %d bytes: config = { max_strlen = N } makes "
				    "them smaller)", depth, STACK_MAX, g->prog->cfg.max_strlen);
			rc = -EINVAL;
		}
	}
	for (int i = 0; i < s->n && !rc; i++) {
		struct bpf_code *c = s->code[i];
		int at = out->n;

		start[i] = at;
		out->subs[out->nsubs++] = at;
		for (int k = 0; k < c->n && !g->fail; k++)
			g_emit(g, c->insns[k]);
		struct bpf_reloc *r = realloc(out->rel, (out->nrel + c->nrel + 1) * sizeof(*r));

		if (r)
			out->rel = r;
		if (!r || g->fail) {
			rc = -ENOMEM;
			break;
		}
		for (int k = 0; k < c->nrel; k++) {
			out->rel[out->nrel] = c->rel[k];
			out->rel[out->nrel++].insn += at;
		}
	}
	for (int i = 0; i < s->nfix && !rc; i++) {
		struct gfix *f = &s->fix[i];
		int base = 0;

		for (int k = 0; k < s->n; k++)
			if (s->code[k] == f->owner)
				base = start[k];
		/* imm: the target's index relative to the instruction after the LD_IMM64's first half */
		out->insns[base + f->insn].imm = start[f->target] - (base + f->insn) - 1;
	}
	for (int i = 0; i < s->n; i++) {
		bpf_code__free(s->code[i]);
		free(s->code[i]);
	}
	free(s->code);
	free(s->parent);
	free(s->loc);
	free(s->fix);
	free(s);
	free(start);
	g->subs = NULL;
	return rc;
}
