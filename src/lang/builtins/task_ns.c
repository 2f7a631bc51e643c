// SPDX-License-Identifier: GPL-2.0
/*
 * task_ns.c - builtins that reach other tasks, namespaces and per-CPU
 * kernel data, checked and generated here:
 *   pid(curr_ns | init), tid(...): bpf_get_ns_current_pid_tgid with the
 *     device and inode of sonde's own /proc/self/ns/pid (curr_ns, also what
 *     plain pid/tid give when sonde runs outside the initial namespace);
 *   comm(pid): the bpf_task_from_pid kfunc, the task's comm, bpf_task_release
 *     (the kernel lets only tracing programs call them: fentry, fexit, iter);
 *   percpu_kaddr("sym"[, cpu]): bpf_this_cpu_ptr / bpf_per_cpu_ptr on the
 *     symbol's BTF VAR (an ld_imm64 of BPF_PSEUDO_BTF_ID), as a plain address;
 *   socket_cookie(sk): bpf_get_socket_cookie, which tracing programs (fentry,
 *     fexit) give a struct sock pointer the verifier knows from BTF.
 */
#include "lang/check_int.h"
#include "lang/gen_int.h"
#include "lang/ktypes.h"
#include "lang/provider.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>

enum { PROC_PID_INIT_INO = 0xEFFFFFFC };

/* sonde's pid namespace as the kernel names it (its s_dev, inode); false when it cannot be read */
static bool own_pidns(uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st))
		return false;
	*dev = ((uint64_t)major(st.st_dev) << 20) | minor(st.st_dev);	/* the kernel's dev_t: MKDEV() */
	*ino = st.st_ino;
	return true;
}

static bool is_tracing(const struct ap_inst *in)
{
	return in && in->prog_type == BPF_PROG_TYPE_TRACING;
}

/*
 * May programs of this type call bpf_task_from_pid? Asked of the kernel once per
 * type with a tiny program (Linux 6.18 lets tracing, tracepoint and perf_event
 * programs, not kprobe or raw tracepoint ones); true when it cannot be asked.
 */
static bool kfunc_allowed(struct program *p, int prog_type)
{
	static signed char known[64];
	struct btf *btf = ktypes__btf(p, NULL, 0);
	int from = btf ? btf__find_by_name_kind(btf, "bpf_task_from_pid", BTF_KIND_FUNC) : -1;
	int rel = btf ? btf__find_by_name_kind(btf, "bpf_task_release", BTF_KIND_FUNC) : -1;

	if (prog_type == BPF_PROG_TYPE_TRACING || prog_type < 0 || prog_type >= 64 || from <= 0 || rel <= 0)
		return true;
	if (!known[prog_type]) {
		struct bpf_insn insns[] = {
			MOV_IMM(R1, 1), INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, from),
			JMP_IMM(BPF_JEQ, R0, 0, 2), MOV_REG(R1, R0),
			INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, rel), MOV_IMM(R0, 0),
			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		};
		int fd = bpf_prog_load(prog_type, "sonde_kfunc", "GPL", insns, sizeof(insns) / sizeof(insns[0]), NULL);

		known[prog_type] = fd >= 0 || errno == EPERM ? 1 : -1;	/* EPERM: not root, the load will tell */
		if (fd >= 0)
			close(fd);
		if (fd < 0 && errno == EACCES)
			known[prog_type] = -1;
	}
	return known[prog_type] > 0;
}

static struct type fail(struct ck *c, struct node *n, const char *msg)
{
	lang__error(c->prog, n->loc, "%s", msg);
	return ty_kind(TY_NONE, 0);
}

