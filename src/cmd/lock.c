// SPDX-License-Identifier: GPL-2.0
/*
 * lock.c - `sonde lock`: lock contention aggregated in the kernel. Kernel
 * locks from lock:contention_begin/end in perf lock contention's table (by
 * caller, -t by thread, -l by lock address); with --user, user-space locks:
 * futex waits by futex word and user stack, and pthread mutexes (uprobes on
 * the C library's pthread_mutex_lock/unlock) with their wait and hold times.
 * The engine is lib/bpf/bpf_lock.h, the tables ui/lock_print.h.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/bpf/bpf_lock.h"
#include "lib/bpf/bpf_mmaps.h"
#include "lib/bpf/bpf_util.h"
#include "lib/bpf/offcpu_maps.h"
#include "lib/loop/loop.h"
#include "lib/proc/maps.h"
#include "lib/proc/target.h"
#include "lib/proc/workload.h"
#include "lib/symbol/kdata.h"
#include "lib/symbol/symbol.h"
#include "stack_run.h"
#include "ui/lock_print.h"

#include <errno.h>
#include <string.h>

static const char *const lock_usage[] = {
	"sonde lock [<options>] [--] <command> [<args>]",
	"sonde lock [<options>] -p PID | --tid TID | -a [--duration S | -- <command>]",
	NULL,
};

struct lock_cmd {
	const char *key, *libc;
	bool threads, lock_addr, user, use_bpf, no_follow;
	double duration;
	int entries;
	struct target_opts to;	/* -p/--tid/-a as given */
	struct target tg;
	struct lock_opts lo;
	struct lock_print po;
	enum lock_sort sort;
	bool cmd_target;
};

static int parse_args(struct lock_cmd *o, int argc, char **argv)
{
	static const char *const keys[] = { "wait_total", "contended", "wait_max", "wait_min", "avg_wait" };
	const struct opt opts[] = {
		OPT_GROUP("target (default: every thread, as -a)"),
		OPT_TARGET_ALL(&o->to),
		OPT_TARGET_PID(&o->to),
		OPT_STRING(0, "tid", &o->to.tids, "TID", "observe these threads only (comma list)"),
		OPT_BOOL(0, "no-follow", &o->no_follow, "with -- CMD: do not add the processes it forks"),
		OPT_DURATION(&o->duration),
		OPT_GROUP("what"),
		OPT_BOOL(0, "user", &o->user,
			 "user-space locks: futex waits, and pthread mutexes' wait and hold times"),
		OPT_STRING(0, "libc", &o->libc, "PATH", "with --user: the C library to probe (default: the target's)"),
		OPT_BOOL('b', "use-bpf", &o->use_bpf, "aggregate in the kernel (always: accepted for perf's sake)"),
		OPT_GROUP("output"),
		OPT_BOOL('t', "threads", &o->threads, "a row per thread (kernel locks)"),
		OPT_BOOL('l', "lock-addr", &o->lock_addr, "a row per lock address, named where the kernel can name it"),
		OPT_INT('E', "entries", &o->entries, "N", "show only the first N rows of each table"),
		OPT_STRING('k', "key", &o->key, "KEY", "sort by wait_total (default), contended, wait_max, wait_min "
			   "or avg_wait"),
		OPT_COUNT('v', "verbose", &verbose, "the stack under each row (perf lock's -v), and what sonde did; "
			  "repeat for more"),
		OPT_END(),
	};
	const struct target_opts *to = &o->to;

	o->to.default_all = true;
	argc = opt__parse_target(argc, argv, opts, lock_usage, OPT_STOP_AT_NON_OPTION, &o->to, &o->tg);
	if (argc < 0)
		return -1;
	if (o->threads && o->lock_addr)
		opt__usage_error(lock_usage, opts, "--threads and --lock-addr exclude each other");
	if (o->user && o->threads)
		opt__usage_error(lock_usage, opts, "--threads is for kernel locks; --user rows are per process");
	if (o->entries < 0)
		opt__usage_error(lock_usage, opts, "--entries takes a number of rows, not %d", o->entries);
	if (o->key) {
		size_t i;

		for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && strcmp(o->key, keys[i]); i++)
			;
		if (i == sizeof(keys) / sizeof(keys[0]))
			opt__usage_error(lock_usage, opts, "unknown sort key '%s'", o->key);
		o->sort = (enum lock_sort[]){ LOCK_SORT_TOTAL, LOCK_SORT_CONTENDED, LOCK_SORT_MAX, LOCK_SORT_MIN,
					      LOCK_SORT_AVG }[i];
	}
	o->cmd_target = argc && !to->pids && !to->tids && !to->all;
	o->lo.filter = to->tids ? LOCK_TID : to->pids || o->cmd_target ? LOCK_TGID : LOCK_ALL;
	o->lo.targets = to->tids ? o->tg.tids : o->tg.pids;
	o->lo.nr_targets = to->tids ? o->tg.nr_tids : o->tg.nr_pids;
	o->lo.follow = o->cmd_target && !o->no_follow;
	o->lo.aggr = o->threads ? LOCK_AGGR_TASK : o->lock_addr ? LOCK_AGGR_ADDR : LOCK_AGGR_CALLER;
	o->lo.user = o->user;
	o->po = (struct lock_print){ .aggr = o->lo.aggr, .entries = o->entries, .stacks = verbose > 0 };
	return argc;
}

