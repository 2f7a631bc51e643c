/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runtime.h - run a checked program: generate and load one BPF program per
 * attach point, create its maps, run BEGIN, attach, read the ring buffer until
 * exit(), Ctrl-C, SIGTERM or the end of the -c child, run END, print the maps
 * and detach. The caller keeps the program and the options; everything the
 * run opens (programs, maps, links, buffers) it closes before returning.
 */
#ifndef SONDE_LANG_RUNTIME_H
#define SONDE_LANG_RUNTIME_H

#include "lang/lang.h"

#include <stdio.h>
#include <sys/types.h>

struct run_opts {
	bool dry_run;		/* compile (and with dump, show the bytecode); load nothing */
	bool dump;		/* print the generated instructions */
	bool json;
	pid_t pid;		/* -p: uprobes only in this process; 0 for all */
	pid_t cpid;		/* -c: the prepared child */
	int (*start_child)(void *ctx);	/* lets the -c child exec, after attaching */
	void *child_ctx;
	int *child_status;	/* where its wait status goes */
	FILE *out;
	bool full_buffering;	/* -B full: no flush after each batch of records */
	int *interrupted;	/* where the signal (SIGINT, SIGTERM) that stopped the loads goes, or NULL */
	bool quiet;		/* no "Attaching N probes..." line (sonde tool: the tool says what it traces) */
	bool begin_last;	/* BEGIN runs once every probe is attached: what it prints means "tracing" */
	bool probe_only;	/* load and attach every probe, then detach: can it run here? (sonde tools) */
	int *skipped;		/* probe_only: probes missing_probes let go (the first one's error in err) */
	bool notify_attached;	/* a line "__BPFTRACE_NOTIFY_PROBES_ATTACHED" once attached (bpftrace's test runner) */
};

/*
 * 0 when the program ran (or compiled, for a dry run); -errno with err filled, or with prog->err;
 * -EINTR when SIGINT or SIGTERM came while the kernel verified the programs (*o->interrupted set)
 */
int runtime__run(struct program *prog, const struct run_opts *o, char *err, size_t errlen);

/* run a loaded BEGIN, END, test: or bench: program once (BPF_PROG_TEST_RUN): 0 with its return value
 * in *retval (if not NULL), or -errno with err filled */
int runtime__test_run(struct ap_inst *in, uint32_t *retval, char *err, size_t errlen);

#endif
