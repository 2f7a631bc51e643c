/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind.h - DWARF CFI unwinding of user stacks sampled by the kernel
 * (PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER), through elfutils' libdwfl,
 * using the memory maps the symbolizer knows for the process. The caller owns
 * every buffer; the per-process unwinding state lives in the symbolizer.
 */
#ifndef SONDE_UNWIND_H
#define SONDE_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/symbol/symbol.h"

/* the x86-64 perf_regs order (arch/x86/include/uapi/asm/perf_regs.h): bit n of sample_regs_user */
enum perf_reg_x86 {
	PERF_REG_X86_AX, PERF_REG_X86_BX, PERF_REG_X86_CX, PERF_REG_X86_DX,
	PERF_REG_X86_SI, PERF_REG_X86_DI, PERF_REG_X86_BP, PERF_REG_X86_SP,
	PERF_REG_X86_IP, PERF_REG_X86_FLAGS, PERF_REG_X86_CS, PERF_REG_X86_SS,
	PERF_REG_X86_DS, PERF_REG_X86_ES, PERF_REG_X86_FS, PERF_REG_X86_GS,
	PERF_REG_X86_R8, PERF_REG_X86_R9, PERF_REG_X86_R10, PERF_REG_X86_R11,
	PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
};

/* the sample_regs_user mask DWARF unwinding needs: AX..IP and R8..R15 (perf's --call-graph dwarf uses the same) */
#define UNWIND_REGS_MASK 0xff01ffULL

/*
 * DWARF CFI unwinding of a sample taken with PERF_SAMPLE_REGS_USER|PERF_SAMPLE_STACK_USER (x86-64
 * perf_regs layout): regs[] holds the values of the bits set in regs_mask, lowest bit first, exactly
 * as the sample delivers them; stack is the copy of the user stack starting at the sampled SP (the
 * dyn_size bytes of it). Fills ips[] (innermost first: the sampled IP, then return addresses) and
 * returns how many, or -errno (-EINVAL without IP/SP in regs_mask, -ENOENT when no module is mapped).
 */
int unwind__user(struct symbolizer *s, pid_t pid, const uint64_t *regs, uint64_t regs_mask,
		 const uint8_t *stack, size_t stack_size, uint64_t *ips, int max);

/*
 * How to find a frame's caller, in the simple forms compiled code has on
 * x86-64: the CFA (the caller's SP) is SP or BP plus an offset, the return
 * address is at CFA - 8, and the caller's BP is either unchanged or saved at
 * CFA + bp_off. A walker that knows a frame's rule needs no copy of the
 * stack: it reads the return address (and BP) where the rule says.
 */
struct unwind_rule {
	bool cfa_bp;		/* CFA = BP + cfa_off, else SP + cfa_off */
	int64_t cfa_off;
	bool end;		/* the return address is undefined: the outermost frame */
	bool bp_saved;		/* the caller's BP is at CFA + bp_off, else BP is unchanged */
	int64_t bp_off;
};

/*
 * The rule of the frame at pc in pid, whose modules unwind__user reported
 * (call it first): exact for the interrupted IP, else pc is a return address
 * and the rule is the call's (pc - 1). Where the module has no CFI for pc, the
 * frame-pointer rule the unwinder falls back to. 0, -ESRCH when pc is in no
 * module, or -ENOENT when its CFI is not of that simple form (an expression,
 * a CFA in another register).
 */
int unwind__rule(struct symbolizer *s, pid_t pid, uint64_t pc, bool exact, struct unwind_rule *r);

#endif
