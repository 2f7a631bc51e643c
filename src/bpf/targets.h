/* SPDX-License-Identifier: GPL-2.0 */
/*
 * targets.h - what lock.bpf.c and offcpu.bpf.c share: the `targets` set of
 * tgids or tids the user side fills (and forks add to), the per-CPU `stats`
 * counters, and the test of a thread against both. The program including it
 * defines TARGETS_NR_STATS (its number of counters) first, and declares the
 * rodata filter_mode (TARGETS_*), follow_forks and self_tgid. Kernel side
 * only: the maps belong to the BPF object, nothing here allocates.
 */
#ifndef SONDE_BPF_TARGETS_H
#define SONDE_BPF_TARGETS_H

#include "counter.h"
#include "maps.h"

#define TARGETS_ALL 0	/* every thread but sonde's */
#define TARGETS_TGID 1	/* threads whose tgid is in the targets map */
#define TARGETS_TID 2	/* threads whose tid is in the targets map */

TARGETS_MAP(targets);
COUNTERS_MAP(stats, TARGETS_NR_STATS);

#define stat_inc(which) counter_inc(&stats, (which))

/* whether thread pid of process tgid is traced: never sonde itself, else as filter_mode says */
static __always_inline bool target_match(__u32 pid, __u32 tgid)
{
	if (tgid == self_tgid)
		return false;
	if (filter_mode == TARGETS_TGID)
		return bpf_map_lookup_elem(&targets, &tgid) != NULL;
	if (filter_mode == TARGETS_TID)
		return bpf_map_lookup_elem(&targets, &pid) != NULL;
	return true;
}

/* process parent forks child: with follow_forks, a target's child is a target */
static __always_inline void target_fork(__u32 parent, __u32 child)
{
	__u8 one = 1;

	if (filter_mode == TARGETS_TGID && follow_forks && child && child != parent &&
	    bpf_map_lookup_elem(&targets, &parent))
		bpf_map_update_elem(&targets, &child, &one, BPF_NOEXIST);
}

#endif
