/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched.h - the scheduler's view of a recording, as `perf sched` reads it:
 * the sched tracepoints of a perf.data (sonde's `sched record` or perf's
 * `perf sched record`) decoded into events in time order, with the threads'
 * names and processes as perf's session knows them at each point (COMM and
 * FORK records), and the analyses `perf sched latency` and `timehist` make of
 * them.
 *
 * Ownership: the reader owns its threads and events (valid until
 * sched_reader__free()); a latency result is the caller's, freed with
 * sched_lat__free().
 */
#ifndef SONDE_SCHED_H
#define SONDE_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sched_ev_type {
	SCHED_EV_SWITCH,	/* sched:sched_switch */
	SCHED_EV_WAKEUP,	/* sched:sched_wakeup */
	SCHED_EV_WAKING,	/* sched:sched_waking */
	SCHED_EV_WAKEUP_NEW,	/* sched:sched_wakeup_new */
	SCHED_EV_MIGRATE,	/* sched:sched_migrate_task */
	SCHED_EV_RUNTIME,	/* sched:sched_stat_runtime */
	SCHED_EV_NR_TP,
	SCHED_EV_COMM = SCHED_EV_NR_TP,	/* a COMM record (after the thread took the name) */
	SCHED_EV_LOST,		/* a LOST or LOST_SAMPLES record */
	SCHED_EV_FORK,		/* a FORK record (after the child's thread was made): thread, parent */
};

/* a task as perf's session knows it: pid -1 when unknown, comm ":TID" when never named */
struct sched_thread {
	int pid, tid;
	char comm[32];
	bool comm_set;		/* named by a COMM record or by its parent at fork */
	void *priv;		/* the analysis' own data */
	int ppid;		/* the parent's tid from a FORK record, else -1 (perf's thread->ppid) */
	bool dead;		/* an EXIT record came for it */
	unsigned long replaced;	/* 0 while it is the tid's thread; else the order in which a FORK replaced it */
};

struct sched_event {
	enum sched_ev_type type;
	uint64_t time;
	int cpu;
	int pid, tid;			/* the sample's: the task on the CPU */
	/* SWITCH */
	int prev_pid, next_pid;
	long long prev_state;
	char prev_comm[17], next_comm[17];
	/* WAKEUP, WAKING, WAKEUP_NEW, MIGRATE, RUNTIME: the task it is about */
	int task_pid;
	char comm[17];
	uint64_t runtime;		/* RUNTIME: ns */
	int orig_cpu, dest_cpu;		/* MIGRATE */
	uint64_t lost;			/* LOST */
	struct sched_thread *thread;	/* COMM: the renamed thread; FORK: the child */
	struct sched_thread *parent;	/* FORK */
};

struct sched_reader;

/*
 * Open a recording ("-" is stdin). 0 or -errno with one line in err (what is
 * wrong with the file, or that it has no sched:sched_switch event).
 */
int sched_reader__open(struct sched_reader **out, const char *path, char *err, size_t errlen);
void sched_reader__free(struct sched_reader *r);

/* the next event in time order: 1, 0 at the end (records that do not parse are skipped and counted) */
int sched_reader__next(struct sched_reader *r, struct sched_event *ev);
/* whether the recording has that tracepoint */
bool sched_reader__has(const struct sched_reader *r, enum sched_ev_type type);
/* the CPUs online when it was recorded (0 if unknown) */
int sched_reader__nr_cpus(const struct sched_reader *r);
/* records that did not parse, lost events and LOST records, so far */
void sched_reader__counts(const struct sched_reader *r, uint64_t *bad, uint64_t *lost, uint64_t *lost_records,
			  uint64_t *samples);

/*
 * The thread tid, created (perf's machine__findnew_thread) with pid when new:
 * pid -1 for unknown; an unknown pid of an existing one is filled in. Tid 0 is
 * "swapper". NULL only without memory.
 */
struct sched_thread *sched_reader__thread(struct sched_reader *r, int pid, int tid);
/* every thread met, in the order they were created (n of them) */
struct sched_thread *const *sched_reader__threads(const struct sched_reader *r, size_t *n);
/*
 * An analysis' data for t (t->priv): size zeroed bytes made at the first call
 * (*created says so, when not NULL). The reader owns them until
 * sched_reader__drop_priv() frees every one. NULL without memory.
 */
