/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_event.h - dynamic trace events, as `perf probe` makes them: a kprobe
 * event (kprobe_events) on a kernel function or a uprobe event (uprobe_events)
 * on a function of an ELF file, with arguments named as in the source and
 * turned into fetch arguments (%di, +8(%si):s64, +0(%di):string) from the
 * kernel's BTF or the file's DWARF (its own or a separate debug file). The
 * events are global and stay until deleted, as perf's do: they are ordinary
 * tracepoints GROUP:EVENT (group sonde_probes unless the spec names one) that
 * every tool can count or record. Errors: -errno with a one-line reason in err.
 */
#ifndef SONDE_PROBE_EVENT_H
#define SONDE_PROBE_EVENT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define PEV_GROUP "sonde_probes"
#define PEV_MAX_ARGS 16

struct pev_arg {
	char name[64];		/* the field's name in the event */
	char expr[128];		/* as given: "p->next->x", "$retval", "%di" */
	char type[16];		/* as given after ':' ("" none): u64, string... */
	char fetch[320];	/* what the kernel gets: "+0(+24(%si)):s32" */
};

struct pev {
	char group[64], event[64];	/* event "" until pev__add picks one */
	char func[128];
	unsigned long long off;		/* FUNC+OFF */
	bool ret;			/* FUNC%return */
	int line;			/* FUNC:N, the line N after FUNC's (perf probe -L's numbers); -1: none */
	char binary[PATH_MAX];		/* "" for the kernel; a real path for a uprobe */
	unsigned long long foff;	/* the uprobe's file offset (FUNC's plus off) */
	struct pev_arg args[PEV_MAX_ARGS];
	int nargs;
};

/* a parameter of a function, as --vars shows it */
struct pev_var {
	char name[64];
	char type[128];		/* "struct point*", "short unsigned int" */
};

/*
 * Parse "[[GROUP:]EVENT=]FUNC[+OFF|:LINE|%return] [NAME=]ARG[:TYPE]..." into pe for
 * the kernel (binary NULL) or a user function of binary (a real path).
 */
int pev__parse(const char *spec, const char *binary, struct pev *pe, char *err, size_t errlen);

/* arguments to fetch arguments, and the uprobe's file offset; 0 or -errno */
int pev__resolve(struct pev *pe, char *err, size_t errlen);

/* the line written to kprobe_events or uprobe_events */
int pev__line(const struct pev *pe, char *buf, size_t len);

/* create the event (named FUNC, FUNC__return, then FUNC_1...: pe->event); 0 or -errno */
int pev__add(struct pev *pe, char *err, size_t errlen);

/*
 * Delete the kprobe and uprobe events matching pattern ("GROUP:EVENT" globs, or
 * an EVENT glob in group sonde_probes); cb says each. The number deleted or -errno
 * (-ENOENT: none matches; -EBUSY: one is in use, named in err).
 */
int pev__del(const char *pattern, void (*cb)(const char *ev, void *arg), void *arg, char *err, size_t errlen);

/* the kprobe and uprobe events now defined, as perf probe --list shows them; count or -errno */
int pev__list(void (*cb)(const char *line, void *arg), void *arg);

/* the functions of binary (NULL: the kernel's, from BTF) matching the glob, sorted; count or -errno */
int pev__funcs(const char *binary, const char *pattern, void (*cb)(const char *fn, void *arg), void *arg);

/* the parameters of func (binary NULL: the kernel's); count, -ENODATA (no DWARF/BTF), -ENOENT */
int pev__vars(const char *binary, const char *func, struct pev_var *out, int max);

/*
 * The source lines of func in binary as perf probe -L shows them: "<FUNC@FILE:0>",
 * then each line from the declaration on, its number relative to it where a probe
 * can go (code there), blanks where not. 0, -ENODATA (no DWARF), -ENOENT, -errno.
 */
int pev__lines(const char *binary, const char *func, void (*cb)(const char *line, void *arg), void *arg);

/* internal, probe_types.c: the first address of line N of func (as pev__lines numbers them) */
int pev__line_addr(const char *binary, const char *func, int n, unsigned long long *vaddr);

/* internal, probe_types.c: the fetch argument of one argument at func's entry (or return) */
int pev__fetch(const struct pev *pe, struct pev_arg *a, char *err, size_t errlen);
/* internal, probe_types.c: func's address in binary (ELF symbol value) and its file offset */
int pev__elf_func(const char *binary, const char *func, unsigned long long *vaddr, unsigned long long *foff);
/* internal, probe_types.c: the function holding file offset foff in binary, and how far in */
int pev__elf_sym_at(const char *binary, unsigned long long foff, char *name, size_t len, unsigned long long *delta);

#endif
