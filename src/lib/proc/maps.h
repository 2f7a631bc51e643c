/* SPDX-License-Identifier: GPL-2.0 */
/*
 * maps.h - the one reader of /proc/PID/maps: each mapping's range, offset,
 * permissions, device, inode and name, in address order. The entry
 * proc_maps__next returns belongs to the iterator and lasts until the next
 * call or proc_maps__close.
 */
#ifndef SONDE_PROC_MAPS_H
#define SONDE_PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_map {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* offset in the file */
	uint64_t ino;
	unsigned maj, min;	/* the file's device */
	char perms[5];		/* "r-xp": read, write, exec, shared or private */
	char *name;		/* a path (maybe ending " (deleted)"), "[vdso]", "[stack]"...; "" if anonymous */
};

struct proc_maps;

/* the mappings of process pid (0: this process); NULL with errno set when they cannot be read */
struct proc_maps *proc_maps__open(pid_t pid);
/* the next mapping, NULL at the end; lines that do not parse are passed over */
const struct proc_map *proc_maps__next(struct proc_maps *it);
void proc_maps__close(struct proc_maps *it);

/* one line of the file (its newline optional) into *m, m->name pointing into line; 0 or -EINVAL */
int proc_maps__parse_line(char *line, struct proc_map *m);

/*
 * The C library process pid maps (0: sonde's own, the one a command it starts
 * loads): libc.so.6, or an old glibc's libc-2.31.so. Its path into buf,
 * through /proc/PID/root for another process (a container's own file); 0,
 * -ENOENT when it maps none, or -errno when its maps cannot be read.
 */
int proc_maps__find_libc(pid_t pid, char *buf, size_t len);

/* 1 when process pid maps the file at path (the same device and inode, seen through its root), 0 when not,
 * or -errno */
int proc_maps__maps_file(pid_t pid, const char *path);

static inline bool proc_map__exec(const struct proc_map *m)
{
	return m->perms[2] == 'x';
}

#endif
