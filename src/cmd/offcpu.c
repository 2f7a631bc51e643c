// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu.c - `sonde offcpu`: time spent blocked (off CPU), by user and kernel
 * stack, aggregated in the kernel, printed as BCC's offcputime prints it or
 * folded (-f) for flame graphs; with --wall, on-CPU samples of the same run
 * join in, weighted by time, for a wall-clock (hot/cold) profile. The engine
 * is lib/bpf/bpf_offcpu.h (and offcpu_maps.h), the output ui/offcpu_print.h.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/bpf/bpf_mmaps.h"
#include "lib/bpf/bpf_offcpu.h"
#include "lib/bpf/bpf_util.h"
#include "lib/loop/loop.h"
#include "lib/bpf/offcpu_maps.h"
#include "lib/symbol/symbol.h"
#include "lib/proc/target.h"
#include "lib/proc/workload.h"
#include "stack_run.h"
#include "ui/offcpu_print.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const offcpu_usage[] = {
	"sonde offcpu [<options>] [--] <command> [<args>]",
	"sonde offcpu [<options>] -p PID | -t TID | -a [--duration S | -- <command>]",
	NULL,
};

struct offcpu_cmd {
	const char *state, *output, *call_graph;
	bool folded, delimited, user_only, kern_only, wall, no_follow, tracepoint, uthreads, kthreads;
	double duration, min_us, max_us;
	uint64_t freq;
	int stack_storage;
	struct offcpu_opts oo;	/* what the options ask of the engine */
	struct target_opts to;	/* -p/-t/-a as given */
	struct target tg;	/* -p/-t/-a, checked */
	pid_t *ids;		/* -p: the processes (the BPF side follows their threads); -t: the threads */
	int nids;
	bool cmd_target;	/* the command is the target (not only how long, as with -p/-t/-a -- CMD) */
	bool dwarf_chosen;	/* no --call-graph: dwarf because an object lacks frame pointers */
};

/* "D", "S", "R", "I" or a number; -1 on error */
static long parse_state(const char *s)
{
	static const char *const names[] = { "R", "S", "D" };
	char *end;
	long v;

	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i]))
			return i;
	if (!strcmp(s, "I"))
		return 0x80;
	v = strtol(s, &end, 0);
	return *end || end == s || v < 0 ? -1 : v;
}

