// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_memleak.c - the user side of memleak.bpf.c: which program goes on which
 * allocator function, and the outstanding allocations summed by stack.
 */
#include "lib/bpf/bpf_memleak.h"
#include "lib/bpf/bpf_util.h"
#include "lib/bpf/memleak_stacks.h"
#include "lib/symbol/unwind.h"
#include "lib/symbol/elfsym.h"
#include "lib/util.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "memleak.skel.h"

#define MAX_LINKS 32

struct memleak {
	struct memleak_bpf *skel;
	struct bpf_link *links[MAX_LINKS];
	int nr_links;
	int multi_fds[MAX_LINKS];	/* uprobe_multi links: they close without the perf path's wait */
	int nr_multi;
	bool multi;
	int nr_attached;	/* functions or tracepoints */
	bool combined;		/* --combined-only: read the sums the kernel keeps by stack */
	pid_t pid;		/* user mode: the target */
	/* --call-graph dwarf */
	struct memleak_stacks *dw;
	struct symbolizer *sym;
	void (*before_unwind)(void *ctx, pid_t pid);
	void *before_unwind_ctx;
	uint64_t dw_failed;
};

/* a user allocator: its entry program, its return program (NULL: free-like), required or not */
struct ufunc {
	const char *name;
	struct bpf_program *entry, *ret;
	bool required;
};

/* where a uprobe on func of the ELF file path goes: its file offset; 0 or -errno (-ENOENT: no such function) */
static int func_offset(const char *path, const char *func, uint64_t *off)
{
	return elfsym__sym_offset(path, func, ELFSYM_ANY_TYPE | ELFSYM_DEBUG_FILE, off);
}

/*
 * free(NULL) does nothing: where free begins with `test %rdi,%rdi; je`
 * (glibc's), the uprobe goes after the je, on the path of a real pointer. The
 * kernel single-steps a `test` out of line (two traps) but emulates the `push`
 * that follows: this halves the cost of the commonest call memleak sees.
 */
static uint64_t past_null_check(const char *path, uint64_t off)
{
	unsigned char b[9];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? pread(fd, b, sizeof(b), off) : -1;

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof(b) || b[0] != 0x48 || b[1] != 0x85 || b[2] != 0xff)
		return off;
	if (b[3] == 0x74)		/* je rel8 */
		return off + 5;
	if (b[3] == 0x0f && b[4] == 0x84)	/* je rel32 */
		return off + 9;
	return off;
}

static int attach_uprobe(struct memleak *m, struct bpf_program *p, pid_t pid, const char *lib,
			 const char *func, bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = ret);
	struct bpf_link *l;
	uint64_t off;
	int fd;

	if (m->nr_links >= MAX_LINKS || m->nr_multi >= MAX_LINKS)
		return -E2BIG;
	if ((fd = func_offset(lib, func, &off)) < 0)
		return fd;
	if (!strcmp(func, "free") && !ret)
		off = past_null_check(lib, off);
	if (m->multi) {
		if ((fd = bpf_uprobe_multi__attach(bpf_program__fd(p), lib, off, ret, pid)) < 0)
			return fd;
		m->multi_fds[m->nr_multi++] = fd;
		return 0;
	}
	l = bpf_program__attach_uprobe_opts(p, pid, lib, off, &uo);
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

	if (access(o->lib, R_OK)) {
		snprintf(err, errlen, "cannot read '%s': %s", o->lib, strerror(errno));
		return -errno;
	}
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		bool missing;
		int rc;

		bpfutil__quiet(!fns[i].required);
		rc = attach_uprobe(m, fns[i].entry, o->pid, o->lib, fns[i].name, false);
		if (!rc && fns[i].ret)
			rc = attach_uprobe(m, fns[i].ret, o->pid, o->lib, fns[i].name, true);
		bpfutil__quiet(false);
		missing = rc <= -4000 || rc == -ENOENT;	/* the ELF file has no such function */
		if (rc && (fns[i].required || !missing)) {	/* an optional one may be missing, not fail */
			if (missing)
				snprintf(err, errlen, "%s defines no function %s: is it the allocator's object (-O)?",
					 o->lib, fns[i].name);
			else
				snprintf(err, errlen, "cannot attach a uprobe to %s in %s: %s", fns[i].name, o->lib,
					 bpfutil__strerror(rc));
			return rc;
		}
		m->nr_attached += !rc;
	}
	return 0;
}

