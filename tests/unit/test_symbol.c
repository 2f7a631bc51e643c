// SPDX-License-Identifier: GPL-2.0
/*
 * test_symbol.c - the symbolizer on real ELF files: this test binary and libc
 * (live maps), symchain built as PIE / non-PIE / shared library / stripped with
 * a debuglink, a build-id debug file or MiniDebugInfo, a replaced file whose
 * build id no longer matches, inline frames and source lines, [vdso],
 * /proc/kallsyms and JIT maps, and the map bookkeeping (pgoff, fork, exec,
 * overlapping mmaps).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "lib/ltrace/plt.h"
#include "lib/symbol/symbol.h"
#include "lib/symbol/symbol_int.h"
#include "test_symbol_util.h"
#include "unit.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && !strcmp(s + a - b, suffix);
}

/* the line of the first source line of symchain.c containing pattern, plus delta */
static int src_line(const char *pattern, int delta)
{
	char path[4200], line[512];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/tests/workloads/symchain.c", st_root());
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, pattern)) {
			fclose(f);
			return n + delta;
		}
	}
	fclose(f);
	return -1;
}

TEST(symbol_self_and_libc)
{
	struct symbolizer *s = symbolizer__new(0);
	struct sym_frame f[4];

	CHECK(s);
	CHECK_INT(symbolizer__load_proc_maps(s, getpid()), 0);
	CHECK_INT(symbolizer__resolve(s, getpid(), (uintptr_t)symbolizer__new, false, f, 4), 1);
	CHECK_STR(f[0].sym, "symbolizer__new");
	CHECK_INT(f[0].offset, 0);
	CHECK(strstr(f[0].dso, "unit-tests") || strstr(f[0].dso, "symut"));
	CHECK_INT(symbolizer__resolve(s, getpid(), (uintptr_t)symbolizer__new + 5, false, f, 4), 1);
	CHECK_STR(f[0].sym, "symbolizer__new");
	CHECK_INT(f[0].offset, 5);
	/* libc: names from its .dynsym, or from libc6-dbg by build id when installed */
	CHECK_INT(symbolizer__resolve(s, getpid(), (uintptr_t)getpid + 2, false, f, 4), 1);
	CHECK(f[0].sym && strstr(f[0].sym, "getpid"));
	CHECK_INT(f[0].offset, 2);
	CHECK(strstr(f[0].dso, "libc.so"));
	/* the second time comes from the cache, same answer */
	struct symbolizer_stats st;

	CHECK_INT(symbolizer__resolve(s, getpid(), (uintptr_t)getpid + 2, false, f, 4), 1);
	CHECK(f[0].sym && strstr(f[0].sym, "getpid"));
	symbolizer__stats(s, &st);
	CHECK(st.cache_hits >= 1);
	CHECK(st.dsos >= 2);
	symbolizer__free(s);
}

TEST(symbol_unknown)
{
	struct symbolizer *s = symbolizer__new(SYM_INLINE | SYM_SRCLINE);
	struct sym_frame f[2];

	CHECK(s);
	CHECK_INT(symbolizer__resolve(s, getpid(), 0x10, false, f, 2), 1);	/* no maps known */
	CHECK(!f[0].sym);
	CHECK(!f[0].dso);
	CHECK_INT(symbolizer__load_proc_maps(s, getpid()), 0);
	CHECK_INT(symbolizer__resolve(s, getpid(), 0x10, false, f, 2), 1);
	CHECK(!f[0].sym);
	CHECK(!f[0].dso);
	CHECK_INT(symbolizer__resolve(s, getpid(), 0x10, false, f, 0), -EINVAL);
	CHECK_INT(symbolizer__add_mmap(s, 7, 0x1000, 0x1000, 0, "/nonexistent/lib.so", NULL, 0), 0);
	CHECK_INT(symbolizer__resolve(s, 7, 0x1800, false, f, 2), 1);
	CHECK(!f[0].sym);
	CHECK_STR(f[0].dso, "/nonexistent/lib.so");
	CHECK_INT(f[0].dso_addr, 0x800);
	symbolizer__free(s);
}