static int parse_args(struct offcpu_cmd *o, int argc, char **argv)
{
	const struct opt opts[] = {
		OPT_GROUP("target (default: every thread, as -a)"),
		OPT_TARGET_ALL(&o->to),
		OPT_TARGET_PID(&o->to),
		OPT_TARGET_TID(&o->to),
		OPT_BOOL(0, "no-follow", &o->no_follow, "with -- CMD or -p: do not add the processes they fork"),
		OPT_DURATION(&o->duration),
		OPT_GROUP("what counts"),
		OPT_DOUBLE('m', "min-block", &o->min_us, "US", "only blocks of at least US microseconds"),
		OPT_DOUBLE('M', "max-block", &o->max_us, "US", "only blocks of at most US microseconds"),
		OPT_STRING(0, "state", &o->state, "STATE",
			   "only threads that blocked in this state: S, D (uninterruptible), I (idle), R (preempted) or a number"),
		OPT_BOOL('u', "user-threads-only", &o->uthreads, "user threads only (no kernel threads)"),
		OPT_BOOL('k', "kernel-threads-only", &o->kthreads, "kernel threads only (no user threads)"),
		OPT_BOOL('U', "user-only", &o->user_only, "user stacks only"),
		OPT_BOOL('K', "kernel-only", &o->kern_only, "kernel stacks only"),
		OPT_STRING('g', "call-graph", &o->call_graph, "MODE",
			   "user stacks: fp (frame pointers) or dwarf[,SIZE] (copy SIZE bytes of stack, unwind with DWARF CFI); "
			   "default: dwarf where an object the targets map has no frame pointers, else fp"),
		OPT_BOOL(0, "wall", &o->wall, "wall-clock profile: add on-CPU samples, weighted by time (implies -f)"),
		OPT_FREQ(&o->freq, "with --wall: on-CPU samples per second (default 99); 'max' for "
			 "kernel.perf_event_max_sample_rate"),
		OPT_INT(0, "stack-storage-size", &o->stack_storage, "N", "stacks the BPF maps can hold (default 10240)"),
		OPT_BOOL(0, "tracepoint", &o->tracepoint, "use the classic sched_switch tracepoint even where tp_btf works"),
		OPT_GROUP("output"),
		OPT_BOOL('f', "folded", &o->folded, "folded stacks, weights in microseconds (flamegraph.pl, sonde flame)"),
		OPT_BOOL('d', "delimited", &o->delimited, "a '-' frame between user and kernel stacks"),
		OPT_STRING('o', "output", &o->output, "FILE", "write to FILE instead of stdout"),
		OPT_VERBOSE(),
		OPT_END(),
	};

	o->to.default_all = true;
	argc = opt__parse_target(argc, argv, opts, offcpu_usage, OPT_STOP_AT_NON_OPTION, &o->to, &o->tg);
	if (argc < 0)
		return -1;
	if (o->user_only && o->kern_only)
		opt__usage_error(offcpu_usage, opts, "--user-only and --kernel-only exclude each other");
	if (o->uthreads && o->kthreads)
		opt__usage_error(offcpu_usage, opts, "--user-threads-only and --kernel-threads-only exclude each other");
	if (o->min_us < 0 || o->max_us < 0 || (o->max_us && o->max_us < o->min_us))
		opt__usage_error(offcpu_usage, opts, "--min-block and --max-block take microseconds, min <= max");
	if (o->state && (o->oo.state = parse_state(o->state)) < 0)
		opt__usage_error(offcpu_usage, opts, "--state takes S, D, I, R or a number, not '%s'", o->state);
	if (o->call_graph && (o->oo.dwarf_size = opt__call_graph(o->call_graph, OFFCPU_DWARF_STACK, OFFCPU_DWARF_STACK)) < 0)
		opt__usage_error(offcpu_usage, opts, "--call-graph takes fp or dwarf[,SIZE] (SIZE: 256 to %d bytes), not '%s'",
				 OFFCPU_DWARF_STACK, o->call_graph);
	if (o->to.pids || o->to.tids) {
		o->nids = o->to.pids ? o->tg.nr_pids : o->tg.nr_tids;
		o->ids = o->to.pids ? o->tg.pids : o->tg.tids;
	}
	o->cmd_target = argc && !o->nids && !o->to.all;	/* with -p/-t/-a, the command only says how long */
	return argc;
}

/* what the engine is asked; without --call-graph, dwarf where frame pointers cannot give whole stacks */
static void set_engine_opts(struct offcpu_cmd *o, const char *cmd, struct offcpu_maps *mw)
{
	struct offcpu_opts *oo = &o->oo;
	const char *why = NULL;
	char objwhy[320];

	oo->filter = o->to.tids ? OFFCPU_TID : o->to.pids || o->cmd_target ? OFFCPU_TGID : OFFCPU_ALL;
	oo->targets = o->ids;
	oo->nr_targets = o->nids;
	oo->follow = !o->no_follow;
	oo->user_only = o->user_only;
	oo->kern_only = o->kern_only;
	oo->threads = o->uthreads ? 1 : o->kthreads ? 2 : 0;
	oo->min_ns = (uint64_t)(o->min_us * 1000);
	oo->max_ns = (uint64_t)(o->max_us * 1000);
	oo->wall_hz = o->wall ? (int)o->freq : 0;
	oo->max_stacks = o->stack_storage;
	oo->force_tracepoint = o->tracepoint;
	oo->sym = mw->sym;
	oo->before_unwind = offcpu_maps__before_unwind;
	oo->before_unwind_ctx = mw;
	oo->refresh_maps = offcpu_maps__refresh;
	if (o->kern_only)
		oo->dwarf_size = 0;	/* no user stacks to unwind */
	else if (!o->call_graph && !o->tracepoint && bpf_probe__tp_btf("sched_switch", &why) &&
		 offcpu__needs_dwarf(o->ids, o->nids, o->cmd_target ? cmd : NULL, objwhy, sizeof(objwhy))) {
		oo->dwarf_size = OFFCPU_DWARF_STACK;
		o->dwarf_chosen = true;
		debug(1, "user stacks unwound with DWARF: %s", objwhy);
	}
}

