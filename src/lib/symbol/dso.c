// SPDX-License-Identifier: GPL-2.0
/*
 * dso.c - one ELF file (executable, shared library, [vdso]) loaded once through
 * libdwfl and shared by every process that maps it: its PT_LOAD segments (file
 * offsets to ELF vaddrs), a sorted function table built from .symtab/.dynsym
 * (or the separate debug file, or MiniDebugInfo, whichever libdwfl finds), the
 * DWARF inline chain and source line of an address, and a per-address cache.
 *
 * A DSO whose build id was given is only used if the file's build id matches;
 * otherwise the copies in perf's build-id cache (~/.debug/.build-id/xx/rest/elf)
 * and in the debug directories (DIR/.build-id/xx/rest.debug) are tried, and if
 * none matches the DSO resolves nothing (a replaced file must not give names).
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/proc/maps.h"
#include "lib/symbol/symbol_int.h"

static unsigned long hash_str(const char *str)
{
	unsigned long h = 1469598103934665603UL;

	for (; *str; str++)
		h = (h ^ (unsigned char)*str) * 1099511628211UL;
	return h;
}

static void hex(char *out, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

struct dso *dso__get(struct symbolizer *s, const char *name, const char *file, const uint8_t *build_id,
		     size_t build_id_len, bool vdso)
{
	char key[4200];
	struct stat st;
	struct dso *d;
	unsigned long h;

	if (build_id_len > sizeof(d->build_id))
		build_id_len = sizeof(d->build_id);
	/*
	 * perf pads build ids to 20 bytes with zeros: a 16-byte one (ld --build-id=md5)
	 * ends in four zero bytes. A SHA-1 id's last byte is 0 one time in 256: not padding.
	 */
	while (build_id_len > 20 && build_id && !build_id[build_id_len - 1])
		build_id_len--;
	if (build_id_len == 20 && build_id && !build_id[16] && !build_id[17] && !build_id[18] && !build_id[19])
		build_id_len = 16;
	while (build_id_len > 0 && build_id_len != 16 && build_id_len != 20 && build_id && !build_id[build_id_len - 1])
		build_id_len--;
	if (vdso) {	/* another kernel's [vdso] (a recording from elsewhere) is another DSO */
		char hx[2 * sizeof(d->build_id) + 1] = "";

		if (build_id_len)
			hex(hx, build_id, build_id_len);
		snprintf(key, sizeof(key), "[vdso]%s", hx);
	} else if (build_id_len) {
		char hx[2 * sizeof(d->build_id) + 1];

		hex(hx, build_id, build_id_len);
		snprintf(key, sizeof(key), "b:%s", hx);
	} else if (stat(file, &st) == 0) {
		snprintf(key, sizeof(key), "i:%llx:%llx:%lld", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino, (long long)st.st_mtime);
	} else {
		snprintf(key, sizeof(key), "p:%s", file);
	}
	h = hash_str(key) % (sizeof(s->dsos) / sizeof(s->dsos[0]));
	for (d = s->dsos[h]; d; d = d->next)
		if (!strcmp(d->key, key))
			return d;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->name = strdup(name);
	d->file = vdso ? NULL : strdup(file);
	d->key = strdup(key);
	d->memfd = -1;
	if (!d->name || !d->key || (!vdso && !d->file)) {
		free(d->name);
		free(d->file);
		free(d->key);
		free(d);
		return NULL;
	}
	if (build_id_len)
		memcpy(d->build_id, build_id, build_id_len);
	d->build_id_len = build_id_len;
	d->seq = ++s->ndsos;
	d->next = s->dsos[h];
	s->dsos[h] = d;
	return d;
}

