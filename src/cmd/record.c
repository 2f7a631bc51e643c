// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - `sonde record`: sample a command, processes, threads or CPUs and
 * write a perf.data file that `perf report`, `perf script`, hotspot and sonde's
 * own report/script/collapse read.
 */
#include "sonde.h"
#include "opt.h"
#include "cmd/record_flight.h"
#include "lib/record/flight_ring.h"
#include "lib/event/event.h"
#include "lib/perfdata/perfdata.h"
#include "lib/perfdata/recording.h"
#include "lib/event/sampler.h"
#include "lib/loop/loop.h"
#include "lib/proc/target.h"
#include "lib/proc/workload.h"
#include "lib/tracefs/tracefs.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const record_usage[] = {
	"sonde record [<options>] [--] <command> [<args>]",
	"sonde record [<options>] -p PID | -t TID | -a [--duration S | -- <command>]",
	"sonde record --flight S [--trigger COND] [--control FIFO] [<options>] [-p PID | -a | -- <command>]",
	"sonde record --dump PID",
	NULL,
};

struct record_opts {
	struct evlist evl;
	struct target_opts to;
	const char *output, *callgraph;
	bool fp, quiet, no_inherit, offcpu;
	double duration;
	int until_exit;		/* hidden, for sched record: system-wide until that process ends */
	uint64_t freq;
	unsigned long long period;
	int mmap_pages;
	int zlevel;		/* -z: 0 none, else the Zstandard level */
	struct sampler_config cfg;
	const char *flight, *flight_size, *holdoff, *dump_pid;	/* the flight recorder's */
	struct flight_rec_opts fl;
};

static struct record_opts *the_opts;

static int parse_event_opt(const struct opt *o, const char *arg)
{
	char err[512];

	(void)o;
	if (evlist__parse(&the_opts->evl, arg, err, sizeof(err))) {
		error("%s", err);
		return -1;
	}
	return 0;
}

/* --trigger COND, repeatable */
static int parse_trigger_opt(const struct opt *o, const char *arg)
{
	struct flight_rec_opts *fl = &the_opts->fl;
	char err[512];

	(void)o;
	if (fl->nr_trig == FLIGHT_MAX_TRIGGERS) {
		error("--trigger '%s': at most %d triggers", arg, FLIGHT_MAX_TRIGGERS);
		return -1;
	}
	if (trigger__parse(arg, &fl->trig[fl->nr_trig], err, sizeof(err))) {
		error("%s", err);
		return -1;
	}
	fl->nr_trig++;
	return 0;
}

/* fp | dwarf[,SIZE] | lbr */
/* -z, -zN, --compression-level[=N]: perf's spelling; level 1 when none is given */
static int parse_zlevel(const struct opt *opt, const char *arg)
{
	int *level = opt->value;
	char *end;
	long n = arg ? strtol(arg, &end, 10) : 1;

	if (arg && (!*arg || *end || n < 1 || n > 22)) {
		error("-z '%s': a Zstandard level is 1 to 22", arg);
		return -1;
	}
	*level = (int)n;
	return 0;
}

static int parse_callgraph(struct sampler_config *cfg, const char *s)
{
	if (!strcmp(s, "fp")) {
		cfg->callgraph = CALLGRAPH_FP;
	} else if (!strcmp(s, "lbr")) {
		cfg->callgraph = CALLGRAPH_LBR;
	} else if (!strncmp(s, "dwarf", 5) && (!s[5] || s[5] == ',')) {
		char *end;
		unsigned long long n = SAMPLER_DEFAULT_STACK;

		cfg->callgraph = CALLGRAPH_DWARF;
		if (s[5]) {
			errno = 0;
			n = strtoull(s + 6, &end, 0);
			if (errno || end == s + 6 || *end || !n) {
				error("--call-graph '%s': expected dwarf,SIZE with SIZE in bytes", s);
				return -1;
			}
		}
		n = (n + 7) & ~7ULL;
		if (n > SAMPLER_MAX_STACK) {
			error("--call-graph '%s': the stack copy can be at most %d bytes", s, SAMPLER_MAX_STACK);
			return -1;
		}
		cfg->stack_size = (uint32_t)n;
	} else {
		error("--call-graph '%s': expected fp, dwarf[,SIZE] or lbr", s);
		return -1;
	}
	return 0;
}

