// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace.c - `sonde ftrace`: trace-cmd's record-and-show in one step, through a
 * private tracefs instance (lib/tracefs/ftrace.h) that is removed on exit, Ctrl-C and
 * SIGTERM. Streams trace_pipe's lines as tracefs formats them.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/util.h"
#include "lib/tracefs/ftrace.h"
#include "lib/tracefs/hist.h"
#include "lib/tracefs/fgraph_fold.h"
#include "lib/tracefs/tracedat.h"
#include "cmd/ftrace_dat.h"
#include "cmd/ftrace_hist.h"
#include "lib/loop/loop.h"
#include "lib/proc/target.h"
#include "lib/proc/workload.h"

#include <errno.h>
#include <stdio_ext.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const ftrace_usage[] = {
	"sonde ftrace -e GROUP:EVENT [--filter EXPR] [-u BIN:FUNC] [-f FUNC] [-p PID | [--] <command> [<args>]]",
	"sonde ftrace -G FUNC [--max-depth N] [--no-irq] [--graph-time] [--folded] [-p PID | [--] <command> [<args>]]",
	"sonde ftrace record [-o trace.dat] -e GROUP:EVENT [-u BIN:FUNC] [-p PID | [--] <command> [<args>]]",
	"sonde ftrace report [-i trace.dat]",
	"sonde ftrace --hist 'keys=FIELD[.MOD],...[:vals=FIELD,...][:sort=...][:size=N][ if FILTER]' -e GROUP:EVENT [--duration S | <command>]",
	"sonde ftrace --latency wakeup|wakeup_rt|wakeup_dl|irqsoff|preemptoff|preemptirqsoff [--thresh US] [--duration S | <command>]",
	"sonde ftrace --list-events [PATTERN]",
	"sonde ftrace --list-functions PATTERN",
	NULL,
};

struct ev_spec {
	const char *spec;
	const char *filter;
	char *owned;	/* the strdup'd -e argument the specs point into, on its first spec */
	int uprobe;	/* 0: a tracepoint spec; 1: BINARY:FUNC for a uprobe; 2: for a uretprobe */
};

struct ftrace_opts {
	struct ev_spec *ev;
	int nr_ev;
	char **funcs, **notrace, **graph;
	int nr_funcs, nr_notrace, nr_graph;
	int max_depth;
	bool graph_time, no_irq, folded;
	const char *pids, *output, *list_functions;
	bool list_events, children;
	bool record;	/* `ftrace record`: the pages to a trace.dat (-o), not trace_pipe's text */
	double duration;
	int buffer_kb;
	const char *hist, *latency;	/* --hist SPEC, --latency TRACER */
	bool hist_bpf;		/* --hist-bpf: sonde's BPF twin even where the kernel has hist triggers */
	int thresh;		/* --thresh US for --latency */
};

static int add_event(const struct opt *opt, const char *arg)
{
	struct ftrace_opts *o = opt->value;
	struct ev_spec *n;
	char *copy = strdup(arg), *tok, *sv;

	if (!copy)
		return -1;
	/* a comma list is several specs: -e sched:sched_switch,irq:* */
	for (tok = strtok_r(copy, ",", &sv); tok; tok = strtok_r(NULL, ",", &sv)) {
		n = realloc(o->ev, (o->nr_ev + 1) * sizeof(*n));
		if (!n)
			return -1;
		o->ev = n;
		o->ev[o->nr_ev++] = (struct ev_spec){ tok, NULL, copy, 0 };
		copy = NULL;
	}
	free(copy);	/* an argument of commas only */
	return 0;
}

static int add_uprobe_spec(struct ftrace_opts *o, const char *arg, int kind)
{
	struct ev_spec *n = realloc(o->ev, (o->nr_ev + 1) * sizeof(*n));

	if (!n)
		return -1;
	o->ev = n;
	o->ev[o->nr_ev++] = (struct ev_spec){ arg, NULL, NULL, kind };
	return 0;
}

static int add_uprobe(const struct opt *opt, const char *arg)
{
	return add_uprobe_spec(opt->value, arg, 1);
}

static int add_uretprobe(const struct opt *opt, const char *arg)
{
	return add_uprobe_spec(opt->value, arg, 2);
}

