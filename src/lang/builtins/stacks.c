// SPDX-License-Identifier: GPL-2.0
/*
 * stacks.c - the builtins on stacks, symbols and addresses: kstack(),
 * ustack(), ksym(), usym(), kaddr(), uaddr(), reg(). A stack value is its
 * id in a stack map (g_stackid()), which user space symbolizes; ustack and
 * usym values carry the pid too (gen.c's gen_to()).
 */
#include "lang/check_int.h"
#include "lang/gen_int.h"
#include "lang/provider.h"

#include <string.h>

/* kstack([mode][, depth]), ustack(...): mode bpftrace, perf, raw, bcc or folded */
static struct type check_stack(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;

	(void)assign_to;
	for (struct node *a = a0; a; a = a->next)
		if ((a->kind != N_IDENT || a != a0 || (strcmp(a->s, "bpftrace") && strcmp(a->s, "perf") &&
						       strcmp(a->s, "raw") && strcmp(a->s, "bcc") &&
						       strcmp(a->s, "folded"))) && a->kind != N_INT) {
			lang__error(c->prog, a->loc, "%s() takes a mode (bpftrace, perf, raw, bcc, folded) and a constant depth",
				    n->s);
			return ty_kind(TY_NONE, 0);
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
			n->ty.smode = !strcmp(a->s, "perf") ? STACK_PERF : !strcmp(a->s, "raw") ? STACK_RAW :
				      !strcmp(a->s, "bcc") ? STACK_BCC : !strcmp(a->s, "folded") ? STACK_FOLDED : STACK_BPFTRACE;
	return n->ty;
}

static void gen_kstack(struct gen *g, struct node *n)
{
	(void)n;
	g_stackid(g, false);
}

static struct type check_ksym(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	(void)c;
	(void)f;
	(void)assign_to;
	return n->ty = ty_kind(TY_KSYM, 8);
}

/* usym(addr): [addr][pid] (gen_to()); its pid-seen map comes with the user stacks' */
static struct type check_usym(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	(void)f;
	(void)assign_to;
	c->prog->need_ustack = true;
	return n->ty = ty_kind(TY_USYM, 16);
}

static struct type check_kaddr(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	(void)f;
	(void)assign_to;
	if (n->args->kind == N_CALL && !strcmp(n->args->s, "str") && n->args->i == 1 && n->args->args->kind == N_POS)
		n->args = n->args->args;	/* kaddr(str($1)) */
	if (n->args->kind == N_POS)
		ck_expr(c, n->args);	/* a positional parameter that is not a number: a string literal */
	if (n->args->kind != N_STR) {
		lang__error(c->prog, n->args->loc, "kaddr() takes a symbol name literal");
		return ty_kind(TY_NONE, 0);
	}
	return n->ty = ty_int(false, 64);
}

static void gen_kaddr(struct gen *g, struct node *n)
{
	struct node *a0 = n->args;
	uint64_t a = 0;

	if (g_kaddr(a0->s, &a) && !g->fail) {
		lang__error(g->prog, a0->loc, "no kernel symbol '%s' in /proc/kallsyms (data symbols need "
			    "CONFIG_KALLSYMS_ALL)", a0->s);
		g->fail = true;
	}
	g_ld_imm64(g, R0, a);
}

static struct type check_uaddr(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;
	const char *prov = c->in && c->in->prov ? c->in->prov->name : "";
	uint64_t addr, size;

	(void)f;
	(void)assign_to;
	if (a0->kind != N_STR) {
		lang__error(c->prog, a0->loc, "uaddr() takes a symbol name literal");
		return ty_kind(TY_NONE, 0);
	}
	if ((strcmp(prov, "uprobe") && strcmp(prov, "uretprobe") && strcmp(prov, "usdt")) || !c->in->path) {
		lang__error(c->prog, n->loc, "uaddr() is only available in uprobes, uretprobes and usdt probes: "
			    "it looks the symbol up in the probed binary");
		return ty_kind(TY_NONE, 0);
	}
	if (provider__elf_symbol(c->in->path, a0->s, &addr, &size)) {
		lang__error(c->prog, a0->loc, "no function or object '%s' in the symbol tables of %s", a0->s, c->in->path);
		return ty_kind(TY_NONE, 0);
	}
	/* bpftrace's type: a pointer to an integer of the object's size (int64 * past 8 bytes) */
	struct type *pt = arena__alloc(c->prog->arena, sizeof(*pt));

	*pt = ty_int(true, size == 1 ? 8 : size == 2 ? 16 : size == 4 ? 32 : 64);
	n->ty = ty_int(false, 64);
	n->ty.ptr = pt;
	n->ty.user = true;
	return n->ty;
}

static void gen_uaddr(struct gen *g, struct node *n)
{
	struct node *a0 = n->args;
	uint64_t addr = 0, size;

	if (!g->in->path || provider__elf_symbol(g->in->path, a0->s, &addr, &size)) {
		if (!g->fail)
			lang__error(g->prog, a0->loc, "no function or object '%s' in the probed binary", a0->s);
		g->fail = true;
		return;
	}
	g_ld_imm64(g, R0, addr);
}

static struct type check_reg(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	(void)f;
	(void)assign_to;
	if (n->args->kind != N_STR) {
		lang__error(c->prog, n->args->loc, "reg() takes a register name literal");
		return ty_kind(TY_NONE, 0);
	}
	if (!c->in || c->in->prov->prog_type != 2 /* BPF_PROG_TYPE_KPROBE */) {
		lang__error(c->prog, n->loc, "reg() is only available in uprobes and kprobes");
		return ty_kind(TY_NONE, 0);
	}
	return n->ty = ty_int(false, 64);
}

/* a register of the probe's struct pt_regs (x86-64) */
static void gen_reg(struct gen *g, struct node *n)
{
	static const struct { const char *n; int off; } regs[] = {
		{ "r15", 0 }, { "r14", 8 }, { "r13", 16 }, { "r12", 24 }, { "bp", 32 }, { "rbp", 32 },
		{ "bx", 40 }, { "rbx", 40 }, { "r11", 48 }, { "r10", 56 }, { "r9", 64 }, { "r8", 72 },
		{ "ax", 80 }, { "rax", 80 }, { "cx", 88 }, { "rcx", 88 }, { "dx", 96 }, { "rdx", 96 },
		{ "si", 104 }, { "rsi", 104 }, { "di", 112 }, { "rdi", 112 }, { "orig_ax", 120 },
		{ "ip", 128 }, { "rip", 128 }, { "cs", 136 }, { "flags", 144 }, { "sp", 152 },
		{ "rsp", 152 }, { "ss", 160 },
	};
	struct node *a0 = n->args;

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(regs[i].n, a0->s)) {
			g_emit(g, LDX(BPF_DW, R0, R6, regs[i].off));
			return;
		}
	if (!g->fail)
		lang__error(g->prog, a0->loc, "unknown register '%s'", a0->s);
	g->fail = true;
}

const struct builtin builtins_stacks[] = {
	{ "kstack", F_KSTACK, 0, 2, BF_OWN_ARGS, .check = check_stack, .gen_int = gen_kstack },
	{ "ustack", F_USTACK, 0, 2, BF_OWN_ARGS, .check = check_stack },	/* gen_to(): [stack id][pid] */
	{ "ksym", F_KSYM, 1, 1, 0, .check = check_ksym, .gen_int = g_first_arg },
	{ "usym", F_USYM, 1, 1, 0, .check = check_usym },
	{ "kaddr", F_KADDR, 1, 1, BF_OWN_ARGS, .check = check_kaddr, .gen_int = gen_kaddr },
	{ "uaddr", F_UADDR, 1, 1, 0, .check = check_uaddr, .gen_int = gen_uaddr },
	{ "reg", F_REG, 1, 1, BF_OWN_ARGS, .check = check_reg, .gen_int = gen_reg },
	{ NULL },
};
