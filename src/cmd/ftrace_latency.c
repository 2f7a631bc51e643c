// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_latency.c - `sonde ftrace --latency TRACER`: one of the kernel's
 * latency tracers (wakeup, wakeup_rt, wakeup_dl, irqsoff, preemptoff,
 * preemptirqsoff) run in the top-level buffer for -d or a command, then its
 * trace printed as `cat trace` shows it (the max latency in its header), and
 * every top-level setting it touched put back, also on Ctrl-C and SIGTERM.
 */
#include "sonde.h"
#include "opt.h"
#include "cmd/ftrace_hist.h"
#include "lib/loop/loop.h"
#include "lib/proc/workload.h"
#include "lib/tracefs/ftrace.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ftrace_latency__run(const char *tracer, double duration, unsigned long thresh_us, char *const *argv, int argc,
			const char *output)
{
	struct ftrace_latency lt;
	struct workload w = { .pid = 0, .go_fd = -1, .err_fd = -1 };
	struct loop l;
	enum loop_end end;
	unsigned long long max_us = 0;
	char err[600], *trace = NULL;
	bool held = false;
	FILE *out = stdout;
	int rc;

	memset(&lt, 0, sizeof(lt));
	if ((rc = loop__init(&l))) {
		error("cannot set up the event loop: %s", strerror(-rc));
		return 1;
	}
	rc = 1;
	if (argc) {
		int r = workload__prepare(&w, (char **)argv);

		if (r) {
			error("cannot start '%s': %s", argv[0], strerror(-r));
			goto out;
		}
		held = true;
	}
	rc = ftrace__latency_start(&lt, tracer, thresh_us, err, sizeof(err));
	if (lt.restored)
		warning("put back the top-level tracing settings sonde pid %d (no longer running) had changed",
			(int)lt.restored_pid);
	if (rc) {
		error("%s", err);
		rc = 1;
		goto out;
	}
	if (duration > 0 && (rc = loop__set_duration(&l, duration))) {
		error("cannot set up the event loop: %s", strerror(-rc));
		rc = 1;
		goto out;
	}
	if (argc) {
		held = false;
		if ((rc = opt__start_command(&w, argv)))
			goto out;
		loop__set_child(&l, w.pid);
	}
	end = loop__run(&l);
	if (end == LOOP_ERROR) {
		error("the event loop failed: %s", strerror(-l.err));
		rc = 1;
		goto out;
	}
	if ((rc = ftrace__latency_result(&lt, &max_us, &trace))) {
		error("cannot read the %s trace: %s", tracer, strerror(-rc));
		rc = 1;
		goto out;
	}
	if (output && !(out = fopen(output, "we"))) {
		error("cannot open '%s': %s", output, strerror(errno));
		rc = 1;
		goto out;
	}
	fputs(trace, out);
	if (!max_us)
		warning("%s saw no latency above %lu us", tracer, thresh_us);
	rc = fflush(out) ? 1 : loop__exit_code(&l, end);
	if (out != stdout)
		fclose(out);
out:
	free(trace);
	ftrace__latency_stop(&lt);
	if (held)
		workload__abort(&w);
	loop__fini(&l);
	return rc;
}
