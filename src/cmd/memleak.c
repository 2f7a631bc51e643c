// SPDX-License-Identifier: GPL-2.0
/*
 * memleak.c - `sonde memleak` (also `sonde tool memleak`, and `memleak` by a
 * symlink): the allocations a process (-p, -c, -- CMD) or the kernel still
 * holds, summed by stack, every interval and at the end, in BCC memleak's
 * command line and layout. The engine is lib/bpf/bpf_memleak.h, the output
 * ui/memleak_print.h.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/bpf/bpf_memleak.h"
#include "lib/bpf/bpf_mmaps.h"
#include "lib/bpf/bpf_util.h"
#include "lib/loop/loop.h"
#include "lib/memleak/memleak_preload.h"
#include "lib/proc/maps.h"
#include "lib/proc/target.h"
#include "lib/proc/workload.h"
#include "lib/symbol/symbol.h"
#include "lib/util.h"
#include "ui/memleak_print.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const memleak_usage[] = {
	"sonde memleak [-p PID | -c COMMAND] [<options>] [interval [count]]",
	"sonde memleak [<options>] [interval [count]] -- <command> [<args>]",
	NULL,
};

struct memleak_cmd {
	const char *pid, *command, *obj, *pprof, *call_graph;
	bool show_allocs, trace, combined, folded, percpu, wa_missing_free, preload;
	int older_ms, sample_rate, top, dwarf_size;
	unsigned long long min_size, max_size;
	int interval, count;		/* seconds between reports, reports (-1: until the end) */
	char **cmd_argv;		/* -c or -- CMD */
	struct memleak_print po;
	/* while running */
	struct symbolizer *sym;
	struct bpf_mmaps *mm;
	struct memleak *m;
	struct memleak_preload *pre;	/* --preload: instead of m */
	struct loop *loop;
	pid_t target;
	int ticks, refresh_ticks, printed;
	bool failed;
};

static int parse_num(const char *s, int *v)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (*end || end == s || n < 0 || n > INT_MAX)
		return -1;
	*v = n;
	return 0;
}

/* -c "CMD ARGS": split on blanks, as BCC's command.split() does */
static char **split_command(char *s)
{
	char **v = calloc(strlen(s) / 2 + 2, sizeof(*v));
	int n = 0;

	for (char *t = strtok(s, " \t"); v && t; t = strtok(NULL, " \t"))
		v[n++] = t;
	return v;
}