static int add_filter(const struct opt *opt, const char *arg)
{
	struct ftrace_opts *o = opt->value;

	if (!o->nr_ev) {
		error("--filter applies to the -e (or -u) before it: give -e GROUP:EVENT first");
		return -1;
	}
	if (o->ev[o->nr_ev - 1].filter) {
		error("two filters for '%s': join them with && or ||", o->ev[o->nr_ev - 1].spec);
		return -1;
	}
	o->ev[o->nr_ev - 1].filter = arg;
	return 0;
}

static int add_glob(char ***v, int *n, const char *arg)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	*v = nv;
	nv[(*n)++] = (char *)arg;
	return 0;
}

static int add_func(const struct opt *opt, const char *arg)
{
	struct ftrace_opts *o = opt->value;

	return add_glob(&o->funcs, &o->nr_funcs, arg);
}

static int add_notrace(const struct opt *opt, const char *arg)
{
	struct ftrace_opts *o = opt->value;

	return add_glob(&o->notrace, &o->nr_notrace, arg);
}

static int add_graph(const struct opt *opt, const char *arg)
{
	struct ftrace_opts *o = opt->value;

	return add_glob(&o->graph, &o->nr_graph, arg);
}

static void print_line(const char *s, void *arg)
{
	(void)arg;
	printf("%s\n", s);
}

static int list(const struct ftrace_opts *o, const char *pattern)
{
	int n;

	if (o->list_functions) {
		n = ftrace__list_functions(o->list_functions, print_line, NULL);
		if (n == -EPERM || n == -EACCES) {
			error("cannot list kernel functions: the kernel refuses the function tracer here "
			      "(reading available_filter_functions: %s)", strerror(-n));
			return 1;
		}
		if (n == -ENOENT) {
			error("cannot list kernel functions: this kernel has no function tracer (CONFIG_FUNCTION_TRACER is off)");
			return 1;
		}
	} else {
		n = ftrace__list_events(pattern, print_line, NULL);
	}
	if (n == -ENODEV) {
		error("tracefs is not mounted and could not be mounted at /sys/kernel/tracing");
		return 1;
	}
	if (n < 0) {
		error("cannot list the %s: reading tracefs' %s: %s%s", o->list_functions ? "kernel functions" : "tracepoints",
		      o->list_functions ? "available_filter_functions" : "available_events", strerror(-n),
		      n == -EACCES || n == -EPERM ? " (tracing needs root or CAP_SYS_ADMIN)" : "");
		return 1;
	}
	if (n == 0) {
		error("nothing matches '%s'", o->list_functions ? o->list_functions : pattern);
		return 1;
	}
	return 0;
}

/*
 * copy what trace_pipe has now to out, up to 4 MB while tracing (reading makes
 * more when the trace is of the reads: back to the loop, which sees signals);
 * -1 when out cannot be written
 */
static int drain(int fd, FILE *out, unsigned long long *bytes, bool all)
{
	static char buf[1 << 16];

	for (int i = 0; all || i < 64; i++) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (fwrite(buf, 1, n, out) != (size_t)n)
			return -1;
		*bytes += n;
	}
	return 0;
}

/* the event loop's view of the trace */
struct stream {
	struct ftrace *ft;
	FILE *out;
	unsigned long long bytes;
	int write_errno;	/* the output failed: 0 for none */
	const pid_t *pids;	/* -p: stop when they are all gone */
	int npids;
	struct fgraph_fold *fold;	/* --folded: lines go here, written at the end */
	struct tracedat_rec *rec;	/* record: the pages read so far */
	char part[4096];	/* a line not yet ended */
	size_t npart;
};

/* --folded: what trace_pipe has now, line by line into the folder */
static int drain_fold(struct stream *st, bool all)
{
	static char buf[1 << 16];

	for (int r = 0; all || r < 64; r++) {
		ssize_t n = read(st->ft->pipe_fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		st->bytes += n;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (st->npart < sizeof(st->part) - 1)
					st->part[st->npart++] = buf[i];
				continue;
			}
			st->part[st->npart] = 0;
			st->npart = 0;
			if (fgraph_fold__line(st->fold, st->part))
				return -1;
		}
	}
	return 0;
}

/* trace_pipe has data: copy it out; 1 (stop) when the output fails */
static int stream_drain(void *ctx, int fd, short revents)
{
	struct stream *st = ctx;

	(void)fd;
	(void)revents;
	if (st->rec) {
		char err[300];

		if (tracedat_rec__drain(st->rec, err, sizeof(err))) {
			error("%s", err);
			st->write_errno = EIO;
			return 1;
		}
		return 0;
	}
	if (st->fold ? drain_fold(st, false) : drain(st->ft->pipe_fd, st->out, &st->bytes, false) || fflush(st->out)) {
		st->write_errno = errno ? errno : EIO;
		return 1;
	}
	return 0;
}

