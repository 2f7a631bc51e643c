// SPDX-License-Identifier: GPL-2.0
/*
 * gen_map.c - BPF for find(@m, k, $v), len() of a stack, the tseries()
 * aggregation (check_map.c has their type rules, output_tseries.c prints
 * tseries maps) and delete() of maps whose key has a hidden part.
 */
#include "lang/gen_int.h"

#include <stdlib.h>
#include <string.h>

#ifndef BPF_F_USER_STACK
#define BPF_F_USER_STACK (1ULL << 8)
#endif

/* find(@m[k], $v): r0 = 1 and $v = the value when the key is there, else r0 = 0 and $v untouched */
void gen_find(struct gen *g, struct node *n)
{
	struct node *mapn = n->args;
	struct mapinfo *m = mapn->map;
	struct var *v = n->x->var;
	int mark = g->sp, key = gen_key(g, mapn);
	int base = g_vbase(g, v), off = g_voff(g, v), vsz = g_round8(v->ty.size ? v->ty.size : 8);

	g_lookup(g, m->index, key);
	int have = g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 0));

	g_emit(g, MOV_IMM(R0, 0));
	int done = g_emit(g, JA(0));

	g_patch(g, have);
	if (m->percpu) {	/* count, sum, avg, min, max: the value over all CPUs */
		g_fp_addr(g, R7, key);
		g_percpu_value(g, m, n->loc);
		g_emit(g, STX(BPF_DW, base, R0, off));
	} else {
		int copy = vsz < (int)m->value_size ? vsz : (int)m->value_size;

		g_copy_regs(g, base, off, R0, 0, copy);
		for (int i = copy; i < vsz; i += 8)
			g_emit(g, ST(BPF_DW, base, off + i, 0));
	}
	g_emit(g, MOV_IMM(R0, 1));
	g_patch(g, done);
	g->sp = mark;
}

/* r0 = the frames of the stack here (at most limit): bpf_get_stack() into the per-CPU join buffer */
static void g_cur_depth(struct gen *g, bool user, int limit)
{
	int mark = g->sp, k = g_slot(g, 8, (struct loc){ 0 });

	g_emit(g, ST(BPF_DW, FP, k, 0));
	g_lookup(g, MAPREF_JOIN, k);
	int none = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

	g_emit(g, MOV_REG(R2, R0));
	g_emit(g, MOV_REG(R1, R6));
	g_emit(g, MOV_IMM(R3, limit * 8));
	g_emit(g, MOV_IMM(R4, user ? (int)BPF_F_USER_STACK : g_kstack_skip(g)));
	g_emit(g, CALL(BPF_FUNC_get_stack));
	g_patch(g, none);	/* r0: bytes copied; 0 (no buffer) or negative (failed): no frames */
	g_emit(g, JMP_IMM(BPF_JSGT, R0, 0, 1));
	g_emit(g, MOV_IMM(R0, 0));
	g_emit(g, ALU_IMM(BPF_RSH, R0, 3));
	g->sp = mark;
}

static int g_depth_limit(struct gen *g, const struct type *t)
{
	int lim = g->prog->cfg.stack_depth > 0 && g->prog->cfg.stack_depth < 127 ? g->prog->cfg.stack_depth : 127;

	return t->bits && t->bits < lim ? t->bits : lim;
}

/*
 * After bpf_get_stackid() (r0 = the id, or < 0): a stack value's word
 * becomes id | depth << 32 when the program takes len() of stored stacks;
 * the user-space side looks stacks up by the low 32 bits only.
 */
void g_stack_depth_tag(struct gen *g, bool user)
{
	int mark = g->sp, id = g_slot(g, 8, (struct loc){ 0 });
	struct type t = { 0 };

	int bad = g_emit(g, JMP_IMM(BPF_JSLT, R0, 0, 0));

	g_emit(g, STX(BPF_DW, FP, R0, id));
	g_cur_depth(g, user, g_depth_limit(g, &t));
	g_emit(g, ALU_IMM(BPF_LSH, R0, 32));
	g_emit(g, LDX(BPF_DW, R1, FP, id));
	g_emit(g, ALU_REG(BPF_OR, R0, R1));
	g_patch(g, bad);
	g->sp = mark;
}

