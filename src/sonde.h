/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sonde.h - the command table's types and the helpers every command shares.
 * Nothing here returns memory to own: the diagnostics print, the table is static.
 *
 * Adding a new command:
 *   1. write src/cmd/NAME.c with `int cmd_NAME(int argc, char **argv)`; it parses
 *      its options with opt__parse() (src/opt.h), wires src/lib/ pieces together
 *      and prints; engine logic belongs in src/lib/;
 *   2. declare it below and add one row to the table in src/main.c, with the
 *      one-line help and the RUN_* flags saying what the runner must prepare;
 *   3. add tests/e2e/tNNNN-NAME.sh; t0000-hub.sh checks every command answers --help.
 * The Makefile picks up new .c files by itself.
 */
#ifndef SONDE_H
#define SONDE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "lib/version.h"

/* what the runner prepares before it calls a command */
enum run_flags {
	RUN_MEMLOCK = 1 << 0,	/* raise RLIMIT_MEMLOCK for BPF maps and perf buffers */
	RUN_TRACEFS = 1 << 1,	/* mount tracefs at /sys/kernel/tracing if it is not there */
	RUN_ROOT    = 1 << 2,	/* says clearly that root (or the capabilities) is needed */
	RUN_HIDDEN  = 1 << 3,	/* a debugging aid: runs, but `sonde --help` does not list it */
};

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
	unsigned flags;
};

extern const struct cmd sonde_cmds[];
extern int verbose;		/* -v count, global for every command */

/* the recording commands read when not told: sonde.data, or perf.data when only it exists */
const char *default_recording(void);

/* messages: "sonde: <what failed>: <why>" on stderr; see STYLE.md */
void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void debug(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* a hint line ("hint: ...") that follows an error */
void hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));




int cmd_stat(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_collapse(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_use(int argc, char **argv);
int cmd_ftrace(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_offcpu(int argc, char **argv);
int cmd_lock(int argc, char **argv);
int cmd_memleak(int argc, char **argv);
int cmd_ltrace(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_addr2sym(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_tools(int argc, char **argv);
int cmd_tool(int argc, char **argv);
int cmd_sched(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_serve(int argc, char **argv);
/* src/cmd/tool.c: is NAME one of the BCC tools; run one (argv[0] is its name) */
bool tool__exists(const char *name);
int tool__run(int argc, char **argv);
/* BCC's event pattern (c:malloc, t:sched:sched_switch, vfs_*) as an attach point, into out */
int tool__event_spec(const char *pat, char *out, size_t len);

#endif
