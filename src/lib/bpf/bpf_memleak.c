// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_memleak.c - the user side of memleak.bpf.c: which program goes on which
 * allocator function, and the outstanding allocations summed by stack.
 */
#include "lib/bpf/bpf_memleak.h"
#include "lib/bpf/bpf_util.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memleak.skel.h"

#define MAX_LINKS 32

struct memleak {
	struct memleak_bpf *skel;
	struct bpf_link *links[MAX_LINKS];
	int nr_links;
	int nr_attached;	/* functions or tracepoints */
};

/* a user allocator: its entry program, its return program (NULL: free-like), required or not */
struct ufunc {
	const char *name;
	struct bpf_program *entry, *ret;
	bool required;
};

static int attach_uprobe(struct memleak *m, struct bpf_program *p, pid_t pid, const char *lib,
			 const char *func, bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = func, .retprobe = ret);
	struct bpf_link *l;

	if (m->nr_links >= MAX_LINKS)
		return -E2BIG;
	l = bpf_program__attach_uprobe_opts(p, pid, lib, 0, &uo);
	if (!l)
		return -errno;
	m->links[m->nr_links++] = l;
	return 0;
}

static int attach_user(struct memleak *m, const struct memleak_opts *o, char *err, size_t errlen)
{
	struct memleak_bpf *s = m->skel;
	const struct ufunc fns[] = {
		{ "malloc", s->progs.malloc_enter, s->progs.alloc_return, true },
		{ "calloc", s->progs.calloc_enter, s->progs.alloc_return, false },
		{ "realloc", s->progs.realloc_enter, s->progs.alloc_return, false },
		{ "posix_memalign", s->progs.posix_memalign_enter, s->progs.memalign_ptr_return, false },
		{ "aligned_alloc", s->progs.memalign_enter, s->progs.alloc_return, false },
		{ "memalign", s->progs.memalign_enter, s->progs.alloc_return, false },
		{ "valloc", s->progs.malloc_enter, s->progs.alloc_return, false },
		{ "pvalloc", s->progs.pvalloc_enter, s->progs.alloc_return, false },
		{ "mmap", s->progs.mmap_enter, s->progs.alloc_return, false },
		{ "free", s->progs.free_uprobe, NULL, true },
		{ "munmap", s->progs.munmap_enter, NULL, false },
	};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		int rc;

		bpfutil__quiet(!fns[i].required);
		rc = attach_uprobe(m, fns[i].entry, o->pid, o->lib, fns[i].name, false);
		if (!rc && fns[i].ret)
			rc = attach_uprobe(m, fns[i].ret, o->pid, o->lib, fns[i].name, true);
		bpfutil__quiet(false);
		if (rc && fns[i].required) {
			snprintf(err, errlen, "cannot attach a uprobe to %s in %s: %s", fns[i].name, o->lib,
				 bpfutil__strerror(rc));
			return rc;
		}
		m->nr_attached += !rc;
	}
	return 0;
}

static int attach_kernel(struct memleak *m, char *err, size_t errlen)
{
	struct memleak_bpf *s = m->skel;
	struct bpf_program *progs[] = {
		s->progs.kmalloc, s->progs.kfree, s->progs.kmem_cache_alloc, s->progs.kmem_cache_free,
		s->progs.mm_page_alloc, s->progs.mm_page_free,
	};

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_link *l = bpf_program__attach(progs[i]);

		if (!l) {
			int rc = -errno;

			snprintf(err, errlen, "cannot attach to tracepoint kmem:%s: %s",
				 bpf_program__name(progs[i]), bpfutil__strerror(rc));
			return rc;
		}
		m->links[m->nr_links++] = l;
		m->nr_attached++;
	}
	return 0;
}

int memleak__new(struct memleak **out, const struct memleak_opts *o, char *err, size_t errlen)
{
	struct memleak *m = calloc(1, sizeof(*m));
	struct bpf_program *p;
	int rc;

	*out = m;
	if (!m)
		return -ENOMEM;
	m->skel = memleak_bpf__open();
	if (!m->skel) {
		rc = -errno;
		snprintf(err, errlen, "cannot open the BPF program: %s", strerror(-rc));
		return rc;
	}
	m->skel->rodata->min_size = o->min_size;
	m->skel->rodata->max_size = o->max_size ? o->max_size : ~0ULL;
	m->skel->rodata->sample_every = o->sample_every ? o->sample_every : 1;
	m->skel->rodata->page_size = sysconf(_SC_PAGESIZE);
	bpf_object__for_each_program(p, m->skel->obj) {
		bool kernel = bpf_program__type(p) == BPF_PROG_TYPE_TRACING;

		bpf_program__set_autoload(p, kernel == !o->pid);
	}
	rc = memleak_bpf__load(m->skel);
	if (rc) {
		snprintf(err, errlen, "cannot load the BPF program: %s", bpfutil__strerror(rc));
		return rc;
	}
	return o->pid ? attach_user(m, o, err, errlen) : attach_kernel(m, err, errlen);
}

