/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe.h - one program of the probe language compiled and run: what `sonde
 * probe` does once it has read its options, and what `sonde tool` runs with
 * a tool's embedded source. The job's strings stay the caller's.
 */
#ifndef SONDE_CMD_PROBE_H
#define SONDE_CMD_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct probe_job {
	const char *file;		/* the program's name in messages */
	const char *src;
	size_t len;
	int argc;			/* positional parameters ($1..) and --NAME[=VALUE] named ones, */
	char **argv;			/* in the order given (argv is reordered) */
	const char **named;		/* more named parameters, "NAME[=VALUE]" (a tool's options) */
	int nnamed;
	const char *cmd;		/* -c: run this command; its pid is cpid */
	char *const *cmd_argv;		/* or its words as given (cmd then names them for messages) */
	int pid;			/* -p */
	bool unsafe, no_warnings, dry_run, json, full_buffering;
	bool quiet;			/* no "Attaching N probes...", and BEGIN runs once all are attached */
	bool probe_only;		/* load, attach, detach: can it run here? */
	int kcheck;
	bool percentiles;	/* --percentiles: p50..p999 and max under each histogram */
	int mode;			/* enum prog_mode (lang.h) */
	const char *probe_filter;	/* --probe-filter REGEX */
	const char *const *includes;	/* --include HEADER...: as #include <HEADER> lines would */
	int nincludes;
	char *why;			/* when set, errors go here (one line) instead of stderr */
	size_t whylen;
	int interrupted;		/* out: SIGINT or SIGTERM that came while the kernel verified */
	int skipped;			/* out, probe_only: probes that missing_probes let go (why says one) */
};

/* 0, 1 after an error said (or put in why), or the program's exit code */
int probe__run(struct probe_job *j);

/* --info (probe_info.c): the system, the build, what the kernel lets programs do; 0 */
int probe__info(FILE *f);

/* perf probe's surface (probe_add.c): do these options ask for it, and run it */
bool probe_events__wanted(int argc, char **argv);
int probe_events__cmd(int argc, char **argv);

#endif