/* a kernel mode program: a BTF-typed or a raw tracepoint's (memleak.bpf.c says which) */
static bool kernel_prog(const struct bpf_program *p)
{
	return bpf_program__type(p) == BPF_PROG_TYPE_TRACING || bpf_program__type(p) == BPF_PROG_TYPE_RAW_TRACEPOINT;
}

static bool percpu_prog(const struct memleak *m, const struct bpf_program *p)
{
	return p == m->skel->progs.percpu_alloc_percpu || p == m->skel->progs.percpu_free_percpu;
}

static int attach_kernel(struct memleak *m, bool percpu, char *err, size_t errlen)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, m->skel->obj) {
		struct bpf_link *l;
		const char *group = percpu ? "percpu" : "kmem";

		if (!kernel_prog(p) || percpu_prog(m, p) != percpu)
			continue;
		if (!(l = bpf_program__attach(p))) {
			int rc = -errno;

			snprintf(err, errlen, "cannot attach to tracepoint %s:%s: %s", group,
				 bpf_program__name(p), bpfutil__strerror(rc));
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
	m->skel->rodata->combined_only = m->combined = o->combined;
	m->skel->rodata->trace = o->trace;
	m->skel->rodata->dwarf_size = o->pid ? o->dwarf_size : 0;
	if (o->pid && o->dwarf_size) {
		if (!(m->dw = memleak_stacks__new()))
			return -ENOMEM;
		m->sym = o->sym;
		m->before_unwind = o->before_unwind;
		m->before_unwind_ctx = o->before_unwind_ctx;
	} else {
		bpf_map__set_max_entries(m->skel->maps.dwarf_events, sysconf(_SC_PAGESIZE));
	}
	if (!o->trace)
		bpf_map__set_max_entries(m->skel->maps.events, sysconf(_SC_PAGESIZE));
	m->pid = o->pid;
	/*
	 * User mode: the map grows as blocks are outstanding rather than taking its
	 * million entries (~80 MB) up front. Not in kernel mode: the kernel's refills
	 * of such a map are kmallocs, which the program would record, which would
	 * take more entries...
	 */
	if (o->pid)
		bpf_map__set_map_flags(m->skel->maps.allocs, BPF_F_NO_PREALLOC);
	m->multi = o->pid && bpf_probe__uprobe_multi(NULL);
	bpf_object__for_each_program(p, m->skel->obj) {
		bool kernel = kernel_prog(p);

		bpf_program__set_autoload(p, kernel == !o->pid && (!kernel || percpu_prog(m, p) == o->percpu));
		if (!kernel && m->multi)
			bpf_program__set_expected_attach_type(p, BPF_UPROBE_MULTI);
	}
	rc = memleak_bpf__load(m->skel);
	if (rc) {
		snprintf(err, errlen, "cannot load the BPF program: %s", bpfutil__strerror(rc));
		return rc;
	}
	return o->pid ? attach_user(m, o, err, errlen) : attach_kernel(m, o->percpu, err, errlen);
}

int memleak__dwarf_fd(const struct memleak *m)
{
	return bpf_map__fd(m->skel->maps.dwarf_events);
}

uint64_t memleak__dwarf_failed(const struct memleak *m)
{
	return m->dw_failed;
}

int memleak__dwarf_consume(struct memleak *m, const void *data, size_t size)
{
	const struct memleak_dwarf *d = data;
	uint64_t ips[127];
	int n;

	if (!m->dw || size < offsetof(struct memleak_dwarf, stack))
		return 0;
	if (m->before_unwind)
		m->before_unwind(m->before_unwind_ctx, d->pid);
	n = unwind__user(m->sym, d->pid, (const uint64_t *)d->regs, UNWIND_REGS_MASK, d->stack,
			 d->stack_size < MEMLEAK_DWARF_STACK ? d->stack_size : MEMLEAK_DWARF_STACK, ips, 127);
	if (n <= 0) {
		m->dw_failed++;
		ips[0] = d->regs[8];	/* at least the caller */
		n = 1;
	}
	return memleak_stacks__add(m->dw, d->seq, ips, n);
}

uint64_t memleak__stat(const struct memleak *m, enum memleak_stat which)
{
	return bpf_percpu__sum(bpf_map__fd(m->skel->maps.stats), which);
}

int memleak__trace_fd(const struct memleak *m)
{
	return bpf_map__fd(m->skel->maps.events);
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

/* one entry of the allocs map */
struct raw {
	uint64_t addr;
	struct memleak_alloc a;
	uint64_t count;		/* --combined-only: allocations summed in a (0: one) */
};

#define BATCH 4096

/* the allocs map into *out (n entries): by batches, a bucket at a time, which a map that changes meanwhile
 * cannot make repeat an entry; key by key where the kernel has no batch lookups. 0 or -errno */
static int read_allocs(int fd, struct raw **out, size_t *n)
{
	uint64_t *keys = NULL, in = 0, next = 0, key, *cur = NULL;
	struct memleak_alloc *vals = NULL;
	size_t cap = 0;
	bool batch = true, started = false;
	int rc = 0;

	*n = 0;
	*out = NULL;
	for (;;) {
		__u32 count = BATCH;

		if (*n + BATCH > cap) {
			uint64_t *nk = realloc(keys, (cap + BATCH * 4) * sizeof(*nk));
			struct memleak_alloc *nv = nk ? realloc(vals, (cap + BATCH * 4) * sizeof(*nv)) : NULL;

			if (nk)
				keys = nk;
			if (!nv) {
				rc = -ENOMEM;
				break;
			}
			vals = nv;
			cap += BATCH * 4;
		}
		if (batch) {
			int r = bpf_map_lookup_batch(fd, started ? &in : NULL, &next, keys + *n, vals + *n, &count, NULL);

			rc = r ? -errno : 0;
			started = true;
			*n += rc && rc != -ENOENT ? 0 : count;
			in = next;
			if (rc == -ENOENT) {
				rc = 0;
				break;
			}
			if (rc == -EINVAL && !*n) {	/* no batch lookups: key by key */
				batch = false;
				rc = 0;
				continue;
			}
			if (rc)
				break;
			continue;
		}
		if (bpf_map_get_next_key(fd, cur, &key))
			break;
		cur = &next;
		next = key;
		if (!bpf_map_lookup_elem(fd, &key, &vals[*n]))
			keys[(*n)++] = key;
	}
	if (!rc && !(*out = malloc((*n ? *n : 1) * sizeof(**out))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < *n; i++)
		(*out)[i] = (struct raw){ keys[i], vals[i], 0 };
	free(keys);
	free(vals);
	return rc;
}

static int cmp_raw_stack(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;

	if (x->a.stack_id != y->a.stack_id)
		return x->a.stack_id < y->a.stack_id ? -1 : 1;
	if (x->a.stack_id < 0 && x->a.pid != y->a.pid)	/* no stack: one entry per process */
		return x->a.pid < y->a.pid ? -1 : 1;
	return 0;
}

/* r->s from raws sorted by stack; the stacks' frames read (unwound ones from dw); 0 or -errno */
static int sum_stacks(int stacks_fd, const struct memleak_stacks *dw, const struct raw *raws, size_t n,
		      struct memleak_report *r)
{
	for (size_t i = 0; i < n; i++) {
		struct memleak_stack *s = r->n ? &r->s[r->n - 1] : NULL;

		if (!s || cmp_raw_stack(&raws[i], &raws[i - 1])) {
			if (!(r->s = reallocarray(r->s, r->n + 1, sizeof(*r->s))))
				return -ENOMEM;
			s = &r->s[r->n++];
			*s = (struct memleak_stack){ .stack_id = raws[i].a.stack_id, .pid = raws[i].a.pid };
		}
		s->bytes += raws[i].a.size;
		s->count += raws[i].count ? raws[i].count : 1;
	}
	for (int i = 0; i < r->n; i++) {
		struct memleak_stack *s = &r->s[i];

		if (s->stack_id < 0)
			continue;
		if (!(s->ips = calloc(127, sizeof(*s->ips))))
			return -ENOMEM;
		if (dw) {
			const uint64_t *ips = memleak_stacks__ips(dw, s->stack_id, &s->nr);

			memcpy(s->ips, ips, (s->nr < 127 ? s->nr : 127) * sizeof(*ips));
		} else if ((s->nr = bpf_stack__read(stacks_fd, s->stack_id, s->ips, 127)) < 0) {
			s->nr = 0;
		}
	}
	return 0;
}

static int read_combined(struct memleak *m, struct raw **out, size_t *n)
{
	int fd = bpf_map__fd(m->skel->maps.combined);
	int32_t key, *cur = NULL, next;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	while (!bpf_map_get_next_key(fd, cur, &next)) {
		struct memleak_combined c;

		key = next;
		cur = &key;
		if (bpf_map_lookup_elem(fd, &key, &c) || !c.count || (int64_t)c.count < 0)
			continue;
		if (*n == cap) {
			struct raw *nr = reallocarray(*out, cap ? cap * 2 : 256, sizeof(*nr));

			if (!nr)
				return -ENOMEM;
			*out = nr;
			cap = cap ? cap * 2 : 256;
		}
		(*out)[(*n)++] = (struct raw){ 0, { .size = c.bytes, .stack_id = key, .pid = m->pid }, c.count };
	}
	return 0;
}

int memleak__read(struct memleak *m, uint64_t older_ns, struct memleak_report *r)
{
	int stacks_fd = bpf_map__fd(m->skel->maps.stack_traces);
	uint64_t now = util__now_ns();
	struct raw *raws;
	size_t n, kept = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = m->combined ? read_combined(m, &raws, &n) : read_allocs(bpf_map__fd(m->skel->maps.allocs), &raws, &n);
	for (size_t i = 0; !rc && i < n; i++)	/* only those old enough */
		if (m->combined || raws[i].a.ts + older_ns <= now)
			raws[kept++] = raws[i];
	for (size_t i = 0; m->dw && i < kept; i++)	/* a sequence number -> its unwound stack */
		if (raws[i].a.stack_id > 0)
			raws[i].a.stack_id = memleak_stacks__of(m->dw, raws[i].a.stack_id);
	if (!rc && !m->combined && kept && !(r->a = malloc(kept * sizeof(*r->a))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && !m->combined && i < kept; i++)
		r->a[r->na++] = (struct memleak_addr){ raws[i].addr, raws[i].a.size };
	if (!rc) {
		if (kept)
			qsort(raws, kept, sizeof(*raws), cmp_raw_stack);
		rc = sum_stacks(stacks_fd, m->dw, raws, kept, r);
	}
	free(raws);
	if (rc) {
		memleak_report__free(r);
		return rc;
	}
	if (r->n)
		qsort(r->s, r->n, sizeof(*r->s), cmp_stack_bytes);
	if (r->na)
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

static void *close_fd(void *fd)
{
	close((int)(intptr_t)fd);
	return NULL;
}

void memleak__detach(struct memleak *m)
{
	pthread_t th[MAX_LINKS];
	int nth = 0;

	/* each close waits for the kernel's grace period (tens of ms here): all at once */
	for (int i = 0; i < m->nr_multi; i++)
		if (pthread_create(&th[nth], NULL, close_fd, (void *)(intptr_t)m->multi_fds[i]) == 0)
			nth++, m->multi_fds[i] = -1;
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < m->nr_links; i++)
		bpf_link__destroy(m->links[i]);
	for (int i = 0; i < m->nr_multi; i++)
		if (m->multi_fds[i] >= 0)
			close(m->multi_fds[i]);
	m->nr_links = m->nr_multi = 0;
}

void memleak__free(struct memleak *m)
{
	if (!m)
		return;
	memleak__detach(m);
	memleak_bpf__destroy(m->skel);
	memleak_stacks__free(m->dw);
	free(m);
}

int memleak__is_static(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 1;
	size_t n = 0;
	Elf *e;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	if (!(e = elf_begin(fd, ELF_C_READ, NULL)) || elf_getphdrnum(e, &n)) {
		rc = -ENOEXEC;
		n = 0;
	}
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_INTERP)
			rc = 0;
	}
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

int memleak__is_go(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	Elf *e;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	if (!(e = elf_begin(fd, ELF_C_READ, NULL)) || elf_getshdrstrndx(e, &shstrndx))
		rc = -ENOEXEC;
	while (!rc && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;

		if (name && (!strcmp(name, ".go.buildinfo") || !strcmp(name, ".note.go.buildid")))
			rc = 1;
	}
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