/* len(kstack), len(ustack(perf, 5)): taken here; len($s), len(@s[k]): the depth the value carries */
void gen_stack_len(struct gen *g, struct node *n)
{
	struct node *a = n->args;
	bool user = a->ty.kind == TY_USTACK;
	int lim = g_depth_limit(g, &a->ty);

	if (n->id == 1) {
		g_cur_depth(g, user, lim);
		return;
	}
	if (a->kind == N_VAR) {
		g_emit(g, LDX(BPF_DW, R0, g_vbase(g, a->var), g_voff(g, a->var)));
	} else if (a->kind == N_MAP) {
		int mark = g->sp, key = gen_key(g, a);

		g_lookup(g, a->map->index, key);
		g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 1));
		g_emit(g, LDX(BPF_DW, R0, R0, 0));
		g->sp = mark;
	} else {
		g_unsupported(g, a, "len() of this stack expression");
		return;
	}
	g_emit(g, ALU_IMM(BPF_ARSH, R0, 32));	/* a failed stack's negative id: no frames */
	g_emit(g, JMP_IMM(BPF_JSGE, R0, 0, 1));
	g_emit(g, MOV_IMM(R0, 0));
	g_emit(g, JMP_IMM(BPF_JSLE, R0, lim, 1));
	g_emit(g, MOV_IMM(R0, lim));
}

/*
 * @m[k] = tseries(v, interval, count, agg): epoch = CLOCK_TAI ns / interval
 * (TAI is UTC plus whole seconds: intervals start on the wall clock's
 * boundaries); the entry is @m's key plus the slot epoch % count, its per-CPU
 * value { epoch, value, aux }. A slot holding another epoch, or none (aux 0),
 * starts over; else the value is kept by the mode. Per-CPU, so updates
 * from several CPUs are never lost; output_tseries.c merges the CPUs.
 */
/* config dummy_ts_map: the scalar map tseries() reads its time from (bpftrace's tests), or NULL */
static const struct mapinfo *tseries_clock(struct gen *g)
{
	const char *name = g->prog->cfg.dummy_ts_map;

	for (const struct mapinfo *m = g->prog->maps; name && m; m = m->next)
		if (!strcmp(m->name, name) && m->nkeys == 0 && m->agg == AGG_NONE)
			return m;
	return NULL;
}

