// SPDX-License-Identifier: GPL-2.0
/*
 * ltrace.bpf.c - the kernel side of `sonde ltrace`.
 *
 * One uprobe program for the entry of every traced function and one
 * uretprobe program for its return, attached at the PLT stubs of the traced
 * objects; the BPF cookie of each attachment says which function it is (the
 * index of its capture plan in `plans`). The entry sends the six argument
 * registers, the caller's return address and the strings the plan names; the
 * return sends the return value (and a returned string). Two records per
 * call, so the reader sees nesting, threads and syscalls in the order they
 * happen, as ltrace prints them (`<unfinished ...>`). Nothing stops the
 * traced program; a full ring buffer is counted, never silent.
 *
 * -S adds raw_syscalls sys_enter/sys_exit (raw tracepoints) for the target
 * processes; -f grows the targets on fork. The exit of a target process is
 * a record too, with its wait status.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "ltrace.h"
#include "counter.h"
#include "maps.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool follow = false;	/* -f: children join the targets */
const volatile __u64 wake_bytes = 0;	/* wake the reader once this much is waiting */
const volatile bool hold_exec = false;	/* stop a process that execs until its new PLT is probed */
const volatile bool jump = false;	/* the kernel lets a uprobe program set the IP */

#define NR_URETPROBE	335
#define NR_UPROBE	336

/* the capture plan of each function, by cookie */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LT_MAX_FUNCS);
	__type(key, __u32);
	__type(value, struct lt_plan);
} plans SEC(".maps");

/* -S: the capture plan of each syscall, by number */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LT_SYS_MAX);
	__type(key, __u32);
	__type(value, struct lt_plan);
} sysplans SEC(".maps");

/*
 * The traced processes (tgid): 1 traced, 2 a started command waiting for its
 * exec, 3 traced and stopped after an exec until the reader has probed the
 * new program (its SIGSTOP and SIGCONT are sonde's, not the program's), 4
 * traced and continued, its parent's SIGCHLD for that still to come
 */
TARGETS_MAP(targets);

/*
 * A string whose page was not resident at the entry (the first call to read
 * a .rodata string faults it in) is read again at the return, in the return
 * record: the pointers to read again, per thread, for the innermost call.
 */
struct refetch {
	__u32 idx;
	__u8 n;
	__u8 arg[LT_NSTR];
	__u64 ptr[LT_NSTR];
};

TASK_STORAGE_MAP(refetches, struct refetch);

COUNTERS_MAP(counters, LT_NR);
RINGBUF_MAP(rb, 16 << 20);

#define count(which) counter_inc(&counters, (which))

static __always_inline bool traced(__u32 tgid)
{
	__u8 *v = bpf_map_lookup_elem(&targets, &tgid);

	return v && (*v == 1 || *v == 3 || *v == 4);
}

static __always_inline bool held(__u32 tgid)
{
	__u8 *v = bpf_map_lookup_elem(&targets, &tgid);

	return v && (*v == 3 || *v == 4);
}

/* whether the plan captures something at this point (the entry, or the return when ret) */
static __always_inline bool wants_capture(const struct lt_plan *p, bool ret)
{
	for (int i = 0; i < LT_NSTR; i++)
		if (i < p->n && (p->arg[i] == LT_RET_ARG) == ret)
			return true;
	return false;
}