/* a copy of this process's [vdso] in a memfd: the kernel gives every 64-bit process the same image */
int dso__vdso_fd(struct symbolizer *s)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long size = 0;
	struct proc_maps *it;
	const struct proc_map *m;
	int fd;

	if (s->vdso_fd != -2)
		return s->vdso_fd;
	s->vdso_fd = -ENOENT;
	if (!base)
		return s->vdso_fd;
	it = proc_maps__open(0);
	if (!it)
		return s->vdso_fd;
	while ((m = proc_maps__next(it)))
		if (!strcmp(m->name, "[vdso]") && m->start == base)
			size = m->end - m->start;
	proc_maps__close(it);
	if (!size)
		return s->vdso_fd;
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0)
		return s->vdso_fd = -errno;
	if (write(fd, (void *)base, size) != (ssize_t)size) {
		close(fd);
		return s->vdso_fd;
	}
	return s->vdso_fd = fd;
}

static bool build_id_matches(struct dso *d)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n;

	if (!d->build_id_len)
		return true;
	n = dwfl_module_build_id(d->mod, &bits, &vaddr);
	return n == (int)d->build_id_len && !memcmp(bits, d->build_id, n);
}

static void unload(struct dso *d)
{
	if (d->dwfl)
		dwfl_end(d->dwfl);
	d->dwfl = NULL;
	d->mod = NULL;
}

/* report the ELF in path (or the [vdso] memfd when path is NULL) in a Dwfl of its own at bias 0 */
static int try_open(struct symbolizer *s, struct dso *d, const char *path)
{
	int fd = -1;

	if (!path) {
		int vfd = dso__vdso_fd(s);

		if (vfd < 0)
			return vfd;
		fd = dup(vfd);
		if (fd < 0)
			return -errno;
	} else if (access(path, R_OK)) {
		return -errno;
	}
	d->dwfl = dwfl_begin(&s->cb);
	if (!d->dwfl) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(d->dwfl);
	d->mod = dwfl_report_elf(d->dwfl, d->name, path ? path : d->name, fd, 0, true);
	dwfl_report_end(d->dwfl, NULL, NULL);
	void **ud;

	if (d->mod && dwfl_module_info(d->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
		*ud = s->cb.debuginfo_path;	/* for debugfile__find_debuginfo */
	if (!d->mod) {
		if (fd >= 0)
			close(fd);
		unload(d);
		return -ENOEXEC;
	}
	if (!build_id_matches(d)) {
		unload(d);
		return -ESTALE;
	}
	return 0;
}

static int load_segments(struct dso *d)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	GElf_Ehdr eh;
	size_t phnum;

	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum))
		return -ENOEXEC;
	d->bias = bias;
	d->exec = eh.e_type == ET_EXEC;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) && !d->symtab;) {
		GElf_Shdr sh;

		d->symtab = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_size;
	}
	d->segs = calloc(phnum ? phnum : 1, sizeof(*d->segs));
	if (!d->segs)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->segs[d->nsegs++] = (struct dso_seg){ ph.p_offset, ph.p_vaddr, ph.p_memsz };
	}
	return 0;
}

struct ranked_sym {
	struct dso_sym s;
	unsigned char bind;
	int idx;
};

static int leading_underscores(const char *name)
{
	int n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/*
 * which of several symbols at one address names it: perf's choice, so that both
 * tools print the same name for aliases (libc has up to eight per function):
 * sized, not weak, global, fewer leading underscores, longer name, first seen
 */
static int ranked_cmp(const void *a, const void *b)
{
	const struct ranked_sym *x = a, *y = b;
	size_t lx, ly;

	if (x->s.start != y->s.start)
		return x->s.start < y->s.start ? -1 : 1;
	if (!x->s.size != !y->s.size)
		return x->s.size ? -1 : 1;
	if ((x->bind == STB_WEAK) != (y->bind == STB_WEAK))
		return x->bind == STB_WEAK ? 1 : -1;
	if ((x->bind == STB_GLOBAL) != (y->bind == STB_GLOBAL))
		return x->bind == STB_GLOBAL ? -1 : 1;
	if (leading_underscores(x->s.name) != leading_underscores(y->s.name))
		return leading_underscores(x->s.name) - leading_underscores(y->s.name);
	lx = strlen(x->s.name);
	ly = strlen(y->s.name);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return x->idx - y->idx;
}

static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh)) {
			const char *n = elf_strptr(elf, shstrndx, sh->sh_name);

			if (n && !strcmp(n, name))
				return scn;
		}
	return NULL;
}

