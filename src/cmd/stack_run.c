// SPDX-License-Identifier: GPL-2.0
/*
 * stack_run.c - the run offcpu and lock share (stack_run.h): the steps both
 * commands took around their engines, written once.
 */
#include "sonde.h"
#include "opt.h"
#include "stack_run.h"
#include "lib/proc/target.h"
#include "lib/symbol/symbol.h"

#include <errno.h>
#include <string.h>

int stack_run__init(struct stack_run *r)
{
	struct symbolizer *sym;

	memset(r, 0, sizeof(*r));
	r->w = (struct workload){ .pid = 0, .go_fd = -1, .err_fd = -1 };
	if (!(sym = symbolizer__new(0))) {
		error("out of memory");
		return 1;
	}
	offcpu_maps__init(&r->mw, sym, NULL);
	return 0;
}

int stack_run__prepare(struct stack_run *r, char **argv)
{
	int rc = workload__prepare(&r->w, argv);

	if (rc)
		error("cannot start '%s': %s", argv[0], strerror(-rc));
	return rc ? 1 : 0;
}

void stack_run__watch_maps(struct stack_run *r, const struct target *t)
{
	struct target cmd = { .child = r->w.pid };
	char err[512] = "";

	if (bpf_mmaps__open_target(&r->mm, r->mw.sym, t ? t : &cmd, err, sizeof(err)))
		debug(1, "no memory-map events (%s): reading /proc/PID/maps %s", err,
		      t ? "only" : "instead");
	r->mw.mm = r->mm;
}

int stack_run__ready(struct stack_run *r, int rc, const char *err, bool have_cmd)
{
	char why[512];

	if (!rc) {
		rc = loop__init(&r->loop);
		r->looping = !rc;
		if (rc)
			snprintf(why, sizeof(why), "cannot set up the event loop: %s", strerror(-rc));
		err = rc ? why : err;
	}
	if (!rc)
		return 0;
	error("%s", err && err[0] ? err : strerror(-rc));
	if (have_cmd)
		workload__abort(&r->w);
	return 1;
}

int stack_run__go(struct stack_run *r, char **argv, double duration)
{
	int rc;

	if (duration > 0)
		loop__set_duration(&r->loop, duration);
	if (r->w.pid) {
		if ((rc = opt__start_command(&r->w, argv)))
			return rc;
		loop__set_child(&r->loop, r->w.pid);
	}
	loop__set_tick(&r->loop, 100, offcpu_maps__on_tick, &r->mw);
	return 0;
}

void stack_run__stopped(struct stack_run *r, enum loop_end end)
{
	if (end == LOOP_ERROR)
		error("polling failed: %s", strerror(-r->loop.err));
	offcpu_maps__tick(&r->mw);
}

void stack_run__free(struct stack_run *r)
{
	struct symbolizer *sym = r->mw.sym;

	if (r->looping)
		loop__fini(&r->loop);
	bpf_mmaps__close(r->mm);
	offcpu_maps__fini(&r->mw);
	symbolizer__free(sym);
}
