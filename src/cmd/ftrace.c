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
#include "lib/proc/target.h"
#include "lib/proc/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const ftrace_usage[] = {
	"sonde ftrace -e GROUP:EVENT [--filter EXPR] [-u BIN:FUNC] [-f FUNC] [-p PID | [--] <command> [<args>]]",
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
	char **funcs, **notrace;
	int nr_funcs, nr_notrace;
	const char *pids, *output, *list_functions;
	bool list_events, children;
	double duration;
	int buffer_kb;
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

/* copy what trace_pipe has now to out; -1 when out cannot be written */
static int drain(int fd, FILE *out, unsigned long long *bytes)
{
	static char buf[1 << 16];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (fwrite(buf, 1, n, out) != (size_t)n)
			return -1;
		*bytes += n;
	}
}

/* SIGTERM, then SIGKILL after a second, and reap */
static void end_child(pid_t pid, int *status)
{
	kill(pid, SIGTERM);
	for (int i = 0; i < 100; i++) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
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
	if (o->nr_funcs || o->nr_notrace) {
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

static int trace(struct ftrace_opts *o, int argc, char **argv)
{
	struct ftrace ft;
	struct workload w = { .pid = 0, .go_fd = -1, .err_fd = -1 };
	pid_t *pids = NULL;
	int npids = 0, sfd = -1, dfd = -1, rc = 1, status = 0;
	bool child_running = false, child_held = false, stop = false;
	unsigned long long bytes = 0, lost;
	FILE *out = stdout;
	char err[600];
	sigset_t mask;

	if (o->pids) {
		struct target tg;
		struct target_opts to = { .pids = o->pids, .have_cmd = argc > 0 };

		if (opt__target(&tg, &to, ftrace_usage)) {
			target__free(&tg);
			return 1;
		}
		/* every thread of each process: set_event_pid filters by thread id */
		pids = tg.tids;
		npids = tg.nr_tids;
		tg.tids = NULL;
		target__free(&tg);
	}
	if (o->output) {
		out = fopen(o->output, "we");
		if (!out) {
			error("cannot open '%s': %s", o->output, strerror(errno));
			free(pids);
			return 1;
		}
	}

	/* from here on, every way out goes through ftrace__close() */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed output ends the trace, it must not kill us mid-way */
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);

	if (ftrace__open(&ft, err, sizeof(err))) {
		error("%s", err);
		goto out;
	}
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
	if (ftrace__start(&ft, err, sizeof(err))) {
		error("%s", err);
		goto out;
	}
	if (o->duration > 0) {
		dfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		util__timer_arm(dfd, (long long)((o->duration) * 1e9), false);
	}
	if (argc) {
		int r = workload__start(&w);

		child_held = false;
		if (r) {
			error("cannot run '%s': %s", argv[0], strerror(-r));
			waitpid(w.pid, NULL, 0);
			w.pid = 0;
			rc = r == -ENOENT ? 127 : 126;
			goto out;
		}
		child_running = true;
	}
	rc = 0;
	while (!stop) {
		struct pollfd pf[3] = {
			{ ft.pipe_fd, POLLIN, 0 }, { sfd, POLLIN, 0 }, { dfd, POLLIN, 0 },
		};

		if (poll(pf, 3, 200) < 0 && errno != EINTR)
			break;
		if (drain(ft.pipe_fd, out, &bytes)) {
			stop = true;	/* the reader went away (EPIPE) or the disk is full */
			if (errno != EPIPE)
				error("cannot write the trace: %s", strerror(errno));
			break;
		}
		if (pf[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo != SIGCHLD)
					stop = true;
				else if (child_running && waitpid(w.pid, &status, WNOHANG) == w.pid) {
					child_running = false;
					rc = workload__exit_code(status);
					stop = true;
				}
			}
		}
		if (pf[2].revents & POLLIN)
			stop = true;
		if (o->pids && !argc && !target__any_alive(pids, npids))
			stop = true;	/* everything traced has exited */
	}
	if (child_running) {
		/* stopped early (Ctrl-C, --duration, SIGTERM): end the command as perf record does, traced to its exit */
		end_child(w.pid, &status);
		child_running = false;
		rc = workload__exit_code(status);
	}
	ftrace__stop(&ft);
	if (drain(ft.pipe_fd, out, &bytes) && errno != EPIPE)
		error("cannot write the trace: %s", strerror(errno));
	lost = ftrace__overruns(&ft);
	if (lost)
		warning("%llu events were lost: the buffers filled faster than they were read (a larger -b KB per CPU helps)",
			lost);
	debug(1, "%llu bytes of trace", bytes);
out:
	ftrace__close(&ft);
	if (child_held)
		workload__abort(&w);
	if (child_running)
		end_child(w.pid, &status);
	if (out != stdout && fclose(out)) {
		error("cannot write '%s': %s", o->output, strerror(errno));
		rc = rc ? rc : 1;
	}
	if (dfd >= 0)
		close(dfd);
	if (sfd >= 0)
		close(sfd);
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
		OPT_CALLBACK('f', "function", &o, "FUNC", "function tracer on the kernel functions matching FUNC (repeatable)", add_func),
		OPT_CALLBACK(0, "notrace", &o, "FUNC", "leave out the functions matching FUNC (repeatable)", add_notrace),
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

	argc = opt__parse(argc, argv, opts, ftrace_usage, OPT_STOP_AT_NON_OPTION);
	if (o.list_events || o.list_functions) {
		if (argc > (o.list_events ? 1 : 0))
			opt__usage_error(ftrace_usage, opts, "unexpected argument '%s'", argv[o.list_events ? 1 : 0]);
		rc = list(&o, argc ? argv[0] : NULL);
	} else if (!o.nr_ev && !o.nr_funcs && !o.nr_notrace) {
		opt__usage_error(ftrace_usage, opts, "nothing to trace: give -e GROUP:EVENT, -u BIN:FUNC or -f FUNCTION");
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
	return rc;
}
