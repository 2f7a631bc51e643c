/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbol_int.h - the symbolizer's insides, shared by symbol.c (processes and
 * maps), dso.c (ELF files through libdwfl), kallsyms.c, jitmap.c and unwind.c.
 * Not for commands: they use symbol.h. The symbolizer owns everything here.
 */
#ifndef SONDE_SYMBOL_INT_H
#define SONDE_SYMBOL_INT_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "lib/symbol/symbol.h"

#define SYM_MAX_INLINE 32

/*
 * how many of the n entries at base (each size bytes, sorted by the uint64_t
 * at offset off: a start address) start at or below addr; the entry that may
 * hold addr is the last of them. Every address table here is searched so.
 */
static inline size_t sym__upper_bound(const void *base, size_t n, size_t size, size_t off, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;

		memcpy(&v, (const char *)base + mid * size + off, sizeof(v));
		if (v <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct dso_seg {		/* a PT_LOAD segment: file offsets to ELF vaddrs */
	uint64_t off, vaddr, memsz;
};

struct dso_sym {
	uint64_t start, size;	/* ELF vaddr */
	const char *name;	/* owned by the DSO's Dwfl */
	const char *shown;	/* name demangled (interned), once asked for */
};

struct addr_entry {		/* per-address cache */
	uint64_t vaddr;
	int n;			/* 0: empty slot */
	struct sym_frame *f;
};

struct dso {
	char *name;		/* what callers see: the path as mapped, or "[vdso]" */
	char *file;		/* the file opened (may be a build-id cache copy); NULL for [vdso] */
	char *key;
	uint8_t build_id[32];	/* expected build id, if given */
	size_t build_id_len;
	int memfd;		/* [vdso]: its image, -1 otherwise */
	int state;		/* 0 not loaded yet, 1 loaded, -errno failed */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	uint64_t bias;		/* module address = ELF vaddr + bias */
	bool exec;		/* ET_EXEC: mapped at its vaddrs */
	bool symtab;		/* the file itself has a .symtab (binutils' addr2line names functions only from it) */
	struct dso_seg *segs;
	int nsegs;
	struct dso_sym *syms;
	size_t nsyms;
	struct inline_index *inl;	/* dwinline.c */
	struct addr_entry *cache;
	size_t cache_cap, cache_used;
	struct dso *next;	/* hash chain */
	unsigned seq;		/* 1 for the first DSO made (mapped), 2 for the next... */
};

enum map_kind { MK_FILE, MK_VDSO, MK_ANON, MK_OTHER };

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;	/* MK_FILE, MK_VDSO */
	const char *name;	/* interned: the path or "[heap]", "//anon"... */
	enum map_kind kind;
};

struct jitmap;
struct unwind_state;
struct inline_index;

struct proc {
	pid_t pid;
	struct map *maps;	/* sorted by start, not overlapping */
	size_t n, cap;
	unsigned gen;		/* changes whenever maps change */
	bool live;		/* maps from /proc: may reload them and look under /proc/PID/root */
	double loaded_at;
	int jit_state;		/* 0 not tried, 1 loaded, -errno none */
	struct jitmap *jit;
	double jit_checked_at;	/* live processes: the JIT keeps appending to its map */
	long long jit_size, jit_mtime;
	struct unwind_state *uw;
	struct proc *next;
};

struct kallsyms;
struct ksymcache;

struct file_dso {		/* symbolizer__resolve_file's paths */
	const char *path;	/* interned */
	struct dso *dso;
	struct file_dso *next;
};

struct known_build_id {	/* symbolizer__add_build_id */
	const char *path;	/* interned */
	uint8_t id[32];
	size_t len;
	struct known_build_id *next;
};

#define UNWIND_MAX_STATES 64	/* processes with a libdwfl unwinding state at once (LRU) */

struct symbolizer {
	unsigned flags;
	char *debug_path;
	Dwfl_Callbacks cb;
	struct dso *dsos[1024];
	unsigned ndsos;		/* how many DSOs were made: the next one's seq */
	struct proc *procs[4096];
	struct strtab *names;
	struct kallsyms *kallsyms;
	int kallsyms_state;	/* 0 not tried, 1 kallsyms, 2 ksymcache (kallsyms read when it does not cover), -errno */
	struct ksymcache *ksymcache;
	int full_state;		/* with the cache: 0 kallsyms not read yet, 1 read, -errno */
	/* KSYMBOL records of the recording (BPF programs): they name kernel code kallsyms may no longer have */
	struct rec_ksym {
		uint64_t addr;
		uint32_t len;
		char *name;
	} *ksyms;
	size_t nksyms;
	char *kallsyms_path;	/* symbolizer__set_kallsyms */
	int vdso_fd;		/* -2: not tried */
	struct file_dso *files;
	struct known_build_id *build_ids;
	char *root;
	int nr_unwind;		/* unwinding states alive */
	unsigned long unwind_tick;
	struct symbolizer_stats stats;
};

/* dso.c */
struct dso *dso__get(struct symbolizer *s, const char *name, const char *file, const uint8_t *build_id,
		     size_t build_id_len, bool vdso);
int dso__load(struct symbolizer *s, struct dso *d);
uint64_t dso__vaddr(const struct dso *d, uint64_t file_off);
/* the frames of vaddr in a loaded DSO, cached; returns how many (>= 1) */
int dso__resolve(struct symbolizer *s, struct dso *d, uint64_t vaddr, const struct sym_frame **frames);
void dso__free_all(struct symbolizer *s);
int dso__vdso_fd(struct symbolizer *s);

/*
 * dwinline.c: the inlined_subroutine DIEs covering addr (CU-relative), innermost first (how many);
 * *func (when not NULL) gets the DIE of the function covering addr when there is one, else is left alone
 */
int dwinline__find(struct dso *d, Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out, int max, Dwarf_Die *func);
void dwinline__free(struct inline_index *ix);

/* kallsyms.c */
struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* "[kernel.kallsyms]" or "[ext4]" */
};
int kallsyms__load(struct kallsyms **out, const char *path);
/* only the symbols of the modules want (NULL: all) says yes to ("[kernel.kallsyms]", "[bpf]"); none is no error */
int kallsyms__load_some(struct kallsyms **out, const char *path, bool (*want)(const char *module, void *arg),
			void *arg);
