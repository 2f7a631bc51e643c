/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flight.h - the types flight.bpf.c (the syscall watcher of `sonde record
 * --flight --trigger`) and its user side share: the record of one slow call
 * and the log-linear latency histogram's shape. Plain data only.
 */
#ifndef SONDE_FLIGHT_H
#define SONDE_FLIGHT_H

/*
 * Latency buckets, log-linear as HdrHistogram's with 4 significant bits: below
 * 16 ns one bucket per ns, then 16 buckets per power of two. A value lands in
 * a bucket whose width is at most 1/16 of its lower bound: a percentile read
 * from the buckets is within 6.25% of the true one.
 */
#define FLIGHT_SUB_BITS	4
#define FLIGHT_SUB	(1 << FLIGHT_SUB_BITS)
#define FLIGHT_NBUCKETS	((64 - FLIGHT_SUB_BITS + 1) * FLIGHT_SUB)

/* one call slower than the threshold */
struct flight_slow {
	unsigned long long ts;		/* its exit, CLOCK_MONOTONIC ns */
	unsigned long long dur;		/* ns from entry to exit */
	long long ret;
	unsigned int pid, tid;
	char comm[16];
};

#endif
