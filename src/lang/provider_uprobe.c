// SPDX-License-Identifier: GPL-2.0
/*
 * provider_uprobe.c - uprobe:/uretprobe: on binaries and libraries: the file a
 * name stands for (a path, a command on $PATH, a library by its short name),
 * functions by symbol (.symtab, .dynsym or the separate debug file) and wildcard
 * (a Go receiver's "(*" is literal), their file offsets, -l's listing, and the
 * attachment: a uprobe_multi link where the kernel has them, else the uprobe PMU.
 */
#include "lang/provider.h"
#include "lib/bpf/bpf_util.h"
#include "lib/symbol/elfsym.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_elf(const char *path)
{
	char m[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok = fd >= 0 && read(fd, m, 4) == 4 && !memcmp(m, "\177ELF", 4);

	if (fd >= 0)
		close(fd);
	return ok;
}

int provider__resolve_path(const char *name, char *out, size_t len)
{
	static const char *libdirs[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
					 "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib", NULL };
	struct stat st;

	if (strchr(name, '/')) {
		if (stat(name, &st) || !S_ISREG(st.st_mode))
			return -ENOENT;
		if (!realpath(name, out))
			snprintf(out, len, "%s", name);
		return 0;
	}
	const char *path = getenv("PATH");
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
	for (char *save, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", d, name);
		if (!stat(out, &st) && S_ISREG(st.st_mode) && !access(out, X_OK))
			return 0;
	}
	static const char *forms[] = { "%s/%s", "%s/%s.so", "%s/%s.so.6", "%s/%s.so.1", "%s/%s.so.0",
				       "%s/lib%s.so", "%s/lib%s.so.6", "%s/lib%s.so.1", "%s/lib%s.so.0", NULL };
	for (int i = 0; libdirs[i]; i++)
		for (int j = 0; forms[j]; j++) {
			snprintf(out, len, forms[j], libdirs[i], name);
			if (!stat(out, &st) && S_ISREG(st.st_mode) && is_elf(out))
				return 0;
		}
	return -ENOENT;
}

/* the file offset of address value in an executable segment of e, or -1 */
static int64_t exec_offset(Elf *e, GElf_Addr value)
{
	uint64_t off;

	return elfsym__file_offset(e, value, true, &off) ? -1 : (int64_t)off;
}

int provider__elf_sym_offset(const char *path, const char *sym, uint64_t *offset)
{
	/* any symbol with an address, as bpftrace takes it (IFUNCs too), also from a debug file */
	return elfsym__sym_offset(path, sym, ELFSYM_ANY_TYPE | ELFSYM_DEBUG_FILE, offset);
}


struct func_name {
	char *name;
	GElf_Addr value;
};

struct func_names {
	const char *fpat, *shown, *kind;
	struct func_name *v;
	size_t n, cap;
};

static int cmp_func_name(const void *a, const void *b)
{
	return strcmp(((const struct func_name *)a)->name, ((const struct func_name *)b)->name);
}

static int func_name(const char *nm, const GElf_Sym *s, void *ctx)
{
	struct func_names *fn = ctx;
	char buf[4600];

	if (GELF_ST_TYPE(s->st_info) != STT_FUNC || !s->st_value || fnmatch(fn->fpat, nm, 0))
		return 0;
	snprintf(buf, sizeof(buf), "%s:%s:%s", fn->kind, fn->shown, nm);
	if (fn->n == fn->cap) {
		struct func_name *nv = realloc(fn->v, (fn->cap = fn->cap ? fn->cap * 2 : 256) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		fn->v = nv;
	}
	if (!(fn->v[fn->n].name = strdup(buf)))
		return -ENOMEM;
	fn->v[fn->n++].value = s->st_value;
	return 0;
}

/*
 * the functions of a binary whose probe names match fpat, sorted and each once (as
 * bpftrace lists them), with their file offsets (-1: in no executable segment), read
 * in one walk of its symbols
 */
static void each_elf_func(const char *path, const char *shown, const char *fpat, const char *kind,
			  void (*cb)(const char *, int64_t, void *), void *ctx)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e = NULL;
	struct func_names fn = { .fpat = fpat, .shown = shown, .kind = kind };

	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e) {
		elfsym__each_file(e, path, func_name, &fn);
		if (fn.n)
			qsort(fn.v, fn.n, sizeof(*fn.v), cmp_func_name);
		for (size_t i = 0; i < fn.n; i++)
			if (!i || strcmp(fn.v[i].name, fn.v[i - 1].name))
				cb(fn.v[i].name, exec_offset(e, fn.v[i].value), ctx);
		elf_end(e);
	}
	close(fd);
	for (size_t i = 0; i < fn.n; i++)
		free(fn.v[i].name);
	free(fn.v);
}