/* every 200 ms: what trace_pipe did not wake us for, and -p's processes */
static int stream_tick(void *ctx, int fd, short revents)
{
	struct stream *st = ctx;

	if (stream_drain(st, fd, revents))
		return 1;
	return st->npids && !target__any_alive(st->pids, st->npids);	/* everything traced has exited */
}

/* SIGQUIT stops the trace too */
static int on_quit(void *ctx, int signo, short revents)
{
	(void)ctx;
	(void)revents;
	return signo == SIGQUIT;
}

/* say what a sonde killed earlier left in tracefs, and that it is gone now */
static void say_stale(const struct ftrace *ft)
{
	for (int i = 0; i < ft->nr_stale; i++)
		warning("removed what sonde pid %d (no longer running) left in tracefs: %s",
			(int)ft->stale[i].pid, ft->stale[i].what);
}

/* set up the instance for the target; -1 after an error line */
static int setup(struct ftrace *ft, const struct ftrace_opts *o, const pid_t *pids, int npids)
{
	char err[600];
	int rc;

	if (o->buffer_kb > 0 && ftrace__set_buffer_kb(ft, o->buffer_kb, err, sizeof(err))) {
		error("%s", err);
		return -1;
	}
	if (npids && ftrace__set_pids(ft, pids, npids, o->children, err, sizeof(err))) {
		error("%s", err);
		return -1;
	}
	if (o->nr_graph) {
		struct ftrace_graph_opts g = {
			.funcs = o->graph, .n = o->nr_graph, .notrace = o->notrace, .nn = o->nr_notrace,
			.only = o->funcs, .nonly = o->nr_funcs,
			.max_depth = o->max_depth, .graph_time = o->graph_time, .no_irq = o->no_irq,
			.children = o->children,
		};

		if (ftrace__set_graph(ft, &g, pids, npids, err, sizeof(err))) {
			error("%s", err);
			return -1;
		}
		if (ft->graph_top && o->nr_ev) {
			error("this kernel runs function_graph in the top-level buffer only, without the instance's "
			      "events: -G goes without -e there");
			return -1;
		}
	} else if (o->nr_funcs || o->nr_notrace) {
		rc = ftrace__set_functions(ft, o->funcs, o->nr_funcs, o->notrace, o->nr_notrace, err, sizeof(err));
		if (rc) {
			error("%s", err);	/* one line: it names the reason and says what still works */
			return -1;
		}
	}
	for (int i = 0; i < o->nr_ev; i++) {
		char up[128];
		const char *spec = o->ev[i].spec;

		if (o->ev[i].uprobe) {
			if (ftrace__add_uprobe(ft, spec, o->ev[i].uprobe == 2, up, sizeof(up), err, sizeof(err))) {
				error("%s", err);
				return -1;
			}
			spec = up;
		}
		if (o->hist) {
			char *t = NULL;

			if (asprintf(&t, "%s%s", strncmp(o->hist, "hist:", 5) ? "hist:" : "", o->hist) < 0) {
				error("out of memory");
				return -1;
			}
			rc = ftrace__hist_add(ft, spec, t, err, sizeof(err));
			free(t);
			if (rc) {
				struct hist_spec hs;
				char why[300];

				/* what the kernel refuses, sonde's parser may say more plainly (the twin's words) */
				error("%s", rc == -EINVAL && hist_spec__parse(o->hist, &hs, why, sizeof(why)) ? why : err);
				return -1;
			}
			continue;
		}
		rc = ftrace__enable_events(ft, spec, o->ev[i].filter, err, sizeof(err));
		if (rc < 0) {
			error("%s", err);
			return -1;
		}
		debug(1, "'%s': %d event(s)%s%s", o->ev[i].spec, rc, o->ev[i].filter ? " with filter " : "",
		      o->ev[i].filter ? o->ev[i].filter : "");
	}
	return 0;
}

/*
 * After the loop: stop tracing, write what is left (the rest of trace_pipe,
 * trace-cmd's file, the folded stacks, the hist file), say what was lost;
 * returns the exit status.
 */
