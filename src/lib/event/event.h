/* SPDX-License-Identifier: GPL-2.0 */
/*
 * event.h - event names as perf spells them, turned into perf_event_attr.
 *
 * "task-clock", "cycles:u", "L1-dcache-load-misses", "r01c4", "sched:sched_switch",
 * "syscalls:sys_enter_*", "{cycles,instructions}", "cpu/config=0x3c/" all become
 * entries of an evlist. The evlist owns its names; free it with evlist__free().
 */
#ifndef SONDE_EVENT_H
#define SONDE_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

enum event_kind {
	EVK_SOFTWARE,
	EVK_HARDWARE,
	EVK_CACHE,
	EVK_RAW,
	EVK_TRACEPOINT,
	EVK_PMU,	/* pmu/term=value,.../ */
};

struct event {
	char *name;			/* canonical, with modifiers: "cycles:u" */
	enum event_kind kind;
	struct perf_event_attr attr;
	int leader;			/* index of the group leader, or -1 */
	const char *unit;		/* "msec" for the clocks, "" otherwise */
	double scale;			/* value * scale is shown (1e-6 for the clocks) */
};

struct evlist {
	struct event *ev;
	int nr;
	size_t alloc;
};

/*
 * Add the events of a perf -e list to l. On error returns -errno and writes one
 * line saying what was wrong (and a close match when there is one) into err.
 */
int evlist__parse(struct evlist *l, const char *spec, char *err, size_t errlen);

/* perf stat's default set: task-clock (cpu-clock system-wide), context-switches,
 * cpu-migrations, page-faults, cycles, instructions, branches, branch-misses */
int evlist__add_default(struct evlist *l, bool system_wide);
/* perf record's default, into an empty l: cycles where there is a hardware PMU, else cpu-clock (VMs) */
int evlist__add_sampling_default(struct evlist *l);

void evlist__free(struct evlist *l);

/*
 * canonical symbolic events, for `sonde list`, suggestions and the probe
 * language's software: and hardware: probes, which take bpftrace's names
 * (bt_name, bt_alias; NULL: not one of bpftrace's) and default periods
 */
struct event_sym {
	const char *name;
	const char *alias;
	enum event_kind kind;
	unsigned long long config;
	const char *bt_name, *bt_alias;
	unsigned long long bt_period;
};
extern const struct event_sym event_syms[];
extern const size_t nr_event_syms;

/* call fn for every event a PMU lists in sysfs, as "cpu/cache-misses/" (not tracepoints or software) */
void event__for_each_pmu_event(void (*fn)(const char *name, void *ctx), void *ctx);
/* call fn for every hardware cache event name (L1-dcache-loads, ...) */
void event__for_each_cache_name(void (*fn)(const char *name, void *ctx), void *ctx);

/* the closest known symbolic name to s, or NULL when none is close */
const char *event__suggest(const char *s);



/* can this machine count attr for the calling thread? 0 or the -errno of the open */
int event__probe(const struct perf_event_attr *attr);
#endif
