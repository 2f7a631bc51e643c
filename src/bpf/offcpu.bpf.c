// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu.bpf.c - the kernel side of `sonde offcpu`.
 *
 * On sched_switch the thread going off CPU (prev, which is still `current`)
 * is remembered with the time and its user and kernel stacks; when a thread
 * comes back on CPU (next), the time it spent off CPU is added to the stack it
 * left with, in the `info` hash map: aggregation stays in the kernel and the
 * user side reads the map once at the end.
 *
 * Each hook has two forms, and the user side loads one of them after probing
 * the kernel with a real load: tp_btf (BTF-typed raw tracepoint: cheapest, and
 * detaching costs nothing) and the classic tracepoint (works without kernel
 * BTF; its field offsets come from the tracepoint's format file through
 * rodata, so it needs no CO-RE at all). `offcpu_oncpu` is a perf_event program
 * for --wall: it counts on-CPU samples by the same keys.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "offcpu.h"
#include "ustack_copy.h"

/* set by the user side before load */
const volatile int filter_mode = OFFCPU_ALL;
const volatile bool follow_forks = false;
const volatile bool user_only = false;
const volatile bool kern_only = false;
const volatile int thread_kind = 0;	/* 1: user threads only, 2: kernel threads only */
const volatile __u32 task_flags_off = 0;	/* with thread_kind: task_struct.flags, from the kernel's BTF */
const volatile long state_filter = -1;	/* report bits: 0 R, 1 S, 2 D, 0x80 I; -1 any */
const volatile __u64 min_ns = 0;
const volatile __u64 max_ns = ~0ULL;
const volatile __u32 self_tgid = 0;	/* sonde itself is never traced */
const volatile __u32 dwarf_size = 0;	/* > 0: --call-graph dwarf, copy up to this much user stack */
/* tests: act as if the tracepoint did not report every Nth switch-in of a tracked thread */
const volatile __u32 test_hide_in = 0;
/* classic tracepoint layouts, read from tracefs by the user side */
const volatile __u32 tp_prev_state_off = 32;
const volatile __u32 tp_prev_state_size = 8;
const volatile __u32 tp_next_pid_off = 56;
const volatile __u32 tp_child_pid_off = 20;

#define TARGETS_NR_STATS OFFCPU_STAT_NR
#include "targets.h"
_Static_assert(OFFCPU_TGID == TARGETS_TGID && OFFCPU_TID == TARGETS_TID, "offcpu.h filter modes");

struct start_rec {
	__u64 ts;
	struct offcpu_key key;
	__u32 copied;		/* dwarf: COPY_SENT, COPY_FAILED, or 0 (walked in the kernel) */
	__u32 pad;
};

enum { COPY_SENT = 1, COPY_FAILED = 2 };

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct start_rec);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, struct offcpu_key);
	__type(value, struct offcpu_val);
} info SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, struct offcpu_key);
	__type(value, __u64);
} oncpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 10240);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFFCPU_MAX_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* --call-graph dwarf: the on-CPU sampler's staging buffer, and the ring buffer of copies */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_dwarf);
} dscratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);	/* sized by the user side in dwarf mode */
} devents SEC(".maps");

/* dwarf: the cache of CFI rules the user side fills, and the stacks walked with it (offcpu.h) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OFFCPU_UCFI_BUCKETS);	/* 1 unless dwarf */
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct offcpu_ucfi_bucket);
} ucfi SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct offcpu_ustack);
} ustacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_ustack);
} uscratch SEC(".maps");

#define OFFCPU_PF_KTHREAD 0x00200000	/* task_struct.flags: a kernel thread */

static __always_inline bool tracked(__u32 pid, __u32 tgid)
{
	if (!pid)	/* the idle threads */
		return false;
	if (thread_kind) {	/* the current task's kind (tracked() is asked of the one leaving the CPU) */
		unsigned int flags = 0;	/* no CO-RE: the classic tracepoint programs need none */

		bpf_probe_read_kernel(&flags, 4, (void *)bpf_get_current_task() + task_flags_off);
		if (!!(flags & OFFCPU_PF_KTHREAD) != (thread_kind == 2))
			return false;
	}
	return target_match(pid, tgid);	/* never sonde itself */
}