/* the exec mapping of this test binary in /proc/self/maps */
static int self_text(uint64_t *start, uint64_t *end, uint64_t *pgoff, char *path, size_t len)
{
	char line[4400], self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *f = fopen("/proc/self/maps", "r");
	int found = -1;

	if (n <= 0 || !f) {
		if (f)
			fclose(f);
		return -1;
	}
	self[n] = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, o;
		char perms[8], p[4096] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &a, &b, perms, &o, p) == 5 &&
		    strchr(perms, 'x') && !strcmp(p, self)) {
			*start = a, *end = b, *pgoff = o;
			snprintf(path, len, "%s", p);
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

TEST(symbol_maps_pgoff_fork_exec_overlap)
{
	struct symbolizer *s = symbolizer__new(0);
	uint64_t start, end, pgoff, fn = (uintptr_t)symbolizer__resolve;
	const uint64_t base = 0x10000000;
	struct sym_frame f[2];
	char path[4096];

	CHECK(s);
	CHECK_INT(self_text(&start, &end, &pgoff, path, sizeof(path)), 0);
	CHECK(fn >= start && fn < end);
	/* the same file mapped elsewhere: pgoff and the PT_LOADs give the same symbol */
	CHECK_INT(symbolizer__add_mmap(s, 100, base, end - start, pgoff, path, NULL, 0), 0);
	CHECK_INT(symbolizer__resolve(s, 100, base + (fn - start) + 3, false, f, 2), 1);
	CHECK_STR(f[0].sym, "symbolizer__resolve");
	CHECK_INT(f[0].offset, 3);
	/* the child of a fork sees the same */
	CHECK_INT(symbolizer__fork(s, 100, 101), 0);
	CHECK_INT(symbolizer__resolve(s, 101, base + (fn - start), false, f, 2), 1);
	CHECK_STR(f[0].sym, "symbolizer__resolve");
	CHECK_INT(symbolizer__fork(s, 555, 556), -ESRCH);
	/* an anonymous mmap over the page of the function: that page is gone, the rest stays */
	uint64_t page = (base + (fn - start)) & ~0xfffULL;

	CHECK_INT(symbolizer__add_mmap(s, 101, page, 0x1000, 0, "//anon", NULL, 0), 0);
	CHECK_INT(symbolizer__resolve(s, 101, base + (fn - start), false, f, 2), 1);
	CHECK(!f[0].sym);
	CHECK_STR(f[0].dso, "//anon");
	CHECK_INT(symbolizer__resolve(s, 100, base + (fn - start), false, f, 2), 1);	/* not the parent's */
	CHECK_STR(f[0].sym, "symbolizer__resolve");
	uint64_t fn2 = (uintptr_t)symbolizer__new;

	if ((fn2 & ~0xfffULL) != (fn & ~0xfffULL)) {	/* a function on another page still resolves */
		CHECK_INT(symbolizer__resolve(s, 101, base + (fn2 - start), false, f, 2), 1);
		CHECK_STR(f[0].sym, "symbolizer__new");
	}
	/* exec drops every map */
	symbolizer__exec(s, 100);
	CHECK_INT(symbolizer__resolve(s, 100, base + (fn - start), false, f, 2), 1);
	CHECK(!f[0].sym);
	symbolizer__exit(s, 101);
	CHECK_INT(symbolizer__resolve(s, 101, base + (fn2 - start), false, f, 2), 1);
	CHECK(!f[0].sym);
	symbolizer__free(s);
}

/* run DIR/NAME and check every function it prints resolves to its name, in dso_suffix */
static void check_variant(const char *kind, const char *dso_suffix, bool lib, bool expect_names)
{
	struct symbolizer *s = symbolizer__new(0);
	char *dir = st_tmpdir(), path[4200];
	struct st_child c;
	struct sym_frame f[2];

	CHECK(s && dir);
	CHECK_INT(st_build(dir, "symchain", kind), 0);
	snprintf(path, sizeof(path), "%s/symchain", dir);
	CHECK_INT(st_spawn(&c, path, "10"), 0);
	CHECK_INT(c.nfn, 4);
	if (!strcmp(kind, "buildid")) {
		snprintf(path, sizeof(path), "%s/dbg", dir);
		CHECK_INT(symbolizer__set_debug_path(s, path), 0);
	}
	int err = symbolizer__load_proc_maps(s, c.pid);

	for (int i = 0; !err && i < c.nfn; i++) {
		const char *want = lib && !strcmp(c.fn[i].name, "main") ? "symchain_main" : c.fn[i].name;
		int n = symbolizer__resolve(s, c.pid, c.fn[i].addr + 1, false, f, 2);

		if (n != 1 || (expect_names ? !f[0].sym || strcmp(f[0].sym, want) || f[0].offset != 1 : !!f[0].sym) ||
		    !ends_with(f[0].dso, dso_suffix)) {
			unit__fail(__FILE__, __LINE__, "%s: %s resolved to %s+%llu in %s", kind, want,
				   f[0].sym ? f[0].sym : "(null)", (unsigned long long)f[0].offset,
				   f[0].dso ? f[0].dso : "(null)");
			break;
		}
	}
	st_reap(&c);
	st_rmdir(dir);
	symbolizer__free(s);
	CHECK_INT(err, 0);
}

TEST(symbol_pie)
{
	check_variant("pie", "/symchain", false, true);
}

TEST(symbol_nopie)
{
	check_variant("nopie", "/symchain", false, true);
}

TEST(symbol_shared_library)
{
	check_variant("lib", "/libsymchain.so", true, true);
}

TEST(symbol_debuglink)
{
	check_variant("debuglink", "/symchain", false, true);
}

TEST(symbol_buildid_debug_dir)
{
	check_variant("buildid", "/symchain", false, true);
}

TEST(symbol_minidebuginfo)
{
	check_variant("minidebug", "/symchain", false, true);
}

TEST(symbol_stripped_gives_no_names)
{
	/* the control for the three above: without the debug info, no names (and no wrong ones) */
	check_variant("stripped", "/symchain", false, false);
}

static int read_build_id(const char *path, uint8_t *id)
{
	char cmd[4300], hexid[128] = "";
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n 's/.*Build ID: //p'", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (!fgets(hexid, sizeof(hexid), p))
		hexid[0] = 0;
	pclose(p);
	for (; n < 32 && sscanf(hexid + 2 * n, "%2hhx", &id[n]) == 1; n++)
		;
	return n;
}

static void test_buildid_mismatch_in(const char *dir);

TEST(symbol_buildid_mismatch)
{
	char *dir = st_tmpdir();

	CHECK(dir);
	/* perf's build-id cache in $HOME/.debug may hold this very build (another test ran perf record on it) */
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

	setenv("HOME", dir, 1);
	test_buildid_mismatch_in(dir);
	if (home)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	free(home);
	st_rmdir(dir);
}

static void test_buildid_mismatch_in(const char *dir)
{
	char path[4200], line[4400], maps[64];
	uint8_t id[32], other[32];
	uint64_t start = 0, len = 0, pgoff = 0, chain_b;
	struct sym_frame f[2];
	struct st_child c;
	int idlen;
	FILE *m;

	CHECK_INT(st_build(dir, "symchain", "buildid"), 0);
	snprintf(path, sizeof(path), "%s/symchain", dir);
	idlen = read_build_id(path, id);
	CHECK_INT(idlen, 20);
	/* record its map the way a recording would, then replace the file on disk */
	CHECK_INT(st_spawn(&c, path, "10"), 0);
	chain_b = st_addr(&c, "chain_b");
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)c.pid);
	m = fopen(maps, "r");
	while (m && fgets(line, sizeof(line), m)) {
		unsigned long long a, b, o;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s %llx", &a, &b, perms, &o) == 4 && strchr(perms, 'x') &&
		    strstr(line, path) && chain_b >= a && chain_b < b)
			start = a, len = b - a, pgoff = o;
	}
	if (m)
		fclose(m);
	st_reap(&c);
	CHECK(len);
	CHECK_INT(st_sh("cd %s && mv symchain saved && gcc -O0 -g -DREPLACED -o symchain %s/tests/workloads/symchain.c",
			dir, st_root()), 0);
	CHECK_INT(read_build_id(path, other), 20);
	CHECK(memcmp(id, other, 20));

	/* with the recorded build id and nowhere to find that file: no names at all */
	struct symbolizer *s = symbolizer__new(0);

	CHECK(s);
	CHECK_INT(symbolizer__add_mmap(s, 200, start, len, pgoff, path, id, 20), 0);
	CHECK_INT(symbolizer__resolve(s, 200, chain_b, false, f, 2), 1);
	CHECK(!f[0].sym);
	CHECK_STR(f[0].dso, path);
	symbolizer__free(s);

	/* the debug file of the original, found by build id, gives the right names */
	s = symbolizer__new(0);
	CHECK(s);
	snprintf(line, sizeof(line), "%s/dbg", dir);
	CHECK_INT(symbolizer__set_debug_path(s, line), 0);
	CHECK_INT(symbolizer__add_mmap(s, 200, start, len, pgoff, path, id, 20), 0);
	CHECK_INT(symbolizer__resolve(s, 200, chain_b, false, f, 2), 1);
	CHECK_STR(f[0].sym, "chain_b");
	CHECK_STR(f[0].dso, path);
	/* and the current file with its own build id is another DSO */
	CHECK_INT(symbolizer__add_mmap(s, 201, start, len, pgoff, path, other, 20), 0);
	CHECK_INT(symbolizer__resolve(s, 201, chain_b, false, f, 2), 1);
	CHECK(!f[0].sym || strcmp(f[0].sym, "chain_b") || f[0].offset);
	symbolizer__free(s);

	/* a map recorded as "PATH (deleted)" is looked up at PATH: with the build id, the original's debug file */
	s = symbolizer__new(0);
	CHECK(s);
	snprintf(line, sizeof(line), "%s/dbg", dir);
	CHECK_INT(symbolizer__set_debug_path(s, line), 0);
	snprintf(line, sizeof(line), "%s (deleted)", path);
	CHECK_INT(symbolizer__add_mmap(s, 204, start, len, pgoff, line, id, 20), 0);
	CHECK_INT(symbolizer__resolve(s, 204, chain_b, false, f, 2), 1);
	CHECK_STR(f[0].sym, "chain_b");
	CHECK_STR(f[0].dso, path);
	symbolizer__free(s);

	/* the build id from a recording's header applies to maps that carry none */
	s = symbolizer__new(0);
	CHECK(s);
	CHECK_INT(symbolizer__add_build_id(s, path, id, 20), 0);
	CHECK_INT(symbolizer__add_mmap(s, 202, start, len, pgoff, path, NULL, 0), 0);
	CHECK_INT(symbolizer__resolve(s, 202, chain_b, false, f, 2), 1);
	CHECK(!f[0].sym);
	symbolizer__free(s);

	/* a copy of the recorded machine's files under a root directory (perf --symfs) */
	s = symbolizer__new(0);
	CHECK(s);
	CHECK_INT(st_sh("cd %s && mkdir -p root%s root/usr/lib/debug && cp saved root%s/symchain && "
			"cp -r dbg/.build-id root/usr/lib/debug/", dir, dir, dir), 0);
	snprintf(line, sizeof(line), "%s/root", dir);
	CHECK_INT(symbolizer__set_root(s, line), 0);
	CHECK_INT(symbolizer__add_mmap(s, 203, start, len, pgoff, path, id, 20), 0);
	CHECK_INT(symbolizer__resolve(s, 203, chain_b, false, f, 2), 1);
	CHECK_STR(f[0].sym, "chain_b");
	CHECK_STR(f[0].dso, path);
	symbolizer__free(s);
}

