// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu.c - `sonde offcpu`: time spent blocked (off CPU), by user and kernel
 * stack, aggregated in the kernel, printed as BCC's offcputime prints it or
 * folded (-f) for flame graphs; with --wall, on-CPU samples of the same run
 * join in, weighted by time, for a wall-clock (hot/cold) profile.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/flame/folded.h"
#include "lib/bpf/bpf_loop.h"
#include "lib/bpf/bpf_mmaps.h"
#include "lib/bpf/bpf_offcpu.h"
#include "lib/bpf/bpf_util.h"
#include "lib/symbol/symbol.h"
#include "lib/proc/target.h"
#include "lib/proc/workload.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const offcpu_usage[] = {
	"sonde offcpu [<options>] [--] <command> [<args>]",
	"sonde offcpu [<options>] -p PID | -t TID | -a [--duration S | -- <command>]",
	NULL,
};

struct offcpu_cmd {
	const char *pids, *tids, *state, *output, *call_graph;
	bool all, folded, delimited, user_only, kern_only, wall, no_follow, tracepoint;
	double duration, min_us, max_us;
	uint64_t freq;
	int stack_storage;
};

/* "D", "S", "R", "I" or a number; -1 on error */
static long parse_state(const char *s)
{
	char *end;
	long v;

	if (!strcmp(s, "R"))
		return 0;
	if (!strcmp(s, "S"))
		return 1;
	if (!strcmp(s, "D"))
		return 2;
	if (!strcmp(s, "I"))
		return 0x80;
	v = strtol(s, &end, 0);
	if (*end || end == s || v < 0)
		return -1;
	return v;
}

/* what is printed for a frame: "sym", or "[unknown]" */
struct frames {
	struct symbolizer *sym;
	bool annotate_kernel;	/* not used by offcputime's output; kept for folded consumers */
};

static const char *frame_name(struct symbolizer *s, pid_t tgid, uint64_t addr, bool kernel)
{
	struct sym_frame f;

	if (symbolizer__resolve(s, tgid, addr, kernel, &f, 1) >= 1 && f.sym)
		return f.sym;
	return "[unknown]";
}

/* the frames of the tracing machinery itself at the top of a kernel stack */
static int kern_skip(struct symbolizer *s, const struct offcpu_entry *e)
{
	int i = 0;

	for (; i < e->nr_kern; i++) {
		const char *n = frame_name(s, e->key.tgid, e->kern[i], true);

		if (strncmp(n, "bpf_prog_", 9) && strncmp(n, "bpf_trace_run", 13) &&
		    strncmp(n, "__bpf_trace_", 12) && strncmp(n, "perf_trace_", 11) &&
		    strcmp(n, "trace_call_bpf") && strncmp(n, "__traceiter_", 12) &&
		    strcmp(n, "perf_tp_event") && strcmp(n, "perf_swevent_hrtimer") &&
		    strncmp(n, "bpf_overflow_handler", 20) && strcmp(n, "__perf_event_overflow"))
			break;
	}
	return i;
}

/* BCC's test: a negative id other than -EFAULT (kernel threads have no user stack) is a miss */
static bool stack_missed(int32_t id)
{
	return id < 0 && id != -EFAULT;
}

static void print_entry(FILE *out, struct symbolizer *s, const struct offcpu_entry *e,
			const struct offcpu_cmd *o)
{
	if (!o->user_only) {
		if (stack_missed(e->key.kern_stack_id))
			fprintf(out, "    [Missed Kernel Stack]\n");
		for (int i = kern_skip(s, e); i < e->nr_kern; i++)
			fprintf(out, "    %s\n", frame_name(s, e->key.tgid, e->kern[i], true));
	}
	if (!o->kern_only) {
		if (o->delimited && !o->user_only && e->key.user_stack_id >= 0 && e->key.kern_stack_id >= 0)
			fprintf(out, "    --\n");
		if (stack_missed(e->key.user_stack_id))
			fprintf(out, "    [Missed User Stack]\n");
		for (int i = 0; i < e->nr_user; i++)
			fprintf(out, "    %s\n", frame_name(s, e->key.tgid, e->user[i], false));
	}
	fprintf(out, "    %-16s %s (%u)%s\n", "-", e->key.comm, e->key.pid, e->oncpu ? " [on CPU]" : "");
	fprintf(out, "        %llu\n\n", (unsigned long long)(e->ns / 1000));
}

