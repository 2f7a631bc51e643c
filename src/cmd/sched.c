// SPDX-License-Identifier: GPL-2.0
/*
 * sched.c - `sonde sched`: perf sched's surface. `record` writes the sched
 * tracepoints of the whole system into a perf.data (sonde record does the
 * recording, as perf sched record hands its work to perf record); `latency`,
 * `timehist` (with -s/-S its summary), `map` and `replay` read it, or perf's
 * own `perf sched record` files, and print what perf sched prints; `latency
 * --hist` adds runqlat's histograms per task with their percentiles.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/sched/sched.h"
#include "lib/tracefs/tracefs.h"
#include "ui/sched_print.h"
#include "cmd/probe.h"
#include "lang/lang.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const sched_usage[] = {
	"sonde sched record [<options>] [-a | -p PID | -- <command> [<args>]]",
	"sonde sched latency [-i FILE] [-s KEYS] [-p] [--hist] | --live [-p] [-- <command>]",
	"sonde sched timehist [-i FILE] [-w] [-V] [-M] [-n] [--state] [-s | -S]",
	"sonde sched map [-i FILE]",
	"sonde sched replay [-i FILE] [-r N]",
	NULL,
};

/* what perf sched's readers use; sched_wakeup rather than perf's sched_waking, as
   perf sched latency reads only sched_wakeup (timehist reads either) */
static const char *const record_events[] = {
	"sched_switch", "sched_stat_runtime", "sched_process_fork", "sched_process_exit",
	"sched_wakeup", "sched_wakeup_new", "sched_migrate_task",
};

static int sched_record(int argc, char **argv)
{
	static const char *const usage[] = {
		"sonde sched record [-o FILE] [--duration S] [-a | -p PID | -- <command> [<args>]]", NULL,
	};
	const char *output = "sonde.data", *pid = NULL;
	double duration = 0;
	bool all = false, quiet = false;
	const struct opt opts[] = {
		OPT_STRING('o', "output", &output, "FILE", "write to FILE (default sonde.data)"),
		OPT_BOOL('q', "quiet", &quiet, "no status line and no summary"),
		OPT_BOOL('a', "all-cpus", &all, "the whole system until Ctrl-C (the default; always system-wide)"),
		OPT_STRING('p', "pid", &pid, "PID", "the whole system until process PID ends"),
		OPT_DURATION(&duration),
		OPT_VERBOSE(),
		OPT_END(),
	};
	const char *args[64];
	char dur[32];
	int n = 0, nev = 0;

	argc = opt__parse(argc, argv, opts, usage, OPT_STOP_AT_NON_OPTION);
	if (pid && argc)
		opt__usage_error(usage, opts, "-p and a command cannot be combined");
	if (argc > 32)
		opt__usage_error(usage, opts, "too many arguments");
	args[n++] = "record";
	args[n++] = "-a";
	args[n++] = "-m";
	args[n++] = "1024";
	for (size_t i = 0; i < sizeof(record_events) / sizeof(*record_events); i++) {
		static char names[8][48];

		if (tracefs__event_id("sched", record_events[i]) < 0)
			continue;
		snprintf(names[nev], sizeof(names[nev]), "sched:%s", record_events[i]);
		args[n++] = "-e";
		args[n++] = names[nev++];
	}
	if (!nev || tracefs__event_id("sched", "sched_switch") < 0) {
		error("cannot record the scheduler: no sched:sched_switch tracepoint (is tracefs mounted?)");
		return 1;
	}
	args[n++] = "-o";
	args[n++] = output;
	if (quiet)
		args[n++] = "-q";
	if (duration > 0) {
		snprintf(dur, sizeof(dur), "%g", duration);
		args[n++] = "--duration";
		args[n++] = dur;
	}
	if (pid) {
		args[n++] = "--until-exit";
		args[n++] = pid;
	}
	if (argc) {
		args[n++] = "--";
		for (int i = 0; i < argc; i++)
			args[n++] = argv[i];
	}
	args[n] = NULL;
	return cmd_record(n, (char **)args);
}

static struct sched_reader *open_input(const char *input)
{
	struct sched_reader *r;
	char err[512];

	if (!input)
		input = default_recording();
	if (sched_reader__open(&r, input, err, sizeof(err))) {
		error("cannot read '%s': %s", input, err);
		return NULL;
	}
	return r;
}

