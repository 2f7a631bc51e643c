// SPDX-License-Identifier: GPL-2.0
/*
 * trace.bpf.c - the kernel side of `sonde trace`.
 *
 * raw_syscalls sys_enter/sys_exit (raw tracepoints: no per-syscall perf event
 * to open or close, detaching is instant). Everything that can be decided in
 * the kernel is: the target set (tgids, grown on fork with -f; a `-- CMD`
 * child counts from its execve on), the syscall set (a bitmap in rodata),
 * --failed and --duration. For -c nothing leaves the kernel but the per-CPU
 * statistics. Otherwise the entry is kept per thread in `inflight`, with the
 * strings and buffers the capture plan (rodata, from sysdecode__capplan)
 * asks for; at exit the output buffers are copied, strings whose first read
 * faulted (page not yet resident) are read again, and one record goes to the
 * ring buffer. A full ring buffer is counted, never silent.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "trace.h"
#include "counter.h"
#include "maps.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool all_tasks = false;	/* -a */
const volatile bool follow = false;	/* -f */
const volatile bool count_only = false;	/* -c: statistics, no records */
const volatile bool want_stats = false;	/* -c or -C or --histogram */
const volatile bool failed_only = false;
const volatile bool emit_begin = false;	/* several tasks: send entries too, for <unfinished ...> */
const volatile __u64 min_ns = 0;
const volatile __u32 self_tgid = 0;
const volatile __u64 wake_bytes = 0;	/* wake the reader once this much is waiting */
const volatile __u64 sc_mask[TRACE_NR_MAX / 64];
const volatile struct sc_cap caps[TRACE_NR_MAX][TRACE_NCAP];

#define NR_RT_SIGRETURN	15
#define UC_SIGMASK_OFF	296	/* x86-64 struct ucontext: flags, link, stack, sigcontext, then the mask */
#define NR_EXECVE	59
#define NR_EXIT		60
#define NR_EXIT_GROUP	231
#define NR_EXECVEAT	322
#define NR_CLONE3	435
#define NR_GETDENTS64	217

/* targets: 1 traced, 2 waiting for its execve (a `-- CMD` child held before exec) */
TARGETS_MAP(targets);

/* a record and room behind it, so that variable offsets into the last slot verify */
struct scratch {
	struct sc_event ev;
	unsigned char slack[TRACE_CAP_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/* the syscall in progress of each thread, built in place in task-local storage */
TASK_STORAGE_MAP(inflight, struct scratch);

struct start {
	__u64 ts;
	__s32 nr;
	__u32 pending_exec;
};

/* -c: when the current syscall of each thread began, in task-local storage (no hash update per call) */
TASK_STORAGE_MAP(starts, struct start);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TRACE_NR_MAX);
	__type(key, __u32);
	__type(value, struct sc_stat);
} stats SEC(".maps");

COUNTERS_MAP(counters, TRC_NR);
RINGBUF_MAP(rb, 16 << 20);

#define count(which) counter_inc(&counters, (which))

static __always_inline bool wanted_nr(long nr)
{
	if (nr < 0 || nr >= TRACE_NR_MAX)
		return false;
	return sc_mask[(nr >> 6) & (TRACE_NR_MAX / 64 - 1)] & (1ULL << (nr & 63));
}

/* 0: not traced, 1: traced, 2: an execve of a child waiting for its exec (traced if it succeeds) */
static __always_inline int wanted_task(__u32 tgid, __u32 tid, long nr)
{
	__u8 *st;

	if (tgid == self_tgid)
		return 0;
	if (all_tasks)
		return 1;
	/* with -f a process and all its threads; without, the one thread named (as strace -p TID) */
	st = bpf_map_lookup_elem(&targets, follow ? &tgid : &tid);
	if (!st)
		return 0;
	if (*st == 2)
		return nr == NR_EXECVE || nr == NR_EXECVEAT ? 2 : 0;
	return 1;
}

/* the child's exec succeeded: trace it from now on */
static __always_inline void exec_done(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u8 one = 1;

	bpf_map_update_elem(&targets, &tgid, &one, BPF_EXIST);
}

