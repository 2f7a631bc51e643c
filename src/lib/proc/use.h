/* SPDX-License-Identifier: GPL-2.0 */
/*
 * use.h - the USE method (Brendan Gregg): for every resource, its utilization,
 * saturation and errors over a sampling window, computed from two procstat
 * snapshots; and the rules that flag what looks wrong, each with the sonde
 * command to run next. No printing. A use_report owns its arrays: use__free().
 */
#ifndef SONDE_USE_H
#define SONDE_USE_H

#include <stdbool.h>

#include "lib/proc/procstat.h"

enum use_kind { USE_U, USE_S, USE_E };

enum use_unit {
	UNIT_PCT,	/* percent */
	UNIT_NUM,	/* a plain number (load, queue length) */
	UNIT_COUNT,	/* an integer count */
	UNIT_PER_S,	/* events per second */
	UNIT_KB_S,	/* kB per second */
	UNIT_MS,	/* milliseconds */
	UNIT_MIB,	/* MiB */
};

struct use_metric {
	enum use_kind kind;
	const char *key;	/* JSON key and text label: "busy_pct", "runq" */
	double value;
	enum use_unit unit;
};

#define USE_MAX_METRICS 24

struct use_resource {
	char type[16];		/* "cpu", "memory", "disk", "net", "tcp", "fds", "tasks", "cgroup" */
	char name[48];		/* "cpu", "cpu1", "vda", "eth0" */
	bool detail;		/* a per-CPU row, shown compactly */
	struct use_metric m[USE_MAX_METRICS];
	int n;
	char note[3][96];	/* per kind: why a column is empty ("no error counter in /proc") */
};

struct use_flag {
	char resource[64];	/* "cpu", "disk vda" */
	enum use_kind kind;
	char what[192];		/* what looks wrong, with the numbers */
	char next[192];		/* the sonde command to run next */
};

struct use_missing {
	char what[64];		/* the file, relative to /proc or /sys */
	char why[160];
};

/* run-queue samples taken during the window (procs_running and procs_blocked) */
struct use_runq {
	int samples;
	double sum_running, sum_blocked, max_running;
};

struct use_report {
	double duration;	/* seconds between the snapshots */
	int ncpus;
	double load[3];
	struct use_resource *res;
	int nr_res;
	struct use_flag *flags;
	int nr_flags;
	struct use_missing *missing;
	int nr_missing;
};

/* take one run-queue sample into rq (procs_running counts the reader: it is taken off) */
void use__runq_add(struct use_runq *rq, unsigned long long running, unsigned long long blocked);

/*
 * Build the report for the window from a to b (b later). rq may be NULL (the
 * queue is then b's instantaneous value). sys_dir tells which disks are whole
 * disks. 0 or -ENOMEM.
 */
int use__build(struct use_report *r, const struct ps_snap *a, const struct ps_snap *b,
	       const struct use_runq *rq, const char *sys_dir);
void use__free(struct use_report *r);

/* the metric of that key in a resource, or NULL */
const struct use_metric *use__metric(const struct use_resource *res, const char *key);
/* the first resource of that type and name (name NULL: any), or NULL */
const struct use_resource *use__find(const struct use_report *r, const char *type, const char *name);

const char *use__kind_name(enum use_kind k);	/* "utilization", "saturation", "errors" */

#endif
