// SPDX-License-Identifier: GPL-2.0
/*
 * probe_elf.c - the functions of an ELF file for dynamic probes: by name (a
 * uprobe's file offset), by file offset (what --list shows), all of them
 * (--funcs, with the kernel's from BTF).
 */
#include "lib/tracefs/probe_event.h"

#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
