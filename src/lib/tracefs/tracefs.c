// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs.c - finding tracefs and its events.
 *
 * libtracefs could do this, but sonde only needs the mount point, an event's id
 * and a glob over events/; those are three readdir/read calls, so they are
 * written here rather than pulling the library into every command.
 */
#include "lib/tracefs/tracefs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <unistd.h>

#define TRACEFS_SUPER_MAGIC 0x74726163

const char *tracefs__dir(void)
{
	static const char *const cand[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct statfs sf;

	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++)
		if (!statfs(cand[i], &sf) && sf.f_type == TRACEFS_SUPER_MAGIC)
			return cand[i];
	return NULL;
}

int tracefs__mount(void)
{
	if (tracefs__dir())
		return 0;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
		return -errno;
	return 0;
}

long long tracefs__event_id(const char *group, const char *name)
{
	const char *dir = tracefs__dir();
	char path[PATH_MAX], buf[32];
	ssize_t n;
	int fd;

	if (!dir)
		return -ENODEV;
	if (strchr(group, '/') || strchr(name, '/') || !strcmp(group, "..") || !strcmp(name, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", dir, group, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	return strtoll(buf, NULL, 10);
}

bool tracefs__event_named(const char *name)
{
	const char *dir = tracefs__dir();
	char path[PATH_MAX];
	struct dirent *d;
	bool found = false;
	DIR *e;

	if (!dir || strchr(name, '/') || !strcmp(name, "..") || !*name)
		return false;
	snprintf(path, sizeof(path), "%s/events", dir);
	if (!(e = opendir(path)))
		return false;
	while (!found && (d = readdir(e)))
		if (d->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/events/%s/%s", dir, d->d_name, name);
			found = !access(path, F_OK);
		}
	closedir(e);
	return found;
}

static int cmp_names(const void *a, const void *b)
{
	const struct tp_name *x = a, *y = b;
	int c = strcmp(x->group, y->group);

	return c ? c : strcmp(x->name, y->name);
}

void tracefs__free_names(struct tp_name *names, int n)
{
	for (int i = 0; i < n; i++) {
		free(names[i].group);
		free(names[i].name);
	}
	free(names);
}

int tracefs__glob(const char *group_pat, const char *name_pat, struct tp_name **out)
{
	const char *dir = tracefs__dir();
	char path[PATH_MAX];
	struct tp_name *v = NULL;
	int n = 0, cap = 0, err = 0;
	struct dirent *g;
	DIR *gd;

	*out = NULL;
	if (!dir)
		return -ENODEV;
	snprintf(path, sizeof(path), "%s/events", dir);
	gd = opendir(path);
	if (!gd)
		return -errno;
	while (!err && (g = readdir(gd))) {
		struct dirent *e;
		DIR *ed;

		if (g->d_name[0] == '.' || g->d_type != DT_DIR || fnmatch(group_pat, g->d_name, 0))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, g->d_name);
		ed = opendir(path);
		if (!ed)
			continue;
		while ((e = readdir(ed))) {
			if (e->d_name[0] == '.' || e->d_type != DT_DIR || fnmatch(name_pat, e->d_name, 0))
				continue;
			if (n == cap) {
				struct tp_name *nv;

				cap = cap ? cap * 2 : 64;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					err = -ENOMEM;
					break;
				}
				v = nv;
			}
			v[n].group = strdup(g->d_name);
			v[n].name = strdup(e->d_name);
			if (!v[n].group || !v[n].name) {
				free(v[n].group);
				free(v[n].name);
				err = -ENOMEM;
				break;
			}
			n++;
		}
		closedir(ed);
	}
	closedir(gd);
	if (err) {
		tracefs__free_names(v, n);
		return err;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_names);
	*out = v;
	return n;
}

int tracefs__put(const char *dir, const char *file, const char *s, bool append)
{
	char path[PATH_MAX];
	size_t len = strlen(s);
	ssize_t n = 0;
	int fd, e = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	if (len && (n = write(fd, s, len)) < 0)
		e = errno;
	close(fd);
	return e ? -e : (size_t)n == len ? 0 : -EIO;
}
