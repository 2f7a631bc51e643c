// SPDX-License-Identifier: GPL-2.0
/*
 * gen_usdt.c - argN of a usdt probe location: where the SDT argument spec
 * says it is (a register of the pt_regs context, memory read with
 * bpf_probe_read_user, a constant, a global read %rip-relative), sign- or
 * zero-extended from the spec's size into r0.
 */
#include "lang/gen_int.h"
#include "lang/provider.h"
#include "lib/symbol/usdt.h"

#include <linux/bpf.h>

#define PT_REGS_IP 128

static int ldx_size(int bytes)
{
	return bytes == 1 ? BPF_B : bytes == 2 ? BPF_H : bytes == 4 ? BPF_W : BPF_DW;
}

/* r3 += v */
static void add_const(struct gen *g, int64_t v)
{
	if (!v)
		return;
	if (v >= INT32_MIN && v <= INT32_MAX) {
		g_emit(g, ALU_IMM(BPF_ADD, R3, (int32_t)v));
	} else {
		g_ld_imm64(g, R1, (uint64_t)v);
		g_emit(g, ALU_REG(BPF_ADD, R3, R1));
	}
}

/* r0 = the user memory at r3, a->size bytes (0 if unreadable) */
static void read_user(struct gen *g, const struct usdt_arg *a, struct loc loc)
{
	int mark = g->sp, slot = g_slot(g, 8, loc);

	g_emit(g, ST(BPF_DW, FP, slot, 0));
	g_fp_addr(g, R1, slot);
	g_emit(g, MOV_IMM(R2, a->size));
	g_emit(g, CALL(BPF_FUNC_probe_read_user));
	g_hcheck(g);
	g_emit(g, LDX(ldx_size(a->size), R0, FP, slot));
	g->sp = mark;
}

void gen_usdt_arg(struct gen *g, struct node *n)
{
	const struct usdt_probe *p = g->in->usdt;
	int i = (int)n->i;
	const struct usdt_arg *a;

	if (p->err[0]) {
		if (!g->fail)
			lang__error(g->prog, n->loc, "cannot read the arguments of usdt probe '%s:%s' (%s): %s", p->provider,
				    p->name, g->in->path, p->err);
		g->fail = true;
		return;
	}
	if (i < 0 || i >= p->nargs) {
		if (!g->fail)
			lang__error(g->prog, n->loc, "usdt probe '%s:%s' (%s) has %d argument%s: no arg%d", p->provider,
				    p->name, g->in->path, p->nargs, p->nargs == 1 ? "" : "s", i);
		g->fail = true;
		return;
	}
	a = &p->arg[i];
	switch (a->kind) {
	case USDT_ARG_CONST:
		g_ld_imm64(g, R0, (uint64_t)a->val);
		break;
	case USDT_ARG_REG:
		g_emit(g, LDX(BPF_DW, R0, R6, usdt__reg_offset(a->reg)));
		if (a->reg_shift)
			g_emit(g, ALU_IMM(BPF_RSH, R0, a->reg_shift));
		break;
	case USDT_ARG_MEM:
		if (a->reg >= 0)
			g_emit(g, LDX(BPF_DW, R3, R6, usdt__reg_offset(a->reg)));
		else
			g_emit(g, MOV_IMM(R3, 0));
		if (a->index >= 0) {
			g_emit(g, LDX(BPF_DW, R1, R6, usdt__reg_offset(a->index)));
			if (a->scale > 1)
				g_emit(g, ALU_IMM(BPF_LSH, R1, a->scale == 2 ? 1 : a->scale == 4 ? 2 : 3));
			g_emit(g, ALU_REG(BPF_ADD, R3, R1));
		}
		add_const(g, a->val);
		read_user(g, a, n->loc);
		break;
	case USDT_ARG_RIP:
		/*
		 * the global's link-time address moved by as much as the probe: the
		 * uprobe handler sets ip to the probe's address before running us
		 */
		g_emit(g, LDX(BPF_DW, R3, R6, PT_REGS_IP));
		add_const(g, (int64_t)(a->addr - p->pc_addr));
		read_user(g, a, n->loc);
		break;
	}
	g_extend(g, a->size * 8, a->sign);
}
