/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counter.h - the one increment of the per-CPU array of counters (events
 * seen, dropped, lost, missed...) that every sonde BPF program keeps and
 * user space sums over the CPUs. Per-CPU, and a program runs with
 * preemption off: a plain add, no atomic. Kernel side only: the array
 * belongs to the BPF object, nothing here allocates.
 */
#ifndef SONDE_BPF_COUNTER_H
#define SONDE_BPF_COUNTER_H

static __always_inline void counter_inc(void *map, __u32 which)
{
	__u64 *v = bpf_map_lookup_elem(map, &which);

	if (v)
		(*v)++;
}

#endif
