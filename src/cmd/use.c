// SPDX-License-Identifier: GPL-2.0
/*
 * use.c - `sonde use`: the 60-second checklist in one command. Samples /proc
 * and /sys over a window and prints utilization, saturation and errors per
 * resource, the flags and the command to run next (lib/proc/use.h). Reads only:
 * nothing on the system is enabled or changed.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/util.h"
#include "lib/loop/loop.h"
#include "lib/proc/procstat.h"
#include "lib/proc/use.h"
#include "ui/use_print.h"

#include <errno.h>
#include <stdint.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const use_usage[] = {
	"sonde use [--duration S] [--json] [--per-cpu]",
	"sonde use -I S [--count N] [--json]",
	NULL,
};

#define RUNQ_SAMPLE_MS 100

struct use_opts {
	double duration, interval;
	int count;
	bool json, per_cpu;
	const char *proc, *sys;
};

static int snap(struct ps_snap *s, const struct use_opts *o)
{
	int rc = procstat__read(s, o->proc, o->sys);

	if (rc) {
		error("cannot read '%s/stat': %s", o->proc, strerror(-rc));
		if (rc == -ENOENT)
			hint("is /proc mounted? (mount -t proc proc /proc)");
		else if (rc == -EINVAL)
			hint("its layout is not the kernel's: is '%s' a copy of /proc?", o->proc);
		procstat__free(s);
	}
	return rc;
}

struct window {
	const struct use_opts *o;
	struct use_runq *rq;
	double start, until;
	int last_shown;
	bool progress;
};

/* every RUNQ_SAMPLE_MS: the run queue, and the seconds left on the terminal */
static int window_tick(void *ctx, int fd, short revents)
{
	struct window *w = ctx;
	double left = w->until - util__now_s();
	uint64_t running, blocked;

	(void)fd;
	(void)revents;
	if (!procstat__read_procs(w->o->proc, &running, &blocked))
		use__runq_add(w->rq, running, blocked);
	if (w->progress && left > 0 && (int)left != w->last_shown) {
		w->last_shown = (int)left;
		fprintf(stderr, "\rsampling /proc for %.0f s, %.0f s left (Ctrl-C stops early) ",
			w->until - w->start, left);
	}
	return 0;
}

/*
 * Wait until `until` (monotonic seconds) or a signal, sampling the run queue.
 * Returns 1 when a signal (or an error of the loop) ended the wait, 0 at the deadline.
 */
static int wait_window(struct loop *l, double until, const struct use_opts *o, struct use_runq *rq, bool progress)
{
	struct window w = { .o = o, .rq = rq, .start = util__now_s(), .until = until, .last_shown = -1,
			    .progress = progress };
	double left = until - w.start;

	if (left <= 0)
		return 0;
	if (loop__set_tick(l, RUNQ_SAMPLE_MS, window_tick, &w) || loop__set_duration(l, left))
		return 1;
	if (progress)
		window_tick(&w, -1, 0);
	return loop__run(l) != LOOP_DURATION;
}

static int run_once(struct use_opts *o, struct loop *l)
{
	struct ps_snap a, b;
	struct use_report r;
	struct use_runq rq = { 0 };
	bool progress = !o->json && isatty(STDERR_FILENO) && o->duration >= 1;
	int rc;

	if (snap(&a, o))
		return 1;
	wait_window(l, a.t + o->duration, o, &rq, progress);
	if (progress)
		fprintf(stderr, "\r%*s\r", 64, "");
	if (snap(&b, o)) {
		procstat__free(&a);
		return 1;
	}
	rc = use__build(&r, &a, &b, &rq, o->sys);
	if (rc) {
		error("cannot build the report: %s", strerror(-rc));
	} else {
		if (o->json)
			use_print__json(stdout, &r, -1);
		else
			use_print__text(stdout, &r, o->per_cpu);
	}
	use__free(&r);
	procstat__free(&a);
	procstat__free(&b);
	return rc ? 1 : 0;
}

static int run_intervals(struct use_opts *o, struct loop *l)
{
	struct ps_snap prev, cur;
	double t0, end = o->duration > 0 ? o->duration : 0;
	int rows = 0, rc = 0;

	if (snap(&prev, o))
		return 1;
	t0 = prev.t;
	if (!o->json)
		use_print__row_header(stdout);
	for (;;) {
		struct use_runq rq = { 0 };
		struct use_report r;
		double until = prev.t + o->interval;
		int stopped;

		if (end > 0 && until > t0 + end)
			until = t0 + end;
		stopped = wait_window(l, until, o, &rq, false);
		if (snap(&cur, o)) {
			rc = 1;
			break;
		}
		if (cur.t - prev.t > 0.01) {
			if (use__build(&r, &prev, &cur, &rq, o->sys)) {
				error("cannot build the report: out of memory");
				procstat__free(&cur);
				rc = 1;
				break;
			}
			if (o->json)
				use_print__json(stdout, &r, cur.t - t0);
			else
				use_print__row(stdout, &r, cur.t - t0);
			fflush(stdout);
			use__free(&r);
			rows++;
		}
		procstat__free(&prev);
		prev = cur;
		if (stopped || (o->count && rows >= o->count) || (end > 0 && cur.t - t0 >= end - 1e-3) || ferror(stdout))
			break;
	}
	procstat__free(&prev);
	return rc;
}

int cmd_use(int argc, char **argv)
{
	struct use_opts o = { .duration = -1, .interval = -1, .proc = "/proc", .sys = "/sys" };
	const struct opt opts[] = {
		OPT_SECONDS(0, "duration", &o.duration, "sample for S seconds (default 3; with -I: stop after S)"),
		OPT_SECONDS('I', "interval", &o.interval, "print a row every S seconds, like vmstat (Ctrl-C stops)"),
		OPT_INT('c', "count", &o.count, "N", "with -I: stop after N rows"),
		OPT_BOOL('j', "json", &o.json, "print JSON (one object per line with -I)"),
		OPT_BOOL(0, "per-cpu", &o.per_cpu, "show every CPU (by default only when there are 8 or fewer)"),
		{ OPTT_STRING, 0, "proc", &o.proc, "DIR", "read DIR instead of /proc (a copy from elsewhere)", NULL, OPTF_HIDDEN },
		{ OPTT_STRING, 0, "sys", &o.sys, "DIR", "read DIR instead of /sys", NULL, OPTF_HIDDEN },
		OPT_VERBOSE(),
		OPT_END(),
	};
	struct loop l;
	int rc;

	argc = opt__parse(argc, argv, opts, use_usage, 0);
	if (argc > 0)
		opt__usage_error(use_usage, opts, "unexpected argument '%s'", argv[0]);
	if (o.interval != -1 && o.interval < 0.01)
		opt__usage_error(use_usage, opts, "-I %g: the interval must be at least 0.01 s", o.interval);
	if (o.interval == -1)
		o.interval = 0;
	if (o.count < 0)
		opt__usage_error(use_usage, opts, "the count must be positive");
	if (o.count && !o.interval)
		opt__usage_error(use_usage, opts, "--count goes with -I");
	if (o.duration < 0)
		o.duration = o.interval > 0 ? 0 : 3;
	else if (o.duration < 0.01 && !o.interval)
		opt__usage_error(use_usage, opts, "--duration %g: sample for at least 0.01 s", o.duration);

	rc = loop__init(&l);
	if (rc) {
		error("cannot set up the event loop: %s", strerror(-rc));
		return 1;
	}
	rc = o.interval > 0 ? run_intervals(&o, &l) : run_once(&o, &l);
	loop__fini(&l);
	return rc;
}
