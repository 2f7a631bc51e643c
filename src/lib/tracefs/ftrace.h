/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace.h - tracefs control through a private instance (instances/sonde-PID):
 * events with filters, pid filtering that follows children, the function
 * tracer with its filters, and the trace_pipe stream. Everything is done inside
 * the instance, so other users of tracefs are not disturbed, and
 * ftrace__close() removes the instance: nothing is left changed. The caller
 * owns struct ftrace; the list callbacks' strings are only valid during the call.
 * Errors: 0 or -errno, with a one-line reason in err (what failed, why).
 */
#ifndef SONDE_FTRACE_H
#define SONDE_FTRACE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* what a sonde that is gone (killed with SIGKILL) had left in tracefs, removed by ftrace__open */
struct ftrace_stale {
	pid_t pid;		/* the sonde that created it */
	char what[512];		/* "instance sonde-PID (tracing), uprobe event sonde_PID/x" */
};

struct ftrace {
	char root[PATH_MAX];	/* the tracefs mount */
	char dir[PATH_MAX];	/* the instance */
	bool created;
	int pipe_fd;		/* trace_pipe, non-blocking, once started */
	int nr_events;		/* events enabled */
	bool function;		/* the function tracer is on */
	char uprobe_group[32];	/* sonde_PID, the group of the uprobe events sonde created */
	char **uprobes;		/* their names, removed from uprobe_events at close */
	int nr_uprobes;
	char tdir[PATH_MAX];	/* where tracing_on and trace_pipe are: dir, or root for a top-level -G */
	bool graph_top;		/* function_graph in the top-level buffer (before 6.10): restore at close */
	char *graph_saved[16];	/* the top-level settings it changed, as they were */
	struct ftrace_stale *stale;	/* what ftrace__open removed (freed by ftrace__close) */
	int nr_stale;
	char hist_dir[PATH_MAX];	/* --hist: the event's directory in the instance */
	char *hist_trigger;	/* the trigger written there, removed by ftrace__close */
};

/*
 * Create instances/sonde-PID, first removing the instances and uprobe events
 * of sonde processes that are gone: what was removed (or could not be) is in
 * ft->stale, for the caller to say, also when the open fails.
 */
int ftrace__open(struct ftrace *ft, char *err, size_t errlen);

/*
 * Enable every event matching SPEC ("group:event" with globs, "group", or an
 * event's name), with a filter when filter is not NULL. Returns the number of
 * events enabled (> 0) or -errno (-ENOENT: nothing matches).
 */
int ftrace__enable_events(struct ftrace *ft, const char *spec, const char *filter, char *err, size_t errlen);

/* trace only these pids (events and functions), and with follow their children too */
int ftrace__set_pids(struct ftrace *ft, const pid_t *pids, int n, bool follow, char *err, size_t errlen);

/*
 * The function tracer limited to the globs in funcs (all when n == 0) minus those
 * in notrace. -EPERM when the kernel refuses it (as here), -ENODEV when it has none.
 */
int ftrace__set_functions(struct ftrace *ft, char *const *funcs, int n, char *const *notrace, int nn,
			  char *err, size_t errlen);

/*
 * Create a uprobe event on BINARY:SYMBOL (or BINARY:0xOFFSET), on its return
 * with ret, in uprobe_events (which is global: the event is removed again by
 * ftrace__close, and events left by a sonde killed with SIGKILL by the next
 * ftrace__open). Writes "group:name" for ftrace__enable_events into ev.
 */
int ftrace__add_uprobe(struct ftrace *ft, const char *spec, bool ret, char *ev, size_t evlen,
		       char *err, size_t errlen);


/* per-CPU buffer size in kB; 0 or -errno */
int ftrace__set_buffer_kb(struct ftrace *ft, unsigned kb, char *err, size_t errlen);

/* tracing on, and trace_pipe opened (ft->pipe_fd) */
int ftrace__start(struct ftrace *ft, char *err, size_t errlen);
/* tracing off (what is buffered can still be read from pipe_fd) */
void ftrace__stop(struct ftrace *ft);

/* events the instance's buffers overwrote or dropped (per_cpu/cpuN/stats overrun) */
unsigned long long ftrace__overruns(const struct ftrace *ft);

