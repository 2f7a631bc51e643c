// SPDX-License-Identifier: GPL-2.0
/*
 * gen_str.c - code for upstream's string functions.
 *
 * strlen and memcmp are unrolled over the bytes a string can hold: each byte
 * a load and a test whose exits all set r0 to a constant the verifier does not
 * need to keep apart, so its states merge where they meet.
 *
 * strstr and globmatch can take (haystack size x needle size) steps, which no
 * unrolled code or verifier-checked loop affords for 64-byte strings: they run
 * as bpf_loop() (5.17+) callbacks that take one step each. Their state and
 * both strings live in a per-CPU array value (MAPREF_STRS, one per attach
 * point), not on the stack: the verifier checks a callback until the state it
 * starts from repeats, and numbers read from a map are "any number" at every
 * pass, where a counter on the stack would be a new state at each one.
 *
 * globmatch is Linux's lib/glob.c algorithm: '*' remembers where it was, and a
 * mismatch goes back there, one character further in the string (one place to
 * go back to is enough: a later '*' matches anything an earlier one would).
 * Each step reads one pattern byte (a character class takes a step per span),
 * so a pass over the pattern is at most 2 x its size steps, and there are at
 * most (string size + 1) passes.
 */
#include "lang/gen_int.h"
#include "lang/ktypes.h"
#include "lang/provider.h"
#include "lib/syscall/syscalls.h"

#include <stdlib.h>
#include <string.h>

#ifndef BPF_FUNC_loop
#define BPF_FUNC_loop 181
#endif

/* the scratch value: state, then the string (or haystack), then the pattern (or needle) */
enum { O_P = 0, O_S = 8, O_BP = 16, O_BS = 24, O_RES = 32, O_MODE = 40, O_CC = 48, O_CM = 56, O_CI = 64, O_CF = 72,
       O_CST = 80, O_STR = 88 };

/* a tracepoint's char * field, typed as an integer */
static bool tp_char_ptr(struct gen *g, struct node *a)
{
	const struct tp_field *f;

	if (a->kind != N_FIELD || !a->l || a->l->ty.kind != TY_CTX)
		return false;
	f = g_field_of(g, a);
	return f && f->ptr && f->ctype && strstr(f->ctype, "char");
}

/* bytes of an operand read as a string: a literal's all, a string's type, a pointer's max_strlen */
static int op_size(struct gen *g, struct node *a)
{
	int elem, cnt;

	if (a->kind == N_STR)
		return (int)a->slen + 1;
	if (a->ty.kind == TY_STR)
		return a->ty.size;
	if (a->ty.kind == TY_STRUCT && !ktypes__array(g->prog, a->ty.btf_id, &elem, &cnt))
		return ktypes__size(g->prog, a->ty.btf_id);
	return g->prog->cfg.max_strlen;
}

static bool is_ptr(struct gen *g, struct node *a)
{
	return a->ty.kind == TY_STRUCT || (a->ty.kind == TY_INT && (a->ty.ptr || tp_char_ptr(g, a)));
}

/* r0 = the address a pointer operand holds (a kernel array's: its own) */
static void gen_addr(struct gen *g, struct node *a)
{
	if (a->ty.kind == TY_STRUCT)
		gen_btf__int(g, a);
	else
		gen_int(g, a);
}

static void gen_operand(struct gen *g, struct node *a, int off, int size)
{
	g_zero(g, off, size);
	if (!is_ptr(g, a)) {
		if (a->kind == N_STR)
			for (int i = 0; i < size; i++)	/* all of it, even past max_strlen */
				g_emit(g, ST(BPF_B, FP, off + i, i < (int)a->slen ? (unsigned char)a->s[i] : 0));
		else
			gen_str(g, a, off, size);
		return;
	}
	gen_addr(g, a);
	g_read_r0(g, BPF_FUNC_probe_read_str, off, size);
}

