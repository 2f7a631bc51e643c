// SPDX-License-Identifier: GPL-2.0
/*
 * ktypes.c - kernel types from BTF for the probe language. libbpf parses
 * /sys/kernel/btf/vmlinux (a few milliseconds); this file only answers the
 * questions the type checker asks: what is member f of struct s, where is it,
 * what language type does a BTF type become. Typedefs and qualifiers are seen
 * through everywhere.
 */
#include "lang/ktypes.h"
#include "lib/bpf/bpf_util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

struct btf *ktypes__btf(struct program *p, char *err, size_t errlen)
{
	if (!p->btf_tried) {
		p->btf_tried = true;
		p->btf = bpf_util__vmlinux_btf();	/* shared; NULL when the kernel has none */
	}
	if (!p->btf && err)
		snprintf(err, errlen, "the kernel's BTF (/sys/kernel/btf/vmlinux) cannot be read: this kernel was built "
			 "without CONFIG_DEBUG_INFO_BTF, so its struct types are unknown");
	return p->btf;
}

/* through typedefs, const, volatile, restrict and type tags */
static int skip_mods(const struct btf *btf, int id)
{
	for (int guard = 0; id > 0 && guard < 64; guard++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t || !(btf_is_mod(t) || btf_is_typedef(t)))
			return id;
		id = (int)t->type;
	}
	return id;
}

static struct type int_type(int bits, bool sign)
{
	struct type t = { .kind = TY_INT, .size = 8, .sign = sign, .bits = (uint8_t)bits };

	return t;
}

const char *ktypes__name(struct program *p, int id, char *buf, size_t len)
{
	const struct btf *btf = ktypes__btf(p, NULL, 0);
	const struct btf_type *t = btf ? btf__type_by_id(btf, skip_mods(btf, id)) : NULL;
	const char *name = t ? btf__name_by_offset(btf, t->name_off) : NULL;

	if (!t)
		snprintf(buf, len, "type %d", id);
	else if (btf_is_struct(t))
		snprintf(buf, len, "struct %s", name && *name ? name : "(anonymous)");
	else if (btf_is_union(t))
		snprintf(buf, len, "union %s", name && *name ? name : "(anonymous)");
	else if (btf_is_array(t))
		snprintf(buf, len, "an array");
	else
		snprintf(buf, len, "%s", name && *name ? name : "a kernel type");
	return buf;
}

int ktypes__type(struct program *p, int id, bool user, struct type *out, char *err, size_t errlen)
{
	const struct btf *btf = ktypes__btf(p, err, errlen);
	const struct btf_type *t;

	if (!btf)
		return -1;
	id = skip_mods(btf, id);
	memset(out, 0, sizeof(*out));
	if (id == 0) {
		out->kind = TY_VOID;
		return 0;
	}
	t = btf__type_by_id(btf, id);
	if (!t) {
		snprintf(err, errlen, "BTF type %d does not exist", id);
		return -1;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT: {
		int bits = (int)t->size * 8;

		if (bits > 64) {
			snprintf(err, errlen, "%d-bit integers are not supported", bits);
			return -1;
		}
		*out = int_type(bits, btf_int_encoding(t) & BTF_INT_SIGNED);
		if (btf_int_encoding(t) & BTF_INT_BOOL)
			out->sign = false;
		return 0;
	}
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		*out = int_type((int)t->size * 8, btf_kflag(t));
		return 0;
	case BTF_KIND_PTR: {
		struct type *to = arena__alloc(p->arena, sizeof(*to));
		int tid = skip_mods(btf, (int)t->type);
		const struct btf_type *pt = tid ? btf__type_by_id(btf, tid) : NULL;

		*out = int_type(64, false);
		out->ptr = to;
		out->user = user;
		if (pt && (btf_is_struct(pt) || btf_is_union(pt) || btf_is_array(pt) || btf_is_int(pt) || btf_is_any_enum(pt) ||
			   btf_is_ptr(pt)))
			return ktypes__type(p, tid, user, to, err, errlen);
		to->kind = TY_VOID;	/* void *, function pointers, forward declarations: an address */
		if (pt && btf_is_fwd(pt)) {
			/* a forward declaration: the full struct usually exists under the same name */
			const char *nm = btf__name_by_offset(btf, pt->name_off);
			int full = nm ? btf__find_by_name_kind(btf, nm, btf_kflag(pt) ? BTF_KIND_UNION : BTF_KIND_STRUCT) : -1;

			if (full > 0)
				return ktypes__type(p, full, user, to, err, errlen);
		}
		return 0;
	}
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		int eid = skip_mods(btf, (int)a->type);
		const struct btf_type *e = btf__type_by_id(btf, eid);

		if (e && btf_is_int(e) && e->size == 1) {
			out->kind = TY_STR;
			out->size = (uint16_t)((a->nelems + 7) & ~7u);
			if (!out->size)
				out->size = 8;
			if (out->size > ((p->cfg.max_strlen + 7) & ~7))	/* kept 8-aligned, as every type */
				out->size = (uint16_t)((p->cfg.max_strlen + 7) & ~7);
			out->btf_id = id;
			out->user = user;
			return 0;
		}
		out->kind = TY_STRUCT;
		out->btf_id = id;
		out->user = user;
		return 0;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		out->kind = TY_STRUCT;
		out->btf_id = id;
		out->user = user;
		out->size = 8;
		return 0;
	default:
		snprintf(err, errlen, "values of this kernel type (BTF kind %d) cannot be used", btf_kind(t));
		return -1;
	}
}

