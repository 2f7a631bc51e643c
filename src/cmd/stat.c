// SPDX-License-Identifier: GPL-2.0
/*
 * stat.c - `sonde stat`: count events for a command, processes, threads or CPUs,
 * and print them the way `perf stat` does.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/event/counter.h"
#include "lib/event/event.h"
#include "lib/event/statmodel.h"
#include "lib/loop/loop.h"
#include "lib/proc/target.h"
#include "lib/util.h"
#include "lib/proc/workload.h"
#include "ui/stat_print.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const char *const stat_usage[] = {
	"sonde stat [<options>] [--] <command> [<args>]",
	"sonde stat [<options>] -p PID | -t TID | -a [-- sleep N]",
	NULL,
};

struct stat_opts {
	struct evlist evl;
	struct target_opts to;
	const char *output, *sep;
	bool no_aggr, per_thread, json, append, big_num, scale, null_run;
	int interval_ms, interval_count, repeat, delay_ms, detailed;
	double duration;
	unsigned long long timeout_ms;
};

static struct stat_opts *the_opts;

static int parse_event_opt(const struct opt *o, const char *arg)
{
	char err[512];
	int rc;

	(void)o;
	rc = evlist__parse(&the_opts->evl, arg, err, sizeof(err));
	if (rc) {
		error("%s", err);
		return -1;
	}
	return 0;
}

static int add_detailed(struct evlist *l, int level)
{
	static const char *const d1 = "L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses";
	static const char *const d2 = "L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,iTLB-loads,iTLB-load-misses";
	static const char *const d3 = "L1-dcache-prefetches,L1-dcache-prefetch-misses";
	int rc = 0;

	if (level >= 1)
		rc = evlist__parse(l, d1, NULL, 0);
	if (!rc && level >= 2)
		rc = evlist__parse(l, d2, NULL, 0);
	if (!rc && level >= 3)
		rc = evlist__parse(l, d3, NULL, 0);
	return rc;
}

/* what the header names: "'ls -l'", "process id '12'", "'system wide'" */
static char *describe(const struct stat_opts *o, int argc, char **argv)
{
	size_t len = 64;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	len += (o->to.pids ? strlen(o->to.pids) : 0) + (o->to.tids ? strlen(o->to.tids) : 0) +
	       (o->to.cpus ? strlen(o->to.cpus) : 0);
	s = malloc(len);
	if (!s)
		return NULL;
	if (o->to.pids)
		snprintf(s, len, "process id '%s'", o->to.pids);
	else if (o->to.tids)
		snprintf(s, len, "thread id '%s'", o->to.tids);
	else if (o->to.cpus)
		snprintf(s, len, "'CPU(s) %s'", o->to.cpus);
	else if (o->to.all)
		snprintf(s, len, "'system wide'");
	else {
		p = s;
		*p++ = '\'';
		for (int i = 0; i < argc; i++)
			p += sprintf(p, "%s%s", i ? " " : "", argv[i]);
		*p++ = '\'';
		*p = 0;
	}
	return s;
}

struct run_result {
	int exit_code;		/* the command's, or 0 */
	bool interrupted;	/* a signal stopped the run: no more repeats */
	bool ru_valid;
	double user_s, sys_s;
};

struct interval {
	struct stat_opts *o;
	struct counters *c;
	struct stat_model *m;
	const struct stat_print *pr;
	double t0, t_last;
	int n;
};

/* -I: one row per interval; 1 (stop) after -I's count */
static int interval_tick(void *ctx, int fd, short revents)
{
	struct interval *iv = ctx;
	double tn = (double)util__now_ns();

	(void)fd;
	(void)revents;
	counters__read(iv->c);
	iv->m->wall_ns = tn - iv->t_last;
	iv->t_last = tn;
	statmodel__take(iv->m, iv->c, true, false);
	stat_print__rows(iv->pr, iv->m, (tn - iv->t0) / 1e9);
	fflush(iv->pr->out);
	return iv->o->interval_count && ++iv->n >= iv->o->interval_count;
}

/*
 * One counting run: start the command (if any), count until it ends, the
 * duration passes or a signal arrives, printing interval rows on the way.
 */