/* r0 = the index of the first NUL of the size bytes at [base+off], or size */
static void g_nul_index_at(struct gen *g, int base, int off, int size)
{
	int *done = NULL, nd = 0;

	for (int i = 0; i < size; i++) {
		g_emit(g, MOV_IMM(R0, i));
		g_emit(g, LDX(BPF_B, R1, base, off + i));
		g_push_fix(g, &done, &nd, g_emit(g, JMP_IMM(BPF_JEQ, R1, 0, 0)));
	}
	g_emit(g, MOV_IMM(R0, size));
	for (int i = 0; i < nd; i++)
		g_patch(g, done[i]);
	free(done);
}

static void g_nul_index(struct gen *g, int off, int size)
{
	g_nul_index_at(g, FP, off, size);
}

/* strlen(s), and strcap() of a pointer (its length, as upstream) */
static void gen_strlen(struct gen *g, struct node *a)
{
	int mark = g->sp, size = op_size(g, a), slot;

	if (a->kind == N_VAR && a->ty.kind == TY_STR) {	/* read in place */
		g_nul_index_at(g, g_vbase(g, a->var), g_voff(g, a->var), a->var->ty.size < size ? a->var->ty.size : size);
		return;
	}

	if (is_ptr(g, a) && a->ty.kind != TY_STRUCT)
		size = g->prog->cfg.max_strlen + 1;	/* __strnlen(p, default_str_length()): up to max_strlen */
	slot = g_slot(g, size, a->loc);
	gen_operand(g, a, slot, g_round8(size));
	g_nul_index(g, slot, size);
	if (is_ptr(g, a) && a->ty.kind != TY_STRUCT) {	/* the read stops at max_strlen bytes and a NUL */
		g_emit(g, JMP_IMM(BPF_JLE, R0, g->prog->cfg.max_strlen, 1));
		g_emit(g, MOV_IMM(R0, g->prog->cfg.max_strlen));
	}
	g->sp = mark;
}

/* memcmp(l, r, n): the difference of the first bytes that differ, or 0 */
static void gen_memcmp(struct gen *g, struct node *n)
{
	struct node *l = n->args, *r = l->next, *cnt = r->next;
	int mark = g->sp, ls = l->ty.kind == TY_INT ? 8 : l->ty.size, rs = r->ty.kind == TY_INT ? 8 : r->ty.size;
	const struct node *sides[2] = { l, r };
	int slots[2], regs[2] = { FP, FP };

	for (int i = 0; i < 2; i++) {	/* a string variable is read in place */
		const struct node *s = sides[i];

		if (s->kind == N_VAR && s->ty.kind == TY_STR) {
			regs[i] = g_vbase(g, s->var);
			slots[i] = g_voff(g, s->var);
		} else {
			slots[i] = g_slot(g, i ? rs : ls, s->loc);
		}
	}
	int a = slots[0], b = slots[1], c = g_slot(g, 8, cnt->loc);
	int k = ls < rs ? ls : rs, *eq = NULL, neq = 0, *diff = NULL, ndiff = 0;
	bool dyn = cnt->kind != N_INT;

	if (l->kind == N_STR && (int)l->slen + 1 < k)
		k = (int)l->slen + 1;
	if (r->kind == N_STR && (int)r->slen + 1 < k)
		k = (int)r->slen + 1;
	for (int i = 0; i < 2; i++) {
		struct node *s = (struct node *)sides[i];

		if (regs[i] != FP || (s->kind == N_VAR && s->ty.kind == TY_STR))
			continue;
		if (s->ty.kind == TY_INT) {
			gen_int(g, s);
			g_emit(g, STX(BPF_DW, FP, R0, slots[i]));
		} else {
			g_zero(g, slots[i], g_round8(s->ty.size));
			gen_to(g, s, slots[i], &s->ty);
		}
	}
	if (dyn) {
		gen_int(g, cnt);
		g_emit(g, STX(BPF_DW, FP, R0, c));
	} else if (cnt->i < k) {
		k = (int)cnt->i;
	}
	g_emit(g, LDX(BPF_DW, R3, FP, c));
	for (int i = 0; i < k; i++) {
		if (dyn)
			g_push_fix(g, &eq, &neq, g_emit(g, JMP_IMM(BPF_JLE, R3, i, 0)));
		g_emit(g, LDX(BPF_B, R1, regs[0], a + i));
		g_emit(g, LDX(BPF_B, R2, regs[1], b + i));
		g_push_fix(g, &diff, &ndiff, g_emit(g, JMP_REG(BPF_JNE, R1, R2, 0)));
	}
	for (int i = 0; i < neq; i++)
		g_patch(g, eq[i]);
	g_emit(g, MOV_IMM(R0, 0));
	if (ndiff) {	/* no bytes to compare (a count of 0): no code the verifier would find unreachable */
		int done = g_emit(g, JA(0));

		for (int i = 0; i < ndiff; i++)
			g_patch(g, diff[i]);
		g_emit(g, MOV_REG(R0, R1));
		g_emit(g, ALU_REG(BPF_SUB, R0, R2));
		g_patch(g, done);
	}
	free(eq);
	free(diff);
	g->sp = mark;
}

