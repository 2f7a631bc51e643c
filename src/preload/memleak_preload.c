// SPDX-License-Identifier: GPL-2.0
/*
 * memleak_preload.c - the shim `sonde memleak --preload -- CMD` runs the
 * command with (LD_PRELOAD; built as a shared object and embedded in sonde).
 * It replaces malloc and its family (and mmap, munmap), as glibc allows (glibc's own functions
 * call the replacement too), calls glibc's allocator (__libc_malloc...), and
 * keeps the outstanding allocations and the stacks they come from in the
 * shared memory of lib/memleak/memleak_shm.h, which sonde reads. No trap per
 * call, no system call: a table insert and a frame-pointer walk bounded by
 * the thread's stack, so the command runs at nearly its own speed (heaptrack's
 * approach, with the bookkeeping done in place instead of in a trace file).
 *
 * Never linked into sonde: the Makefile builds it with its own flags (frame
 * pointers, no sanitizers).
 */
#include "lib/memleak/memleak_shm.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);
extern void *__libc_stack_end;

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))

static struct mlshm_hdr *hdr;
static struct mlshm_alloc *allocs;
static struct mlshm_stack *stacks;
static int enabled;		/* 0 before the constructor, in a forked child, without sonde */
static TLS uintptr_t stack_top;	/* the thread's stack ends below this */
static TLS int busy;		/* this thread is in the shim: what it allocates is not recorded */

