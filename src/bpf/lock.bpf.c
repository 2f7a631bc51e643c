// SPDX-License-Identifier: GPL-2.0
/*
 * lock.bpf.c - the kernel side of `sonde lock`.
 *
 * Kernel locks: lock:contention_begin remembers, per thread, the lock, its
 * flags, the time and the kernel stack; lock:contention_end of the same lock
 * adds the wait to the `kern` hash map, keyed by stack, thread or lock address
 * (perf lock contention's aggregation modes, chosen through rodata). The map
 * is per CPU: the hot rows of a contended lock take no atomic operation and no
 * cache line from another CPU; the user side adds the CPUs up. A begin
 * while one is pending (a mutex that spun, then sleeps) keeps the first, as
 * perf does.
 *
 * User-space locks: syscalls:sys_enter_futex/sys_exit_futex time the
 * FUTEX_WAIT* calls by futex word and user stack; uprobes on
 * pthread_mutex_lock (entry and return) and pthread_mutex_unlock time the wait
 * for each mutex and how long it was held. Both go to the `user` hash map.
 *
 * All hooks are classic tracepoints or uprobes: their stacks start where the
 * event happened (a classic tracepoint's at the function that hit it), with
 * no BPF glue frames to skip, and they need no kernel BTF (what the user
 * side reads from it, where it is, names a task's own locks).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "lock.h"

const volatile int filter_mode = LOCK_ALL;
const volatile int aggr_mode = LOCK_AGGR_CALLER;
const volatile __u32 self_tgid = 0;
const volatile bool name_classes = false;	/* compare with current's mm, sighand and files: */
const volatile __u32 off_task_mm = 0, off_task_sighand = 0, off_task_files = 0;	/* where they are */
const volatile __u32 off_mm_mmap_lock = 0, off_sighand_siglock = 0, off_files_file_lock = 0;
const volatile bool follow_forks = false;	/* LOCK_TGID: add the children of targets */
const volatile __u32 tp_child_pid_off = 20;	/* sched_process_fork's child_pid (its layout changed in 6.x) */

#define TARGETS_NR_STATS LOCK_STAT_NR
#include "targets.h"
_Static_assert(LOCK_TGID == TARGETS_TGID && LOCK_TID == TARGETS_TID, "lock.h filter modes");

/* the records of the classic tracepoints (their format files; stable since 5.19) */
/*
 * What a classic tracepoint's program returns: 1 lets the kernel go on to hand
 * the event to other perf events on the tracepoint (0 would hide it from a
 * `perf lock record` running at the same time).
 */
#define KEEP 1

struct tp_contention_begin {
	__u64 common;
	__u64 lock_addr;
	__u32 flags;
};

struct tp_contention_end {
	__u64 common;
	__u64 lock_addr;
	__s32 ret;
};

struct tp_sys_enter {
	__u64 common;
	__s64 nr;
	__u64 args[6];
};

struct tp_sys_exit {
	__u64 common;
	__s64 nr;
	__s64 ret;
};

struct kstart {
	__u64 ts;
	__u64 lock;
	__s32 stack_id;
	__u32 flags;
	__u32 klass;
	__u32 pad;
};

struct ustart {
	__u64 ts;
	struct ulock_key key;
	__u32 contended;	/* mutex: a futex wait happened inside */
	__u32 pad;
};

struct hold_key {
	__u64 mutex;
	__u32 tgid;
	__u32 pad;
};

struct hold {
	__u64 ts;
	struct ulock_key key;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct kstart);
} kstarts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct lock_key);
	__type(value, struct lock_val);
} kern SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct ustart);
} fstarts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct ustart);
} mstarts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct hold_key);
	__type(value, struct hold);
} holds SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct ulock_key);
	__type(value, struct ulock_val);
} user SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, LOCK_MAX_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

#define tracked target_match

static __always_inline __u64 read_ptr(__u64 base, __u32 off)
{
	__u64 p = 0;

	bpf_probe_read_kernel(&p, sizeof(p), (void *)(base + off));
	return p;
}

/* which of current's own locks addr is, if any (the offsets come from the kernel's BTF, through rodata) */
static __always_inline __u32 lock_class(__u64 addr)
{
	__u64 t = bpf_get_current_task(), p;

	if (!name_classes)
		return LOCK_CLASS_NONE;
	p = read_ptr(t, off_task_mm);
	if (p && addr == p + off_mm_mmap_lock)
		return LOCK_CLASS_MMAP;
	p = read_ptr(t, off_task_sighand);
	if (p && addr == p + off_sighand_siglock)
		return LOCK_CLASS_SIGHAND;
	p = read_ptr(t, off_task_files);
	if (p && addr == p + off_files_file_lock)
		return LOCK_CLASS_FILES;
	return LOCK_CLASS_NONE;
}