static int write_recs(void *ctx, const void *recs, size_t len)
{
	return perfdata_writer__write(ctx, recs, len);
}

static void status_line(const struct perfdata_writer *w, double t0, bool final)
{
	struct perfdata_writer_stats st;

	perfdata_writer__stats(w, &st);
	if (final) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	fprintf(stderr, "\r\033[Ksonde record: %llu samples, %llu lost, %.1f s (Ctrl-C to stop)",
		(unsigned long long)st.samples, (unsigned long long)st.lost, util__now_s() - t0);
}

struct session {
	struct record_opts *o;
	struct flight_rec *fl;		/* --flight: records go to memory, not to ->w */
	struct target *t;
	struct sampler s;
	struct perfdata_writer *w;
	struct workload wl;
	struct loop loop;
	bool tty, have_cmd;
	bool held, loop_ready;	/* the command waits before its exec; the loop is set up */
	double t0, last_status;
};

/* what the buffers hold, to the file or (--flight) to memory */
static int drain(struct session *ss)
{
	return ss->fl ? sampler__drain(&ss->s, flight_rec__take, ss->fl) : sampler__drain(&ss->s, write_recs, ss->w);
}

/* the buffers passed their watermark: write what they hold; -errno ends the loop */
static int record_drain(void *ctx, int fd, short revents)
{
	struct session *ss = ctx;
	uint64_t before = ss->s.bytes;
	int rc = drain(ss);

	(void)fd;
	(void)revents;
	/* a round per pass that found data: readers may sort what precedes it */
	if (!rc && !ss->fl && ss->s.bytes != before)
		rc = perfdata_writer__finished_round(ss->w);
	return rc;
}

/* every 250 ms: what is below the watermark, the -p/-t targets, the status line */
static int record_tick(void *ctx, int fd, short revents)
{
	struct session *ss = ctx;
	int rc = record_drain(ss, fd, revents);

	if (rc)
		return rc;
	if (ss->fl && (rc = flight_rec__tick(ss->fl, ss->tty)))
		return rc;
	if (!ss->fl && ss->tty && util__now_s() - ss->last_status >= 0.25) {
		status_line(ss->w, ss->t0, false);
		ss->last_status = util__now_s();
	}
	if (ss->o->until_exit && !target__alive(ss->o->until_exit))
		return 1;
	return !ss->have_cmd && !ss->t->system_wide &&
	       !target__any_alive(ss->t->nr_pids ? ss->t->pids : ss->t->tids,
				  ss->t->nr_pids ? ss->t->nr_pids : ss->t->nr_tids);
}

/*
 * Sample until the command ends, the duration passes, the targets vanish or
 * a signal comes (the command gets it, and is recorded to its end); returns
 * sonde's exit status, or -1 after an error line.
 */
static int record_loop(struct session *ss)
{
	struct pollfd pf[1024];
	int nb = sampler__pollfds(&ss->s, pf, 1024), rc = 0;
	enum loop_end end;

	ss->tty = isatty(2) && !ss->o->quiet;
	ss->t0 = util__now_s();
	for (int i = 0; i < nb && !rc; i++)
		rc = loop__add_fd(&ss->loop, pf[i].fd, pf[i].events, record_drain, ss);
	if (!rc)
		rc = loop__set_tick(&ss->loop, 250, record_tick, ss);
	if (rc) {
		error("cannot set up the event loop: %s", strerror(-rc));
		return -1;
	}
	end = loop__run(&ss->loop);
	sampler__disable(&ss->s);
	if (end == LOOP_OUTPUT)	/* -o -: the reader quit, nothing more can be written */
		rc = -EPIPE;
	else
		rc = end == LOOP_ERROR ? ss->loop.err : drain(ss);
	if (ss->tty && !ss->fl)
		status_line(ss->w, ss->t0, true);
	if (rc) {
		error("cannot %s '%s': %s", ss->fl ? "keep the records of" : "write", ss->o->output, strerror(-rc));
		return -1;
	}
	if (ss->fl && flight_rec__end(ss->fl, &ss->loop, end))
		return -1;
	return loop__exit_code(&ss->loop, end);
}