struct type cktask__call(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	(void)assign_to;
	struct node *a0 = n->args;
	long long v;

	switch (f->id) {
	case F_PID_NS: case F_TID_NS:
		if (a0->kind != N_IDENT || (strcmp(a0->s, "curr_ns") && strcmp(a0->s, "init"))) {
			lang__error(c->prog, a0->loc, "%s() takes a pid namespace: curr_ns (sonde's) or init", n->s);
			return ty_kind(TY_NONE, 0);
		}
		n->id = !strcmp(a0->s, "init");
		return n->ty = ty_int(false, 64);
	case F_COMM:
		if (ck_expr(c, a0).kind != TY_INT || a0->ty.ptr)
			return fail(c, a0, "comm(pid) takes a process id");
		if (c->in && !kfunc_allowed(c->prog, c->in->prog_type)) {
			int t = c->in->prog_type;
			bool tp = kfunc_allowed(c->prog, BPF_PROG_TYPE_TRACEPOINT);
			bool pe = kfunc_allowed(c->prog, BPF_PROG_TYPE_PERF_EVENT);

			lang__error(c->prog, n->loc, "comm(pid) finds the task with the kernel function bpf_task_from_pid, "
				    "which this kernel does not let %s programs call (%s%s%sfentry, fexit and iter probes "
				    "can)", t == BPF_PROG_TYPE_KPROBE ? "kprobe, uprobe and usdt" :
				    t == BPF_PROG_TYPE_RAW_TRACEPOINT ? "raw tracepoint (BEGIN, END, rawtracepoint, and the "
				    "syscalls tracepoints sonde runs as raw ones)" : c->in->prov->name,
				    tp ? "tracepoint, " : "", pe ? "profile, interval, software, " : "", tp || pe ? "" : "only ");
			return ty_kind(TY_NONE, 0);
		}
		if (ktypes__find(c->prog, "struct task_struct") <= 0)
			return fail(c, n, "comm(pid) needs the kernel's BTF (struct task_struct)");
		return n->ty = ty_str(16);
	case F_PERCPU_KADDR: {
		struct btf *btf = ktypes__btf(c->prog, NULL, 0);

		if (a0->kind != N_STR)
			return fail(c, a0, "percpu_kaddr() takes a symbol name literal");
		if (!btf)
			return fail(c, n, "percpu_kaddr() needs the kernel's BTF (/sys/kernel/btf/vmlinux)");
		if (btf__find_by_name_kind(btf, a0->s, BTF_KIND_VAR) <= 0) {
			lang__error(c->prog, a0->loc, "the kernel's BTF has no per-CPU variable '%s'", a0->s);
			return ty_kind(TY_NONE, 0);
		}
		if (a0->next && (ck_expr(c, a0->next).kind != TY_INT || a0->next->ty.ptr))
			return fail(c, a0->next, "percpu_kaddr()'s second argument is a CPU number");
		struct type *to = arena__alloc(c->prog->arena, sizeof(*to));

		*to = ty_int(false, 64);
		n->ty = ty_int(false, 64);
		n->ty.ptr = to;		/* uint64 *, in kernel memory */
		return n->ty;
	}
	case F_SOCKET_COOKIE:
		if (ck_expr(c, a0).kind != TY_INT || ck_is_const_int(a0, &v))
			return fail(c, a0, "socket_cookie() takes a struct sock pointer");
		if (c->in && !is_tracing(c->in))
			return fail(c, n, "socket_cookie() calls bpf_get_socket_cookie, which takes a struct sock pointer "
				    "only in tracing programs (fentry, fexit): not in this probe");
		return n->ty = ty_int(false, 64);
	default:
		return fail(c, n, "unknown function");
	}
}

/* r0 = pid or tid as sonde's pid namespace sees it (0 for tasks outside it) */
static void ns_pid(struct gen *g, bool tid, struct loc loc)
{
	uint64_t dev = 0, ino = 0;
	int mark = g->sp, slot = g_slot(g, 8, loc);

	if (!own_pidns(&dev, &ino) && !g->fail) {
		lang__error(g->prog, loc, "cannot read sonde's pid namespace (/proc/self/ns/pid): %s", strerror(errno));
		g->fail = true;
	}
	g_emit(g, ST(BPF_DW, FP, slot, 0));
	g_ld_imm64(g, R1, dev);
	g_ld_imm64(g, R2, ino);
	g_fp_addr(g, R3, slot);
	g_emit(g, MOV_IMM(R4, 8));	/* struct bpf_pidns_info { u32 pid; u32 tgid; } */
	g_emit(g, CALL(BPF_FUNC_get_ns_current_pid_tgid));
	g_emit(g, LDX(BPF_W, R0, FP, slot + (tid ? 0 : 4)));
	g->sp = mark;
}

bool gentask__ns_pid(struct gen *g, struct node *n, bool tid)
{
	uint64_t dev, ino;

	if (!own_pidns(&dev, &ino) || ino == PROC_PID_INIT_INO)
		return false;	/* the initial namespace: the plain helper's numbers */
	ns_pid(g, tid, n->loc);
	return true;
}

static int kfunc(struct gen *g, struct node *n, const char *name)
{
	struct btf *btf = ktypes__btf(g->prog, NULL, 0);
	int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;

	if (id <= 0 && !g->fail) {
		lang__error(g->prog, n->loc, "the kernel has no function %s (a kfunc of Linux 6.2 and later)", name);
		g->fail = true;
	}
	return id;
}