SEC("tracepoint/lock/contention_begin")
int lock_begin(struct tp_contention_begin *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = (__u32)id, tgid = id >> 32;
	struct kstart *old, s = {};

	if (!tracked(pid, tgid))
		return KEEP;
	stat_inc(LOCK_STAT_BEGIN);
	old = bpf_map_lookup_elem(&kstarts, &pid);
	if (old && old->lock) {
		stat_inc(LOCK_STAT_NESTED);
		return KEEP;
	}
	s.lock = ctx->lock_addr;
	s.flags = ctx->flags;
	s.stack_id = -1;
	if (aggr_mode == LOCK_AGGR_CALLER) {
		s.stack_id = bpf_get_stackid(ctx, &stacks, 0);
		if (s.stack_id < 0)
			stat_inc(LOCK_STAT_STACK_ERR);
	}
	s.klass = lock_class(s.lock);
	s.ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&kstarts, &pid, &s, BPF_ANY))
		stat_inc(LOCK_STAT_FULL);
	return KEEP;
}

SEC("tracepoint/lock/contention_end")
int lock_end(struct tp_contention_end *ctx)
{
	__u64 now = bpf_ktime_get_ns(), d;
	__u32 pid = (__u32)bpf_get_current_pid_tgid();
	struct lock_key k = {};
	struct lock_val *v, nv = {};
	struct kstart *s;

	s = bpf_map_lookup_elem(&kstarts, &pid);
	if (!s)
		return KEEP;
	if (s->lock != ctx->lock_addr) {
		stat_inc(LOCK_STAT_UNMATCHED);
		return KEEP;
	}
	d = now - s->ts;
	if (aggr_mode == LOCK_AGGR_CALLER)
		k.stack_id = s->stack_id;
	else if (aggr_mode == LOCK_AGGR_TASK)
		k.pid = pid;
	else
		k.addr = s->lock;
	v = bpf_map_lookup_elem(&kern, &k);
	if (!v) {
		bpf_map_update_elem(&kern, &k, &nv, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&kern, &k);
		if (!v) {
			stat_inc(LOCK_STAT_FULL);
			bpf_map_delete_elem(&kstarts, &pid);
			return KEEP;
		}
	}
	if (!v->count) {	/* this CPU's first of the row (another CPU may have made it) */
		v->min_ns = d;
		v->flags = s->flags;
		v->klass = s->klass;
		bpf_get_current_comm(v->comm, sizeof(v->comm));
	}
	v->count++;
	v->total_ns += d;
	if (d > v->max_ns)
		v->max_ns = d;
	if (d < v->min_ns)
		v->min_ns = d;
	bpf_map_delete_elem(&kstarts, &pid);
	return KEEP;
}

/* the aggregate of key k, created empty when missing; NULL when the map is full */
static __always_inline struct ulock_val *uval(struct ulock_key *k)
{
	struct ulock_val *v = bpf_map_lookup_elem(&user, k), nv = {};

	if (v)
		return v;
	bpf_get_current_comm(nv.comm, sizeof(nv.comm));
	bpf_map_update_elem(&user, k, &nv, BPF_NOEXIST);
	v = bpf_map_lookup_elem(&user, k);
	if (!v)
		stat_inc(LOCK_STAT_FULL);
	return v;
}

#define FUTEX_WAIT		0
#define FUTEX_LOCK_PI		6
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAIT_REQUEUE_PI	11
#define FUTEX_LOCK_PI2		13
#define FUTEX_CMD_MASK		0x7f

SEC("tracepoint/syscalls/sys_enter_futex")
int futex_enter(struct tp_sys_enter *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = (__u32)id, tgid = id >> 32;
	int op = (int)ctx->args[1] & FUTEX_CMD_MASK;
	struct ustart s = {}, *m;

	if (op != FUTEX_WAIT && op != FUTEX_WAIT_BITSET && op != FUTEX_LOCK_PI && op != FUTEX_LOCK_PI2 &&
	    op != FUTEX_WAIT_REQUEUE_PI)
		return KEEP;
	if (!tracked(pid, tgid))
		return KEEP;
	s.key.addr = ctx->args[0];
	s.key.tgid = tgid;
	s.key.kind = ULOCK_FUTEX;
	m = bpf_map_lookup_elem(&mstarts, &pid);
	if (m) {
		/*
		 * Inside pthread_mutex_lock: it waits. Its stack is the whole one; a walk
		 * from here, in a C library built without frame pointers, skips callers.
		 */
		m->contended = 1;
		s.key.stack_id = m->key.stack_id;
		s.key.caller = m->key.caller;
	} else {
		s.key.stack_id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		if (s.key.stack_id < 0)
			stat_inc(LOCK_STAT_STACK_ERR);
	}
	s.ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&fstarts, &pid, &s, BPF_ANY))
		stat_inc(LOCK_STAT_FULL);
	return KEEP;
}