TEST(symbol_inline_and_srcline)
{
	struct symbolizer *s = symbolizer__new(SYM_INLINE | SYM_SRCLINE);
	char *dir = st_tmpdir(), path[4200];
	int spin_line = src_line("SPIN_LINE", 0), call_line = src_line("x = spin_inline(x);", 0);
	int entry_line = src_line("void chain_c(void)", 1);
	struct sym_frame f[8];
	struct st_child c;
	bool seen = false;

	CHECK(s && dir && spin_line > 0 && call_line > 0);
	CHECK_INT(st_build(dir, "symchain", "pie"), 0);
	snprintf(path, sizeof(path), "%s/symchain", dir);
	CHECK_INT(st_spawn(&c, path, "10"), 0);
	CHECK_INT(symbolizer__load_proc_maps(s, c.pid), 0);
	uint64_t fn = st_addr(&c, "chain_c");
	int n = symbolizer__resolve(s, c.pid, fn, false, f, 8);

	CHECK_INT(n, 1);
	CHECK_STR(f[0].sym, "chain_c");
	CHECK(ends_with(f[0].srcfile, "/symchain.c"));
	CHECK_INT(f[0].srcline, entry_line);
	/* somewhere in chain_c is the inlined loop: spin_inline at SPIN_LINE, called from chain_c at call_line */
	for (uint64_t a = fn; a < fn + 256 && !seen; a++) {
		n = symbolizer__resolve(s, c.pid, a, false, f, 8);
		if (n == 2 && f[0].inlined && !strcmp(f[0].sym, "spin_inline") && f[0].srcline == spin_line) {
			CHECK_STR(f[1].sym, "chain_c");
			CHECK(!f[1].inlined);
			CHECK_INT(f[1].srcline, call_line);
			CHECK(ends_with(f[1].srcfile, "/symchain.c"));
			CHECK_INT(f[1].offset, a - fn);
			/* room for one frame only: the real function */
			CHECK_INT(symbolizer__resolve(s, c.pid, a, false, f, 1), 1);
			CHECK_STR(f[0].sym, "chain_c");
			seen = true;
		}
	}
	st_reap(&c);
	st_rmdir(dir);
	symbolizer__free(s);
	CHECK(seen);
}

