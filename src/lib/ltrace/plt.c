// SPDX-License-Identifier: GPL-2.0
/*
 * plt.c - the PLT stubs of an ELF object, by name.
 *
 * Why the PLT: ltrace's default (-e @MAIN) is the calls the main executable
 * makes to libraries, and those all go through its PLT stubs, one per
 * imported function: a uprobe on a stub sees exactly the calls made from that
 * object, never the library's internal calls, and a uretprobe at the same
 * place sees their returns (the stub jumps to the function, which returns to
 * the caller). Probing the library's own function instead would see every
 * caller (and for IFUNCs like strlen, only the resolver). ltrace itself puts
 * its breakpoints on the same stubs.
 *
 * A stub is found by decoding it rather than by its position: each slot of
 * .plt.sec (IBT builds: endbr64; bnd jmp *GOT(%rip)) or else of .plt
 * (jmp *GOT(%rip); push n; jmp PLT0) holds a RIP-relative indirect jump whose
 * target is a GOT slot; the R_X86_64_JUMP_SLOT relocation of that slot names
 * the function. This works whatever the order of .rela.plt and whatever the
 * slot size, in stripped files too (.dynsym and the relocations stay).
 * IRELATIVE slots (no symbol) and .plt.got (functions whose address is also
 * taken) are left out, as ltrace leaves them out of its default.
 */
#include "lib/ltrace/plt.h"
#include "lib/symbol/elfsym.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef R_X86_64_JUMP_SLOT
#define R_X86_64_JUMP_SLOT 7
#endif

struct slot {
	uint64_t got;
	const char *name;	/* in the ELF handle */
};

