// SPDX-License-Identifier: GPL-2.0
/*
 * resolve.c - what some functions look up while the program compiles: a
 * symbol's link-time address and size in an ELF file, for uaddr("sym") (the
 * symbol table's st_value, as bpftrace gives it: for a position-independent
 * executable that is not the run-time address).
 */
#include "lang/provider.h"
#include "lib/symbol/elfsym.h"

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

struct elf_find {
	const char *sym;
	uint64_t value, size;
};

static int symbol_match(const char *nm, const GElf_Sym *s, void *ctx)
{
	struct elf_find *f = ctx;

	if (!wanted(s) || strcmp(nm, f->sym))
		return 0;
	f->value = s->st_value;
	f->size = s->st_size;
	return 1;
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
	struct elf_find f = { .sym = sym };

	if (elfsym__each_file(e, path, symbol_match, &f)) {
		*value = f.value;
		*size = f.size;
		rc = 0;
	}
	elf_end(e);
	close(fd);
	return rc;
}

