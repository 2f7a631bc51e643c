// SPDX-License-Identifier: GPL-2.0
/*
 * maps.c - /proc/PID/maps read one line at a time: "start-end perms offset
 * major:minor inode name", the name running to the end of the line (it may
 * hold spaces). See maps.h.
 */
#include "lib/proc/maps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
