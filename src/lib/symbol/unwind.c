// SPDX-License-Identifier: GPL-2.0
/*
 * unwind.c - DWARF CFI unwinding of sampled user stacks with libdwfl's thread
 * interface: one Dwfl per process, its modules reported at the addresses the
 * symbolizer's maps give (rebuilt when the maps change), attached once with
 * callbacks that read the sampled registers (set_initial_registers) and the
 * stack copy (memory_read); dwfl_getthread_frames then walks .eh_frame /
 * .debug_frame (and libdwfl's frame-pointer fallback where CFI is missing).
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/symbol/symbol_int.h"
#include "lib/symbol/unwind.h"

struct unwind_state {
	Dwfl *dwfl;
	unsigned gen;
	unsigned long last_used;
	int *alive;		/* the symbolizer's count of states */
	pid_t pid;
	bool given;		/* next_thread: the one thread was handed out */
	/* the sample being unwound */
	const uint64_t *regs;
	uint64_t mask;
	const uint8_t *stack;
	size_t stack_size;
	uint64_t sp;
	uint64_t *ips;
	int max, n;
};

/* DWARF register numbers of x86-64 (the psABI) for the perf_regs indexes */
static const struct { int perf, dwarf; } regmap[] = {
	{ PERF_REG_X86_AX, 0 }, { PERF_REG_X86_DX, 1 }, { PERF_REG_X86_CX, 2 }, { PERF_REG_X86_BX, 3 },
	{ PERF_REG_X86_SI, 4 }, { PERF_REG_X86_DI, 5 }, { PERF_REG_X86_BP, 6 }, { PERF_REG_X86_SP, 7 },
	{ PERF_REG_X86_R8, 8 }, { PERF_REG_X86_R9, 9 }, { PERF_REG_X86_R10, 10 }, { PERF_REG_X86_R11, 11 },
	{ PERF_REG_X86_R12, 12 }, { PERF_REG_X86_R13, 13 }, { PERF_REG_X86_R14, 14 }, { PERF_REG_X86_R15, 15 },
};

static bool reg_get(const uint64_t *regs, uint64_t mask, int perf, uint64_t *val)
{
	if (!(mask & (1ULL << perf)))
		return false;
	*val = regs[__builtin_popcountll(mask & ((1ULL << perf) - 1))];
	return true;
}

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwind_state *u = arg;

	if (u->given)
		return 0;
	u->given = true;
	*thread_argp = u;
	return u->pid;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwind_state *u = arg;

	if (addr < u->sp || addr - u->sp > u->stack_size || u->stack_size - (addr - u->sp) < sizeof(*result))
		return false;
	memcpy(result, u->stack + (addr - u->sp), sizeof(*result));
	return true;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind_state *u = arg;
	uint64_t v;

	for (size_t i = 0; i < sizeof(regmap) / sizeof(regmap[0]); i++) {
		Dwarf_Word w;

		if (!reg_get(u->regs, u->mask, regmap[i].perf, &v))
			continue;
		w = v;
		if (!dwfl_thread_state_registers(thread, regmap[i].dwarf, 1, &w))
			return false;
	}
	if (!reg_get(u->regs, u->mask, PERF_REG_X86_IP, &v))
		return false;
	/* the IP as DWARF register 16 too: CFA expressions read it (the PLT's, DW_OP_breg16) */
	Dwarf_Word rip = v;

	if (!dwfl_thread_state_registers(thread, 16, 1, &rip))
		return false;
	dwfl_thread_state_register_pc(thread, v);
	return true;
}

static const Dwfl_Thread_Callbacks callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

void unwind__free_state(struct unwind_state *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	(*u->alive)--;
	free(u);
}