static Elf_Scn *find_section(Elf *e, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *s = NULL;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((s = elf_nextscn(e, s))) {
		const char *n;

		if (!gelf_getshdr(s, sh))
			continue;
		n = elf_strptr(e, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return s;
	}
	return NULL;
}

/* the JUMP_SLOT relocations of every SHT_RELA section: GOT address -> symbol name */
static int read_slots(Elf *e, struct slot **out, int *n)
{
	Elf_Scn *s = NULL;
	GElf_Shdr sh;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	while ((s = elf_nextscn(e, s))) {
		Elf_Data *d;
		Elf_Scn *symscn;
		GElf_Shdr symsh;
		Elf_Data *symd;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		if (!(symscn = elf_getscn(e, sh.sh_link)) || !gelf_getshdr(symscn, &symsh) ||
		    !(symd = elf_getdata(symscn, NULL)) || !(d = elf_getdata(s, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name;

			if (!gelf_getrela(d, i, &r) || GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT)
				continue;
			if (!GELF_R_SYM(r.r_info) || !gelf_getsym(symd, GELF_R_SYM(r.r_info), &sym))
				continue;
			name = elf_strptr(e, symsh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (util__grow(out, &cap, (size_t)*n + 1, sizeof(**out), 64))
				return -ENOMEM;
			(*out)[(*n)++] = (struct slot){ r.r_offset, name };
		}
	}
	return 0;
}

static const char *slot_name(const struct slot *sl, int n, uint64_t got)
{
	for (int i = 0; i < n; i++)
		if (sl[i].got == got)
			return sl[i].name;
	return NULL;
}

/* the GOT slot the stub at [b, b+len) jumps through (ff 25 disp32, maybe after f2 or endbr64), or 0 */
static uint64_t stub_target(const unsigned char *b, size_t len, uint64_t vaddr)
{
	for (size_t i = 0; i + 6 <= len && i <= 8; i++) {
		if (b[i] == 0xff && b[i + 1] == 0x25) {
			int32_t disp;

			memcpy(&disp, b + i + 2, 4);
			return vaddr + i + 6 + (int64_t)disp;
		}
	}
	return 0;
}

static int add_entry(struct elf_obj *o, Elf *e, const char *name, uint64_t vaddr, uint64_t got)
{
	struct plt_entry *np = realloc(o->plt, (o->nr_plt + 1) * sizeof(*np));
	uint64_t off;

	if (!np)
		return -ENOMEM;
	o->plt = np;
	if (elfsym__file_offset(e, vaddr, true, &off))
		return 0;	/* not in a loaded executable segment: nothing to probe */
	if (!(np[o->nr_plt].name = strdup(name)))
		return -ENOMEM;
	np[o->nr_plt].vaddr = vaddr;
	np[o->nr_plt].offset = off;
	np[o->nr_plt].got = got;
	o->nr_plt++;
	return 0;
}

static int read_plt(struct elf_obj *o, Elf *e)
{
	GElf_Shdr sh;
	Elf_Scn *s = find_section(e, ".plt.sec", &sh);
	struct slot *sl;
	Elf_Data *d;
	int nsl, rc;

	if (!s)
		s = find_section(e, ".plt", &sh);
	if (!s || sh.sh_type != SHT_PROGBITS || !(d = elf_getdata(s, NULL)) || !d->d_buf)
		return 0;
	if ((rc = read_slots(e, &sl, &nsl)))
		return rc;
	/* slots are 16 bytes on x86-64 (sh_entsize says so where the linker sets it) */
	for (size_t at = 0; !rc && at + 16 <= d->d_size; at += 16) {
		uint64_t got = stub_target((const unsigned char *)d->d_buf + at, 16, sh.sh_addr + at);
		const char *name = got ? slot_name(sl, nsl, got) : NULL;

		if (name)
			rc = add_entry(o, e, name, sh.sh_addr + at, got);
	}
	free(sl);
	return rc;
}

static int read_dynamic(struct elf_obj *o, Elf *e)
{
	GElf_Shdr sh;
	Elf_Scn *s = find_section(e, ".dynamic", &sh);
	Elf_Data *d;

	if (!s || !(d = elf_getdata(s, NULL)))
		return 0;
	o->dynamic = true;
	for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Dyn dyn;
		const char *str;

		if (!gelf_getdyn(d, i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_SONAME && dyn.d_tag != DT_RUNPATH &&
		    dyn.d_tag != DT_RPATH)
			continue;
		if (!(str = elf_strptr(e, sh.sh_link, dyn.d_un.d_val)))
			continue;
		if (dyn.d_tag == DT_NEEDED) {
			char **nn = realloc(o->needed, (o->nr_needed + 1) * sizeof(*nn));

			if (!nn)
				return -ENOMEM;
			o->needed = nn;
			if (!(nn[o->nr_needed] = strdup(str)))
				return -ENOMEM;
			o->nr_needed++;
		} else if (dyn.d_tag == DT_SONAME && !o->soname) {
			o->soname = strdup(str);
		} else if (dyn.d_tag == DT_RUNPATH || (dyn.d_tag == DT_RPATH && !o->runpath)) {
			free(o->runpath);
			o->runpath = strdup(str);
		}
	}
	return 0;
}

struct fn_list {
	char *const *pats;
	int npats;
	struct plt_entry *v;
	int n;
	int err;
};

static int fn_match(const char *name, const GElf_Sym *s, void *ctx)
{
	struct fn_list *l = ctx;
	struct plt_entry *nv;
	bool match = false;

	if (GELF_ST_TYPE(s->st_info) != STT_FUNC || !s->st_value)
		return 0;
	for (int i = 0; i < l->npats && !match; i++)
		match = !fnmatch(l->pats[i], name, 0);
	for (int i = 0; match && i < l->n; i++)
		match = l->v[i].vaddr != s->st_value;	/* .dynsym repeats .symtab */
	if (!match)
		return 0;
	if (!(nv = realloc(l->v, (l->n + 1) * sizeof(*nv))) || !(nv[l->n].name = strdup(name))) {
		if (nv)
			l->v = nv;
		l->err = -ENOMEM;
		return 1;
	}
	l->v = nv;
	nv[l->n].vaddr = s->st_value;
	nv[l->n].got = 0;
	nv[l->n++].offset = 0;
	return 0;
}

static int by_vaddr(const void *a, const void *b)
{
	const struct plt_entry *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

int elf_obj__functions(const char *path, char *const *pats, int npats, struct plt_entry **out, int *n)
{
	struct fn_list l = { pats, npats, NULL, 0, 0 };
	int fd, j = 0, rc;
	Elf *e;

	*out = NULL;
	*n = 0;
	if ((rc = elfsym__open(path, &fd, &e)))
		return rc;
	elfsym__each(e, fn_match, &l);
	/* where each goes in the file (one outside an executable segment is left out) */
	for (int i = 0; i < l.n; i++) {
		if (!l.err && !elfsym__file_offset(e, l.v[i].vaddr, true, &l.v[i].offset))
			l.v[j++] = l.v[i];
		else
			free(l.v[i].name);
	}
	elfsym__close(fd, e);
	if (l.err) {
		free(l.v);
		return l.err;
	}
	qsort(l.v, j, sizeof(*l.v), by_vaddr);
	*out = l.v;
	*n = j;
	return 0;
}

static int cmp_name(const void *a, const void *b);

/* the functions of .dynsym defined here and visible to others */
static int read_exports(struct elf_obj *o, Elf *e)
{
	Elf_Scn *s = NULL;
	GElf_Shdr sh;
	size_t cap = 0;

	while ((s = elf_nextscn(e, s))) {
		Elf_Data *d;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize || !(d = elf_getdata(s, NULL)))
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_BIND(sym.st_info) == STB_LOCAL ||
			    (GELF_ST_TYPE(sym.st_info) != STT_FUNC && GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
				continue;
			if (!(n = elf_strptr(e, sh.sh_link, sym.st_name)) || !*n)
				continue;
			if (util__grow(&o->exports, &cap, (size_t)o->nr_exports + 1, sizeof(*o->exports), 256))
				return -ENOMEM;
			if (!(o->exports[o->nr_exports] = strdup(n)))
				return -ENOMEM;
			o->nr_exports++;
		}
	}
	if (o->nr_exports)
		qsort(o->exports, o->nr_exports, sizeof(*o->exports), cmp_name);
	return 0;
}

static int read_elf(struct elf_obj *o, Elf *e, const char *name)
{
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t nph;
	const char *base = strrchr(name, '/');
	int rc;

	if (!gelf_getehdr(e, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
		return -ENOEXEC;
	if (!(o->path = strdup(name)))
		return -ENOMEM;
	if (!elf_getphdrnum(e, &nph))
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_INTERP) {
				Elf_Data *d = elf_getdata_rawchunk(e, ph.p_offset, ph.p_filesz, ELF_T_BYTE);

				o->interp = o->dynamic = true;
				if (d && d->d_buf && d->d_size && !o->interp_path &&
				    !(o->interp_path = strndup(d->d_buf, d->d_size)))
					return -ENOMEM;
			}
		}
	o->go = find_section(e, ".note.go.buildid", &sh) || find_section(e, ".go.buildinfo", &sh);
	if ((rc = read_dynamic(o, e)) || (rc = read_plt(o, e)) || (rc = read_exports(o, e)))
		return rc;
	if (!o->soname && !(o->soname = strdup(base ? base + 1 : name)))
		return -ENOMEM;
	return 0;
}

int elf_obj__read_mem(struct elf_obj *o, const void *buf, size_t len, const char *name)
{
	Elf *e;
	int rc;

	memset(o, 0, sizeof(*o));
	elf_version(EV_CURRENT);
	if (!(e = elf_memory((char *)buf, len)))
		return -ENOEXEC;
	rc = elf_kind(e) == ELF_K_ELF ? read_elf(o, e, name) : -ENOEXEC;
	elf_end(e);
	if (rc)
		elf_obj__free(o);
	return rc;
}

int elf_obj__read(struct elf_obj *o, const char *path)
{
	int fd, rc;
	Elf *e;

	memset(o, 0, sizeof(*o));
	/* read, not mapped: the PLT stubs' bytes as in the file, not with another
	   tracer's breakpoints in them */
	if ((rc = elfsym__open_read(path, &fd, &e)))
		return rc;
	rc = read_elf(o, e, path);
	elfsym__close(fd, e);
	if (rc)
		elf_obj__free(o);
	return rc;
}

void elf_obj__free(struct elf_obj *o)
{
	for (int i = 0; i < o->nr_plt; i++)
		free(o->plt[i].name);
	for (int i = 0; i < o->nr_needed; i++)
		free(o->needed[i]);
	for (int i = 0; i < o->nr_exports; i++)
		free(o->exports[i]);
	free(o->exports);
	free(o->plt);
	free(o->needed);
	free(o->path);
	free(o->soname);
	free(o->runpath);
	free(o->interp_path);
	memset(o, 0, sizeof(*o));
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool elf_obj__defines(const struct elf_obj *o, const char *name)
{
	return o->nr_exports && bsearch(&name, o->exports, o->nr_exports, sizeof(*o->exports), cmp_name);
}