/*
 * latency --live: the delays measured in the kernel, one log2 histogram per
 * process (per thread with -p) in BPF maps, printed as runqlat -P (-L) prints
 * them: a long run costs what a short one does; per cgroup (v2, its name) with
 * --cgroup. A task is queued at its wakeup or when it is preempted (left the
 * CPU runnable) and counted at its switch-in, as runqlat counts; the key also
 * holds the name, so a process that execs has a histogram per name. One map
 * lookup and one read of next's pid a switch (a missing key reads 0, and no
 * task is queued at time 0); prev is the current task there, its pid `tid`. %s: the filter on the started command, the key,
 * the duration probe, the label.
 */
static const char live_prog[] =
	"config = { print_maps_on_exit = false }\n"
	"BEGIN { printf(\"Tracing run queue latency... Hit Ctrl-C to end.\\n\"); }\n"
	"rawtracepoint:sched_wakeup, rawtracepoint:sched_wakeup_new\n"
	"{ $p = (struct task_struct *)arg0; @qtime[$p->pid] = nsecs; }\n"
	"rawtracepoint:sched_switch\n"
	"{\n"
	"	$prev = (struct task_struct *)arg1;\n"
	"	$next = (struct task_struct *)arg2;\n"
	"	if ($prev->__state == 0) { @qtime[tid] = nsecs; }\n"
	"	$np = $next->pid;\n"
	"	$t = @qtime[$np];\n"
	"	if ($t%s) {\n"
	"		@lat[%s] = hist((nsecs - $t) / 1000);\n"
	"		delete(@qtime[$np]);\n"
	"	}\n"
	"}\n"
	"%s"
	"END { print_log2_hist(@lat, \"usecs\", \"%s\"); clear(@qtime); }\n";

enum live_key { LIVE_PROCESS, LIVE_THREAD, LIVE_CGROUP };

static int sched_live(enum live_key key, double duration, bool percentiles, int argc, char **argv)
{
	char src[2048], dur[128] = "", cmd[4096] = "";
	struct probe_job job = { .file = "sched-live.bt", .quiet = true, .mode = MODE_RUN, .percentiles = percentiles };
	size_t n = 0;
	int rc;

	for (int i = 0; i < argc && n < sizeof(cmd) - 1; i++)
		n += snprintf(cmd + n, sizeof(cmd) - n, "%s%s", i ? " " : "", argv[i]);
	if (duration > 0)
		snprintf(dur, sizeof(dur), "interval:ms:%lld { exit(); }\n", (long long)(duration * 1000 + 0.5));
	static const char *const keys[] = {
		[LIVE_PROCESS] = "$next->tgid, $next->comm",
		[LIVE_THREAD] = "$np, $next->comm",
		[LIVE_CGROUP] = "str($next->cgroups->dfl_cgrp->kn->name)",
	}, *labels[] = { "pid", "tid", "cgroup" };

	snprintf(src, sizeof(src), live_prog, argc ? " && $next->tgid == cpid" : "", keys[key], dur, labels[key]);
	job.src = src;
	job.len = strlen(src);
	job.cmd = argc ? cmd : NULL;
	job.cmd_argv = argc ? argv : NULL;
	setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
	rc = probe__run(&job);
	if (job.interrupted) {
		signal(job.interrupted, SIG_DFL);
		raise(job.interrupted);
	}
	return rc;
}