/*
 * folded: comm;user frames, root first;kernel frames, root first  microseconds.
 * Stacks go through a folded tree, so that two kernel stack ids whose frames
 * have the same names become one line, as flame graph tools expect.
 */
static int add_folded(struct folded *f, struct symbolizer *s, const struct offcpu_entry *e,
		      const struct offcpu_cmd *o)
{
	/* --wall: off-CPU frames carry flamegraph.pl's _[w] annotation (--colors chain) */
	const char *mark = o->wall && !e->oncpu ? "_[w]" : "";
	uint64_t us = e->ns / 1000;
	size_t cap = (size_t)e->nr_user + e->nr_kern + 4, n = 0;
	char **names;
	size_t *lens;
	int rc;

	if (!us)
		return 0;
	names = calloc(cap, sizeof(*names));
	lens = calloc(cap, sizeof(*lens));
	if (!names || !lens) {
		free(names);
		free(lens);
		return -ENOMEM;
	}
#define PUSH(...) do { if (asprintf(&names[n], __VA_ARGS__) < 0) { rc = -ENOMEM; goto out; } lens[n] = strlen(names[n]); n++; } while (0)
	PUSH("%s", e->key.comm);
	if (!o->kern_only) {
		if (stack_missed(e->key.user_stack_id))
			PUSH("[Missed User Stack]%s", mark);
		for (int i = e->nr_user - 1; i >= 0; i--)
			PUSH("%s%s", frame_name(s, e->key.tgid, e->user[i], false), mark);
	}
	if (!o->user_only) {
		if (o->delimited && !o->kern_only)
			PUSH("-");
		if (stack_missed(e->key.kern_stack_id))
			PUSH("[Missed Kernel Stack]%s", mark);
		for (int i = e->nr_kern - 1, skip = kern_skip(s, e); i >= skip; i--)
			PUSH("%s%s", frame_name(s, e->key.tgid, e->kern[i], true), mark);
	}
#undef PUSH
	rc = folded__add_frames(f, (const char *const *)names, lens, n, (double)us, 0);
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(lens);
	return rc;
}

/* the memory maps of the traced processes, read while they live */
struct maps_watch {
	struct symbolizer *sym;
	struct bpf_mmaps *mm;	/* -- CMD: the maps as the kernel reports them */
	int targets_fd;		/* -p: snapshots of /proc/PID/maps; -1: maps are read at the end */
	pid_t *seen;
	int nr_seen;
	const pid_t *watched;	/* -p/-t: stop when all are gone */
	int nr_watched;
	double last_drain;
};

static bool seen(struct maps_watch *w, pid_t p)
{
	for (int i = 0; i < w->nr_seen; i++)
		if (w->seen[i] == p)
			return true;
	return false;
}

/*
 * Snapshot a process's executable maps with their paths as this mount namespace
 * sees them: unlike /proc/PID/root/..., these paths still open once the process
 * has exited, which a `-- CMD` target usually has by the time we symbolize.
 */
static void snapshot_maps(struct symbolizer *s, pid_t pid)
{
	char path[64], line[4352];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;		/* gone: keep the last snapshot */
	symbolizer__exec(s, pid);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perms[8];
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %*u %n", &lo, &hi, perms, &off, &pos) < 4 ||
		    !pos || !strchr(perms, 'x'))
			continue;
		line[pos + strcspn(line + pos, "\n")] = 0;
		symbolizer__add_mmap(s, pid, lo, hi - lo, off, line + pos, NULL, 0);
	}
	fclose(f);
}

static void mark_seen(struct maps_watch *w, pid_t p)
{
	pid_t *ns;

	if (seen(w, p) || !(ns = realloc(w->seen, (w->nr_seen + 1) * sizeof(*ns))))
		return;
	w->seen = ns;
	w->seen[w->nr_seen++] = p;
}

