// SPDX-License-Identifier: GPL-2.0
/*
 * dump.c - a listing of generated BPF instructions for -v, in the notation of
 * the kernel verifier's log ("r1 = *(u64 *)(r10 -8)").
 */
#include "lang/gen.h"

#include <stdio.h>

static const char *alu_op(int op)
{
	switch (op) {
	case BPF_ADD: return "+=";
	case BPF_SUB: return "-=";
	case BPF_MUL: return "*=";
	case BPF_DIV: return "/=";
	case BPF_OR: return "|=";
	case BPF_AND: return "&=";
	case BPF_LSH: return "<<=";
	case BPF_RSH: return ">>=";
	case BPF_MOD: return "%=";
	case BPF_XOR: return "^=";
	case BPF_MOV: return "=";
	case BPF_ARSH: return "s>>=";
	default: return "?";
	}
}

static const char *jmp_op(int op)
{
	switch (op) {
	case BPF_JEQ: return "==";
	case BPF_JGT: return ">";
	case BPF_JGE: return ">=";
	case BPF_JSET: return "&";
	case BPF_JNE: return "!=";
	case BPF_JSGT: return "s>";
	case BPF_JSGE: return "s>=";
	case BPF_JLT: return "<";
	case BPF_JLE: return "<=";
	case BPF_JSLT: return "s<";
	case BPF_JSLE: return "s<=";
	default: return "?";
	}
}

static const char *size_name(int sz)
{
	switch (sz) {
	case BPF_B: return "u8";
	case BPF_H: return "u16";
	case BPF_W: return "u32";
	default: return "u64";
	}
}

void bpf_code__dump(const struct bpf_code *c, FILE *f)
{
	for (int i = 0; i < c->n; i++) {
		const struct bpf_insn *in = &c->insns[i];
		int cls = BPF_CLASS(in->code);

		for (int k = 0; k < c->nsubs; k++)
			if (c->subs[k] == i)
				fprintf(f, "; subprogram %d (a for loop's callback)\n", k + 1);
		fprintf(f, "%4d: ", i);
		switch (cls) {
		case BPF_ALU64: case BPF_ALU: {
			const char *w = cls == BPF_ALU ? "w" : "r";

			if (BPF_OP(in->code) == BPF_NEG)
				fprintf(f, "%s%d = -%s%d\n", w, in->dst_reg, w, in->dst_reg);
			else if (BPF_OP(in->code) == BPF_END)
				fprintf(f, "r%d = be%d r%d\n", in->dst_reg, in->imm, in->dst_reg);
			else if (BPF_SRC(in->code) == BPF_X)
				fprintf(f, "%s%d %s %s%d\n", w, in->dst_reg, alu_op(BPF_OP(in->code)), w, in->src_reg);
			else
				fprintf(f, "%s%d %s %d\n", w, in->dst_reg, alu_op(BPF_OP(in->code)), in->imm);
			break;
		}
		case BPF_LDX:
			fprintf(f, "r%d = *(%s *)(r%d %+d)\n", in->dst_reg, size_name(BPF_SIZE(in->code)), in->src_reg, in->off);
			break;
		case BPF_STX:
			if (BPF_MODE(in->code) == BPF_ATOMIC)
				fprintf(f, "lock *(%s *)(r%d %+d) += r%d\n", size_name(BPF_SIZE(in->code)), in->dst_reg, in->off,
					in->src_reg);
			else
				fprintf(f, "*(%s *)(r%d %+d) = r%d\n", size_name(BPF_SIZE(in->code)), in->dst_reg, in->off,
					in->src_reg);
			break;
		case BPF_ST:
			fprintf(f, "*(%s *)(r%d %+d) = %d\n", size_name(BPF_SIZE(in->code)), in->dst_reg, in->off, in->imm);
			break;
		case BPF_LD:
			if (i + 1 < c->n) {
				unsigned long long v = (uint32_t)in->imm | ((unsigned long long)(uint32_t)in[1].imm << 32);

				if (in->src_reg == BPF_PSEUDO_FUNC)
					fprintf(f, "r%d = func %d ll\n", in->dst_reg, i + in->imm + 1);
				else if (in->src_reg == BPF_PSEUDO_MAP_FD)
					fprintf(f, "r%d = map_fd %d ll\n", in->dst_reg, in->imm);
				else
					fprintf(f, "r%d = 0x%llx ll\n", in->dst_reg, v);
				i++;
			}
			break;
		case BPF_JMP: case BPF_JMP32: {
			int op = BPF_OP(in->code);

			if (op == BPF_CALL && in->src_reg == BPF_PSEUDO_KFUNC_CALL)
				fprintf(f, "call kernel function (BTF id %d)\n", in->imm);
			else if (op == BPF_CALL)
				fprintf(f, "call %d\n", in->imm);
			else if (op == BPF_EXIT)
				fprintf(f, "exit\n");
			else if (op == BPF_JA)
				fprintf(f, "goto %+d\n", in->off);
			else if (BPF_SRC(in->code) == BPF_X)
				fprintf(f, "if r%d %s r%d goto %+d\n", in->dst_reg, jmp_op(op), in->src_reg, in->off);
			else
				fprintf(f, "if r%d %s %d goto %+d\n", in->dst_reg, jmp_op(op), in->imm, in->off);
			break;
		}
		default:
			fprintf(f, "(%02x) ?\n", in->code);
		}
	}
}
