// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_flight.c - the user side of flight.bpf.c (see bpf_flight.h): open ->
 * set rodata -> load -> fill targets -> attach the syscall's exit, then its
 * entry -> (the command polls the ring buffer, reads the histogram) -> destroy.
 */
#include "lib/bpf/bpf_flight.h"
#include "lib/bpf/bpf_util.h"
#include "lib/tracefs/tracefs.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flight.skel.h"

struct flight_watch {
	struct flight_bpf *skel;
	struct bpf_link *links[3];
	int nlinks;
};

static int attach_tp(struct flight_watch *w, struct bpf_program *p, const char *group, const char *name,
		     char *err, size_t errlen)
{
	struct bpf_link *l = bpf_program__attach_tracepoint(p, group, name);
	int rc;

	if (!l) {
		rc = -errno;
		snprintf(err, errlen, "cannot attach to '%s:%s': %s", group, name, bpfutil__strerror(rc));
		return rc;
	}
	w->links[w->nlinks++] = l;
	return 0;
}

int flight_watch__open(struct flight_watch **out, const struct flight_watch_opts *o, char *err, size_t errlen)
{
	struct flight_watch *w = calloc(1, sizeof(*w));
	char enter[96], exit_[96];
	struct flight_bpf *skel;
	int rc;

	if (!w)
		return -ENOMEM;
	snprintf(enter, sizeof(enter), "sys_enter_%s", o->syscall);
	snprintf(exit_, sizeof(exit_), "sys_exit_%s", o->syscall);
	if (tracefs__event_id("syscalls", enter) < 0 || tracefs__event_id("syscalls", exit_) < 0) {
		snprintf(err, errlen, "cannot watch syscall '%s': no tracepoint 'syscalls:%s' here "
			 "(is it a syscall of this architecture? 'sonde list syscalls:' lists them)", o->syscall, enter);
		rc = -ENOENT;
		goto fail;
	}
	skel = w->skel = flight_bpf__open();
	if (!skel) {
		rc = -errno;
		snprintf(err, errlen, "cannot open the flight BPF program: %s", bpfutil__strerror(rc));
		goto fail;
	}
	skel->rodata->all_tasks = o->all;
	skel->rodata->by_tid = o->by_tid;
	skel->rodata->follow_forks = o->follow && !o->all && !o->by_tid;
	skel->rodata->want_hist = o->hist;
	skel->rodata->min_ns = o->min_ns;
	skel->rodata->self_tgid = getpid();
	if (skel->rodata->follow_forks) {
		int off, size;

		if (bpf_tp__field("sched", "sched_process_fork", "child_pid", &off, &size) || size != 4) {
			snprintf(err, errlen, "cannot read the layout of tracepoint 'sched:sched_process_fork' (child_pid)");
			rc = -ENOENT;
			goto fail;
		}
		skel->rodata->tp_child_pid_off = off;
	}
	bpf_program__set_autoload(skel->progs.flight_fork, skel->rodata->follow_forks);
	if ((rc = flight_bpf__load(skel))) {
		snprintf(err, errlen, "cannot load the flight BPF program: %s", bpfutil__strerror(rc));
		goto fail;
	}
	if (!o->all && (rc = bpf_targets__add(bpf_map__fd(skel->maps.targets), o->targets, o->nr_targets))) {
		snprintf(err, errlen, "cannot fill the target map: %s", strerror(-rc));
		goto fail;
	}
	/* the exit first: no entry waits for an exit never seen */
	if ((rc = attach_tp(w, skel->progs.flight_exit, "syscalls", exit_, err, errlen)) ||
	    (rc = attach_tp(w, skel->progs.flight_enter, "syscalls", enter, err, errlen)))
		goto fail;
	if (skel->rodata->follow_forks &&
	    (rc = attach_tp(w, skel->progs.flight_fork, "sched", "sched_process_fork", err, errlen)))
		goto fail;
	*out = w;
	return 0;
fail:
	flight_watch__free(w);
	return rc < 0 ? rc : -EINVAL;
}

int flight_watch__ringbuf_fd(const struct flight_watch *w)
{
	return bpf_map__fd(w->skel->maps.events);
}

int flight_watch__hist(const struct flight_watch *w, uint64_t *cum)
{
	int fd = bpf_map__fd(w->skel->maps.hist), ncpu = libbpf_num_possible_cpus();
	uint64_t *v;

	if (ncpu <= 0)
		return -EINVAL;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t b = 0; b < FLIGHT_NBUCKETS; b++) {
		cum[b] = 0;
		if (bpf_map_lookup_elem(fd, &b, v))
			continue;
		for (int c = 0; c < ncpu; c++)
			cum[b] += v[c];
	}
	free(v);
	return 0;
}

uint64_t flight_watch__dropped(const struct flight_watch *w)
{
	return bpf_percpu__sum(bpf_map__fd(w->skel->maps.dropped), 0);
}

void flight_watch__free(struct flight_watch *w)
{
	if (!w)
		return;
	while (w->nlinks > 0)
		bpf_link__destroy(w->links[--w->nlinks]);
	flight_bpf__destroy(w->skel);
	free(w);
}
