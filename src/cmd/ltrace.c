// SPDX-License-Identifier: GPL-2.0
/*
 * ltrace.c - `sonde ltrace`: the library calls a program makes, one line per
 * call as ltrace prints it, from uprobes on its PLT stubs (lib/ltrace/plt.h
 * says why there) and a ring buffer: the program never stops. The engine is
 * lib/bpf/bpf_ltrace.h, the choice of functions lib/ltrace/funcs.h, the
 * output ui/ltrace_print.h.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/bpf/bpf_ltrace.h"
#include "lib/bpf/bpf_util.h"
#include "lib/loop/loop.h"
#include "lib/ltrace/conf.h"
#include "lib/ltrace/filter.h"
#include "lib/ltrace/follow.h"
#include "lib/ltrace/funcs.h"
#include "lib/ltrace/plt.h"
#include "lib/proc/maps.h"
#include "lib/proc/target.h"
#include "lib/proc/workload.h"
#include "lib/symbol/elfsym.h"
#include "lib/syscall/syscalls.h"
#include "lib/util.h"
#include "ui/ltrace_print.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const ltrace_usage[] = {
	"sonde ltrace [<options>] [--] <command> [<args>]",
	"sonde ltrace [<options>] -p PID",
	NULL,
};

/* a program a traced process exec'd, or a library it dlopen'd: what its probes' names point into */
struct ltrace_cmd {
	const char *pid, *output, *conf;
	struct lt_filter *filter;
	char **lpats;
	int nr_lpats;
	char **xpats;			/* -x: globs over the program's own functions */
	int nr_xpats;
	struct plt_entry *xents;	/* the functions they name */
	int nr_xents;
	bool count, Tflag, follow, syscalls, rflag, iflag, no_signals, no_libcalls;
	int tflag, strmax, indent;
	char **cmd_argv;
	char err[512];
	/* while running */
	pid_t target;
	struct loop *loop;
	int ticks;
	struct ltrace_printer pr;
	struct ltrace *lt;
	const struct elf_obj *exe;	/* the program at the start */
	struct lt_follow fl;		/* the functions traced, as processes exec and dlopen */
};

static int opt_filter(const struct opt *op, const char *arg)
{
	struct ltrace_cmd *o = op->value;

	if (lt_filter__parse(&o->filter, arg, o->err, sizeof(o->err))) {
		error("%s", o->err);
		return -1;
	}
	return 0;
}

static int opt_lib(const struct opt *op, const char *arg)
{
	struct ltrace_cmd *o = op->value;
	char **n = realloc(o->lpats, (o->nr_lpats + 1) * sizeof(*n));

	if (!n)
		return -1;
	o->lpats = n;
	n[o->nr_lpats++] = (char *)arg;
	return 0;
}