/* COMM and MMAP2 records for what runs already */
static int synthesize(struct session *ss)
{
	int krc, rc = recording__synthesize(ss->w, ss->t, ss->o->cfg.callgraph == CALLGRAPH_DWARF, &krc);

	if (krc)
		debug(1, "no kernel map record: %s (kernel.kptr_restrict?)", strerror(-krc));
	return rc;
}

/*
 * Open the events on the target and begin the file: its events, compression,
 * command line, and the records of what runs already. -1 when it failed (said).
 */
static int open_recording(struct session *ss, int argc, char **argv)
{
	struct record_opts *o = ss->o;
	char err[512];
	int rc, bad;

	sampler__config_attrs(&o->evl, ss->t, &o->cfg);
	if (sampler__open(&ss->s, &o->evl, ss->t, &o->cfg, err, sizeof(err))) {
		error("%s", err);
		return -1;
	}
	if (ss->s.shrunk_pages)
		warning("the locked memory limit allows only %u-page buffers (%u asked): more samples may be lost; "
			"raise 'ulimit -l' or kernel.perf_event_mlock_kb", ss->s.shrunk_pages, o->cfg.mmap_pages);
	if (ss->s.user_only_fallback)
		warning("kernel sampling is not allowed here: sampling user space only (kernel.perf_event_paranoid)");
	if (o->flight) {	/* each dump writes its own file */
		o->fl.argc = argc;
		o->fl.argv = argv;
		return flight_rec__start(&ss->fl, &o->fl, &ss->s, &o->evl, ss->t, &ss->loop, &o->cfg);
	}
	if ((rc = recording__add_events(ss->w, &o->evl, &ss->s, &bad))) {
		error("cannot record '%s' with the others: %s", o->evl.ev[bad].name, strerror(-rc));
		return -1;
	}
	if (o->zlevel) {
		int zrc = perfdata_writer__set_compression(ss->w, o->zlevel,
							   (size_t)o->cfg.mmap_pages * sysconf(_SC_PAGESIZE));

		if (zrc) {
			error("cannot compress: %s", strerror(-zrc));
			return -1;
		}
	}
	/* the command line as the user typed it, for `perf report --header` */
	if (argv)
		perfdata_writer__set_cmdline(ss->w, argc, argv);
	if (perfdata_writer__begin(ss->w) || synthesize(ss)) {
		error("cannot write '%s': %s", o->output, strerror(errno));
		return -1;
	}
	return 0;
}

/* the summary line and the lost samples' warning */
static void summary(const struct record_opts *o, const struct perfdata_writer *w)
{
	struct perfdata_writer_stats st;

	perfdata_writer__stats(w, &st);
	if (!o->quiet) {
		char packed[64] = "";

		if (st.raw_bytes)
			snprintf(packed, sizeof(packed), ", compressed from %.3f MB", st.raw_bytes / 1e6);
		fprintf(stderr, "[ sonde record: wrote '%s' (%.3f MB%s): %llu samples, %llu lost ]\n", o->output,
			st.bytes / 1e6, packed, (unsigned long long)st.samples, (unsigned long long)st.lost);
	}
	if (st.lost)
		warning("lost %llu samples in %llu overflows: the buffers filled faster than sonde wrote them; "
			"raise -m or lower -F", (unsigned long long)st.lost, (unsigned long long)st.lost_records);
}

