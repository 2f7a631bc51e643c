// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_lock.c - the user side of lock.bpf.c (see bpf_lock.h): open -> set
 * rodata -> load -> attach (tracepoints, and for user locks uprobes on the C
 * library) -> (the command polls) -> detach -> read the maps -> destroy.
 */
#include "lib/bpf/bpf_lock.h"
#include "lib/bpf/bpf_util.h"
#include "lib/symbol/elfsym.h"
#include "lib/symbol/kdata.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lock.skel.h"

#define NR_LINKS 10

struct lock_trace {
	struct lock_bpf *skel;
	struct bpf_link *links[NR_LINKS];
	int nlinks;
	bool user, follow;
	char libc[4096];
	pid_t uprobe_pid;	/* -1: every process (the BPF side filters) */
};

/* the byte offset of member name in type id, looking into anonymous members too; -1 when none */
static long member_offset(const struct btf *btf, __u32 id, const char *name, int depth)
{
	const struct btf_type *t;
	const struct btf_member *m;
	int rid = btf__resolve_type(btf, id);

	if (rid < 0 || depth > 4 || !(t = btf__type_by_id(btf, rid)) || !btf_is_composite(t))
		return -1;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++) {
		const char *mn = btf__name_by_offset(btf, m[i].name_off);
		long off = btf_member_bit_offset(t, i) / 8, sub;

		if (mn && *mn && !strcmp(mn, name))
			return off;
		if ((!mn || !*mn) && (sub = member_offset(btf, m[i].type, name, depth + 1)) >= 0)
			return off + sub;
	}
	return -1;
}

static long struct_member(const struct btf *btf, const char *type, const char *name)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);

	return id < 0 ? -1 : member_offset(btf, id, name, 0);
}

/* where a task's mm->mmap_lock, sighand->siglock and files->file_lock lie, from the kernel's BTF */
static void set_class_offsets(struct lock_bpf *skel)
{
	struct btf *btf = btf__load_vmlinux_btf();
	long o[6];

	if (libbpf_get_error(btf))
		return;		/* no BTF: those locks go unnamed */
	o[0] = struct_member(btf, "task_struct", "mm");
	o[1] = struct_member(btf, "task_struct", "sighand");
	o[2] = struct_member(btf, "task_struct", "files");
	o[3] = struct_member(btf, "mm_struct", "mmap_lock");
	o[4] = struct_member(btf, "sighand_struct", "siglock");
	o[5] = struct_member(btf, "files_struct", "file_lock");
	btf__free(btf);
	for (int i = 0; i < 6; i++)
		if (o[i] < 0)
			return;
	skel->rodata->off_task_mm = o[0];
	skel->rodata->off_task_sighand = o[1];
	skel->rodata->off_task_files = o[2];
	skel->rodata->off_mm_mmap_lock = o[3];
	skel->rodata->off_sighand_siglock = o[4];
	skel->rodata->off_files_file_lock = o[5];
	skel->rodata->name_classes = true;
}

