/* SPDX-License-Identifier: GPL-2.0 */
/*
 * offcpu_maps.h - the memory maps `sonde offcpu` symbolizes and unwinds with,
 * and the user-stack walk its targets need. Stacks are read at the end, when
 * the traced processes may have exited, so their maps are kept while they
 * live: from the kernel's mmap records for a started command (bpf_mmaps), from
 * /proc/PID/maps snapshots of -p targets every tick, and from /proc at the end
 * for the rest. struct offcpu_maps owns its list of processes seen; the
 * symbolizer and the bpf_mmaps stay the caller's.
 */
#ifndef SONDE_OFFCPU_MAPS_H
#define SONDE_OFFCPU_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct symbolizer;
struct bpf_mmaps;
struct offcpu_profile;

struct offcpu_maps {
	struct symbolizer *sym;
	struct bpf_mmaps *mm;	/* -- CMD: the maps as the kernel reports them (may be NULL) */
	int targets_fd;		/* -p: the BPF target map, whose tgids are snapshot each tick; -1: none */
	const pid_t *watched;	/* -p/-t: the run ends when all of these are gone */
	int nr_watched;
	pid_t *seen;		/* processes whose maps are loaded */
	int nr_seen;
	uint64_t last_drain_ns;
};

/* sym and mm (may be NULL) are borrowed; targets_fd -1 and nothing watched */
void offcpu_maps__init(struct offcpu_maps *m, struct symbolizer *sym, struct bpf_mmaps *mm);
/*
 * The event loop's tick (lib/loop/loop.h): take the maps that arrived, snapshot
 * the target processes; 1 when every watched target is gone (the run ends).
 */
int offcpu_maps__tick(void *m);
/* the same with the signature of the loop's callbacks (loop__set_tick(l, ms, offcpu_maps__on_tick, m)) */
int offcpu_maps__on_tick(void *m, int fd, short revents);
/* --call-graph dwarf: bring the maps of tgid up to date before one of its stacks is unwound */
void offcpu_maps__before_unwind(void *m, pid_t tgid);
/* the same, now: a stack of tgid could not be unwound with the maps known (it exec'ed since) */
void offcpu_maps__refresh(void *m, pid_t tgid);
/* the end: load the maps of the profile's processes not seen yet (still alive) */
void offcpu_maps__load_rest(struct offcpu_maps *m, const struct offcpu_profile *p);
void offcpu_maps__fini(struct offcpu_maps *m);

/*
 * Whether the user stacks of the targets need DWARF unwinding: true when an
 * object they map has no frame pointers (lib/symbol/framepointer.h), which
 * then fills why ("/lib/x86_64-linux-gnu/libc.so.6 has no frame pointers").
 * The objects: those of /proc/PID/maps for pids[0..n); for a command not yet
 * started (cmd), its executable and the libraries it needs, found as sonde
 * maps them or in the loader's directories; with neither (-a), sonde's own,
 * whose libc is the system's.
 */
bool offcpu__needs_dwarf(const pid_t *pids, int n, const char *cmd, char *why, size_t whylen);

#endif