int ktypes__find(struct program *p, const char *name)
{
	const struct btf *btf = ktypes__btf(p, NULL, 0);
	int kind = BTF_KIND_STRUCT;
	int id;

	if (!btf)
		return -1;
	for (struct cstruct *cs = p->cstructs; cs; cs = cs->next)	/* the script's own come first */
		if (cs->btf_id > 0 && !strcmp(cs->name, name))
			return cs->btf_id;
	if (!strncmp(name, "struct ", 7)) {
		name += 7;
	} else if (!strncmp(name, "union ", 6)) {
		name += 6;
		kind = BTF_KIND_UNION;
	} else if (!strncmp(name, "enum ", 5)) {
		name += 5;
		kind = BTF_KIND_ENUM;
	} else {
		id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
		if (id > 0)
			return id;
	}
	while (*name == ' ')
		name++;
	id = btf__find_by_name_kind(btf, name, kind);
	return id > 0 ? id : -1;
}

static int member(const struct btf *btf, int id, const char *name, int base_bits, int *bits, int *bitsize, int *type_id,
		  int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, skip_mods(btf, id));

	if (!t || !(btf_is_struct(t) || btf_is_union(t)) || depth > 16)
		return -ENOENT;
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		int at = base_bits + (int)btf_member_bit_offset(t, i);

		if (mn && *mn) {
			if (strcmp(mn, name))
				continue;
			*bits = at;
			*bitsize = (int)btf_member_bitfield_size(t, i);
			*type_id = (int)m->type;
			return 0;
		}
		/* an anonymous struct or union: its members are the parent's */
		if (!member(btf, (int)m->type, name, at, bits, bitsize, type_id, depth + 1))
			return 0;
	}
	return -ENOENT;
}

int ktypes__member(struct program *p, int id, const char *name, int *off, int *bitoff, int *bitsize, int *type_id)
{
	const struct btf *btf = ktypes__btf(p, NULL, 0);
	int bits;

	if (!btf || member(btf, id, name, 0, &bits, bitsize, type_id, 0))
		return -ENOENT;
	if (*bitsize) {
		*off = bits / 8;
		*bitoff = bits % 8;
	} else {
		*off = bits / 8;
		*bitoff = 0;
	}
	return 0;
}

int ktypes__array(struct program *p, int id, int *elem_id, int *nelems)
{
	const struct btf *btf = ktypes__btf(p, NULL, 0);
	const struct btf_type *t = btf ? btf__type_by_id(btf, skip_mods(btf, id)) : NULL;

	if (!t || !btf_is_array(t))
		return -EINVAL;
	*elem_id = (int)btf_array(t)->type;
	*nelems = (int)btf_array(t)->nelems;
	return 0;
}

int ktypes__size(struct program *p, int id)
{
	const struct btf *btf = ktypes__btf(p, NULL, 0);
	long long n = btf ? btf__resolve_size(btf, id) : -1;

	return n < 0 || n > (1 << 30) ? -1 : (int)n;
}

int ktypes__func(struct program *p, const char *name, int *func_id, int *proto_id)
{
	const struct btf *btf = ktypes__btf(p, NULL, 0);
	int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;

	if (!t)
		return -ENOENT;
	*func_id = id;
	*proto_id = (int)t->type;
	return 0;
}

int ktypes__nparams(struct program *p, int proto_id)
{
	const struct btf *btf = ktypes__btf(p, NULL, 0);
	const struct btf_type *t = btf ? btf__type_by_id(btf, proto_id) : NULL;

	return t && btf_is_func_proto(t) ? btf_vlen(t) : 0;
}