static int maps_tick(void *ctx)
{
	struct maps_watch *w = ctx;
	uint32_t k, next, *prev = NULL;
	bool alive = false;

	bpf_mmaps__drain(w->mm);
	/* the targets' maps, every tick: they may exec, and exit before the end */
	while (w->targets_fd >= 0 && !bpf_map_get_next_key(w->targets_fd, prev, &next)) {
		k = next;
		prev = &k;
		snapshot_maps(w->sym, k);
		mark_seen(w, k);
	}
	alive = target__any_alive(w->watched, w->nr_watched);
	return w->nr_watched && !alive;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --call-graph dwarf: the maps of tgid must be known before its stack is unwound */
static void before_unwind(void *ctx, pid_t tgid)
{
	struct maps_watch *w = ctx;
	double t = now_s();

	if (w->mm) {	/* new maps arrive as records: read them often, and for every new process */
		if (!seen(w, tgid) || t - w->last_drain > 0.005) {
			bpf_mmaps__drain(w->mm);
			w->last_drain = t;
			mark_seen(w, tgid);
		}
	} else if (!seen(w, tgid)) {
		symbolizer__load_proc_maps(w->sym, tgid);
		mark_seen(w, tgid);
	}
}

static bool warn_losses(const struct offcpu_profile *p, const struct offcpu_cmd *o)
{
	const uint64_t *st = p->stats;
	bool any = false;

	if (st[OFFCPU_STAT_START_FULL] || st[OFFCPU_STAT_INFO_FULL]) {
		warning("%llu off-CPU events were dropped: the BPF maps are full; "
			"raise --stack-storage-size or narrow the target",
			(unsigned long long)(st[OFFCPU_STAT_START_FULL] + st[OFFCPU_STAT_INFO_FULL]));
		any = true;
	}
	if ((!o->kern_only && st[OFFCPU_STAT_USTACK_ERR]) || (!o->user_only && st[OFFCPU_STAT_KSTACK_ERR])) {
		warning("%llu stack traces could not be captured (stack map full or hash collisions); "
			"raise --stack-storage-size",
			(unsigned long long)(st[OFFCPU_STAT_USTACK_ERR] + st[OFFCPU_STAT_KSTACK_ERR]));
		any = true;
	}
	if (p->prog_misses) {
		warning("%llu context switches were not traced (the kernel skipped the BPF program: "
			"another was running on that CPU); blocks may be missing",
			(unsigned long long)p->prog_misses);
		any = true;
	}
	if (st[OFFCPU_STAT_UNSEEN_IN])
		debug(1, "%llu blocks ended with no switch-in from the tracepoint: ended at the next "
		      "switch-out less the time run since (%llu counted up to that switch-out)",
		      (unsigned long long)st[OFFCPU_STAT_UNSEEN_IN], (unsigned long long)st[OFFCPU_STAT_UNSEEN_EST]);
	return any;
}

/* a user stack whose innermost frame is in another DSO than its caller may lack frames */
static bool fp_gap(struct symbolizer *s, const struct offcpu_profile *p)
{
	for (int i = 0; i < p->n; i++) {
		const struct offcpu_entry *e = &p->e[i];
		struct sym_frame a, b;

		if (e->nr_user < 2)
			continue;
		if (symbolizer__resolve(s, e->key.tgid, e->user[0], false, &a, 1) < 1 ||
		    symbolizer__resolve(s, e->key.tgid, e->user[1], false, &b, 1) < 1)
			continue;
		if (a.dso && b.dso && strcmp(a.dso, b.dso))
			return true;
	}
	return false;
}

static void describe_target(FILE *out, const struct offcpu_cmd *o, int argc, char **argv)
{
	const char *what = o->user_only ? "user" : o->kern_only ? "kernel" : "user + kernel";

	if (o->pids)
		fprintf(out, "Tracing off-CPU time (us) of PID %s by %s stack", o->pids, what);
	else if (o->tids)
		fprintf(out, "Tracing off-CPU time (us) of TID %s by %s stack", o->tids, what);
	else if (argc)
		fprintf(out, "Tracing off-CPU time (us) of '%s' by %s stack", argv[0], what);
	else
		fprintf(out, "Tracing off-CPU time (us) of all threads by %s stack", what);
	if (o->duration > 0)
		fprintf(out, " for %g secs.\n", o->duration);
	else
		fprintf(out, "... Hit Ctrl-C to end.\n");
}

static int report(const struct offcpu_cmd *o, struct offcpu *oc, struct symbolizer *sym,
		  struct maps_watch *mw, int argc, char **argv)
{
	struct offcpu_profile p;
	FILE *out = stdout;
	int rc;

	rc = offcpu__read(oc, &p);
	if (rc) {
		error("cannot read the off-CPU maps: %s", strerror(-rc));
		return 1;
	}
	/* processes still alive at the end: their current maps */
	for (int i = 0; i < p.n; i++)
		if (!seen(mw, p.e[i].key.tgid) && symbolizer__load_proc_maps(sym, p.e[i].key.tgid) == 0)
			mark_seen(mw, p.e[i].key.tgid);
	if (o->output && !(out = fopen(o->output, "w"))) {
		error("cannot open '%s': %s", o->output, strerror(errno));
		offcpu_profile__free(&p);
		return 1;
	}
	if (o->folded) {
		struct folded *f = folded__new(0);
		int frc = f ? 0 : -ENOMEM;

		for (int i = 0; i < p.n && !frc; i++)
			frc = add_folded(f, sym, &p.e[i], o);
		if (!frc)
			frc = folded__finish(f);
		if (!frc)
			frc = folded__write(f, out, 0);
		folded__free(f);
		if (frc)
			error("cannot write the folded stacks: %s", strerror(-frc));
	} else {
		for (int i = 0; i < p.n; i++)
			print_entry(out, sym, &p.e[i], o);
	}
	warn_losses(&p, o);
	if (p.stats[OFFCPU_STAT_RB_LOST])
		warning("%llu blocks lost: the ring buffer of stack copies was full (--call-graph dwarf)",
			(unsigned long long)p.stats[OFFCPU_STAT_RB_LOST]);
	if (p.dwarf_failed)
		debug(1, "%llu user stacks could not be unwound", (unsigned long long)p.dwarf_failed);
	if (!o->kern_only && !o->call_graph && fp_gap(sym, &p))
		hint("user stacks are walked with frame pointers: the caller of a function in a library "
		     "built without them (Debian's libc) may be missing; --call-graph dwarf unwinds them");
	debug(1, "%llu switch-outs traced, %llu blocks ended, %d stacks, %llu on-CPU samples, hook %s",
	      (unsigned long long)p.stats[OFFCPU_STAT_SWITCHES], (unsigned long long)p.stats[OFFCPU_STAT_BLOCKS], p.n,
	      (unsigned long long)p.stats[OFFCPU_STAT_SAMPLES], offcpu__hook(oc));
	(void)argc, (void)argv;
	offcpu_profile__free(&p);
	if (out != stdout && fclose(out)) {
		error("cannot write '%s': %s", o->output, strerror(errno));
		return 1;
	}
	return 0;
}

int cmd_offcpu(int argc, char **argv)
{
	struct offcpu_cmd o = { .freq = 99 };
	const struct opt opts[] = {
		OPT_GROUP("target (default: every thread, as -a)"),
		OPT_TARGET_ALL(&o),
		OPT_TARGET_PID(&o),
		OPT_TARGET_TID(&o),
		OPT_BOOL(0, "no-follow", &o.no_follow, "with -- CMD or -p: do not add the processes they fork"),
		OPT_DURATION(&o.duration),
		OPT_GROUP("what counts"),
		OPT_DOUBLE('m', "min-block", &o.min_us, "US", "only blocks of at least US microseconds"),
		OPT_DOUBLE('M', "max-block", &o.max_us, "US", "only blocks of at most US microseconds"),
		OPT_STRING(0, "state", &o.state, "STATE",
			   "only threads that blocked in this state: S, D (uninterruptible), I (idle), R (preempted) or a number"),
		OPT_BOOL('U', "user-only", &o.user_only, "user stacks only"),
		OPT_BOOL('K', "kernel-only", &o.kern_only, "kernel stacks only"),
		OPT_STRING('g', "call-graph", &o.call_graph, "MODE",
			   "user stacks: fp (frame pointers, the default) or dwarf[,SIZE] (copy SIZE bytes of stack, unwind with DWARF CFI)"),
		OPT_BOOL(0, "wall", &o.wall, "wall-clock profile: add on-CPU samples, weighted by time (implies -f)"),
		OPT_FREQ(&o.freq, "with --wall: on-CPU samples per second (default 99); 'max' for "
			 "kernel.perf_event_max_sample_rate"),
		OPT_INT(0, "stack-storage-size", &o.stack_storage, "N", "stacks the BPF maps can hold (default 10240)"),
		OPT_BOOL(0, "tracepoint", &o.tracepoint, "use the classic sched_switch tracepoint even where tp_btf works"),
		OPT_GROUP("output"),
		OPT_BOOL('f', "folded", &o.folded, "folded stacks, weights in microseconds (flamegraph.pl, sonde flame)"),
		OPT_BOOL('d', "delimited", &o.delimited, "a '-' frame between user and kernel stacks"),
		OPT_STRING('o', "output", &o.output, "FILE", "write to FILE instead of stdout"),
		OPT_VERBOSE(),
		OPT_END(),
	};
	struct offcpu_opts oo = { .state = -1 };
	struct offcpu *oc = NULL;
	struct workload w = { .pid = 0, .go_fd = -1, .err_fd = -1 };
	struct symbolizer *sym = NULL;
	struct maps_watch mw = { .targets_fd = -1 };
	struct bpf_loop loop;
	pid_t *ids = NULL;
	struct target tg = { 0 };
	struct target_opts to;
	int nids = 0, rc = 1;
	bool loop_ready = false;
	enum bpf_loop_end end;
	char err[512];

	argc = opt__parse(argc, argv, opts, offcpu_usage, OPT_STOP_AT_NON_OPTION);
	to = (struct target_opts){ .pids = o.pids, .tids = o.tids, .all = o.all, .have_cmd = argc > 0,
				   .default_all = true };
	if (opt__target(&tg, &to, offcpu_usage))
		goto out;
	if (o.user_only && o.kern_only)
		opt__usage_error(offcpu_usage, opts, "--user-only and --kernel-only exclude each other");
	if (o.min_us < 0 || o.max_us < 0 || (o.max_us && o.max_us < o.min_us))
		opt__usage_error(offcpu_usage, opts, "--min-block and --max-block take microseconds, min <= max");
	if (o.state && (oo.state = parse_state(o.state)) < 0)
		opt__usage_error(offcpu_usage, opts, "--state takes S, D, I, R or a number, not '%s'", o.state);
	if (o.wall)
		o.folded = true;
	if (o.call_graph && strcmp(o.call_graph, "fp")) {
		char *end;

		if (strncmp(o.call_graph, "dwarf", 5) || (o.call_graph[5] && o.call_graph[5] != ','))
			opt__usage_error(offcpu_usage, opts, "--call-graph takes fp or dwarf[,SIZE], not '%s'", o.call_graph);
		oo.dwarf_size = OFFCPU_DWARF_STACK;
		if (o.call_graph[5]) {
			oo.dwarf_size = strtol(o.call_graph + 6, &end, 0);
			if (*end || oo.dwarf_size < 256 || oo.dwarf_size > OFFCPU_DWARF_STACK)
				opt__usage_error(offcpu_usage, opts, "--call-graph dwarf,SIZE takes 256 to %d bytes",
						 OFFCPU_DWARF_STACK);
		}
		if (o.kern_only)
			oo.dwarf_size = 0;	/* no user stacks to unwind */
	}
	/* -p: the processes (the BPF side follows their threads); -t: the threads */
	if (o.pids || o.tids) {
		nids = o.pids ? tg.nr_pids : tg.nr_tids;
		ids = malloc(nids * sizeof(*ids));
		if (!ids)
			goto out;
		memcpy(ids, o.pids ? tg.pids : tg.tids, nids * sizeof(*ids));
	}

	bpfutil__setup_log(verbose);
	sym = symbolizer__new(0);
	if (!sym) {
		error("out of memory");
		goto out;
	}
	if (argc) {
		rc = workload__prepare(&w, argv);
		if (rc) {
			error("cannot start '%s': %s", argv[0], strerror(-rc));
			rc = 1;
			goto out;
		}
	}
	if (argc && !nids && !o.all) {	/* with -p/-t/-a, the command only says how long */
		ids = malloc(sizeof(*ids));
		if (!ids)
			goto out;
		ids[0] = w.pid;
		nids = 1;
		if (bpf_mmaps__open(&mw.mm, sym, w.pid, err, sizeof(err)))
			debug(1, "no memory-map events (%s): reading /proc/PID/maps instead", err);
	}
	oo.filter = o.tids ? OFFCPU_TID : o.pids || (argc && !o.all) ? OFFCPU_TGID : OFFCPU_ALL;
	oo.targets = ids;
	oo.nr_targets = nids;
	oo.follow = !o.no_follow;
	oo.user_only = o.user_only;
	oo.kern_only = o.kern_only;
	oo.min_ns = (uint64_t)(o.min_us * 1000);
	oo.max_ns = (uint64_t)(o.max_us * 1000);
	oo.wall_hz = o.wall ? o.freq : 0;
	oo.max_stacks = o.stack_storage;
	oo.force_tracepoint = o.tracepoint;
	oo.sym = sym;
	oo.before_unwind = before_unwind;
	oo.before_unwind_ctx = &mw;
	mw.sym = sym;
	rc = offcpu__new(&oc, &oo, err, sizeof(err));
	if (!rc)
		rc = offcpu__attach(oc, err, sizeof(err));
	if (rc) {
		error("%s", err);
		rc = 1;
		goto out;
	}
	debug(1, "sched_switch hook: %s", offcpu__hook(oc));

	rc = bpf_loop__init(&loop);
	if (rc) {
		error("cannot set up the event loop: %s", strerror(-rc));
		rc = 1;
		goto out;
	}
	loop_ready = true;
	mw.sym = sym;
	if (oo.filter == OFFCPU_TGID && !mw.mm)
		mw.targets_fd = offcpu__targets_fd(oc);
	if (o.duration > 0)
		bpf_loop__set_duration(&loop, o.duration);
	if (argc) {
		bpf_loop__set_child(&loop, w.pid);
		rc = workload__start(&w);
		if (rc) {
			error("cannot run '%s': %s", argv[0], strerror(-rc));
			if (rc == -ENOENT && !strchr(argv[0], '/'))	/* a path names itself */
				hint("is '%s' in PATH? give its path otherwise", argv[0]);
			waitpid(w.pid, NULL, 0);
			rc = rc == -ENOENT ? 127 : 126;
			goto out;
		}
	}
	if (!argc && (o.pids || o.tids)) {
		mw.watched = ids;
		mw.nr_watched = nids;
	}
	if (!o.folded && !o.output)
		describe_target(stdout, &o, argc, argv), fflush(stdout);
	bpf_loop__set_tick(&loop, 100, maps_tick, &mw);
	if (offcpu__dwarf_fd(oc) >= 0 &&
	    (rc = bpf_loop__add_ringbuf(&loop, offcpu__dwarf_fd(oc), offcpu__dwarf_event, oc))) {
		error("cannot poll the BPF ring buffer: %s", strerror(-rc));
		rc = 1;
		goto out;
	}
	end = bpf_loop__run(&loop);
	if (end == BPF_LOOP_ERROR)
		error("polling failed: %s", strerror(-loop.err));
	maps_tick(&mw);
	offcpu__detach(oc);
	bpf_loop__drain(&loop);
	if (argc && end != BPF_LOOP_CHILD) {
		/* --duration or a signal: the command ends with us (it may have had SIGINT already) */
		kill(w.pid, end == BPF_LOOP_SIGNAL ? loop.signo : SIGTERM);
		while (waitpid(w.pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	rc = report(&o, oc, sym, &mw, argc, argv);
	if (!rc && end == BPF_LOOP_CHILD)	/* as a shell would: the command's status */
		rc = workload__exit_code(loop.child_status);
out:
	if (loop_ready)
		bpf_loop__fini(&loop);
	offcpu__free(oc);
	bpf_mmaps__close(mw.mm);
	symbolizer__free(sym);
	free(mw.seen);
	free(ids);
	target__free(&tg);
	return rc;
}