struct plt_rel {
	uint64_t got;		/* r_offset: the GOT slot the stub jumps through */
	const char *name;
};

static int plt_rel_cmp(const void *a, const void *b)
{
	const struct plt_rel *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

/* the GOT slot a 16-byte x86-64 PLT stub jumps through: its "jmp *disp32(%rip)" (ff 25), maybe after endbr64/bnd */
static bool plt_stub_got(const uint8_t *code, uint64_t addr, uint64_t *got)
{
	for (int p = 0; p <= 8; p++)
		if (code[p] == 0xff && code[p + 1] == 0x25) {
			int32_t disp;

			memcpy(&disp, code + p + 2, sizeof(disp));
			*got = addr + p + 6 + (int64_t)disp;
			return true;
		}
	return false;
}

/*
 * "read@plt": the PLT stubs have no symbols; name them after the .rela.plt
 * relocation of the GOT slot each stub jumps through, as objdump does (x86-64:
 * 16-byte stubs in .plt.sec when the binary has one, else in .plt after PLT0;
 * IRELATIVE slots have no symbol and read "*ABS*+0xADDEND@plt")
 */
static int plt_symbols(struct symbolizer *s, struct dso *d, struct ranked_sym **out)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	GElf_Shdr rela_sh, plt_sh, sym_sh;
	Elf_Scn *rela, *plt, *syms;
	Elf_Data *rd, *sd, *pd;
	struct ranked_sym *r = NULL;
	struct plt_rel *rels;
	GElf_Ehdr eh;
	size_t nrel, nstub, first, k = 0;
	int err = 0;

	*out = NULL;
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return 0;
	rela = section(elf, ".rela.plt", &rela_sh);
	plt = section(elf, ".plt.sec", &plt_sh);
	first = 0;
	if (!plt) {
		plt = section(elf, ".plt", &plt_sh);
		first = 1;	/* PLT0 */
	}
	if (!rela || !plt || rela_sh.sh_type != SHT_RELA || !rela_sh.sh_entsize || plt_sh.sh_type != SHT_PROGBITS ||
	    !(rd = elf_getdata(rela, NULL)) || !(pd = elf_getdata(plt, NULL)) || pd->d_size < plt_sh.sh_size)
		return 0;
	syms = elf_getscn(elf, rela_sh.sh_link);
	if (!syms || !gelf_getshdr(syms, &sym_sh) || !(sd = elf_getdata(syms, NULL)))
		return 0;
	nrel = rela_sh.sh_size / rela_sh.sh_entsize;
	nstub = plt_sh.sh_size / 16;
	if (nrel > 1 << 20 || nstub <= first)
		return 0;
	rels = calloc(nrel ? nrel : 1, sizeof(*rels));
	r = calloc(nstub, sizeof(*r));
	if (!rels || !r) {
		free(rels);
		free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nrel && !err; i++) {
		const char *name = NULL;
		char buf[512];
		GElf_Rela rel;
		GElf_Sym sym;

		if (!gelf_getrela(rd, i, &rel))
			break;
		if (GELF_R_SYM(rel.r_info) && gelf_getsym(sd, GELF_R_SYM(rel.r_info), &sym))
			name = elf_strptr(elf, sym_sh.sh_link, sym.st_name);
		if (name && *name)
			snprintf(buf, sizeof(buf), "%s@plt", name);
		else
			snprintf(buf, sizeof(buf), "*ABS*+0x%llx@plt", (unsigned long long)rel.r_addend);
		rels[i] = (struct plt_rel){ rel.r_offset, symbolizer__intern(s, buf) };
		if (!rels[i].name)
			err = -ENOMEM;
	}
	qsort(rels, nrel, sizeof(*rels), plt_rel_cmp);
	for (size_t i = first; i < nstub && !err; i++) {
		uint64_t addr = plt_sh.sh_addr + i * 16, got;
		struct plt_rel key, *hit;

		if (!plt_stub_got((const uint8_t *)pd->d_buf + i * 16, addr, &got))
			continue;
		key.got = got;
		hit = bsearch(&key, rels, nrel, sizeof(*rels), plt_rel_cmp);
		if (!hit)
			continue;
		r[k].s = (struct dso_sym){ .start = addr, .size = 16, .name = hit->name };
		r[k].bind = STB_LOCAL;
		r[k].idx = INT32_MAX;	/* after every real symbol at the same address */
		k++;
	}
	free(rels);
	if (err) {
		free(r);
		return err;
	}
	*out = r;
	return k;
}