/* ---- the bpf_loop callbacks: r1 = the step's index, r2 = where the caller keeps the value's address ---- */

/* dst = idx < n ? the byte at [r7 + off + idx] : 0 (r8 clobbered) */
static void g_byte(struct gen *g, int dst, int idx, int off, int n)
{
	g_emit(g, MOV_IMM(dst, 0));
	g_emit(g, JMP_IMM(BPF_JGE, idx, n, 3));
	g_emit(g, MOV_REG(R8, R7));
	g_emit(g, ALU_REG(BPF_ADD, R8, idx));
	g_emit(g, LDX(BPF_B, dst, R8, off));
}

static void g_stop(struct gen *g, int res_imm, int res_reg)
{
	if (res_reg >= 0)
		g_emit(g, STX(BPF_DW, R7, res_reg, O_RES));
	else
		g_emit(g, ST(BPF_DW, R7, O_RES, res_imm));
	g_emit(g, MOV_IMM(R0, 1));
	g_emit(g, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
}

/* strstr's step at (i, j): needle[j] NUL -> i; haystack[i + j] NUL -> -1; equal -> j + 1; else i + 1, j = 0 */
static void cb_strstr(struct gen *g, int ns, int nn)
{
	int po = O_STR + g_round8(ns);

	g_emit(g, LDX(BPF_DW, R7, R2, 0));
	g_emit(g, LDX(BPF_DW, R1, R7, O_P));	/* j */
	g_emit(g, LDX(BPF_DW, R2, R7, O_S));	/* i */
	g_emit(g, MOV_REG(R9, R2));
	g_emit(g, ALU_REG(BPF_ADD, R9, R1));
	g_byte(g, R3, R9, O_STR, ns);
	g_byte(g, R4, R1, po, nn);
	int found = g_emit(g, JMP_IMM(BPF_JEQ, R4, 0, 0));
	int end = g_emit(g, JMP_IMM(BPF_JEQ, R3, 0, 0));
	int miss = g_emit(g, JMP_REG(BPF_JNE, R3, R4, 0));

	g_emit(g, ALU_IMM(BPF_ADD, R1, 1));
	g_emit(g, STX(BPF_DW, R7, R1, O_P));
	g_emit(g, MOV_IMM(R0, 0));
	g_emit(g, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	g_patch(g, miss);
	g_emit(g, ALU_IMM(BPF_ADD, R2, 1));
	g_emit(g, STX(BPF_DW, R7, R2, O_S));
	g_emit(g, ST(BPF_DW, R7, O_P, 0));
	g_emit(g, MOV_IMM(R0, 0));
	g_emit(g, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	g_patch(g, found);
	g_stop(g, 0, R2);
	g_patch(g, end);
	g_stop(g, -1, -1);
}

/*
 * globmatch's step. Registers: r1 the pattern index, r2 the string index, r3 the
 * string's character, r4 the pattern's. Mode 0 reads one pattern element;
 * mode 1 reads a span of a character class ('a' or 'a-z') for character CC.
 */
static void cb_glob(struct gen *g, int ns, int np)
{
	int po = O_STR + g_round8(ns);
	int *cont = NULL, ncont = 0, *back = NULL, nback = 0, *yes = NULL, nyes = 0, *no = NULL, nno = 0;
	int *lit = NULL, nlit = 0;

	g_emit(g, LDX(BPF_DW, R7, R2, 0));
	g_emit(g, LDX(BPF_DW, R1, R7, O_P));
	g_emit(g, LDX(BPF_DW, R2, R7, O_S));
	g_emit(g, LDX(BPF_DW, R0, R7, O_MODE));
	int to_class = g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 0));

	/* mode 0: c = str[s++], d = pat[p++] */
	g_byte(g, R3, R2, O_STR, ns);
	g_byte(g, R4, R1, po, np);
	g_emit(g, ALU_IMM(BPF_ADD, R1, 1));
	g_emit(g, ALU_IMM(BPF_ADD, R2, 1));
	int star = g_emit(g, JMP_IMM(BPF_JEQ, R4, '*', 0));
	int qmark = g_emit(g, JMP_IMM(BPF_JEQ, R4, '?', 0));
	int lbrack = g_emit(g, JMP_IMM(BPF_JEQ, R4, '[', 0));

	g_push_fix(g, &lit, &nlit, g_emit(g, JMP_IMM(BPF_JNE, R4, '\\', 0)));
	g_byte(g, R4, R1, po, np);	/* '\x': x is literal */
	g_emit(g, ALU_IMM(BPF_ADD, R1, 1));
	/* a literal character: both NUL is the end of a match */
	for (int i = 0; i < nlit; i++)
		g_patch(g, lit[i]);
	nlit = 0;
	int literal = g->c->n;

	g_push_fix(g, &back, &nback, g_emit(g, JMP_REG(BPF_JNE, R3, R4, 0)));
	g_push_fix(g, &yes, &nyes, g_emit(g, JMP_IMM(BPF_JEQ, R4, 0, 0)));
	g_push_fix(g, &cont, &ncont, g_emit(g, JA(0)));
	/* '?': any character but the end */
	g_patch(g, qmark);
	g_push_fix(g, &no, &nno, g_emit(g, JMP_IMM(BPF_JEQ, R3, 0, 0)));
	g_push_fix(g, &cont, &ncont, g_emit(g, JA(0)));
	/* '*': at the pattern's end it matches the rest; else remember where to come back */
	g_patch(g, star);
	g_byte(g, R4, R1, po, np);
	g_push_fix(g, &yes, &nyes, g_emit(g, JMP_IMM(BPF_JEQ, R4, 0, 0)));
	g_emit(g, STX(BPF_DW, R7, R1, O_BP));
	g_emit(g, ALU_IMM(BPF_SUB, R2, 1));
	g_emit(g, STX(BPF_DW, R7, R2, O_BS));
	g_push_fix(g, &cont, &ncont, g_emit(g, JA(0)));
	/* '[': a class for c, maybe inverted ('[!'); a ']' right after it is one of its characters */
	g_patch(g, lbrack);
	g_push_fix(g, &no, &nno, g_emit(g, JMP_IMM(BPF_JEQ, R3, 0, 0)));	/* the end matches no class */
	g_emit(g, STX(BPF_DW, R7, R3, O_CC));
	g_emit(g, STX(BPF_DW, R7, R1, O_CST));
	g_emit(g, ST(BPF_DW, R7, O_CM, 0));
	g_emit(g, ST(BPF_DW, R7, O_CF, 1));
	g_emit(g, ST(BPF_DW, R7, O_MODE, 1));
	g_byte(g, R4, R1, po, np);
	g_emit(g, MOV_IMM(R5, 0));
	g_emit(g, JMP_IMM(BPF_JNE, R4, '!', 2));
	g_emit(g, MOV_IMM(R5, 1));
	g_emit(g, ALU_IMM(BPF_ADD, R1, 1));
	g_emit(g, STX(BPF_DW, R7, R5, O_CI));
	g_push_fix(g, &cont, &ncont, g_emit(g, JA(0)));

	/* mode 1: a = pat[p] */
	g_patch(g, to_class);
	g_emit(g, LDX(BPF_DW, R3, R7, O_CC));
	g_byte(g, R4, R1, po, np);
	int unterm1 = g_emit(g, JMP_IMM(BPF_JEQ, R4, 0, 0));
	int span1 = g_emit(g, JMP_IMM(BPF_JNE, R4, ']', 0));

	g_emit(g, LDX(BPF_DW, R0, R7, O_CF));
	int span2 = g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 0));

	/* the class's end: matched (or not, inverted) goes on */
	g_emit(g, ALU_IMM(BPF_ADD, R1, 1));
	g_emit(g, ST(BPF_DW, R7, O_MODE, 0));
	g_emit(g, LDX(BPF_DW, R0, R7, O_CM));
	g_emit(g, LDX(BPF_DW, R5, R7, O_CI));
	g_push_fix(g, &back, &nback, g_emit(g, JMP_REG(BPF_JEQ, R0, R5, 0)));
	g_push_fix(g, &cont, &ncont, g_emit(g, JA(0)));
	/* a span: a, or a-b unless '-' is last ("[a-]") */
	g_patch(g, span1);
	g_patch(g, span2);
	g_emit(g, ST(BPF_DW, R7, O_CF, 0));
	g_emit(g, MOV_REG(R5, R4));
	g_emit(g, MOV_REG(R9, R1));
	g_emit(g, ALU_IMM(BPF_ADD, R9, 1));
	g_byte(g, R0, R9, po, np);
	int one1 = g_emit(g, JMP_IMM(BPF_JNE, R0, '-', 0));

	g_emit(g, ALU_IMM(BPF_ADD, R9, 1));
	g_byte(g, R0, R9, po, np);
	int one2 = g_emit(g, JMP_IMM(BPF_JEQ, R0, ']', 0));
	int unterm2 = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

	g_emit(g, MOV_REG(R5, R0));
	g_emit(g, ALU_IMM(BPF_ADD, R1, 2));
	g_patch(g, one1);
	g_patch(g, one2);
	g_emit(g, ALU_IMM(BPF_ADD, R1, 1));
	g_push_fix(g, &cont, &ncont, g_emit(g, JMP_REG(BPF_JLT, R3, R4, 0)));
	g_push_fix(g, &cont, &ncont, g_emit(g, JMP_REG(BPF_JGT, R3, R5, 0)));
	g_emit(g, ST(BPF_DW, R7, O_CM, 1));
	g_push_fix(g, &cont, &ncont, g_emit(g, JA(0)));
	/* no ']': the '[' was a literal character */
	g_patch(g, unterm1);
	g_patch(g, unterm2);
	g_emit(g, ST(BPF_DW, R7, O_MODE, 0));
	g_emit(g, LDX(BPF_DW, R1, R7, O_CST));
	g_emit(g, MOV_IMM(R4, '['));
	g_emit(g, JA(literal - g->c->n - 1));

	/* a mismatch: back to the last '*', one character further; at the string's end, no match */
	for (int i = 0; i < nback; i++)
		g_patch(g, back[i]);
	g_push_fix(g, &no, &nno, g_emit(g, JMP_IMM(BPF_JEQ, R3, 0, 0)));
	g_emit(g, LDX(BPF_DW, R0, R7, O_BP));
	g_push_fix(g, &no, &nno, g_emit(g, JMP_IMM(BPF_JSLT, R0, 0, 0)));
	g_emit(g, MOV_REG(R1, R0));
	g_emit(g, LDX(BPF_DW, R2, R7, O_BS));
	g_emit(g, ALU_IMM(BPF_ADD, R2, 1));
	g_emit(g, STX(BPF_DW, R7, R2, O_BS));
	g_emit(g, ST(BPF_DW, R7, O_MODE, 0));
	/* the next step */
	for (int i = 0; i < ncont; i++)
		g_patch(g, cont[i]);
	g_emit(g, STX(BPF_DW, R7, R1, O_P));
	g_emit(g, STX(BPF_DW, R7, R2, O_S));
	g_emit(g, MOV_IMM(R0, 0));
	g_emit(g, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	for (int i = 0; i < nyes; i++)
		g_patch(g, yes[i]);
	g_stop(g, 1, -1);
	for (int i = 0; i < nno; i++)
		g_patch(g, no[i]);
	g_stop(g, 0, -1);
	free(cont);
	free(back);
	free(yes);
	free(no);
	free(lit);
}

