/* SPDX-License-Identifier: GPL-2.0 */
/*
 * follow.h - what `sonde ltrace` traces while it runs: the table of traced
 * functions by cookie, the files whose PLT stubs are probed (each once), and
 * the programs and libraries a traced process starts using later: a new
 * program after an exec, a library the dynamic loader maps (dlopen). Those
 * the -e filter and -l patterns select are probed as at the start, then the
 * process, held by the BPF side meanwhile, runs on. The set owns its table,
 * the objects read and their function sets (lt_follow__free); lt, filter
 * and lpats stay the caller's. Problems that do not stop the trace go to
 * warn(), one line each.
 */
#ifndef SONDE_LTRACE_FOLLOW_H
#define SONDE_LTRACE_FOLLOW_H

#include <stdbool.h>
#include <sys/types.h>

#include "lib/bpf/bpf_ltrace.h"
#include "lib/ltrace/funcs.h"

struct lt_image;
struct lt_file_id;

struct lt_follow {
	/* the caller's */
	struct ltrace *lt;
	const struct lt_filter *filter;		/* -e */
	char *const *lpats;			/* -l */
	int nr_lpats;
	bool no_libcalls;			/* -L: no library calls at all */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
	/* the set's */
	struct ltrace_func *funcs;		/* by cookie */
	int nr_funcs;
	struct lt_image *imgs;			/* the programs and libraries read since the start */
	int nimgs;
	struct lt_file_id *files;		/* the files whose PLT stubs are probed */
	int nfiles;
	char err[512];
};

/* the functions probed at the start (cookies 0..n-1): the table, and their files as probed; 0 or -ENOMEM */
int lt_follow__start(struct lt_follow *f, const struct lt_funcs *fs);
/* whether the file at path is one whose PLT is probed already; if not, it is from now on */
bool lt_follow__seen(struct lt_follow *f, const char *path);
/* probe fs for process pid (cookies from nr_funcs on) and add them to the table; 0 or -errno (f->err) */
int lt_follow__add(struct lt_follow *f, const struct lt_funcs *fs, pid_t pid);
/* process pid ran a new program (held: the BPF side stopped it, let it go when done) */
void lt_follow__exec(struct lt_follow *f, pid_t pid, bool held);
/* the dynamic loader of process pid changed its libraries */
void lt_follow__dlopen(struct lt_follow *f, pid_t pid, bool held);
void lt_follow__free(struct lt_follow *f);

#endif