TEST(symbol_vdso)
{
	struct symbolizer *s = symbolizer__new(0);
	uint64_t base = getauxval(AT_SYSINFO_EHDR);
	struct sym_frame f[2];
	bool seen = false;

	CHECK(s);
	CHECK(base);
	CHECK_INT(symbolizer__load_proc_maps(s, getpid()), 0);
	for (uint64_t a = base; a < base + 0x2000 && !seen; a += 4) {
		CHECK_INT(symbolizer__resolve(s, getpid(), a, false, f, 2), 1);
		CHECK_STR(f[0].dso, "[vdso]");
		seen = f[0].sym && strstr(f[0].sym, "clock_gettime");
	}
	symbolizer__free(s);
	CHECK(seen);

	/* a recording's [vdso] with another build id (another kernel's): no names from ours */
	static const uint8_t other[20] = { 1, 2, 3 };

	s = symbolizer__new(0);
	CHECK(s);
	CHECK_INT(symbolizer__add_build_id(s, "[vdso]", other, sizeof(other)), 0);
	CHECK_INT(symbolizer__add_mmap(s, 300, base, 0x2000, 0, "[vdso]", NULL, 0), 0);
	for (uint64_t a = base; a < base + 0x2000; a += 4) {
		CHECK_INT(symbolizer__resolve(s, 300, a, false, f, 2), 1);
		CHECK(!f[0].sym);
		CHECK_STR(f[0].dso, "[vdso]");
	}
	symbolizer__free(s);
}

