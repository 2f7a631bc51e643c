/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwargs.h - a uprobe's arguments by name, from the binary's DWARF (args.name
 * in uprobes, uprobe -lv). The types are added to the program's own BTF; the
 * caller owns the array it passes.
 */
#ifndef SONDE_LANG_DWARGS_H
#define SONDE_LANG_DWARGS_H

#include "lang/lang.h"

struct dwparam {
	char name[64];
	char type[128];		/* as bpftrace -lv writes it: "const char*" */
	int index;		/* argN */
	int btf_id;		/* in p->btf (0: void, -1: not representable); -1 too when p is NULL */
};

/*
 * The formal parameters of func in the ELF file path (up to max): how many,
 * -ENODATA when the file has no DWARF, -ENOENT when DWARF has no such function.
 * p may be NULL (names and type texts only).
 */
int dwargs__params(struct program *p, const char *path, const char *func, struct dwparam *out, int max);

#endif
