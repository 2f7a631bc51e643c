// SPDX-License-Identifier: GPL-2.0
/*
 * memleak_preload.c - sonde's side of `memleak --preload`: the shim written
 * to a memfd the command preloads, the tables it fills in another, and the
 * report read from them. The tables are read with pread, never through a
 * mapping: reading a hole of a memfd through pread gives zeros without
 * making the page exist, so a report costs no memory where the command
 * allocated nothing.
 */
#include "lib/memleak/memleak_preload.h"
#include "lib/util.h"
#include "lib/memleak/memleak_shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "memleak_preload_so.h"

#define ENV_MAX 8192

struct memleak_preload {
	int shm_fd, so_fd;
	struct mlshm_hdr *hdr;		/* the first page, mapped */
	uint64_t start_ns;
	char *old_preload;		/* LD_PRELOAD before setenv (NULL: none) */
	bool had_preload, env_set;
};

static int write_all(int fd, const void *buf, size_t n)
{
	for (size_t done = 0; done < n;) {
		ssize_t w = write(fd, (const char *)buf + done, n - done);

		if (w < 0 && errno != EINTR)
			return -errno;
		done += w > 0 ? (size_t)w : 0;
	}
	return 0;
}

int memleak_preload__new(struct memleak_preload **out, const struct memleak_opts *o)
{
	struct memleak_preload *p = calloc(1, sizeof(*p));
	int rc;

	*out = p;
	if (!p)
		return -ENOMEM;
	p->shm_fd = p->so_fd = -1;
	/* no MFD_CLOEXEC: the command inherits both; the shim closes them */
	if ((p->so_fd = memfd_create("sonde-memleak-preload", 0)) < 0 ||
	    (p->shm_fd = memfd_create("sonde-memleak-tables", 0)) < 0)
		return -errno;
	if ((rc = write_all(p->so_fd, memleak_preload_so, sizeof(memleak_preload_so))))
		return rc;
	if (ftruncate(p->shm_fd, MLSHM_SIZE))
		return -errno;
	p->hdr = mmap(NULL, sizeof(*p->hdr), PROT_READ | PROT_WRITE, MAP_SHARED, p->shm_fd, 0);
	if (p->hdr == MAP_FAILED) {
		p->hdr = NULL;
		return -errno;
	}
	*p->hdr = (struct mlshm_hdr){
		.magic = MLSHM_MAGIC, .version = MLSHM_VERSION, .min_size = o->min_size,
		.max_size = o->max_size, .sample_every = o->sample_every,
	};
	p->start_ns = util__now_ns();
	return 0;
}

int memleak_preload__setenv(struct memleak_preload *p)
{
	const char *old = getenv("LD_PRELOAD");
	char so[64], var[ENV_MAX];
	int n;

	p->had_preload = old != NULL;
	if (old && !(p->old_preload = strdup(old)))
		return -ENOMEM;
	snprintf(so, sizeof(so), "/proc/self/fd/%d", p->so_fd);
	n = snprintf(var, sizeof(var), "%d,%d,%s", p->shm_fd, p->so_fd, old ? old : "");
	if (n >= (int)sizeof(var))
		return -E2BIG;
	if (setenv(MLSHM_ENV, var, 1))
		return -errno;
	if (old && *old) {
		char both[ENV_MAX];

		if (snprintf(both, sizeof(both), "%s:%s", so, old) >= (int)sizeof(both))
			return -E2BIG;
		if (setenv("LD_PRELOAD", both, 1))
			return -errno;
	} else if (setenv("LD_PRELOAD", so, 1)) {
		return -errno;
	}
	p->env_set = true;
	return 0;
}

void memleak_preload__restore_env(struct memleak_preload *p)
{
	if (!p->env_set)
		return;
	unsetenv(MLSHM_ENV);
	if (p->had_preload)
		setenv("LD_PRELOAD", p->old_preload, 1);
	else
		unsetenv("LD_PRELOAD");
	p->env_set = false;
}

void memleak_preload__set_pid(struct memleak_preload *p, pid_t pid)
{
	__atomic_store_n(&p->hdr->pid, pid, __ATOMIC_RELEASE);
}

void memleak_preload__tick(struct memleak_preload *p)
{
	__atomic_store_n(&p->hdr->now_ms, (uint32_t)((util__now_ns() - p->start_ns) / 1000000), __ATOMIC_RELAXED);
}

bool memleak_preload__ready(const struct memleak_preload *p)
{
	return __atomic_load_n(&p->hdr->ready, __ATOMIC_ACQUIRE);
}

/* n elements of size sz at off of the tables, in chunks, to each(); 0 or -errno */
static int scan(int fd, uint64_t off, size_t n, size_t sz, void (*each)(const void *, size_t, void *), void *ctx)
{
	enum { CHUNK = 4096 };
	char *buf = malloc(CHUNK * sz);

	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i += CHUNK) {
		size_t want = (n - i < CHUNK ? n - i : CHUNK) * sz;
		ssize_t got = pread(fd, buf, want, off + i * sz);

		if (got != (ssize_t)want) {
			free(buf);
			return got < 0 ? -errno : -EIO;
		}
		for (size_t j = 0; j < want / sz; j++)
			each(buf + j * sz, i + j, ctx);
	}
	free(buf);
	return 0;
}