/* function_graph (-G) */
struct ftrace_graph_opts {
	char *const *funcs, *const *notrace;	/* set_graph_function, set_graph_notrace globs */
	int n, nn;
	char *const *only;	/* set_ftrace_filter: the functions the trees may show (all when none) */
	int nonly;
	int max_depth;		/* 0: no limit */
	bool graph_time, no_irq, children;
};

/*
 * The function_graph tracer on funcs, for pids (all when npids == 0): in the
 * instance where the kernel has it there, else in the top-level buffer with
 * its settings saved (restored by ftrace__close, or by the next ftrace__open
 * after a SIGKILL). -ENODEV: no function_graph; -EBUSY: the top-level tracer
 * is in use; -EPERM: refused (as here).
 */
int ftrace__set_graph(struct ftrace *ft, const struct ftrace_graph_opts *o, const pid_t *pids, int npids,
		      char *err, size_t errlen);
/* internal: the top-level settings back (ftrace__close); those of gone sondes (ftrace__open: how many) */
void ftrace__graph_close(struct ftrace *ft);
int ftrace__graph_restore_stale(struct ftrace *ft, pid_t *pid);

/* list --features: "kprobe_events", "uprobe_events", "function", "function_graph"; why when not */
bool ftrace__feature(const char *name, const char **why);

/*
 * Hist triggers (ftrace_hist.c): the trigger "hist:..." on the event GROUP:NAME
 * in the instance (-ENODEV: the kernel has no hist triggers), its hist file's
 * text (malloc'd, NULL with err), and the trigger removed (also by close).
 */
int ftrace__hist_add(struct ftrace *ft, const char *event, const char *trigger, char *err, size_t errlen);
char *ftrace__hist_read(struct ftrace *ft, char *err, size_t errlen);
void ftrace__hist_close(struct ftrace *ft);

/*
 * A latency tracer (wakeup, wakeup_rt, wakeup_dl, irqsoff, preemptoff,
 * preemptirqsoff) in the top-level buffer, the only place the kernel runs them:
 * every setting it changes saved first (current_tracer, tracing_max_latency,
 * tracing_thresh, tracing_on) and put back by ftrace__latency_stop.
 * -ENODEV: the kernel lacks it (err names the CONFIG_ option); -EBUSY: the
 * top-level tracer is in use. A sonde killed with SIGKILL leaves its saved
 * values in a state file: the next start puts them back first (restored).
 */
struct ftrace_latency {
	char root[PATH_MAX];
	char saved[4][64];	/* current_tracer, tracing_max_latency, tracing_thresh, tracing_on */
	bool started;
	int restored;		/* top-level settings of sondes killed earlier put back (how many) */
	pid_t restored_pid;	/* the last of them */
};
int ftrace__latency_start(struct ftrace_latency *lt, const char *tracer, unsigned long thresh_us,
			  char *err, size_t errlen);
/* the same in the tracefs at root (a test's copy), stale state files put back only with stale */
int ftrace__latency_start_at(struct ftrace_latency *lt, const char *root, bool stale, const char *tracer,
			     unsigned long thresh_us, char *err, size_t errlen);
/* the max latency (us) and the trace that shows it (malloc'd), tracing off; 0 or -errno */
int ftrace__latency_result(struct ftrace_latency *lt, unsigned long long *max_us, char **trace);
/* everything as it was; safe to call twice */
void ftrace__latency_stop(struct ftrace_latency *lt);

/* list --features: "hist" (hist triggers), or a latency tracer's name; why when not */
bool ftrace__feature_more(const char *name, const char **why);

/* tracing off, tracer nop, events off, instance removed; safe to call twice */
void ftrace__close(struct ftrace *ft);

/* every "group:event" matching pattern (against "group:event" or the name), sorted; count or -errno */
int ftrace__list_events(const char *pattern, void (*cb)(const char *ev, void *arg), void *arg);
/* every traceable kernel function matching pattern; count or -errno (-EPERM here) */
int ftrace__list_functions(const char *pattern, void (*cb)(const char *fn, void *arg), void *arg);

#endif
