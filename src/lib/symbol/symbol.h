/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbol.h - the one symbolizer every command uses: addresses of processes (as a
 * recording saw their memory maps, or live from /proc/PID/maps) and of the kernel
 * to function names, DSOs, inlined frames and source lines.
 *
 * Built on elfutils: ELF .symtab/.dynsym (and "name@plt" for PLT stubs), separate
 * debug info by build id and by .gnu_debuglink, MiniDebugInfo (.gnu_debugdata),
 * DWARF for inline chains and lines; /proc/kallsyms for the kernel;
 * /tmp/perf-PID.map for JITs (inside containers too); [vdso]. Names are the ones
 * perf picks among aliases, C++ demangled. A file whose build id is not the
 * recorded one gives no names rather than wrong ones. Each ELF file is loaded
 * once and shared by every process that maps it, and every resolved address is
 * cached per DSO. pid is always the process (tgid): its threads share its maps.
 *
 * The symbolizer owns every string it returns; they stay valid until
 * symbolizer__free(). Errors are -errno; nothing is printed. One symbolizer
 * is for one thread at a time.
 */
#ifndef SONDE_SYMBOL_H
#define SONDE_SYMBOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct symbolizer;
struct dso;

enum {
	SYM_INLINE = 1,		/* expand inlined frames (DWARF) */
	SYM_SRCLINE = 2,	/* fill srcfile/srcline (DWARF) */
	SYM_RAW_NAMES = 4,	/* keep C++/Rust names mangled (perf --no-demangle); demangled by default */
	SYM_INLINE_UNWOUND = 8,	/* session.c: expand the inlined frames of user frames unwound with DWARF only,
				   and name their functions after DWARF (perf 6.1's report and script; with it
				   the symbolizer works as with SYM_INLINE) */
	SYM_BINUTILS_FILES = 16,	/* source files named as binutils' addr2line names them (perf runs it):
					   see dso.c's binutils_file() */
};

struct symbolizer *symbolizer__new(unsigned flags);
void symbolizer__free(struct symbolizer *s);

/*
 * Where separate debug files are looked for: a colon-separated list as
 * elfutils takes it (default ":.debug:/usr/lib/debug": beside the file, in
 * its .debug/ subdirectory, then under /usr/lib/debug by build id and path).
 * The string is copied. Call before resolving anything.
 */
int symbolizer__set_debug_path(struct symbolizer *s, const char *path);

/*
 * Look for every file under dir first, as perf report --symfs does: a copy of the
 * recorded machine's files (and, unless symbolizer__set_debug_path said otherwise,
 * their debug files under dir/usr/lib/debug). The string is copied. Call before
 * adding maps.
 */
int symbolizer__set_root(struct symbolizer *s, const char *dir);

/*
 * the build id a recording's header (perf.data HEADER_BUILD_ID) gives for path: later
 * symbolizer__add_mmap calls for path that carry no build id of their own check this one,
 * so that a file rebuilt since the recording gives no names rather than wrong ones
 */
int symbolizer__add_build_id(struct symbolizer *s, const char *path, const uint8_t *build_id, size_t len);

/*
 * kernel symbols from a copy of the recorded machine's /proc/kallsyms (perf report --kallsyms)
 * instead of this machine's. Without it, a recording whose "[kernel.kallsyms]" build id
 * (symbolizer__add_build_id) is not the running kernel's gets no kernel names.
 */
int symbolizer__set_kallsyms(struct symbolizer *s, const char *path);

/* a process's memory map as a recording saw it (PERF_RECORD_MMAP/MMAP2); build_id may be NULL */
int symbolizer__add_mmap(struct symbolizer *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
			 const char *path, const uint8_t *build_id, size_t build_id_len);