TEST(symbol_kallsyms)
{
	struct symbolizer *s = symbolizer__new(0);
	unsigned long long addr = 0, maddr = 0;
	char line[512], name[256], mod[256] = "", modsym[256] = "";
	struct sym_frame f[2];
	FILE *k = fopen("/proc/kallsyms", "r");

	CHECK(s && k);
	while (fgets(line, sizeof(line), k)) {
		unsigned long long a;
		char t;
		int n = sscanf(line, "%llx %c %255s [%255[^]]]", &a, &t, name, mod);

		if (n == 3 && !addr && t == 'T' && !strcmp(name, "schedule"))
			addr = a;
		/* a module's, not a BPF program's ([bpf]) nor a trampoline's ([__builtin__ftrace]):
		 * those come and go while the test runs (another tracer's programs) */
		if (n == 4 && !maddr && (t == 't' || t == 'T') && strcmp(mod, "bpf") &&
		    strncmp(mod, "__builtin", 9)) {
			maddr = a;
			snprintf(modsym, sizeof(modsym), "%s [%s]", name, mod);
		}
	}
	fclose(k);
	if (!addr) {	/* kptr_restrict: every address reads 0 */
		CHECK_INT(symbolizer__resolve(s, 0, 0xffffffff81000000ULL, true, f, 2), 1);
		CHECK(!f[0].sym);
		symbolizer__free(s);
		return;
	}
	CHECK_INT(symbolizer__resolve(s, -1, addr + 7, true, f, 2), 1);
	CHECK_STR(f[0].sym, "schedule");
	CHECK_INT(f[0].offset, 7);
	CHECK_STR(f[0].dso, "[kernel.kallsyms]");
	CHECK_INT(f[0].dso_addr, addr + 7);
	if (maddr) {	/* a module's symbol shows the module as its DSO, as perf does */
		char got[600];

		CHECK_INT(symbolizer__resolve(s, -1, maddr, true, f, 2), 1);
		snprintf(got, sizeof(got), "%s %s", f[0].sym, f[0].dso);
		/* another symbol may share the address: check the module only then */
		CHECK(!strcmp(got, modsym) || strstr(modsym, f[0].dso));
	}
	symbolizer__free(s);
}

TEST(symbol_kernel_of_another_machine)
{
	static const uint8_t wrong[20] = { 0xde, 0xad };
	struct symbolizer *s = symbolizer__new(0);
	char path[] = "/tmp/sonde-kallsyms.XXXXXX", hexid[64] = "";
	struct sym_frame f[2];
	uint8_t id[20];
	int fd = mkstemp(path);
	FILE *p;

	CHECK(s && fd >= 0);
	/* its build id is not the running kernel's: no names from this kernel's kallsyms */
	CHECK_INT(symbolizer__add_build_id(s, "[kernel.kallsyms]", wrong, sizeof(wrong)), 0);
	CHECK_INT(symbolizer__resolve(s, -1, 0xffffffff81000010ULL, true, f, 2), 1);
	CHECK(!f[0].sym);
	CHECK_STR(f[0].dso, "[kernel.kallsyms]");
	symbolizer__free(s);
	/* with a copy of that machine's kallsyms, its names */
	const char *fake = "ffffffff81000000 T fake_start\nffffffff81000100 T fake_next\n"
			   "ffffffffc0000000 t modfn\t[mymod]\n";

	CHECK(write(fd, fake, strlen(fake)) == (ssize_t)strlen(fake));
	close(fd);
	s = symbolizer__new(0);
	CHECK(s);
	CHECK_INT(symbolizer__add_build_id(s, "[kernel.kallsyms]", wrong, sizeof(wrong)), 0);
	CHECK_INT(symbolizer__set_kallsyms(s, path), 0);
	CHECK_INT(symbolizer__resolve(s, -1, 0xffffffff81000010ULL, true, f, 2), 1);
	CHECK_STR(f[0].sym, "fake_start");
	CHECK_INT(f[0].offset, 0x10);
	CHECK_INT(symbolizer__resolve(s, -1, 0xffffffffc0000004ULL, true, f, 2), 1);
	CHECK_STR(f[0].sym, "modfn");
	CHECK_STR(f[0].dso, "[mymod]");
	symbolizer__free(s);
	unlink(path);
	/* and the running kernel's own build id (perf tells it) keeps this kernel's names */
	p = popen("perf buildid-list -k 2>/dev/null", "r");
	if (!p || !fgets(hexid, sizeof(hexid), p) || strlen(hexid) < 40) {
		if (p)
			pclose(p);
		printf("# perf buildid-list -k gives nothing: the matching case is not checked\n");
		return;
	}
	pclose(p);
	for (int i = 0; i < 20; i++)
		sscanf(hexid + 2 * i, "%2hhx", &id[i]);
	s = symbolizer__new(0);
	CHECK(s);
	CHECK_INT(symbolizer__add_build_id(s, "[kernel.kallsyms]", id, sizeof(id)), 0);
	unsigned long long a = 0;
	char line[512], name[256], t;
	FILE *k = fopen("/proc/kallsyms", "r");

	while (k && fgets(line, sizeof(line), k))
		if (sscanf(line, "%llx %c %255s", &a, &t, name) == 3 && !strcmp(name, "schedule"))
			break;
	if (k)
		fclose(k);
	CHECK(a);
	CHECK_INT(symbolizer__resolve(s, -1, a, true, f, 2), 1);
	CHECK_STR(f[0].sym, "schedule");
	symbolizer__free(s);
}