int lock_trace__new(struct lock_trace **out, const struct lock_opts *o, char *err, size_t errlen)
{
	struct lock_trace *t;
	struct lock_bpf *skel;
	const char *why;
	int rc;

	*out = NULL;
	if ((why = bpf_probe__privilege())) {
		snprintf(err, errlen, "cannot trace locks: %s", why);
		return -EPERM;
	}
	if (!o->user && !bpf_probe__tracepoint("lock", "contention_begin", &why)) {
		snprintf(err, errlen, "cannot trace 'lock:contention_begin' (Linux 5.19 and later have it): %s",
			 why ? why : "no such tracepoint");
		return -ENOTSUP;
	}
	if (!(t = calloc(1, sizeof(*t))))
		return -ENOMEM;
	t->user = o->user;
	t->follow = o->filter == LOCK_TGID && o->follow;
	t->uprobe_pid = o->filter == LOCK_TGID && o->nr_targets == 1 && !t->follow ? o->targets[0] : -1;
	if (o->user && o->libc)
		snprintf(t->libc, sizeof(t->libc), "%s", o->libc);
	skel = t->skel = lock_bpf__open();
	if (!skel) {
		rc = -errno;
		snprintf(err, errlen, "cannot open the BPF object: %s", bpfutil__strerror(rc));
		goto fail;
	}
	skel->rodata->filter_mode = o->filter;
	skel->rodata->aggr_mode = o->aggr;
	skel->rodata->self_tgid = getpid();
	skel->rodata->follow_forks = t->follow;
	if (!o->user && o->aggr == LOCK_AGGR_ADDR) {
		bpfutil__quiet(true);
		set_class_offsets(skel);
		bpfutil__quiet(false);
	}
	if (t->follow) {
		int off, size;

		if (bpf_tp__field("sched", "sched_process_fork", "child_pid", &off, &size) || size != 4) {
			snprintf(err, errlen, "cannot read the layout of tracepoint "
				 "'sched:sched_process_fork' (child_pid)");
			rc = -ENOENT;
			goto fail;
		}
		skel->rodata->tp_child_pid_off = off;
	}
	bpf_program__set_autoload(skel->progs.lock_fork, t->follow);
	bpf_program__set_autoload(skel->progs.lock_begin, !o->user);
	bpf_program__set_autoload(skel->progs.lock_end, !o->user);
	bpf_program__set_autoload(skel->progs.futex_enter, o->user);
	bpf_program__set_autoload(skel->progs.futex_exit, o->user);
	bpf_program__set_autoload(skel->progs.mutex_lock, o->user && t->libc[0]);
	bpf_program__set_autoload(skel->progs.mutex_lock_ret, o->user && t->libc[0]);
	bpf_program__set_autoload(skel->progs.mutex_unlock, o->user && t->libc[0]);
	bpf_program__set_autoload(skel->progs.mutex_trylock, o->user && t->libc[0]);
	bpf_program__set_autoload(skel->progs.mutex_trylock_ret, o->user && t->libc[0]);
	rc = lock_bpf__load(skel);
	if (rc) {
		snprintf(err, errlen, "cannot load the lock BPF programs: %s", bpfutil__strerror(rc));
		goto fail;
	}
	rc = bpf_targets__add(bpf_map__fd(skel->maps.targets), o->targets, o->nr_targets);
	if (rc) {
		snprintf(err, errlen, "cannot fill the target map: %s", strerror(-rc));
		goto fail;
	}
	*out = t;
	return 0;
fail:
	lock_trace__free(t);
	return rc;
}

static int attach_uprobe(struct lock_trace *t, struct bpf_program *p, const char *func, bool ret,
			 char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = ret);
	struct bpf_link *l;
	uint64_t off = 0;
	int rc = elfsym__func_offset(t->libc, func, &off);

	if (rc) {
		snprintf(err, errlen, "cannot find '%s' in '%s': %s", func, t->libc, strerror(-rc));
		return rc;
	}
	l = bpf_program__attach_uprobe_opts(p, t->uprobe_pid, t->libc, off, &uo);
	if (!l) {
		rc = -errno;
		snprintf(err, errlen, "cannot attach a uprobe to '%s' in '%s': %s", func, t->libc,
			 bpfutil__strerror(rc));
		return rc;
	}
	t->links[t->nlinks++] = l;
	return 0;
}

int lock_trace__attach(struct lock_trace *t, char *err, size_t errlen)
{
	struct lock_bpf *s = t->skel;
	struct bpf_program *tps[2];
	int rc;

	tps[0] = t->user ? s->progs.futex_enter : s->progs.lock_begin;
	tps[1] = t->user ? s->progs.futex_exit : s->progs.lock_end;
	/* the end first, so that no begin is left waiting for an end never seen */
	for (int i = 1; i >= 0; i--) {
		struct bpf_link *l = bpf_program__attach(tps[i]);

		if (!l) {
			rc = -errno;
			snprintf(err, errlen, "cannot attach to '%s': %s", bpf_program__section_name(tps[i]) + 11,
				 bpfutil__strerror(rc));
			return rc;
		}
		t->links[t->nlinks++] = l;
	}
	if (t->follow) {
		struct bpf_link *l = bpf_program__attach(s->progs.lock_fork);

		if (!l) {
			rc = -errno;
			snprintf(err, errlen, "cannot attach to 'sched:sched_process_fork': %s", bpfutil__strerror(rc));
			return rc;
		}
		t->links[t->nlinks++] = l;
	}
	if (t->user && t->libc[0]) {
		int base = t->nlinks;

		if ((rc = attach_uprobe(t, s->progs.mutex_unlock, "pthread_mutex_unlock", false, err, errlen)) ||
		    (rc = attach_uprobe(t, s->progs.mutex_lock_ret, "pthread_mutex_lock", true, err, errlen)) ||
		    (rc = attach_uprobe(t, s->progs.mutex_trylock_ret, "pthread_mutex_trylock", true, err, errlen)) ||
		    (rc = attach_uprobe(t, s->progs.mutex_trylock, "pthread_mutex_trylock", false, err, errlen)) ||
		    (rc = attach_uprobe(t, s->progs.mutex_lock, "pthread_mutex_lock", false, err, errlen))) {
			while (t->nlinks > base)	/* futex waits only */
				bpf_link__destroy(t->links[--t->nlinks]);
			return 1;
		}
	}
	return 0;
}