/* user_fp: walk the user stack by frame pointers (off CPU in dwarf mode, the user side unwinds a copy) */
static __always_inline void fill_stacks(void *ctx, struct offcpu_key *k, bool user_fp)
{
	k->user_stack_id = -1;
	k->kern_stack_id = -1;
	if (!kern_only && user_fp) {
		k->user_stack_id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		/* kernel threads have no user stack: -EFAULT is not a loss */
		if (k->user_stack_id < 0 && k->user_stack_id != -14)
			stat_inc(OFFCPU_STAT_USTACK_ERR);
	}
	if (!user_only) {
		k->kern_stack_id = bpf_get_stackid(ctx, &stacks, 0);
		/* a sample taken in user mode has no kernel stack: -EFAULT */
		if (k->kern_stack_id < 0 && k->kern_stack_id != -14)
			stat_inc(OFFCPU_STAT_KSTACK_ERR);
	}
}

/* the kernel's pt_regs field names (user space headers spell them rbp, rbx...) */
struct pt_regs___k {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip;
	unsigned long cs, flags, sp, ss;
} __attribute__((preserve_access_index));

struct mm_struct___k {
	unsigned long mmap_base;
} __attribute__((preserve_access_index));

struct task_struct___k {
	struct mm_struct___k *mm;
	__u64 self_exec_id;
} __attribute__((preserve_access_index));

/*
 * The tag of current's process in the rule cache (offcpu.h): its tgid, its
 * count of execs (every thread of a process has its value) and its mmap
 * base, read through BTF pointers (no helper call); 0 for a kernel thread.
 */
static __always_inline __u32 current_tag(struct task_struct___k *t, __u32 tgid, bool *user)
{
	struct mm_struct___k *mm = t->mm;

	*user = mm != NULL;
	return mm ? offcpu_ucfi__tag(tgid, t->self_exec_id, mm->mmap_base) : 0;
}

/* fill d with current's user registers and as much user stack as can be read */
static __always_inline void dwarf_fill(struct offcpu_dwarf *d, const struct offcpu_key *key)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct pt_regs___k *r;
	__u64 sp;

	d->key = *key;
	d->ns = 0;
	d->flags = 0;
	d->stack_size = 0;
	bool user;

	d->tag = current_tag((struct task_struct___k *)t, key->tgid, &user);
	if (!user) {	/* a kernel thread */
		__builtin_memset(d->regs, 0, sizeof(d->regs));
	} else {
		r = (struct pt_regs___k *)bpf_task_pt_regs(t);
		d->regs[0] = BPF_CORE_READ(r, ax);
		d->regs[1] = BPF_CORE_READ(r, bx);
		d->regs[2] = BPF_CORE_READ(r, cx);
		d->regs[3] = BPF_CORE_READ(r, dx);
		d->regs[4] = BPF_CORE_READ(r, si);
		d->regs[5] = BPF_CORE_READ(r, di);
		d->regs[6] = BPF_CORE_READ(r, bp);
		d->regs[7] = sp = BPF_CORE_READ(r, sp);
		d->regs[8] = BPF_CORE_READ(r, ip);
		d->regs[9] = BPF_CORE_READ(r, r8);
		d->regs[10] = BPF_CORE_READ(r, r9);
		d->regs[11] = BPF_CORE_READ(r, r10);
		d->regs[12] = BPF_CORE_READ(r, r11);
		d->regs[13] = BPF_CORE_READ(r, r12);
		d->regs[14] = BPF_CORE_READ(r, r13);
		d->regs[15] = BPF_CORE_READ(r, r14);
		d->regs[16] = BPF_CORE_READ(r, r15);
		d->stack_size = ustack_copy(d->stack, sp, dwarf_size);
		if (!d->stack_size)
			stat_inc(OFFCPU_STAT_DWARF_NOSTACK);
	}
}

/* the rule cached for pc in the process tagged tag, 0 when none (offcpu.h says why pc is read twice) */
static __always_inline __u32 ucfi_rule(__u64 pc, __u32 tag)
{
	__u32 b = offcpu_ucfi__bucket(pc, tag);
	struct offcpu_ucfi_bucket *k = bpf_map_lookup_elem(&ucfi, &b);
	volatile struct offcpu_ucfi *e;
	__u64 r;

	if (!k)
		return 0;
	e = &k->e[0];
	if (e->pc == pc) {
		r = e->rule;
		if (e->pc == pc && (__u32)r == tag)
			return r >> 32;
	}
	e = &k->e[1];
	if (e->pc == pc) {
		r = e->rule;
		if (e->pc == pc && (__u32)r == tag)
			return r >> 32;
	}
	return 0;
}

