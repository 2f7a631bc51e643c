/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libs.h - the shared libraries a program loads, in the dynamic loader's
 * order (breadth first over DT_NEEDED), each found as the loader finds it
 * (LD_LIBRARY_PATH for a command sonde starts, DT_RUNPATH with $ORIGIN, the
 * system directories) or, for a running process, where its memory maps
 * say it is. Libraries opened later with dlopen() are not among them. The
 * caller owns the array of elf_obj (ltrace_libs__free).
 */
#ifndef SONDE_LTRACE_LIBS_H
#define SONDE_LTRACE_LIBS_H

#include <sys/types.h>

#include "lib/ltrace/plt.h"

/*
 * The libraries of exe (already read) into *out; pid > 0: of that running
 * process, with paths through /proc/PID/root. 0 or -errno; a library that
 * cannot be found is left out.
 */
int ltrace_libs__find(const struct elf_obj *exe, pid_t pid, struct elf_obj **out, int *n);
void ltrace_libs__free(struct elf_obj *libs, int n);

#endif
