// SPDX-License-Identifier: GPL-2.0
/*
 * dwargs.c - uprobe arguments by name (args.name), as bpftrace gives them
 * when the binary has DWARF: the function's formal parameters, in order, are
 * arg0, arg1... of the calling convention, and their types come from the
 * DWARF, made into BTF types in the program's own BTF (ktypes.c) so that
 * args.p->next->x reads user memory like any typed pointer. Types are made
 * once per DIE; a struct that points to itself meets a forward declaration
 * of itself, which ktypes resolves to the full type by name.
 */
#include "lang/dwargs.h"
#include "lang/ktypes.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

/* DIE offset -> BTF id, for the program (p->dwcache); -1 marks a struct being made */
struct dwcache {
	const char *path;
	Dwarf_Off off;
	int id;
	struct dwcache *next;
};

static int cached(struct program *p, const char *path, Dwarf_Off off)
{
	for (struct dwcache *c = p->dwcache; c; c = c->next)
		if (c->off == off && !strcmp(c->path, path))
			return c->id;
	return 0;
}

static void remember(struct program *p, const char *path, Dwarf_Off off, int id)
{
	for (struct dwcache *c = p->dwcache; c; c = c->next)
		if (c->off == off && !strcmp(c->path, path)) {
			c->id = id;
			return;
		}
	struct dwcache *c = arena__alloc(p->arena, sizeof(*c));

	c->path = path;
	c->off = off;
	c->id = id;
	c->next = p->dwcache;
	p->dwcache = c;
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

static long long udata(Dwarf_Die *die, int at, long long dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	return dwarf_attr_integrate(die, at, &a) && !dwarf_formudata(&a, &w) ? (long long)w : dflt;
}

/* the BTF id of DWARF type die (0: void), or -1 when it cannot be one */
static int to_btf(struct program *p, const char *path, Dwarf_Die *die, int depth)
{
	struct btf *btf = p->btf;
	Dwarf_Off off = dwarf_dieoffset(die);
	Dwarf_Die t, m;
	const char *name = dwarf_diename(die);
	int id = cached(p, path, off), sub;
	bool has = type_of(die, &t);

	if (id > 0)
		return id;
	if (depth > 32)
		return -1;
	switch (dwarf_tag(die)) {
	case DW_TAG_base_type: {
		long long enc = udata(die, DW_AT_encoding, 0), size = udata(die, DW_AT_byte_size, 0);
		int e = enc == DW_ATE_signed || enc == DW_ATE_signed_char ? BTF_INT_SIGNED : enc == DW_ATE_boolean ? BTF_INT_BOOL : 0;

		if (enc == DW_ATE_float || enc == DW_ATE_complex_float || size < 1 || size > 8)
			return -1;	/* BPF has no floating point */
		id = btf__add_int(btf, name ? name : "int", size, e);
		break;
	}
	case DW_TAG_enumeration_type:
		id = btf__add_int(btf, name ? name : "enum", udata(die, DW_AT_byte_size, 4), BTF_INT_SIGNED);
		break;
	case DW_TAG_pointer_type:
		if (!has) {
			id = btf__add_ptr(btf, 0);
			break;
		}
		if ((dwarf_tag(&t) == DW_TAG_structure_type || dwarf_tag(&t) == DW_TAG_union_type) &&
		    cached(p, path, dwarf_dieoffset(&t)) == -1) {
			/* a struct pointing to itself: a forward declaration, resolved by name */
			sub = btf__add_fwd(btf, dwarf_diename(&t) ? dwarf_diename(&t) : "",
					   dwarf_tag(&t) == DW_TAG_union_type ? BTF_FWD_UNION : BTF_FWD_STRUCT);
		} else {
			sub = to_btf(p, path, &t, depth + 1);
		}
		id = sub < 0 ? btf__add_ptr(btf, 0) : btf__add_ptr(btf, sub);
		break;
	case DW_TAG_const_type: case DW_TAG_volatile_type: case DW_TAG_restrict_type: case DW_TAG_typedef:
		if (!has)
			return dwarf_tag(die) == DW_TAG_typedef ? -1 : 0;
		sub = to_btf(p, path, &t, depth + 1);
		if (sub < 0 || dwarf_tag(die) != DW_TAG_typedef)
			return sub;
		id = btf__add_typedef(btf, name ? name : "", sub);
		break;
	case DW_TAG_array_type: {
		long long n = 0;

		if (!has || (sub = to_btf(p, path, &t, depth + 1)) <= 0)
			return -1;
		if (dwarf_child(die, &m) == 0 && dwarf_tag(&m) == DW_TAG_subrange_type)
			n = udata(&m, DW_AT_count, udata(&m, DW_AT_upper_bound, -1) + 1);
		id = btf__add_array(btf, btf__add_int(btf, "unsigned int", 4, 0), sub, n < 0 ? 0 : (uint32_t)n);
		break;
	}
	case DW_TAG_structure_type: case DW_TAG_union_type: {
		bool un = dwarf_tag(die) == DW_TAG_union_type;
		int ids[256], n = 0;
		long long offs[256], bits[256];
		const char *names[256];

		if (udata(die, DW_AT_declaration, 0))
			return -1;
		remember(p, path, off, -1);
		if (dwarf_child(die, &m) == 0)
			do {
				if (dwarf_tag(&m) != DW_TAG_member || n == 256 || !type_of(&m, &t))
					continue;
				sub = to_btf(p, path, &t, depth + 1);
				if (sub < 0)
					return -1;
				names[n] = dwarf_diename(&m) ? dwarf_diename(&m) : "";
				bits[n] = udata(&m, DW_AT_bit_size, 0);
				offs[n] = udata(&m, DW_AT_data_bit_offset, -1);
				if (offs[n] < 0)
					offs[n] = udata(&m, DW_AT_data_member_location, 0) * 8;
				ids[n++] = sub;
			} while (dwarf_siblingof(&m, &m) == 0);
		id = un ? btf__add_union(btf, name ? name : "", udata(die, DW_AT_byte_size, 0)) :
			  btf__add_struct(btf, name ? name : "", udata(die, DW_AT_byte_size, 0));
		for (int i = 0; id > 0 && i < n; i++)
			if (btf__add_field(btf, names[i], ids[i], (uint32_t)offs[i], (uint32_t)bits[i]))
				return -1;
		break;
	}
	default:
		return -1;	/* functions, pointers to members... */
	}
	if (id > 0)
		remember(p, path, off, id);
	return id;
}

/* "const char*", "struct point*", "unsigned int": the type as bpftrace -lv writes it */
static void type_text(Dwarf_Die *die, char *buf, size_t len, int depth)
{
	Dwarf_Die t;
	bool has = type_of(die, &t);
	const char *name = dwarf_diename(die);
	char sub[256] = "";

	if (depth > 16) {
		snprintf(buf, len, "?");
		return;
	}
	if (has)
		type_text(&t, sub, sizeof(sub), depth + 1);
	switch (dwarf_tag(die)) {
	case DW_TAG_pointer_type: snprintf(buf, len, "%s*", has ? sub : "void"); break;
	case DW_TAG_const_type: snprintf(buf, len, "const %s", has ? sub : "void"); break;
	case DW_TAG_volatile_type: snprintf(buf, len, "volatile %s", has ? sub : "void"); break;
	case DW_TAG_structure_type: snprintf(buf, len, "struct %s", name ? name : ""); break;
	case DW_TAG_union_type: snprintf(buf, len, "union %s", name ? name : ""); break;
	case DW_TAG_enumeration_type: snprintf(buf, len, "enum %s", name ? name : ""); break;
	case DW_TAG_array_type: snprintf(buf, len, "%s[]", sub); break;
	default: snprintf(buf, len, "%s", name ? name : sub);
	}
}

/* the function's DIE (a definition) in any CU; 0 or -ENOENT */
static int find_func(Dwarf *dw, const char *func, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0)
			do {
				const char *n;

				if (dwarf_tag(&c) == DW_TAG_subprogram && (n = dwarf_diename(&c)) && !strcmp(n, func) &&
				    !udata(&c, DW_AT_declaration, 0)) {
					*out = c;
					return 0;
				}
			} while (dwarf_siblingof(&c, &c) == 0);
		off = next;
	}
	return -ENOENT;
}

int dwargs__params(struct program *p, const char *path, const char *func, struct dwparam *out, int max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	Dwarf_Die f, c, t;

	if (!dw) {
		if (fd >= 0)
			close(fd);
		return -ENODATA;
	}
	if (find_func(dw, func, &f)) {
		n = -ENOENT;
		goto out;
	}
	if (p && !ktypes__own(p)) {
		n = -ENOMEM;
		goto out;
	}
	if (dwarf_child(&f, &c) == 0)
		do {
			if (dwarf_tag(&c) != DW_TAG_formal_parameter || n >= max)
				continue;
			struct dwparam *d = &out[n];

			memset(d, 0, sizeof(*d));
			snprintf(d->name, sizeof(d->name), "%s", dwarf_diename(&c) ? dwarf_diename(&c) : "");
			d->index = n;
			d->btf_id = -1;
			if (type_of(&c, &t)) {
				type_text(&t, d->type, sizeof(d->type), 0);
				if (p)
					d->btf_id = to_btf(p, path, &t, 0);
			}
			n++;
		} while (dwarf_siblingof(&c, &c) == 0);
out:
	dwarf_end(dw);
	close(fd);
	return n;
}