enum { WALK_MISS, WALK_DONE, WALK_KTHREAD };
/*
 * The frames the walk follows: a deeper stack is copied (libdw unwinds up to
 * OFFCPU_MAX_DEPTH). The verifier checks each turn of the loop: on this
 * machine every 32 frames cost about 8 ms of sonde's start.
 */
#define WALK_MAX 64

/*
 * dwarf: walk current's user stack with the cached rules, as the user side's
 * DWARF unwinder would, and keep the frames in `ustacks` under their hash
 * (k->ustack). WALK_MISS where a frame's rule is not cached (or a read
 * fails): the caller copies the stack for the user side instead.
 */
static __always_inline int ustack_walk(struct offcpu_key *k)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 h = 14695981039346656037ULL, pc, sp, bp;
	struct pt_regs___k *r;
	struct offcpu_ustack *s;
	__u32 zero = 0, tag, n = 0;

	bool user;

	tag = current_tag((struct task_struct___k *)t, k->tgid, &user);
	if (!user)
		return WALK_KTHREAD;
	s = bpf_map_lookup_elem(&uscratch, &zero);
	if (!s)
		return WALK_MISS;
	r = (struct pt_regs___k *)bpf_task_pt_regs(t);
	pc = r->ip | OFFCPU_UCFI_FRAME0;	/* through the BTF pointer: no helper call */
	sp = r->sp;
	bp = r->bp;
	for (int i = 0; i < WALK_MAX; i++) {
		__u32 rule = ucfi_rule(pc, tag);
		__s32 off = (__s32)(rule << (32 - OFFCPU_UCFI_OFF_BITS)) >> (32 - OFFCPU_UCFI_OFF_BITS);
		__u64 cfa, ra = 0;

		if (!rule)
			return WALK_MISS;
		pc &= ~OFFCPU_UCFI_FRAME0;
		s->ips[i] = pc;
		h = (h ^ pc) * 1099511628211ULL;
		n = i + 1;
		if (rule & OFFCPU_UCFI_END)
			break;
		cfa = (rule & OFFCPU_UCFI_BP ? bp : sp) + off;
		if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8)))
			return WALK_MISS;
		if ((rule & OFFCPU_UCFI_BPSAVED) &&
		    bpf_probe_read_user(&bp, sizeof(bp), (void *)(cfa + (__s64)(__s8)(rule >> 24) * 8)))
			return WALK_MISS;
		if (!ra)	/* as the unwinder: a zero return address ends the stack */
			break;
		sp = cfa;
		pc = ra;
	}
	s->n = n;
	h ^= h >> 29;
	h += !h;
	if (!bpf_map_lookup_elem(&ustacks, &h)) {
		long err = bpf_map_update_elem(&ustacks, &h, s, BPF_NOEXIST);

		if (err && err != -17)	/* -EEXIST: another CPU stored it first */
			return WALK_MISS;	/* full: the user side aggregates the copy */
	}
	k->ustack = h;
	return WALK_DONE;
}

/* the bytes of d to send: up to the end of its stack copy */
/* (the on-CPU sampler: a sample ends in the same record, sent from a staging copy) */
static __always_inline __u64 dwarf_len(const struct offcpu_dwarf *d)
{
	__u64 n = offsetof(struct offcpu_dwarf, stack) + (d->stack_size & (OFFCPU_DWARF_STACK * 2 - 1));

	return n > sizeof(*d) ? sizeof(*d) : n;
}

/*
 * A thread leaves the CPU with a stack the rules do not walk: send its
 * registers and a copy of its stack straight into the ring buffer (one copy),
 * for the user side to unwind; true when sent. Its block's end follows as a
 * small record (dwarf_end), which the user side joins by tid: the ring
 * buffer keeps the order of reservations, and the start is reserved before
 * the thread can run again.
 */
static __always_inline bool dwarf_start(const struct offcpu_key *key)
{
	struct offcpu_dwarf *d = bpf_ringbuf_reserve(&devents, sizeof(*d), 0);

	if (!d)
		return false;
	dwarf_fill(d, key);
	d->flags = OFFCPU_DWARF_START;
	bpf_ringbuf_submit(d, 0);
	return true;
}

/* the block of tid, whose stack dwarf_start sent, ended after delta ns; true when sent */
static __always_inline bool dwarf_end(__u32 tid, __u64 delta)
{
	struct offcpu_dwarf_end e = { .tid = tid, .ns = delta };

	return !bpf_ringbuf_output(&devents, &e, sizeof(e), 0);
}

