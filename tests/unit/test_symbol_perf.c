// SPDX-License-Identifier: GPL-2.0
/*
 * test_symbol_perf.c - the symbolizer against perf itself: record the demo
 * workload with `perf record -g`, take the MMAP2 events and every callchain
 * frame `perf script -F pid,ip,sym,symoff,dso` prints, feed the same maps to
 * the symbolizer and resolve the same addresses. Names must agree (or be
 * aliases: the same symbol start), and so must the DSOs.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/symbol/symbol.h"
#include "test_symbol_util.h"
#include "unit.h"

struct pmap {
	int pid;
	uint64_t start, len, pgoff;
	char path[512];
};

TEST(symbol_agrees_with_perf_script)
{
	char *dir = st_tmpdir(), cmd[8192], line[1024], demo[4200];
	struct pmap maps[256];
	int nmaps = 0, pid = 0, frames = 0, agree = 0, same_name = 0, user = 0, kernel = 0, unknown = 0;
	char first_bad[600] = "";
	FILE *p;

	CHECK(dir);
	if (st_sh("command -v perf >/dev/null")) {
		printf("# perf is not installed: symbol_agrees_with_perf_script compared nothing\n");
		st_rmdir(dir);
		return;
	}
	snprintf(demo, sizeof(demo), "%s/build/examples/demo", st_root());
	CHECK_INT(access(demo, X_OK), 0);
	CHECK_INT(st_sh("perf record -q -g -F 1999 -o %s/perf.data -- %s 0.5 >/dev/null 2>&1", dir, demo), 0);
	/* every frame of every sample: the demo's user code has only a dozen distinct frames */
	snprintf(cmd, sizeof(cmd), "perf script -i %s/perf.data -F pid,ip,sym,symoff,dso --show-mmap-events 2>/dev/null", dir);
	p = popen(cmd, "r");
	CHECK(p);
	struct symbolizer *s = symbolizer__new(0);

	while (s && fgets(line, sizeof(line), p)) {
		struct pmap m = { 0 };
		unsigned long long a, b, c, ip, off = 0;
		char sym[512], dso[512];

		if (sscanf(line, "%d PERF_RECORD_MMAP2 %*d/%*d: [0x%llx(0x%llx) @ 0x%llx %*s %*s %*[^]]]: %*s %511s",
			   &m.pid, &a, &b, &c, m.path) == 5) {
			m.start = a, m.len = b, m.pgoff = c;
			if (nmaps < 256)
				maps[nmaps++] = m;
			symbolizer__add_mmap(s, m.pid, a, b, c, m.path, NULL, 0);
			continue;
		}
		if (line[0] != '\t') {
			sscanf(line, "%d", &pid);
			continue;
		}
		/* "\t     ADDR sym+0xOFF (dso)" */
		if (sscanf(line, " %llx %511s (%511[^)])", &ip, sym, dso) != 3)
			continue;
		if (!strcmp(sym, "[unknown]")) {
			unknown++;
			continue;
		}
		/* BPF programs (other tests may trace the same syscalls): perf names them from KSYMBOL events */
		if (strstr(sym, "bpf_prog_") || strstr(dso, "bpf"))
			continue;
		char *plus = strrchr(sym, '+');

		if (!plus || sscanf(plus, "+0x%llx", &off) != 1)
			continue;
		*plus = 0;
		bool is_kernel = dso[0] == '[' && strcmp(dso, "[vdso]");
		uint64_t addr = ip;

		if (!is_kernel) {	/* perf prints user frames relative to the DSO: make them absolute */
			bool found = false;

			for (int i = 0; i < nmaps && !found; i++)
				if (maps[i].pid == pid && !strcmp(maps[i].path, dso)) {
					found = true;
					if (ip < maps[i].start || ip >= maps[i].start + maps[i].len)
						addr = maps[i].start - maps[i].pgoff + ip;
				}
			if (!found)
				continue;
		}
		struct sym_frame f[2];
		int n = symbolizer__resolve(s, pid, addr, is_kernel, f, 2);

		frames++;
		is_kernel ? kernel++ : user++;
		/* the same name, or an alias of it: a symbol at the same start */
		if (n == 1 && f[0].sym && (!strcmp(f[0].sym, sym) || addr - f[0].offset == addr - off) && f[0].dso &&
		    !strcmp(f[0].dso, dso)) {
			agree++;
			same_name += !strcmp(f[0].sym, sym);
			if (getenv("SYMBOL_SHOW") && strcmp(f[0].sym, sym))
				printf("# alias: perf %s, sonde %s\n", sym, f[0].sym);
		}
		else if (!first_bad[0])
			snprintf(first_bad, sizeof(first_bad), "%llx: perf %s+0x%llx (%s), sonde %s+0x%llx (%s)",
				 (unsigned long long)addr, sym, off, dso, f[0].sym ? f[0].sym : "[unknown]",
				 (unsigned long long)f[0].offset, f[0].dso ? f[0].dso : "[unknown]");
	}
	pclose(p);
	symbolizer__free(s);
	st_rmdir(dir);
	if (getenv("SYMBOL_SHOW"))
		printf("# %d frames (%d user, %d kernel, %d unknown to perf), %d agree, %d with the same name; %s\n",
		       frames, user, kernel, unknown, agree, same_name, first_bad);
	CHECK(user >= 10);
	if (agree != frames)
		unit__fail(__FILE__, __LINE__, "%d of %d frames differ from perf script, first %s", frames - agree,
			   frames, first_bad);
}