/* --flight S and the options that go with it */
static void check_flight(struct record_opts *o, const struct opt *opts)
{
	uint64_t ns;
	char *end;
	double mb;

	if (trigger__parse_duration(o->flight, true, &ns) || ns < 1000000ULL)
		opt__usage_error(record_usage, opts, "--flight '%s': expected how long to keep, as 30s, 2m or 500ms",
				 o->flight);
	o->fl.window_ns = ns;
	o->fl.holdoff_ns = ns;	/* by default a condition dumps at most once per window */
	if (o->holdoff && trigger__parse_duration(o->holdoff, true, &o->fl.holdoff_ns))
		opt__usage_error(record_usage, opts, "--holdoff '%s': expected a duration, as 10s or 0", o->holdoff);
	o->fl.cap = FLIGHT_DEFAULT_CAP;
	if (o->flight_size) {
		errno = 0;
		mb = strtod(o->flight_size, &end);
		if (errno || end == o->flight_size || mb < 1 || mb > 1 << 20 ||
		    (*end && strcmp(end, "M") && strcmp(end, "MB") && strcmp(end, "G") && strcmp(end, "GB")))
			opt__usage_error(record_usage, opts, "--flight-size '%s': expected megabytes, 1 or more, as 64M or 1G",
					 o->flight_size);
		o->fl.cap = (size_t)(mb * (*end == 'G' ? 1024 : 1) * (1 << 20));
	}
	if (!strcmp(o->output, "-"))
		opt__usage_error(record_usage, opts, "--flight writes a file per dump: -o names their prefix, not '-'");
	for (int i = 0; i < o->fl.nr_trig; i++) {
		char tp[96];

		snprintf(tp, sizeof(tp), "sys_enter_%s", o->fl.trig[i].syscall);
		if (tracefs__event_id("syscalls", tp) < 0)
			opt__usage_error(record_usage, opts, "--trigger '%s': no syscall '%s' here (no tracepoint "
					 "'syscalls:%s')", o->fl.trig[i].text, o->fl.trig[i].syscall, tp);
	}
	o->fl.prefix = o->output;
	o->fl.zlevel = o->zlevel;
	o->fl.quiet = o->quiet;
	o->cfg.monotonic = true;	/* the window and the triggers' times in one clock */
}

/* the values opt__parse cannot check alone, and the sampler's settings they give */
static void check_options(struct record_opts *o, const struct opt *opts)
{
	if (o->freq && o->period != ~0ULL)
		opt__usage_error(record_usage, opts, "-F and -c cannot be combined");
	if (!o->period)
		opt__usage_error(record_usage, opts, "-c 0: give one sample every N events, N 1 or more");
	if (o->mmap_pages < 0 || (o->mmap_pages & (o->mmap_pages - 1)))
		opt__usage_error(record_usage, opts, "-m %d: give a power of two", o->mmap_pages);
	if (!*o->output)
		opt__usage_error(record_usage, opts, "-o needs a file name");
	if (o->callgraph && parse_callgraph(&o->cfg, o->callgraph))
		opt__see_help(record_usage);
	if ((o->fp || o->offcpu) && !o->callgraph)
		o->cfg.callgraph = CALLGRAPH_FP;
	o->cfg.freq = o->freq ? o->freq : SAMPLER_DEFAULT_FREQ;
	o->cfg.period = o->period == ~0ULL ? 0 : o->period;
	o->cfg.no_inherit = o->no_inherit || (o->to.tids && !o->to.pids);
	o->cfg.mmap_pages = o->mmap_pages ? o->mmap_pages : o->cfg.callgraph == CALLGRAPH_DWARF ? 1024 : 256;
	if (o->flight)
		check_flight(o, opts);
	else if (o->flight_size || o->holdoff || o->fl.control || o->fl.nr_trig || o->fl.dump_on_exit)
		opt__usage_error(record_usage, opts, "--flight-size, --holdoff, --trigger, --control and --dump-on-exit "
				 "go with --flight");
	if (o->cfg.callgraph == CALLGRAPH_DWARF &&
	    (size_t)o->cfg.mmap_pages * sysconf(_SC_PAGESIZE) < 2 * (o->cfg.stack_size + 1024))
		opt__usage_error(record_usage, opts, "-m %d: a buffer of %ld KiB cannot hold two samples with %u-byte "
				 "stack copies; give more pages", o->cfg.mmap_pages,
				 o->cfg.mmap_pages * sysconf(_SC_PAGESIZE) / 1024, o->cfg.stack_size);
}

/*
 * The options into o, checked (a usage error exits 129); returns how many
 * words are left in argv: the command to run.
 */
