// SPDX-License-Identifier: GPL-2.0
/*
 * memleak.bpf.c - the kernel side of `sonde memleak`: outstanding allocations.
 *
 * User mode: a uprobe at each allocator's entry keeps the size asked for (per
 * thread), its uretprobe records the returned address with the size, the time
 * and the stack, in `allocs`; a uprobe on free/munmap deletes the address.
 * The stack is taken at the return, where the caller's frame is whole (at the
 * entry, a frame-pointer walk misses the function that called malloc). An
 * allocator that calls another (malloc's mmap of a large block) is recorded
 * once, at the outermost call: a per-thread depth counts the nesting.
 *
 * Kernel mode: kmem:kmalloc/kfree, kmem_cache_alloc/free and
 * mm_page_alloc/free, with kernel stacks; with --percpu,
 * percpu:percpu_alloc_percpu/percpu_free_percpu instead. Those whose
 * pointer is a void * are raw tracepoints: a BTF-typed one may not read a
 * void * argument before 6.2 or so (Debian 12's 6.1 refuses to load it).
 * The user side reads `allocs` and sums it by stack; with --combined-only
 * the sums by stack are kept here too (`combined`), so that reading them
 * costs one entry per stack however many allocations are outstanding.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "memleak.h"
#include "counter.h"
#include "ustack_copy.h"

const volatile __u64 min_size = 0;
const volatile __u64 max_size = ~0ULL;
const volatile __u32 sample_every = 1;	/* record one allocation in N */
const volatile __u64 page_size = 4096;
const volatile bool combined_only = false;
const volatile bool trace = false;	/* -t: a record per call in `events` */
const volatile __u32 dwarf_size = 0;	/* --call-graph dwarf: copy up to this much user stack */
__u32 dwarf_seq = 0;

struct pending {
	__u64 size;
	__u64 memptr;	/* posix_memalign: where the address will be written */
	__u32 depth;	/* allocator calls in flight on this thread */
	__u32 skip;	/* the outermost call is not recorded (size or sampling) */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct pending);
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MEMLEAK_MAX_ALLOCS);
	__type(key, __u64);
	__type(value, struct memleak_alloc);
} allocs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, MEMLEAK_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 127 * sizeof(__u64));
} stack_traces SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MEMLEAK_MAX_STACKS);
	__type(key, __s32);
	__type(value, struct memleak_combined);
} combined SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MEMLEAK_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

#define stat_inc(which) counter_inc(&stats, (which))

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

static void emit(__u32 kind, __u64 size, __u64 addr)
{
	struct memleak_trace *e;

	if (!trace)
		return;
	if (!(e = bpf_ringbuf_reserve(&events, sizeof(*e), 0))) {
		stat_inc(MEMLEAK_STAT_LOST);
		return;
	}
	e->ts = bpf_ktime_get_ns();
	e->size = size;
	e->addr = addr;
	e->kind = kind;
	e->pid = bpf_get_current_pid_tgid();
	e->cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
}

/* --combined-only: add (sign 1) or take away (-1) an allocation of the stack's sum */
static void combine(const struct memleak_alloc *a, int sign)
{
	struct memleak_combined *c, zero = {};

	if (!combined_only || a->stack_id < 0)
		return;
	c = bpf_map_lookup_elem(&combined, &a->stack_id);
	if (!c && sign > 0) {
		bpf_map_update_elem(&combined, &a->stack_id, &zero, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&combined, &a->stack_id);
	}
	if (!c)
		return;
	__sync_fetch_and_add(&c->bytes, sign > 0 ? a->size : -a->size);
	__sync_fetch_and_add(&c->count, sign > 0 ? 1 : -1);
}

/* -s N: allocations in the size range, counted; the 1st, the N+1th... are recorded */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sample_count SEC(".maps");

static bool wanted(__u64 size)
{
	__u32 zero = 0;
	__u64 *n;

	if (size < min_size || size > max_size)
		return false;
	if (sample_every <= 1)
		return true;
	n = bpf_map_lookup_elem(&sample_count, &zero);
	return n && __sync_fetch_and_add(n, 1) % sample_every == 0;
}