/* -x malloc+free@*: the names of ltrace's filter chain as globs (a library part says nothing here) */
static int opt_entry(const struct opt *op, const char *arg)
{
	struct ltrace_cmd *o = op->value;
	char *dup = strdup(arg), *save = NULL;

	if (!dup)
		return -1;
	for (char *t = strtok_r(dup, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
		char **n = realloc(o->xpats, (o->nr_xpats + 1) * sizeof(*n));

		if (!n) {
			free(dup);
			return -1;
		}
		o->xpats = n;
		t[strcspn(t, "@")] = 0;
		if (*t && !(n[o->nr_xpats++] = strdup(t))) {
			free(dup);
			return -1;
		}
	}
	free(dup);
	return 0;
}

static void parse_args(struct ltrace_cmd *o, int argc, char **argv)
{
	const struct opt opts[] = {
		OPT_STRING('p', "pid", &o->pid, "PID", "attach to the running process PID (all its threads)"),
		OPT_CALLBACK('e', NULL, o, "FILTER", "which calls to trace: malloc+free, '*@libssl.so*', '-strlen' "
			     "(ltrace's filter chains; the library is the caller's)", opt_filter),
		OPT_CALLBACK('l', "library", o, "LIB", "only calls to functions that library LIB (a SONAME glob) "
			     "defines", opt_lib),
		OPT_CALLBACK('x', NULL, o, "FILTER", "also trace the program's own functions these globs name, at "
			     "their entry (its symbol table): -x 'parse_*+main'", opt_entry),
		OPT_STRING('F', "config", &o->conf, "FILE", "prototypes from FILE (ltrace.conf's syntax: "
			   "'int atoi(string);'), before sonde's own and DWARF's"),
		OPT_BOOL('c', NULL, &o->count, "count time and calls per function, and print ltrace's table at the end"),
		OPT_BOOL('T', NULL, &o->Tflag, "show the time spent in each call"),
		OPT_COUNT('t', NULL, &o->tflag, "time of day on each line (-tt: microseconds, -ttt: seconds since the epoch)"),
		OPT_BOOL('r', NULL, &o->rflag, "time since the previous line on each line"),
		OPT_BOOL('f', NULL, &o->follow, "trace children too (fork, clone), each line with its [pid N]"),
		OPT_STRING('o', "output", &o->output, "FILE", "write the trace to FILE instead of stderr"),
		OPT_INT('s', NULL, &o->strmax, "N", "the longest string shown (default 32; at most 255)"),
		OPT_BOOL('S', NULL, &o->syscalls, "show system calls too, in order with the library calls"),
		OPT_BOOL('L', NULL, &o->no_libcalls, "no library calls (with -S: the system calls only)"),
		OPT_BOOL('b', "no-signals", &o->no_signals, "no lines for the signals the program receives"),
		OPT_INT('n', "indent", &o->indent, "N", "indent each level of nested calls by N spaces"),
		OPT_BOOL('i', NULL, &o->iflag, "the address each call returns to, on each line"),
		OPT_VERBOSE(),
		OPT_END(),
	};

	argc = opt__parse(argc, argv, opts, ltrace_usage, OPT_STOP_AT_NON_OPTION);
	if (o->err[0])
		opt__usage_error(ltrace_usage, opts, "%s", o->err);
	if (argc > 0 && !strcmp(argv[0], "--"))
		argv++, argc--;
	if (argc > 0)
		o->cmd_argv = argv;
	if (o->pid && o->cmd_argv)
		opt__usage_error(ltrace_usage, opts, "-p and a command exclude each other");
	if (!o->pid && !o->cmd_argv)
		opt__usage_error(ltrace_usage, opts, "give a command to run, or -p PID");
	if (o->pid)
		opt__check_one_pid(ltrace_usage, o->pid);
	if (o->strmax < 0 || o->indent < 0)
		opt__usage_error(ltrace_usage, opts, "-s and -n take a number of 0 or more");
	if (o->strmax > LT_STR_MAX - 1)
		o->strmax = LT_STR_MAX - 1;
	if (o->rflag && o->tflag)
		opt__usage_error(ltrace_usage, opts, "-r and -t exclude each other");
}

static bool is_script(const char *path)
{
	char b[2] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool script = fd >= 0 && read(fd, b, 2) == 2 && b[0] == '#' && b[1] == '!';

	if (fd >= 0)
		close(fd);
	return script;
}

/* one line for an executable ltrace cannot trace through a PLT */
static bool untraceable(const struct elf_obj *exe, const char *name)
{
	if (exe->go)
		error("'%s' is a Go program: it calls no C library through a PLT, there is nothing to trace", name);
	else if (!exe->interp && !exe->dynamic)
		error("'%s' is statically linked: it calls no shared library (no PLT), there is nothing to trace", name);
	else if (!exe->nr_plt)
		error("'%s' has no PLT stubs (it calls no library function, or was built with -fno-plt): "
		      "there is nothing to trace", name);
	else
		return false;
	return true;
}

/* the syscalls -S decodes with a prototype: their capture plans */
static void sys_plans(struct lt_plan *plans)
{
	for (int nr = 0; nr < LT_SYS_MAX; nr++) {
		const struct syscall_desc *d = syscall__by_nr(nr);
		struct lt_proto p;
		char name[64];
		const char *sig;

		if (!d)
			continue;
		snprintf(name, sizeof(name), "SYS_%s", d->name);
		if ((sig = lt_proto__lookup(name)) && !lt_proto__parse(sig, &p))
			lt_plan__of(&p, &plans[nr]);
	}
}

static void follow_warn(void *ctx, const char *msg)
{
	(void)ctx;
	warning("%s", msg);
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct ltrace_cmd *o = ctx;
	const struct lt_event *e = data;

	if (size >= LT_EV_HDR && e->type == LT_EXEC)
		lt_follow__exec(&o->fl, e->pid, e->idx);
	if (size >= LT_EV_HDR && e->type == LT_DLOPEN) {
		lt_follow__dlopen(&o->fl, e->pid, e->idx);
		return 0;
	}
	/* the table grows as they probe more */
	o->pr.funcs = o->fl.funcs;
	o->pr.nr_funcs = o->fl.nr_funcs;
	return ltrace_printer__event(&o->pr, data, size);
}

/*
 * Every 20 ms: drain the ring buffer (the kernel side wakes the reader only
 * once a 16th of it is full), write the lines out; every 100 ms: is the -p
 * process still there
 */
static int tick(void *ctx, int fd, short revents)
{
	struct ltrace_cmd *o = ctx;

	(void)fd;
	(void)revents;
	loop__consume(o->loop);
	fflush(o->pr.out);
	return o->pid && ++o->ticks % 5 == 0 && !target__alive(o->target);
}

static bool lib_loaded(const struct elf_obj *libs, int n, const char *pat)
{
	for (int i = 0; i < n; i++)
		if (!fnmatch(pat, libs[i].soname, 0))
			return true;
	return false;
}

static int run(struct ltrace_cmd *o, struct lt_funcs *fs, struct workload *w)
{
	struct ltrace_probe *probes = calloc(fs->n + 1, sizeof(*probes));
	struct lt_plan *plans = calloc(fs->n + 1, sizeof(*plans)), sysplans[LT_SYS_MAX];
	struct ltrace_opts lo = { .pid = o->target, .follow = o->follow, .syscalls = o->syscalls,
				  .hold_exec = !o->pid };
	struct timespec rt, mt;
	struct loop loop;
	enum loop_end end;
	size_t left;
	int rc = 1;

	memset(sysplans, 0, sizeof(sysplans));
	o->fl.filter = o->filter;
	o->fl.lpats = o->lpats;
	o->fl.nr_lpats = o->nr_lpats;
	o->fl.no_libcalls = o->no_libcalls;
	o->fl.warn = follow_warn;
	if (!probes || !plans || lt_follow__start(&o->fl, fs)) {
		error("out of memory");
		goto out;
	}
	for (int i = 0; i < fs->n; i++) {
		probes[i] = (struct ltrace_probe){ fs->f[i].path, fs->f[i].offset, i };
		plans[i] = fs->f[i].plan;
	}
	if (o->syscalls)
		sys_plans(sysplans);
	lo.probes = probes;
	lo.nr_probes = fs->n;
	lo.plans = plans;
	lo.nr_plans = fs->n;
	lo.sysplans = sysplans;
	lo.targets = w->pid ? NULL : &o->target;
	lo.nr_targets = w->pid ? 0 : 1;
	lo.held = w->pid;
	/* libraries a process dlopens: watched when -e or -l look at libraries */
	if ((lt_filter__libraries(o->filter) || o->nr_lpats) && !o->no_libcalls && o->exe->interp_path &&
	    !elfsym__func_offset(o->exe->interp_path, "_dl_debug_state", &lo.dl_offset))
		lo.dl_path = o->exe->interp_path;
	o->pr.funcs = o->fl.funcs;
	o->pr.nr_funcs = o->fl.nr_funcs;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	o->pr.real_off_ns = (rt.tv_sec - mt.tv_sec) * 1000000000LL + (rt.tv_nsec - mt.tv_nsec);
	if ((rc = ltrace__new(&o->lt, &lo, o->err, sizeof(o->err))) || (rc = loop__init(&loop))) {
		error("%s", o->err[0] ? o->err : strerror(-rc));
		if (w->pid)
			workload__abort(w);
		rc = 1;
		goto out;
	}
	o->fl.lt = o->lt;
	debug(1, "%d PLT stubs probed (%s%s)", fs->n, ltrace__multi(o->lt) ? "uprobe_multi links" : "perf-event uprobes",
	      ltrace__jumps(o->lt) ? ", the stubs' jumps done in BPF" : "");
	if ((rc = loop__add_ringbuf(&loop, ltrace__ringbuf_fd(o->lt), on_record, o))) {
		error("cannot read the ring buffer: %s", strerror(-rc));
		rc = 1;
		if (w->pid)
			workload__abort(w);
		goto out_loop;
	}
	if (w->pid && (rc = opt__start_command(w, o->cmd_argv)))
		goto out_loop;
	if (w->pid)
		loop__set_child(&loop, w->pid);
	o->loop = &loop;
	loop__set_tick(&loop, 20, tick, o);
	end = loop__run(&loop);
	if (end == LOOP_ERROR)
		error("polling failed: %s", strerror(-loop.err));
	ltrace__detach(o->lt);
	if ((left = loop__drain(&loop)))
		warning("%zu call records not read: more came than sonde could read in %d s after the end",
			left, LOOP_DRAIN_MS / 1000);
	ltrace_printer__flush(&o->pr);
	if (o->count)
		ltrace_printer__summary(&o->pr);
	if (ltrace__counter(o->lt, LT_LOST))
		warning("%llu records lost: the ring buffer was full (calls missing above)",
			(unsigned long long)ltrace__counter(o->lt, LT_LOST));
	rc = loop__exit_code(&loop, end);
	if (end == LOOP_STOP && o->pid)
		rc = 0;
out_loop:
	loop__fini(&loop);
out:
	free(probes);
	free(plans);
	return rc;
}

/* -F FILE: the prototypes it declares; -1 when it cannot be read (said) */
static int load_conf(const char *conf)
{
	int rc, line;

	if (!conf || !(rc = lt_conf__load(conf, &line)))
		return 0;
	if (line)
		error("%s:%d: not a prototype sonde reads (TYPE NAME(TYPE, ...);)", conf, line);
	else
		error("cannot read '%s': %s", conf, strerror(-rc));
	return -1;
}

/*
 * The program to trace: -p's process (its /proc/PID/exe), or the command's
 * file found in PATH; its path into exe_path, its name for messages into
 * name, and the ELF file read into exe. 0, or sonde's exit status (said).
 */
static int find_program(struct ltrace_cmd *o, struct elf_obj *exe, char *exe_path, char *name)
{
	char probe_path[64];
	int rc;

	if (o->pid) {
		o->target = atoi(o->pid);
		if (!target__alive(o->target)) {
			error("cannot attach to process %d: no such process", (int)o->target);
			return 1;
		}
		o->target = target__tgid(o->target);	/* a thread's id stands for its process */
		snprintf(probe_path, sizeof(probe_path), "/proc/%d/exe", (int)o->target);
		ssize_t n = readlink(probe_path, name, PATH_MAX - 1);

		name[n > 0 ? n : 0] = 0;
		snprintf(exe_path, PATH_MAX, "%s", probe_path);
	} else if (util__find_command(o->cmd_argv[0], exe_path, PATH_MAX)) {
		error("cannot run '%s': no such file or command", o->cmd_argv[0]);
		return 127;
	} else {
		snprintf(name, PATH_MAX, "%s", o->cmd_argv[0]);
	}
	if ((rc = elf_obj__read(exe, exe_path))) {
		if (rc == -ENOEXEC && is_script(exe_path))
			error("'%s' is a script: trace its interpreter (sonde ltrace -- INTERPRETER %s)", name, name);
		else
			error("cannot read '%s': %s", name, rc == -ENOEXEC ? "not an ELF executable of this machine"
									     : strerror(-rc));
		return rc == -ENOENT && o->cmd_argv ? 127 : 1;
	}
	return 0;
}

/* the functions -e, -l, -x and the table choose in sel's program and libraries, into fs; -1 when none (said) */
static int choose_functions(struct ltrace_cmd *o, const struct lt_select *sel, const char *name,
			    struct lt_funcs *fs)
{
	int rc;

	for (int i = 0; i < o->nr_lpats; i++)
		if (!lib_loaded(sel->libs, sel->nr_libs, o->lpats[i])) {
			if (o->pid)
				error("process %d maps no library matching '%s'", (int)o->target, o->lpats[i]);
			else
				error("'%s' loads no library matching '%s'", name, o->lpats[i]);
			return -1;
		}
	if (!o->no_libcalls && (rc = lt_funcs__select(sel, fs))) {
		error("cannot choose the functions to trace: %s", strerror(-rc));
		return -1;
	}
	if (o->nr_xpats && ((rc = elf_obj__functions(sel->exe_path, o->xpats, o->nr_xpats, &o->xents, &o->nr_xents)) ||
			    (rc = lt_funcs__add_entries(fs, o->xents, o->nr_xents, NULL, sel->exe_path)))) {
		error("cannot read the functions of '%s': %s", name, strerror(-rc));
		return -1;
	}
	/* a filter over libraries may match those the program dlopens later (ltrace waits for them too) */
	if (!fs->n && !o->no_libcalls && !((lt_filter__libraries(o->filter) || o->nr_lpats) && sel->exe->interp_path)) {
		error("no function of '%s' matches the filters: nothing to trace", name);
		return -1;
	}
	return 0;
}

/* -o FILE (else stderr) and the printer's settings from the options; -1 when FILE cannot be opened (said) */
static int open_printer(struct ltrace_cmd *o, FILE **out)
{
	if (o->output && !(*out = fopen(o->output, "w"))) {
		error("cannot open '%s': %s", o->output, strerror(errno));
		*out = stderr;
		return -1;
	}
	/* lines go out in blocks, flushed every tick (stderr is unbuffered: two writes a line) */
	setvbuf(*out, NULL, _IOFBF, 1 << 16);
	ltrace_printer__init(&o->pr, *out);
	o->pr.strmax = o->strmax;
	o->pr.show_caller = o->filter || o->nr_lpats;
	/* ltrace's prefixes: "[pid N] " with -f; "N " with -f or -p when the trace goes to a file */
	o->pr.pid_prefix = o->output && (o->follow || o->pid) ? 2 : o->follow ? 1 : 0;
	o->pr.tflag = o->tflag;
	o->pr.rflag = o->rflag;
	o->pr.Tflag = o->Tflag;
	o->pr.iflag = o->iflag;
	o->pr.indent = o->indent;
	o->pr.count = o->count;
	o->pr.no_signals = o->no_signals;
	return 0;
}

int cmd_ltrace(int argc, char **argv)
{
	struct ltrace_cmd o = { .strmax = 32 };
	struct workload w = { .pid = 0, .go_fd = -1, .err_fd = -1 };
	struct elf_obj exe = { 0 }, *libs = NULL;
	struct lt_funcs fs = { 0 };
	char exe_path[PATH_MAX], name[PATH_MAX];
	FILE *out = stderr;
	int nlibs = 0, rc = 1;

	parse_args(&o, argc, argv);
	bpfutil__setup_log(verbose);
	if (load_conf(o.conf) || (rc = find_program(&o, &exe, exe_path, name)))
		goto out;
	rc = 1;
	if (!o.no_libcalls && untraceable(&exe, name))
		goto out;
	/* the libraries: for -e and -l, and for the DWARF of the functions the table does not know */
	if (ltrace_libs__find(&exe, o.target, &libs, &nlibs)) {
		error("out of memory");
		goto out;
	}
	struct lt_select sel = { &exe, exe_path, libs, nlibs, o.filter, o.lpats, o.nr_lpats, true };

	o.exe = &exe;
	if (choose_functions(&o, &sel, name, &fs))
		goto out;
	if (open_printer(&o, &out))
		goto out;
	if (o.cmd_argv) {
		if ((rc = workload__prepare(&w, o.cmd_argv))) {
			error("cannot start '%s': %s", o.cmd_argv[0], strerror(-rc));
			rc = 1;
			goto out_pr;
		}
		o.target = w.pid;
	}
	rc = run(&o, &fs, &w);
out_pr:
	ltrace_printer__fini(&o.pr);
	if (out != stderr)
		fclose(out);
out:
	ltrace__free(o.lt);
	lt_follow__free(&o.fl);
	lt_funcs__free(&fs);
	for (int i = 0; i < o.nr_xents; i++)
		free(o.xents[i].name);
	free(o.xents);
	for (int i = 0; i < o.nr_xpats; i++)
		free(o.xpats[i]);
	free(o.xpats);
	ltrace_libs__free(libs, nlibs);
	elf_obj__free(&exe);
	lt_filter__free(o.filter);
	lt_conf__free();
	free(o.lpats);
	return rc;
}