/* add delta ns blocked to the stack of key, within --min-block/--max-block */
static __always_inline void account(const struct offcpu_key *key, __u64 delta)
{
	struct offcpu_val *v;

	if (delta < min_ns || delta > max_ns)
		return;
	v = bpf_map_lookup_elem(&info, key);
	if (!v) {
		struct offcpu_val zero = {};

		/* another CPU may add the same key first: then the lookup finds it */
		bpf_map_update_elem(&info, key, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&info, key);
		if (!v) {
			stat_inc(OFFCPU_STAT_INFO_FULL);
			return;
		}
	}
	__sync_fetch_and_add(&v->total_ns, delta);
	__sync_fetch_and_add(&v->count, 1);
}

/*
 * Thread tid, which left the CPU with key, was off it for delta ns. copied:
 * COPY_SENT, its stack went to the user side, which aggregates the block
 * (COPY_FAILED: it could not, the ring buffer was full). Where the end cannot
 * follow the copy, the block is kept with its frame-pointer stack: a short
 * stack, counted, not a lost block.
 */
static __always_inline void block_end(__u32 tid, const struct offcpu_key *key, __u32 copied, __u64 delta)
{
	stat_inc(OFFCPU_STAT_BLOCKS);
	if (delta < min_ns || delta > max_ns)
		return;
	if (copied == COPY_SENT && dwarf_end(tid, delta))
		return;
	if (copied)
		stat_inc(OFFCPU_STAT_RB_LOST);
	account(key, delta);
}

/*
 * prev (== current) leaves the CPU in report state `state`, having run for
 * ran_ns since it was last put on it (~0 when unknown); next comes back.
 *
 * A block is paired from a switch-out to the thread's next switch-in. The
 * tracepoint does not report every switch: on some machines it is never
 * called when the thread leaving the CPU is one of a few hidden ones, so a
 * thread that takes the CPU from one of them comes back unseen. Its start
 * record is then still here at its next switch-out, and that block ended
 * ran_ns before now. (Overwriting the record lost the block, silently.)
 */
static __always_inline int on_switch(void *ctx, long state, __u32 next_pid, __u64 ran_ns)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 pid = (__u32)id, tgid = id >> 32;
	struct start_rec *r, rec = {};
	int walk;

	if (tracked(pid, tgid)) {
		r = bpf_map_lookup_elem(&start, &pid);
		if (r) {
			__u64 end = now;
			struct offcpu_key key = r->key;
			__u64 ts = r->ts;
			__u32 copied = r->copied;

			stat_inc(OFFCPU_STAT_UNSEEN_IN);
			if (ran_ns == ~0ULL || ran_ns > now - ts)
				stat_inc(OFFCPU_STAT_UNSEEN_EST);	/* counted up to now */
			else
				end = now - ran_ns;
			block_end(pid, &key, copied, end - ts);
		}
		if (state_filter < 0 || state == state_filter) {
			stat_inc(OFFCPU_STAT_SWITCHES);
			rec.ts = now;
			rec.key.pid = pid;
			rec.key.tgid = tgid;
			bpf_get_current_comm(rec.key.comm, sizeof(rec.key.comm));
			walk = dwarf_size ? ustack_walk(&rec.key) : WALK_MISS;
			if (walk != WALK_KTHREAD && dwarf_size)	/* (an exiting thread has no mm either) */
				stat_inc(walk == WALK_MISS ? OFFCPU_STAT_WALK_MISS : OFFCPU_STAT_WALKED);
			/* the frame-pointer walk: -g fp, and in dwarf mode the fallback of a copy */
			fill_stacks(ctx, &rec.key, walk == WALK_MISS);
			if (walk == WALK_KTHREAD)
				rec.key.user_stack_id = -14;	/* no user stack, as bpf_get_stackid says */
			if (dwarf_size && walk == WALK_MISS)
				rec.copied = dwarf_start(&rec.key) ? COPY_SENT : COPY_FAILED;
			if (bpf_map_update_elem(&start, &pid, &rec, BPF_ANY))
				stat_inc(OFFCPU_STAT_START_FULL);	/* (a copy sent has no end: dropped there) */
		} else if (r) {
			bpf_map_delete_elem(&start, &pid);
		}
	}

	r = bpf_map_lookup_elem(&start, &next_pid);
	if (!r)
		return 0;
	if (test_hide_in) {
		__u32 k = OFFCPU_STAT_TEST_IN;
		__u64 *n = bpf_map_lookup_elem(&stats, &k);

		if (n && ++*n % test_hide_in == 0)
			return 0;
	}
	__u64 delta = now - r->ts;
	struct offcpu_key key = r->key;
	__u32 copied = r->copied;

	bpf_map_delete_elem(&start, &next_pid);
	block_end(next_pid, &key, copied, delta);
	return 0;
}