void gen_tseries(struct gen *g, struct node *mapn, struct node *call)
{
	struct mapinfo *m = mapn->map;
	int mark = g->sp, key = gen_key(g, mapn);
	int v = g_slot(g, 8, call->loc), now = g_slot(g, 8, call->loc), init = g_slot(g, 24, call->loc);
	int *done = NULL, ndone = 0;

	gen_int(g, call->args);
	g_emit(g, STX(BPF_DW, FP, R0, v));
	const struct mapinfo *clk = tseries_clock(g);

	if (clk) {	/* dummy_ts_map: the time is that map's value (0 while it has none) */
		g_emit(g, ST(BPF_DW, FP, now, 0));
		g_lookup(g, clk->index, now);
		g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 1));
		g_emit(g, LDX(BPF_DW, R0, R0, 0));
	} else {
		g_emit(g, CALL(BPF_FUNC_ktime_get_tai_ns));
	}
	g_emit(g, STX(BPF_DW, FP, R0, now));
	g_ld_imm64(g, R1, (uint64_t)m->ts_interval);
	g_emit(g, ALU_REG(BPF_DIV, R0, R1));
	g_emit(g, STX(BPF_DW, FP, R0, init));		/* epoch */
	g_ld_imm64(g, R1, (uint64_t)m->ts_count);
	g_emit(g, ALU_REG(BPF_MOD, R0, R1));
	g_emit(g, STX(BPF_DW, FP, R0, key + (int)m->key_size - 8));
	g_emit(g, LDX(BPF_DW, R1, FP, v));
	g_emit(g, STX(BPF_DW, FP, R1, init + 8));	/* value */
	if (m->ts_mode == TS_LAST) {
		g_emit(g, LDX(BPF_DW, R1, FP, now));
		g_emit(g, STX(BPF_DW, FP, R1, init + 16));	/* aux: when */
	} else {
		g_emit(g, ST(BPF_DW, FP, init + 16, 1));	/* aux: how many */
	}
	g_lookup(g, m->index, key);
	int have = g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 0));

	g_update(g, m->index, key, init, BPF_NOEXIST);
	g_push_fix(g, &done, &ndone, g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0)));
	g_lookup(g, m->index, key);	/* another CPU made the entry first: this CPU's part of it is zeros */
	g_push_fix(g, &done, &ndone, g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0)));
	g_patch(g, have);
	/* another interval's slot, or an empty one: start over */
	g_emit(g, LDX(BPF_DW, R1, R0, 16));
	int empty = g_emit(g, JMP_IMM(BPF_JEQ, R1, 0, 0));

	g_emit(g, LDX(BPF_DW, R1, R0, 0));
	g_emit(g, LDX(BPF_DW, R2, FP, init));
	int other = g_emit(g, JMP_REG(BPF_JNE, R1, R2, 0));

	g_emit(g, LDX(BPF_DW, R1, FP, v));
	switch (m->ts_mode) {
	case TS_LAST:
		g_emit(g, STX(BPF_DW, R0, R1, 8));
		g_emit(g, LDX(BPF_DW, R2, FP, now));
		g_emit(g, STX(BPF_DW, R0, R2, 16));
		break;
	case TS_SUM: case TS_AVG: case TS_MIN: case TS_MAX:
		g_emit(g, LDX(BPF_DW, R2, R0, 16));
		g_emit(g, ALU_IMM(BPF_ADD, R2, 1));
		g_emit(g, STX(BPF_DW, R0, R2, 16));
		g_emit(g, LDX(BPF_DW, R2, R0, 8));
		if (m->ts_mode == TS_MIN || m->ts_mode == TS_MAX) {
			g_emit(g, JMP_REG(m->ts_mode == TS_MIN ? BPF_JSGE : BPF_JSLE, R1, R2, 1));
			g_emit(g, STX(BPF_DW, R0, R1, 8));
		} else {
			g_emit(g, ALU_REG(BPF_ADD, R2, R1));
			g_emit(g, STX(BPF_DW, R0, R2, 8));
		}
		break;
	}
	g_push_fix(g, &done, &ndone, g_emit(g, JA(0)));
	g_patch(g, empty);
	g_patch(g, other);
	for (int i = 0; i < 24; i += 8) {
		g_emit(g, LDX(BPF_DW, R1, FP, init + i));
		g_emit(g, STX(BPF_DW, R0, R1, i));
	}
	for (int i = 0; i < ndone; i++)
		g_patch(g, done[i]);
	free(done);
	g->sp = mark;
}

/*
 * delete(@h[k]) of a hist, lhist or tseries map: its entries are keyed by k
 * and a last hidden 8 bytes (the bucket, the interval's slot), so every entry
 * whose key starts with k goes. bpf_for_each_map_elem() (5.13+) calls back
 * with each key (r2) and the wanted one (r4, on the caller's stack); a
 * callback may delete the hash map's element it is handed.
 */
void gen_delete_all(struct gen *g, struct node *mapn)
{
	struct mapinfo *m = mapn->map;
	int mark = g->sp, key = gen_key(g, mapn), prefix = (int)m->key_size - 8;

	if (g->fail || g_subs_init(g))
		return;
	struct bpf_code *code;
	int sub = g_subs_new(g, mapn->loc, &code);

	if (sub < 0)
		return;
	struct gen cg = { .prog = g->prog, .pr = g->pr, .in = g->in, .env = g->env, .c = code, .cb = true,
			  .subs = g->subs };
	int *differ = NULL, ndiffer = 0;

	for (int o = 0; o < prefix; o += 8) {	/* r1: the map, r2: this key, r3: its value, r4: the key wanted */
		g_emit(&cg, LDX(BPF_DW, R0, R2, o));
		g_emit(&cg, LDX(BPF_DW, R5, R4, o));
		g_push_fix(&cg, &differ, &ndiffer, g_emit(&cg, JMP_REG(BPF_JNE, R0, R5, 0)));
	}
	g_emit(&cg, CALL(BPF_FUNC_map_delete_elem));
	for (int i = 0; i < ndiffer; i++)
		g_patch(&cg, differ[i]);
	free(differ);
	g_emit(&cg, MOV_IMM(R0, 0));	/* go on to the next element */
	g_emit(&cg, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	code->stack = 0;
	if (cg.fail)
		g->fail = true;

	g_ld_map(g, R1, m->index);
	g_ld_func(g, R2, sub);
	g_fp_addr(g, R3, key);
	g_emit(g, MOV_IMM(R4, 0));
	g_emit(g, CALL(BPF_FUNC_for_each_map_elem));
	g->sp = mark;
}
