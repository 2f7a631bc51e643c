/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plt.h - what `sonde ltrace` needs to know of an ELF object: the stubs of its
 * procedure linkage table (where each call to a library function goes, by
 * name), its SONAME, the libraries it needs, whether it is static or a Go
 * program, and whether it defines a function (for -l). An elf_obj owns its
 * strings and arrays; elf_obj__free() frees them.
 */
#ifndef SONDE_LTRACE_PLT_H
#define SONDE_LTRACE_PLT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct plt_entry {
	char *name;		/* the symbol the stub's GOT slot is relocated to ("malloc") */
	uint64_t vaddr;		/* the stub, in the object's addresses */
	uint64_t offset;	/* its file offset: where a uprobe on it goes */
	uint64_t got;		/* the GOT slot it jumps through, in the object's addresses */
};

struct elf_obj {
	char *path;
	char *soname;		/* DT_SONAME, else the file's base name (ltrace's rule) */
	struct plt_entry *plt;	/* by address */
	int nr_plt;
	char **needed;		/* DT_NEEDED, in order */
	int nr_needed;
	char *runpath;		/* DT_RUNPATH, else DT_RPATH; NULL if none */
	char *interp_path;	/* PT_INTERP: the dynamic loader's path; NULL if none */
	char **exports;		/* the functions it defines for others (.dynsym), sorted */
	int nr_exports;
	bool dynamic;		/* has a program interpreter or a dynamic section */
	bool interp;		/* has a program interpreter (an executable the dynamic loader starts) */
	bool go;		/* built by Go (.note.go.buildid or .go.buildinfo) */
};

/*
 * Read the object at path into o (zeroed first). 0, -ENOENT/-EACCES... when
 * it cannot be opened, -ENOEXEC when it is no ELF file of this machine.
 * An object without PLT stubs is no error: nr_plt is 0.
 */
int elf_obj__read(struct elf_obj *o, const char *path);
void elf_obj__free(struct elf_obj *o);

/*
 * The PLT stubs of an ELF image in memory (for the unit tests and the fuzzer,
 * which give bytes, not files): as elf_obj__read does from a file.
 */
int elf_obj__read_mem(struct elf_obj *o, const void *buf, size_t len, const char *name);

/*
 * The functions of the ELF file at path (its symbol table, else .dynsym)
 * whose names match one of the globs pats[0..npats), by address, into *out
 * (name, vaddr and offset; got 0): -x's entry points. The caller frees the
 * names and the array. 0 or -errno.
 */
int elf_obj__functions(const char *path, char *const *pats, int npats, struct plt_entry **out, int *n);

/* whether the object exports function `name` (its .dynsym defines it, not locally) */
bool elf_obj__defines(const struct elf_obj *o, const char *name);

#endif