static int alloc_enter(__u64 size, __u64 memptr)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct pending *p = bpf_map_lookup_elem(&pending, &tid);
	struct pending n = { .size = size, .memptr = memptr, .depth = 1 };

	if (p) {
		if (p->depth++ == 0) {
			p->size = size;
			p->memptr = memptr;
			p->skip = !wanted(size);
			if (!p->skip)
				emit(MEMLEAK_TRACE_ALLOC_ENTER, size, 0);
		}
		return 0;
	}
	n.skip = !wanted(size);
	if (!n.skip)
		emit(MEMLEAK_TRACE_ALLOC_ENTER, size, 0);
	bpf_map_update_elem(&pending, &tid, &n, BPF_ANY);
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);	/* a page without --call-graph dwarf */
} dwarf_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct memleak_dwarf);
} dwarf_stage SEC(".maps");

/*
 * --call-graph dwarf: the registers and a copy of the stack at the
 * allocator's return, sent to the user side, which unwinds them by the
 * objects' CFI; the allocation's stack_id is the record's sequence number.
 */
static __s32 dwarf_stack(struct pt_regs *r)
{
	__u32 zero = 0, seq;
	struct memleak_dwarf *d = bpf_map_lookup_elem(&dwarf_stage, &zero);
	__u64 sp = r->sp, len;

	if (!d)
		return -1;
	seq = __sync_fetch_and_add(&dwarf_seq, 1) + 1;
	seq &= 0x7fffffff;
	d->seq = seq;
	d->pid = bpf_get_current_pid_tgid() >> 32;
	d->regs[0] = r->ax;
	d->regs[1] = r->bx;
	d->regs[2] = r->cx;
	d->regs[3] = r->dx;
	d->regs[4] = r->si;
	d->regs[5] = r->di;
	d->regs[6] = r->bp;
	d->regs[7] = sp;
	d->regs[8] = r->ip;
	d->regs[9] = r->r8;
	d->regs[10] = r->r9;
	d->regs[11] = r->r10;
	d->regs[12] = r->r11;
	d->regs[13] = r->r12;
	d->regs[14] = r->r13;
	d->regs[15] = r->r14;
	d->regs[16] = r->r15;
	d->stack_size = ustack_copy(d->stack, sp, dwarf_size);
	/* only the bytes copied: a smaller SIZE fits more records in the ring buffer */
	len = offsetof(struct memleak_dwarf, stack) + (d->stack_size & (MEMLEAK_DWARF_STACK * 2 - 1));
	if (len > sizeof(*d))
		len = sizeof(*d);
	return bpf_ringbuf_output(&dwarf_events, d, len, 0) ? -1 : (__s32)seq;
}

static void record(void *ctx, __u64 addr, __u64 size, __u64 stack_flags)
{
	struct memleak_alloc a = {
		.size = size,
		.ts = bpf_ktime_get_ns(),
		.pid = bpf_get_current_pid_tgid() >> 32,
	};

	struct memleak_alloc *old;

	if (dwarf_size && (stack_flags & BPF_F_USER_STACK))
		a.stack_id = dwarf_stack(ctx);
	else
		a.stack_id = bpf_get_stackid(ctx, &stack_traces, stack_flags);
	if (a.stack_id < 0)
		stat_inc(MEMLEAK_STAT_NOSTACK);
	if (combined_only && (old = bpf_map_lookup_elem(&allocs, &addr)))
		combine(old, -1);	/* its free was not seen */
	if (bpf_map_update_elem(&allocs, &addr, &a, BPF_ANY)) {
		stat_inc(MEMLEAK_STAT_FULL);
		return;
	}
	stat_inc(MEMLEAK_STAT_ALLOCS);
	combine(&a, 1);
	emit(MEMLEAK_TRACE_ALLOC_EXIT, size, addr);
}

static int alloc_exit(struct pt_regs *ctx, __u64 addr)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct pending *p = bpf_map_lookup_elem(&pending, &tid);
	__u64 size, memptr;

	if (!p || p->depth == 0)
		return 0;
	if (--p->depth > 0 || p->skip)
		return 0;
	size = p->size;
	memptr = p->memptr;
	if (memptr) {		/* posix_memalign: 0 on success, the address at *memptr */
		if (addr != 0 || bpf_probe_read_user(&addr, sizeof(addr), (void *)memptr))
			return 0;
	}
	if (addr == 0 || addr == (__u64)-1)	/* NULL, MAP_FAILED */
		return 0;
	record(ctx, addr, size, BPF_F_USER_STACK);
	return 0;
}

