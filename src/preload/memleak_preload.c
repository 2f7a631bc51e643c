// SPDX-License-Identifier: GPL-2.0
/*
 * memleak_preload.c - the shim `sonde memleak --preload -- CMD` runs the
 * command with (LD_PRELOAD; built as a shared object and embedded in sonde).
 * It replaces malloc and its family (and mmap, munmap), as glibc allows (glibc's own functions
 * call the replacement too), calls the allocator that comes next (glibc's,
 * or jemalloc's, tcmalloc's when the command loads one), and
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

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
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
extern char **environ;

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))

static struct mlshm_hdr *hdr;
static struct mlshm_alloc *allocs;
static struct mlshm_stack *stacks;
static int enabled;		/* 0 before the constructor, in a forked child, without sonde */
static TLS uintptr_t stack_top;	/* the thread's stack ends below this */
static TLS int busy;		/* this thread is in the shim: what it allocates is not recorded */
static int shm_fd = -1, so_fd = -1;	/* kept, close-on-exec but for the command's own execs */

/*
 * The next allocator, found by dlsym on the first call. dlsym itself may
 * allocate: meanwhile, blocks come from a static pool they are never freed to.
 */
static void *(*nx_malloc)(size_t);
static void *(*nx_calloc)(size_t, size_t);
static void *(*nx_realloc)(void *, size_t);
static void *(*nx_memalign)(size_t, size_t);
static void (*nx_free)(void *);
static int resolving;
static char boot[1 << 16] __attribute__((aligned(64)));
static size_t boot_used;

static void *boot_alloc(size_t align, size_t n)
{
	size_t need = (n + 63) & ~(size_t)63, at;

	if (n > sizeof(boot) || align > 64)
		return NULL;
	at = __atomic_fetch_add(&boot_used, need, __ATOMIC_RELAXED);
	return at + need <= sizeof(boot) ? boot + at : NULL;
}

static int in_boot(const void *p)
{
	return (const char *)p >= boot && (const char *)p < boot + sizeof(boot);
}

static int resolve(void)
{
	if (__atomic_load_n(&nx_free, __ATOMIC_ACQUIRE))
		return 1;
	if (__atomic_exchange_n(&resolving, 1, __ATOMIC_ACQUIRE))
		return 0;
	nx_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	nx_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	nx_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	nx_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	if (!nx_memalign)
		nx_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	if (!nx_malloc || !nx_calloc || !nx_realloc || !nx_memalign) {	/* glibc's, then */
		nx_malloc = __libc_malloc;
		nx_calloc = __libc_calloc;
		nx_realloc = __libc_realloc;
		nx_memalign = __libc_memalign;
		__atomic_store_n(&nx_free, __libc_free, __ATOMIC_RELEASE);
	} else {
		void (*f)(void *) = (void (*)(void *))dlsym(RTLD_NEXT, "free");

		__atomic_store_n(&nx_free, f ? f : __libc_free, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&resolving, 0, __ATOMIC_RELEASE);
	return 1;
}

static void *real_malloc(size_t n)
{
	return resolve() ? nx_malloc(n) : boot_alloc(16, n);
}

static void *real_calloc(size_t n, size_t size)
{
	if (resolve())
		return nx_calloc(n, size);
	return size && n > (size_t)-1 / size ? NULL : boot_alloc(16, n * size);	/* the pool is zeroed */
}

static void *real_memalign(size_t align, size_t n)
{
	return resolve() ? nx_memalign(align, n) : boot_alloc(align, n);
}

static void real_free(void *p)
{
	if (p && !in_boot(p) && resolve())
		nx_free(p);
}

static void *real_realloc(void *p, size_t n)
{
	if (in_boot(p)) {	/* out of the pool: a copy of what it can hold */
		void *q = real_malloc(n);
		size_t left = boot + sizeof(boot) - (char *)p;

		if (q)
			memcpy(q, p, n < left ? n : left);
		return q;
	}
	return resolve() ? nx_realloc(p, n) : NULL;
}

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
	void *p = real_malloc(n);

	record(p, n, FP());
	return p;
}

EXPORT void free(void *p)
{
	forget(p);		/* before the block can be handed out again */
	real_free(p);
}

EXPORT void *calloc(size_t n, size_t size)
{
	void *p = real_calloc(n, size);

	record(p, n * size, FP());
	return p;
}

EXPORT void *realloc(void *old, size_t n)
{
	void *p;

	forget(old);
	p = real_realloc(old, n);
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
	p = real_realloc(old, n * size);
	record(p, n * size, FP());
	return p;
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (!align || align % sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	if (!(p = real_memalign(align, n)))
		return ENOMEM;
	record(p, n, FP());
	*out = p;
	return 0;
}

EXPORT void *memalign(size_t align, size_t n)
{
	void *p = real_memalign(align, n);

	record(p, n, FP());
	return p;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p = real_memalign(align, n);

	record(p, n, FP());
	return p;
}

EXPORT void *valloc(size_t n)
{
	void *p = real_memalign(getpagesize(), n);

	record(p, n, FP());
	return p;
}

EXPORT void *pvalloc(size_t n)
{
	size_t page = getpagesize(), rounded = n ? (n + page - 1) / page * page : page;
	void *p = real_memalign(page, rounded);

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

/*
 * The command's own exec (a wrapper such as env or `sh -c 'exec ...'`) takes
 * the shim along: the new program gets LD_PRELOAD and the shim's variable
 * added to the environment it is given, and the two descriptors stay open
 * across that exec only. A forked child's execs, and posix_spawn, do not.
 */
static char **with_shim(char *const envp[])
{
	const char *own = "";
	size_t n = 0, k = 0, len;
	char **v, *pre, *var;

	for (; envp && envp[n]; n++)
		if (!strncmp(envp[n], "LD_PRELOAD=", 11))
			own = envp[n] + 11;
	len = strlen(own) + 64;
	v = real_malloc((n + 3) * sizeof(*v));
	pre = real_malloc(len + 16);
	var = real_malloc(len + sizeof(MLSHM_ENV) + 32);
	if (!v || !pre || !var) {
		real_free(v);
		real_free(pre);
		real_free(var);
		return NULL;
	}
	snprintf(pre, len + 16, "LD_PRELOAD=/proc/self/fd/%d%s%s", so_fd, *own ? ":" : "", own);
	snprintf(var, len + sizeof(MLSHM_ENV) + 32, "%s=%d,%d,%s", MLSHM_ENV, shm_fd, so_fd, own);
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], "LD_PRELOAD=", 11) && strncmp(envp[i], MLSHM_ENV "=", sizeof(MLSHM_ENV)))
			v[k++] = envp[i];
	v[k++] = pre;
	v[k++] = var;
	v[k] = NULL;
	return v;
}