static int lock(void)
{
	if (__libc_single_threaded)
		return 0;
	while (__atomic_exchange_n(&hdr->lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&hdr->lock, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
	return 1;
}

static void unlock(int locked)
{
	if (locked)
		__atomic_store_n(&hdr->lock, 0, __ATOMIC_RELEASE);
}

/* the top of a thread's stack, once per thread (the main thread's is known at start) */
static uintptr_t thread_stack_top(void)
{
	pthread_attr_t a;
	void *lo;
	size_t size;

	if (stack_top || busy)
		return stack_top;
	busy = 1;		/* pthread_getattr_np allocates */
	if (!pthread_getattr_np(pthread_self(), &a)) {
		if (!pthread_attr_getstack(&a, &lo, &size))
			stack_top = (uintptr_t)lo + size;
		pthread_attr_destroy(&a);
	}
	busy = 0;
	return stack_top;
}

/*
 * The return addresses up the frame-pointer chain from fp, the frame of the
 * shim's entry point: ips[0] is in the allocator's caller. Each frame must lie
 * above the last and below the stack's top, so a frame without a frame pointer
 * ends the walk instead of reading wild memory.
 */
static int walk(uintptr_t fp, uint64_t *ips)
{
	uintptr_t top = thread_stack_top();
	int n = 0;

	while (n < MLSHM_DEPTH && fp && !(fp & 7) && fp + 16 <= top) {
		uintptr_t next = ((uintptr_t *)fp)[0], ret = ((uintptr_t *)fp)[1];

		if (!ret)
			break;
		ips[n++] = ret;
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

/* the stack's index + 1 in the stack table, entered if new; 0 when the table is full */
static uint32_t stack_index(const uint64_t *ips, int n)
{
	uint64_t h = n;
	uint32_t mask = MLSHM_STACKS - 1, i;

	for (int j = 0; j < n; j++)
		h = mlshm__hash64(h ^ ips[j]);
	h |= 1;
	for (i = h & mask;; i = (i + 1) & mask) {
		struct mlshm_stack *s = &stacks[i];

		if (!s->nr) {
			if (hdr->nr_stacks >= MLSHM_STACKS / 4 * 3)
				return 0;
			memcpy(s->ips, ips, n * sizeof(*ips));
			s->hash = h;
			__atomic_store_n(&s->nr, n, __ATOMIC_RELEASE);
			hdr->nr_stacks++;
			return i + 1;
		}
		if (s->hash == h && s->nr == (uint32_t)n && !memcmp(s->ips, ips, n * sizeof(*ips)))
			return i + 1;
	}
}

/* take a recorded allocation out of the table (backward-shift deletion: no tombstones) */
static void forget_locked(uint64_t addr)
{
	uint32_t mask = MLSHM_SLOTS - 1, i = mlshm__hash64(addr) & mask, j;
	struct mlshm_stack *s;

	while (allocs[i].addr != addr) {
		if (!allocs[i].addr)
			return;
		i = (i + 1) & mask;
	}
	s = &stacks[allocs[i].stack - 1];
	s->bytes -= allocs[i].size;
	s->count--;
	hdr->used--;
	hdr->stats[MLSHM_STAT_FREES]++;
	for (j = (i + 1) & mask; allocs[j].addr; j = (j + 1) & mask) {
		uint32_t home = mlshm__hash64(allocs[j].addr) & mask;

		/* an entry may move back to i unless its home lies cyclically in (i, j] */
		if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
			allocs[i] = allocs[j];
			i = j;
		}
	}
	allocs[i].addr = 0;
}

static void forget(void *p)
{
	int l;

	if (!enabled || !p || busy)
		return;
	l = lock();
	forget_locked((uint64_t)p);
	unlock(l);
}

static void record(void *p, size_t size, uintptr_t fp)
{
	uint64_t ips[MLSHM_DEPTH], addr = (uint64_t)p;
	uint32_t mask = MLSHM_SLOTS - 1, i, st;
	int n, l;

	if (!enabled || !p || busy || size < hdr->min_size || (hdr->max_size && size > hdr->max_size))
		return;
	if (hdr->sample_every > 1 &&
	    __atomic_fetch_add(&hdr->sampled, 1, __ATOMIC_RELAXED) % hdr->sample_every)
		return;
	n = walk(fp, ips);
	l = lock();
	if (!(st = stack_index(ips, n))) {
		hdr->stats[MLSHM_STAT_NOSTACK]++;
		goto out;
	}
	forget_locked(addr);		/* an address handed out again whose free was not seen */
	if (hdr->used >= MLSHM_SLOTS / 2) {
		hdr->stats[MLSHM_STAT_FULL]++;
		goto out;
	}
	for (i = mlshm__hash64(addr) & mask; allocs[i].addr; i = (i + 1) & mask)
		;
	allocs[i] = (struct mlshm_alloc){ addr, size, st, __atomic_load_n(&hdr->now_ms, __ATOMIC_RELAXED) };
	stacks[st - 1].bytes += size;
	stacks[st - 1].count++;
	hdr->used++;
	hdr->stats[MLSHM_STAT_ALLOCS]++;
out:
	unlock(l);
}

#define FP() ((uintptr_t)__builtin_frame_address(0))

EXPORT void *malloc(size_t n)
{
	void *p = __libc_malloc(n);

	record(p, n, FP());
	return p;
}

EXPORT void free(void *p)
{
	forget(p);		/* before the block can be handed out again */
	__libc_free(p);
}

EXPORT void *calloc(size_t n, size_t size)
{
	void *p = __libc_calloc(n, size);

	record(p, n * size, FP());
	return p;
}

EXPORT void *realloc(void *old, size_t n)
{
	void *p;

	forget(old);
	p = __libc_realloc(old, n);
	record(p, n, FP());
	return p;
}

EXPORT void *reallocarray(void *old, size_t n, size_t size)
{
	void *p;

	if (size && n > (size_t)-1 / size) {
		errno = ENOMEM;
		return NULL;
	}
	forget(old);
	p = __libc_realloc(old, n * size);
	record(p, n * size, FP());
	return p;
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (!align || align % sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	if (!(p = __libc_memalign(align, n)))
		return ENOMEM;
	record(p, n, FP());
	*out = p;
	return 0;
}

EXPORT void *memalign(size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);

	record(p, n, FP());
	return p;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);

	record(p, n, FP());
	return p;
}

EXPORT void *valloc(size_t n)
{
	void *p = __libc_memalign(getpagesize(), n);

	record(p, n, FP());
	return p;
}

EXPORT void *pvalloc(size_t n)
{
	size_t page = getpagesize(), rounded = n ? (n + page - 1) / page * page : page;
	void *p = __libc_memalign(page, rounded);

	record(p, rounded, FP());
	return p;
}

/* mmap and munmap as the uprobes see them: a mapping is a block of its length, from the caller's stack */
EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);

	if (p != MAP_FAILED)
		record(p, len, FP());
	return p;
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

EXPORT int munmap(void *addr, size_t len)
{
	forget(addr);
	return syscall(SYS_munmap, addr, len);
}

static void forked_child(void)
{
	enabled = 0;
}

/* map the tables sonde made; give the command back its environment (the command's children run without us) */
__attribute__((constructor)) static void init(void)
{
	const char *e = getenv(MLSHM_ENV);
	int shm, so, off = 0;
	void *m;

	if (!e || sscanf(e, "%d,%d,%n", &shm, &so, &off) != 2 || !off)
		return;
	if (e[off])
		setenv("LD_PRELOAD", e + off, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv(MLSHM_ENV);
	m = mmap(NULL, MLSHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, shm, 0);
	close(shm);
	close(so);
	if (m == MAP_FAILED)
		return;
	hdr = m;
	if (hdr->magic != MLSHM_MAGIC || hdr->version != MLSHM_VERSION || hdr->pid != getpid())
		return;
	allocs = (struct mlshm_alloc *)((char *)m + MLSHM_ALLOCS_OFF);
	stacks = (struct mlshm_stack *)((char *)m + MLSHM_STACKS_OFF);
	stack_top = (uintptr_t)__libc_stack_end;
	pthread_atfork(NULL, NULL, forked_child);
	__atomic_store_n(&hdr->ready, 1, __ATOMIC_RELEASE);
	enabled = 1;
}