int memleak__nr_attached(const struct memleak *m)
{
	return m->nr_attached;
}

static int cmp_addr_size(const void *a, const void *b)
{
	const struct memleak_addr *x = a, *y = b;

	return x->size < y->size ? -1 : x->size > y->size;
}

static int cmp_stack_bytes(const void *a, const void *b)
{
	const struct memleak_stack *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* the entry of stack id in r (added when new); NULL: no memory */
static struct memleak_stack *stack_of(struct memleak_report *r, int *cap, int32_t id, pid_t pid)
{
	struct memleak_stack *s;

	for (int i = 0; i < r->n; i++)	/* few distinct stacks: a linear search is enough */
		if (r->s[i].stack_id == id && (id >= 0 || r->s[i].pid == pid))
			return &r->s[i];
	if (r->n == *cap) {
		int nc = *cap ? *cap * 2 : 64;
		struct memleak_stack *ns = realloc(r->s, nc * sizeof(*ns));

		if (!ns)
			return NULL;
		r->s = ns;
		*cap = nc;
	}
	s = &r->s[r->n++];
	*s = (struct memleak_stack){ .stack_id = id, .pid = pid };
	return s;
}

static int add_addr(struct memleak_report *r, int *cap, uint64_t addr, uint64_t size)
{
	if (r->na == *cap) {
		int nc = *cap ? *cap * 2 : 256;
		struct memleak_addr *na = realloc(r->a, nc * sizeof(*na));

		if (!na)
			return -ENOMEM;
		r->a = na;
		*cap = nc;
	}
	r->a[r->na++] = (struct memleak_addr){ addr, size };
	return 0;
}

int memleak__read(struct memleak *m, uint64_t older_ns, struct memleak_report *r)
{
	int allocs_fd = bpf_map__fd(m->skel->maps.allocs);
	int stacks_fd = bpf_map__fd(m->skel->maps.stack_traces);
	uint64_t key, next, now = now_ns();
	uint64_t *cur = NULL;
	int scap = 0, acap = 0, rc = 0;

	memset(r, 0, sizeof(*r));
	while (!bpf_map_get_next_key(allocs_fd, cur, &next)) {
		struct memleak_alloc a;
		struct memleak_stack *s;

		key = next;
		cur = &key;
		if (bpf_map_lookup_elem(allocs_fd, &key, &a))
			continue;	/* freed meanwhile */
		if (a.ts + older_ns > now)
			continue;
		if (!(s = stack_of(r, &scap, a.stack_id, a.pid)) || add_addr(r, &acap, key, a.size)) {
			rc = -ENOMEM;
			break;
		}
		s->bytes += a.size;
		s->count++;
	}
	for (int i = 0; !rc && i < r->n; i++) {
		struct memleak_stack *s = &r->s[i];

		if (s->stack_id < 0)
			continue;
		if (!(s->ips = calloc(127, sizeof(*s->ips))))
			rc = -ENOMEM;
		else if ((s->nr = bpf_stack__read(stacks_fd, s->stack_id, s->ips, 127)) < 0)
			s->nr = 0;
	}
	if (rc) {
		memleak_report__free(r);
		return rc;
	}
	qsort(r->s, r->n, sizeof(*r->s), cmp_stack_bytes);
	qsort(r->a, r->na, sizeof(*r->a), cmp_addr_size);
	for (int i = 0; i < MEMLEAK_STAT_NR; i++)
		r->stats[i] = bpf_percpu__sum(bpf_map__fd(m->skel->maps.stats), i);
	return 0;
}

void memleak_report__free(struct memleak_report *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->s[i].ips);
	free(r->s);
	free(r->a);
	memset(r, 0, sizeof(*r));
}

void memleak__detach(struct memleak *m)
{
	for (int i = 0; i < m->nr_links; i++)
		bpf_link__destroy(m->links[i]);
	m->nr_links = 0;
}

void memleak__free(struct memleak *m)
{
	if (!m)
		return;
	memleak__detach(m);
	memleak_bpf__destroy(m->skel);
	free(m);
}

int memleak__find_libc(pid_t pid, char *path, size_t len)
{
	char file[64], line[4096];
	FILE *f;
	int rc = -ENOENT;

	if (pid)
		snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	else
		snprintf(file, sizeof(file), "/proc/self/maps");
	if (!(f = fopen(file, "r")))
		return -errno;
	while (rc && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/'), *base;

		if (!p)
			continue;
		p[strcspn(p, "\n")] = 0;
		base = strrchr(p, '/') + 1;
		if (!strncmp(base, "libc.so", 7) || (!strncmp(base, "libc-", 5) && strstr(base, ".so"))) {
			snprintf(path, len, "%s", p);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}