static void keep_fds(int keep)
{
	fcntl(shm_fd, F_SETFD, keep ? 0 : FD_CLOEXEC);
	fcntl(so_fd, F_SETFD, keep ? 0 : FD_CLOEXEC);
}

/* exec through fn with the shim added (a command that is not ours: as it is) */
static int exec_with_shim(int (*fn)(const char *, char *const[], char *const[]), const char *file,
			  char *const argv[], char *const envp[])
{
	/* getpid: a vfork child (dash runs commands so) shares our memory, and so `enabled` */
	char **v = enabled && shm_fd >= 0 && getpid() == hdr->pid ? with_shim(envp) : NULL;
	int rc, err, n;

	if (!v)
		return fn(file, argv, envp);
	keep_fds(1);
	rc = fn(file, argv, v);
	err = errno;
	keep_fds(0);
	for (n = 0; v[n]; n++)		/* the exec failed: the two entries made, the last ones */
		;
	real_free(v[n - 1]);
	real_free(v[n - 2]);
	real_free(v);
	errno = err;
	return rc;
}

static int sys_execve(const char *path, char *const argv[], char *const envp[])
{
	return syscall(SYS_execve, path, argv, envp);
}

static int next_execvpe(const char *file, char *const argv[], char *const envp[])
{
	static int (*next)(const char *, char *const[], char *const[]);

	if (!next)
		next = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execvpe");
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	return next(file, argv, envp);
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return exec_with_shim(sys_execve, path, argv, envp);
}

EXPORT int execv(const char *path, char *const argv[])
{
	return exec_with_shim(sys_execve, path, argv, environ);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return exec_with_shim(next_execvpe, file, argv, envp);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return exec_with_shim(next_execvpe, file, argv, environ);
}

/* execl, execlp, execle: the arguments as an array (envp after the NULL for execle) */
static int exec_list(int search, int with_env, const char *file, const char *arg, va_list ap)
{
	char *argv[4096];
	char *const *envp = environ;
	int n = 0;

	argv[n++] = (char *)arg;
	while (arg && n < 4095 && (argv[n++] = va_arg(ap, char *)))
		;
	argv[n] = NULL;
	if (with_env)
		envp = va_arg(ap, char *const *);
	return search ? execvpe(file, argv, envp) : execve(file, argv, envp);
}

/* execl, execlp, execle: each hands its variable arguments to exec_list */
#define EXEC_LIST(name, search, with_env)					\
	EXPORT int name(const char *file, const char *arg, ...)			\
	{									\
		va_list ap;							\
		int rc;								\
										\
		va_start(ap, arg);						\
		rc = exec_list(search, with_env, file, arg, ap);		\
		va_end(ap);							\
		return rc;							\
	}

EXEC_LIST(execl, 0, 0)
EXEC_LIST(execlp, 1, 0)
EXEC_LIST(execle, 0, 1)

/*
 * Map the tables sonde made and give the command back its environment. In a
 * program the command exec'd (the same process), the tables start over: the
 * blocks of the program before are gone with it.
 */
__attribute__((constructor)) static void init(void)
{
	const char *e = getenv(MLSHM_ENV);
	int off = 0;
	void *m;

	if (!e || sscanf(e, "%d,%d,%n", &shm_fd, &so_fd, &off) != 2 || !off) {
		shm_fd = so_fd = -1;
		return;
	}
	if (e[off])
		setenv("LD_PRELOAD", e + off, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv(MLSHM_ENV);
	keep_fds(0);
	m = mmap(NULL, MLSHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, shm_fd, 0);
	if (m == MAP_FAILED)
		return;
	hdr = m;
	if (hdr->magic != MLSHM_MAGIC || hdr->version != MLSHM_VERSION || hdr->pid != getpid())
		return;
	allocs = (struct mlshm_alloc *)((char *)m + MLSHM_ALLOCS_OFF);
	stacks = (struct mlshm_stack *)((char *)m + MLSHM_STACKS_OFF);
	if (__atomic_load_n(&hdr->ready, __ATOMIC_ACQUIRE)) {	/* an exec'd program: empty tables */
		fallocate(shm_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, MLSHM_ALLOCS_OFF,
			  MLSHM_SIZE - MLSHM_ALLOCS_OFF);
		hdr->used = 0;
		hdr->nr_stacks = 0;
	}
	stack_top = (uintptr_t)__libc_stack_end;
	pthread_atfork(NULL, NULL, forked_child);
	__atomic_store_n(&hdr->ready, 1, __ATOMIC_RELEASE);
	enabled = 1;
}
