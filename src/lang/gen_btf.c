// SPDX-License-Identifier: GPL-2.0
/*
 * gen_btf.c - code for kernel types: the address of a struct member, an
 * array element or what a pointer points to, and reading it with
 * bpf_probe_read_kernel (or _user, for pointers uprobes were given) into a
 * zeroed stack slot, so a faulting read gives 0 rather than a refused program.
 * Bitfields are shifted and masked out of the bytes that hold them.
 *
 * A raw tracepoint whose arguments the kernel's BTF types (btf_trace_EVENT)
 * is loaded as tp_btf, where the verifier knows its pointer arguments and the
 * members read through them: a member at a constant offset from such a
 * pointer is read by a load of its own (a faulting one reads 0, as
 * bpf_probe_read_kernel's zeroed slot does), not a helper call. What the
 * verifier refuses there is loaded again as a raw tracepoint (runtime.c).
 */
#include "lang/gen_int.h"
#include "lang/ktypes.h"
#include "lang/provider_iter.h"
#include "lang/provider.h"

#include <bpf/btf.h>

#include <string.h>

static bool is_kmem(const struct node *n)
{
	return n->l && (n->l->ty.kind == TY_STRUCT || (n->l->ty.kind == TY_INT && n->l->ty.ptr));
}

bool gen_btf__handles(const struct node *n)
{
	switch (n->kind) {
	case N_FIELD:
		return is_kmem(n);
	case N_INDEX:
		return true;
	case N_UNOP:
		return n->op == T_STAR;
	default:
		return false;
	}
}

/* the size of what pointer type t points to, for p + n and p[n] */
static int elem_size(struct gen *g, const struct type *t)
{
	const struct type *e = t->ptr;

	if (!e || e->kind == TY_VOID)
		return 1;
	if (e->kind == TY_STRUCT) {
		int n = ktypes__size(g->prog, e->btf_id == KTYPES_TASK_STRUCT ? ktypes__find(g->prog, "struct task_struct") :
				     e->btf_id);

		return n > 0 ? n : 1;
	}
	if (e->kind == TY_INT && !e->ptr)
		return e->bits ? e->bits / 8 : 8;
	return 8;
}

/* r0 *= the pointer's element size (before p + r0) */
void gen_btf__scale(struct gen *g, const struct type *ptr, int reg)
{
	int n = elem_size(g, ptr);

	if (n != 1)
		g_emit(g, ALU_IMM(BPF_MUL, reg, n));
}

static void addr(struct gen *g, struct node *n);
static bool direct(const struct gen *g, const struct node *n);

/* tp_btf: does n's value, a pointer, come typed from BTF (an argument, a member read by direct())? */
static bool btf_ptr(const struct gen *g, const struct node *n)
{
	while (n->kind == N_CAST && n->ptr)
		n = n->l;
	switch (n->kind) {
	case N_VAR:	/* most often an argument; if not, the verifier says so (and we load a raw tracepoint) */
		return n->var && !n->var->shared;	/* not in a per-CPU map value, where it is a number */
	case N_IDENT:
		return n->op == BV_ARG;
	case N_FIELD:
		return n->l->ty.kind == TY_CTX || direct(g, n);
	default:
		return false;
	}
}

/* tp_btf: n, a member, is at a constant offset from a pointer typed from BTF: read it by a load */
static bool direct(const struct gen *g, const struct node *n)
{
	/* not in a for loop's body (a callback), nor with -kk (a failed read warns there) */
	if (!g->in || !g->in->tp_btf || g->cb || g->prog->cfg.helper_check >= 2)
		return false;
	if (n->kind != N_FIELD || !is_kmem(n) || n->l->ty.user || n->op /* a bitfield */)
		return false;
	for (n = n->l; n->ty.kind == TY_STRUCT; n = n->l) {	/* a struct member, or *p: its address */
		if (!(n->kind == N_FIELD && is_kmem(n)) && !(n->kind == N_UNOP && n->op == T_STAR))
			return false;
		if (n->l->ty.user)
			return false;
	}
	return n->ty.kind == TY_INT && n->ty.ptr && btf_ptr(g, n);
}

/* the load instruction's size of n bytes (1, 2, 4, 8), or -1 */
static int ldx_size(int n)
{
	return n == 8 ? BPF_DW : n == 4 ? BPF_W : n == 2 ? BPF_H : n == 1 ? BPF_B : -1;
}