void *sched_reader__priv(struct sched_reader *r, struct sched_thread *t, size_t size, bool *created);
void sched_reader__drop_priv(struct sched_reader *r);

/* ------------------------------------------------------------ latency */

#define SCHED_LAT_SLOTS 40	/* log2 slots of us: up to 2^40 us, 12 days */

/* perf sched latency's sort keys */
enum sched_lat_key { SCHED_LAT_PID, SCHED_LAT_AVG, SCHED_LAT_MAX, SCHED_LAT_SWITCH, SCHED_LAT_RUNTIME };

struct sched_lat_row {
	const struct sched_thread *thread;	/* the first of a merged comm */
	const char *comm;
	int tid;
	int nr_merged;			/* tasks of that comm (1 with per-pid rows) */
	uint64_t runtime;		/* ns, from sched_stat_runtime */
	uint64_t switches;		/* switch-ins after a wakeup or a preemption */
	uint64_t total_delay, max_delay;	/* ns */
	uint64_t max_start, max_end;	/* when the longest delay began (wakeup) and ended */
	uint64_t hist[SCHED_LAT_SLOTS];	/* the delays in log2 slots of us: 0 holds 0-1 us, i [2^i, 2^(i+1)) */
};

struct sched_lat {
	struct sched_lat_row *rows;	/* sorted; rows with no switch and swapper left out */
	size_t nr_rows;
	uint64_t total_runtime, total_switches;
	uint64_t nr_timestamps, nr_unordered, nr_switch_bugs;	/* perf's INFO lines */
	uint64_t nr_events, nr_lost, nr_lost_chunks;
};

/*
 * Read every event of r and compute perf sched latency's table: per task
 * (per comm unless per_pid), wake-to-run delays sorted by keys (nkeys of
 * them; perf's default is avg, max, switch, runtime). cpu: only that CPU's
 * view (perf's -C), or -1. 0 or -errno.
 */
int sched_lat__compute(struct sched_reader *r, const enum sched_lat_key *keys, int nkeys, bool per_pid,
		       int cpu, struct sched_lat *out);
void sched_lat__free(struct sched_lat *l);
/* "avg" -> SCHED_LAT_AVG...; -1 when unknown */
int sched_lat__key(const char *name);

/* ------------------------------------------------------------ timehist */

enum sched_th_kind { SCHED_TH_SWITCH, SCHED_TH_WAKEUP, SCHED_TH_MIGRATE, SCHED_TH_LOST };

struct sched_th_line {
	enum sched_th_kind kind;
	uint64_t time;
	int cpu;
	/* the one switched out (idle: "<idle>", tid 0), the waker, the migrater */
	const struct sched_thread *thread;
	const struct sched_thread *other;	/* WAKEUP: the woken; MIGRATE: the migrated */
	uint64_t wait, delay, run;		/* SWITCH: ns */
	long long state;			/* SWITCH: prev_state */
	const char *next_comm;			/* SWITCH */
	int next_pid;
	int orig_cpu, dest_cpu;			/* MIGRATE */
	uint64_t lost;				/* LOST */
};

struct sched_th_summary;

struct sched_th_opts {
	bool wakeups, migrations;
	struct sched_th_summary *summary;	/* when set, filled at the end (-s, -S) */
};

/* per task totals for timehist's summary */
struct sched_th_total {
	const struct sched_thread *thread;
	uint64_t nr_switches, run, min_run, max_run, migrations;
	double mean, m2;			/* of the run times, for the std dev */
	/* --state's wait-time summary: time off the CPU by the state it left in, and run-queue delay */
	uint64_t sleep, iowait, preempt, delay;
};

/*
 * perf sched timehist -s: a row per task that was switched out (every
 * switch-out counts, run 0 for a CPU's first), in the order perf's machine
 * walks its threads (tid mod 256, then tid; threads a FORK replaced after
 * each bucket's), then each CPU's idle time. The rows point to the reader's
 * threads; sched_th_summary__free() frees the arrays.
 */
