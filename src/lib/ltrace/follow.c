// SPDX-License-Identifier: GPL-2.0
/*
 * follow.c - the functions `sonde ltrace` traces as a process execs and
 * dlopens; see follow.h.
 */
#include "lib/ltrace/follow.h"
#include "lib/proc/maps.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct lt_image {
	struct elf_obj exe;
	struct elf_obj *libs;
	int nlibs;
	struct lt_funcs fs;
	char path[64];
};

struct lt_file_id {
	dev_t dev;
	ino_t ino;
};

static void warn(struct lt_follow *f, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!f->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	f->warn(f->warn_ctx, msg);
}

bool lt_follow__seen(struct lt_follow *f, const char *path)
{
	struct lt_file_id *n;
	struct stat st;

	if (stat(path, &st))
		return true;
	for (int i = 0; i < f->nfiles; i++)
		if (f->files[i].dev == st.st_dev && f->files[i].ino == st.st_ino)
			return true;
	if ((n = realloc(f->files, (f->nfiles + 1) * sizeof(*n)))) {
		f->files = n;
		n[f->nfiles++] = (struct lt_file_id){ st.st_dev, st.st_ino };
	}
	return false;
}

/* the table's entries of fs, from cookie `from` on; 0 or -ENOMEM */
static int table_add(struct lt_follow *f, const struct lt_funcs *fs, int from)
{
	struct ltrace_func *t = realloc(f->funcs, (from + fs->n + 1) * sizeof(*t));

	if (!t)
		return -ENOMEM;
	f->funcs = t;
	for (int i = 0; i < fs->n; i++)
		t[from + i] = (struct ltrace_func){ fs->f[i].name, fs->f[i].caller, fs->f[i].proto };
	return 0;
}

int lt_follow__start(struct lt_follow *f, const struct lt_funcs *fs)
{
	if (table_add(f, fs, 0))
		return -ENOMEM;
	f->nr_funcs = fs->n;
	for (int i = 0; i < fs->n; i++)
		lt_follow__seen(f, fs->f[i].path);
	return 0;
}

int lt_follow__add(struct lt_follow *f, const struct lt_funcs *fs, pid_t pid)
{
	struct ltrace_probe *probes = calloc(fs->n + 1, sizeof(*probes));
	struct lt_plan *plans = calloc(fs->n + 1, sizeof(*plans));
	int rc = -ENOMEM;

	f->err[0] = 0;
	if (probes && plans && !table_add(f, fs, f->nr_funcs)) {
		for (int i = 0; i < fs->n; i++) {
			probes[i] = (struct ltrace_probe){ fs->f[i].path, fs->f[i].offset, f->nr_funcs + i };
			plans[i] = fs->f[i].plan;
		}
		rc = ltrace__attach(f->lt, probes, fs->n, plans, fs->n, f->nr_funcs, pid, f->err, sizeof(f->err));
		if (!rc)
			f->nr_funcs += fs->n;
	}
	free(probes);
	free(plans);
	return rc;
}

static struct lt_image *image_new(struct lt_follow *f)
{
	struct lt_image *n = realloc(f->imgs, (f->nimgs + 1) * sizeof(*n));

	if (!n)
		return NULL;
	f->imgs = n;
	return memset(&n[f->nimgs], 0, sizeof(*n));
}

static void release(struct lt_follow *f, pid_t pid, bool held)
{
	int rc;

	if (held && (rc = ltrace__release(f->lt, pid)) && rc != -ESRCH)
		warn(f, "cannot let process %d run on: %s", (int)pid, strerror(-rc));
}

/*
 * A traced process ran a new program: its PLT (and the libraries -e and -l
 * select, those not probed yet) probed as at the start, then it runs on
 */
void lt_follow__exec(struct lt_follow *f, pid_t pid, bool held)
{
	struct lt_image *im = image_new(f);
	int rc;

	if (!im)
		goto out;
	snprintf(im->path, sizeof(im->path), "/proc/%d/exe", (int)pid);
	if (f->no_libcalls || lt_follow__seen(f, im->path) || elf_obj__read(&im->exe, im->path))
		goto out;
	f->nimgs++;
	if (!im->exe.nr_plt || ltrace_libs__find(&im->exe, 0, &im->libs, &im->nlibs))
		goto out;
	struct lt_select sel = { &im->exe, im->path, im->libs, im->nlibs, f->filter, f->lpats, f->nr_lpats, true };

	if (lt_funcs__select(&sel, &im->fs))
		goto out;
	/* a library probed already fires in this process too (the funcs come grouped by path) */
	const char *last = NULL;
	int j = 0;

	for (int i = 0; i < im->fs.n; i++) {
		const char *path = im->fs.f[i].path;

		if (path == im->path || path == last || !lt_follow__seen(f, path)) {
			last = path;
			im->fs.f[j++] = im->fs.f[i];
		}
	}
	im->fs.n = j;
	if (im->fs.n && (rc = lt_follow__add(f, &im->fs, pid)))
		warn(f, "cannot trace the program process %d runs now: %s", (int)pid, f->err[0] ? f->err : strerror(-rc));
out:
	release(f, pid, held);
}

/*
 * The dynamic loader changed the libraries of a traced process: the PLTs of
 * those new in it that -e and -l select are probed (the process is held
 * meanwhile when sonde started it), as ltrace traces a dlopen'ed library
 */
void lt_follow__dlopen(struct lt_follow *f, pid_t pid, bool held)
{
	struct proc_maps *it = proc_maps__open(pid);
	const struct proc_map *m;
	static const struct elf_obj none;
	int rc;

	while (it && (m = proc_maps__next(it))) {
		struct lt_image *im;
		char path[PATH_MAX];

		if (m->name[0] != '/' || m->perms[2] != 'x' || strstr(m->name, " (deleted)"))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, m->name);
		if (lt_follow__seen(f, path) || !(im = image_new(f)))
			continue;
		if (!(im->libs = calloc(1, sizeof(*im->libs))) || elf_obj__read(im->libs, path)) {
			free(im->libs);
			continue;
		}
		im->nlibs = 1;
		f->nimgs++;
		struct lt_select sel = { &none, "", im->libs, 1, f->filter, f->lpats, f->nr_lpats, true };

		if (!im->libs->nr_plt || lt_funcs__select(&sel, &im->fs) || !im->fs.n)
			continue;
		if ((rc = lt_follow__add(f, &im->fs, pid)))
			warn(f, "cannot trace the calls of %s: %s", m->name, f->err[0] ? f->err : strerror(-rc));
	}
	if (it)
		proc_maps__close(it);
	release(f, pid, held);
}

void lt_follow__free(struct lt_follow *f)
{
	for (int i = 0; i < f->nimgs; i++) {
		lt_funcs__free(&f->imgs[i].fs);
		ltrace_libs__free(f->imgs[i].libs, f->imgs[i].nlibs);
		elf_obj__free(&f->imgs[i].exe);
	}
	free(f->imgs);
	free(f->files);
	free(f->funcs);
	f->imgs = NULL;
	f->files = NULL;
	f->funcs = NULL;
	f->nimgs = f->nfiles = f->nr_funcs = 0;
}