/*
 * An operand of strstr/globmatch goes to the scratch value at r7 + voff: a literal
 * or a variable straight there, a pointer's string read there; anything else is
 * made on the stack first (prep, before the scratch value is looked up).
 */
static bool direct(struct node *a)
{
	return a->kind == N_STR || (a->kind == N_VAR && a->ty.kind == TY_STR);
}

static int prep_operand(struct gen *g, struct node *a, int size)
{
	int slot;

	if (direct(a))
		return 0;
	if (is_ptr(g, a)) {
		slot = g_slot(g, 8, a->loc);
		gen_addr(g, a);
		g_emit(g, STX(BPF_DW, FP, R0, slot));
		return slot;
	}
	slot = g_slot(g, size, a->loc);
	gen_operand(g, a, slot, g_round8(size));
	return slot;
}

static void put_operand(struct gen *g, struct node *a, int slot, int voff, int size)
{
	int words = g_round8(size);

	if (a->kind == N_STR) {	/* all of it, even past max_strlen */
		for (int i = 0; i < words; i += 8) {
			uint64_t v = 0;

			for (int k = 0; k < 8 && i + k < (int)a->slen; k++)
				v |= (uint64_t)(unsigned char)a->s[i + k] << (8 * k);
			g_ld_imm64(g, R1, v);
			g_emit(g, STX(BPF_DW, R7, R1, voff + i));
		}
	} else if (a->kind == N_VAR && a->ty.kind == TY_STR) {
		int vs = g_round8(a->var->ty.size) < words ? g_round8(a->var->ty.size) : words;

		g_copy_regs(g, R7, voff, g_vbase(g, a->var), g_voff(g, a->var), vs);
		for (int i = vs; i < words; i += 8)
			g_emit(g, ST(BPF_DW, R7, voff + i, 0));
	} else if (is_ptr(g, a)) {
		for (int i = 0; i < words; i += 8)
			g_emit(g, ST(BPF_DW, R7, voff + i, 0));
		g_emit(g, MOV_REG(R1, R7));
		g_emit(g, ALU_IMM(BPF_ADD, R1, voff));
		g_emit(g, MOV_IMM(R2, size));
		g_emit(g, LDX(BPF_DW, R3, FP, slot));
		/* bpf_probe_read_str reads user or kernel memory (x86-64's split address space) */
		g_emit(g, CALL(BPF_FUNC_probe_read_str));
		g_hcheck(g);
	} else {
		g_copy_regs(g, R7, voff, FP, slot, words);
	}
}