/* the function symbols, sorted by address, one per address (see ranked_cmp), and the PLT's */
static int load_symbols(struct symbolizer *s, struct dso *d)
{
	int n = dwfl_module_getsymtab(d->mod);
	struct ranked_sym *tmp, *plt;
	int nplt = plt_symbols(s, d, &plt);
	size_t k = 0, m = 0;

	if (nplt < 0)
		return nplt;
	if (n < 0)
		n = 0;
	if (n + nplt == 0) {
		free(plt);
		return 0;
	}
	tmp = calloc(n + nplt, sizeof(*tmp));
	d->syms = calloc(n + nplt, sizeof(*d->syms));
	if (!tmp || !d->syms) {
		free(tmp);
		free(plt);
		return -ENOMEM;
	}
	for (int i = 0; i < nplt; i++)
		tmp[k++] = plt[i];
	free(plt);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		const char *name = dwfl_module_getsym_info(d->mod, i, &sym, &addr, &shndx, &elf, NULL);
		int t = GELF_ST_TYPE(sym.st_info), b = GELF_ST_BIND(sym.st_info);

		if (!name || !*name || name[0] == '$' || sym.st_shndx == SHN_UNDEF || shndx == SHN_UNDEF)
			continue;
		/* functions, and labels in code (assembly entry points such as ld.so's _dl_start_user) */
		if (t == STT_NOTYPE) {
			GElf_Shdr sh;
			Elf_Scn *scn = elf && shndx != SHN_ABS ? elf_getscn(elf, shndx) : NULL;

			if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || !strncmp(name, ".L", 2))
				continue;
		} else if (t != STT_FUNC && t != STT_GNU_IFUNC) {
			continue;
		}
		tmp[k].s = (struct dso_sym){ .start = addr - d->bias, .size = sym.st_size, .name = name };
		tmp[k].bind = b;
		tmp[k].idx = i;
		k++;
	}
	qsort(tmp, k, sizeof(*tmp), ranked_cmp);
	for (size_t i = 0; i < k; i++)
		if (!m || d->syms[m - 1].start != tmp[i].s.start)
			d->syms[m++] = tmp[i].s;
	free(tmp);
	/* a symbol without a size reaches the next one */
	for (size_t i = 0; i + 1 < m; i++)
		if (!d->syms[i].size)
			d->syms[i].size = d->syms[i + 1].start - d->syms[i].start;
	d->nsyms = m;
	return 0;
}