static int finish(struct stream *st, const struct ftrace_opts *o, struct loop *l, enum loop_end end)
{
	struct ftrace *ft = st->ft;
	FILE *out = st->out;
	unsigned long long lost;
	char err[600];
	int rc;

	ftrace__stop(ft);
	if (st->rec) {
		if (!st->write_errno && !stream_drain(st, 0, 0) &&
		    tracedat_rec__write(st->rec, ft->root, o->output, err, sizeof(err))) {
			error("%s", err);
			st->write_errno = EIO;
		}
		debug(1, "%llu pages written to %s", tracedat_rec__pages(st->rec), o->output);
	} else if (st->fold) {
		if (drain_fold(st, true) || fgraph_fold__write(st->fold, out))
			st->write_errno = errno ? errno : EIO;
	} else if (!st->write_errno && drain(ft->pipe_fd, out, &st->bytes, true)) {
		st->write_errno = errno ? errno : EIO;
	}
	if (o->hist && !st->write_errno) {	/* the kernel's hist file, as cat shows it */
		char *h = ftrace__hist_read(ft, err, sizeof(err));

		if (!h)
			error("%s", err);
		else if (fputs(h, out) < 0)
			st->write_errno = errno ? errno : EIO;
		free(h);
		if (!h)
			st->write_errno = EIO;
	}
	if (!st->write_errno && fflush(out))
		st->write_errno = errno;
	if (st->write_errno && st->write_errno != EPIPE)
		error("cannot write the trace%s%s: %s", o->output ? " to " : "", o->output ? o->output : "",
		      strerror(st->write_errno));
	lost = ftrace__overruns(ft);
	if (lost)
		warning("%llu events were lost: the buffers filled faster than they were read (a larger -b KB per CPU helps)",
			lost);
	debug(1, "%llu bytes of trace", st->bytes);
	if (end == LOOP_ERROR)
		error("the event loop failed: %s", strerror(-l->err));
	/* README "Exit status": a reader that went away (EPIPE) ends the trace, silently, but it is no success */
	rc = st->write_errno ? 1 : loop__exit_code(l, end);
	if (st->write_errno && out == stdout) {	/* said (or EPIPE): the hub must not say it again */
		__fpurge(stdout);
		clearerr(stdout);
	}
	return rc;
}

/* -p's processes: every thread of each (set_event_pid filters by thread id); -1 when one does not exist (said) */
static int thread_ids(const struct ftrace_opts *o, bool have_cmd, pid_t **pids, int *npids)
{
	struct target tg;
	struct target_opts to = { .pids = o->pids, .have_cmd = have_cmd };

	if (opt__target(&tg, &to, ftrace_usage)) {
		target__free(&tg);
		return -1;
	}
	*pids = tg.tids;
	*npids = tg.nr_tids;
	tg.tids = NULL;
	target__free(&tg);
	return 0;
}