TEST(symbol_jit_map)
{
	struct symbolizer *s = symbolizer__new(0);
	pid_t pid = 4194000 + getpid() % 100;	/* above any pid this machine hands out */
	char path[64];
	struct sym_frame f[2];
	FILE *m;

	CHECK(s);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	m = fopen(path, "w");
	CHECK(m);
	fprintf(m, "7f0000001000 100 LazyCompile:*fib /app/fib.js:3\n"
		   "7f0000001100 80 py::compute:/app/x.py\n"
		   "garbage line\n"
		   "7f0000002000 40 Interpreter\n"
		   "7f0000001000 20 LazyCompile:*newer /app/fib.js:9\n");
	fclose(m);
	CHECK_INT(symbolizer__add_mmap(s, pid, 0x7f0000000000ULL, 0x10000, 0, "//anon", NULL, 0), 0);
	CHECK_INT(symbolizer__resolve(s, pid, 0x7f0000001110ULL, false, f, 2), 1);
	CHECK_STR(f[0].sym, "py::compute:/app/x.py");
	CHECK_INT(f[0].offset, 0x10);
	CHECK_STR(f[0].dso, path);
	CHECK_INT(symbolizer__resolve(s, pid, 0x7f0000001010ULL, false, f, 2), 1);
	CHECK_STR(f[0].sym, "LazyCompile:*newer /app/fib.js:9");	/* the later line wins */
	CHECK_INT(symbolizer__resolve(s, pid, 0x7f0000001050ULL, false, f, 2), 1);
	CHECK(!f[0].sym);	/* the older function at that address was replaced, all of it */
	CHECK_INT(symbolizer__resolve(s, pid, 0x7f0000002020ULL, false, f, 2), 1);
	CHECK_STR(f[0].sym, "Interpreter");
	CHECK_INT(symbolizer__resolve(s, pid, 0x7f0000003000ULL, false, f, 2), 1);
	CHECK(!f[0].sym);
	CHECK_STR(f[0].dso, "//anon");
	unlink(path);
	symbolizer__free(s);
}

TEST(symbol_jit_map_of_live_process_grows)
{
	struct symbolizer *s = symbolizer__new(0);
	char path[64];
	struct sym_frame f[2];
	FILE *m;

	CHECK(s);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	CHECK_INT(symbolizer__load_proc_maps(s, getpid()), 0);
	CHECK_INT(symbolizer__resolve(s, getpid(), 0x10010, false, f, 2), 1);	/* no map, no JIT map yet */
	CHECK(!f[0].sym);
	m = fopen(path, "w");
	CHECK(m);
	fprintf(m, "10000 100 jitted_later\n");
	fclose(m);
	usleep(1100 * 1000);	/* it looks again once a second at most */
	CHECK_INT(symbolizer__resolve(s, getpid(), 0x10010, false, f, 2), 1);
	unlink(path);
	CHECK_STR(f[0].sym, "jitted_later");
	CHECK_STR(f[0].dso, path);
	symbolizer__free(s);
}