/* strstr(h, n) / globmatch(s, p): both strings into the scratch value, then bpf_loop() over the steps */
static void gen_loop_match(struct gen *g, struct node *n)
{
	struct node *a = n->args, *b = a->next;
	int na = op_size(g, a), nb = op_size(g, b), mark = g->sp;
	bool glob = n->op == F_GLOBMATCH;
	long long steps = glob ? (long long)(na + 2) * (2 * nb + 2) : (long long)(na + 1) * (nb + 1) + 1;

	if (O_STR + g_round8(na) + g_round8(nb) > g->prog->strs_scratch && !g->fail) {
		lang__error(g->prog, n->loc, "internal error: %s() needs %d bytes of scratch, the checker gave %d", n->s,
			    O_STR + g_round8(na) + g_round8(nb), g->prog->strs_scratch);
		g->fail = true;
	}
	if (steps > (1 << 23) && !g->fail) {	/* bpf_loop's most */
		lang__error(g->prog, n->loc, "%s() of strings of %d and %d bytes can take %lld steps, more than bpf_loop's "
			    "%d: make them shorter", n->s, na, nb, steps, 1 << 23);
		g->fail = true;
	}
	if (g->fail || g_subs_init(g))
		return;
	int sa = prep_operand(g, a, na), sb = prep_operand(g, b, nb);
	int key = g_slot(g, 8, n->loc), ctx = g_slot(g, 8, n->loc);
	/* the callback, after the main program */
	struct bpf_code *code;
	int sub = g_subs_new(g, n->loc, &code);

	if (sub < 0)
		return;
	struct gen cg = { .prog = g->prog, .pr = g->pr, .in = g->in, .env = g->env, .c = code, .cb = true,
			  .subs = g->subs };

	if (glob)
		cb_glob(&cg, na, nb);
	else
		cb_strstr(&cg, na, nb);
	code->stack = 0;
	if (cg.fail)
		g->fail = true;

	g_emit(g, ST(BPF_DW, FP, key, g_inst_key(g)));
	g_lookup(g, MAPREF_STRS, key);
	g_emit(g, MOV_IMM(R1, glob ? 0 : -1));
	int none = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

	g_emit(g, MOV_REG(R7, R0));
	put_operand(g, a, sa, O_STR, na);
	put_operand(g, b, sb, O_STR + g_round8(na), nb);
	for (int o = O_P; o < O_STR; o += 8)
		g_emit(g, ST(BPF_DW, R7, o, o == O_BP ? -1 : 0));
	if (!glob)
		g_emit(g, ST(BPF_DW, R7, O_RES, -1));
	g_emit(g, STX(BPF_DW, FP, R7, ctx));
	g_emit(g, MOV_IMM(R1, (int)steps));
	g_ld_func(g, R2, sub);
	g_fp_addr(g, R3, ctx);
	g_emit(g, MOV_IMM(R4, 0));
	g_emit(g, CALL(BPF_FUNC_loop));
	g_emit(g, LDX(BPF_DW, R1, R7, O_RES));
	g_patch(g, none);
	g_emit(g, MOV_REG(R0, R1));
	g->sp = mark;
}