static void parse_args(struct memleak_cmd *o, int argc, char **argv)
{
	const struct opt opts[] = {
		OPT_STRING('p', "pid", &o->pid, "PID", "the process to trace; without -p or -c: kernel allocations"),
		OPT_STRING('c', "command", &o->command, "COMMAND", "execute and trace the specified command"),
		OPT_BOOL('t', "trace", &o->trace, "print trace messages for each alloc/free call (no reports)"),
		OPT_BOOL('a', "show-allocs", &o->show_allocs, "show allocation addresses and sizes as well as call stacks"),
		OPT_INT('o', "older", &o->older_ms, "OLDER", "prune allocations younger than this age in milliseconds (default 500)"),
		OPT_BOOL(0, "combined-only", &o->combined, "show combined allocation statistics only (sums kept in the kernel by stack: no -o, no -a)"),
		OPT_BOOL(0, "wa-missing-free", &o->wa_missing_free, "workaround to alleviate misjudgments when free is missing"),
		OPT_INT('s', "sample-rate", &o->sample_rate, "SAMPLE_RATE", "sample every N-th allocation to decrease the overhead"),
		OPT_INT('T', "top", &o->top, "TOP", "display only this many top allocating stacks (by size) (default 10)"),
		OPT_UINT64('z', "min-size", &o->min_size, "MIN_SIZE", "capture only allocations larger than this size"),
		OPT_UINT64('Z', "max-size", &o->max_size, "MAX_SIZE", "capture only allocations smaller than this size"),
		OPT_STRING('O', "obj", &o->obj, "OBJ", "attach to allocator functions in the specified object (default: the target's libc)"),
		OPT_STRING(0, "lib", &o->obj, "PATH", "the same as -O"),
		OPT_BOOL(0, "percpu", &o->percpu, "trace percpu allocations"),
		OPT_STRING(0, "call-graph", &o->call_graph, "MODE", "fp (frame pointers, the default) or dwarf[,SIZE]: "
			   "unwind a copy of SIZE bytes of stack (8192) by the objects' CFI, for callers without frame pointers"),
		OPT_BOOL(0, "preload", &o->preload, "run the command with sonde's malloc shim (LD_PRELOAD) instead of uprobes: "
			 "a fraction of the cost"),
		OPT_STRING(0, "pprof", &o->pprof, "FILE", "also write each report to FILE as a gzip'd pprof profile "
			   "(inuse_objects, inuse_space)"),
		OPT_BOOL('f', "folded", &o->folded, "folded stacks weighted by bytes (flamegraph.pl, sonde flame)"),
		OPT_VERBOSE(),
		OPT_END(),
	};
	int i, npos = 0;

	argc = opt__parse(argc, argv, opts, memleak_usage, OPT_KEEP_DASHDASH);
	for (i = 0; i < argc && strcmp(argv[i], "--"); i++) {
		int *v = npos == 0 ? &o->interval : &o->count;

		if (npos >= 2 || parse_num(argv[i], v) || (npos == 0 && !*v))
			opt__usage_error(memleak_usage, opts, "unexpected argument '%s' (the arguments are "
					 "[interval [count]], a command comes after --)", argv[i]);
		npos++;
	}
	if (i < argc && i + 1 < argc)
		o->cmd_argv = argv + i + 1;
	if (o->command && o->cmd_argv)
		opt__usage_error(memleak_usage, opts, "-c and -- both give a command: give one");
	if (o->pid && (o->command || o->cmd_argv))
		opt__usage_error(memleak_usage, opts, "-p and a command exclude each other");
	if (o->command && !(o->cmd_argv = split_command((char *)o->command)))
		opt__usage_error(memleak_usage, opts, "out of memory");
	if (o->command && !o->cmd_argv[0])
		opt__usage_error(memleak_usage, opts, "-c takes a command");
	if (o->pid)
		opt__check_one_pid(memleak_usage, o->pid);
	if (o->top < 1 || o->older_ms < 0 || o->sample_rate < 1)
		opt__usage_error(memleak_usage, opts, "--top and --sample-rate take a number above 0, --older one of 0 or more");
	if (o->max_size && o->min_size > o->max_size)
		opt__usage_error(memleak_usage, opts, "--min-size must not be above --max-size");
	if (o->trace && o->preload)
		opt__usage_error(memleak_usage, opts, "-t traces by uprobes: not with --preload");
	if (o->call_graph && (o->dwarf_size = opt__call_graph(o->call_graph, MEMLEAK_DWARF_STACK, MEMLEAK_DWARF_STACK)) < 0)
		opt__usage_error(memleak_usage, opts, "--call-graph takes fp or dwarf[,SIZE] (SIZE: 256 to %d bytes), not '%s'",
				 MEMLEAK_DWARF_STACK, o->call_graph);
	if (o->dwarf_size && (o->preload || o->combined || !(o->pid || o->cmd_argv)))
		opt__usage_error(memleak_usage, opts, "--call-graph dwarf unwinds user stacks by uprobes: with -p or a command, "
				 "not with --preload or --combined-only");
	if (o->preload && !o->cmd_argv)
		opt__usage_error(memleak_usage, opts, "--preload needs a command (-c or --): a running process is "
				 "traced by uprobes");
	if (o->percpu && (o->pid || o->cmd_argv))
		opt__usage_error(memleak_usage, opts, "--percpu traces the kernel's per-CPU allocations: not with -p or a command");
}

/*
 * -p: the target's maps as they are now (libraries loaded since), with each
 * object's symbols read while /proc/PID/root still reaches it: the last report
 * may come after the target has exited. Nothing once it has (a zombie's maps
 * are empty).
 */