static __always_inline void capture(struct lt_event *e, const struct lt_plan *p, bool ret)
{
	int n = 0, faulted = 0;
	__u64 ptrs[LT_NSTR] = {};

	for (int i = 0; i < LT_NSTR; i++) {
		unsigned char a = p->arg[i];
		__u64 ptr, len;
		long r;

		if (i >= p->n || (a == LT_RET_ARG) != ret)
			continue;
		if (!ret && (a & 7) > 5)
			continue;
		ptr = ret ? e->args[0] : e->args[a & 7];
		e->str_arg[i] = a;
		ptrs[i] = ptr;
		if (!ptr) {
			e->str_len[i] = -14;	/* EFAULT: shown as nil */
			continue;
		}
		if (p->mode[i] == LT_CAP_BUF) {
			unsigned char li = p->len[i] & 7;

			len = li < 6 ? e->args[li] : 0;
			if (len > LT_STR_MAX)
				len = LT_STR_MAX;
			r = bpf_probe_read_user(e->str[i], len, (void *)ptr);
			e->str_len[i] = r ? r : (short)len;
		} else {
			e->str_len[i] = bpf_probe_read_user_str(e->str[i], LT_STR_MAX, (void *)ptr);
			if (e->str_len[i] == -14 && !ret)
				faulted |= 1 << i;
		}
		n = i + 1;
	}
	e->nstr = n;
	if (faulted) {
		struct refetch *r = bpf_task_storage_get(&refetches, bpf_get_current_task_btf(), 0,
							 BPF_LOCAL_STORAGE_GET_F_CREATE);

		if (!r)
			return;
		r->idx = e->idx;
		r->n = 0;
		for (int i = 0; i < LT_NSTR; i++)
			if (faulted & (1 << i)) {
				r->arg[i] = e->str_arg[i];
				r->ptr[i] = ptrs[i];
				r->n = i + 1;
			} else {
				r->ptr[i] = 0;
			}
	}
}

/* the return of a call whose strings faulted at its entry: read them again into e */
static __always_inline void refetch(struct lt_event *e, struct refetch *r)
{
	int n = e->nstr;

	for (int i = 0; i < LT_NSTR; i++) {
		if (i >= r->n || !r->ptr[i] || (i < n && e->str_arg[i] == LT_RET_ARG))
			continue;
		e->str_arg[i] = r->arg[i];
		e->str_len[i] = bpf_probe_read_user_str(e->str[i], LT_STR_MAX, (void *)r->ptr[i]);
		if (i + 1 > e->nstr)
			e->nstr = i + 1;
	}
	r->n = 0;
}

/*
 * Waking the reader for every record costs it a wakeup per call (a third of
 * the cost per call on a VM): wake it once wake_bytes are waiting, and for a
 * process's exit; the reader also drains on a short timer.
 */
static __always_inline void submit(struct lt_event *e, bool urgent)
{
	bpf_ringbuf_submit(e, urgent || bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) >= wake_bytes ?
			      BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

/* a record for the current task: the full size when strings are captured; NULL when the ring buffer is full */
static __always_inline struct lt_event *reserve(bool strings)
{
	struct lt_event *e;

	if (strings)
		e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	else
		e = bpf_ringbuf_reserve(&rb, LT_EV_HDR, 0);
	if (!e) {
		count(LT_LOST);
		return NULL;
	}
	e->nstr = 0;
	return e;
}

/* the fields every record has: now, whose, which function, syscall or signal, and what kind */
static __always_inline void head(struct lt_event *e, __u32 pid, __u32 tid, __u32 idx, __u16 type)
{
	e->ts = bpf_ktime_get_ns();
	e->pid = pid;
	e->tid = tid;
	e->idx = idx;
	e->type = type;
	e->ip = 0;
}

/*
 * The stub's own work, `jmp *GOT(%rip)`, done here: the uprobe then returns
 * to the function (or to the lazy binder the slot still points to) and the
 * kernel skips executing the stub's jump out of line, a single-step trap that
 * costs more than the rest of the probe (kernels after 6.18 let a uprobe program
 * change the IP, and then skips it). The return address on the stack stays
 * the caller's, so the uretprobe is unchanged.
 */
static __always_inline void plt_jump(struct pt_regs *ctx, int got_rel)
{
	__u64 target;

	if (!bpf_probe_read_user(&target, sizeof(target), (void *)(ctx->ip + (long)got_rel)) && target)
		ctx->ip = target;
}

static __always_inline int call_event(struct pt_regs *ctx, bool ret)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 idx = bpf_get_attach_cookie(ctx);
	struct refetch *r = NULL;
	struct lt_plan *p;
	struct lt_event *e;
	bool strings;

	p = bpf_map_lookup_elem(&plans, &idx);
	if (!p)
		return 0;
	if (!ret && jump && p->got_rel)
		plt_jump(ctx, p->got_rel);
	if (!traced(pt >> 32))
		return 0;
	strings = wants_capture(p, ret);
	if (ret) {
		r = bpf_task_storage_get(&refetches, bpf_get_current_task_btf(), 0, 0);
		if (r && (!r->n || r->idx != idx))
			r = NULL;
	}
	if (!(e = reserve(strings || r)))
		return 0;
	head(e, pt >> 32, (__u32)pt, idx, ret ? LT_RETURN : LT_ENTRY);
	if (ret) {
		e->args[0] = PT_REGS_RC(ctx);
	} else {
		count(LT_CALLS);
		e->args[0] = PT_REGS_PARM1(ctx);
		e->args[1] = PT_REGS_PARM2(ctx);
		e->args[2] = PT_REGS_PARM3(ctx);
		e->args[3] = PT_REGS_PARM4(ctx);
		e->args[4] = PT_REGS_PARM5(ctx);
		e->args[5] = ctx->r9;	/* libbpf 1.1 has no PT_REGS_PARM6 */
		bpf_probe_read_user(&e->ip, sizeof(e->ip), (void *)PT_REGS_SP(ctx));
	}
	if (strings)
		capture(e, p, ret);
	if (r)
		refetch(e, r);
	submit(e, false);
	return 0;
}