/* at the end of a run: the counts into the model (with -I, the last partial interval's row) */
static void take_counts(struct interval *iv)
{
	const struct stat_opts *o = iv->o;
	struct stat_model *m = iv->m;
	double t_end = (double)util__now_ns();

	counters__read(iv->c);
	if (o->interval_ms && t_end - iv->t_last > 1e6 && !(o->interval_count && iv->n >= o->interval_count)) {
		/* the last partial interval, as perf prints it */
		m->wall_ns = t_end - iv->t_last;
		statmodel__take(m, iv->c, true, false);
		stat_print__rows(iv->pr, m, (t_end - iv->t0) / 1e9);
	}
	if (!o->interval_ms) {
		m->wall_ns = t_end - iv->t0;
		statmodel__take(m, iv->c, false, o->repeat > 1);
	}
	runstat__add(&m->wall, t_end - iv->t0);
}

static int stat_run(struct stat_opts *o, struct target *t, int argc, char **argv,
		    struct stat_model *m, bool *model_ready, const struct stat_print *pr,
		    struct run_result *res)
{
	struct counters c;
	struct workload w = { .pid = 0, .go_fd = -1, .err_fd = -1 };
	struct interval iv = { .o = o, .c = &c, .m = m, .pr = pr };
	struct loop l;
	enum loop_end end;
	bool counted_child = false;
	char err[512];
	int rc;

	memset(res, 0, sizeof(*res));
	if (argc) {
		rc = workload__prepare(&w, argv);
		if (rc) {
			error("cannot start '%s': %s", argv[0], strerror(-rc));
			return -1;
		}
		if (!t->system_wide && !t->nr_tids) {
			t->child = w.pid;
			counted_child = true;
		}
	}
	rc = counters__open(&c, &o->evl, t, err, sizeof(err));
	if (rc) {
		error("%s", err);
		if (argc)
			workload__abort(&w);
		return -1;
	}
	if (verbose >= 2)
		for (int e = 0; e < o->evl.nr; e++) {
			const struct perf_event_attr *a = &o->evl.ev[e].attr;

			debug(2, "event '%s': type %u config %#llx config1 %#llx exclude_user %u exclude_kernel %u%s",
			      o->evl.ev[e].name, a->type, (unsigned long long)a->config,
			      (unsigned long long)a->config1, a->exclude_user, a->exclude_kernel,
			      c.status[e] == CNT_OK ? "" : " (not supported)");
		}
	if (c.user_only_fallback)
		debug(1, "kernel counting is not allowed here: counting user space only (kernel.perf_event_paranoid)");
	if (!*model_ready) {
		rc = statmodel__init(m, &o->evl, &c, o->no_aggr ? AGGR_CPU : o->per_thread ? AGGR_THREAD : AGGR_GLOBAL);
		if (rc) {
			error("out of memory");
			counters__close(&c);
			if (argc)
				workload__abort(&w);
			return -1;
		}
		*model_ready = true;
	}

	rc = loop__init(&l);
	if (!rc && o->interval_ms)	/* -I's rows to a pipe whose reader is gone: the end */
		loop__watch_output(&l, fileno(pr->out));
	if (!rc && (o->duration > 0 || o->timeout_ms))
		rc = loop__set_duration(&l, o->duration > 0 ? o->duration : (double)o->timeout_ms / 1e3);
	if (!rc && o->delay_ms > 0 && !argc)
		usleep(o->delay_ms * 1000);
	/* the rows' times count from before the timer starts: the first is -I's interval or more, as perf's */
	iv.t0 = (double)util__now_ns();
	if (!rc && o->interval_ms)
		rc = loop__set_tick(&l, o->interval_ms, interval_tick, &iv);
	if (rc) {
		error("cannot set up the event loop: %s", strerror(-rc));
		loop__fini(&l);
		counters__close(&c);
		if (argc)
			workload__abort(&w);
		return -1;
	}
	if (!counted_child)
		counters__enable(&c);
	if (argc) {
		if ((rc = opt__start_command(&w, argv))) {
			counters__close(&c);
			loop__fini(&l);
			return -rc;
		}
		loop__set_child(&l, w.pid);
	}
	iv.t_last = iv.t0;
	end = loop__run(&l);	/* a command is ended there if we stop first, and reaped */
	if (end == LOOP_ERROR)
		debug(1, "the event loop failed: %s", strerror(-l.err));
	take_counts(&iv);
	counters__close(&c);
	if (argc && l.child_reaped) {
		res->ru_valid = !t->system_wide;
		res->user_s = l.child_ru.ru_utime.tv_sec + l.child_ru.ru_utime.tv_usec / 1e6;
		res->sys_s = l.child_ru.ru_stime.tv_sec + l.child_ru.ru_stime.tv_usec / 1e6;
	}
	res->exit_code = loop__exit_code(&l, end);
	res->interrupted = end == LOOP_SIGNAL;
	loop__fini(&l);
	return 0;
}