/*
 * binutils' addr2line (which perf runs) names a function's file where DWARF has the
 * function but no line for it (gcc's crtstuff.c: frame_dummy), "crtstuff.c:?", perf's
 * "crtstuff.c:0"; with DWARF's own answers sonde says there is no line
 */
/* the hex number on line n (0 first) of what "CMD PATH | FILTER" prints, 0 if none */
static unsigned long long hex_of(const char *cmd, const char *path, const char *filter, int n)
{
	char sh[4400], out[64];
	unsigned long long v = 0;
	FILE *p;

	snprintf(sh, sizeof(sh), "%s %s | %s", cmd, path, filter);
	p = popen(sh, "r");
	if (!p)
		return 0;
	for (int i = 0; i <= n && fgets(out, sizeof(out), p); i++)
		v = i == n ? strtoull(out, NULL, 16) : 0;
	pclose(p);
	return v;
}

TEST(srcline_binutils_file_without_line)
{
	char demo[4200];
	unsigned long long addr;
	struct sym_frame f;
	const char *file = NULL;
	int line = -1;

	snprintf(demo, sizeof(demo), "%s/build/examples/demo", st_root());
	addr = hex_of("nm", demo, "awk '/ frame_dummy$/ {print $1}'", 0);
	CHECK(addr);
	for (int pass = 0; pass < 2; pass++) {
		struct symbolizer *s = symbolizer__new(pass ? SYM_BINUTILS_FILES : 0);

		CHECK(s);
		CHECK_INT(symbolizer__resolve_file(s, demo, addr, &f, 1), 1);
		if (pass) {
			CHECK_INT(symbolizer__srcline_in(s, &f, addr, &file, &line), 0);
			CHECK(file && strstr(file, "crtstuff.c"));
			CHECK_INT(line, 0);
		} else {
			CHECK_INT(symbolizer__srcline_in(s, &f, addr, &file, &line), -ENODATA);
		}
		symbolizer__free(s);
	}
}

/*
 * the PLT's first stub (the lazy resolver's push and jmp) has no symbol: perf and sonde
 * call it "_init+0x26" (a symbol without a size reaches the next one), but addr2line
 * looks in the address's own section, .plt, finds nothing and says "??:0", where perf
 * prints "DSO[addr]"; in _init itself it says "_init" and "??:?" (no line)
 */
TEST(srcline_plt0_is_no_function)
{
	char demo[4200];
	unsigned long long plt, init;
	struct sym_frame f;
	const char *file = NULL;
	int line = -1;

	snprintf(demo, sizeof(demo), "%s/build/examples/demo", st_root());
	init = hex_of("readelf -SW", demo, "awk '$2 == \".init\" {print $4}'", 0);
	plt = hex_of("readelf -SW", demo, "awk '$2 == \".plt\" {print $4}'", 0);
	CHECK(plt && init && init < plt);
	struct symbolizer *s = symbolizer__new(SYM_BINUTILS_FILES);

	CHECK(s);
	CHECK_INT(symbolizer__resolve_file(s, demo, plt + 6, &f, 1), 1);
	CHECK_STR(f.sym, "_init");
	CHECK_INT(symbolizer__srcline_in(s, &f, plt + 6, &file, &line), -ENOENT);
	CHECK_INT(symbolizer__resolve_file(s, demo, init + 4, &f, 1), 1);
	CHECK_STR(f.sym, "_init");
	CHECK_INT(symbolizer__srcline_in(s, &f, init + 4, &file, &line), -ENODATA);
	symbolizer__free(s);
}

