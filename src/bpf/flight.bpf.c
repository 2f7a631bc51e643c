// SPDX-License-Identifier: GPL-2.0
/*
 * flight.bpf.c - the syscall watcher of `sonde record --flight --trigger`.
 *
 * Hooked to one syscall's own tracepoints (syscalls:sys_enter_NAME and
 * sys_exit_NAME), so that the other syscalls pay no BPF program (raw_syscalls
 * would run one on every syscall of the machine). At entry a target thread's
 * start time is kept in task-local storage; at exit the latency goes into a
 * per-CPU log-linear histogram (for a pNN trigger) and, when it passes the
 * threshold, one record goes to the ring buffer (for a syscall trigger). The
 * target set is tgids (or tids with -t), grown on fork when the recording
 * follows children.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "flight.h"
#include "maps.h"

char LICENSE[] SEC("license") = "GPL";

/* what a classic tracepoint program returns: 0 would drop the event for every perf user of the
   tracepoint (the recorder's own -e syscalls:sys_enter_read, a perf record beside) */
#define KEEP 1

const volatile bool all_tasks = false;		/* -a: every task but sonde */
const volatile bool by_tid = false;		/* -t: the targets are threads */
const volatile bool follow_forks = false;
const volatile bool want_hist = false;		/* a pNN trigger */
const volatile __u64 min_ns = 0;		/* a syscall trigger: report calls slower than this; 0 none */
const volatile __u32 self_tgid = 0;
const volatile __u32 tp_child_pid_off = 20;	/* sched_process_fork's child_pid */

TARGETS_MAP(targets);

/* when each thread's call began, in task-local storage: no hash update and delete per call */
TASK_STORAGE_MAP(start, __u64);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FLIGHT_NBUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} hist SEC(".maps");

RINGBUF_MAP(events, 64 * 1024);

/* slow calls the ring buffer had no room for */
COUNTERS_MAP(dropped, 1);

static __always_inline bool is_target(__u64 id)
{
	__u32 tgid = id >> 32, tid = (__u32)id;

	if (all_tasks)
		return tgid != self_tgid;
	return bpf_map_lookup_elem(&targets, by_tid ? &tid : &tgid) != NULL;
}

static __always_inline __u32 bucket_of(__u64 v)
{
	__u32 e = 0;
	__u64 x = v;

	if (v < FLIGHT_SUB)
		return v;
	if (x >> 32) { x >>= 32; e += 32; }
	if (x >> 16) { x >>= 16; e += 16; }
	if (x >> 8) { x >>= 8; e += 8; }
	if (x >> 4) { x >>= 4; e += 4; }
	if (x >> 2) { x >>= 2; e += 2; }
	if (x >> 1) { e += 1; }
	/* e >= FLIGHT_SUB_BITS here */
	return (e - FLIGHT_SUB_BITS + 1) * FLIGHT_SUB + ((v >> (e - FLIGHT_SUB_BITS)) & (FLIGHT_SUB - 1));
}

SEC("tracepoint")
int flight_enter(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), *ts;

	if (!is_target(id))
		return KEEP;
	ts = bpf_task_storage_get(&start, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (ts)
		*ts = bpf_ktime_get_ns();
	return KEEP;
}

struct sys_exit_args {
	unsigned long long common;
	int nr;
	long ret;
};

SEC("tracepoint")
int flight_exit(struct sys_exit_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now, dur, *t0;
	__u32 tid = (__u32)id, zero = 0;
	struct flight_slow *ev;

	t0 = bpf_task_storage_get(&start, bpf_get_current_task_btf(), 0, 0);
	if (!t0 || !*t0)
		return KEEP;
	now = bpf_ktime_get_ns();
	dur = now - *t0;
	*t0 = 0;
	if (want_hist) {
		__u32 b = bucket_of(dur);
		__u64 *n = bpf_map_lookup_elem(&hist, &b);

		if (n)
			*n += 1;
	}
	if (!min_ns || dur <= min_ns)
		return KEEP;
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		__u64 *d = bpf_map_lookup_elem(&dropped, &zero);

		if (d)
			*d += 1;
		return KEEP;
	}
	ev->ts = now;
	ev->dur = dur;
	ev->ret = ctx->ret;
	ev->pid = id >> 32;
	ev->tid = tid;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	bpf_ringbuf_submit(ev, 0);
	return KEEP;
}

SEC("tracepoint/sched/sched_process_fork")
int flight_fork(void *ctx)
{
	__u32 parent = bpf_get_current_pid_tgid() >> 32, child = 0;
	__u8 one = 1;

	if (all_tasks || by_tid || !follow_forks || !bpf_map_lookup_elem(&targets, &parent))
		return KEEP;
	bpf_probe_read_kernel(&child, sizeof(child), ctx + (tp_child_pid_off & 0xff));
	if (child && child != parent)
		bpf_map_update_elem(&targets, &child, &one, BPF_NOEXIST);
	return KEEP;
}