SEC("uprobe")
int lt_entry(struct pt_regs *ctx)
{
	return call_event(ctx, false);
}

SEC("uretprobe")
int lt_return(struct pt_regs *ctx)
{
	return call_event(ctx, true);
}

static __always_inline int sys_event(struct pt_regs *regs, long v, bool exit)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 nr;
	struct lt_plan *p = NULL;
	struct lt_event *e;
	bool strings;

	if (!traced(pt >> 32))
		return 0;
	nr = exit ? (__u32)BPF_CORE_READ(regs, orig_ax) : (__u32)v;
	/* rt_sigreturn restores the registers of before the signal, orig_ax -1 among them */
	if (exit && nr == (__u32)-1)
		nr = 15;
	/*
	 * Not the program's own: the uretprobe trampoline's syscall (Linux 6.11)
	 * and the optimized uprobes' (6.18), whose exit has no number left
	 */
	if (nr == NR_URETPROBE || nr == NR_UPROBE || nr >= LT_SYS_MAX)
		return 0;
	p = bpf_map_lookup_elem(&sysplans, &nr);
	strings = !exit && p && wants_capture(p, false);
	if (!(e = reserve(strings)))
		return 0;
	head(e, pt >> 32, (__u32)pt, nr, exit ? LT_SYS_EXIT : LT_SYS_ENTER);
	if (exit) {
		e->args[0] = v;
	} else {
		e->args[0] = BPF_CORE_READ(regs, di);
		e->args[1] = BPF_CORE_READ(regs, si);
		e->args[2] = BPF_CORE_READ(regs, dx);
		e->args[3] = BPF_CORE_READ(regs, r10);
		e->args[4] = BPF_CORE_READ(regs, r8);
		e->args[5] = BPF_CORE_READ(regs, r9);
	}
	if (strings && p)
		capture(e, p, false);
	submit(e, false);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(lt_sys_enter, struct pt_regs *regs, long id)
{
	return sys_event(regs, id, false);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(lt_sys_exit, struct pt_regs *regs, long ret)
{
	return sys_event(regs, ret, true);
}

/*
 * A traced process has new code to probe (an exec, a library): the record of
 * type that says so; with hold_exec the process stops (its state v 3) until
 * the reader has probed it
 */
static __always_inline void new_code(__u8 *v, __u32 tgid, __u32 tid, __u16 type)
{
	struct lt_event *e = reserve(false);

	if (!e)
		return;
	if (hold_exec) {
		*v = 3;
		bpf_send_signal(19);	/* SIGSTOP */
	}
	head(e, tgid, tid, hold_exec, type);
	submit(e, true);
}

/*
 * A started command is traced from its exec on. A traced process that execs
 * another program: a record, so the reader probes the new program's PLT
 * (ltrace's "--- Called exec() ---"); with hold_exec the process stops
 * before its first instruction until the reader is done (SIGCONT)
 */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(lt_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tgid = pt >> 32;
	__u8 *v = bpf_map_lookup_elem(&targets, &tgid);

	if (v && *v == 2) {
		*v = 1;
		return 0;
	}
	if (v && *v == 1)
		new_code(v, tgid, (__u32)pt, LT_EXEC);
	return 0;
}

/*
 * The dynamic loader's _dl_debug_state(), which it calls before and after it
 * maps or unmaps libraries (dlopen, dlclose, and the ones the program
 * needs): a record, so the reader probes the PLT of a library new in the
 * process; held as at an exec
 */
SEC("uprobe")
int lt_dlstate(struct pt_regs *ctx)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tgid = pt >> 32;
	__u8 *v = bpf_map_lookup_elem(&targets, &tgid);

	if (v && (*v == 1 || *v == 4))
		new_code(v, tgid, (__u32)pt, LT_DLOPEN);
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(lt_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (follow && ptgid != ctgid && traced(ptgid))
		bpf_map_update_elem(&targets, &ctgid, &one, BPF_NOEXIST);
	return 0;
}

/* the last thread of a traced process ends: its wait status */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(lt_proc_exit, struct task_struct *task)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct lt_event *e;

	if (!traced(tgid) || BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0;
	if (!(e = reserve(false)))
		return 0;
	head(e, tgid, BPF_CORE_READ(task, pid), 0, LT_EXIT);
	e->args[0] = BPF_CORE_READ(task, exit_code);
	submit(e, true);
	return 0;
}

/* the SIGCHLD that sonde's stop or continuation of a child sends its parent */
static __always_inline bool sondes_sigchld(int sig, struct kernel_siginfo *info)
{
	__u32 child;
	int code;
	__u8 *v;

	if (sig != 17 || !info)
		return false;
	code = BPF_CORE_READ(info, si_code);
	child = BPF_CORE_READ(info, _sifields._sigchld._pid);
	if (!(v = bpf_map_lookup_elem(&targets, &child)))
		return false;
	if (code == 5 && *v == 3)	/* CLD_STOPPED */
		return true;
	if (code == 6 && (*v == 3 || *v == 4)) {	/* CLD_CONTINUED */
		*v = 1;
		return true;
	}
	return false;
}

static __always_inline int sig_event(__u32 tgid, __u32 tid, int sig)
{
	struct lt_event *e;

	if (sig == 9 || !traced(tgid))	/* SIGKILL: ltrace never sees it either */
		return 0;
	if ((sig == 19 || sig == 18) && held(tgid))	/* sonde's SIGSTOP and SIGCONT */
		return 0;
	if (!(e = reserve(false)))
		return 0;
	head(e, tgid, tid, sig, LT_SIGNAL);
	submit(e, false);
	return 0;
}

/* a signal the thread takes now (a handler runs, or its default action) */
SEC("raw_tp/signal_deliver")
int BPF_PROG(lt_sig_deliver, int sig, struct kernel_siginfo *info, struct k_sigaction *ka)
{
	__u64 pt = bpf_get_current_pid_tgid();

	if (sondes_sigchld(sig, info))
		return 0;
	return sig_event(pt >> 32, (__u32)pt, sig);
}

/*
 * A signal the kernel drops as ignored (SIG_IGN, or SIGCHLD's default) is
 * never delivered; ltrace, a tracer, sees it all the same
 */
SEC("raw_tp/signal_generate")
int BPF_PROG(lt_sig_generate, int sig, struct kernel_siginfo *info, struct task_struct *task, int group, int result)
{
	if (result != 1)	/* TRACE_SIGNAL_IGNORED */
		return 0;
	if (sondes_sigchld(sig, info))
		return 0;
	return sig_event(BPF_CORE_READ(task, tgid), BPF_CORE_READ(task, pid), sig);
}