static void refresh_maps(struct memleak_cmd *o)
{
	struct proc_maps *it = proc_maps__open(o->target);
	const struct proc_map *pm;
	struct sym_frame f;
	bool loaded = false;

	while (it && (pm = proc_maps__next(it))) {
		if (!proc_map__exec(pm))
			continue;
		if (!loaded && symbolizer__load_proc_maps(o->sym, o->target))
			break;
		loaded = true;
		symbolizer__resolve(o->sym, o->target, pm->start, false, &f, 1);
	}
	if (it)
		proc_maps__close(it);
}

/* --pprof: the file holds the last report */
static void write_pprof(struct memleak_cmd *o, const struct memleak_report *r)
{
	FILE *f = fopen(o->pprof, "w");
	char err[256] = "";
	int rc = f ? memleak_print__pprof(f, o->sym, r, &o->po, err, sizeof(err)) : -errno;

	if (f && fclose(f) && !rc)
		rc = -errno;
	if (rc) {
		error("cannot write '%s': %s", o->pprof, err[0] ? err : strerror(-rc));
		o->failed = true;
	}
}

static void report(struct memleak_cmd *o)
{
	struct memleak_report r;
	int rc;

	if (o->mm)
		bpf_mmaps__drain(o->mm);
	else if (o->target)
		refresh_maps(o);
	if (o->dwarf_size && o->loop)	/* the stacks of the allocations made so far */
		loop__consume(o->loop);
	if (o->pre)
		rc = memleak_preload__read(o->pre, (uint64_t)o->older_ms * 1000000, o->combined, &r);
	else
		rc = memleak__read(o->m, (uint64_t)o->older_ms * 1000000, &r);
	if (rc) {
		error("cannot read the outstanding allocations: %s", strerror(-rc));
		o->failed = true;
		return;
	}
	if (o->folded)
		memleak_print__folded(stdout, o->sym, &r, &o->po);
	else
		memleak_print__text(stdout, o->sym, &r, &o->po);
	if (o->pprof)
		write_pprof(o, &r);
	if (o->target && r.stats[MEMLEAK_STAT_NOSTACK])
		warning("%llu allocations have no stack and are not shown%s",
			(unsigned long long)r.stats[MEMLEAK_STAT_NOSTACK],
			o->dwarf_size ? ": the ring buffer of stack copies was full (-s N records fewer)" : "");
	if (r.stats[MEMLEAK_STAT_FULL])
		warning("%llu allocations were not recorded: the map of outstanding allocations is full",
			(unsigned long long)r.stats[MEMLEAK_STAT_FULL]);
	debug(1, "%llu allocations, %llu frees recorded, %llu stacks missed",
	      (unsigned long long)r.stats[MEMLEAK_STAT_ALLOCS], (unsigned long long)r.stats[MEMLEAK_STAT_FREES],
	      (unsigned long long)r.stats[MEMLEAK_STAT_NOSTACK]);
	memleak_report__free(&r);
	o->printed++;
}

/* --call-graph dwarf: unwind an allocation's stack now, while its objects are mapped */
static int dwarf_record(void *ctx, void *data, size_t size)
{
	struct memleak_cmd *o = ctx;

	return memleak__dwarf_consume(o->m, data, size);
}

static void before_unwind(void *ctx, pid_t pid)
{
	struct memleak_cmd *o = ctx;

	(void)pid;
	if (o->mm)
		bpf_mmaps__drain(o->mm);
}

/* -t: a call's line */
static int trace_line(void *ctx, void *data, size_t size)
{
	(void)ctx;
	if (size >= sizeof(struct memleak_trace))
		memleak_print__trace(stdout, data);
	return 0;
}

/* every 100 ms: new maps of the command; a report every interval; 1 ends the run */
static int tick(void *ctx, int fd, short revents)
{
	struct memleak_cmd *o = ctx;

	(void)fd;
	(void)revents;
	if (o->pre)
		memleak_preload__tick(o->pre);
	if (o->mm)
		bpf_mmaps__drain(o->mm);
	else if (o->pid && ++o->refresh_ticks % 10 == 0)
		refresh_maps(o);
	if (o->trace)
		fflush(stdout);
	else if (++o->ticks % (o->interval * 10) == 0) {
		report(o);
		if (o->count > 0 && o->printed >= o->count)
			return 1;
	}
	return o->pid && !target__alive(o->target);
}