int dso__load(struct symbolizer *s, struct dso *d)
{
	char hx[2 * sizeof(d->build_id) + 1], path[4300];
	const char *home;
	int err;

	if (d->state)
		return d->state < 0 ? d->state : 0;
	home = getenv("HOME");	/* after the test: once per sample's frame, it was 5% of a report */
	err = try_open(s, d, d->file);
	if (err && !d->file && d->build_id_len) {
		/* not this kernel's [vdso]: perf record keeps a copy of the one it saw */
		hex(hx, d->build_id, d->build_id_len);
		snprintf(path, sizeof(path), "%s/.debug/[vdso]/%s/vdso", home ? home : "/root", hx);
		err = try_open(s, d, path);
		if (!err && !(d->file = strdup(path)))
			err = -ENOMEM;
	}
	if (err && d->file && d->build_id_len) {
		hex(hx, d->build_id, d->build_id_len);
		/* perf's build-id cache keeps the exact file perf record saw */
		snprintf(path, sizeof(path), "%s/.debug/.build-id/%.2s/%s/elf", home ? home : "/root", hx, hx + 2);
		err = try_open(s, d, path);
		/* then the separate debug files: their symbols and segments are the original's */
		const char *dirs = s->debug_path ? s->debug_path : "/usr/lib/debug";
		while (err && *dirs) {
			size_t len = strcspn(dirs, ":");

			if (len && dirs[0] == '/') {
				snprintf(path, sizeof(path), "%.*s/.build-id/%.2s/%s.debug", (int)len, dirs, hx, hx + 2);
				err = try_open(s, d, path);
			}
			dirs += len + (dirs[len] == ':');
		}
		if (!err) {
			free(d->file);
			d->file = strdup(path);
			if (!d->file)
				err = -ENOMEM;
		}
	}
	if (!err)
		err = load_segments(d);
	if (!err)
		err = load_symbols(s, d);
	s->stats.dsos += !err;
	d->state = err ? err : 1;
	if (err)
		unload(d);
	return err;
}

uint64_t dso__vaddr(const struct dso *d, uint64_t off)
{
	for (int i = 0; i < d->nsegs; i++)
		if (off >= d->segs[i].off && off - d->segs[i].off < d->segs[i].memsz)
			return off - d->segs[i].off + d->segs[i].vaddr;
	/* between segments (or none known): keep the offset, shifted like the first segment */
	if (d->nsegs && off >= d->segs[0].off)
		return off - d->segs[0].off + d->segs[0].vaddr;
	return off;
}

/*
 * C++ (and legacy Rust) names as people read them, with the C++ runtime's own
 * demangler when the machine has libstdc++ (loaded on first use; otherwise the
 * names stay mangled); perf demangles by default too
 */
static const char *demangle(struct symbolizer *s, const char *name)
{
	typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);
	static cxa_demangle_fn fn;
	static bool tried;
	const char *shown = NULL;
	char *out;
	int status = -1;

	if ((s->flags & SYM_RAW_NAMES) || strncmp(name, "_Z", 2))
		return name;
	if (!tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		tried = true;
		if (h)
			fn = (cxa_demangle_fn)dlsym(h, "__cxa_demangle");
	}
	out = fn ? fn(name, NULL, NULL, &status) : NULL;
	if (out && !status)
		shown = symbolizer__intern(s, out);
	free(out);
	return shown ? shown : name;
}

static struct dso_sym *find_sym(const struct dso *d, uint64_t vaddr)
{
	size_t lo = sym__upper_bound(d->syms, d->nsyms, sizeof(*d->syms), offsetof(struct dso_sym, start), vaddr);

	if (!lo)
		return NULL;
	struct dso_sym *sym = &d->syms[lo - 1];

	return vaddr - sym->start < (sym->size ? sym->size : 1) ? sym : NULL;
}

static const char *call_file(Dwarf_Die *cu, Dwarf_Die *die, int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx, ln;
	Dwarf_Files *files;
	size_t nfiles;

	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &ln) == 0)
		*line = ln;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &idx) != 0 ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/*
 * The file binutils' addr2line names for a line row, which perf 6.1 shows. In a
 * DWARF 5 line table binutils (2.40) starts each sequence with file 0, the
 * unit's own file, where the standard (and libdw) starts with file 1: the rows
 * of file 1 before the sequence's first DW_LNS_set_file carry file 0's name
 * there (libc_start_call_main.h:58 is libc-start.c:58). libdw keeps a
 * sequence's rows in program order among its rows sorted by address.
 */