static int parse_options(struct record_opts *o, int argc, char **argv)
{
	const struct opt opts[] = {
		OPT_GROUP("what to sample"),
		OPT_CALLBACK('e', "event", NULL, "EVENT", "event to sample (repeatable); default cycles, or cpu-clock "
			     "where there is no hardware PMU; tracepoints sample every hit", parse_event_opt),
		OPT_FREQ(&o->freq, "samples per second (default 99: safe in production; perf's 4000 costs 6-16%); "
			 "'max' for kernel.perf_event_max_sample_rate"),
		OPT_UINT64('c', "count", &o->period, "N", "one sample every N events instead of -F"),
		OPT_BOOL('g', NULL, &o->fp, "record call graphs (frame pointers; --call-graph fp)"),
		OPT_BOOL(0, "offcpu", &o->offcpu, "also sample every context switch with the stack it leaves "
			 "(sched:sched_switch; -g unless --call-graph): where threads block"),
		OPT_STRING(0, "call-graph", &o->callgraph, "MODE", "fp, dwarf[,SIZE] (user stack copy of SIZE bytes, "
			   "default 8192, unwound by report) or lbr"),
		OPT_GROUP("whom to sample"),
		OPT_TARGET(&o->to),
		OPT_DURATION(&o->duration),
		OPT_BOOL(0, "no-inherit", &o->no_inherit, "do not follow the children of the targets"),
		{ OPTT_INT, 0, "until-exit", &o->until_exit, "PID", "with -a: stop when process PID ends", NULL,
		  OPTF_HIDDEN },
		OPT_GROUP("output"),
		OPT_STRING('o', "output", &o->output, "FILE", "write to FILE (default sonde.data; created mode 0600); - writes perf's pipe format to stdout"),
		OPT_INT('m', "mmap-pages", &o->mmap_pages, "PAGES", "buffer pages per CPU, a power of two (default 256, "
			"1024 with dwarf)"),
		OPT_CALLBACK_OPTARG('z', "compression-level", &o->zlevel, "N", "compress the records with Zstandard at level "
				    "N (default 1), as perf record -z does", parse_zlevel),
		OPT_BOOL('q', "quiet", &o->quiet, "no status line and no summary"),
		OPT_VERBOSE(),
		OPT_GROUP("flight recorder"),
		OPT_STRING(0, "flight", &o->flight, "S", "keep only the last S (30s, 2m) in memory and write them to "
			   "-o's name (default perf.data) .YYYYMMDD-HHMMSS at each trigger: SIGUSR2, --dump, --control, "
			   "--trigger"),
		OPT_STRING(0, "flight-size", &o->flight_size, "MB", "keep at most this much in memory (default 64M)"),
		OPT_CALLBACK(0, "trigger", NULL, "COND", "dump when COND holds: 'syscall:read > 100ms' (one call that "
			     "slow), 'p99(read) > 50ms [over 10s]' (repeatable)", parse_trigger_opt),
		OPT_STRING(0, "holdoff", &o->holdoff, "S", "a --trigger dumps at most once per S (default: the window)"),
		OPT_STRING(0, "control", &o->fl.control, "FIFO", "fifo:CTL[,ACK]: each line written to CTL dumps (made "
			   "when missing, then removed); 'ack' is written to ACK after"),
		OPT_BOOL(0, "dump-on-exit", &o->fl.dump_on_exit, "dump once more when the recording ends"),
		OPT_STRING(0, "dump", &o->dump_pid, "PID", "ask the flight recorder PID to dump now, and return"),
		OPT_END(),
	};

	argc = opt__parse(argc, argv, opts, record_usage, OPT_STOP_AT_NON_OPTION);
	if (o->dump_pid) {
		if (argc)
			opt__usage_error(record_usage, opts, "--dump PID takes no command");
		return 0;
	}
	if (!o->output)
		o->output = o->flight ? "perf.data" : "sonde.data";
	o->to.have_cmd = argc > 0;
	o->to.verb = "sample";
	o->to.accept = TARGET_PID | TARGET_TID | TARGET_ALL | TARGET_CPU;
	check_options(o, opts);
	return argc;
}

/*
 * The event loop, the targets, the events, the output file and the command
 * (held before its exec); -1 when one failed (said).
 */
