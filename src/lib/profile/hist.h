/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist.h - the profile `sonde report` shows: samples grouped by sort keys
 * (comm, pid, tid, dso, sym, cpu, srcline), with self and children (inclusive)
 * periods and a call graph per entry, as perf report builds them. The hist owns
 * its entries, strings (copied) and call graphs; hist__free() releases them.
 */
#ifndef SONDE_HIST_H
#define SONDE_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/profile/session.h"

enum hist_key { HK_COMM, HK_PID, HK_TID, HK_DSO, HK_SYM, HK_CPU, HK_SRCLINE, HK_MAX };

struct symbolizer;

struct hist_opts {
	enum hist_key keys[HK_MAX];
	int nr_keys;
	bool children;		/* inclusive entries for every frame (perf's --children) */
	bool callchain;		/* keep a call graph per entry */
	bool caller;		/* graph root first (caller order), else leaf first */
	struct symbolizer *lines;	/* HK_SRCLINE: the symbolizer that resolved the samples' frames
					   (the session's): it looks up their source lines */
	bool inline_lines;	/* HK_SRCLINE: DWARF-unwound frames carry their lines, as perf's inline
				   lists do (perf's --inline, the default; the session made with
				   SYM_INLINE_UNWOUND | SYM_SRCLINE) */
};

/*
 * one frame of a call graph: 64 bytes, aligned to them (a cache line). What a sibling
 * search reads (name, key, next, dso_rank, inlined) comes first.
 */
struct cc_node {
	const char *name;	/* symbol, or NULL: then key, its address, is shown */
	/* perf's order of siblings of equal hits: its DSO's, then the address of its symbol, or
	   its own with no symbol, both descending; the DSO's is 0 for none, 1 the kernel, then
	   the order the files were mapped in */
	uint64_t key;
	struct cc_node *next;
	unsigned dso_rank;
	bool inlined;
	bool indexed;		/* in the hist's index (its level is wide) */
	uint64_t hits;		/* period of every path through this node (hist__cc_self: of those
				   ending here) */
	struct cc_node *child;
	/* the hist's index of the children of wide levels by parent and frame: a kernel
	   entry's graph can have thousands of siblings (system-wide), too many to search
	   in a list; most levels have one or two, found in the list with no index */
	struct cc_node *hnext;
	uintptr_t parent;	/* the parent node, or the entry's serial << 1 | 1 at the top */
} __attribute__((aligned(64)));

/* the period of the paths that end at n: what goes through it and on to no child */
static inline uint64_t hist__cc_self(const struct cc_node *n)
{
	uint64_t s = n->hits;

	for (const struct cc_node *c = n->child; c; c = c->next)
		s -= c->hits;
	return s;
}

struct hist_entry {
	const char *comm;	/* owned by the hist */
	uint32_t pid, tid;
	int32_t cpu;		/* -1 when the samples do not say (no PERF_SAMPLE_CPU) */
	const char *dso;	/* short name: "libc.so.6", "[kernel.kallsyms]", "[unknown]" */
	const char *sym;	/* NULL when unresolved */
	uint64_t addr;		/* the address shown when sym is NULL */
	char level;		/* 'k' kernel, '.' user */
	/*
	 * HK_SRCLINE, as perf 6.1 writes it: "demo.c:39" (the file's name and line), else
	 * "hot_loop+36" (the symbol and the decimal offset), else "libfoo.so[1a2b]", or "??:0"
	 * for an address in no mapping. Inclusive entries of user frames (--children) take the
	 * frame's absolute address, as perf does, which is in no line table: "main+94416981278810".
	 */
	const char *srcline;
	bool srcline_sized;	/* perf knew it when it sized the column (else it cuts it to the width) */
	bool srcline_preset;	/* it came with a DWARF-unwound frame (perf's inline list): always known */
	uint64_t self, children;	/* periods */
	uint64_t nr_self, nr_children;	/* samples */
	uint32_t max_depth;	/* the longest call chain added to the graph (orders equal entries) */
	uint32_t serial;	/* the order it was made in: its graph's key while entries move */
	struct cc_node *cc;	/* the call graph's roots */
};

/*
 * The hist keeps the addresses of the frames' strings (symbols, DSOs) it was given, to
 * copy each once: they must stay the same strings while it is used, as a symbolizer's do.
 */
struct hist;

/* parse "comm,dso,sym" into opts (unknown key: -EINVAL and its name in *bad); HK_SRCLINE needs opts->lines */
int hist__parse_sort(struct hist_opts *o, const char *spec, const char **bad);

struct hist *hist__new(const struct hist_opts *o);
void hist__free(struct hist *h);
int hist__add(struct hist *h, const struct session_sample *smp);
/*
 * sort entries as perf report orders them: children (with --children) then self period,
 * descending; equal ones by their sort keys in order. Call before reading.
 */
void hist__sort(struct hist *h);
size_t hist__nr_entries(const struct hist *h);
const struct hist_entry *hist__entry(const struct hist *h, size_t i);
uint64_t hist__total_period(const struct hist *h);
uint64_t hist__nr_samples(const struct hist *h);
const struct hist_opts *hist__opts(const struct hist *h);

/*
 * The profile of a recording: one hist per event of s (*nr of them, in
 * *hists, sorted), made with o from the samples session__walk hands over.
 * The caller frees each with hist__free() and the array with free().
 * 0 or -errno (-EIO when the recording could not be read).
 */
int hist__from_session(struct session *s, const struct hist_opts *o, struct hist ***hists, int *nr);

#endif
