// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - `sonde trace`: syscalls as strace prints them, captured by BPF on
 * raw_syscalls with the filtering and the -c counting done in the kernel.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/bpf/bpf_trace.h"
#include "lib/bpf/bpf_util.h"
#include "lib/loop/loop.h"
#include "lib/syscall/syscalls.h"
#include "lib/proc/target.h"
#include "lib/proc/workload.h"
#include "ui/strace_print.h"
#include "lib/util.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const trace_usage[] = {
	"sonde trace [<options>] [--] <command> [<args>]",
	"sonde trace [<options>] -p PID[,PID...] | -a [--duration S | -- <command>]",
	NULL,
};

struct trace_cmd {
	const char *output, *sortby;
	const char *trace_expr;
	struct target_opts to;	/* -p/-a as given */
	bool follow, count, count_too, failed, histogram;
	int tflag, strsize, buffer_mb;
	bool rflag, Tflag;
	double min_ms, seconds;
	bool set[SYSCALL_NR_MAX];
	bool set_given;
	pid_t *pid_list;
	int nr_pids;
	struct strace_printer pr;
	struct loop *loop;
	struct tracer *tracer;
	bool wait_targets;
	int write_err;
	pid_t child;		/* the command, and whether its +++ exited line came */
	bool child_exit_seen;
};

static struct trace_cmd *the_cmd;

/* -e trace=SET, -e SET, -e status=failed; the rest of strace's -e qualifiers are refused by name */
static int parse_e(const struct opt *o, const char *arg)
{
	struct trace_cmd *c = the_cmd;
	char err[512];
	const char *v = arg;

	(void)o;
	if (!strncmp(arg, "trace=", 6)) {
		v = arg + 6;
	} else if (!strcmp(arg, "status=failed")) {
		c->failed = true;
		return 0;
	} else if (!strncmp(arg, "status=", 7)) {
		error("-e '%s': only status=failed is supported", arg);
		return -1;
	} else if (strchr(arg, '=')) {
		error("-e '%s': unknown qualifier (sonde trace knows trace= and status=failed)", arg);
		return -1;
	}
	switch (syscall__parse_set(v, c->set, err, sizeof(err))) {
	case 0:
		break;
	case -EBADMSG:
		error("-e trace=%s: %s", v, err);
		return -1;
	default:
		error("-e trace=%s: unknown syscall or class %s", v, err);
		return -1;
	}
	c->set_given = true;
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct trace_cmd *c = ctx;
	const struct sc_event *ev = data;

	if (size >= TRACE_EV_HDR && ev->type == TEV_EXIT && ev->tid == (unsigned)c->child)
		c->child_exit_seen = true;
	if (!c->count && strace_printer__event(&c->pr, data, size))
		c->write_err = 1;
	return 0;
}

/*
 * Every 20 ms: drain the ring buffer (the kernel side wakes the reader only
 * when a good part of it is full), and with -p end when every process is gone.
 */
static int trace_tick(void *ctx, int fd, short revents)
{
	struct trace_cmd *c = ctx;

	(void)fd;
	(void)revents;
	loop__consume(c->loop);
	if (c->wait_targets)	/* -f: the command is gone, its descendants maybe not */
		return tracer__alive(c->tracer) == 0;
	if (!c->nr_pids || c->loop->child)
		return 0;	/* with a command as well, it says when to stop */
	return !target__any_alive(c->pid_list, c->nr_pids);
}

/* the values opt__parse cannot check alone */
static void check_options(struct trace_cmd *c, const struct opt *opts)
{
	if (c->strsize < 0)
		opt__usage_error(trace_usage, opts, "-s %d: the string limit cannot be negative", c->strsize);
	if (c->strsize > TRACE_CAP_MAX)
		warning("-s %d: strings are copied in the kernel up to %d bytes; longer ones end with ...",
			c->strsize, TRACE_CAP_MAX);
	if (c->sortby && strcmp(c->sortby, "time") && strcmp(c->sortby, "calls") && strcmp(c->sortby, "errors") &&
	    strcmp(c->sortby, "name") && strcmp(c->sortby, "nothing"))
		opt__usage_error(trace_usage, opts, "-S '%s': sort by time, calls, errors, name or nothing", c->sortby);
	if (c->buffer_mb < 1 || c->buffer_mb > 1024)
		opt__usage_error(trace_usage, opts, "--buffer-size %d: give 1 to 1024 MiB", c->buffer_mb);
}

/* what the BPF side filters and counts, from the options; child: the command sonde starts (0: none) */
static void tracer_options(struct trace_cmd *c, struct tracer_opts *to, pid_t child)
{
	to->all = c->to.all;
	to->follow = c->follow;
	to->count_only = c->count && !c->histogram;
	to->stats = c->count || c->count_too || c->histogram;
	to->failed_only = c->failed;
	to->begins = c->follow || c->to.all || c->nr_pids > 1;
	to->min_ns = c->min_ms > 0 ? (uint64_t)(c->min_ms * 1e6) : 0;
	to->set = c->set;
	to->pids = c->pid_list;
	to->nr_pids = c->nr_pids;
	to->child = c->child = c->nr_pids ? 0 : child;	/* with -p, the command only says how long */
	to->rb_mb = c->buffer_mb;
}

