/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counter.h - counting events with perf_event_open: one fd per event and per
 * "slot" (a thread, a started command with its children, or a CPU), read with
 * the enabled and running times so multiplexed counts can be scaled.
 * The counters own their fds and arrays; counters__close() frees them.
 */
#ifndef SONDE_COUNTER_H
#define SONDE_COUNTER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/event/event.h"
#include "lib/proc/target.h"

struct counter_val {
	uint64_t val;
	uint64_t ena;	/* time enabled, ns */
	uint64_t run;	/* time running, ns */
};

struct counter_slot {
	pid_t pid;	/* -1 for a CPU slot */
	int cpu;	/* -1 for a task slot */
};

enum counter_status {
	CNT_OK,
	CNT_NOT_SUPPORTED,	/* the kernel or the CPU cannot count it */
};

struct counters {
	struct evlist *evl;
	struct counter_slot *slots;
	int nr_slots;
	int *fd;			/* [ev * nr_slots + slot], -1 when not open */
	enum counter_status *status;	/* per event */
	int *open_errno;		/* per event: why it is not supported */
	struct counter_val *cur;	/* [ev * nr_slots + slot] */
	struct counter_val *prev;	/* the previous read, for intervals */
	bool user_only_fallback;	/* kernel counting was refused; :u used */
};

/*
 * Open every event of evl on the target's slots. The events start disabled and,
 * when the target is a started command, enable themselves at its exec.
 * An event the machine cannot count is marked CNT_NOT_SUPPORTED and the rest go
 * on. Fatal problems (permissions, a vanished process, too many files) return
 * -errno with a line for the user in err.
 */
int counters__open(struct counters *c, struct evlist *evl, const struct target *t,
		   char *err, size_t errlen);
int counters__enable(struct counters *c);
int counters__disable(struct counters *c);
/* read every fd into cur, after saving cur into prev; 0 or -errno */
int counters__read(struct counters *c);
void counters__close(struct counters *c);

/* sum of one event over all slots (delta: cur - prev) */
struct counter_val counters__sum(const struct counters *c, int ev, bool delta);
/* one slot of one event */
struct counter_val counters__get(const struct counters *c, int ev, int slot, bool delta);

/* the scaled value: val * ena / run, or -1 when it never ran */
double counter_val__scaled(struct counter_val v);

#endif