/*
 * code from assembly: a local label is an untyped symbol, and the STT_FILE symbol
 * before it names the source ("" for `.file ""`, as in ld.so's _start). binutils'
 * addr2line counts untyped symbols as functions and answers "helper" and "FILE:?",
 * which perf prints as "FILE:0" (":0" for ld.so's _start); sonde says the same file
 */
TEST(srcline_binutils_file_of_assembly_label)
{
	static const char *const names[] = { "", "start.S" };
	char *dir = st_tmpdir(), exe[4200], want[256];

	CHECK(dir);
	for (int i = 0; dir && i < 2; i++) {
		unsigned long long helper;
		struct sym_frame f;
		const char *file = NULL;
		int line = -1;

		snprintf(exe, sizeof(exe), "%s/asm%d", dir, i);
		CHECK_INT(st_sh("cd %s && printf '\\t.file \"%s\"\\n\\t.text\\n\\t.globl main\\n\\t.type main,@function\\n"
				"main:\\n\\tcall helper\\n\\txor %%%%eax,%%%%eax\\n\\tret\\n\\t.size main,.-main\\n"
				"helper:\\n\\tnop\\n\\tnop\\n\\tret\\n\\t.section .note.GNU-stack,\"\",@progbits\\n' >asm%d.s && "
				"gcc -o asm%d asm%d.s", dir, names[i], i, i, i), 0);
		helper = hex_of("nm", exe, "awk '/ helper$/ {print $1}'", 0);
		CHECK(helper);
		/* addr2line's own answer: the function, then FILE:? */
		snprintf(want, sizeof(want), "addr2line -f -e %s 0x%llx | sed -n 2p | sed 's/:?$//'", exe, helper + 1);
		FILE *p = popen(want, "r");

		CHECK(p);
		if (!p || !fgets(want, sizeof(want), p))
			want[0] = 0;
		if (p)
			pclose(p);
		want[strcspn(want, "\n")] = 0;
		CHECK_STR(want, names[i]);

		struct symbolizer *s = symbolizer__new(SYM_BINUTILS_FILES);

		CHECK(s);
		CHECK_INT(symbolizer__resolve_file(s, exe, helper + 1, &f, 1), 1);
		CHECK_STR(f.sym, "helper");
		CHECK_INT(symbolizer__srcline_in(s, &f, helper + 1, &file, &line), 0);
		CHECK(file && !strcmp(file, want));
		CHECK_INT(line, 0);
		symbolizer__free(s);
	}
	st_rmdir(dir);
}

/*
 * ld.so has no .symtab of its own; binutils takes the symbols of the separate
 * debug file it finds (libc6-dbg's, by build id), as libdwfl does: _dl_start_user,
 * an untyped label after an empty STT_FILE, is "_dl_start_user" and ":?" to
 * addr2line, ":0" to perf. The answer is compared with addr2line's own, whatever
 * the machine has (without the debug file both say there is no such function)
 */
TEST(srcline_binutils_debug_file_symtab)
{
	static const char ld[] = "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2";
	unsigned long long at;
	struct sym_frame f;
	const char *file = NULL;
	int line = -1, rc;
	char cmd[512], want[256] = "";
	FILE *p;

	at = hex_of("sh -c", "'id=$(readelf -n /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 | "
		    "sed -n \"s/.*Build ID: //p\"); readelf -sW /usr/lib/debug/.build-id/$(echo $id | cut -c1-2)/"
		    "$(echo $id | cut -c3-).debug 2>/dev/null'", "awk '$8 == \"_dl_start_user\" {print $2}'", 0);
	if (!at)	/* no debug file: a label's address from the code instead, _start's entry */
		at = hex_of("readelf -hW", ld, "awk '/Entry point/ {print $4}'", 0);
	CHECK(at);
	snprintf(cmd, sizeof(cmd), "addr2line -e %s 0x%llx | sed 's/:?$//'", ld, at);
	p = popen(cmd, "r");
	CHECK(p);
	if (p && !fgets(want, sizeof(want), p))
		want[0] = 0;
	if (p)
		pclose(p);
	want[strcspn(want, "\n")] = 0;

	struct symbolizer *s = symbolizer__new(SYM_BINUTILS_FILES);

	CHECK(s);
	CHECK_INT(symbolizer__resolve_file(s, ld, at, &f, 1), 1);
	rc = symbolizer__srcline_in(s, &f, at, &file, &line);
	if (!strcmp(want, "??:0"))	/* addr2line knows no function there */
		CHECK(rc == -ENOENT || rc == -ENODATA);
	else
		CHECK(rc == 0 && file && !strcmp(file, want) && line == 0);
	symbolizer__free(s);
}
