/* SPDX-License-Identifier: GPL-2.0 */
/*
 * strace_print.h - `sonde trace` output: one line per syscall as strace
 * prints it (pid prefixes, -t/-tt/-ttt/-r timestamps, -T durations, signal
 * and exit lines), the -c summary table and the --histogram. The printer owns
 * its line buffer; strace_printer__fini() frees it (the FILE stays the caller's).
 */
#ifndef SONDE_STRACE_PRINT_H
#define SONDE_STRACE_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/syscall/sysdecode.h"

enum pid_prefix {
	PFX_NONE,	/* one process, or no -f */
	PFX_PLAIN,	/* -f -o FILE: "1234  " on every line */
	PFX_BRACKET,	/* -f to stderr: "[pid  1234] " once more than one task is traced */
};

struct strace_printer {
	FILE *out;
	enum pid_prefix prefix;
	int tflag;		/* -t 1, -tt 2, -ttt 3 */
	bool rflag;		/* -r */
	bool Tflag;		/* -T */
	struct sysdecode_opts dopts;
	int64_t real_off_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	uint64_t last_ts;
	struct sbuf line;
	unsigned tids[64];	/* live traced tasks, for PFX_BRACKET */
	int ntids;
	/* with several tasks: the entry not printed yet, and the tasks whose line was cut */
	struct sc_event *open_ev;
	bool open;
	unsigned unfinished[256];
	int nunf;
	uint64_t lines;
};

void strace_printer__init(struct strace_printer *p, FILE *out);
/* print one record from the BPF side; 0, or -EIO when writing failed */
int strace_printer__event(struct strace_printer *p, const struct sc_event *ev, size_t size);
/* "+++ exited with N +++" or "+++ killed by SIG +++" for a wait status (ts: CLOCK_MONOTONIC ns) */
int strace_printer__exit(struct strace_printer *p, unsigned tid, int status, uint64_t ts);
/* print the entry still waiting for its exit as <unfinished ...> (at the end of a trace) */
int strace_printer__flush(struct strace_printer *p);
void strace_printer__fini(struct strace_printer *p);

/* strace -c's table for stats[TRACE_NR_MAX]; sortby: "time" (default), "calls", "errors", "name", "nothing" */
void strace_print__summary(FILE *out, const struct sc_stat *stats, const char *sortby);
/* per-syscall latency histograms (log2 buckets of ns), each with a line of p50/p90/p99/p999/max */
void strace_print__histogram(FILE *out, const struct sc_stat *stats);

#endif