/* whether the target's executable is a static binary; its path in exe */
static bool static_target(const struct memleak_cmd *o, char *exe, size_t len)
{
	char link[64];
	ssize_t n;

	if (o->pid) {
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)o->target);
		if ((n = readlink(link, exe, len - 1)) < 0)
			return false;
		exe[n] = 0;
	} else if (util__find_command(o->cmd_argv[0], exe, len)) {
		return false;
	}
	return memleak__is_static(exe) == 1;
}

/* a Go program without a C library: nothing calls malloc */
static void go_error(const char *exe)
{
	error("%s is a Go program: the Go runtime allocates without malloc; Go's heap profile (runtime/pprof) "
	      "shows its leaks", exe);
}

/* --preload: the shim and its tables, in the environment the command is forked with; 0 or -1 (said) */
static int start_preload(struct memleak_cmd *o)
{
	struct memleak_opts mo = { .min_size = o->min_size, .max_size = o->max_size, .sample_every = o->sample_rate };
	char exe[PATH_MAX];
	int rc;

	if (static_target(o, exe, sizeof(exe)) && memleak__is_go(exe) == 1) {
		go_error(exe);
		return -1;
	}
	if (static_target(o, exe, sizeof(exe))) {
		error("%s is statically linked: it cannot load the --preload shim; run without --preload", exe);
		return -1;
	}
	if ((rc = memleak_preload__new(&o->pre, &mo)) || (rc = memleak_preload__setenv(o->pre))) {
		error("cannot set up --preload: %s", strerror(-rc));
		return -1;
	}
	return 0;
}

/* the target and the library to probe; the child held before exec for a command */
static int setup_target(struct memleak_cmd *o, struct workload *w, char *lib, size_t len)
{
	int rc;

	if (o->pid) {
		o->target = atoi(o->pid);
		if (!target__alive(o->target)) {
			error("cannot attach to process %d: no such process", (int)o->target);
			return -1;
		}
		refresh_maps(o);
	} else if (o->cmd_argv) {
		if (o->preload && start_preload(o))
			return -1;
		rc = workload__prepare(w, o->cmd_argv);
		if (o->pre) {
			memleak_preload__restore_env(o->pre);
			if (!rc)
				memleak_preload__set_pid(o->pre, w->pid);
		}
		if (rc) {
			error("cannot start '%s': %s", o->cmd_argv[0], strerror(-rc));
			return -1;
		}
		o->target = w->pid;
		if (bpf_mmaps__open(&o->mm, o->sym, w->pid, lib, len))
			debug(1, "no memory-map events (%s)", lib);
	}
	if (!o->target || o->pre)
		return 0;
	if (o->obj) {
		snprintf(lib, len, "%s", o->obj);
		if (o->pid && proc_maps__maps_file(o->target, lib) == 0)
			warning("process %d does not map %s: nothing will be seen unless it loads it", (int)o->target, lib);
	}
	else if (static_target(o, lib, len)) {	/* its malloc is its own */
		if (memleak__is_go(lib) == 1) {
			go_error(lib);
			if (w->pid)
				workload__abort(w);
			return -1;
		}
		debug(1, "%s is statically linked: probing its own allocator", lib);
	}
	else if (proc_maps__find_libc(o->pid ? o->target : 0, lib, len)) {
		error("process %d maps no C library: give the allocator's object with -O", (int)o->target);
		return -1;
	}
	return 0;
}

