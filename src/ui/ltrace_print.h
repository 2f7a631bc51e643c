/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ltrace_print.h - `sonde ltrace` output: a line per library call as ltrace
 * prints it (`name(args) = ret`, the value at column 50, `<unfinished ...>`
 * and `<... name resumed>` when another call, thread or syscall comes
 * between a call and its return, `<no return ...>`, `+++ exited +++`, `--- SIGUSR1 (...) ---`,
 * `--- Called exec() ---`), with
 * -f pid prefixes, -t/-tt/-ttt/-r times, -T durations, -i caller addresses,
 * -n indentation; and -c's table. The printer owns its thread states and line
 * buffer (ltrace_printer__fini); the FILE and the function table stay the
 * caller's.
 */
#ifndef SONDE_LTRACE_PRINT_H
#define SONDE_LTRACE_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf/ltrace.h"
#include "lib/ltrace/funcs.h"	/* struct ltrace_func */

struct ltrace_thread;

struct ltrace_printer {
	FILE *out;
	const struct ltrace_func *funcs;
	int nr_funcs;
	int strmax;		/* -s */
	bool show_caller;	/* "ltracee->malloc(": a filter (-e, -l) was given */
	int pid_prefix;		/* 0 none, 1 "[pid N] " (-f), 2 "N " (-f or -p with -o) */
	int tflag;		/* -t 1, -tt 2, -ttt 3 */
	bool rflag, Tflag, iflag;
	int indent;		/* -n */
	bool count;		/* -c: no lines, a table at the end */
	bool no_signals;	/* -b: no "--- SIGUSR1 (...) ---" lines */
	int64_t real_off_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, for -t */
	/* state */
	struct ltrace_thread *threads;
	int nr_threads;
	unsigned open_tid;	/* the thread whose call is printed up to its arguments (0: none) */
	int open_depth;
	int col;
	uint64_t last_ts;
	struct sbuf line;
	struct lt_held *held;	/* records kept back behind an entry that waits for its strings */
	int held_lo, held_hi;
	size_t held_cap;
	struct ltrace_stat *stats;	/* -c: by function name */
	int nr_stats;
	uint64_t lines;
};

void ltrace_printer__init(struct ltrace_printer *p, FILE *out);
/* one record of the ring buffer; 0 or -EIO when writing failed */
int ltrace_printer__event(struct ltrace_printer *p, const void *data, size_t size);
/* at the end: a call still printed up to its arguments is cut (" <unfinished ...>") */
void ltrace_printer__flush(struct ltrace_printer *p);
/* -c: ltrace's table (% time, seconds, usecs/call, calls, function) */
void ltrace_printer__summary(struct ltrace_printer *p);
/* the calls counted (-c) or printed so far */
uint64_t ltrace_printer__calls(const struct ltrace_printer *p);
void ltrace_printer__fini(struct ltrace_printer *p);

#endif
