// SPDX-License-Identifier: GPL-2.0
/*
 * maps.c - /proc/PID/maps read one line at a time: "start-end perms offset
 * major:minor inode name", the name running to the end of the line (it may
 * hold spaces). See maps.h.
 */
#include "lib/proc/maps.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct proc_maps {
	FILE *f;
	char *line;
	size_t cap;
	struct proc_map m;
};

int proc_maps__parse_line(char *line, struct proc_map *m)
{
	unsigned long long start, end, pgoff, ino;
	int pos = 0;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu%n", &start, &end, m->perms, &pgoff, &m->maj,
		   &m->min, &ino, &pos) < 7 || !pos || strlen(m->perms) != 4)
		return -EINVAL;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->ino = ino;
	m->name = line + pos;
	m->name += strspn(m->name, " ");
	m->name[strcspn(m->name, "\n")] = 0;
	return 0;
}

struct proc_maps *proc_maps__open(pid_t pid)
{
	struct proc_maps *it = calloc(1, sizeof(*it));
	char path[64];

	if (!it)
		return NULL;
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	it->f = fopen(path, "re");
	if (!it->f) {
		int e = errno;

		free(it);
		errno = e;
		return NULL;
	}
	return it;
}

const struct proc_map *proc_maps__next(struct proc_maps *it)
{
	while (getline(&it->line, &it->cap, it->f) > 0)
		if (!proc_maps__parse_line(it->line, &it->m))
			return &it->m;
	return NULL;
}

void proc_maps__close(struct proc_maps *it)
{
	if (!it)
		return;
	fclose(it->f);
	free(it->line);
	free(it);
}

/* libc.so.6, or libc-2.31.so of an old glibc */
static bool is_libc(const char *path)
{
	const char *base = strrchr(path, '/');

	if (!base++)
		return false;
	return !strncmp(base, "libc.so", 7) || (!strncmp(base, "libc-", 5) && strstr(base, ".so"));
}

int proc_maps__find_libc(pid_t pid, char *buf, size_t len)
{
	struct proc_maps *it = proc_maps__open(pid);
	const struct proc_map *m;
	int rc = -ENOENT;

	if (!it)
		return -errno;
	while (rc && (m = proc_maps__next(it))) {
		if (!is_libc(m->name))
			continue;
		if (pid)
			snprintf(buf, len, "/proc/%d/root%s", (int)pid, m->name);
		else
			snprintf(buf, len, "%s", m->name);
		rc = 0;
	}
	proc_maps__close(it);
	return rc;
}

int proc_maps__maps_file(pid_t pid, const char *path)
{
	char real[PATH_MAX];
	struct stat want, st;
	struct proc_maps *it;
	const struct proc_map *m;
	int rc = 0;

	if (stat(path, &want))
		return -errno;
	if (!(it = proc_maps__open(pid)))
		return -errno;
	while (!rc && (m = proc_maps__next(it))) {
		if (m->name[0] != '/')
			continue;
		snprintf(real, sizeof(real), "/proc/%d/root%s", (int)pid, m->name);
		if (!stat(real, &st) && st.st_dev == want.st_dev && st.st_ino == want.st_ino)
			rc = 1;
	}
	proc_maps__close(it);
	return rc;
}