const struct ksym *kallsyms__find(const struct kallsyms *k, uint64_t addr);
/* the last symbol at or before addr, named or not (see kallsyms__names), or NULL */
const struct ksym *kallsyms__nearest(const struct kallsyms *k, uint64_t addr);
bool kallsyms__names(const struct ksym *s, uint64_t addr);
/* every symbol, sorted by address: k's array, valid until kallsyms__free */
const struct ksym *kallsyms__syms(const struct kallsyms *k, size_t *n);
void kallsyms__free(struct kallsyms *k);
int kallsyms__running_build_id(uint8_t *out, size_t max);

/*
 * ksymcache.c: the kernel's and modules' symbols of this boot, cached between
 * runs. env: where things are, for tests (NULL: the real ones).
 */
struct ksymcache;
struct ksymcache_env {
	const char *dir;	/* the cache's directory; default $XDG_CACHE_HOME/sonde or ~/.cache/sonde */
	const char *kallsyms;	/* /proc/kallsyms */
	const char *modules;	/* /proc/modules; $SONDE_TEST_KSYMCACHE_MODULES */
	const char *boot_id;	/* /proc/sys/kernel/random/boot_id; $SONDE_TEST_KSYMCACHE_BOOT_ID */
	const char *release;	/* uname's */
};
bool ksymcache__disabled(void);	/* $SONDE_NO_KSYMCACHE */
/* the valid cache for the running kernel, mapped; -errno when there is none (or it is bad) */
int ksymcache__open(struct ksymcache **out, const struct ksymcache_env *env);
/* saves the part of a full table (kallsyms__syms) that stays for the boot */
int ksymcache__save(const struct ksym *syms, size_t n, const struct ksymcache_env *env);
/*
 * 1: *out names addr, 0: nothing does, -ENOENT: not covered, ask the full table;
 * out's strings are the cache's, valid until ksymcache__close
 */
int ksymcache__find(const struct ksymcache *c, uint64_t addr, struct ksym *out);
/*
 * what the cache leaves out, read from path (/proc/kallsyms): the symbols of BPF programs,
 * trampolines, modules loaded since; none is no error
 */
int ksymcache__load_others(const struct ksymcache *c, const char *path, struct kallsyms **out);
/*
 * addr's symbol as the full table (the cache's and others, from ksymcache__load_others)
 * names it, covered or not: kallsyms__find's answer, in *buf or others; NULL for none
 */
const struct ksym *ksymcache__find_full(const struct ksymcache *c, const struct kallsyms *others, uint64_t addr,
					struct ksym *buf);
void ksymcache__close(struct ksymcache *c);
/* the file's checks (0 or -errno), for a buffer of size bytes; its size and checksum set */
int ksymcache__check(const void *buf, size_t size, const char *key, size_t keylen);
void ksymcache__seal(void *buf, size_t size);
uint64_t ksymcache__sum(const void *buf, size_t n);

/* jitmap.c: /tmp/perf-PID.map, "START SIZE name" in hex */
struct jit_sym {
	uint64_t start, size;
	const char *name;
};
int jitmap__load(struct jitmap **out, const char *path);
const struct jit_sym *jitmap__find(const struct jitmap *j, uint64_t addr);
const char *jitmap__path(const struct jitmap *j);
void jitmap__free(struct jitmap *j);

/* symbol.c */
struct proc *symbolizer__proc(struct symbolizer *s, pid_t pid, bool create);

/* unwind.c */
void unwind__free_state(struct unwind_state *u);

#endif