/* r2, r3, r4 = the first 24 bytes of s (a name's longest is 23), r2 first */
static void g_name_regs(struct gen *g, const char *s)
{
	size_t len = strlen(s);

	for (int w = 0; w < 3; w++) {
		uint64_t v = 0;

		for (int k = 0; k < 8; k++)
			if ((size_t)(w * 8 + k) < len)
				v |= (uint64_t)(unsigned char)s[w * 8 + k] << (8 * k);
		g_ld_imm64(g, R2 + w, v);
	}
}

/*
 * r2, r3, r4 = the name of system call r0, from the runtime's array of them
 * (MAPREF_SCNAMES), or "unknown" for a number it has no name for
 */
static void g_sc_name(struct gen *g, struct node *n)
{
	int mark = g->sp, key = g_slot(g, 8, n->loc), max = 0;

	for (int i = 0; i < syscall__count(); i++)
		if (syscall__at(i)->nr > max)
			max = syscall__at(i)->nr;
	int big = g_emit(g, JMP_IMM(BPF_JGT, R0, max, 0));	/* negative ones too: unsigned */

	g_emit(g, STX(BPF_W, FP, R0, key));
	g_lookup(g, MAPREF_SCNAMES, key);
	int none = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

	for (int w = 0; w < 3; w++)
		g_emit(g, LDX(BPF_DW, R2 + w, R0, 8 * w));
	int named = g_emit(g, JMP_IMM(BPF_JNE, R2, 0, 0));	/* "": a number with no name */

	g_patch(g, big);
	g_patch(g, none);
	g_name_regs(g, "unknown");
	g_patch(g, named);
	g->sp = mark;
}