static int setup(struct session *ss, char **argv)
{
	struct record_opts *o = ss->o;
	struct target *t = ss->t;
	char err[512];
	int rc;

	if (loop__init(&ss->loop)) {
		error("cannot set up the event loop: %s", strerror(errno));
		return -1;
	}
	ss->loop_ready = true;
	if (!strcmp(o->output, "-"))	/* a reader that quits ends the recording, it does not kill us */
		loop__watch_output(&ss->loop, STDOUT_FILENO);
	if (opt__target(t, &o->to, record_usage))
		return -1;
	if (!o->evl.nr && evlist__add_sampling_default(&o->evl)) {
		error("cannot set up the default event");
		return -1;
	}
	if (o->offcpu && evlist__parse(&o->evl, "sched:sched_switch", err, sizeof(err))) {
		error("--offcpu: %s", err);
		return -1;
	}
	if (!o->flight && perfdata_writer__create(&ss->w, o->output, err, sizeof(err))) {
		error("%s", err);
		return -1;
	}
	if (ss->have_cmd) {
		ss->wl.stdout_to_stderr = !strcmp(o->output, "-");	/* perf does the same */
		rc = workload__prepare(&ss->wl, argv);
		if (rc) {
			error("cannot start '%s': %s", argv[0], strerror(-rc));
			return -1;
		}
		ss->held = true;
		if (!t->system_wide && !t->nr_tids)	/* -p/-t with a command: it only says how long */
			t->child = ss->wl.pid;
	}
	return 0;
}

/* start sampling (and the command), record until the end, finish the file; sonde's exit status */
static int record_run(struct session *ss, char **argv)
{
	struct record_opts *o = ss->o;
	char err[512];
	int rc;

	if (o->duration > 0)
		loop__set_duration(&ss->loop, o->duration);
	if (!ss->t->child)
		sampler__enable(&ss->s);
	if (ss->have_cmd) {
		ss->held = false;
		if ((rc = opt__start_command(&ss->wl, argv)))
			return rc;
		loop__set_child(&ss->loop, ss->wl.pid);
	}
	/* it began for real: the new file takes the name (an earlier one becomes .old);
	   before this, a failure left the earlier recording alone */
	if (!o->flight && perfdata_writer__commit(ss->w, err, sizeof(err))) {
		error("%s", err);	/* the command ran: loop__fini ends it */
		return 1;
	}
	rc = record_loop(ss);
	if (rc < 0)
		return 1;
	if (!o->flight && perfdata_writer__finish(ss->w, err, sizeof(err))) {
		error("%s", err);
		return 1;
	}
	if (!o->flight)
		summary(o, ss->w);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { .mmap_pages = 0, .period = ~0ULL };
	struct session ss = { .o = &o };
	struct target t = { 0 };
	char **orig_argv;
	int rc = 1, orig_argc = argc;

	the_opts = &o;
	ss.t = &t;
	orig_argv = calloc(argc + 1, sizeof(char *));
	if (orig_argv)
		memcpy(orig_argv, argv, argc * sizeof(char *));
	argc = parse_options(&o, argc, argv);
	if (o.dump_pid) {
		rc = flight_rec__send_dump(o.dump_pid);
		if (rc == 129)
			opt__see_help(record_usage);
		goto out;
	}
	ss.have_cmd = argc > 0;
	/* from here a Ctrl-C or SIGTERM ends the recording cleanly, even during the setup;
	   they must not stay ignored (a shell's background job inherits SIGINT ignored): perf
	   handles them too */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (!setup(&ss, argv) && !open_recording(&ss, orig_argc, orig_argv))
		rc = record_run(&ss, argv);
out:
	if (ss.held)
		workload__abort(&ss.wl);
	flight_rec__free(ss.fl);	/* detaches the watchers, removes a FIFO it made */
	sampler__close(&ss.s);
	perfdata_writer__free(ss.w);	/* removes a recording that never began */
	if (ss.loop_ready)
		loop__fini(&ss.loop);	/* a command still running is ended, as the loop ends it */
	evlist__free(&o.evl);
	target__free(&t);
	free(orig_argv);
	return rc;
}