SEC("tracepoint/syscalls/sys_exit_futex")
int futex_exit(struct tp_sys_exit *ctx)
{
	__u64 now = bpf_ktime_get_ns(), d;
	__u32 pid = (__u32)bpf_get_current_pid_tgid();
	struct ustart *s = bpf_map_lookup_elem(&fstarts, &pid);
	struct ulock_val *v;

	if (!s)
		return KEEP;
	d = now - s->ts;
	v = uval(&s->key);
	if (v) {
		__sync_fetch_and_add(&v->count, 1);
		__sync_fetch_and_add(&v->wait_ns, d);
		if (d > v->wait_max_ns)
			v->wait_max_ns = d;
		stat_inc(LOCK_STAT_FUTEX);
	}
	bpf_map_delete_elem(&fstarts, &pid);
	return KEEP;
}

/* pthread_mutex_lock(mutex) or trylock entry: the caller is the return address on top of the stack */
static __always_inline int lock_entry(struct pt_regs *ctx, void *mutex)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = (__u32)id, tgid = id >> 32;
	struct ustart s = {};

	if (!tracked(pid, tgid))
		return 0;
	s.key.addr = (__u64)mutex;
	s.key.tgid = tgid;
	s.key.kind = ULOCK_MUTEX;
	bpf_probe_read_user(&s.key.caller, sizeof(s.key.caller), (void *)ctx->sp);
	s.key.stack_id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	if (s.key.stack_id < 0)
		stat_inc(LOCK_STAT_STACK_ERR);
	s.ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&mstarts, &pid, &s, BPF_ANY))
		stat_inc(LOCK_STAT_FULL);
	return 0;
}

/* the lock's return: 0 is an acquisition, and the mutex is held from now */
static __always_inline int lock_return(int ret)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns(), d;
	__u32 pid = (__u32)id;
	struct ustart *s = bpf_map_lookup_elem(&mstarts, &pid);
	struct hold_key hk = {};
	struct hold h = {};
	struct ulock_val *v;

	if (!s)
		return 0;
	if (ret == 0) {
		d = now - s->ts;
		v = uval(&s->key);
		if (v) {
			__sync_fetch_and_add(&v->count, 1);
			__sync_fetch_and_add(&v->wait_ns, d);
			if (s->contended)
				__sync_fetch_and_add(&v->contended, 1);
			if (d > v->wait_max_ns)
				v->wait_max_ns = d;
			stat_inc(LOCK_STAT_MUTEX);
		}
		hk.mutex = s->key.addr;
		hk.tgid = id >> 32;
		h.ts = now;
		h.key = s->key;
		if (bpf_map_update_elem(&holds, &hk, &h, BPF_ANY))
			stat_inc(LOCK_STAT_FULL);
	}
	bpf_map_delete_elem(&mstarts, &pid);
	return 0;
}

/*
 * The uprobes read the registers by the kernel's names (di: the first
 * argument, ax: the return value, sp) rather than through bpf_tracing.h's
 * macros, which want user-space names unless vmlinux.h is the real one: this
 * way the fallback header of a machine without BTF builds them too.
 */
SEC("uprobe")
int mutex_lock(struct pt_regs *ctx)
{
	return lock_entry(ctx, (void *)ctx->di);
}

SEC("uretprobe")
int mutex_lock_ret(struct pt_regs *ctx)
{
	return lock_return((int)ctx->ax);
}

/* a pthread_mutex_trylock that succeeds is an acquisition that did not wait */
SEC("uprobe")
int mutex_trylock(struct pt_regs *ctx)
{
	return lock_entry(ctx, (void *)ctx->di);
}

SEC("uretprobe")
int mutex_trylock_ret(struct pt_regs *ctx)
{
	return lock_return((int)ctx->ax);
}

SEC("uprobe")
int mutex_unlock(struct pt_regs *ctx)
{
	void *mutex = (void *)ctx->di;
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns(), d;
	struct hold_key hk = { .mutex = (__u64)mutex, .tgid = id >> 32 };
	struct hold *h = bpf_map_lookup_elem(&holds, &hk);
	struct ulock_val *v;

	if (!h)
		return 0;
	d = now - h->ts;
	v = uval(&h->key);
	if (v) {
		__sync_fetch_and_add(&v->holds, 1);
		__sync_fetch_and_add(&v->hold_ns, d);
		if (d > v->hold_max_ns)
			v->hold_max_ns = d;
	}
	bpf_map_delete_elem(&holds, &hk);
	return 0;
}

/* a target's child becomes a target (a thread's id too: harmless, never a tgid of another) */
SEC("tracepoint/sched/sched_process_fork")
int lock_fork(void *ctx)
{
	__u32 child = 0;

	if (filter_mode != LOCK_TGID || !follow_forks)
		return KEEP;
	bpf_probe_read_kernel(&child, sizeof(child), ctx + (tp_child_pid_off & 0xff));
	target_fork(bpf_get_current_pid_tgid() >> 32, child);
	return KEEP;
}

char LICENSE[] SEC("license") = "GPL";