void lock_trace__detach(struct lock_trace *t)
{
	/* the starts first: an acquisition that begins now is not counted half */
	while (t && t->nlinks > 0)
		bpf_link__destroy(t->links[--t->nlinks]);
}

int lock_trace__targets_fd(const struct lock_trace *t)
{
	return bpf_map__fd(t->skel->maps.targets);
}

void lock_trace__free(struct lock_trace *t)
{
	if (!t)
		return;
	lock_trace__detach(t);
	lock_bpf__destroy(t->skel);
	free(t);
}

/* rows (n of size bytes, room for *cap) with room for one more: rows or its larger copy, NULL when out of memory */
static void *room_for_one_more(void *rows, int n, int *cap, size_t size)
{
	int nc = *cap ? *cap * 2 : 256;

	if (n < *cap)
		return rows;
	if (!(rows = realloc(rows, nc * size)))
		return NULL;
	*cap = nc;
	return rows;
}

static int read_kern(struct lock_trace *t, struct lock_result *r, int sfd)
{
	int fd = bpf_map__fd(t->skel->maps.kern), cap = 0, ncpu = libbpf_num_possible_cpus();
	struct lock_key k, next, *prev = NULL;
	struct lock_val v, *vs;

	if (ncpu <= 0 || !(vs = calloc(ncpu, sizeof(*vs))))
		return ncpu <= 0 ? ncpu : -ENOMEM;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct lock_row *row, *rows;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, vs) || !lock_val__sum(vs, ncpu, &v))
			continue;
		if (!(rows = room_for_one_more(r->k, r->nk, &cap, sizeof(*rows)))) {
			free(vs);
			return -ENOMEM;
		}
		r->k = rows;
		row = memset(&r->k[r->nk++], 0, sizeof(*row));
		row->addr = k.addr;
		row->pid = k.pid;
		memcpy(row->comm, v.comm, sizeof(row->comm));
		row->comm[sizeof(row->comm) - 1] = 0;
		row->count = v.count;
		row->total_ns = v.total_ns;
		row->max_ns = v.max_ns;
		row->min_ns = v.min_ns;
		row->flags = v.flags;
		row->klass = v.klass;
		if (k.stack_id >= 0) {
			int n = bpf_stack__read(sfd, k.stack_id, row->ips, LOCK_MAX_DEPTH);

			row->nips = n > 0 ? n : 0;
		}
	}
	free(vs);
	return 0;
}

static int read_user(struct lock_trace *t, struct lock_result *r, int sfd)
{
	int fd = bpf_map__fd(t->skel->maps.user), cap = 0;
	struct ulock_key k, next, *prev = NULL;
	struct ulock_val v;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct ulock_row *row, *rows;
		int n = 0;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;
		if (!(rows = room_for_one_more(r->u, r->nu, &cap, sizeof(*rows))))
			return -ENOMEM;
		r->u = rows;
		row = memset(&r->u[r->nu++], 0, sizeof(*row));
		row->kind = k.kind;
		row->tgid = k.tgid;
		row->addr = k.addr;
		memcpy(row->comm, v.comm, sizeof(row->comm));
		row->comm[sizeof(row->comm) - 1] = 0;
		row->count = v.count;
		row->contended = v.contended;
		row->wait_ns = v.wait_ns;
		row->wait_max_ns = v.wait_max_ns;
		row->holds = v.holds;
		row->hold_ns = v.hold_ns;
		row->hold_max_ns = v.hold_max_ns;
		if (k.stack_id >= 0)
			n = bpf_stack__read(sfd, k.stack_id, row->ips, LOCK_MAX_DEPTH);
		if (n < 0)
			n = 0;
		/*
		 * At pthread_mutex_lock's first instruction the frame-pointer walk goes from the
		 * caller's frame: the caller itself is only the return address on the stack
		 * (a futex wait inside pthread_mutex_lock has the same stack).
		 */
		if (k.caller && n >= 1 && row->ips[1 < n ? 1 : 0] != k.caller) {
			memmove(row->ips + 2, row->ips + 1, (n - 1) * sizeof(*row->ips));
			row->ips[1] = k.caller;
			n++;
		}
		row->nips = n;
	}
	return 0;
}

int lock_trace__read(struct lock_trace *t, struct lock_result *r)
{
	int sfd = bpf_map__fd(t->skel->maps.stacks), rc;

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < LOCK_STAT_NR; i++)
		r->stats[i] = bpf_percpu__sum(bpf_map__fd(t->skel->maps.stats), i);
	rc = t->user ? read_user(t, r, sfd) : read_kern(t, r, sfd);
	if (rc)
		lock_result__free(r);
	return rc;
}

void lock_result__free(struct lock_result *r)
{
	free(r->k);
	free(r->u);
	memset(r, 0, sizeof(*r));
}