int symbolizer__fork(struct symbolizer *s, pid_t parent, pid_t child);	/* child gets a copy of parent's maps */
/* a recording's KSYMBOL (a BPF program's JIT code): kernel addresses in it are named so; 0 or -ENOMEM */
int symbolizer__add_ksymbol(struct symbolizer *s, uint64_t addr, uint32_t len, const char *name);
void symbolizer__exec(struct symbolizer *s, pid_t pid);			/* an exec drops the old maps */
void symbolizer__exit(struct symbolizer *s, pid_t pid);			/* forget a process (PERF_RECORD_EXIT) */
int symbolizer__load_proc_maps(struct symbolizer *s, pid_t pid);	/* live processes: /proc/PID/maps */

struct sym_frame {
	const char *sym;	/* "main"; NULL when unresolved (callers print "[unknown]") */
	uint64_t offset;	/* addr - symbol start (of the real function, also for inlined frames) */
	const char *dso;	/* "/usr/bin/ls", "[kernel.kallsyms]", "[vdso]", or NULL when unknown */
	uint64_t dso_addr;	/* addr relative to the DSO's load: the ELF virtual address (what addr2line -e DSO takes);
				   the address itself for the kernel and JIT code */
	const char *srcfile;	/* with SYM_SRCLINE, else NULL */
	int srcline;
	bool inlined;		/* a frame inlined into the next one (SYM_INLINE) */
	const char *dwname;	/* SYM_INLINE, the function's own frame: its name in DWARF where that is not
				   the symbol's (an alias: __libc_start_main_impl of __libc_start_main), else NULL */
	struct dso *object;	/* the ELF file mapped there (opaque, for symbolizer__srcline_in); NULL for the
				   kernel, JIT code and maps of no file */
};

/*
 * resolve addr of pid (a kernel address when kernel is true); writes up to max frames (the inline chain,
 * innermost first, then the real function) and returns how many (>= 1), or -errno (-EINVAL if max < 1).
 * An address nothing knows still gives one frame, with sym (and maybe dso) NULL.
 */
int symbolizer__resolve(struct symbolizer *s, pid_t pid, uint64_t addr, bool kernel,
			struct sym_frame *out, int max);

/*
 * resolve vaddr, an ELF virtual address of the file at path (what addr2line -e takes), with no
 * process involved; same frames and return values as symbolizer__resolve (-ENOENT, -ENOEXEC when
 * the file cannot be read as ELF)
 */
int symbolizer__resolve_file(struct symbolizer *s, const char *path, uint64_t vaddr,
			     struct sym_frame *out, int max);

/*
 * when the DSO of frame f (f->object) was made, counting from 1: the order in which the
 * symbolizer first saw the files mapped (perf orders DSOs so); 0 when f has no file
 */
unsigned symbolizer__dso_seq(const struct sym_frame *f);

/*
 * the source line of vaddr, an ELF virtual address of the file frame f was found in (f->object),
 * as `addr2line -e FILE vaddr` answers, whatever the flags: 0 with *file (the full path, owned by
 * the symbolizer) and *line; -ENODATA when vaddr is in the file's loaded segments, which has a
 * .symtab but no line for vaddr (binutils' addr2line answers "??:?"); -ENOENT otherwise: f has no
 * file, vaddr is outside it, or no .symtab (addr2line's "??:0"); another -errno when the file
 * cannot be read
 */
int symbolizer__srcline_in(struct symbolizer *s, const struct sym_frame *f, uint64_t vaddr,
			   const char **file, int *line);

/* a copy of str the symbolizer owns as long as it lives (names its callers make); NULL: no memory */
const char *symbolizer__intern(struct symbolizer *s, const char *str);

/* counters for tests and benchmarks */
struct symbolizer_stats {
	unsigned long dsos;		/* ELF files loaded */
	unsigned long lookups;		/* symbolizer__resolve calls */
	unsigned long cache_hits;	/* answered from the per-address cache */
};
void symbolizer__stats(const struct symbolizer *s, struct symbolizer_stats *st);

#endif