int ktypes__param(struct program *p, int proto_id, const char *name, int *index, int *type_id)
{
	const struct btf *btf = ktypes__btf(p, NULL, 0);
	const struct btf_type *t = btf ? btf__type_by_id(btf, proto_id) : NULL;

	if (!t || !btf_is_func_proto(t))
		return -ENOENT;
	const struct btf_param *pa = btf_params(t);

	for (int i = 0; i < btf_vlen(t); i++, pa++) {
		const char *pn = btf__name_by_offset(btf, pa->name_off);

		if (pn && !strcmp(pn, name)) {
			*index = i;
			*type_id = (int)pa->type;
			return 0;
		}
	}
	return -ENOENT;
}

int ktypes__ret(struct program *p, int proto_id)
{
	const struct btf *btf = ktypes__btf(p, NULL, 0);
	const struct btf_type *t = btf ? btf__type_by_id(btf, proto_id) : NULL;

	return t && btf_is_func_proto(t) ? (int)t->type : 0;
}

int ktypes__enum_value(struct program *p, const char *name, long long *value)
{
	const struct btf *btf = ktypes__btf(p, NULL, 0);
	int cnt = btf ? (int)btf__type_cnt(btf) : 0;

	for (int id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);

			for (int i = 0; i < btf_vlen(t); i++, e++)
				if (!strcmp(btf__name_by_offset(btf, e->name_off), name)) {
					*value = btf_kflag(t) ? (long long)(int32_t)e->val : (long long)(uint32_t)e->val;
					return 0;
				}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);

			for (int i = 0; i < btf_vlen(t); i++, e++)
				if (!strcmp(btf__name_by_offset(btf, e->name_off), name)) {
					*value = (long long)btf_enum64_value(e);
					return 0;
				}
		}
	}
	return -ENOENT;
}

/* ---- the script's own structs ---- */
static const struct { const char *name; int size; int enc; } ctypes[] = {
	{ "char", 1, BTF_INT_SIGNED | BTF_INT_CHAR }, { "signed char", 1, BTF_INT_SIGNED },
	{ "unsigned char", 1, 0 }, { "short", 2, BTF_INT_SIGNED }, { "short int", 2, BTF_INT_SIGNED },
	{ "signed short", 2, BTF_INT_SIGNED }, { "unsigned short", 2, 0 }, { "unsigned short int", 2, 0 },
	{ "int", 4, BTF_INT_SIGNED }, { "signed", 4, BTF_INT_SIGNED }, { "signed int", 4, BTF_INT_SIGNED },
	{ "unsigned", 4, 0 }, { "unsigned int", 4, 0 }, { "long", 8, BTF_INT_SIGNED }, { "long int", 8, BTF_INT_SIGNED },
	{ "signed long", 8, BTF_INT_SIGNED }, { "unsigned long", 8, 0 }, { "unsigned long int", 8, 0 },
	{ "long long", 8, BTF_INT_SIGNED }, { "long long int", 8, BTF_INT_SIGNED }, { "unsigned long long", 8, 0 },
	{ "unsigned long long int", 8, 0 }, { "bool", 1, BTF_INT_BOOL }, { "_Bool", 1, BTF_INT_BOOL },
	{ "u8", 1, 0 }, { "u16", 2, 0 }, { "u32", 4, 0 }, { "u64", 8, 0 },
	{ "s8", 1, BTF_INT_SIGNED }, { "s16", 2, BTF_INT_SIGNED }, { "s32", 4, BTF_INT_SIGNED }, { "s64", 8, BTF_INT_SIGNED },
	{ "uint8", 1, 0 }, { "uint16", 2, 0 }, { "uint32", 4, 0 }, { "uint64", 8, 0 },
	{ "int8", 1, BTF_INT_SIGNED }, { "int16", 2, BTF_INT_SIGNED }, { "int32", 4, BTF_INT_SIGNED }, { "int64", 8, BTF_INT_SIGNED },
	{ "uint8_t", 1, 0 }, { "uint16_t", 2, 0 }, { "uint32_t", 4, 0 }, { "uint64_t", 8, 0 },
	{ "int8_t", 1, BTF_INT_SIGNED }, { "int16_t", 2, BTF_INT_SIGNED }, { "int32_t", 4, BTF_INT_SIGNED },
	{ "int64_t", 8, BTF_INT_SIGNED }, { "size_t", 8, 0 }, { "ssize_t", 8, BTF_INT_SIGNED },
	{ "pid_t", 4, BTF_INT_SIGNED }, { "uid_t", 4, 0 }, { "gid_t", 4, 0 },
};