void gen_str_value(struct gen *g, struct node *n, int off, int size)
{
	if (n->op != F_SYSCALL_NAME) {
		g_unsupported(g, n, "this function as a string");
		return;
	}
	gen_int(g, n->args);
	g_sc_name(g, n);
	g_zero(g, off, g_round8(size));
	for (int w = 0; w < 3 && w * 8 < size; w++) {
		if (size - w * 8 < 8) {	/* a string shorter than a name: cut, NUL-terminated */
			for (int k = 0; k < size - w * 8 - 1; k++) {
				g_emit(g, STX(BPF_B, FP, R2 + w, off + w * 8 + k));
				g_emit(g, ALU_IMM(BPF_RSH, R2 + w, 8));
			}
			break;
		}
		g_emit(g, STX(BPF_DW, FP, R2 + w, off + w * 8));
	}
	if (size <= 24)	/* the last byte of a string is its NUL */
		g_emit(g, ST(BPF_B, FP, off + size - 1, 0));
}

void gen_str_int(struct gen *g, struct node *n)
{
	switch (n->op) {
	case F_STRLEN: case F_STRCAP:	/* strcap() of a pointer: its length, as upstream */
		gen_strlen(g, n->args);
		return;
	case F_STRSTR: case F_GLOBMATCH:
		gen_loop_match(g, n);
		return;
	case F_MEMCMP:
		gen_memcmp(g, n);
		return;
	case F_USERNAME:	/* the uid: user space names it */
		g_emit(g, CALL(BPF_FUNC_get_current_uid_gid));
		g_emit(g, INSN(BPF_ALU | BPF_MOV | BPF_X, R0, R0, 0, 0));	/* the low 32 bits */
		return;
	default:
		g_unsupported(g, n, "this function as a value");
	}
}

