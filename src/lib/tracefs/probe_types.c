// SPDX-License-Identifier: GPL-2.0
/*
 * probe_types.c - where a dynamic probe's arguments are: a function's
 * parameters and their types from the kernel's BTF or an ELF file's DWARF
 * (its own, or its separate debug file), walked through members and pointers
 * to a fetch argument of kprobetrace.rst's syntax. At a function's entry the
 * integer and pointer parameters are in the x86-64 calling convention's
 * registers, in order (%di %si %dx %cx %r8 %r9), which is what the fetch
 * arguments read; a member is +OFFSET(the struct's address), a pointer's
 * target one dereference more. Also the source lines where a probe can go.
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

/* the line table's walk for pev__lines and pev__line_addr: probe[rel] = 1 where a probe can go */
static int probe_lines(struct types *ts, const char **src, int *first, int *last, char *probe,
		       unsigned long long *addr, int want)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	Dwarf_Addr lo, hi, prev = (Dwarf_Addr)-1;
	size_t nl;

	if (!ts->dw || !(*src = dwarf_decl_file(&ts->func)) || dwarf_decl_line(&ts->func, first) ||
	    dwarf_lowpc(&ts->func, &lo) || dwarf_highpc(&ts->func, &hi) || !dwarf_diecu(&ts->func, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, &lines, &nl))
		return -ENODATA;
	/*
	 * Where a probe can go: a statement's first address in [lo, hi), once (the
	 * table is by address: a line whose address an earlier line has is that
	 * line's), the entry being line 0, the declaration's.
	 */
	*last = *first;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		const char *lf;
		bool stmt = false;
		int ln;

		if (dwarf_lineaddr(l, &a) || a < lo || a >= hi || dwarf_lineno(l, &ln) || ln < *first ||
		    ln - *first >= 65536 || !(lf = dwarf_linesrc(l, NULL, NULL)) || strcmp(lf, *src))
			continue;
		if (ln > *last)
			*last = ln;
		if (dwarf_linebeginstatement(l, &stmt) || !stmt || a == prev)
			continue;
		if (probe)
			probe[a == lo ? 0 : ln - *first] = 1;
		if ((a == lo ? 0 : ln - *first) == want && addr) {
			*addr = a;
			return 0;
		}
		prev = a;
	}
	return want >= 0 ? -ENOENT : 0;
}

int pev__line_addr(const char *binary, const char *func, int n, unsigned long long *vaddr)
{
	struct types ts;
	const char *src;
	int first, last, rc = types_open(&ts, binary, func);

	if (!rc)
		rc = probe_lines(&ts, &src, &first, &last, NULL, vaddr, n);
	types_close(&ts);
	return rc;
}

int pev__lines(const char *binary, const char *func, void (*cb)(const char *line, void *arg), void *arg)
{
	struct types ts;
	Dwarf_Die cu;
	const char *src, *dir;
	int rc = types_open(&ts, binary, func), first, last;
	char path[PATH_MAX], out[4096], *probe = NULL;
	FILE *f = NULL;

	probe = calloc(65536, 1);
	if (!rc && !probe)
		rc = -ENOMEM;
	if (!rc)
		rc = probe_lines(&ts, &src, &first, &last, probe, NULL, -1);
	if (rc)
		goto out;
	dwarf_diecu(&ts.func, &cu, NULL, NULL);
	dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &(Dwarf_Attribute){ 0 }));
	snprintf(path, sizeof(path), "%s%s%s", src[0] == '/' || !dir ? "" : dir, src[0] == '/' || !dir ? "" : "/", src);
	snprintf(out, sizeof(out), "<%s@%s:0>", func, path);
	cb(out, arg);
	f = fopen(path, "re");
	if (!f) {
		rc = -errno;
		goto out;
	}
	for (int ln = 1; probe && fgets(out + 9, sizeof(out) - 9, f) && ln <= last; ln++) {
		if (ln < first)
			continue;
		char num[16];

		if (probe[ln - first])
			snprintf(num, sizeof(num), "%7d  ", ln - first);
		else
			snprintf(num, sizeof(num), "%9s", "");
		memcpy(out, num, 9);	/* the column before the text, as perf probe -L shows it */
		out[9 + strcspn(out + 9, "\n")] = 0;
		cb(out, arg);
	}
	rc = 0;
out:
	if (f)
		fclose(f);
	free(probe);
	types_close(&ts);
	return rc;
}