/* the printer: -o FILE (else stderr), the format, perf's thousands separator; -1 when FILE cannot be opened (said) */
static int setup_print(const struct stat_opts *o, struct stat_print *pr)
{
	pr->out = stderr;
	if (o->output) {
		int fd = open(o->output, O_WRONLY | O_CREAT | O_CLOEXEC | (o->append ? O_APPEND : O_TRUNC), 0600);
		FILE *f = fd < 0 ? NULL : fdopen(fd, o->append ? "a" : "w");

		if (!f) {
			error("cannot open '%s' for writing: %s", o->output, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		pr->out = f;
	}
	pr->fmt = o->json ? STAT_JSON : o->sep ? STAT_CSV : STAT_STD;
	pr->sep = o->sep ? o->sep : " ";
	pr->runs = o->repeat;
	if (o->big_num)
		pr->thousands = stat_print__thousands_sep();
	pr->no_scale = !o->scale;
	return 0;
}

/* the combinations opt__parse cannot check alone */
static void check_options(const struct stat_opts *o, const struct opt *opts, bool have_cmd)
{
	if (o->no_aggr && !o->to.all && !o->to.cpus)
		opt__usage_error(stat_usage, opts, "-A/--no-aggr shows one row per CPU: it needs -a or -C");
	if (o->per_thread && !o->to.pids && !o->to.tids)
		opt__usage_error(stat_usage, opts, "--per-thread needs -p or -t");
	if (o->no_aggr && o->per_thread)
		opt__usage_error(stat_usage, opts, "-A and --per-thread cannot be combined");
	if (o->interval_ms && o->interval_ms < 10)
		opt__usage_error(stat_usage, opts, "-I %d: the interval must be at least 10 ms", o->interval_ms);
	if (o->interval_ms < 0 || o->interval_count < 0)
		opt__usage_error(stat_usage, opts, "intervals cannot be negative");
	if (o->repeat < 1 || o->repeat > 100)
		opt__usage_error(stat_usage, opts, "-r %d: repeat between 1 and 100 times", o->repeat);
	if (o->repeat > 1 && !have_cmd)
		opt__usage_error(stat_usage, opts, "-r repeats a command: give one");
	if (o->repeat > 1 && o->interval_ms)
		opt__usage_error(stat_usage, opts, "-r and -I cannot be combined");
	if (o->json && o->sep)
		opt__usage_error(stat_usage, opts, "-x and --json cannot be combined");
	if (o->sep && !*o->sep)
		opt__usage_error(stat_usage, opts, "-x needs a separator");
}

/*
 * The options into o, checked (a usage error exits 129), and the targets into
 * t; returns how many words are left (the command), or -1 when a pid or tid
 * does not exist (said).
 */
static int parse_options(struct stat_opts *o, struct target *t, int argc, char **argv)
{
	const struct opt opts[] = {
		OPT_GROUP("what to count"),
		OPT_CALLBACK('e', "event", NULL, "EVENT", "event selector; see 'sonde list' (repeatable, comma lists, {groups}, :u/:k)", parse_event_opt),
		OPT_COUNT('d', "detailed", &o->detailed, "add cache events (-dd, -ddd for more)"),
		OPT_BOOL('n', "null", &o->null_run, "count nothing, only time the command"),
		OPT_GROUP("whom to count"),
		OPT_TARGET(&o->to),
		OPT_DURATION(&o->duration),
		OPT_UINT64(0, "timeout", &o->timeout_ms, "MS", "stop after this many milliseconds (perf's spelling)"),
		OPT_INT('D', "delay", &o->delay_ms, "MS", "wait this long before counting an attached target"),
		OPT_INT('r', "repeat", &o->repeat, "N", "run the command N times; show mean and variance"),
		OPT_GROUP("how to show it"),
		OPT_BOOL('A', "no-aggr", &o->no_aggr, "one row per CPU (with -a or -C)"),
		OPT_BOOL(0, "per-thread", &o->per_thread, "one row per thread (with -p or -t)"),
		OPT_INT('I', "interval-print", &o->interval_ms, "MS", "print the counts every MS milliseconds (>= 10)"),
		OPT_INT(0, "interval-count", &o->interval_count, "N", "stop after N intervals"),
		OPT_STRING('x', "field-separator", &o->sep, "SEP", "CSV-like output with this separator"),
		OPT_BOOL('j', "json-output", &o->json, "one JSON object per line"),
		OPT_BOOL(0, "json", &o->json, "same as --json-output"),
		OPT_BOOL('B', "big-num", &o->big_num, "thousands separators (the default; --no-big-num)"),
		OPT_BOOL(0, "scale", &o->scale, "scale multiplexed counts (the default; --no-scale)"),
		OPT_STRING('o', "output", &o->output, "FILE", "write to FILE instead of stderr"),
		OPT_BOOL(0, "append", &o->append, "append to the -o file"),
		OPT_VERBOSE(),
		OPT_END(),
	};

	o->to.verb = "count";
	o->to.accept = TARGET_PID | TARGET_TID | TARGET_ALL | TARGET_CPU;
	argc = opt__parse_target(argc, argv, opts, stat_usage, OPT_STOP_AT_NON_OPTION, &o->to, t);
	if (argc < 0)
		return -1;
	check_options(o, opts, argc > 0);
	return argc;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { .sep = NULL, .big_num = true, .scale = true, .repeat = 1 };
	struct target t = { 0 };
	struct stat_model m;
	bool model_ready = false;
	struct stat_print pr = { 0 };
	struct run_result res = { 0 };
	FILE *out = stderr;
	char *what = NULL;
	int rc = 1, run;

	the_opts = &o;
	argc = parse_options(&o, &t, argc, argv);
	if (argc < 0)
		goto out;

	if (!o.null_run && !o.evl.nr && evlist__add_default(&o.evl, t.system_wide)) {
		error("cannot set up the default events");
		goto out;
	}
	if (o.detailed && add_detailed(&o.evl, o.detailed)) {
		error("cannot set up the detailed events");
		goto out;
	}

	if (setup_print(&o, &pr))
		goto out;
	out = pr.out;

	if (o.interval_ms) {
		/* the row shapes come from the first run's counters */
		stat_print__interval_header(&pr, o.no_aggr ? AGGR_CPU : o.per_thread ? AGGR_THREAD : AGGR_GLOBAL);
	}
	signal(SIGPIPE, SIG_IGN);
	for (run = 0; run < o.repeat; run++) {
		rc = stat_run(&o, &t, argc, argv, &m, &model_ready, &pr, &res);
		if (rc < 0) {
			rc = rc == -1 ? 1 : -rc;
			goto out;
		}
		if (o.repeat > 1 && res.exit_code && argc) {
			/* perf goes on; say it once so a failing benchmark is not hidden */
			if (run == 0)
				warning("'%s' exited with %d", argv[0], res.exit_code);
		}
		if (res.interrupted)
			break;
	}
	if (!o.interval_ms) {
		what = describe(&o, argc, argv);
		stat_print__header(&pr, what ? what : "''", o.repeat);
		stat_print__rows(&pr, &m, -1);
		stat_print__footer(&pr, &m, res.ru_valid && o.repeat == 1, res.user_s, res.sys_s);
	}
	rc = res.exit_code;
out:
	if (fflush(out) || ferror(out)) {
		error("cannot write the counts: %s", strerror(errno));
		rc = rc ? rc : 1;
	}
	if (out != stderr)
		fclose(out);
	free(what);
	if (model_ready)
		statmodel__free(&m);
	evlist__free(&o.evl);
	target__free(&t);
	return rc;
}