struct sched_th_summary {
	struct sched_th_total *tasks;
	size_t nr_tasks;
	struct sched_th_idle {
		bool present;			/* perf has an idle task for that CPU: a line */
		uint64_t nr_switches, run;	/* its switch-outs and idle time (ns) */
	} *idle;				/* per CPU */
	int nr_idle;
	uint64_t start, end;			/* the first and the last switch */
	int max_cpu;				/* perf's max_cpu: the "(x N)" of the total */
};

/* the run time's standard deviation relative to its mean, in %, as perf computes it */
double sched_th_total__rel_stddev(const struct sched_th_total *t);
void sched_th_summary__free(struct sched_th_summary *s);

/*
 * Read every event of r and hand timehist's lines to fn in time order; a
 * non-zero value from fn stops and is returned. *max_cpu: perf's CPU count for
 * the -V columns (the CPUs online when recorded, or 4; more when a sample came
 * from a higher CPU), valid from the first call of fn. 0 or -errno.
 */
int sched_th__run(struct sched_reader *r, const struct sched_th_opts *o, int *max_cpu,
		  int (*fn)(const struct sched_th_line *l, void *ctx), void *ctx);

/* ------------------------------------------------------------ map */

struct sched_map_line {
	uint64_t time;
	int cpu;			/* where the switch was */
	int nr_cpus;			/* columns */
	const char *const *cur;		/* per column: the task on it ("A0", ". " idle), or NULL */
	const struct sched_thread *in;	/* the task switched in */
	const char *in_name;		/* its short name */
	bool announce;			/* a new short name, or the task was renamed: "A0 => comm:tid" */
};

/*
 * perf sched map: at each switch, which task each CPU runs, tasks named by
 * two characters (A0..Z0, A1..., "." for idle) given at first sight. nr_cpus:
 * the columns (perf takes the CPUs this machine has; more when a switch comes
 * from a higher CPU). fn gets each line; a non-zero value stops. 0 or -errno.
 */
int sched_map__run(struct sched_reader *r, int nr_cpus, int (*fn)(const struct sched_map_line *l, void *ctx),
		   void *ctx);

/* ------------------------------------------------------------ replay */

struct sched_replay;

struct sched_replay_task {
	unsigned long nr;		/* in the order first met */
	long pid;			/* the tid the tracepoints give */
	char comm[20];			/* the name it was first met with ("<unknown>": as a waker) */
	unsigned long nr_events;	/* its atoms: run, sleep, wakeup */
};

struct sched_replay_counts {
	unsigned long nr_run_events, nr_sleep_events, nr_wakeup_events;
	unsigned long targetless_wakeups, multitarget_wakeups, nr_run_events_optimized;
};

struct sched_replay_calib {
	uint64_t run_overhead, sleep_overhead;	/* ns: a zero burn, a 10 us sleep past 10 us */
	uint64_t run_test, sleep_test;		/* ns: a 1 ms burn, a 1 ms sleep */
};

/*
 * perf sched replay: the tasks of r and their atoms (sched_switch,
 * sched_wakeup(_new) and FORK records, perf 6.1's rules), owned by *out until
 * sched_replay__free(). 0 or -errno.
 */
int sched_replay__build(struct sched_reader *r, struct sched_replay **out);
const struct sched_replay_counts *sched_replay__counts(const struct sched_replay *rp);
size_t sched_replay__nr_tasks(const struct sched_replay *rp);
const struct sched_replay_task *sched_replay__task(const struct sched_replay *rp, size_t i);
/* measure the costs of burning and sleeping (burns are shortened by the first) */
void sched_replay__calibrate(struct sched_replay *rp, struct sched_replay_calib *c);
/*
 * a thread per task, waiting (each task first gets a last atom, waking the
 * next task: the counts grow); then each round plays every task once: its
 * wall and CPU time (ns)
 */
int sched_replay__start(struct sched_replay *rp);
int sched_replay__round(struct sched_replay *rp, uint64_t *wall, uint64_t *cpu);
/* ends the threads, frees all */
void sched_replay__free(struct sched_replay *rp);

#endif
