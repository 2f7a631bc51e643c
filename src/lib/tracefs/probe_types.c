// SPDX-License-Identifier: GPL-2.0
/*
 * probe_types.c - where a dynamic probe's arguments are: a function's
 * parameters and their types from the kernel's BTF or an ELF file's DWARF
 * (its own, or its separate debug file), walked through members and pointers
 * to a fetch argument of kprobetrace.rst's syntax. At a function's entry the
 * integer and pointer parameters are in the x86-64 calling convention's
 * registers, in order (%di %si %dx %cx %r8 %r9), which is what the fetch
 * arguments read; a member is +OFFSET(the struct's address), a pointer's
 * target one dereference more. Also the functions of an ELF file by name and
 * by file offset.
 */
#include "lib/tracefs/probe_event.h"
#include "lib/symbol/debugfile.h"

#include <bpf/btf.h>
#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERR(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); } while (0)

static const char *const regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };

/* ---- ELF: functions by name and by file offset ---- */

typedef int (*sym_cb)(const char *name, const GElf_Sym *s, unsigned long long foff, void *ctx);

/* every defined function of path (.symtab, then .dynsym), with its file offset; cb's nonzero ends */
static int elf_funcs(const char *path, sym_cb cb, void *ctx)
{
	Elf_Scn *scn = NULL;
	size_t nph;
	int fd, rc = 0;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph)) {
		rc = -ENOEXEC;
		goto out;
	}
	for (int pass = 0; pass < 2 && !rc; pass++) {
		while (!rc && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			for (size_t i = 0; !rc && d && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *name;

				if (!gelf_getsym(d, i, &sym) || !sym.st_value || sym.st_shndx == SHN_UNDEF ||
				    (GELF_ST_TYPE(sym.st_info) != STT_FUNC && GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
					continue;
				name = elf_strptr(e, sh.sh_link, sym.st_name);
				if (!name || !*name)
					continue;
				for (size_t p = 0; p < nph; p++) {
					GElf_Phdr ph;

					if (gelf_getphdr(e, p, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
					    sym.st_value >= ph.p_vaddr && sym.st_value < ph.p_vaddr + ph.p_filesz) {
						rc = cb(name, &sym, sym.st_value - ph.p_vaddr + ph.p_offset, ctx);
						break;
					}
				}
			}
		}
		scn = NULL;
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

struct by_name {
	const char *func;
	unsigned long long vaddr, foff;
};

static int match_name(const char *name, const GElf_Sym *s, unsigned long long foff, void *ctx)
{
	struct by_name *b = ctx;
	size_t l = strlen(b->func);

	if (strncmp(name, b->func, l) || (name[l] && name[l] != '@'))	/* malloc@@GLIBC_2.2.5 */
		return 0;
	b->vaddr = s->st_value;
	b->foff = foff;
	return 1;
}

int pev__elf_func(const char *binary, const char *func, unsigned long long *vaddr, unsigned long long *foff)
{
	struct by_name b = { .func = func };
	int rc = elf_funcs(binary, match_name, &b);

	if (rc < 0)
		return rc;
	if (!rc)
		return -ENOENT;
	if (vaddr)
		*vaddr = b.vaddr;
	*foff = b.foff;
	return 0;
}

struct at_off {
	unsigned long long foff, best;
	char *name;
	size_t len;
	bool found;
};

static int match_off(const char *name, const GElf_Sym *s, unsigned long long foff, void *ctx)
{
	struct at_off *a = ctx;

	if (a->foff >= foff && a->foff < foff + (s->st_size ? s->st_size : 1) && (!a->found || foff > a->best)) {
		snprintf(a->name, a->len, "%.*s", (int)strcspn(name, "@"), name);
		a->best = foff;
		a->found = true;
	}
	return 0;
}

int pev__elf_sym_at(const char *binary, unsigned long long foff, char *name, size_t len, unsigned long long *delta)
{
	struct at_off a = { .foff = foff, .name = name, .len = len };
	int rc = elf_funcs(binary, match_off, &a);

	if (rc < 0)
		return rc;
	if (!a.found)
		return -ENOENT;
	*delta = foff - a.best;
	return 0;
}

struct names {
	char **v;
	int n;
	const char *pat;
};

static int add_name(struct names *ns, const char *name)
{
	char **nv;

	if (ns->pat ? fnmatch(ns->pat, name, 0) : name[0] == '_')	/* perf's default filter: no _* */
		return 0;
	nv = realloc(ns->v, (ns->n + 1) * sizeof(*nv));
	if (!nv || !(nv[ns->n] = strdup(name)))
		return -ENOMEM;
	ns->v = nv;
	ns->n++;
	return 0;
}

static int collect(const char *name, const GElf_Sym *s, unsigned long long foff, void *ctx)
{
	char buf[512];

	(void)s;
	(void)foff;
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(name, "@"), name);
	return add_name(ctx, buf);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int pev__funcs(const char *binary, const char *pattern, void (*cb)(const char *fn, void *arg), void *arg)
{
	struct names ns = { .pat = pattern };
	int rc = 0, n = 0;

	if (binary) {
		rc = elf_funcs(binary, collect, &ns);
	} else {
		struct btf *btf = btf__load_vmlinux_btf();

		if (!btf)
			return -ENODATA;
		for (unsigned id = 1; !rc && id < btf__type_cnt(btf); id++) {
			const struct btf_type *t = btf__type_by_id(btf, id);

			if (btf_is_func(t))
				rc = add_name(&ns, btf__name_by_offset(btf, t->name_off));
		}
		btf__free(btf);
	}
	if (ns.n)
		qsort(ns.v, ns.n, sizeof(*ns.v), cmp_str);
	for (int i = 0; i < ns.n; i++)
		if (!rc && (!i || strcmp(ns.v[i], ns.v[i - 1])))
			cb(ns.v[i], arg), n++;
	for (int i = 0; i < ns.n; i++)
		free(ns.v[i]);
	free(ns.v);
	return rc < 0 ? rc : n;
}

/* ---- types: BTF (kernel) or DWARF (user) ---- */

enum tkind { T_VOID, T_INT, T_PTR, T_ARRAY, T_STRUCT, T_OTHER };

struct ty {
	enum tkind kind;
	int size;
	bool sign;
	Dwarf_Die die;		/* DWARF: the type, qualifiers and typedefs peeled */
	__u32 id;		/* BTF: the same */
};

struct types {
	struct btf *btf;	/* the kernel's, or NULL for DWARF */
	Dwarf *dw;
	int fd, dfd;
	Elf *elf;
	Dwarf_Die func;		/* the subprogram */
	__u32 proto;		/* BTF: the function's FUNC_PROTO */
};

static long long dw_udata(Dwarf_Die *d, int at, long long dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	return dwarf_attr_integrate(d, at, &a) && !dwarf_formudata(&a, &w) ? (long long)w : dflt;
}

static bool dw_type(Dwarf_Die *d, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(d, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

/* the type of DIE d (a parameter, a member, a pointer's target), peeled */
static void dw_ty(Dwarf_Die *d, struct ty *t)
{
	Dwarf_Die c;

	memset(t, 0, sizeof(*t));
	if (!dw_type(d, &c))
		return;	/* void */
	while (dwarf_tag(&c) == DW_TAG_typedef || dwarf_tag(&c) == DW_TAG_const_type ||
	       dwarf_tag(&c) == DW_TAG_volatile_type || dwarf_tag(&c) == DW_TAG_restrict_type ||
	       dwarf_tag(&c) == DW_TAG_atomic_type)
		if (!dw_type(&c, &c))
			return;
	t->die = c;
	t->size = (int)dw_udata(&c, DW_AT_byte_size, 0);
	switch (dwarf_tag(&c)) {
	case DW_TAG_base_type: {
		long long enc = dw_udata(&c, DW_AT_encoding, 0);

		t->kind = enc == DW_ATE_float ? T_OTHER : T_INT;
		t->sign = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		break;
	}
	case DW_TAG_enumeration_type:
		t->kind = T_INT;
		break;
	case DW_TAG_pointer_type:
		t->kind = T_PTR;
		t->size = 8;
		break;
	case DW_TAG_array_type:
		t->kind = T_ARRAY;
		break;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		t->kind = T_STRUCT;
		break;
	default:
		t->kind = T_OTHER;
	}
}

static void btf_ty(const struct btf *btf, __u32 id, struct ty *t)
{
	const struct btf_type *b;

	memset(t, 0, sizeof(*t));
	id = btf__resolve_type(btf, id) < 0 ? id : (__u32)btf__resolve_type(btf, id);
	b = id ? btf__type_by_id(btf, id) : NULL;
	t->id = id;
	if (!b)
		return;
	t->size = btf_is_ptr(b) ? 8 : btf_is_int(b) || btf_is_any_enum(b) || btf_is_composite(b) ? (int)b->size : 0;
	if (btf_is_int(b)) {
		t->kind = T_INT;
		t->sign = btf_int_encoding(b) & BTF_INT_SIGNED;
	} else if (btf_is_any_enum(b)) {
		t->kind = T_INT;
	} else if (btf_is_ptr(b)) {
		t->kind = T_PTR;
	} else if (btf_is_array(b)) {
		t->kind = T_ARRAY;
	} else if (btf_is_composite(b)) {
		t->kind = T_STRUCT;
	} else {
		t->kind = T_OTHER;
	}
}

/* the member called name of struct t (looking into unnamed members): its offset and type; 0 or -ENOENT */
static int member(struct types *ts, const struct ty *t, const char *name, long *off, struct ty *out)
{
	if (ts->btf) {
		const struct btf_type *b = btf__type_by_id(ts->btf, t->id);
		const struct btf_member *m = btf_members(b);

		for (int i = 0; i < btf_vlen(b); i++, m++) {
			const char *mn = btf__name_by_offset(ts->btf, m->name_off);
			struct ty sub;

			if (btf_member_bitfield_size(b, i))
				continue;
			btf_ty(ts->btf, m->type, &sub);
			if (mn && !strcmp(mn, name)) {
				*off = btf_member_bit_offset(b, i) / 8;
				*out = sub;
				return 0;
			}
			if ((!mn || !*mn) && sub.kind == T_STRUCT && !member(ts, &sub, name, off, out)) {
				*off += btf_member_bit_offset(b, i) / 8;
				return 0;
			}
		}
		return -ENOENT;
	}
	Dwarf_Die c, die = t->die;

	if (dwarf_child(&die, &c))
		return -ENOENT;
	do {
		const char *mn = dwarf_diename(&c);
		struct ty sub;

		if (dwarf_tag(&c) != DW_TAG_member || dw_udata(&c, DW_AT_bit_size, 0))
			continue;
		dw_ty(&c, &sub);
		if (mn && !strcmp(mn, name)) {
			*off = dw_udata(&c, DW_AT_data_member_location, 0);
			*out = sub;
			return 0;
		}
		if (!mn && sub.kind == T_STRUCT && !member(ts, &sub, name, off, out)) {
			*off += dw_udata(&c, DW_AT_data_member_location, 0);
			return 0;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return -ENOENT;
}

/* what a pointer (or an array) points to */
static void target(struct types *ts, const struct ty *t, struct ty *out)
{
	if (ts->btf) {
		const struct btf_type *b = btf__type_by_id(ts->btf, t->id);

		btf_ty(ts->btf, btf_is_array(b) ? btf_array(b)->type : b->type, out);
	} else {
		Dwarf_Die d = t->die;

		dw_ty(&d, out);
	}
}

/* the text of a type as perf --vars writes it: "struct point*", "u32_t" */
static void dw_text(Dwarf_Die *d, char *buf, size_t len, int depth)
{
	Dwarf_Die c;
	const char *n = dwarf_diename(d);
	int tag = dwarf_tag(d);
	char sub[128] = "void";

	if (depth > 8 || !len)
		return;
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	    tag == DW_TAG_array_type) {
		if (dw_type(d, &c))
			dw_text(&c, sub, sizeof(sub), depth + 1);
		snprintf(buf, len, tag == DW_TAG_pointer_type ? "%s*" : tag == DW_TAG_array_type ? "%s[]" :
			 tag == DW_TAG_const_type ? "const %s" : "volatile %s", sub);
		return;
	}
	snprintf(buf, len, "%s%s", tag == DW_TAG_structure_type ? "struct " : tag == DW_TAG_union_type ? "union " :
		 tag == DW_TAG_enumeration_type ? "enum " : "", n ? n : "(anon)");
}

static void btf_text(const struct btf *btf, __u32 id, char *buf, size_t len, int depth)
{
	const struct btf_type *b = id ? btf__type_by_id(btf, id) : NULL;
	const char *n = b ? btf__name_by_offset(btf, b->name_off) : NULL;
	char sub[128] = "void";

	if (depth > 8 || !len)
		return;
	if (!b) {
		snprintf(buf, len, "void");
		return;
	}
	if (btf_is_ptr(b) || btf_is_const(b) || btf_is_volatile(b) || btf_is_restrict(b) || btf_is_type_tag(b)) {
		btf_text(btf, b->type, sub, sizeof(sub), depth + 1);
		snprintf(buf, len, btf_is_ptr(b) ? "%s*" : btf_is_const(b) ? "const %s" : btf_is_volatile(b) ?
			 "volatile %s" : "%s", sub);
		return;
	}
	snprintf(buf, len, "%s%s", btf_is_struct(b) ? "struct " : btf_is_union(b) ? "union " :
		 btf_is_any_enum(b) ? "enum " : "", n && *n ? n : "(anon)");
}

static void types_close(struct types *ts)
{
	btf__free(ts->btf);
	if (ts->dw)
		dwarf_end(ts->dw);
	if (ts->elf)
		elf_end(ts->elf);
	if (ts->fd >= 0)
		close(ts->fd);
	if (ts->dfd >= 0)
		close(ts->dfd);
	memset(ts, 0, sizeof(*ts));
	ts->fd = ts->dfd = -1;
}

/* the subprogram that starts at vaddr, by address (aliases: malloc is __libc_malloc) or by name */
static int dw_find(Dwarf *dw, const char *func, unsigned long long vaddr, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	Dwarf_Die cu, *scopes = NULL, c;
	size_t hsize;
	int n;

	if (dwarf_addrdie(dw, vaddr, &cu) && (n = dwarf_getscopes(&cu, vaddr, &scopes)) > 0) {
		for (int i = 0; i < n; i++)
			if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
				*out = scopes[i];
				free(scopes);
				return 0;
			}
		free(scopes);
	}
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		const char *nm;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0)
			do {
				if (dwarf_tag(&c) == DW_TAG_subprogram && (nm = dwarf_diename(&c)) && !strcmp(nm, func) &&
				    !dw_udata(&c, DW_AT_declaration, 0)) {
					*out = c;
					return 0;
				}
			} while (dwarf_siblingof(&c, &c) == 0);
		off = next;
	}
	return -ENOENT;
}

/* the types of func: BTF for the kernel, DWARF (or the debug file's) for binary; 0, -ENODATA, -ENOENT */
static int types_open(struct types *ts, const char *binary, const char *func)
{
	unsigned long long vaddr = 0, foff;
	char dbg[PATH_MAX];

	memset(ts, 0, sizeof(*ts));
	ts->fd = ts->dfd = -1;
	if (!binary) {
		const struct btf_type *f;
		int id;

		ts->btf = btf__load_vmlinux_btf();
		if (!ts->btf)
			return -ENODATA;
		id = btf__find_by_name_kind(ts->btf, func, BTF_KIND_FUNC);
		if (id <= 0)
			return -ENOENT;
		f = btf__type_by_id(ts->btf, id);
		ts->proto = f->type;
		return 0;
	}
	if (pev__elf_func(binary, func, &vaddr, &foff))
		return -ENOENT;
	if ((ts->fd = open(binary, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	ts->dw = dwarf_begin(ts->fd, DWARF_C_READ);
	if (!ts->dw && elf_version(EV_CURRENT) != EV_NONE && (ts->elf = elf_begin(ts->fd, ELF_C_READ, NULL)) &&
	    !debugfile__find(ts->elf, binary, dbg, sizeof(dbg)) && (ts->dfd = open(dbg, O_RDONLY | O_CLOEXEC)) >= 0)
		ts->dw = dwarf_begin(ts->dfd, DWARF_C_READ);
	if (!ts->dw)
		return -ENODATA;
	return dw_find(ts->dw, func, vaddr, &ts->func);
}

/* parameter i (its name into name) and type; false past the last */
static bool param(struct types *ts, int i, const char **name, struct ty *t, char *text, size_t tlen)
{
	if (ts->btf) {
		const struct btf_type *p = btf__type_by_id(ts->btf, ts->proto);

		if (!p || i >= btf_vlen(p))
			return false;
		*name = btf__name_by_offset(ts->btf, btf_params(p)[i].name_off);
		btf_ty(ts->btf, btf_params(p)[i].type, t);
		if (text)
			btf_text(ts->btf, btf_params(p)[i].type, text, tlen, 0);
		return true;
	}
	Dwarf_Die c, ty;
	Dwarf_Attribute a;
	int k = 0;

	if (dwarf_child(&ts->func, &c))
		return false;
	do {
		if (dwarf_tag(&c) != DW_TAG_formal_parameter || k++ != i)
			continue;
		*name = dwarf_attr_integrate(&c, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
		dw_ty(&c, t);
		if (text) {
			snprintf(text, tlen, "void");
			if (dw_type(&c, &ty))
				dw_text(&ty, text, tlen, 0);
		}
		return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

int pev__vars(const char *binary, const char *func, struct pev_var *out, int max)
{
	struct types ts;
	int rc = types_open(&ts, binary, func), n = 0;
	const char *name;
	struct ty t;

	while (!rc && n < max && param(&ts, n, &name, &t, out[n].type, sizeof(out[n].type))) {
		snprintf(out[n].name, sizeof(out[n].name), "%s", name ? name : "");
		n++;
	}
	types_close(&ts);
	return rc ? rc : n;
}

/* "s32", "u16", "x64" for a pointer */
static void type_of(const struct ty *t, char *buf, size_t len)
{
	int bits = (t->size > 0 && t->size <= 8 ? t->size : 8) * 8;

	snprintf(buf, len, "%c%d", t->kind == T_PTR ? 'x' : t->sign ? 's' : 'u', bits);
}

/* a raw fetch argument, or $argN made a register (uprobes have no $argN) */
static int raw_fetch(const struct pev *pe, struct pev_arg *a, char *err, size_t errlen)
{
	const char *e = a->expr;
	const char *ty = a->type[0] ? a->type : NULL;

	if (!strncmp(e, "$arg", 4) && isdigit((unsigned char)e[4])) {
		int n = atoi(e + 4);

		if (n < 1 || n > 6) {
			ERR("'%s': $arg1 to $arg6 are in registers", e);
			return -EINVAL;
		}
		if (pe->ret) {
			ERR("'%s': arguments are gone at a return probe (only $retval is there)", e);
			return -EINVAL;
		}
		e = regs[n - 1];
		if (ty && (!strcmp(ty, "string") || !strcmp(ty, "ustring"))) {
			snprintf(a->fetch, sizeof(a->fetch), "+0(%s):%s", e, ty);
			return 0;
		}
	}
	snprintf(a->fetch, sizeof(a->fetch), "%s%s%s", e, ty ? ":" : "", ty ? ty : "");
	return 0;
}

int pev__fetch(const struct pev *pe, struct pev_arg *a, char *err, size_t errlen)
{
	const char *e = a->expr, *kind = pe->binary[0] ? "DWARF" : "BTF";
	char base[320], val[320], tname[16], id[128], pnames[256] = "";
	struct types ts;
	struct ty t;
	long off = 0;
	bool lvalue = false;	/* the value is at +off(base), not base itself */
	int rc, i;

	if (strchr("%+-@$", e[0]) && strcmp(e, "$retval"))
		return raw_fetch(pe, a, err, errlen);
	rc = types_open(&ts, pe->binary[0] ? pe->binary : NULL, pe->func);
	if (rc == -ENODATA && !strcmp(e, "$retval")) {	/* untyped: as perf, the register as it is */
		snprintf(a->fetch, sizeof(a->fetch), "$retval%s%s", a->type[0] ? ":" : "", a->type);
		types_close(&ts);
		return 0;
	}
	if (rc) {
		ERR("argument '%s': %s", e, rc == -ENODATA ? (pe->binary[0] ?
		    "the binary has no DWARF (nor a debug file): give registers or $argN with a type (%di:u64, $arg1:string)" :
		    "the kernel has no BTF: give registers or $argN with a type ($arg2:u64)") :
		    rc == -ENOENT ? "the function is not in the debug information" : strerror(-rc));
		goto out;
	}
	rc = -EINVAL;
	if (!strcmp(e, "$retval")) {
		if (ts.btf) {
			btf_ty(ts.btf, btf__type_by_id(ts.btf, ts.proto)->type, &t);
		} else {
			Dwarf_Die f = ts.func;

			dw_ty(&f, &t);
		}
		snprintf(base, sizeof(base), "$retval");
		e += 7;
	} else {
		const char *name;
		size_t l = strspn(e, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

		snprintf(id, sizeof(id), "%.*s", (int)l, e);
		for (i = 0; param(&ts, i, &name, &t, NULL, 0); i++) {
			if (name && !strcmp(name, id))
				break;
			snprintf(pnames + strlen(pnames), sizeof(pnames) - strlen(pnames), "%s%s", i ? " " : "",
				 name ? name : "?");
		}
		if (!param(&ts, i, &name, &t, NULL, 0)) {
			ERR("argument '%s': %s has no parameter '%s' in its %s (it has: %s)", a->expr, pe->func, id, kind,
			    pnames[0] ? pnames : "none");
			goto out;
		}
		if (pe->ret) {
			ERR("argument '%s': parameters are gone at a return probe (only $retval is there)", a->expr);
			goto out;
		}
		if (i >= 6 || (t.kind != T_INT && t.kind != T_PTR)) {
			ERR("argument '%s': only the first six integer or pointer parameters are in registers", a->expr);
			goto out;
		}
		snprintf(base, sizeof(base), "%s", regs[i]);
		e += l;
	}
	/* ->member and .member */
	while (*e) {
		bool arrow = !strncmp(e, "->", 2);
		struct ty st;
		long moff;
		size_t l;

		if (!arrow && *e != '.') {
			ERR("argument '%s': cannot read '%s' (NAME, ->MEMBER and .MEMBER)", a->expr, e);
			goto out;
		}
		e += arrow ? 2 : 1;
		l = strspn(e, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		snprintf(id, sizeof(id), "%.*s", (int)l, e);
		e += l;
		if (arrow) {
			if (t.kind != T_PTR) {
				ERR("argument '%s': '->%s' of something that is not a pointer", a->expr, id);
				goto out;
			}
			target(&ts, &t, &st);
			if (lvalue) {	/* the pointer is in memory: read it first */
				snprintf(val, sizeof(val), "+%ld(%s)", off, base);
				snprintf(base, sizeof(base), "%s", val);
			}
			off = 0;
			lvalue = true;
		} else {
			st = t;
			if (!lvalue) {
				ERR("argument '%s': '.%s' of a value in a register (use ->)", a->expr, id);
				goto out;
			}
		}
		if (st.kind != T_STRUCT || member(&ts, &st, id, &moff, &t)) {
			ERR("argument '%s': no member '%s' there in the %s", a->expr, id, kind);
			goto out;
		}
		off += moff;
	}
	if (!strcmp(a->type, "string") || !strcmp(a->type, "ustring")) {
		if (t.kind == T_ARRAY && lvalue)	/* the characters are right there */
			snprintf(a->fetch, sizeof(a->fetch), "+%ld(%s):%s", off, base, a->type);
		else if (t.kind == T_PTR && lvalue)
			snprintf(a->fetch, sizeof(a->fetch), "+0(+%ld(%s)):%s", off, base, a->type);
		else if (t.kind == T_PTR)
			snprintf(a->fetch, sizeof(a->fetch), "+0(%s):%s", base, a->type);
		else {
			ERR("argument '%s': a string needs a char pointer or array", a->expr);
			goto out;
		}
		rc = 0;
		goto out;
	}
	if (t.kind != T_INT && t.kind != T_PTR && !a->type[0]) {
		ERR("argument '%s': not an integer or a pointer (give a member, or a type: :u64)", a->expr);
		goto out;
	}
	type_of(&t, tname, sizeof(tname));
	if (lvalue)
		snprintf(a->fetch, sizeof(a->fetch), "+%ld(%s):%s", off, base, a->type[0] ? a->type : tname);
	else
		snprintf(a->fetch, sizeof(a->fetch), "%s:%s", base, a->type[0] ? a->type : tname);
	rc = 0;
out:
	types_close(&ts);
	return rc;
}