static __always_inline __u32 log2l(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r;
}

static __always_inline void account(long nr, __u64 dur, long ret)
{
	__u32 key = nr;
	struct sc_stat *s;
	__u32 b;

	s = bpf_map_lookup_elem(&stats, &key);
	if (!s)
		return;
	s->calls++;
	if (ret < 0 && ret >= -4095)
		s->errors++;
	s->ns += dur;
	if (!s->min_ns || dur < s->min_ns)
		s->min_ns = dur;
	if (dur > s->max_ns)
		s->max_ns = dur;
	b = log2l(dur);
	if (b >= TRACE_HIST)
		b = TRACE_HIST - 1;
	s->hist[b & (TRACE_HIST - 1)]++;
}

static __always_inline void read_args(struct sc_event *ev, struct pt_regs *regs)
{
	ev->args[0] = BPF_CORE_READ(regs, di);
	ev->args[1] = BPF_CORE_READ(regs, si);
	ev->args[2] = BPF_CORE_READ(regs, dx);
	ev->args[3] = BPF_CORE_READ(regs, r10);
	ev->args[4] = BPF_CORE_READ(regs, r8);
	ev->args[5] = BPF_CORE_READ(regs, r9);
}

static __always_inline __u64 clamp(__u64 n)
{
	return n > TRACE_CAP_MAX ? TRACE_CAP_MAX : n;
}

static __always_inline void cap_str(struct sc_event *ev, int i, const void *p)
{
	long n = bpf_probe_read_user_str(ev->data[i], TRACE_CAP_MAX, p);

	if (n < 0) {
		ev->cap_len[i] = 0;
		ev->cap_flags[i] |= CAPF_FAULT;
		return;
	}
	ev->cap_len[i] = n;
	ev->cap_flags[i] &= ~CAPF_FAULT;
	if (n >= TRACE_CAP_MAX)
		ev->cap_flags[i] |= CAPF_MORE;
}

static __always_inline void cap_buf(struct sc_event *ev, int i, const void *p, __u64 len)
{
	__u64 n = clamp(len);

	if (len > TRACE_CAP_MAX)
		ev->cap_flags[i] |= CAPF_MORE;
	if (bpf_probe_read_user(ev->data[i], n, p)) {
		ev->cap_len[i] = 0;
		ev->cap_flags[i] |= CAPF_FAULT;
		return;
	}
	ev->cap_flags[i] &= ~CAPF_FAULT;
	ev->cap_len[i] = n;
}

static __always_inline void cap_argv(struct scratch *s, const void *const *argv)
{
	struct sc_event *ev = &s->ev;
	__u32 off = 0;
	const void *p;
	int k;

	for (k = 0; k < TRACE_ARGV_MAX; k++) {
		long n;

		if (bpf_probe_read_user(&p, sizeof(p), &argv[k]) || !p)
			break;
		if (off >= TRACE_CAP_MAX) {
			ev->cap_flags[1] |= CAPF_MORE;
			break;
		}
		n = bpf_probe_read_user_str(&ev->data[1][off & (TRACE_CAP_MAX - 1)],
					    TRACE_CAP_MAX - (off & (TRACE_CAP_MAX - 1)), p);
		if (n < 0) {
			if (k == 0)
				ev->cap_flags[1] |= CAPF_FAULT;
			break;
		}
		off += n;
	}
	if (k == TRACE_ARGV_MAX && !bpf_probe_read_user(&p, sizeof(p), &argv[k]) && p)
		ev->cap_flags[1] |= CAPF_MORE;
	ev->cap_len[1] = off > TRACE_CAP_MAX ? TRACE_CAP_MAX : off;
}

static __always_inline __u16 count_envp(const void *const *envp)
{
	const void *p;
	__u16 n;

	for (n = 0; n < 256; n++)
		if (bpf_probe_read_user(&p, sizeof(p), &envp[n]) || !p)
			break;
	return n;
}