static const char *binutils_file(Dwfl_Line *dl, const char *file)
{
	Dwarf_Addr bias, a, ma;
	Dwarf_Line *l = dwfl_dwarf_line(dl, &bias);
	Dwarf_Die *cu = dwfl_linecu(dl);
	Dwarf_Files *files, *pf;
	Dwarf_Lines *lines;
	Dwarf_Half version;
	size_t idx, pidx, n, lo = 0, hi, i;
	const char *f0;

	if (!l || !cu || dwarf_line_file(l, &files, &idx) || idx != 1 ||
	    dwarf_cu_info(cu->cu, &version, NULL, NULL, NULL, NULL, NULL, NULL) || version < 5 ||
	    dwarf_getsrclines(cu, &lines, &n) || dwarf_lineaddr(l, &a))
		return file;
	for (hi = n; lo < hi;) {	/* the first row at l's address, then l itself */
		size_t mid = lo + (hi - lo) / 2;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &ma) || ma < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < n && dwarf_onesrcline(lines, i) != l; i++)
		;
	if (i == n)
		return file;
	while (i-- > 0) {	/* back to the sequence's start: every row of file 1? */
		Dwarf_Line *p = dwarf_onesrcline(lines, i);
		bool end = false;

		if (dwarf_lineendsequence(p, &end) == 0 && end)
			break;
		if (dwarf_line_file(p, &pf, &pidx) || pidx != 1)
			return file;
	}
	f0 = dwarf_filesrc(files, 0, NULL, NULL);
	return f0 ? f0 : file;
}

/* a function's name as DWARF gives it (addr2line -f's answer): its linkage name demangled, else its name */
static const char *function_name(struct symbolizer *s, Dwarf_Die *fn)
{
	Dwarf_Attribute at;
	const char *ln = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_linkage_name, &at));

	if (!ln)
		ln = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_MIPS_linkage_name, &at));
	return ln ? demangle(s, ln) : dwarf_diename(fn);
}

/* frames for vaddr without the cache: inline chain (innermost first) then the function */
static int resolve_uncached(struct symbolizer *s, struct dso *d, uint64_t vaddr, struct sym_frame *f)
{
	struct dso_sym *sym = find_sym(d, vaddr);
	Dwarf_Addr maddr = vaddr + d->bias, dbias;
	const char *file = NULL, *dwname = NULL;
	int n = 0, line = 0;

	if (sym && !sym->shown)
		sym->shown = demangle(s, sym->name);
	if ((s->flags & (SYM_INLINE | SYM_INLINE_UNWOUND | SYM_SRCLINE)) && d->mod) {
		Dwfl_Line *dl = (s->flags & SYM_SRCLINE) ? dwfl_module_getsrc(d->mod, maddr) : NULL;
		Dwarf_Die *cu;

		if (dl)
			file = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL);
		if (file && (s->flags & SYM_BINUTILS_FILES))
			file = binutils_file(dl, file);
		cu = (s->flags & (SYM_INLINE | SYM_INLINE_UNWOUND)) ? dwfl_module_addrdie(d->mod, maddr, &dbias) : NULL;
		if (cu) {
			Dwarf_Die scopes[SYM_MAX_INLINE - 1], fn = { 0 };
			int ns = dwinline__find(d, cu, maddr - dbias, scopes, SYM_MAX_INLINE - 1, &fn);

			if (fn.addr)
				dwname = function_name(s, &fn);

			for (int i = 0; i < ns; i++) {
				/* perf's (binutils') name: the linkage name, demangled, as __GI__IO_doallocbuf */
				f[n] = (struct sym_frame){ .inlined = true,
							   .sym = s->flags & SYM_INLINE_UNWOUND ? function_name(s, &scopes[i])
												: dwarf_diename(&scopes[i]) };
				if (!f[n].sym)
					f[n].sym = "[inlined]";
				/* a function inlined into its own out-of-line copy: perf shows the symbol itself */
				else if (sym && sym->shown && !strcmp(f[n].sym, sym->shown))
					f[n].inlined = false;
				f[n].srcfile = file;
				f[n].srcline = file ? line : 0;
				n++;
				/* the caller's line is where this one was inlined */
				file = call_file(cu, &scopes[i], &line);
				if (!(s->flags & SYM_SRCLINE))
					file = NULL;
			}
		}
	}
	f[n] = (struct sym_frame){ .sym = sym ? sym->shown : NULL, .srcfile = file, .srcline = file ? line : 0 };
	if (sym && dwname && strcmp(dwname, sym->shown))
		f[n].dwname = dwname;
	n++;
	for (int i = 0; i < n; i++) {
		f[i].offset = sym ? vaddr - sym->start : 0;
		f[i].dso = d->name;
		f[i].dso_addr = vaddr;
		f[i].object = d;
	}
	return n;
}