/* a Dwfl with every loadable DSO of the process reported at its load bias */
static int build(struct symbolizer *s, struct proc *p, struct unwind_state *u)
{
	const struct dso **seen;
	size_t nseen = 0;
	int reported = 0;

	if (u->dwfl)
		dwfl_end(u->dwfl);
	u->dwfl = dwfl_begin(&s->cb);
	if (!u->dwfl)
		return -ENOMEM;
	seen = calloc(p->n ? p->n : 1, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	dwfl_report_begin(u->dwfl);
	for (size_t i = 0; i < p->n; i++) {
		struct map *m = &p->maps[i];
		struct dso *d = m->dso;
		size_t k;
		int fd = -1;

		if (!d || dso__load(s, d))
			continue;
		for (k = 0; k < nseen && seen[k] != d; k++)
			;
		if (k < nseen)
			continue;
		seen[nseen++] = d;
		if (!d->file) {
			int vfd = dso__vdso_fd(s);

			if (vfd < 0 || (fd = dup(vfd)) < 0)
				continue;
		}
		uint64_t bias = m->start - dso__vaddr(d, m->pgoff);

		if (dwfl_report_elf(u->dwfl, d->name, d->file ? d->file : d->name, fd, bias, true))
			reported++;
		else if (fd >= 0)
			close(fd);
	}
	dwfl_report_end(u->dwfl, NULL, NULL);
	free(seen);
	if (!reported)
		return -ENOENT;
	u->pid = p->pid;
	if (!dwfl_attach_state(u->dwfl, NULL, p->pid, &callbacks, u))
		return -ENOEXEC;
	u->gen = p->gen;
	return 0;
}

/* a system-wide recording has thousands of processes: keep the states of the recently unwound ones */
static void evict_one(struct symbolizer *s)
{
	struct proc *oldest = NULL;

	for (size_t h = 0; h < sizeof(s->procs) / sizeof(s->procs[0]); h++)
		for (struct proc *p = s->procs[h]; p; p = p->next)
			if (p->uw && (!oldest || p->uw->last_used < oldest->uw->last_used))
				oldest = p;
	if (oldest) {
		unwind__free_state(oldest->uw);
		oldest->uw = NULL;
	}
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwind_state *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	u->ips[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int unwind__user(struct symbolizer *s, pid_t pid, const uint64_t *regs, uint64_t regs_mask,
		 const uint8_t *stack, size_t stack_size, uint64_t *ips, int max)
{
	struct proc *p = symbolizer__proc(s, pid, false);
	struct unwind_state *u;
	uint64_t ip, sp;
	int err;

	if (max < 1 || !regs || !reg_get(regs, regs_mask, PERF_REG_X86_IP, &ip) ||
	    !reg_get(regs, regs_mask, PERF_REG_X86_SP, &sp))
		return -EINVAL;
	if (!p || !p->n) {
		ips[0] = ip;
		return p ? -ENOENT : -ESRCH;
	}
	if (!p->uw) {
		if (s->nr_unwind >= UNWIND_MAX_STATES)
			evict_one(s);
		p->uw = calloc(1, sizeof(*p->uw));
		if (!p->uw)
			return -ENOMEM;
		p->uw->alive = &s->nr_unwind;
		s->nr_unwind++;
	}
	u = p->uw;
	u->last_used = ++s->unwind_tick;
	if (!u->dwfl || u->gen != p->gen) {
		err = build(s, p, u);
		if (err) {
			dwfl_end(u->dwfl);
			u->dwfl = NULL;
			return err;
		}
	}
	u->regs = regs;
	u->mask = regs_mask;
	u->stack = stack;
	u->stack_size = stack ? stack_size : 0;
	u->sp = sp;
	u->ips = ips;
	u->max = max;
	u->n = 0;
	u->given = false;
	/* it ends with an error at the outermost frame (no CFI for _start's caller): the frames so far stand */
	dwfl_getthread_frames(u->dwfl, pid, frame_cb, u);
	if (!u->n)
		ips[u->n++] = ip;
	return u->n;
}

/* the rule of an offset(N) register location ([call_frame_cfa] or [call_frame_cfa, plus_uconst N]) */
static bool cfa_offset(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops < 1 || nops > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (nops == 1) {
		*off = 0;
		return true;
	}
	if (ops[1].atom != DW_OP_plus_uconst)
		return false;
	*off = (int64_t)ops[1].number;
	return true;
}

static int rule_of(Dwarf_Frame *f, struct unwind_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t off;

	memset(r, 0, sizeof(*r));
	if (dwarf_frame_cfa(f, &ops, &nops) || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    (ops[0].number != 7 && ops[0].number != 6))
		return -ENOENT;
	r->cfa_bp = ops[0].number == 6;
	r->cfa_off = (int64_t)ops[0].number2;
	if (dwarf_frame_register(f, 16, mem, &ops, &nops))
		return -ENOENT;
	if (!nops && ops) {	/* undefined: the outermost frame */
		r->end = true;
		return 0;
	}
	if (!cfa_offset(ops, nops, &off) || off != -8)
		return -ENOENT;
	if (dwarf_frame_register(f, 6, mem, &ops, &nops))
		return -ENOENT;
	if (!nops && !ops)	/* same value */
		return 0;
	if (!cfa_offset(ops, nops, &off))
		return -ENOENT;
	r->bp_saved = true;
	r->bp_off = off;
	return 0;
}

int unwind__rule(struct symbolizer *s, pid_t pid, uint64_t pc, bool exact, struct unwind_rule *r)
{
	struct proc *p = symbolizer__proc(s, pid, false);
	Dwarf_Addr at = exact ? pc : pc - 1, bias;
	Dwfl_Module *m;
	Dwarf_Frame *f;
	Dwarf_CFI *cfi;
	int rc;

	if (!p || !p->uw || !p->uw->dwfl || !(m = dwfl_addrmodule(p->uw->dwfl, at)))
		return -ESRCH;
	/* as libdwfl's unwinder: .eh_frame first, then .debug_frame, then frame pointers */
	for (int i = 0; i < 2; i++) {
		cfi = i ? dwfl_module_dwarf_cfi(m, &bias) : dwfl_module_eh_cfi(m, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, at - bias, &f))
			continue;
		rc = rule_of(f, r);
		free(f);
		return rc;
	}
	*r = (struct unwind_rule){ .cfa_bp = true, .cfa_off = 16, .bp_saved = true, .bp_off = -16 };
	return 0;
}