struct list_cb {
	void (*cb)(const char *, void *);
	void *ctx;
};

static void list_func(const char *name, int64_t off, void *ctx)
{
	struct list_cb *l = ctx;

	(void)off;
	l->cb(name, l->ctx);
}

/* the functions of a binary whose probe names match pat, as -l lists them */
void uprobe__list_funcs(const char *path, const char *shown, const char *fpat, const char *pat,
			   void (*cb)(const char *, void *), void *ctx)
{
	struct list_cb l = { cb, ctx };

	each_elf_func(path, shown, fpat, !strncmp(pat, "uretprobe:", 10) ? "uretprobe" : "uprobe", list_func, &l);
}

struct u_glob {
	struct program *prog;
	struct probe *pr;
	struct attach *ap;
	struct ap_inst ***tail;
	const char *path;
	int n, err;
};

static void u_glob_one(const char *name, int64_t off, void *ctx)
{
	struct u_glob *g = ctx;
	const char *fn = strrchr(name, ':') + 1;

	if (g->err || g->n >= 4096 || off < 0)
		return;
	for (struct ap_inst *in = g->pr->inst; in; in = in->next)	/* .symtab and .dynsym both list it */
		if (in->ap == g->ap && in->sym && !strcmp(in->sym, fn))
			return;
	struct ap_inst *in = provider__new_inst(g->prog, g->pr, g->ap, g->tail, name);

	in->path = arena__strndup(g->prog->arena, g->path, strlen(g->path));
	in->sym = arena__strndup(g->prog->arena, fn, strlen(fn));
	in->offset = off;
	in->globbed = true;
	g->n++;
}

/*
 * sym as an fnmatch pattern when it has wildcards, else NULL: the '*' of a Go pointer
 * receiver, net/http.(*ServeMux).ServeHTTP, is part of the name, not a wildcard
 */
static const char *u_pattern(struct program *prog, const char *sym)
{
	size_t n = strlen(sym);
	char *pat = arena__alloc(prog->arena, 2 * n + 1), *o = pat;
	bool wild = false;

	for (const char *s = sym; *s; s++) {
		if (*s == '*' && s > sym && s[-1] == '(') {
			*o++ = '\\';
		} else if (strchr("*?[", *s)) {
			wild = true;
		}
		*o++ = *s;
	}
	*o = 0;
	return wild ? pat : NULL;
}

/*
 * Whether an instruction starts at vaddr: the DWARF line table of path says so when
 * a row begins there (1); 0 when no row does, -ENODATA when there is no line table.
 */
static int line_starts_at(const char *path, uint64_t vaddr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = -ENODATA;
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	Dwarf_Off cu = 0, next;
	size_t hsize;

	while (dw && found != 1 && !dwarf_nextcu(dw, cu, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die die;
		Dwarf_Lines *lines;
		size_t n;

		if (dwarf_offdie(dw, cu + hsize, &die) && !dwarf_getsrclines(&die, &lines, &n)) {
			found = found == 1 ? 1 : 0;
			for (size_t i = 0; i < n && found != 1; i++) {
				Dwarf_Addr a;

				if (!dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) && a == vaddr)
					found = 1;
			}
		}
		cu = next;
	}
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
	return found;
}

/* FUNC+add: inside FUNC, and where an instruction starts (else only with --unsafe) */
static int offset_ok(struct program *prog, struct attach *ap, const char *path, const char *sym, uint64_t add)
{
	uint64_t value, size;
	int at;

	if (provider__elf_symbol(path, sym, &value, &size))
		return 0;	/* the offset was found by another table: nothing to measure against */
	if (size && add >= size) {
		lang__error(prog, ap->loc, "offset %llu is past the end of '%s' (%llu bytes)", (unsigned long long)add, sym,
			    (unsigned long long)size);
		return -EINVAL;
	}
	at = line_starts_at(path, value + add);
	if (at == 1 || prog->cfg.unsafe)
		return 0;
	lang__error(prog, ap->loc, "sonde cannot tell that an instruction starts %llu bytes into '%s' (%s); a uprobe in "
		    "the middle of one corrupts the process: --unsafe probes it anyway", (unsigned long long)add, sym,
		    at ? "the binary has no DWARF line table" : "no row of its DWARF line table begins there");
	return -EINVAL;
}

