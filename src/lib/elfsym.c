// SPDX-License-Identifier: GPL-2.0
/* elfsym.c - the walk over an ELF file's symbol tables; see elfsym.h */
#include "lib/elfsym.h"

#include <stddef.h>

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
