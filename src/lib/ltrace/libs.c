// SPDX-License-Identifier: GPL-2.0
/* libs.c - the libraries of a program, in load order (see libs.h) */
#include "lib/ltrace/libs.h"
#include "lib/proc/maps.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const sysdirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
	"/usr/local/lib", NULL,
};

/* where a running process maps a file named `name` (its base name), into path; 0 or -ENOENT */
static int mapped(pid_t pid, const char *name, char *path, size_t len)
{
	struct proc_maps *it = proc_maps__open(pid);
	const struct proc_map *m;
	int rc = -ENOENT;

	while (it && rc && (m = proc_maps__next(it))) {
		const char *b = strrchr(m->name, '/');

		if (m->name[0] == '/' && b && !strcmp(b + 1, name)) {
			snprintf(path, len, "/proc/%d/root%s", (int)pid, m->name);
			rc = 0;
		}
	}
	if (it)
		proc_maps__close(it);
	return rc;
}

/* look for name in the directories of a colon list (with $ORIGIN the directory of `from`) */
static int in_dirs(const char *list, const char *from, const char *name, char *path, size_t len)
{
	char dirs[PATH_MAX], origin[PATH_MAX];
	const char *slash = strrchr(from, '/');
	char *save = NULL;

	snprintf(origin, sizeof(origin), "%.*s", slash ? (int)(slash - from) : 1, slash ? from : ".");
	snprintf(dirs, sizeof(dirs), "%s", list);
	for (char *d = strtok_r(dirs, ":;", &save); d; d = strtok_r(NULL, ":;", &save)) {
		if (!strncmp(d, "$ORIGIN", 7))
			snprintf(path, len, "%s%s/%s", origin, d + 7, name);
		else if (!strncmp(d, "${ORIGIN}", 9))
			snprintf(path, len, "%s%s/%s", origin, d + 9, name);
		else
			snprintf(path, len, "%s/%s", d, name);
		if (!access(path, R_OK))
			return 0;
	}
	return -ENOENT;
}

static int locate(const struct elf_obj *from, pid_t pid, const char *name, char *path, size_t len)
{
	const char *env = getenv("LD_LIBRARY_PATH");

	if (strchr(name, '/')) {
		snprintf(path, len, "%s", name);
		return access(path, R_OK) ? -ENOENT : 0;
	}
	if (pid > 0)
		return mapped(pid, name, path, len);
	if (env && !in_dirs(env, from->path, name, path, len))
		return 0;
	if (from->runpath && !in_dirs(from->runpath, from->path, name, path, len))
		return 0;
	for (int i = 0; sysdirs[i]; i++) {
		snprintf(path, len, "%s/%s", sysdirs[i], name);
		if (!access(path, R_OK))
			return 0;
	}
	return -ENOENT;
}

static bool known(const struct elf_obj *libs, int n, const char *name)
{
	for (int i = 0; i < n; i++) {
		const char *b = strrchr(libs[i].path, '/');

		if (!strcmp(libs[i].soname, name) || (b && !strcmp(b + 1, name)))
			return true;
	}
	return false;
}

int ltrace_libs__find(const struct elf_obj *exe, pid_t pid, struct elf_obj **out, int *n)
{
	struct elf_obj *libs = NULL;
	int nr = 0;

	*out = NULL;
	*n = 0;
	/* breadth first: the exe's needed, then theirs */
	for (int i = -1; i < nr; i++) {
		for (int j = 0; j < (i < 0 ? exe : &libs[i])->nr_needed; j++) {
			const struct elf_obj *from = i < 0 ? exe : &libs[i];	/* libs moves as it grows */
			char path[PATH_MAX];
			struct elf_obj *nl;

			if (known(libs, nr, from->needed[j]) || locate(from, pid, from->needed[j], path, sizeof(path)))
				continue;
			if (!(nl = realloc(libs, (nr + 1) * sizeof(*nl)))) {
				ltrace_libs__free(libs, nr);
				return -ENOMEM;
			}
			libs = nl;
			if (elf_obj__read(&libs[nr], path))
				continue;
			nr++;
		}
	}
	*out = libs;
	*n = nr;
	return 0;
}

void ltrace_libs__free(struct elf_obj *libs, int n)
{
	for (int i = 0; i < n; i++)
		elf_obj__free(&libs[i]);
	free(libs);
}
