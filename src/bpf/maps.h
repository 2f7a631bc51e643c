/* SPDX-License-Identifier: GPL-2.0 */
/*
 * maps.h - the maps several sonde BPF programs declare alike, as one
 * declaration each:
 *   TARGETS_MAP(name): the traced tasks, a hash from a tgid (or a tid) to a
 *     state byte (1: traced; a program gives other values its own meaning),
 *     filled by user space and grown on fork;
 *   TASK_STORAGE_MAP(name, vtype): a vtype per task, made on first use (per
 *     thread state without a hash update per event);
 *   COUNTERS_MAP(name, nr): nr per-CPU __u64 counters (counter.h adds one);
 *   RINGBUF_MAP(name, bytes): a ring buffer of records for user space.
 */
#ifndef SONDE_BPF_MAPS_H
#define SONDE_BPF_MAPS_H

#define TARGETS_MAX 8192

#define TARGETS_MAP(name)				\
	struct {					\
		__uint(type, BPF_MAP_TYPE_HASH);	\
		__uint(max_entries, TARGETS_MAX);	\
		__type(key, __u32);			\
		__type(value, __u8);			\
	} name SEC(".maps")

#define TASK_STORAGE_MAP(name, vtype)				\
	struct {						\
		__uint(type, BPF_MAP_TYPE_TASK_STORAGE);	\
		__uint(map_flags, BPF_F_NO_PREALLOC);		\
		__type(key, int);				\
		__type(value, vtype);				\
	} name SEC(".maps")

#define COUNTERS_MAP(name, nr)					\
	struct {						\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);	\
		__uint(max_entries, nr);			\
		__type(key, __u32);				\
		__type(value, __u64);				\
	} name SEC(".maps")

#define RINGBUF_MAP(name, bytes)			\
	struct {					\
		__uint(type, BPF_MAP_TYPE_RINGBUF);	\
		__uint(max_entries, bytes);		\
	} name SEC(".maps")

#endif