/* --user: the C library whose mutex functions get uprobes; NULL (futexes only) when none */
static const char *choose_libc(struct lock_cmd *o, char *buf, size_t len)
{
	if (o->libc)
		return o->libc;
	if (proc_maps__find_libc(o->to.pids && o->tg.nr_pids ? o->tg.pids[0] : 0, buf, len)) {
		warning("no C library found: pthread mutexes are not traced, futex waits are");
		return NULL;
	}
	return buf;
}

static int report(struct lock_cmd *o, struct lock_trace *lt, struct offcpu_maps *mw)
{
	struct kdata *kd = NULL;
	struct lock_result r;
	int rc = lock_trace__read(lt, &r);

	if (rc) {
		error("cannot read the lock maps: %s", strerror(-rc));
		return 1;
	}
	lock_result__sort(&r, o->sort);
	if (o->user) {
		if (o->lock_addr)
			lock_result__merge_user_by_addr(&r);
		for (int i = 0; i < r.nu; i++)	/* processes still alive: their maps now */
			offcpu_maps__before_unwind(mw, r.u[i].tgid);
		lock_print__user(stdout, mw->sym, &r, &o->po);
	} else {
		if ((rc = kdata__load(&kd, "/proc/kallsyms")))
			debug(1, "no kernel data symbols: %s", strerror(-rc));
		else if (o->lock_addr && !kdata__has_data(kd))
			hint("this kernel's kallsyms lists no data symbols (CONFIG_KALLSYMS_ALL is off): only a task's "
			     "own locks are named (mmap_lock, siglock, file_lock)");
		lock_print__kern(stdout, mw->sym, kd, &r, &o->po);
	}
	if (r.stats[LOCK_STAT_FULL])
		warning("%llu lock events were dropped: a BPF map was full; narrow the target",
			(unsigned long long)r.stats[LOCK_STAT_FULL]);
	if (r.stats[LOCK_STAT_STACK_ERR])
		warning("%llu stacks could not be captured (the stack map is full or two stacks hash alike): "
			"their rows have no caller", (unsigned long long)r.stats[LOCK_STAT_STACK_ERR]);
	debug(1, "%llu contention begins, %llu nested, %llu unmatched ends, %llu futex waits, %llu mutex locks, "
	      "%llu stacks lost", (unsigned long long)r.stats[LOCK_STAT_BEGIN],
	      (unsigned long long)r.stats[LOCK_STAT_NESTED], (unsigned long long)r.stats[LOCK_STAT_UNMATCHED],
	      (unsigned long long)r.stats[LOCK_STAT_FUTEX], (unsigned long long)r.stats[LOCK_STAT_MUTEX],
	      (unsigned long long)r.stats[LOCK_STAT_STACK_ERR]);
	kdata__free(kd);
	lock_result__free(&r);
	return 0;
}

int cmd_lock(int argc, char **argv)
{
	struct lock_cmd o = { .sort = LOCK_SORT_TOTAL };
	struct lock_trace *lt = NULL;
	struct stack_run r;
	char err[512] = "", libc[4096];
	enum loop_end end;
	int rc = 1;

	argc = parse_args(&o, argc, argv);
	if (argc < 0)
		return 1;	/* said, the targets freed */
	bpfutil__setup_log(verbose);
	if (stack_run__init(&r)) {
		target__free(&o.tg);
		return 1;
	}
	if (o.user)
		o.lo.libc = choose_libc(&o, libc, sizeof(libc));
	if (argc && stack_run__prepare(&r, argv))
		goto out;
	if (o.cmd_target) {
		o.lo.targets = &r.w.pid, o.lo.nr_targets = 1;
		if (o.user)
			stack_run__watch_maps(&r, NULL);
	}
	rc = lock_trace__new(&lt, &o.lo, err, sizeof(err));
	if (!rc && (rc = lock_trace__attach(lt, err, sizeof(err))) > 0) {
		warning("%s: pthread mutexes are not traced, futex waits are", err);
		rc = 0;
	}
	if ((rc = stack_run__ready(&r, rc, err, argc > 0)))
		goto out;
	debug(1, "attached: %s", o.user ? "futex syscalls and pthread mutex uprobes" : "lock:contention_begin/end");
	if (o.lo.filter == LOCK_TGID && !r.mm && o.user)
		r.mw.targets_fd = lock_trace__targets_fd(lt);
	if (!argc)
		r.mw.watched = o.lo.targets, r.mw.nr_watched = o.lo.nr_targets;
	if ((rc = stack_run__go(&r, argv, o.duration)))
		goto out;
	end = loop__run(&r.loop);
	stack_run__stopped(&r, end);
	lock_trace__detach(lt);
	rc = report(&o, lt, &r.mw);
	if (!rc)
		rc = loop__exit_code(&r.loop, end);
out:
	lock_trace__free(lt);
	stack_run__free(&r);
	target__free(&o.tg);
	return rc;
}