int cmd_memleak(int argc, char **argv)
{
	struct memleak_cmd o = { .older_ms = 500, .sample_rate = 1, .top = 10, .interval = 5, .count = -1 };
	struct workload w = { .pid = 0, .go_fd = -1, .err_fd = -1 };
	struct memleak_opts mo = { 0 };
	char lib[PATH_MAX] = "", err[512] = "";
	struct loop loop;
	enum loop_end end;
	size_t left;
	int rc = 1;

	parse_args(&o, argc, argv);
	o.po = (struct memleak_print){ .top = o.top, .show_allocs = o.show_allocs };
	bpfutil__setup_log(verbose);
	if (!(o.sym = symbolizer__new(0))) {
		error("out of memory");
		return 1;
	}
	if (setup_target(&o, &w, lib, sizeof(lib)))
		goto out;
	o.po.kernel = !o.target;
	mo = (struct memleak_opts){ .pid = o.target, .lib = lib, .min_size = o.min_size, .max_size = o.max_size,
				    .sample_every = o.sample_rate, .combined = o.combined,
				    .percpu = o.percpu, .trace = o.trace, .dwarf_size = o.dwarf_size, .sym = o.sym,
				    .before_unwind = before_unwind, .before_unwind_ctx = &o };
	if ((!o.pre && (rc = memleak__new(&o.m, &mo, err, sizeof(err)))) || (rc = loop__init(&loop))) {
		error("%s", err[0] ? err : strerror(-rc));
		if (w.pid)
			workload__abort(&w);
		rc = 1;
		goto out;
	}
	if (o.m)
		debug(1, "%d allocator functions attached in %s", memleak__nr_attached(o.m), o.target ? lib : "the kernel");
	o.loop = &loop;
	if ((o.trace && (rc = loop__add_ringbuf(&loop, memleak__trace_fd(o.m), trace_line, &o))) ||
	    (o.dwarf_size && (rc = loop__add_ringbuf(&loop, memleak__dwarf_fd(o.m), dwarf_record, &o)))) {
		error("cannot read the ring buffer: %s", strerror(-rc));
		if (w.pid)
			workload__abort(&w);
		rc = 1;
		goto out_loop;
	}
	if (w.pid && (rc = opt__start_command(&w, o.cmd_argv)))
		goto out_loop;
	if (w.pid)
		loop__set_child(&loop, w.pid);
	/* the probes are attached (and the command started); --folded keeps stdout for the stacks */
	if (o.target)
		fprintf(o.folded ? stderr : stdout, "Attaching to pid %d, Ctrl+C to quit.\n", (int)o.target);
	else
		fprintf(o.folded ? stderr : stdout, "Attaching to kernel allocators, Ctrl+C to quit.\n");
	fflush(stdout);
	loop__set_tick(&loop, 100, tick, &o);
	end = loop__run(&loop);
	if (end == LOOP_ERROR)
		error("polling failed: %s", strerror(-loop.err));
	if (o.m)
		memleak__detach(o.m);
	if (o.pre && !memleak_preload__ready(o.pre)) {
		error("'%s' did not load the --preload shim (setuid, or it clears LD_PRELOAD): run without --preload",
		      o.cmd_argv[0]);
		o.failed = true;
	}
	/* the end (Ctrl-C, the command or process gone) reports what is left, unless count was reached */
	if (o.trace || o.dwarf_size)
		if ((left = loop__drain(&loop)))
			warning("%zu records not read: more came than sonde could read in %d s after the end",
				left, LOOP_DRAIN_MS / 1000);
	if (!o.trace && (o.count < 0 || o.printed < o.count))
		report(&o);
	if (o.trace && memleak__stat(o.m, MEMLEAK_STAT_LOST))
		warning("%llu calls not printed: the ring buffer was full",
			(unsigned long long)memleak__stat(o.m, MEMLEAK_STAT_LOST));
	if (o.dwarf_size && memleak__dwarf_failed(o.m))
		debug(1, "%llu stacks not unwound", (unsigned long long)memleak__dwarf_failed(o.m));
	o.loop = NULL;
	rc = o.failed ? 1 : loop__exit_code(&loop, end);
out_loop:
	loop__fini(&loop);
out:
	memleak__free(o.m);
	memleak_preload__free(o.pre);
	bpf_mmaps__close(o.mm);
	symbolizer__free(o.sym);
	if (o.command)
		free(o.cmd_argv);
	return rc;
}