static int trace(struct ftrace_opts *o, int argc, char **argv)
{
	struct ftrace ft;
	struct workload w = { .pid = 0, .go_fd = -1, .err_fd = -1 };
	struct stream st = { .ft = &ft };
	struct loop l;
	enum loop_end end = LOOP_ERROR;
	pid_t *pids = NULL;
	int npids = 0, rc = 1;
	bool child_held = false, loop_ready = false;
	FILE *out = stdout;
	char err[600];

	if (o->pids && thread_ids(o, argc > 0, &pids, &npids))
		return 1;
	if (o->output && !o->record) {
		out = fopen(o->output, "we");
		if (!out) {
			error("cannot open '%s': %s", o->output, strerror(errno));
			free(pids);
			return 1;
		}
	}

	/* from here on, every way out goes through ftrace__close(), and signals are the loop's */
	if ((rc = loop__init(&l)) || (rc = loop__add_signal(&l, SIGQUIT, on_quit, NULL))) {
		error("cannot set up the event loop: %s", strerror(-rc));
		rc = 1;
		goto out_file;
	}
	loop_ready = true;
	rc = 1;
	signal(SIGPIPE, SIG_IGN);	/* a closed output ends the trace, it must not kill us mid-way */
	if (out == stdout)
		loop__watch_output(&l, STDOUT_FILENO);
	memset(&ft, 0, sizeof(ft));
	ft.pipe_fd = -1;
	if (ftrace__open(&ft, err, sizeof(err))) {
		say_stale(&ft);
		error("%s", err);
		goto out;
	}
	say_stale(&ft);
	debug(1, "tracefs instance %s", ft.dir);
	if (argc) {
		int r = workload__prepare(&w, argv);

		if (r) {
			error("cannot start '%s': %s", argv[0], strerror(-r));
			goto out;
		}
		child_held = true;
	}
	if (argc && !o->pids) {	/* with -p, the command only says how long */
		pids = malloc(sizeof(*pids));
		if (!pids) {
			error("out of memory");
			goto out;
		}
		pids[0] = w.pid;
		npids = 1;
	}
	if (setup(&ft, o, pids, npids))
		goto out;
	if (o->record && tracedat_rec__open(&st.rec, ft.dir, err, sizeof(err))) {
		error("%s", err);
		goto out;
	}
	if (ftrace__start(&ft, err, sizeof(err))) {
		error("%s", err);
		goto out;
	}
	st.out = out;
	if (o->folded && !(st.fold = fgraph_fold__new())) {
		error("out of memory");
		goto out;
	}
	if (o->pids && !argc) {	/* with a command, it says how long */
		st.pids = pids;
		st.npids = npids;
	}
	if ((!st.rec && (rc = loop__add_fd(&l, ft.pipe_fd, POLLIN, stream_drain, &st))) ||
	    (rc = loop__set_tick(&l, 200, stream_tick, &st)) ||
	    (o->duration > 0 && (rc = loop__set_duration(&l, o->duration)))) {
		error("cannot set up the event loop: %s", strerror(-rc));
		rc = 1;
		goto out;
	}
	if (argc) {
		child_held = false;
		if ((rc = opt__start_command(&w, argv)))
			goto out;
		loop__set_child(&l, w.pid);
	}
	/* until the command ends (ended by the loop if we stop first: traced to its exit), or we stop */
	end = loop__run(&l);
	rc = finish(&st, o, &l, end);
out:
	fgraph_fold__free(st.fold);
	tracedat_rec__free(st.rec);
	ftrace__close(&ft);
	if (child_held)
		workload__abort(&w);
	if (loop_ready)
		loop__fini(&l);	/* ends a command still running */
out_file:
	if (out != stdout && fclose(out)) {
		error("cannot write '%s': %s", o->output, strerror(errno));
		rc = rc ? rc : 1;
	}
	free(pids);
	return rc;
}