static int free_enter(__u64 addr)
{
	struct memleak_alloc *a;

	if (!addr)
		return 0;
	if ((combined_only || trace) && (a = bpf_map_lookup_elem(&allocs, &addr))) {
		combine(a, -1);
		emit(MEMLEAK_TRACE_FREE, a->size, addr);
	}
	if (!bpf_map_delete_elem(&allocs, &addr))
		stat_inc(MEMLEAK_STAT_FREES);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(malloc_enter, size_t size) { return alloc_enter(size, 0); }

SEC("uprobe")
int BPF_KPROBE(calloc_enter, size_t n, size_t size) { return alloc_enter(n * size, 0); }

SEC("uprobe")
int BPF_KPROBE(realloc_enter, void *ptr, size_t size)
{
	free_enter((__u64)ptr);
	return alloc_enter(size, 0);
}

SEC("uprobe")
int BPF_KPROBE(posix_memalign_enter, void **memptr, size_t align, size_t size)
{
	return alloc_enter(size, (__u64)memptr);
}

/* aligned_alloc, memalign: (alignment, size) */
SEC("uprobe")
int BPF_KPROBE(memalign_enter, size_t align, size_t size) { return alloc_enter(size, 0); }

SEC("uprobe")
int BPF_KPROBE(pvalloc_enter, size_t size)
{
	return alloc_enter((size + page_size - 1) / page_size * page_size, 0);
}

SEC("uprobe")
int BPF_KPROBE(mmap_enter, void *addr, size_t len) { return alloc_enter(len, 0); }

SEC("uretprobe")
int BPF_KRETPROBE(alloc_return, void *ret) { return alloc_exit(ctx, (__u64)ret); }

/* posix_memalign returns an error number; 0 says *memptr holds the address */
SEC("uretprobe")
int BPF_KRETPROBE(memalign_ptr_return, int ret) { return alloc_exit(ctx, (__u64)(long)ret); }

SEC("uprobe")
int BPF_KPROBE(free_uprobe, void *ptr) { return free_enter((__u64)ptr); }

SEC("uprobe")
int BPF_KPROBE(munmap_enter, void *addr) { return free_enter((__u64)addr); }

/* kernel mode */
static int kalloc(void *ctx, __u64 addr, __u64 size)
{
	if (!addr || !wanted(size))
		return 0;
	emit(MEMLEAK_TRACE_ALLOC_ENTER, size, 0);
	record(ctx, addr, size, 0);
	return 0;
}

SEC("raw_tp/kmalloc")
int BPF_PROG(kmalloc, unsigned long call_site, const void *ptr, size_t bytes_req, size_t bytes_alloc)
{
	return kalloc(ctx, (__u64)ptr, bytes_alloc);
}

SEC("raw_tp/kfree")
int BPF_PROG(kfree, unsigned long call_site, const void *ptr) { return free_enter((__u64)ptr); }

SEC("raw_tp/kmem_cache_alloc")
int BPF_PROG(kmem_cache_alloc, unsigned long call_site, const void *ptr, struct kmem_cache *s)
{
	return kalloc(ctx, (__u64)ptr, BPF_CORE_READ(s, size));
}

SEC("raw_tp/kmem_cache_free")
int BPF_PROG(kmem_cache_free, unsigned long call_site, const void *ptr) { return free_enter((__u64)ptr); }

/* pages: the struct page pointer is the key, freed by the same pointer */
SEC("tp_btf/mm_page_alloc")
int BPF_PROG(mm_page_alloc, struct page *page, unsigned int order)
{
	return kalloc(ctx, (__u64)page, page_size << order);
}

SEC("tp_btf/mm_page_free")
int BPF_PROG(mm_page_free, struct page *page) { return free_enter((__u64)page); }

/* --percpu: per-CPU allocations, by the size asked for (as BCC counts them) */
SEC("raw_tp/percpu_alloc_percpu")
int BPF_PROG(percpu_alloc_percpu, unsigned long call_site, bool reserved, bool is_atomic, size_t size,
	     size_t align, void *base_addr, int off, void *ptr)
{
	return kalloc(ctx, (__u64)ptr, size);
}

SEC("raw_tp/percpu_free_percpu")
int BPF_PROG(percpu_free_percpu, void *base_addr, int off, void *ptr) { return free_enter((__u64)ptr); }

char LICENSE[] SEC("license") = "GPL";