static unsigned long hash_addr(uint64_t a)
{
	return (unsigned long)((a * 0x9e3779b97f4a7c15ULL) >> 17);
}

static int cache_grow(struct dso *d)
{
	size_t cap = d->cache_cap ? d->cache_cap * 2 : 256;
	struct addr_entry *c = calloc(cap, sizeof(*c));

	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < d->cache_cap; i++) {
		struct addr_entry *e = &d->cache[i];

		if (!e->n)
			continue;
		for (size_t j = hash_addr(e->vaddr) & (cap - 1);; j = (j + 1) & (cap - 1))
			if (!c[j].n) {
				c[j] = *e;
				break;
			}
	}
	free(d->cache);
	d->cache = c;
	d->cache_cap = cap;
	return 0;
}

int dso__resolve(struct symbolizer *s, struct dso *d, uint64_t vaddr, const struct sym_frame **frames)
{
	struct sym_frame f[SYM_MAX_INLINE];
	struct addr_entry *e;
	size_t j;
	int n;

	if ((d->cache_used + 1) * 2 > d->cache_cap && cache_grow(d))
		return -ENOMEM;
	for (j = hash_addr(vaddr) & (d->cache_cap - 1); d->cache[j].n; j = (j + 1) & (d->cache_cap - 1))
		if (d->cache[j].vaddr == vaddr) {
			s->stats.cache_hits++;
			*frames = d->cache[j].f;
			return d->cache[j].n;
		}
	n = resolve_uncached(s, d, vaddr, f);
	e = &d->cache[j];
	e->f = malloc(n * sizeof(*f));
	if (!e->f)
		return -ENOMEM;
	memcpy(e->f, f, n * sizeof(*f));
	e->vaddr = vaddr;
	e->n = n;
	d->cache_used++;
	*frames = e->f;
	return n;
}

/*
 * the STT_FILE symbol's name before the local function symbol that holds vaddr in the
 * file's .symtab (binutils' elf_find_function gives it for local functions only, and
 * counts untyped symbols as functions: ld.so's _start, from assembly, is one), or NULL.
 * The name may be empty (an assembly file's): binutils answers ":?", perf ":0".
 */
static const char *symtab_file(struct dso *d, uint64_t vaddr)
{
	const struct dso_sym *fs = find_sym(d, vaddr);
	int n = dwfl_module_getsymtab(d->mod);
	const char *file = NULL;

	if (!fs)
		return NULL;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(d->mod, i, &sym, &addr, &shndx, NULL, NULL);
		int t = GELF_ST_TYPE(sym.st_info);

		if (!name)
			continue;
		if (t == STT_FILE)
			file = name;
		else if ((t == STT_FUNC || t == STT_NOTYPE) && addr - d->bias == fs->start && !strcmp(name, fs->name))
			return GELF_ST_BIND(sym.st_info) == STB_LOCAL ? file : NULL;
	}
	return NULL;
}

