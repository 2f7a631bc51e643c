// SPDX-License-Identifier: GPL-2.0
/* elfsym.c - the walk over an ELF file's symbol tables; see elfsym.h */
#include "lib/symbol/elfsym.h"
#include "lib/symbol/debugfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

int elfsym__each(Elf *e, int (*cb)(const char *name, const GElf_Sym *s, void *ctx), void *ctx)
{
	for (int pass = 0; pass < 2; pass++) {
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = sh.sh_size / sh.sh_entsize;

			for (size_t i = 0; d && i < n; i++) {
				GElf_Sym s;
				const char *nm;
				int rc;

				if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
				    !(nm = elf_strptr(e, sh.sh_link, s.st_name)) || !*nm)
					continue;
				if ((rc = cb(nm, &s, ctx)))
					return rc;
			}
		}
	}
	return 0;
}

static bool has_symtab(Elf *e)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_size)
			return true;
	}
	return false;
}

int elfsym__each_file(Elf *e, const char *path, int (*cb)(const char *name, const GElf_Sym *s, void *ctx), void *ctx)
{
	char dbg[4096];
	int rc = elfsym__each(e, cb, ctx), fd;

	/* stripped: the static functions are in the separate debug file's .symtab */
	if (rc || !path || has_symtab(e) || debugfile__find(e, path, dbg, sizeof(dbg)))
		return rc;
	fd = open(dbg, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	Elf *d = elf_begin(fd, ELF_C_READ, NULL);

	if (d) {
		rc = elfsym__each(d, cb, ctx);
		elf_end(d);
	}
	close(fd);
	return rc;
}

int elfsym__file_offset(Elf *e, uint64_t vaddr, bool exec, uint64_t *off)
{
	size_t nph;

	if (elf_getphdrnum(e, &nph))
		return -EINVAL;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD || (exec && !(ph.p_flags & PF_X)))
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

struct sym_find {
	const char *name;
	unsigned flags;
	uint64_t addr;
};

static int sym_match(const char *name, const GElf_Sym *s, void *ctx)
{
	struct sym_find *f = ctx;
	size_t n = strlen(f->name);

	if (!(f->flags & ELFSYM_ANY_TYPE) && GELF_ST_TYPE(s->st_info) != STT_FUNC)
		return 0;
	if (!s->st_value || strncmp(name, f->name, n) || (name[n] && name[n] != '@'))
		return 0;
	f->addr = s->st_value;
	return 1;
}

static int open_elf(const char *path, int *fd, Elf **e, Elf_Cmd cmd)
{
	*e = NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	*e = elf_begin(*fd, cmd, NULL);
	if (!*e || elf_kind(*e) != ELF_K_ELF) {
		elfsym__close(*fd, *e);
		*fd = -1;
		*e = NULL;
		return -ENOEXEC;
	}
	return 0;
}

int elfsym__open(const char *path, int *fd, Elf **e)
{
	return open_elf(path, fd, e, ELF_C_READ_MMAP);
}

int elfsym__open_read(const char *path, int *fd, Elf **e)
{
	return open_elf(path, fd, e, ELF_C_READ);
}

void elfsym__close(int fd, Elf *e)
{
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
}

int elfsym__sym_offset(const char *path, const char *name, unsigned flags, uint64_t *off)
{
	struct sym_find f = { name, flags, 0 };
	int fd, rc, found;
	Elf *e;

	if ((rc = elfsym__open(path, &fd, &e)))
		return rc;
	found = flags & ELFSYM_DEBUG_FILE ? elfsym__each_file(e, path, sym_match, &f) : elfsym__each(e, sym_match, &f);
	rc = found == 1 ? elfsym__file_offset(e, f.addr, true, off) : -ENOENT;
	elfsym__close(fd, e);
	return rc;
}

int elfsym__func_offset(const char *path, const char *name, uint64_t *off)
{
	return elfsym__sym_offset(path, name, 0, off);
}