/* the BTF id of a member's type as the script names it (before its '*'s and [N]), or -1 */
static int base_type(struct program *p, struct btf *btf, const char *name, int ptr)
{
	int id;

	if (!strcmp(name, "void"))
		return ptr ? 0 : -1;
	if (!strncmp(name, "struct ", 7) || !strncmp(name, "union ", 6)) {
		bool un = name[0] == 'u';
		const char *tag = name + (un ? 6 : 7);

		id = ktypes__find(p, name);
		if (id > 0)
			return id;
		/* only a pointer may name a struct nobody defines */
		return ptr ? btf__add_fwd(btf, tag, un ? BTF_FWD_UNION : BTF_FWD_STRUCT) : -1;
	}
	for (size_t i = 0; i < sizeof(ctypes) / sizeof(ctypes[0]); i++)
		if (!strcmp(ctypes[i].name, name))
			return btf__add_int(btf, name, ctypes[i].size, ctypes[i].enc & ~BTF_INT_CHAR);
	id = btf__find_by_name(btf, name);	/* the kernel's typedefs: atomic_t, u64, pid_t */
	return id > 0 ? id : -1;
}

static int lay_out(struct program *p, struct btf *btf, struct cstruct *cs)
{
	int n = 0, ids[256];
	long long off = 0, size = 0, align = 1;	/* in bits, bits, bytes */
	long long offs[256];

	for (struct cfield *f = cs->fields; f; f = f->next) {
		int id;

		if (n == 256) {
			lang__error(p, f->loc, "more than 256 members");
			return -1;
		}
		id = base_type(p, btf, f->type, f->ptr);
		if (id < 0) {
			lang__error(p, f->loc, "unknown type '%s' (neither a C type, a struct defined before, nor one in the "
				    "kernel's BTF)", f->type);
			return -1;
		}
		for (int i = 0; i < f->ptr; i++)
			id = btf__add_ptr(btf, id);
		if (f->nelem >= 0) {
			int idx = btf__add_int(btf, "unsigned int", 4, 0);

			id = btf__add_array(btf, idx, id, f->nelem);
		}
		long long sz = btf__resolve_size(btf, id), al = cs->packed ? 1 : btf__align_of(btf, id);

		if (id < 0 || sz < 0 || al <= 0) {
			lang__error(p, f->loc, "the size of '%s' is not known", f->name);
			return -1;
		}
		if (f->bits && (f->ptr || f->nelem >= 0 || f->bits > sz * 8)) {
			lang__error(p, f->loc, "a bitfield of %d bits in a %lld-byte type", f->bits, sz);
			return -1;
		}
		if (cs->is_union) {
			offs[n] = 0;
			if (sz * 8 > size)
				size = sz * 8;
		} else if (f->bits) {
			/* a bitfield goes on in its unit unless it would cross the unit's end */
			if (off / (sz * 8) != (off + f->bits - 1) / (sz * 8))
				off = (off + sz * 8 - 1) / (sz * 8) * (sz * 8);
			offs[n] = off;
			off += f->bits;
		} else {
			off = (off + al * 8 - 1) / (al * 8) * (al * 8);
			offs[n] = off;
			off += sz * 8;
		}
		if (al > align)
			align = al;
		ids[n++] = id;
	}
	if (!cs->is_union)
		size = off;
	if (cs->aligned > align)
		align = cs->aligned;
	size = (size + align * 8 - 1) / (align * 8) * (align * 8) / 8;
	const char *sp = strchr(cs->name, ' '), *tag = sp ? sp + 1 : cs->name;	/* "struct A": A */
	int sid = cs->is_union ? btf__add_union(btf, tag, (uint32_t)size) : btf__add_struct(btf, tag, (uint32_t)size);
	int i = 0;

	if (sid < 0) {
		lang__error(p, cs->loc, "cannot lay out %s", cs->name);
		return -1;
	}
	for (struct cfield *f = cs->fields; f; f = f->next, i++)
		if (btf__add_field(btf, f->name, ids[i], (uint32_t)offs[i], (uint32_t)f->bits)) {
			lang__error(p, f->loc, "cannot add member '%s' (a duplicate name?)", f->name);
			return -1;
		}
	cs->btf_id = sid;
	return 0;
}

struct btf *ktypes__own(struct program *p)
{
	if (p->btf_own)
		return p->btf;
	if (!p->btf_tried) {
		p->btf_tried = true;
		p->btf = bpf_util__vmlinux_btf();
	}
	p->btf_base = p->btf;
	p->btf = p->btf_base ? btf__new_empty_split(p->btf_base) : btf__new_empty();
	p->btf_own = p->btf != NULL;
	return p->btf;
}

int ktypes__script(struct program *p)
{
	if (!p->cstructs || p->cstructs->btf_id > 0)
		return 0;
	if (!ktypes__own(p)) {
		lang__error(p, p->cstructs->loc, "cannot make room for the script's types: %s", strerror(errno));
		return -1;
	}
	for (struct cstruct *cs = p->cstructs; cs; cs = cs->next)
		if (lay_out(p, p->btf, cs))
			return -1;
	return 0;
}