static void warn_losses(const struct offcpu_profile *p, const struct offcpu_cmd *o, struct symbolizer *sym)
{
	const uint64_t *st = p->stats;

	if (st[OFFCPU_STAT_START_FULL] || st[OFFCPU_STAT_INFO_FULL])
		warning("%llu off-CPU events were dropped: the BPF maps are full; "
			"raise --stack-storage-size or narrow the target",
			(unsigned long long)(st[OFFCPU_STAT_START_FULL] + st[OFFCPU_STAT_INFO_FULL]));
	if ((!o->kern_only && st[OFFCPU_STAT_USTACK_ERR]) || (!o->user_only && st[OFFCPU_STAT_KSTACK_ERR]))
		warning("%llu stack traces could not be captured (stack map full or hash collisions); "
			"raise --stack-storage-size",
			(unsigned long long)(st[OFFCPU_STAT_USTACK_ERR] + st[OFFCPU_STAT_KSTACK_ERR]));
	if (p->prog_misses)
		warning("%llu context switches were not traced (the kernel skipped the BPF program: "
			"another was running on that CPU); blocks may be missing",
			(unsigned long long)p->prog_misses);
	if (st[OFFCPU_STAT_RB_LOST])
		warning("%llu blocks kept with frame-pointer user stacks, which may lack callers: the ring "
			"buffer of stack copies was full (DWARF unwinding is slower than that many switches)",
			(unsigned long long)st[OFFCPU_STAT_RB_LOST]);
	if (st[OFFCPU_STAT_UNSEEN_IN])
		debug(1, "%llu blocks ended with no switch-in from the tracepoint: ended at the next "
		      "switch-out less the time run since (%llu counted up to that switch-out)",
		      (unsigned long long)st[OFFCPU_STAT_UNSEEN_IN], (unsigned long long)st[OFFCPU_STAT_UNSEEN_EST]);
	if (p->dwarf_failed)
		debug(1, "%llu user stacks could not be unwound", (unsigned long long)p->dwarf_failed);
	if (o->oo.dwarf_size)
		debug(1, "user stacks: %llu walked in the kernel with cached rules, %llu copied and unwound here",
		      (unsigned long long)st[OFFCPU_STAT_WALKED], (unsigned long long)st[OFFCPU_STAT_WALK_MISS]);
	if (!o->kern_only && !o->oo.dwarf_size && offcpu_profile__fp_gap(sym, p))
		hint("user stacks are walked with frame pointers: the caller of a function in a library "
		     "built without them (Debian's libc) may be missing; --call-graph dwarf unwinds them");
}

static int report(const struct offcpu_cmd *o, struct offcpu *oc, struct offcpu_maps *mw)
{
	const struct offcpu_print po = { o->user_only, o->kern_only, o->delimited, o->wall };
	struct offcpu_profile p;
	FILE *out = stdout;
	int rc = offcpu__read(oc, &p);

	if (rc) {
		error("cannot read the off-CPU maps: %s", strerror(-rc));
		return 1;
	}
	offcpu_maps__load_rest(mw, &p);	/* processes still alive at the end: their current maps */
	if (o->output && !(out = fopen(o->output, "w"))) {
		error("cannot open '%s': %s", o->output, strerror(errno));
		offcpu_profile__free(&p);
		return 1;
	}
	if (!o->folded)
		offcpu_print__text(out, mw->sym, &p, &po);
	else if ((rc = offcpu_print__folded(out, mw->sym, &p, &po)))
		error("cannot write the folded stacks: %s", strerror(-rc));
	warn_losses(&p, o, mw->sym);
	debug(1, "%llu switch-outs traced, %llu blocks ended, %d stacks, %llu on-CPU samples, hook %s, user stacks %s",
	      (unsigned long long)p.stats[OFFCPU_STAT_SWITCHES], (unsigned long long)p.stats[OFFCPU_STAT_BLOCKS], p.n,
	      (unsigned long long)p.stats[OFFCPU_STAT_SAMPLES], offcpu__hook(oc), o->oo.dwarf_size ? "dwarf" : "fp");
	offcpu_profile__free(&p);
	if (out != stdout && fclose(out)) {
		error("cannot write '%s': %s", o->output, strerror(errno));
		return 1;
	}
	return rc ? 1 : 0;
}

