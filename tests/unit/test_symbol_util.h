/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_symbol_util.h - helpers for the symbolizer and unwinder unit tests:
 * build variants of tests/workloads/symchain.c with gcc in a scratch
 * directory (PIE, non-PIE, -O2 without frame pointers, shared library,
 * stripped with debuglink / build-id file / MiniDebugInfo), start one and read
 * the function addresses it prints. Everything here is static: each test file
 * that includes it gets its own copy.
 */
#ifndef TEST_SYMBOL_UTIL_H
#define TEST_SYMBOL_UTIL_H

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

/* the source tree: the parent of the build directory, or the working directory */
static const char *st_root(void)
{
	static char root[4096];
	char probe[4200];

	if (root[0])
		return root;
	snprintf(root, sizeof(root), "%s", unit__build_dir());
	char *slash = strrchr(root, '/');

	if (slash)
		*slash = 0;
	snprintf(probe, sizeof(probe), "%s/tests/workloads/symchain.c", root);
	if (access(probe, R_OK) && !getcwd(root, sizeof(root)))
		root[0] = 0;
	return root;
}

static int __attribute__((format(printf, 1, 2), unused)) st_sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static char *st_tmpdir(void)
{
	char tmpl[] = "/tmp/sonde-symtest.XXXXXX";
	char *d = mkdtemp(tmpl);

	return d ? strdup(d) : NULL;
}

static __attribute__((unused)) void st_rmdir(char *dir)
{
	if (dir && !strncmp(dir, "/tmp/sonde-symtest.", 19))
		st_sh("rm -rf '%s'", dir);
	free(dir);
}

/*
 * build symchain as DIR/NAME; kind: "pie", "nopie", "nofp" (-O2 without frame pointers), "lib" (DIR/NAME
 * runs main from DIR/libsymchain.so), "debuglink", "buildid" (debug file under DIR/dbg/.build-id),
 * "minidebug" (.gnu_debugdata), "stripped" (no symbols but .dynsym). Returns 0 or the failing step's code.
 */
static __attribute__((unused)) int st_build(const char *dir, const char *name, const char *kind)
{
	const char *cc = "gcc -O2 -g -fomit-frame-pointer -Wall";
	char out[4200], src[4200];

	snprintf(src, sizeof(src), "%s/tests/workloads/symchain.c", st_root());
	snprintf(out, sizeof(out), "%s/%s", dir, name);
	if (!strcmp(kind, "nopie"))
		return st_sh("%s -fno-pie -no-pie -o %s %s", cc, out, src);
	if (!strcmp(kind, "lib"))
		return st_sh("%s -fPIC -shared -Dmain=symchain_main -o %s/libsymchain.so %s && "
			     "printf 'int symchain_main(int, char **);\\nint main(int c, char **v) "
			     "{ return symchain_main(c, v) + 0; }\\n' >%s/drv.c && "
			     "%s -o %s %s/drv.c -L%s -lsymchain -Wl,-rpath,%s",
			     cc, dir, src, dir, cc, out, dir, dir, dir);
	if (st_sh("%s -fPIE -pie -o %s %s", cc, out, src))
		return 1;
	if (!strcmp(kind, "pie") || !strcmp(kind, "nofp"))
		return 0;
	if (!strcmp(kind, "stripped"))
		return st_sh("strip --strip-all %s", out);
	if (!strcmp(kind, "debuglink"))
		return st_sh("cd %s && objcopy --only-keep-debug %s %s.debug && strip --strip-all %s && "
			     "objcopy --add-gnu-debuglink=%s.debug %s", dir, name, name, name, name, name);
	if (!strcmp(kind, "buildid"))
		return st_sh("cd %s && id=$(readelf -n %s | sed -n 's/.*Build ID: //p') && "
			     "mkdir -p dbg/.build-id/${id%%${id#??}} && "
			     "objcopy --only-keep-debug %s dbg/.build-id/${id%%${id#??}}/${id#??}.debug && "
			     "strip --strip-all %s", dir, name, name, name);
	if (!strcmp(kind, "minidebug"))	/* the way Fedora's find-debuginfo makes it */
		return st_sh("cd %s && nm -D %s --format=posix --defined-only | awk '{print $1}' | sort >dyn && "
			     "nm %s --format=posix --defined-only | awk '$2 ~ /^[Tt]$/ {print $1}' | sort >funcs && "
			     "comm -13 dyn funcs >keep && objcopy --only-keep-debug %s full.debug && "
			     "objcopy -S --remove-section .gdb_index --remove-section .comment "
			     "--keep-symbols=keep full.debug mini && xz -f mini && strip --strip-all %s && "
			     "objcopy --add-section .gnu_debugdata=mini.xz %s && rm -f full.debug",
			     dir, name, name, name, name, name);
	return 2;
}

struct st_child {
	pid_t pid;
	FILE *out;
	int nfn;
	struct {
		uint64_t addr;
		char name[32];
	} fn[8];
};

/* run PATH SECONDS and read its "ADDRESS NAME" lines up to "ready" */
static __attribute__((unused)) int st_spawn(struct st_child *c, const char *path, const char *seconds)
{
	int fd[2];
	char line[256];

	memset(c, 0, sizeof(*c));
	if (pipe(fd))
		return -1;
	fflush(stdout);
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (!c->pid) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execl(path, path, seconds, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	c->out = fdopen(fd[0], "r");
	while (c->out && fgets(line, sizeof(line), c->out)) {
		unsigned long long a;

		if (!strncmp(line, "ready", 5))
			return 0;
		if (c->nfn < 8 && sscanf(line, "%llx %31s", &a, c->fn[c->nfn].name) == 2)
			c->fn[c->nfn++].addr = a;
	}
	return -1;
}

static __attribute__((unused)) void st_reap(struct st_child *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
	}
	if (c->out)
		fclose(c->out);
	c->out = NULL;
	c->pid = 0;
}

static __attribute__((unused)) uint64_t st_addr(const struct st_child *c, const char *name)
{
	for (int i = 0; i < c->nfn; i++)
		if (!strcmp(c->fn[i].name, name))
			return c->fn[i].addr;
	return 0;
}

#endif