/* an iovec array: slot 0 the array (up to 16 entries), slot 1 up to 64 bytes of each of the first 8 */
static __always_inline void cap_iov(struct sc_event *ev, const void *iov, __u64 cnt, __u64 total)
{
	const int per = TRACE_CAP_MAX / 8;
	__u64 n = cnt > 16 ? 16 : cnt;
	int k;

	if (bpf_probe_read_user(ev->data[0], (n * 16) & (TRACE_CAP_MAX - 1), iov)) {
		ev->cap_flags[0] |= CAPF_FAULT;
		ev->cap_flags[1] |= CAPF_FAULT;
		return;
	}
	ev->cap_len[0] = n * 16;
	for (k = 0; k < 8 && k < n; k++) {
		__u64 base = *(__u64 *)&ev->data[0][(k * 16) & (TRACE_CAP_MAX - 1)];
		__u64 len = *(__u64 *)&ev->data[0][(k * 16 + 8) & (TRACE_CAP_MAX - 1)];

		if (len > total)
			len = total;
		total -= len;
		if (len > per)
			len = per;
		asm volatile("" : "+r"(len));
		if (len <= per)
			bpf_probe_read_user(&ev->data[1][k * per], len, (void *)base);
	}
	ev->cap_len[1] = TRACE_CAP_MAX;
}

static __always_inline __u64 arg_at(const struct sc_event *ev, __u32 i)
{
	if (i >= 6)
		return 0;
	return ev->args[i];
}

/* argument i's capture rule for syscall nr, and the pointer it captures from; NULL: nothing to capture */
static __always_inline const void *cap_rule(const struct sc_event *ev, int i, long nr, struct sc_cap *c)
{
	c->arg = caps[nr & (TRACE_NR_MAX - 1)][i].arg;
	c->mode = caps[nr & (TRACE_NR_MAX - 1)][i].mode;
	c->size = caps[nr & (TRACE_NR_MAX - 1)][i].size;
	if (c->mode == CAP_NONE)
		return NULL;
	return (const void *)arg_at(ev, c->arg);
}

static __always_inline void cap_enter(struct scratch *s, int i, long nr)
{
	struct sc_event *ev = &s->ev;
	struct sc_cap c;
	const void *p = cap_rule(ev, i, nr, &c);

	if (!p)
		return;
	switch (c.mode) {
	case CAP_STR:
		cap_str(ev, i, p);
		break;
	case CAP_BUF_IN:
		cap_buf(ev, i, p, arg_at(ev, c.size));
		break;
	case CAP_FIX_IN:
		cap_buf(ev, i, p, c.size);
		break;
	case CAP_ARGV:
		if (i == 1) {
			cap_argv(s, p);
			if (nr == NR_EXECVE)
				ev->aux = count_envp((const void *const *)ev->args[2]);
		}
		break;
	case CAP_IOV_IN:
		if (i == 0)
			cap_iov(ev, p, arg_at(ev, c.size), ~0ULL);
		break;
	}
}

static __always_inline void cap_exit(struct sc_event *ev, int i, long nr, long ret)
{
	struct sc_cap c;
	const void *p = cap_rule(ev, i, nr, &c);

	if (!p)
		return;
	switch (c.mode) {
	/*
	 * The page was not resident at entry (a fresh binary, or file pages a
	 * child has not touched since fork): the syscall itself has faulted it in.
	 */
	case CAP_STR:
	case CAP_BUF_IN:
	case CAP_FIX_IN:
		if (ev->cap_flags[i] & CAPF_FAULT) {
			if (c.mode == CAP_STR)
				cap_str(ev, i, p);
			else
				cap_buf(ev, i, p, c.mode == CAP_FIX_IN ? c.size : arg_at(ev, c.size));
			if (!(ev->cap_flags[i] & CAPF_FAULT)) {
				ev->cap_flags[i] |= CAPF_REREAD;
				count(TRC_REREAD);
			}
		}
		break;
	case CAP_BUF_RET:
		if (ret > 0)
			cap_buf(ev, i, p, ret);
		break;
	case CAP_BUF_RET4:
		if (ret > 0)
			cap_buf(ev, i, p, ret * 4);
		break;
	case CAP_FIX_OUT:
	case CAP_BUF_ARGOUT:
		if (ret >= 0)
			cap_buf(ev, i, p, c.size);
		break;
	case CAP_IOV_RET:
		if (i == 0 && ret > 0)
			cap_iov(ev, p, arg_at(ev, c.size), ret);
		break;
	}
}

