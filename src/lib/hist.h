/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist.h - the profile `sonde report` shows: samples grouped by sort keys
 * (comm, pid, tid, dso, sym), with self and children (inclusive) periods and a
 * call graph per entry, as perf report builds them. The hist owns its entries,
 * strings (copied) and call graphs; hist__free() releases them.
 */
#ifndef SONDE_HIST_H
#define SONDE_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/session.h"

enum hist_key { HK_COMM, HK_PID, HK_TID, HK_DSO, HK_SYM, HK_CPU, HK_MAX };

struct hist_opts {
	enum hist_key keys[HK_MAX];
	int nr_keys;
	bool children;		/* inclusive entries for every frame (perf's --children) */
	bool callchain;		/* keep a call graph per entry */
	bool caller;		/* graph root first (caller order), else leaf first */
};

/* one frame of a call graph */
struct cc_node {
	const char *name;	/* symbol, or NULL: then ip is shown */
	uint64_t ip;
	bool inlined;
	uint64_t hits;		/* period of every path through this node */
	uint64_t self;		/* period of paths ending here */
	struct cc_node *child, *next;
};

struct hist_entry {
	const char *comm;	/* owned by the hist */
	uint32_t pid, tid, cpu;
	const char *dso;	/* short name: "libc.so.6", "[kernel.kallsyms]", "[unknown]" */
	const char *sym;	/* NULL when unresolved */
	uint64_t addr;		/* the address shown when sym is NULL */
	char level;		/* 'k' kernel, '.' user */
	uint64_t self, children;	/* periods */
	uint64_t nr_self, nr_children;	/* samples */
	struct cc_node *cc;	/* the call graph's roots */
};

struct hist;

/* parse "comm,dso,sym" into opts (unknown key: -EINVAL and its name in *bad) */
int hist__parse_sort(struct hist_opts *o, const char *spec, const char **bad);

struct hist *hist__new(const struct hist_opts *o);
void hist__free(struct hist *h);
int hist__add(struct hist *h, const struct session_sample *smp);
/* sort entries (children or self period, descending); call before reading */
void hist__sort(struct hist *h);
size_t hist__nr_entries(const struct hist *h);
const struct hist_entry *hist__entry(const struct hist *h, size_t i);
uint64_t hist__total_period(const struct hist *h);
uint64_t hist__nr_samples(const struct hist *h);
const struct hist_opts *hist__opts(const struct hist *h);

#endif