TEST(symbol_cplusplus_demangled)
{
	char *dir = st_tmpdir(), path[4200], cmd[4400];
	unsigned long long vaddr = 0;
	struct sym_frame f[2];
	FILE *p;

	CHECK(dir);
	CHECK_INT(st_sh("cd %s && printf 'namespace ns { template <class T> struct box { T v; "
			"__attribute__((noinline)) T twice(T x) { return v + x * 2; } }; }\\n"
			"int main(int c, char **) { ns::box<long> b{c}; return (int)b.twice(c); }\\n' >x.cc && "
			"g++ -O1 -g -o x x.cc", dir), 0);
	snprintf(path, sizeof(path), "%s/x", dir);
	snprintf(cmd, sizeof(cmd), "nm %s | awk '/twice/ {print $1}'", path);
	p = popen(cmd, "r");
	CHECK(p);
	if (fscanf(p, "%llx", &vaddr) != 1)
		vaddr = 0;
	pclose(p);
	CHECK(vaddr);
	struct symbolizer *s = symbolizer__new(0);

	CHECK(s);
	CHECK_INT(symbolizer__resolve_file(s, path, vaddr + 1, f, 2), 1);
	CHECK_STR(f[0].sym, "ns::box<long>::twice(long)");
	CHECK_INT(f[0].offset, 1);
	symbolizer__free(s);
	s = symbolizer__new(SYM_RAW_NAMES);
	CHECK(s);
	CHECK_INT(symbolizer__resolve_file(s, path, vaddr, f, 2), 1);
	CHECK_STR(f[0].sym, "_ZN2ns3boxIlE5twiceEl");
	CHECK_INT(symbolizer__resolve_file(s, "/nonexistent", 0, f, 2), -ENOENT);
	CHECK_INT(symbolizer__resolve_file(s, "/etc/passwd", 0, f, 2), -ENOEXEC);
	symbolizer__free(s);
	st_rmdir(dir);
}

TEST(symbol_container_jit_map)
{
	/* a "container": own pid and mount namespaces, its own /tmp with perf-1.map (pid 1 inside) */
	struct symbolizer *s = symbolizer__new(0);
	char path[128], line[64] = "";
	struct sym_frame f[2];
	pid_t outer, inner = 0;
	FILE *c;

	CHECK(s);
	outer = fork();
	CHECK(outer >= 0);
	if (!outer) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);	/* unshare complains when its child is killed */
		/* the map appears whole (renamed into place): the loop below waits for the file
		   only, and under ASan at load it once read it between the shell's open and write */
		execlp("unshare", "unshare", "-m", "-p", "-f", "--mount-proc", "sh", "-c",
		       "mount -t tmpfs none /tmp && echo '10000 100 container_jitted' >/tmp/m && mv /tmp/m /tmp/perf-1.map && "
		       "exec sleep 10",
		       (char *)NULL);
		_exit(127);
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)outer, (int)outer);
	for (int i = 0; i < 200 && !inner; i++) {	/* up to 2 s for the namespaces to be ready */
		c = fopen(path, "r");
		if (c && fgets(line, sizeof(line), c))
			inner = atoi(line);
		if (c)
			fclose(c);
		snprintf(line, sizeof(line), "/proc/%d/root/tmp/perf-1.map", (int)inner);
		if (inner && access(line, R_OK))
			inner = 0;
		if (!inner)
			usleep(10000);
	}
	if (!inner) {	/* no namespaces here (not root, or unshare missing): nothing to compare */
		printf("# symbol_container_jit_map: cannot create namespaces with unshare, not checked\n");
		kill(outer, SIGKILL);
		waitpid(outer, NULL, 0);
		symbolizer__free(s);
		return;
	}
	int err = symbolizer__load_proc_maps(s, inner);
	int n = symbolizer__resolve(s, inner, 0x10010, false, f, 2);

	kill(inner, SIGKILL);
	waitpid(outer, NULL, 0);
	CHECK_INT(err, 0);
	CHECK_INT(n, 1);
	CHECK_STR(f[0].sym, "container_jitted");
	CHECK_INT(f[0].offset, 0x10);
	snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-1.map", (int)inner);
	CHECK_STR(f[0].dso, path);
	symbolizer__free(s);
}

/* every PLT stub objdump names in path must get the same name */
static void check_plt(const char *path, int *checked)
{
	char cmd[4400], line[1024], want[512];
	struct symbolizer *s = symbolizer__new(0);
	unsigned long long addr;
	struct sym_frame f[2];
	FILE *p;

	CHECK(s);
	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec '%s' 2>/dev/null | grep '@plt>:$'", path);
	p = popen(cmd, "r");
	CHECK(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%llx <%511[^>]>:", &addr, want) != 2)
			continue;
		CHECK_INT(symbolizer__resolve_file(s, path, addr + 4, f, 2), 1);
		if (!f[0].sym || strcmp(f[0].sym, want) || f[0].offset != 4) {
			unit__fail(__FILE__, __LINE__, "%s: %llx is %s, sonde says %s+%llu", path, addr, want,
				   f[0].sym ? f[0].sym : "(null)", (unsigned long long)f[0].offset);
			break;
		}
		(*checked)++;
	}
	pclose(p);
	symbolizer__free(s);
}