/* the string comm(pid): its 16 bytes at fp+off, zero when no task has that pid */
void gentask__comm(struct gen *g, struct node *n, int off, int size)
{
	int from = kfunc(g, n, "bpf_task_from_pid"), rel = kfunc(g, n, "bpf_task_release");
	int task = ktypes__find(g->prog, "struct task_struct"), coff = 0, bo, bs, tid;
	int mark = g->sp, slot = g_slot(g, 8, n->loc);

	if (g->fail || ktypes__member(g->prog, task, "comm", &coff, &bo, &bs, &tid)) {
		g->fail = true;
		return;
	}
	g_zero(g, off, size);
	gen_int(g, n->args);
	g_emit(g, MOV_REG(R1, R0));
	g_emit(g, INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, from));
	int skip = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

	g_emit(g, STX(BPF_DW, FP, R0, slot));	/* the reference, spilled across the read */
	g_fp_addr(g, R1, off);
	g_emit(g, MOV_IMM(R2, size < 16 ? size : 16));
	g_emit(g, MOV_REG(R3, R0));
	g_emit(g, ALU_IMM(BPF_ADD, R3, coff));
	g_emit(g, CALL(BPF_FUNC_probe_read_kernel));
	g_hcheck(g);
	g_emit(g, LDX(BPF_DW, R1, FP, slot));
	g_emit(g, INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, rel));
	g_patch(g, skip);
	g->sp = mark;
}

/* r0 = the pointer in r0 as a plain number: copied through the stack by probe_read, the verifier forgets its type */
static void plain(struct gen *g, struct loc loc)
{
	int mark = g->sp, a = g_slot(g, 8, loc), b = g_slot(g, 8, loc);

	g_emit(g, STX(BPF_DW, FP, R0, a));
	g_emit(g, ST(BPF_DW, FP, b, 0));
	g_fp_addr(g, R1, b);
	g_emit(g, MOV_IMM(R2, 8));
	g_fp_addr(g, R3, a);
	g_emit(g, CALL(BPF_FUNC_probe_read_kernel));
	g_hcheck(g);
	g_emit(g, LDX(BPF_DW, R0, FP, b));
	g->sp = mark;
}

void gentask__int(struct gen *g, struct node *n)
{
	struct node *a0 = n->args;

	switch (n->op) {
	case F_PID_NS: case F_TID_NS:
		if (n->id == 1) {	/* init: the helper's numbers are the initial namespace's */
			g_emit(g, CALL(BPF_FUNC_get_current_pid_tgid));
			if (n->op == F_PID_NS)
				g_emit(g, ALU_IMM(BPF_RSH, R0, 32));
			else
				g_emit(g, INSN(BPF_ALU | BPF_MOV | BPF_X, R0, R0, 0, 0));
		} else {
			ns_pid(g, n->op == F_TID_NS, n->loc);
		}
		return;
	case F_PERCPU_KADDR: {
		struct btf *btf = ktypes__btf(g->prog, NULL, 0);
		int var = btf ? btf__find_by_name_kind(btf, a0->s, BTF_KIND_VAR) : -1;
		uint64_t addr;

		if (g_kaddr(a0->s, &addr) && !g->fail) {	/* the verifier resolves the VAR through kallsyms */
			lang__error(g->prog, a0->loc, "percpu_kaddr(\"%s\"): the kernel cannot resolve its address: "
				    "/proc/kallsyms has no '%s' (data symbols need CONFIG_KALLSYMS_ALL, which this kernel "
				    "was built without)", a0->s, a0->s);
			g->fail = true;
			return;
		}

		if (a0->next) {
			gen_int(g, a0->next);
			g_emit(g, MOV_REG(R2, R0));
		}
		g_emit(g, INSN(BPF_LD | BPF_DW | BPF_IMM, R1, BPF_PSEUDO_BTF_ID, 0, var));
		g_emit(g, INSN(0, 0, 0, 0, 0));	/* the BTF object: 0, vmlinux */
		g_emit(g, CALL(a0->next ? BPF_FUNC_per_cpu_ptr : BPF_FUNC_this_cpu_ptr));
		plain(g, n->loc);
		return;
	}
	case F_SOCKET_COOKIE:
		gen_int(g, a0);
		g_emit(g, MOV_REG(R1, R0));
		g_emit(g, CALL(BPF_FUNC_get_socket_cookie));
		return;
	default:
		g_unsupported(g, n, n->s);
	}
}