int uprobe__expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail)
{
	char path[4096], name[4352];
	const char *sym = ap->b;
	uint64_t off = 0;
	int rc;

	if (!ap->a || !ap->b) {
		lang__error(prog, ap->loc, "a uprobe is written %s:BINARY:FUNCTION", ap->prov);
		return -EINVAL;
	}
	if (ap->c) {	/* uprobe:bin:lang:sym forms: the last field is the function */
		sym = ap->c;
	}
	if (provider__resolve_path(ap->a, path, sizeof(path))) {
		lang__error(prog, ap->loc, "cannot find binary or library '%s'", ap->a);
		return -ENOENT;
	}
	const char *fpat = u_pattern(prog, sym);

	if (fpat) {
		/* every function of the file that matches, each its own instance */
		struct u_glob g = { .prog = prog, .pr = pr, .ap = ap, .tail = tail, .path = path };

		each_elf_func(path, path, fpat, ap->prov, u_glob_one, &g);
		if (g.err)
			return g.err;
		if (!g.n && !pr->aps->next) {
			lang__error(prog, ap->loc, "no function of '%s' matches '%s'", path, sym);
			return -ENOENT;
		}
		return 0;
	}
	const char *plus = strrchr(sym, '+');
	uint64_t add = 0;

	if (plus && plus > sym && plus[1] && strncmp(sym, "0x", 2)) {	/* FUNC+OFFSET (C++'s operator+ is a name) */
		char *e;

		errno = 0;
		add = strtoull(plus + 1, &e, 0);
		if (*e || errno) {
			lang__error(prog, ap->loc, "'%s' is not an offset into '%.*s'", plus + 1, (int)(plus - sym), sym);
			return -EINVAL;
		}
		if (add && !strcmp(ap->prov, "uretprobe")) {
			lang__error(prog, ap->loc, "a uretprobe fires where a function returns: it takes no offset");
			return -EINVAL;
		}
		sym = arena__strndup(prog->arena, sym, plus - sym);
	}
	if (!strncmp(sym, "0x", 2)) {
		off = strtoull(sym, NULL, 16);
	} else {
		rc = provider__elf_sym_offset(path, sym, &off);
		/* glibc 2.34 moved libpthread's, libdl's and librt's functions into libc */
		if (rc == -ENOENT && (strstr(path, "/libpthread.so") || strstr(path, "/libdl.so") || strstr(path, "/librt.so"))) {
			char libc[4096];

			if (!provider__resolve_path("libc.so.6", libc, sizeof(libc)) &&
			    !provider__elf_sym_offset(libc, sym, &off)) {
				lang__warn(prog, ap->loc, "'%s' is in '%s' since glibc 2.34, not in '%s': probing it there",
					   sym, libc, path);
				snprintf(path, sizeof(path), "%s", libc);
				rc = 0;
			}
		}
		if (rc && pr->aps->next) {
			/* one of several attach points: bpftrace 0.17 skips it silently; say it */
			lang__warn(prog, ap->loc, "skipping '%s': no function '%s' in '%s'", ap->text, sym, path);
			return 0;
		}
		if (rc) {
			lang__error(prog, ap->loc, "cannot find function '%s' in '%s'%s", sym, path,
				    rc == -ENOENT ? " (no such symbol)" : "");
			return rc;
		}
		if (add && (rc = offset_ok(prog, ap, path, sym, add)))
			return rc;
		off += add;
	}
	if (add)
		snprintf(name, sizeof(name), "%s:%s:%s+%llu", ap->prov, path, sym, (unsigned long long)add);
	else
		snprintf(name, sizeof(name), "%s:%s:%s", ap->prov, path, sym);
	struct ap_inst *in = provider__new_inst(prog, pr, ap, tail, name);

	in->path = arena__strndup(prog->arena, path, strlen(path));
	in->sym = sym;
	in->offset = off;
	return 0;
}


bool provider__uprobe_multi(const struct ap_inst *in)
{
	return (!strcmp(in->prov->name, "uprobe") || !strcmp(in->prov->name, "uretprobe")) &&
	       bpf_probe__uprobe_multi(NULL);
}

int uprobe__attach(struct ap_inst *in, const struct attach_ctx *ctx, char *err, size_t errlen)
{
	if (provider__uprobe_multi(in)) {
		int fd = bpf_uprobe_multi__attach(in->prog_fd, in->path, in->offset,
						  !strcmp(in->prov->name, "uretprobe"), ctx->pid);

		if (fd < 0) {
			snprintf(err, errlen, "cannot attach '%s': %s", in->name, provider__attach_strerror(-fd));
			return fd;
		}
		return provider__add_fd(in, fd);
	}
	return provider__dyn_attach(in, "uprobe", !strcmp(in->prov->name, "uretprobe"), (uint64_t)(uintptr_t)in->path,
			  in->offset, ctx->pid > 0 ? ctx->pid : -1, err, errlen);
}