TEST(symbol_plt_stubs_as_objdump)
{
	char demo[4200];
	int checked = 0;

	snprintf(demo, sizeof(demo), "%s/build/examples/demo", st_root());
	check_plt(demo, &checked);
	check_plt("/usr/lib/x86_64-linux-gnu/libc.so.6", &checked);	/* IRELATIVE slots first */
	CHECK(checked >= 10);
	/* with IBT the stubs move to .plt.sec (endbr64; bnd jmp *GOT) */
	char *dir = st_tmpdir(), path[4200];
	int before = checked;

	CHECK(dir);
	CHECK_INT(st_sh("cd %s && printf '#include <stdio.h>\\n#include <stdlib.h>\\nint main(int c, char **v) "
			"{ puts(v[0]); return abs(atoi(v[0]) + c); }\\n' >p.c && "
			"gcc -Os -fcf-protection=full -Wl,-z,ibtplt -o p p.c && readelf -SW p | grep -q plt.sec", dir), 0);
	snprintf(path, sizeof(path), "%s/p", dir);
	check_plt(path, &checked);
	st_rmdir(dir);
	CHECK(checked >= before + 2);
}

/*
 * Another tracer's uprobes on the stubs (ltrace -f): the kernel puts their int3
 * into every mapping of the file that may run. libdwfl maps files private and
 * writable, which it leaves alone (ltrace's own reader had a read-only mapping,
 * test_ltrace.c): the stubs keep their names.
 */
TEST(symbol_plt_stubs_under_other_uprobes)
{
	char *dir = st_tmpdir(), path[4200];
	struct elf_obj o;
	int fds[64], nfd = 0, checked = 0;

	CHECK(dir);
	snprintf(path, sizeof(path), "%s/demo", dir);	/* a copy: other tests run the demo */
	CHECK_INT(st_sh("cp '%s/build/examples/demo' '%s'", st_root(), path), 0);
	CHECK_INT(elf_obj__read(&o, path), 0);
	for (int i = 0; i < o.nr_plt && nfd < 64; i++)
		if ((fds[nfd] = unit__uprobe_everywhere(path, o.plt[i].offset)) >= 0)
			nfd++;
	CHECK(nfd >= 5 && nfd == o.nr_plt);
	check_plt(path, &checked);
	CHECK_INT(checked, o.nr_plt);
	while (nfd > 0)
		close(fds[--nfd]);
	elf_obj__free(&o);
	st_rmdir(dir);
}

TEST(symbol_deleted_binary_of_live_process)
{
	/* a daemon whose binary was upgraded (removed) since it started: /proc/PID/map_files still has it */
	struct symbolizer *s = symbolizer__new(0);
	char *dir = st_tmpdir(), path[4200];
	struct sym_frame f[2];
	struct st_child c;

	CHECK(s && dir);
	CHECK_INT(st_build(dir, "symchain", "pie"), 0);
	snprintf(path, sizeof(path), "%s/symchain", dir);
	CHECK_INT(st_spawn(&c, path, "10"), 0);
	CHECK_INT(unlink(path), 0);
	int err = symbolizer__load_proc_maps(s, c.pid);
	int n = symbolizer__resolve(s, c.pid, st_addr(&c, "chain_b") + 2, false, f, 2);

	st_reap(&c);
	st_rmdir(dir);
	CHECK_INT(err, 0);
	CHECK_INT(n, 1);
	CHECK_STR(f[0].sym, "chain_b");
	CHECK_INT(f[0].offset, 2);
	CHECK_STR(f[0].dso, path);	/* the path it had, without " (deleted)" */
	symbolizer__free(s);
}

/* a build id's own zero bytes are not perf's padding: a SHA-1 ending in 00 keeps its 20 bytes */
TEST(symbol_build_id_trailing_zero_is_kept)
{
	struct symbolizer *s = symbolizer__new(0);
	uint8_t sha[24] = { 0xb1, 0xe3, 0x5a, 0xc2, 0x13, 0xa2, 0x1c, 0x5e, 0xd3, 0xe6,
			    0x7e, 0x5b, 0x9a, 0x67, 0xe2, 0xe0, 0x43, 0x9f, 0xca, 0x00 };
	uint8_t md5[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct dso *d;

	CHECK(s);
	d = dso__get(s, "/nonexistent/a", "/nonexistent/a", sha, 20, false);
	CHECK(d && d->build_id_len == 20);
	d = dso__get(s, "/nonexistent/b", "/nonexistent/b", sha, 24, false);	/* padded to 24 */
	CHECK(d && d->build_id_len == 20);
	d = dso__get(s, "/nonexistent/c", "/nonexistent/c", md5, 20, false);	/* 16 bytes, padded */
	CHECK(d && d->build_id_len == 16);
	symbolizer__free(s);
}