bool gen_btf__tp_btf(struct program *prog, struct ap_inst *in)
{
	char name[300];
	int id;

	if (in->tp_btf_refused || in->sc_nr >= 0 || !in->event || strcmp(in->prov->name, "rawtracepoint") || !prog->btf)
		return false;
	snprintf(name, sizeof(name), "btf_trace_%s", in->event);
	id = btf__find_by_name_kind(prog->btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return false;
	in->attach_btf_id = id;
	return true;
}

/* r0 = the address the value of n is at (n: a struct-valued expression or an lvalue in kernel memory) */
static void base(struct gen *g, struct node *l)
{
	if (l->ty.kind == TY_INT && l->ty.ptr)
		gen_int(g, l);	/* a pointer: its value */
	else
		addr(g, l);	/* a struct: where it is */
}

static void addr(struct gen *g, struct node *n)
{
	if (g->fail)
		return;
	switch (n->kind) {
	case N_FIELD:
		base(g, n->l);
		if (n->off)
			g_emit(g, ALU_IMM(BPF_ADD, R0, n->off));
		return;
	case N_UNOP:
		gen_int(g, n->l);
		return;
	case N_INDEX: {
		int mark = g->sp, t = g_slot(g, 8, n->loc);

		base(g, n->l);
		g_emit(g, STX(BPF_DW, FP, R0, t));
		gen_int(g, n->r);
		if (n->i >= 0) {
			/* out of the array's bounds: address 0, which reads as zeroes */
			g_emit(g, JMP_IMM(BPF_JLT, R0, (int)n->i, 2));
			g_emit(g, MOV_IMM(R0, 0));
			int j = g_emit(g, JA(0));

			g_emit(g, ALU_IMM(BPF_MUL, R0, n->id));
			g_emit(g, LDX(BPF_DW, R1, FP, t));
			g_emit(g, ALU_REG(BPF_ADD, R0, R1));
			g_patch(g, j);
		} else {
			g_emit(g, ALU_IMM(BPF_MUL, R0, n->id));
			g_emit(g, LDX(BPF_DW, R1, FP, t));
			g_emit(g, ALU_REG(BPF_ADD, R0, R1));
		}
		g->sp = mark;
		return;
	}
	default:
		g_unsupported(g, n, "taking the address of this expression");
	}
}

void gen_btf__addr(struct gen *g, struct node *n)
{
	addr(g, n);
}

/* read n bytes at r0 into [fp+off] (zeroed first) */
static void read_mem(struct gen *g, bool user, int off, int n)
{
	g_emit(g, MOV_REG(R3, R0));
	g_fp_addr(g, R1, off);
	g_emit(g, MOV_IMM(R2, n));
	g_emit(g, CALL(user ? BPF_FUNC_probe_read_user : BPF_FUNC_probe_read_kernel));
	g_hcheck(g);
}

/* r0 = the integer (or pointer) n reads from kernel or user memory */
void gen_btf__int(struct gen *g, struct node *n)
{
	if (n->kind == N_INDEX && n->l->ty.kind == TY_ARRAY) {	/* a constant index into an integer array */
		gen_array_elem(g, n);
		return;
	}
	if (iter__ctx_field(g, n))	/* ctx.task in an iter probe: from the context itself */
		return;
	int mark = g->sp, t = g_slot(g, 8, n->loc);
	bool user = n->l->ty.user;
	int bitsize = n->kind == N_FIELD ? n->op : 0, bitoff = n->kind == N_FIELD ? n->id : 0;
	int size = n->ty.ptr ? 8 : n->ty.bits ? n->ty.bits / 8 : 8;

	if (n->ty.kind == TY_STRUCT) {
		addr(g, n);	/* a struct's value is its address */
		g->sp = mark;
		return;
	}
	if (bitsize)
		size = (bitoff + bitsize + 7) / 8;
	if (size > 8)
		size = 8;
	if (direct(g, n) && ldx_size(size) >= 0) {
		g->sp = mark;
		addr(g, n);
		g_emit(g, LDX(ldx_size(size), R0, R0, 0));
		if (!n->ty.ptr && n->ty.sign && size < 8)
			g_extend(g, size * 8, true);
		return;
	}
	g_emit(g, ST(BPF_DW, FP, t, 0));
	addr(g, n);
	read_mem(g, user, t, size);
	g_emit(g, LDX(BPF_DW, R0, FP, t));
	g->sp = mark;
	if (bitsize) {
		g_emit(g, ALU_IMM(BPF_LSH, R0, 64 - bitoff - bitsize));
		g_emit(g, ALU_IMM(n->ty.sign ? BPF_ARSH : BPF_RSH, R0, 64 - bitsize));
		return;
	}
	if (!n->ty.ptr && n->ty.sign && size < 8)
		g_extend(g, size * 8, true);
}

/* a char array member: copied as it is (a string ends at its first NUL when printed) */
void gen_btf__str(struct gen *g, struct node *n, int off, int size)
{
	int elem, cnt = size;

	g_zero(g, off, size);
	if (!ktypes__array(g->prog, n->ty.btf_id, &elem, &cnt) && cnt < size)
		size = cnt;
	addr(g, n);
	if (direct(g, n) && size <= 64) {	/* task->comm: two loads */
		g_emit(g, MOV_REG(R1, R0));
		for (int i = 0, w = 8; i < size; i += w) {
			while (w > size - i)
				w /= 2;
			g_emit(g, LDX(ldx_size(w), R0, R1, i));
			g_emit(g, STX(ldx_size(w), FP, R0, off + i));
		}
		return;
	}
	read_mem(g, n->l->ty.user, off, size);
}

/* args.name in fentry/fexit, and retval in fexit: the context is an array of u64 */
void gen_btf__ctx_arg(struct gen *g, struct node *n)
{
	int fid, proto, idx = -1, tid, off = n->off;

	/* a wildcard's functions differ: each instance finds its own parameter */
	if (g->in->sym && !ktypes__func(g->prog, g->in->sym, &fid, &proto)) {
		if (n->kind == N_FIELD && !ktypes__param(g->prog, proto, n->s, &idx, &tid))
			off = idx * 8;
		else if (n->kind == N_IDENT)
			off = ktypes__nparams(g->prog, proto) * 8;
		else if (!g->fail) {
			lang__error(g->prog, n->loc, "%s() has no parameter '%s'", g->in->sym, n->s);
			g->fail = true;
			return;
		}
	}
	g_emit(g, LDX(BPF_DW, R0, R6, off));
	if (!n->ty.ptr && n->ty.bits && n->ty.bits < 64)
		g_extend(g, n->ty.bits, n->ty.sign);
}