/* kernels before 5.14 call it `state` */
struct task_struct___o {
	volatile long state;
} __attribute__((preserve_access_index));

/* the raw task state as the classic tracepoint reports it: 0 R, 1 S, 2 D, 0x80 I */
static __always_inline long report_state(struct task_struct *t, bool preempt)
{
	long s;

	if (preempt)
		return 0;
	if (bpf_core_field_exists(t->__state))
		s = BPF_CORE_READ(t, __state);
	else
		s = BPF_CORE_READ((struct task_struct___o *)t, state);
	if ((s & 0x402) == 0x402)	/* TASK_IDLE = TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
		return 0x80;
	return s & 0x7f;
}

/*
 * How long t has run since the scheduler last put it on a CPU: the fair class
 * (SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE) keeps the runtime it had then, and
 * has just added the time it ran (update_curr comes before the tracepoint).
 * ~0 for the other classes.
 */
static __always_inline __u64 ran_since_picked(struct task_struct *t)
{
	unsigned int policy = BPF_CORE_READ(t, policy);

	if (policy != 0 && policy != 3 && policy != 5)
		return ~0ULL;
	return BPF_CORE_READ(t, se.sum_exec_runtime) - BPF_CORE_READ(t, se.prev_sum_exec_runtime);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return on_switch(ctx, report_state(prev, preempt), BPF_CORE_READ(next, pid), ran_since_picked(prev));
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(offcpu_fork_btf, struct task_struct *parent, struct task_struct *child)
{
	target_fork(BPF_CORE_READ(parent, tgid), BPF_CORE_READ(child, tgid));
	return 0;
}

/* classic tracepoints: the offsets are constants once rodata is frozen */
SEC("tracepoint/sched/sched_switch")
int offcpu_switch_tp(void *ctx)
{
	long state = 0;
	__u32 next_pid = 0;

	if (tp_prev_state_size == 8)
		bpf_probe_read_kernel(&state, 8, ctx + tp_prev_state_off);
	else
		bpf_probe_read_kernel(&state, 4, ctx + tp_prev_state_off);
	bpf_probe_read_kernel(&next_pid, 4, ctx + tp_next_pid_off);
	if (state & ~0xffL)	/* TASK_REPORT_MAX (and older kernels' TASK_STATE_MAX): preempted */
		state = 0;
	on_switch(ctx, state, next_pid, ~0ULL);	/* no BTF: the runtime is unknown */
	return 1;	/* 0 would hide the event from a `perf sched record` running beside */
}

SEC("tracepoint/sched/sched_process_fork")
int offcpu_fork_tp(void *ctx)
{
	__u32 child = 0;

	/* the tracepoint fires in the parent; the child's pid is its tgid for a process */
	bpf_probe_read_kernel(&child, 4, ctx + tp_child_pid_off);
	target_fork(bpf_get_current_pid_tgid() >> 32, child);
	return 1;	/* as offcpu_switch_tp */
}

/* --wall: a cpu-clock sample of a tracked thread counts one period on CPU */
SEC("perf_event")
int offcpu_oncpu(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct offcpu_key key = {};
	__u64 one = 1, *v;

	key.pid = (__u32)id;
	key.tgid = id >> 32;
	if (!tracked(key.pid, key.tgid))
		return 0;
	stat_inc(OFFCPU_STAT_SAMPLES);
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	fill_stacks(ctx, &key, true);
	if (dwarf_size) {	/* the same unwinding as the off-CPU stacks, so that both meet under main */
		__u32 zero = 0;
		struct offcpu_dwarf *d = bpf_map_lookup_elem(&dscratch, &zero);

		if (d) {
			dwarf_fill(d, &key);
			d->flags = OFFCPU_DWARF_ONCPU;
			if (!bpf_ringbuf_output(&devents, d, dwarf_len(d), 0))
				return 0;
		}
		stat_inc(OFFCPU_STAT_RB_LOST);	/* kept below with its frame-pointer stack */
	}
	v = bpf_map_lookup_elem(&oncpu, &key);
	if (v)
		__sync_fetch_and_add(v, 1);
	else if (bpf_map_update_elem(&oncpu, &key, &one, BPF_NOEXIST))
		stat_inc(OFFCPU_STAT_INFO_FULL);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
