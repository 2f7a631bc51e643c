// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_trace.c - the user side of trace.bpf.c: open -> rodata (targets mode,
 * syscall bitmap, capture plan from sysdecode__capplan) -> load -> fill the
 * targets map -> attach -> (the command polls the ring buffer) -> read the
 * statistics -> destroy.
 */
#include "lib/bpf/bpf_trace.h"
#include "lib/bpf/bpf_util.h"
#include "lib/proc/target.h"
#include "lib/syscall/syscalls.h"
#include "lib/syscall/sysdecode.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.skel.h"

struct tracer {
	struct trace_bpf *skel;
};

int tracer__new(struct tracer **out, const struct tracer_opts *o, char *err, size_t errlen)
{
	struct tracer *t;
	struct trace_bpf *skel;
	unsigned mb = o->rb_mb ? o->rb_mb : 16;
	int rc;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	skel = t->skel = trace_bpf__open();
	if (!skel) {
		rc = -errno;
		snprintf(err, errlen, "cannot open the BPF object of trace: %s", strerror(-rc));
		goto fail;
	}
	skel->rodata->all_tasks = o->all;
	skel->rodata->follow = o->follow;
	skel->rodata->count_only = o->count_only;
	skel->rodata->want_stats = o->count_only || o->stats;
	skel->rodata->failed_only = o->failed_only;
	skel->rodata->emit_begin = o->begins && !o->count_only;
	skel->rodata->min_ns = o->min_ns;
	skel->rodata->self_tgid = getpid();
	for (int nr = 0; nr < TRACE_NR_MAX && nr < SYSCALL_NR_MAX; nr++) {
		const struct syscall_desc *d = syscall__by_nr(nr);
		struct sc_cap caps[TRACE_NCAP];

		if (o->set[nr])
			skel->rodata->sc_mask[nr / 64] |= 1ULL << (nr % 64);
		if (o->count_only || !d)
			continue;
		sysdecode__capplan(d, caps);
		for (int i = 0; i < TRACE_NCAP; i++) {
			skel->rodata->caps[nr][i].arg = caps[i].arg;
			skel->rodata->caps[nr][i].mode = caps[i].mode;
			skel->rodata->caps[nr][i].size = caps[i].size;
		}
	}
	while (mb & (mb - 1))
		mb &= mb - 1;
	skel->rodata->wake_bytes = ((uint64_t)mb << 20) / 16;
	bpf_map__set_max_entries(skel->maps.rb, o->count_only ? 4096 * 4 : mb << 20);
	if (!o->follow && !o->all)
		bpf_program__set_autoload(skel->progs.trace_fork, false);
	rc = trace_bpf__load(skel);
	if (rc) {
		snprintf(err, errlen, "cannot load the BPF programs of trace: %s%s", bpfutil__strerror(rc),
			 geteuid() == 0 ? " (-vvv shows the kernel verifier's log)" : "");
		goto fail;
	}
	if (o->nr_pids) {
		rc = bpf_targets__add(bpf_map__fd(skel->maps.targets), o->pids, o->nr_pids);
		if (rc) {
			snprintf(err, errlen, "cannot fill the BPF target map: %s", strerror(-rc));
			goto fail;
		}
	}
	if (o->child) {
		__u32 k = o->child;
		__u8 v = 2;

		rc = bpf_map_update_elem(bpf_map__fd(skel->maps.targets), &k, &v, BPF_ANY);
		if (rc) {
			rc = -errno;
			snprintf(err, errlen, "cannot fill the BPF target map: %s", strerror(-rc));
			goto fail;
		}
	}
	*out = t;
	return 0;
fail:
	tracer__free(t);
	return rc;
}

int tracer__attach(struct tracer *t, char *err, size_t errlen)
{
	int rc = trace_bpf__attach(t->skel);

	if (rc)
		snprintf(err, errlen, "cannot attach to raw_syscalls: %s", bpfutil__strerror(rc));
	return rc;
}

void tracer__detach(struct tracer *t)
{
	if (t && t->skel)
		trace_bpf__detach(t->skel);
}

int tracer__ringbuf_fd(struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.rb);
}

int tracer__stats(struct tracer *t, struct sc_stat *out)
{
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(t->skel->maps.stats);
	struct sc_stat *per;

	if (ncpu <= 0)
		return -EINVAL;
	per = calloc(ncpu, sizeof(*per));
	if (!per)
		return -ENOMEM;
	memset(out, 0, sizeof(*out) * TRACE_NR_MAX);
	for (__u32 nr = 0; nr < TRACE_NR_MAX; nr++) {
		if (bpf_map_lookup_elem(fd, &nr, per))
			continue;
		for (int c = 0; c < ncpu; c++) {
			struct sc_stat *s = &per[c], *o = &out[nr];

			if (!s->calls)
				continue;
			o->calls += s->calls;
			o->errors += s->errors;
			o->ns += s->ns;
			if (!o->min_ns || (s->min_ns && s->min_ns < o->min_ns))
				o->min_ns = s->min_ns;
			if (s->max_ns > o->max_ns)
				o->max_ns = s->max_ns;
			for (int b = 0; b < TRACE_HIST; b++)
				o->hist[b] += s->hist[b];
		}
	}
	free(per);
	return 0;
}

uint64_t tracer__counter(struct tracer *t, enum trc_counter c)
{
	return bpf_percpu__sum(bpf_map__fd(t->skel->maps.counters), c);
}

int tracer__alive(struct tracer *t)
{
	int fd = bpf_map__fd(t->skel->maps.targets), n = 0;
	uint32_t key, next, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		n += target__alive((pid_t)next);
		key = next;
		prev = &key;
	}
	return n;
}

void tracer__free(struct tracer *t)
{
	if (!t)
		return;
	trace_bpf__destroy(t->skel);
	free(t);
}
