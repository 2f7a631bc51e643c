// SPDX-License-Identifier: GPL-2.0
/*
 * addr2sym.c - `sonde addr2sym`: addresses to functions, inlined frames and
 * source lines through sonde's symbolizer, the way addr2line does it for one
 * file (-e), or for a live process (-p) or the kernel (-k). A debugging aid for
 * the symbolizer every other command uses, and the driver of bench/symbol.sh.
 * Not listed in `sonde --help`. Without ADDR arguments it reads hex addresses
 * from stdin, one per line.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/proc/target.h"
#include "lib/symbol/symbol.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const addr2sym_usage[] = {
	"sonde addr2sym [-i] [-s] -e FILE [ADDR...]",
	"sonde addr2sym [-i] [-s] -p PID [ADDR...]",
	"sonde addr2sym -k [ADDR...]",
	NULL,
};

struct a2s {
	struct symbolizer *s;
	const char *exe;
	int pid;
	bool kernel, srcline, addr_only;
};

/* one address: one line per frame, the inlined ones first, like perf script's frames */
static int one(struct a2s *a, char *text)
{
	struct sym_frame f[32];
	char *end;
	unsigned long long addr;
	int n;

	text[strcspn(text, "\r\n")] = 0;
	errno = 0;
	addr = strtoull(text, &end, 16);
	while (*end == ' ' || *end == '\t')
		end++;
	if (errno || end == text || *end) {
		error("'%s' is not a hexadecimal address", text);
		return -1;
	}
	if (a->exe)
		n = symbolizer__resolve_file(a->s, a->exe, addr, f, 32);
	else
		n = symbolizer__resolve(a->s, a->pid, addr, a->kernel, f, 32);
	if (n < 0) {
		error("cannot resolve %#llx: %s", addr, strerror(-n));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		printf("%16llx ", addr);
		if (f[i].sym)
			printf("%s+0x%llx", f[i].sym, (unsigned long long)f[i].offset);
		else
			printf("[unknown]");
		printf(" (%s)", f[i].dso ? f[i].dso : "[unknown]");
		if (f[i].inlined)
			printf(" (inlined)");
		if (a->srcline)
			printf(" %s:%d", f[i].srcfile ? f[i].srcfile : "??", f[i].srcfile ? f[i].srcline : 0);
		putchar('\n');
	}
	return 0;
}

int cmd_addr2sym(int argc, char **argv)
{
	struct a2s a = { .pid = -1 };
	bool inl = false;
	const char *debug_dir = NULL;
	struct target_opts to = { .have_cmd = true };	/* -p alone is enough */
	const struct opt opts[] = {
		OPT_STRING('e', "exe", &a.exe, "FILE", "addresses are ELF virtual addresses in FILE (like addr2line -e)"),
		OPT_STRING('p', "pid", &to.pids, "PID", "addresses in the live process PID"),
		OPT_BOOL('k', "kernel", &a.kernel, "kernel addresses (/proc/kallsyms)"),
		OPT_BOOL('i', "inline", &inl, "show the inlined frames (innermost first)"),
		OPT_BOOL('s', "srcline", &a.srcline, "show the source file and line"),
		OPT_STRING(0, "debug-dir", &debug_dir, "DIRS", "where separate debug files are (default :.debug:/usr/lib/debug)"),
		OPT_VERBOSE(),
		OPT_END(),
	};
	char *line = NULL;
	size_t len = 0;
	int rc = 0, err;

	argc = opt__parse(argc, argv, opts, addr2sym_usage, 0);
	if (to.pids) {
		struct target tg;

		opt__check_one_pid(addr2sym_usage, to.pids);
		err = opt__target(&tg, &to, addr2sym_usage);
		a.pid = tg.nr_pids ? tg.pids[0] : -1;
		target__free(&tg);
		if (err)
			return 1;
	}
	if (!!a.exe + (a.pid >= 0) + a.kernel != 1)
		opt__usage_error(addr2sym_usage, opts, "say which addresses: one of -e FILE, -p PID or -k");
	a.s = symbolizer__new((inl ? SYM_INLINE : 0) | (a.srcline ? SYM_SRCLINE : 0));
	if (!a.s) {
		error("cannot start the symbolizer: %s", strerror(ENOMEM));
		return 1;
	}
	if (debug_dir)
		symbolizer__set_debug_path(a.s, debug_dir);
	if (a.exe && access(a.exe, R_OK)) {
		error("cannot read '%s': %s", a.exe, strerror(errno));
		rc = 1;
		goto out;
	}
	if (a.pid >= 0 && (err = symbolizer__load_proc_maps(a.s, a.pid))) {
		error("cannot read the memory maps of process %d: %s", a.pid, strerror(-err));
		if (err == -ENOENT)
			hint("is process %d still running?", a.pid);
		rc = 1;
		goto out;
	}
	if (a.exe) {	/* say once if the file is not something we can read symbols from */
		struct sym_frame f;

		err = symbolizer__resolve_file(a.s, a.exe, 0, &f, 1);
		if (err < 0) {
			error("cannot read symbols from '%s': %s", a.exe,
			      err == -ENOEXEC ? "not an ELF file" : strerror(-err));
			rc = 1;
			goto out;
		}
	}
	for (int i = 0; i < argc; i++)
		rc |= one(&a, argv[i]) ? 1 : 0;
	if (!argc)
		while (getline(&line, &len, stdin) > 0)
			if (line[strspn(line, " \t\r\n")])
				rc |= one(&a, line) ? 1 : 0;
	free(line);
	if (verbose) {
		struct symbolizer_stats st;

		symbolizer__stats(a.s, &st);
		debug(1, "%lu lookups, %lu from the cache, %lu ELF files loaded", st.lookups, st.cache_hits, st.dsos);
	}
out:
	symbolizer__free(a.s);
	return rc;
}
