/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_flight.h - the user side of flight.bpf.c: one syscall watched for a
 * flight recorder's trigger. Slow calls arrive through a BPF ring buffer (one
 * struct flight_slow each, for loop__add_ringbuf); the latency histogram is
 * read as counts since the attach. The watcher owns its skeleton and links;
 * flight_watch__free() detaches and frees them.
 */
#ifndef SONDE_BPF_FLIGHT_H
#define SONDE_BPF_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/flight.h"

struct flight_watch;

struct flight_watch_opts {
	const char *syscall;		/* "read": syscalls:sys_enter_read and sys_exit_read */
	uint64_t min_ns;		/* send the calls slower than this; 0 sends none */
	bool hist;			/* keep the latency histogram */
	bool all;			/* every task but sonde */
	bool by_tid;			/* targets are thread ids */
	bool follow;			/* add the children of the targets */
	const pid_t *targets;
	int nr_targets;
};

/* load and attach; 0 or -errno with one line in err (-ENOENT: no such syscall tracepoint) */
int flight_watch__open(struct flight_watch **out, const struct flight_watch_opts *o, char *err, size_t errlen);
/* the ring buffer map of slow calls */
int flight_watch__ringbuf_fd(const struct flight_watch *w);
/* the counts of each bucket (FLIGHT_NBUCKETS) since the attach, summed over CPUs; 0 or -errno */
int flight_watch__hist(const struct flight_watch *w, uint64_t *cum);
/* slow calls the ring buffer had no room for */
uint64_t flight_watch__dropped(const struct flight_watch *w);
void flight_watch__free(struct flight_watch *w);

#endif