int cmd_ftrace(int argc, char **argv)
{
	struct ftrace_opts o = { .children = true };
	const struct opt opts[] = {
		OPT_GROUP("what to trace"),
		OPT_CALLBACK('e', "event", &o, "GROUP:EVENT", "tracepoints (globs; GROUP alone or EVENT alone; repeatable)", add_event),
		OPT_CALLBACK('u', "uprobe", &o, "BIN:FUNC", "a uprobe on a user function (or BIN:0xOFFSET) as an event", add_uprobe),
		OPT_CALLBACK(0, "uretprobe", &o, "BIN:FUNC", "a uprobe on the function's return", add_uretprobe),
		OPT_CALLBACK(0, "filter", &o, "EXPR", "filter for the -e/-u before it ('prev_pid == 1 && next_prio < 100')", add_filter),
		OPT_CALLBACK('f', "function", &o, "FUNC", "function tracer on the kernel functions matching FUNC (repeatable); with -G, the functions its trees show", add_func),
		OPT_CALLBACK(0, "notrace", &o, "FUNC", "leave out the functions matching FUNC (repeatable)", add_notrace),
		OPT_CALLBACK('G', "graph", &o, "FUNC", "function_graph: the call trees under FUNC, with durations (repeatable)", add_graph),
		OPT_INT(0, "max-depth", &o.max_depth, "N", "-G: calls N deep at most"),
		OPT_BOOL(0, "graph-time", &o.graph_time, "-G: durations include the time in traced children (options/graph-time)"),
		OPT_BOOL(0, "no-irq", &o.no_irq, "-G: leave out what interrupts run (funcgraph-irqs off)"),
		OPT_BOOL(0, "folded", &o.folded, "-G: write folded stacks of each frame's own ns, for sonde flame"),
		OPT_STRING(0, "hist", &o.hist, "SPEC", "a hist trigger on the one -e event (the kernel's syntax), its hist printed at the end"),
		OPT_BOOL(0, "hist-bpf", &o.hist_bpf, "--hist counted by sonde's BPF twin even where the kernel has hist triggers"),
		OPT_STRING(0, "latency", &o.latency, "TRACER", "a latency tracer (wakeup, wakeup_rt, irqsoff...): its max latency's trace"),
		OPT_INT(0, "thresh", &o.thresh, "US", "--latency: only latencies above US microseconds (tracing_thresh)"),
		OPT_GROUP("whom"),
		OPT_TARGET_PID(&o),
		OPT_BOOL(0, "children", &o.children, "follow the children of -p and of the command (default; --no-children)"),
		OPT_GROUP("how"),
		OPT_DURATION(&o.duration),
		OPT_STRING('o', "output", &o.output, "FILE", "write the trace to FILE"),
		OPT_INT('b', "buffer-size", &o.buffer_kb, "KB", "per-CPU buffer size in kB"),
		OPT_GROUP("lists"),
		OPT_BOOL(0, "list-events", &o.list_events, "list the tracepoints (matching the PATTERN argument)"),
		OPT_STRING(0, "list-functions", &o.list_functions, "PATTERN", "list the traceable kernel functions matching PATTERN"),
		OPT_VERBOSE(),
		OPT_END(),
	};
	int rc = 0;

	if (argc > 1 && !strcmp(argv[1], "report"))
		return ftrace_dat__report(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "record")) {
		o.record = true;
		argc--;
		argv++;
	}
	argc = opt__parse(argc, argv, opts, ftrace_usage, OPT_STOP_AT_NON_OPTION);
	if (o.record && !o.output)
		o.output = "trace.dat";
	if (o.list_events || o.list_functions) {
		if (argc > (o.list_events ? 1 : 0))
			opt__usage_error(ftrace_usage, opts, "unexpected argument '%s'", argv[o.list_events ? 1 : 0]);
		rc = list(&o, argc ? argv[0] : NULL);
	} else if (o.latency) {
		if (o.nr_ev || o.nr_funcs || o.nr_notrace || o.nr_graph || o.hist || o.record || o.pids || o.thresh < 0)
			opt__usage_error(ftrace_usage, opts, "--latency goes alone, with -d, --thresh US (>= 0), -o or a command");
		rc = ftrace_latency__run(o.latency, o.duration, (unsigned long)o.thresh, argv, argc, o.output);
	} else if (o.hist) {
		const char *why;

		if (o.nr_ev != 1 || o.ev[0].uprobe || o.ev[0].filter || o.nr_funcs || o.nr_notrace || o.nr_graph || o.record)
			opt__usage_error(ftrace_usage, opts, "--hist goes with one -e GROUP:EVENT (its filter after ' if ' in the spec), not -f, -G, -u, --filter or record");
		if (o.hist_bpf || !ftrace__feature_more("hist", &why))
			rc = ftrace_hist__bpf(o.hist, o.ev[0].spec, o.duration, o.pids, argv, argc, o.output, false);
		else
			rc = trace(&o, argc, argv);
	} else if (o.hist_bpf || o.thresh) {
		opt__usage_error(ftrace_usage, opts, "--hist-bpf goes with --hist, --thresh with --latency");
	} else if (!o.nr_ev && !o.nr_funcs && !o.nr_notrace && !o.nr_graph) {
		opt__usage_error(ftrace_usage, opts, "nothing to trace: give -e GROUP:EVENT, -u BIN:FUNC, -f FUNCTION or -G FUNCTION");
	} else if (!o.nr_graph && (o.max_depth || o.graph_time || o.no_irq || o.folded)) {
		opt__usage_error(ftrace_usage, opts, "--max-depth, --graph-time, --no-irq and --folded go with -G FUNC");
	} else if (o.max_depth < 0) {
		opt__usage_error(ftrace_usage, opts, "--max-depth %d: the depth cannot be negative", o.max_depth);
	} else if (o.record && (o.nr_graph || o.nr_funcs || o.nr_notrace || o.list_events || o.list_functions)) {
		opt__usage_error(ftrace_usage, opts, "record writes tracepoints and uprobes (-e, -u): not -f, -G or the lists");
	} else if (o.buffer_kb < 0) {
		opt__usage_error(ftrace_usage, opts, "-b %d: the buffer size cannot be negative", o.buffer_kb);
	} else {
		rc = trace(&o, argc, argv);
	}
	for (int i = 0; i < o.nr_ev; i++)
		free(o.ev[i].owned);
	free(o.ev);
	free(o.funcs);
	free(o.notrace);
	free(o.graph);
	return rc;
}