/* $s[i]: the string's byte i, 0 when i is past its end (or negative) */
void gen_str_index(struct gen *g, struct node *n)
{
	int mark = g->sp, size = n->l->ty.size, s = g_slot(g, size, n->loc);

	gen_str(g, n->l, s, size);
	gen_int(g, n->r);
	int past = g_emit(g, JMP_IMM(BPF_JGE, R0, size, 0));

	g_fp_addr(g, R1, s);
	g_emit(g, ALU_REG(BPF_ADD, R1, R0));
	g_emit(g, LDX(BPF_B, R0, R1, 0));
	g_extend(g, 8, true);
	int done = g_emit(g, JA(0));

	g_patch(g, past);
	g_emit(g, MOV_IMM(R0, 0));
	g_patch(g, done);
	g->sp = mark;
}

/* assert(cond, msg): a failed condition sends its message; user space prints it and exits with 1 */
void gen_str_stmt(struct gen *g, struct node *n)
{
	if (n->op == F_ASSERT_STR)	/* checked when compiling */
		return;
	if (n->op != F_ASSERT) {
		g_unsupported(g, n, "this statement");
		return;
	}
	gen_int(g, n->args);
	int ok = g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 0));

	g_site_record(g, n, n->args->next);
	g_patch(g, ok);
}
