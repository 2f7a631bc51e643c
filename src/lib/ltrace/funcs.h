/* SPDX-License-Identifier: GPL-2.0 */
/*
 * funcs.h - which PLT stubs `sonde ltrace` probes and how: the main
 * executable's (ltrace's default, @MAIN), or those of every object that -e
 * and -l select, each with its prototype (the built-in table, else the
 * DWARF of the library that defines it, else ltrace's default) and the capture plan the BPF
 * side follows. The set owns its array and names (lt_funcs__free); the
 * objects it was built from must outlive it (callers and paths point into them).
 */
#ifndef SONDE_LTRACE_FUNCS_H
#define SONDE_LTRACE_FUNCS_H

#include <stdbool.h>
#include <sys/types.h>

#include "bpf/ltrace.h"
#include "lib/ltrace/filter.h"
#include "lib/ltrace/plt.h"
#include "lib/ltrace/proto.h"

struct lt_func {
	const char *name;	/* the PLT entry's */
	const char *caller;	/* SONAME of the object the stub is in */
	const char *path;	/* where its uprobe goes */
	uint64_t offset;
	int64_t got_rel;	/* its GOT slot less its address (the BPF side jumps for it) */
	struct lt_proto proto;
	struct lt_plan plan;
	bool dwarf;		/* the prototype came from DWARF */
};

struct lt_funcs {
	struct lt_func *f;
	int n;
};

/* a traced function as the printer names it, by its cookie */
struct ltrace_func {
	const char *name;
	const char *caller;	/* the SONAME of the object whose PLT it is ("ltracee", "libc.so.6"); NULL: -x's */
	struct lt_proto proto;
};

struct lt_select {
	const struct elf_obj *exe;
	const char *exe_path;		/* where the executable's probes go (/proc/PID/exe for -p) */
	const struct elf_obj *libs;	/* in load order */
	int nr_libs;
	const struct lt_filter *filter;	/* -e; NULL: @MAIN unless -l */
	char *const *lpats;		/* -l patterns (globs over SONAMEs) */
	int nr_lpats;
	bool dwarf;			/* prototypes from the DWARF of the defining library */
};

/* the functions to trace into *out; 0 or -errno (-E2BIG: more than LT_MAX_FUNCS) */
int lt_funcs__select(const struct lt_select *s, struct lt_funcs *out);
void lt_funcs__free(struct lt_funcs *fs);

/*
 * -x: the functions e[0..n) of the object at path (the entry points, not
 * PLT stubs), appended to *out with their prototypes (the table, else the
 * object's DWARF), caller as their object's name. 0 or -errno.
 */
int lt_funcs__add_entries(struct lt_funcs *out, const struct plt_entry *e, int n, const char *caller,
			  const char *path);

/* the capture plan of a prototype: its strings (and a format's possible string arguments) */
void lt_plan__of(const struct lt_proto *p, struct lt_plan *plan);

/*
 * The shared libraries a program loads, in the dynamic loader's order
 * (breadth first over DT_NEEDED), each found as the loader finds it
 * (LD_LIBRARY_PATH for a command sonde starts, DT_RUNPATH with $ORIGIN, the
 * system directories) or, for a running process, where its memory maps say
 * it is. Libraries opened later with dlopen() are not among them. The caller
 * owns the array (ltrace_libs__free). The libraries of exe (already read)
 * into *out; pid > 0: of that running process, with paths through
 * /proc/PID/root. 0 or -errno; a library that cannot be found is left out.
 */
int ltrace_libs__find(const struct elf_obj *exe, pid_t pid, struct elf_obj **out, int *n);
void ltrace_libs__free(struct elf_obj *libs, int n);

#endif