static int sched_latency(int argc, char **argv)
{
	static const char *const usage[] = {
		"sonde sched latency [-i FILE] [-s KEYS] [-p] [-C CPU] [--hist]",
		"sonde sched latency --live [-p | --cgroup] [--percentiles] [--duration S] [-- <command> [<args>]]",
		NULL,
	};
	const char *input = NULL, *sort = "avg,max,switch,runtime";
	bool per_pid = false, live = false, cgroup = false, hist = false, percentiles = false;
	double duration = 0;
	int cpu = -1, nkeys = 0, rc;
	const struct opt opts[] = {
		OPT_STRING('i', "input", &input, "FILE", "the recording (default sonde.data, or perf.data)"),
		OPT_STRING('s', "sort", &sort, "KEYS", "sort by keys: runtime, switch, avg, max, pid "
			   "(default avg,max,switch,runtime)"),
		OPT_BOOL('p', "pids", &per_pid, "a row per task instead of per command name"),
		OPT_INT('C', "CPU", &cpu, "CPU", "delays as seen from that CPU alone (perf's -C)"),
		OPT_BOOL(0, "hist", &hist, "instead of the table: per row, runqlat's histogram of the delays "
			 "and their p50/p90/p99/p999/max"),
		OPT_GROUP("in the kernel, with no recording"),
		OPT_BOOL(0, "live", &live, "histograms of the delays per process (per thread with -p) kept in "
			 "BPF maps, printed as runqlat -P prints them at Ctrl-C, after --duration, or when the "
			 "command ends"),
		OPT_BOOL(0, "cgroup", &cgroup, "with --live: a histogram per cgroup (v2; its name, the root's empty)"),
		OPT_BOOL(0, "percentiles", &percentiles, "with --live: p50/p90/p99/p999 and the exact max under each "
			 "histogram (--hist has them)"),
		OPT_DURATION(&duration),
		OPT_VERBOSE(),
		OPT_END(),
	};
	enum sched_lat_key keys[16];
	struct sched_reader *r;
	struct sched_lat l;
	char *s, *tok, *save = NULL;

	argc = opt__parse(argc, argv, opts, usage, live ? OPT_STOP_AT_NON_OPTION : 0);
	if (cgroup && (!live || per_pid))
		opt__usage_error(usage, opts, "--cgroup goes with --live, without -p");
	if (hist && live)
		opt__usage_error(usage, opts, "--hist reads a recording; --live prints histograms already");
	if (percentiles && !live)
		opt__usage_error(usage, opts, "--percentiles goes with --live; --hist prints them from a recording");
	if (live)
		return sched_live(cgroup ? LIVE_CGROUP : per_pid ? LIVE_THREAD : LIVE_PROCESS, duration, percentiles,
				  argc, argv);
	if (argc)
		opt__usage_error(usage, opts, "unexpected argument '%s'", argv[0]);
	s = strdup(sort);
	for (tok = strtok_r(s, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		int k = sched_lat__key(tok);

		if (k < 0) {
			error("unknown --sort key '%s': give runtime, switch, avg, max or pid", tok);
			free(s);
			opt__see_help(usage);
		}
		if (nkeys < 16)
			keys[nkeys++] = k;
	}
	free(s);
	r = open_input(input);
	if (!r)
		return 1;
	rc = sched_lat__compute(r, keys, nkeys, per_pid, cpu, &l);
	if (rc) {
		error("cannot read the recording: %s", strerror(-rc));
		sched_reader__free(r);
		return 1;
	}
	if (hist)
		sched_print__latency_hist(stdout, &l, per_pid);
	else
		sched_print__latency(stdout, &l);
	sched_lat__free(&l);
	sched_reader__free(r);
	return 0;
}

/* timehist -s: the lines are counted, not printed; but for the lost events, as perf's */
static int th_lost(const struct sched_th_line *l, void *ctx)
{
	return l->kind == SCHED_TH_LOST ? sched_print__th_line(l, ctx) : 0;
}

static int sched_timehist(int argc, char **argv)
{
	static const char *const usage[] = {
		"sonde sched timehist [-i FILE] [-w] [-V] [-M] [-n] [--state] [-s | -S]", NULL,
	};
	const char *input = NULL;
	bool summary = false, with_summary = false;
	struct sched_th_opts o = { 0 };
	struct sched_th_print p = { .out = stdout, .comm_width = 30 };
	const struct opt opts[] = {
		OPT_STRING('i', "input", &input, "FILE", "the recording (default sonde.data, or perf.data)"),
		OPT_BOOL('w', "wakeups", &p.wakeups, "show the wakeups"),
		OPT_BOOL('M', "migrations", &o.migrations, "show the migrations"),
		OPT_BOOL('n', "next", &p.next, "show the task switched in"),
		OPT_BOOL('V', "cpu-visual", &p.visual, "a column per CPU: s a switch, i idle, m a migration"),
		OPT_BOOL(0, "state", &p.state, "the state the task left the CPU in (R, S, D...)"),
		OPT_BOOL('s', "summary", &summary, "only the per-task summary: switches, run times, idle time"),
		OPT_BOOL('S', "with-summary", &with_summary, "the lines, then the summary"),
		OPT_VERBOSE(),
		OPT_END(),
	};
	struct sched_reader *r;
	struct sched_th_summary sum = { 0 };
	int max_cpu, rc;

	argc = opt__parse(argc, argv, opts, usage, 0);
	if (argc)
		opt__usage_error(usage, opts, "unexpected argument '%s'", argv[0]);
	if (summary && with_summary)
		opt__usage_error(usage, opts, "give one of -s and -S");
	o.wakeups = p.wakeups && !summary;	/* perf -s: no line at all */
	o.summary = summary || with_summary ? &sum : NULL;
	r = open_input(input);
	if (!r)
		return 1;
	max_cpu = sched_reader__nr_cpus(r) ? sched_reader__nr_cpus(r) : 4;
	p.max_cpu = &max_cpu;
	if (!summary)
		sched_print__th_header(&p);
	rc = sched_th__run(r, &o, &max_cpu, summary ? th_lost : sched_print__th_line, &p);
	if (rc >= 0 && o.summary)
		sched_print__th_summary(&p, &sum);
	sched_th_summary__free(&sum);
	sched_reader__free(r);
	if (rc < 0) {
		error("cannot read the recording: %s", strerror(-rc));
		return 1;
	}
	return 0;
}

static int sched_map(int argc, char **argv)
{
	static const char *const usage[] = { "sonde sched map [-i FILE]", NULL };
	const char *input = NULL;
	const struct opt opts[] = {
		OPT_STRING('i', "input", &input, "FILE", "the recording (default sonde.data, or perf.data)"),
		OPT_VERBOSE(),
		OPT_END(),
	};
	struct sched_reader *r;
	int rc;

	argc = opt__parse(argc, argv, opts, usage, 0);
	if (argc)
		opt__usage_error(usage, opts, "unexpected argument '%s'", argv[0]);
	r = open_input(input);
	if (!r)
		return 1;
	/* perf's columns: the CPUs this machine has */
	rc = sched_map__run(r, (int)sysconf(_SC_NPROCESSORS_CONF), sched_print__map_line, stdout);
	sched_reader__free(r);
	if (rc < 0) {
		error("cannot read the recording: %s", strerror(-rc));
		return 1;
	}
	return 0;
}

/* perf sched replay: the recording's tasks played again by threads, -r times */
static int sched_replay(int argc, char **argv)
{
	static const char *const usage[] = { "sonde sched replay [-i FILE] [-r N]", NULL };
	const char *input = NULL;
	int repeat = 10, rc;
	const struct opt opts[] = {
		OPT_STRING('i', "input", &input, "FILE", "the recording (default sonde.data, or perf.data)"),
		OPT_INT('r', "repeat", &repeat, "N", "play the workload N times (10)"),
		OPT_VERBOSE(),
		OPT_END(),
	};
	struct sched_replay_calib calib;
	struct sched_replay_avg avg = { 0 };
	struct sched_replay *rp;
	struct sched_reader *r;

	argc = opt__parse(argc, argv, opts, usage, 0);
	if (argc)
		opt__usage_error(usage, opts, "unexpected argument '%s'", argv[0]);
	if (repeat < 1)
		opt__usage_error(usage, opts, "-r takes a number of rounds, 1 or more");
	r = open_input(input);
	if (!r)
		return 1;
	rc = sched_replay__build(r, &rp);
	sched_reader__free(r);
	if (rc) {
		error("cannot read the recording: %s", strerror(-rc));
		return 1;
	}
	sched_replay__calibrate(rp, &calib);
	sched_print__replay_head(stdout, &calib, rp);
	rc = sched_replay__start(rp);
	if (rc) {
		error("cannot start a thread per task (%zu of them): %s", sched_replay__nr_tasks(rp), strerror(-rc));
		sched_replay__free(rp);
		return 1;
	}
	printf("------------------------------------------------------------\n");
	fflush(stdout);
	for (int i = 0; i < repeat; i++) {
		uint64_t wall, cpu;

		sched_replay__round(rp, &wall, &cpu);
		sched_print__replay_round(stdout, &avg, (unsigned)repeat, wall, cpu);
		fflush(stdout);
	}
	sched_replay__free(rp);
	return 0;
}

int cmd_sched(int argc, char **argv)
{
	static const struct { const char *name; int (*fn)(int, char **); } subs[] = {
		{ "record", sched_record },
		{ "latency", sched_latency }, { "lat", sched_latency },
		{ "timehist", sched_timehist },
		{ "map", sched_map },
		{ "replay", sched_replay },
	};

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		FILE *f = argc < 2 ? stderr : stdout;

		for (int i = 0; sched_usage[i]; i++)
			fprintf(f, "%s %s\n", i ? "   or:" : "usage:", sched_usage[i]);
		fprintf(f, "\nsubcommands: record, latency, timehist, map, replay; 'sonde sched SUB --help' for each\n");
		return argc < 2 ? 129 : 0;
	}
	for (size_t i = 0; i < sizeof(subs) / sizeof(*subs); i++)
		if (!strcmp(argv[1], subs[i].name))
			return subs[i].fn(argc - 1, argv + 1);
	error("'%s' is not a sched subcommand: give record, latency, timehist, map or replay", argv[1]);
	opt__see_help(sched_usage);
}