/* offcputime's first line, in its default layout */
static void print_header(const struct offcpu_cmd *o, const char *cmd)
{
	const struct offcpu_print po = { o->user_only, o->kern_only, o->delimited, o->wall };
	char what[300];

	if (o->folded || o->wall || o->output)
		return;
	snprintf(what, sizeof(what), o->to.pids ? "PID %s" : o->to.tids ? "TID %s" : cmd ? "'%s'" : "all threads",
		 o->to.pids ? o->to.pids : o->to.tids ? o->to.tids : cmd ? cmd : "");
	offcpu_print__header(stdout, what, &po, o->duration);
	fflush(stdout);
}

int cmd_offcpu(int argc, char **argv)
{
	struct offcpu_cmd o = { .freq = 99, .oo.state = -1 };
	struct offcpu *oc = NULL;
	struct stack_run r;
	enum loop_end end;
	size_t left;
	char err[512] = "";
	int rc = 1;

	argc = parse_args(&o, argc, argv);
	if (argc < 0)
		return 1;	/* a pid that does not exist: said, the targets freed */
	bpfutil__setup_log(verbose);
	if (stack_run__init(&r)) {
		target__free(&o.tg);
		return 1;
	}
	set_engine_opts(&o, argc ? argv[0] : NULL, &r.mw);
	if (argc && stack_run__prepare(&r, argv))
		goto out;
	if (o.cmd_target) {
		stack_run__watch_maps(&r, NULL);
		o.oo.targets = &r.w.pid, o.oo.nr_targets = 1;	/* the command and its forks */
	} else if (o.oo.filter == OFFCPU_TGID) {
		stack_run__watch_maps(&r, &o.tg);	/* -p: a target may exec and exit between ticks */
	}
	rc = offcpu__new(&oc, &o.oo, err, sizeof(err));
	if (!rc)
		rc = offcpu__attach(oc, err, sizeof(err));
	if ((rc = stack_run__ready(&r, rc, err, argc > 0)))
		goto out;
	debug(1, "sched_switch hook: %s", offcpu__hook(oc));
	if (o.oo.filter == OFFCPU_TGID && !o.cmd_target)
		r.mw.targets_fd = offcpu__targets_fd(oc);
	if (!argc)
		r.mw.watched = o.ids, r.mw.nr_watched = o.nids;
	if ((rc = stack_run__go(&r, argv, o.duration)))
		goto out;
	print_header(&o, o.cmd_target ? argv[0] : NULL);
	if (offcpu__dwarf_fd(oc) >= 0 &&
	    (rc = loop__add_ringbuf(&r.loop, offcpu__dwarf_fd(oc), offcpu__dwarf_event, oc))) {
		error("cannot poll the BPF ring buffer: %s", strerror(-rc));
		rc = 1;
		goto out;
	}
	end = loop__run(&r.loop);	/* a command still running after a stop is ended there */
	stack_run__stopped(&r, end);
	offcpu__detach(oc);
	if ((left = loop__drain(&r.loop)))
		warning("%zu stack copies not read, their blocks lost: more came than sonde could unwind "
			"in %d s after the end", left, LOOP_DRAIN_MS / 1000);
	o.folded |= o.wall;
	rc = report(&o, oc, &r.mw);
	if (!rc)	/* README "Exit status" */
		rc = loop__exit_code(&r.loop, end);
out:
	offcpu__free(oc);
	stack_run__free(&r);
	target__free(&o.tg);
	return rc;
}