/*
 * Waking the reader for every record costs an IPI per syscall (most of the
 * tracing cost on a VM): wake it only once wake_bytes are waiting, and for
 * the records that end something; the reader also drains on a short timer.
 */
/* getdents64: strace shows how many entries came back; walk their d_reclen fields */
static __always_inline __u16 count_dirents(const void *buf, long len)
{
	__u32 off = 0;
	__u16 n;

	for (n = 0; n < 1024 && off < len; n++) {
		__u16 reclen = 0;

		if (bpf_probe_read_user(&reclen, sizeof(reclen), buf + off + 16) || !reclen)
			break;
		off += reclen;
	}
	return n;
}

/*
 * A dropped record is counted by kind (TRC_LOST, TRC_LOST_BEGIN or
 * TRC_LOST_OTHER): only a syscall record's loss loses a call, so that the
 * calls printed plus TRC_LOST are all the calls made.
 */
static __always_inline void submit(struct sc_event *ev, bool urgent, __u32 lost)
{
	__u64 fl = urgent || bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) >= wake_bytes ?
		BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	long rc;

	if (ev->cap_len[1] || (ev->cap_flags[1] & CAPF_FAULT))
		rc = bpf_ringbuf_output(&rb, ev, sizeof(*ev), fl);
	else if (ev->cap_len[0] || (ev->cap_flags[0] & CAPF_FAULT))
		rc = bpf_ringbuf_output(&rb, ev, TRACE_EV_HDR + TRACE_CAP_MAX, fl);
	else
		rc = bpf_ringbuf_output(&rb, ev, TRACE_EV_HDR, fl);
	count(rc ? lost : TRC_EVENTS);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(trace_enter, struct pt_regs *regs, long id)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tgid = pt >> 32, tid = (__u32)pt, zero = 0;
	struct scratch *s;
	struct sc_event *ev;
	int want = wanted_task(tgid, tid, id);

	if (!want || (!wanted_nr(id) && want != 2))
		return 0;
	if (count_only) {
		struct start *st = bpf_task_storage_get(&starts, bpf_get_current_task_btf(), 0,
							BPF_LOCAL_STORAGE_GET_F_CREATE);

		if (!st) {
			count(TRC_INFLIGHT_FULL);
			return 0;
		}
		st->ts = bpf_ktime_get_ns();
		st->nr = id;
		st->pending_exec = want == 2;
		return 0;
	}
	if (id == NR_EXIT || id == NR_EXIT_GROUP)	/* never returns: built in the per-CPU scratch */
		s = bpf_map_lookup_elem(&scratch, &zero);
	else
		s = bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s) {
		count(TRC_INFLIGHT_FULL);
		return 0;
	}
	ev = &s->ev;
	ev->ts = bpf_ktime_get_ns();
	ev->dur = 0;
	ev->ret = 0;
	ev->tid = tid;
	ev->tgid = tgid;
	ev->nr = id;
	ev->type = TEV_SYSCALL;
	ev->aux = 0;
	ev->cap_len[0] = ev->cap_len[1] = 0;
	ev->cap_flags[0] = ev->cap_flags[1] = 0;
	ev->eflags = want == 2 ? EVF_PENDING_EXEC : 0;
	read_args(ev, regs);
	cap_enter(s, 0, id);
	cap_enter(s, 1, id);
	if (id == NR_RT_SIGRETURN) {
		/* the signal mask being restored: uc_sigmask of the frame at the stack pointer */
		__u64 sp = BPF_CORE_READ(regs, sp);

		if (!bpf_probe_read_user(ev->data[0], 8, (void *)(sp + UC_SIGMASK_OFF)))
			ev->cap_len[0] = 8;
	}
	if (id == NR_EXIT || id == NR_EXIT_GROUP) {
		if (want_stats)
			account(id, 0, 0);
		ev->type = TEV_ENTER;
		if (!failed_only && !min_ns)
			submit(ev, true, TRC_LOST);
		return 0;
	}
	if (emit_begin && want == 1 && !failed_only && !min_ns) {
		ev->type = TEV_BEGIN;
		submit(ev, false, TRC_LOST_BEGIN);
		ev->type = TEV_SYSCALL;
	}
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(trace_exit, struct pt_regs *regs, long ret)
{
	struct scratch *s;
	struct sc_event *ev;
	__u64 now = bpf_ktime_get_ns();
	long nr;

	if (count_only) {
		struct start *st = bpf_task_storage_get(&starts, bpf_get_current_task_btf(), 0, 0);

		if (!st || !st->ts)
			return 0;
		if (st->pending_exec) {
			if (ret) {	/* execvp trying the next PATH entry: not the command yet */
				st->ts = 0;
				return 0;
			}
			exec_done();
			if (!wanted_nr(st->nr)) {
				st->ts = 0;
				return 0;
			}
		}
		account(st->nr, now - st->ts, ret);
		st->ts = 0;
		return 0;
	}
	s = bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0, 0);
	if (!s || !s->ev.ts)
		return 0;
	ev = &s->ev;
	nr = ev->nr;
	if (ev->eflags & EVF_PENDING_EXEC) {
		if (ret || !wanted_nr(nr)) {
			if (!ret)
				exec_done();
			ev->ts = 0;
			return 0;
		}
		exec_done();
	}
	ev->dur = now - ev->ts;
	ev->ret = ret;
	if (want_stats)
		account(nr, ev->dur, ret);
	if ((failed_only && !(ret < 0 && ret >= -4095)) || ev->dur < min_ns) {
		ev->ts = 0;
		return 0;
	}
	cap_exit(ev, 0, nr, ret);
	cap_exit(ev, 1, nr, ret);
	if (nr == NR_GETDENTS64 && ret > 0)
		ev->aux = count_dirents((const void *)ev->args[1], ret);
	if (nr == NR_CLONE3 && ret > 0 && ev->cap_len[0] >= 32) {
		/* the new tid, written through clone_args.parent_tid */
		__u64 ptid = *(__u64 *)&ev->data[0][24];

		if (ptid && !bpf_probe_read_user(ev->data[1], 4, (void *)ptid))
			ev->cap_len[1] = 4;
	}
	submit(ev, false, TRC_LOST);
	ev->ts = 0;
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(trace_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (follow && !all_tasks && ptgid != ctgid && bpf_map_lookup_elem(&targets, &ptgid))
		bpf_map_update_elem(&targets, &ctgid, &one, BPF_NOEXIST);
	return 0;
}

