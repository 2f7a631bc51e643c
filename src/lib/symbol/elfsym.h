/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elfsym.h - a walk over an ELF file's defined symbols: .symtab first (it has
 * the local ones too), then .dynsym, for the lookups that need a name or an
 * address at compile time (uprobes, uaddr, usdt's globals). Nothing is kept:
 * the names and symbols a callback sees belong to the ELF handle, valid only
 * during the call.
 */
#ifndef SONDE_ELFSYM_H
#define SONDE_ELFSYM_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * The ELF file at path, read through a mapping: *e and the *fd behind it, the
 * caller's to give back with elfsym__close. 0, -errno, or -ENOEXEC when it is
 * not an ELF file.
 */
int elfsym__open(const char *path, int *fd, Elf **e);
/*
 * The same, read with read(2) as sections are asked for: for code bytes. A
 * mapping of a file that has uprobes of any process attached system-wide holds
 * their int3 breakpoints (the kernel puts them into every mapping it may run),
 * the page cache does not.
 */
int elfsym__open_read(const char *path, int *fd, Elf **e);
void elfsym__close(int fd, Elf *e);

/*
 * cb(name, sym, ctx) for each defined (not SHN_UNDEF) named symbol of e; the
 * walk stops at the first nonzero return, which elfsym__each returns (0 when
 * it ran to the end).
 */
int elfsym__each(Elf *e, int (*cb)(const char *name, const GElf_Sym *s, void *ctx), void *ctx);

/*
 * the same over the file at path, opened as e; when it has no .symtab (stripped),
 * then over its separate debug file's (lib/symbol/debugfile.h), whose symbols have the
 * same addresses
 */
int elfsym__each_file(Elf *e, const char *path, int (*cb)(const char *name, const GElf_Sym *s, void *ctx), void *ctx);

/*
 * The file offset of vaddr through the PT_LOAD segment holding it (within its file
 * part; an executable one when exec): where a uprobe on it goes. 0 or -ENOENT.
 */
int elfsym__file_offset(Elf *e, uint64_t vaddr, bool exec, uint64_t *off);

/*
 * The file offset of symbol name in the ELF file at path: where a uprobe on it goes (in
 * an executable segment). "name@VERSION" and "name@@VERSION" are name too: libbpf 1.1
 * refuses a name two symbol versions give (glibc's pthread_mutex_trylock), even at one
 * address. flags: ELFSYM_ANY_TYPE takes any symbol with an address (IFUNCs, symbols of
 * no type in hand-written assembly), not only STT_FUNC; ELFSYM_DEBUG_FILE looks in the
 * separate debug file of a stripped file (elfsym__each_file). 0, -ENOENT (no such
 * symbol, or not in code), -ENOEXEC (not ELF), or -errno of opening the file.
 */
#define ELFSYM_ANY_TYPE		1u
#define ELFSYM_DEBUG_FILE	2u
int elfsym__sym_offset(const char *path, const char *name, unsigned flags, uint64_t *off);
/* a function's (STT_FUNC): elfsym__sym_offset(path, name, 0, off) */
int elfsym__func_offset(const char *path, const char *name, uint64_t *off);

#endif