struct sums {
	uint64_t *bytes, *count;	/* by stack index */
	struct memleak_report *r;
	uint32_t now_ms, older_ms;
	bool combined;
	int err;
	pid_t pid;
	size_t cap;		/* of r->a */
};

static void each_alloc(const void *e, size_t i, void *ctx)
{
	const struct mlshm_alloc *a = e;
	struct sums *s = ctx;

	(void)i;
	if (!a->addr || !a->stack || a->stack > MLSHM_STACKS || a->ms + s->older_ms > s->now_ms)
		return;
	s->bytes[a->stack - 1] += a->size;
	s->count[a->stack - 1]++;
	if (s->r->a && (size_t)s->r->na < s->cap)
		s->r->a[s->r->na++] = (struct memleak_addr){ a->addr, a->size };
}

static void each_stack(const void *e, size_t i, void *ctx)
{
	const struct mlshm_stack *st = e;
	struct sums *s = ctx;
	struct memleak_stack *out;
	uint64_t bytes = s->combined ? st->bytes : s->bytes[i], count = s->combined ? st->count : s->count[i];

	if (!st->nr || !count || (int64_t)count < 0 || s->err)
		return;
	out = &s->r->s[s->r->n];
	*out = (struct memleak_stack){ .stack_id = i, .pid = s->pid, .bytes = bytes, .count = count };
	out->nr = st->nr < MLSHM_DEPTH ? st->nr : MLSHM_DEPTH;
	if (!(out->ips = malloc(out->nr * sizeof(*out->ips) + 1))) {
		s->err = -ENOMEM;
		return;
	}
	memcpy(out->ips, st->ips, out->nr * sizeof(*out->ips));
	s->r->n++;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct memleak_stack *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct memleak_addr *x = a, *y = b;

	return x->size < y->size ? -1 : x->size > y->size;
}

int memleak_preload__read(struct memleak_preload *p, uint64_t older_ns, bool combined, struct memleak_report *r)
{
	struct mlshm_hdr *h = p->hdr;
	struct sums s = { .r = r, .older_ms = older_ns / 1000000, .combined = combined, .pid = h->pid };
	int rc = 0;

	memset(r, 0, sizeof(*r));
	memleak_preload__tick(p);
	s.now_ms = h->now_ms;
	if (!(r->s = calloc(MLSHM_STACKS, sizeof(*r->s))))
		return -ENOMEM;
	if (!combined) {
		uint64_t used = __atomic_load_n(&h->used, __ATOMIC_RELAXED);

		s.bytes = calloc(MLSHM_STACKS, sizeof(*s.bytes));
		s.count = calloc(MLSHM_STACKS, sizeof(*s.count));
		/* a slot may move while it is read: room for every slot seen used, and a few */
		s.cap = used + 1024 < MLSHM_SLOTS ? used + 1024 : MLSHM_SLOTS;
		r->a = malloc(s.cap * sizeof(*r->a));
		if (!s.bytes || !s.count || !r->a)
			rc = -ENOMEM;
		if (!rc)
			rc = scan(p->shm_fd, MLSHM_ALLOCS_OFF, MLSHM_SLOTS, sizeof(struct mlshm_alloc), each_alloc, &s);
	}
	if (!rc)
		rc = scan(p->shm_fd, MLSHM_STACKS_OFF, MLSHM_STACKS, sizeof(struct mlshm_stack), each_stack, &s);
	rc = rc ? rc : s.err;
	free(s.bytes);
	free(s.count);
	if (rc) {
		memleak_report__free(r);
		return rc;
	}
	qsort(r->s, r->n, sizeof(*r->s), cmp_stack);
	if (r->na)
		qsort(r->a, r->na, sizeof(*r->a), cmp_addr);
	r->stats[MEMLEAK_STAT_ALLOCS] = h->stats[MLSHM_STAT_ALLOCS];
	r->stats[MEMLEAK_STAT_FREES] = h->stats[MLSHM_STAT_FREES];
	r->stats[MEMLEAK_STAT_FULL] = h->stats[MLSHM_STAT_FULL];
	r->stats[MEMLEAK_STAT_NOSTACK] = h->stats[MLSHM_STAT_NOSTACK];
	return 0;
}

void memleak_preload__free(struct memleak_preload *p)
{
	if (!p)
		return;
	memleak_preload__restore_env(p);
	if (p->hdr)
		munmap(p->hdr, sizeof(*p->hdr));
	if (p->shm_fd >= 0)
		close(p->shm_fd);
	if (p->so_fd >= 0)
		close(p->so_fd);
	free(p->old_preload);
	free(p);
}