/* the event of a process-level record (exit, signal) of a traced task, its header filled; NULL if not traced */
static __always_inline struct sc_event *task_event(unsigned short type)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tgid = pt >> 32, tid = (__u32)pt, zero = 0;
	struct scratch *s;
	__u8 *st;

	if (count_only || tgid == self_tgid)
		return NULL;
	if (!all_tasks) {
		st = bpf_map_lookup_elem(&targets, follow ? &tgid : &tid);
		if (!st || *st != 1)
			return NULL;
	}
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return NULL;
	__builtin_memset(&s->ev, 0, TRACE_EV_HDR);
	s->ev.ts = bpf_ktime_get_ns();
	s->ev.tid = tid;
	s->ev.tgid = tgid;
	s->ev.nr = -1;
	s->ev.type = type;
	return &s->ev;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(trace_proc_exit, struct task_struct *task)
{
	struct sc_event *ev = task_event(TEV_EXIT);

	if (!ev)
		return 0;
	ev->ret = BPF_CORE_READ(task, exit_code);
	submit(ev, true, TRC_LOST_OTHER);
	return 0;
}

SEC("raw_tp/signal_deliver")
int BPF_PROG(trace_signal, int sig, void *info, void *ka)
{
	struct sc_event *ev = task_event(TEV_SIGNAL);

	if (!ev)
		return 0;
	ev->args[0] = sig;
	if (info && !bpf_probe_read_kernel(ev->data[0], 48, info))
		ev->cap_len[0] = 48;
	else
		ev->cap_flags[0] = CAPF_FAULT;
	submit(ev, false, TRC_LOST_OTHER);
	return 0;
}
