// SPDX-License-Identifier: GPL-2.0
/*
 * resolve.c - what some functions look up while the program compiles: a
 * symbol's link-time address and size in an ELF file, for uaddr("sym") (the
 * symbol table's st_value, as bpftrace gives it: for a position-independent
 * executable that is not the run-time address).
 */
#include "lang/provider.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

static bool wanted(const GElf_Sym *s)
{
	int t = GELF_ST_TYPE(s->st_info);

	return s->st_shndx != SHN_UNDEF && (t == STT_OBJECT || t == STT_FUNC || t == STT_GNU_IFUNC);
}

int provider__elf_symbol(const char *path, const char *sym, uint64_t *value, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -ENOENT;
	Elf *e;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		return -EINVAL;
	}
	/* .symtab first (it has the local objects too), then .dynsym */
	for (int pass = 0; pass < 2 && rc; pass++) {
		for (Elf_Scn *scn = NULL; rc && (scn = elf_nextscn(e, scn));) {
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = sh.sh_size / sh.sh_entsize;

			for (size_t i = 0; d && i < n; i++) {
				GElf_Sym s;
				const char *nm;

				if (!gelf_getsym(d, (int)i, &s) || !wanted(&s))
					continue;
				nm = elf_strptr(e, sh.sh_link, s.st_name);
				if (nm && !strcmp(nm, sym)) {
					*value = s.st_value;
					*size = s.st_size;
					rc = 0;
					break;
				}
			}
		}
	}
	elf_end(e);
	close(fd);
	return rc;
}

