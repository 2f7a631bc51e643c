// SPDX-License-Identifier: GPL-2.0
/*
 * dwproto.c - prototypes from DWARF (see dwproto.h). One walk over the
 * compile units' top-level subprograms serves every name asked for: a large
 * library's DWARF (the C library's debug file is compressed) is read once,
 * not once per function.
 */
#include "lib/ltrace/dwproto.h"
#include "lib/symbol/debugfile.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the type a DIE's DW_AT_type names, through typedefs and qualifiers; false for void */
static bool type_of(Dwarf_Die *d, Dwarf_Die *t)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(d, DW_AT_type, &a) || !dwarf_formref_die(&a, t))
		return false;
	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(t);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
			return true;
		if (!dwarf_attr_integrate(t, DW_AT_type, &a) || !dwarf_formref_die(&a, t))
			return false;	/* const void */
	}
	return true;
}

/* the letter of the type of DIE d (a parameter, or a function for its return value) */
static char letter(Dwarf_Die *d)
{
	Dwarf_Die t, p;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	int size;

	if (!type_of(d, &t))
		return 'v';
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type:
		if (type_of(&t, &p) && dwarf_tag(&p) == DW_TAG_base_type && dwarf_bytesize(&p) == 1 &&
		    dwarf_attr_integrate(&p, DW_AT_encoding, &a) && !dwarf_formudata(&a, &enc) &&
		    (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char))
			return 's';
		return 'p';
	case DW_TAG_enumeration_type:
		return 'i';
	case DW_TAG_base_type:
		break;
	default:
		return '?';	/* a struct by value, an array... */
	}
	size = dwarf_bytesize(&t);
	if (dwarf_attr_integrate(&t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	switch (enc) {
	case DW_ATE_signed_char:
	case DW_ATE_unsigned_char:
		return size == 1 ? 'c' : 'i';
	case DW_ATE_boolean:
		return 'u';
	case DW_ATE_signed:
		return size == 8 ? 'l' : 'i';
	case DW_ATE_unsigned:
		return size == 8 ? 'L' : 'u';
	default:
		return '?';	/* floating point: in vector registers, not captured */
	}
}

static void proto_of(Dwarf_Die *f, struct lt_proto *p)
{
	Dwarf_Die c;

	memset(p, 0, sizeof(*p));
	p->ret = letter(f);
	if (dwarf_child(f, &c) != 0)
		return;
	do {
		if (dwarf_tag(&c) == DW_TAG_formal_parameter && p->nargs < LT_MAX_ARGS) {
			char l = letter(&c);

			p->arg[p->nargs++] = l == 'v' ? '?' : l;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static int walk(Dwarf *dw, const char *const *names, int n, struct lt_proto *protos, bool *found)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int nfound = 0;

	while (nfound < n && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0)
			do {
				Dwarf_Attribute a;
				bool decl = false;
				const char *nm;

				if (dwarf_tag(&c) != DW_TAG_subprogram || !(nm = dwarf_diename(&c)))
					continue;
				if (dwarf_attr(&c, DW_AT_declaration, &a))
					dwarf_formflag(&a, &decl);
				if (decl)
					continue;
				for (int i = 0; i < n; i++)
					if (!found[i] && !strcmp(nm, names[i])) {
						proto_of(&c, &protos[i]);
						found[i] = true;
						nfound++;
					}
			} while (dwarf_siblingof(&c, &c) == 0);
		off = next;
	}
	return nfound;
}

static int from_file(const char *path, const char *const *names, int n, struct lt_proto *protos, bool *found)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;

	if (!dw) {
		if (fd >= 0)
			close(fd);
		return -ENODATA;
	}
	rc = walk(dw, names, n, protos, found);
	dwarf_end(dw);
	close(fd);
	return rc;
}

int lt_dwarf__protos(const char *path, const char *const *names, int n, struct lt_proto *protos, bool *found)
{
	char dbg[PATH_MAX];
	int rc = from_file(path, names, n, protos, found), fd;
	Elf *e;

	if (rc > 0)
		return rc;
	/* no DWARF of its own (or none of these functions): its separate debug file */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return rc;
	elf_version(EV_CURRENT);
	if ((e = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		if (!debugfile__find(e, path, dbg, sizeof(dbg)))
			rc = from_file(dbg, names, n, protos, found);
		elf_end(e);
	}
	close(fd);
	return rc;
}