/*
 * whether binutils' addr2line names functions here: from a .symtab, the file's own
 * or that of the separate debug file it finds (ld.so's, in libc6-dbg), which is
 * where libdwfl reads the symbols from too
 */
static bool binutils_symtab(struct dso *d)
{
	GElf_Addr bias;
	GElf_Sym sym;
	Elf *elf = NULL, *main_elf = dwfl_module_getelf(d->mod, &bias);

	if (d->symtab)
		return true;
	if (dwfl_module_getsymtab(d->mod) < 2 ||
	    !dwfl_module_getsym_info(d->mod, 1, &sym, &bias, NULL, &elf, NULL) || !elf || elf == main_elf)
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_size)
			return true;
	}
	return false;
}

unsigned symbolizer__dso_seq(const struct sym_frame *f)
{
	return f->object ? f->object->seq : 0;
}

/* whether ELF addresses a and b are in one section of d (true where d has no module to ask) */
static bool same_section(struct dso *d, uint64_t a, uint64_t b)
{
	Dwarf_Addr x = a + d->bias, y = b + d->bias, bias;

	if (!d->mod)
		return true;
	Elf_Scn *sa = dwfl_module_address_section(d->mod, &x, &bias);
	Elf_Scn *sb = dwfl_module_address_section(d->mod, &y, &bias);

	return sa && sa == sb;
}

int symbolizer__srcline_in(struct symbolizer *s, const struct sym_frame *f, uint64_t vaddr,
			   const char **file, int *line)
{
	struct dso *d = f->object;
	Dwfl_Line *dl;
	int err;

	if (!d)
		return -ENOENT;
	err = dso__load(s, d);
	if (err)
		return err;
	dl = d->mod ? dwfl_module_getsrc(d->mod, vaddr + d->bias) : NULL;
	*file = dl ? dwfl_lineinfo(dl, NULL, line, NULL, NULL, NULL) : NULL;
	if (*file && (s->flags & SYM_BINUTILS_FILES))
		*file = binutils_file(dl, *file);
	if (*file)
		return 0;
	/*
	 * no line, but a local function of the .symtab: binutils names the file of the STT_FILE
	 * symbol before it (gcc's crtstuff.c for frame_dummy), "crtstuff.c:?", perf's "crtstuff.c:0"
	 */
	if ((s->flags & SYM_BINUTILS_FILES) && binutils_symtab(d) && (*file = symtab_file(d, vaddr))) {
		*line = 0;
		return 0;
	}
	/*
	 * in the file's code, with no line for it, but in a function of its .symtab: binutils'
	 * addr2line answers "FUNCTION\n??:?"; without .symtab, or in a PLT stub (no symbol there,
	 * "read@plt" is made up), "??\n??:0" as outside the file. binutils looks for the function
	 * in the address's own section: the PLT's first stub is "_init+0x26" to perf and sonde
	 * (a symbol without a size reaches the next one), but _init is in .init
	 */
	const struct dso_sym *sym = binutils_symtab(d) ? find_sym(d, vaddr) : NULL;

	if (sym && !strstr(sym->name, "@plt") && same_section(d, vaddr, sym->start))
		for (int i = 0; i < d->nsegs; i++)
			if (vaddr >= d->segs[i].vaddr && vaddr - d->segs[i].vaddr < d->segs[i].memsz)
				return -ENODATA;
	return -ENOENT;
}

void dso__free_all(struct symbolizer *s)
{
	for (size_t h = 0; h < sizeof(s->dsos) / sizeof(s->dsos[0]); h++) {
		struct dso *d = s->dsos[h], *next;

		for (; d; d = next) {
			next = d->next;
			for (size_t i = 0; i < d->cache_cap; i++)
				free(d->cache[i].f);
			free(d->cache);
			dwinline__free(d->inl);
			unload(d);
			free(d->segs);
			free(d->syms);
			free(d->name);
			free(d->file);
			free(d->key);
			free(d);
		}
		s->dsos[h] = NULL;
	}
}