/* after the trace: -c/-C's table, --histogram, and what was lost */
static void print_summary(struct trace_cmd *c, struct tracer *t, FILE *out)
{
	uint64_t lost, full;

	if (c->count || c->count_too || c->histogram) {
		struct sc_stat *st = calloc(TRACE_NR_MAX, sizeof(*st));

		if (st && !tracer__stats(t, st)) {
			if (c->count || c->count_too)
				strace_print__summary(out, st, c->sortby);
			if (c->histogram)
				strace_print__histogram(out, st);
		}
		free(st);
	}
	lost = tracer__counter(t, TRC_LOST);
	full = tracer__counter(t, TRC_INFLIGHT_FULL);
	debug(1, "%llu records, %llu strings read again at exit (not resident at entry)",
	      (unsigned long long)tracer__counter(t, TRC_EVENTS), (unsigned long long)tracer__counter(t, TRC_REREAD));
	if (lost)
		warning("%llu syscall records lost: the ring buffer was full (raise --buffer-size, "
			"or narrow the trace with -e trace=)", (unsigned long long)lost);
	if (full)
		warning("%llu syscalls not traced: too many calls in progress at once",
			(unsigned long long)full);
	/* not calls: a lost entry only loses an <unfinished ...> split, the call comes whole at its exit */
	if ((lost = tracer__counter(t, TRC_LOST_OTHER)))
		warning("%llu exit or signal record%s lost: the ring buffer was full",
			(unsigned long long)lost, lost == 1 ? "" : "s");
	debug(1, "%llu call entries lost (those calls are printed whole, not cut by <unfinished ...>)",
	      (unsigned long long)tracer__counter(t, TRC_LOST_BEGIN));
}

/*
 * The options into c, checked (a usage error exits 129), and the processes
 * of -p; returns how many words are left in argv (the command to run), or -1
 * when a process does not exist (said).
 */
static int parse_options(struct trace_cmd *c, int argc, char **argv)
{
	const struct opt opts[] = {
		OPT_GROUP("what to trace"),
		OPT_BOOL('f', "follow-forks", &c->follow, "trace child processes and threads too"),
		OPT_TARGET_PID(&c->to),
		OPT_TARGET_ALL(&c->to),
		OPT_CALLBACK('e', "expr", NULL, "EXPR", "trace=SET (names, %file %desc %network %process "
			     "%memory %signal %ipc %creds %clock, !negated), status=failed", parse_e),
		OPT_BOOL('Z', "failed", &c->failed, "only calls that failed"),
		OPT_CALLBACK(0, "min-duration", &c->min_ms, "MS", "only calls that took at least MS milliseconds "
			     "(perf trace's --duration MS: here --duration stops after S seconds, as everywhere)",
			     opt__seconds),
		OPT_GROUP("output"),
		OPT_STRING('o', "output", &c->output, "FILE", "write the trace to FILE instead of stderr"),
		OPT_INT('s', "string-limit", &c->strsize, "N", "show at most N bytes of strings and buffers (32)"),
		OPT_COUNT('t', "timestamps", &c->tflag, "time of day (-tt with microseconds, -ttt since the epoch)"),
		OPT_BOOL('r', "relative-timestamps", &c->rflag, "time since the previous line"),
		OPT_BOOL('T', "syscall-times", &c->Tflag, "time spent in each call"),
		OPT_BOOL('c', "summary-only", &c->count, "count time, calls and errors (in the kernel): strace -c's table"),
		OPT_BOOL('C', "summary", &c->count_too, "print the lines and the -c table"),
		OPT_STRING('S', "sort", &c->sortby, "KEY", "sort the table by time, calls, errors, name or nothing"),
		OPT_BOOL(0, "histogram", &c->histogram, "latency histogram per syscall, with p50/p90/p99/p999 and max"),
		OPT_GROUP("other"),
		OPT_DURATION(&c->seconds),
		{ OPTT_CALLBACK, 0, "seconds", &c->seconds, "S", "same as --duration (older spelling)", opt__seconds,
		  OPTF_HIDDEN },
		OPT_INT(0, "buffer-size", &c->buffer_mb, "MB", "ring buffer size in MiB (16)"),
		OPT_VERBOSE(),
		OPT_END(),
	};
	struct target tg;

	c->to = (struct target_opts){ .verb = "trace", .accept = TARGET_PID | TARGET_ALL };
	argc = opt__parse_target(argc, argv, opts, trace_usage, OPT_STOP_AT_NON_OPTION, &c->to, &tg);
	if (argc < 0)
		return -1;
	if (!c->set_given)
		syscall__parse_set("all", c->set, NULL, 0);
	check_options(c, opts);
	/* the processes: the BPF side follows their threads */
	c->pid_list = tg.pids;
	c->nr_pids = tg.nr_pids;
	tg.pids = NULL;
	target__free(&tg);
	return argc;
}

/* -o FILE (else stderr) and the printer's settings; -1 when FILE cannot be written (said) */
static int open_output(struct trace_cmd *c, FILE **out)
{
	if (c->output && !(*out = fopen(c->output, "w"))) {
		error("cannot write '%s': %s", c->output, strerror(errno));
		*out = stderr;
		return -1;
	}
	strace_printer__init(&c->pr, *out);
	c->pr.dopts.strsize = c->strsize;
	c->pr.tflag = c->tflag > 3 ? 3 : c->tflag;
	c->pr.rflag = c->rflag;
	c->pr.Tflag = c->Tflag;
	if (c->follow || c->to.all || c->nr_pids > 1)
		c->pr.prefix = c->output ? PFX_PLAIN : PFX_BRACKET;
	return 0;
}

/* the ring buffer, the duration and the tick into an initialized loop; -1 when one failed (said) */
static int setup_loop(struct trace_cmd *c, struct loop *loop)
{
	if (loop__add_ringbuf(loop, tracer__ringbuf_fd(c->tracer), on_event, c)) {
		error("cannot read the BPF ring buffer");
		return -1;
	}
	if (c->seconds > 0)
		loop__set_duration(loop, c->seconds);
	c->loop = loop;
	if (loop__set_tick(loop, 20, trace_tick, c)) {
		error("cannot set up the event loop's timer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* trace until the end (the command's, -p's, --duration's, a signal's), then the summary; the exit status */
static int trace_run(struct trace_cmd *c, FILE *out)
{
	struct loop *loop = c->loop;
	struct tracer *t = c->tracer;
	enum loop_end end = loop__run(loop);
	size_t left;

	if (end == LOOP_CHILD && c->follow && !c->nr_pids) {	/* with -p, the command said how long */
		/* as strace -f: go on until the processes the command left behind are gone too */
		int status = loop->child_status;

		c->wait_targets = true;
		if (tracer__alive(t) > 0)
			loop__run(loop);	/* until they end, or Ctrl-C */
		loop->child_status = status;
	}
	tracer__detach(t);
	/* what the programs sent between the loop's last read and their detaching (-p, -a, a signal) */
	if ((left = loop__drain(loop)))
		warning("%zu syscall records not read: more came than sonde could read in %d s after the end",
			left, LOOP_DRAIN_MS / 1000);
	/* the command's exit record was dropped (ring buffer full): its +++ line from its wait status */
	if (!c->count && end == LOOP_CHILD && c->child && !c->child_exit_seen &&
	    tracer__counter(t, TRC_LOST_OTHER) &&
	    strace_printer__exit(&c->pr, c->child, loop->child_status, util__now_ns()))
		c->write_err = 1;
	if (end == LOOP_ERROR)
		error("reading the ring buffer failed: %s", strerror(-loop->err));

	if (!c->count && strace_printer__flush(&c->pr))
		c->write_err = 1;
	print_summary(c, t, out);
	if (c->write_err || fflush(out) || ferror(out)) {
		error("cannot write the trace%s%s: %s", c->output ? " to " : "", c->output ? c->output : "",
		      strerror(errno ? errno : EIO));
		return 1;
	}
	return loop__exit_code(loop, end);
}

int cmd_trace(int argc, char **argv)
{
	struct trace_cmd c = { .strsize = 32, .buffer_mb = 16 };
	struct tracer_opts to = { 0 };
	struct workload w = { .pid = 0 };
	struct loop loop;
	bool loop_ready = false, started = false;
	FILE *out = stderr;
	char err[512];
	int rc = 1;

	the_cmd = &c;
	argc = parse_options(&c, argc, argv);
	if (argc < 0)
		return 1;
	bpfutil__setup_log(verbose);
	if (argc && (rc = workload__prepare(&w, argv))) {
		error("cannot start '%s': %s", argv[0], strerror(-rc));
		rc = 127;
		goto out;
	}
	rc = 1;
	tracer_options(&c, &to, w.pid);
	if (tracer__new(&c.tracer, &to, err, sizeof(err)) || tracer__attach(c.tracer, err, sizeof(err))) {
		error("%s", err);
		goto out;
	}
	if (open_output(&c, &out))
		goto out;
	if (loop__init(&loop)) {
		error("cannot set up the event loop: %s", strerror(errno));
		goto out;
	}
	loop_ready = true;
	if (setup_loop(&c, &loop))
		goto out;
	if (w.pid) {
		if ((rc = opt__start_command(&w, argv))) {
			w.pid = 0;
			goto out;
		}
		started = true;
		loop__set_child(&loop, w.pid);
	}
	rc = trace_run(&c, out);
	w.pid = 0;
out:
	if (w.pid && !started)
		workload__abort(&w);
	if (loop_ready)
		loop__fini(&loop);
	if (out != stderr)
		fclose(out);
	strace_printer__fini(&c.pr);
	tracer__free(c.tracer);
	free(c.pid_list);
	return rc;
}
