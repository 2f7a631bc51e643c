// SPDX-License-Identifier: GPL-2.0
/*
 * funcs.c - the functions `sonde ltrace` traces, and the libraries of a
 * program in load order (see funcs.h)
 */
#include "lib/ltrace/funcs.h"
#include "lib/proc/maps.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void lt_plan__of(const struct lt_proto *p, struct lt_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	for (int i = 0; i < p->nargs && plan->n < LT_NSTR; i++) {
		if (p->arg[i] == 's' || p->arg[i] == 'f') {
			plan->arg[plan->n] = i;
			plan->mode[plan->n++] = LT_CAP_STR;
		} else if (p->arg[i] == 'b') {
			plan->arg[plan->n] = i;
			plan->len[plan->n] = p->lenarg[i];
			plan->mode[plan->n++] = LT_CAP_BUF;
		}
		/* a format's arguments may be strings: try the next registers (a failed read costs little) */
		if (p->arg[i] == 'f')
			for (int j = i + 1; j < LT_MAX_ARGS && plan->n < LT_NSTR - (p->ret == 's'); j++) {
				plan->arg[plan->n] = j;
				plan->mode[plan->n++] = LT_CAP_STR;
			}
	}
	if (p->ret == 's') {
		if (plan->n == LT_NSTR)
			plan->n--;
		plan->arg[plan->n] = LT_RET_ARG;
		plan->mode[plan->n++] = LT_CAP_STR;
	}
}

/* the first library (in load order) that exports name */
static const struct elf_obj *definer(const struct lt_select *s, const char *name)
{
	for (int i = 0; i < s->nr_libs; i++)
		if (elf_obj__defines(&s->libs[i], name))
			return &s->libs[i];
	return NULL;
}

static bool lib_selected(const struct lt_select *s, const struct elf_obj *lib)
{
	for (int i = 0; lib && i < s->nr_lpats; i++)
		if (!fnmatch(s->lpats[i], lib->soname, 0))
			return true;
	return false;
}

static int add(const struct lt_select *s, struct lt_funcs *out, const struct elf_obj *o, const char *path,
	       const struct plt_entry *e)
{
	const char *sig = lt_proto__lookup(e->name);
	struct lt_func *nf, *f;

	if (out->n >= LT_MAX_FUNCS)
		return -E2BIG;
	if (!(nf = realloc(out->f, (out->n + 1) * sizeof(*nf))))
		return -ENOMEM;
	out->f = nf;
	f = &nf[out->n++];
	memset(f, 0, sizeof(*f));
	f->name = e->name;
	f->caller = o->soname;
	f->path = path;
	f->offset = e->offset;
	f->got_rel = (int64_t)(e->got - e->vaddr);
	if (!sig || lt_proto__parse(sig, &f->proto)) {
		lt_proto__default(&f->proto);
		f->dwarf = true;	/* to be looked up */
	}
	return 0;
}

/* the functions the table does not know: from the DWARF of their library, a library at a time */
static int dwarf_protos(const struct lt_select *s, struct lt_funcs *out)
{
	const char **names = calloc(out->n + 1, sizeof(*names));
	struct lt_proto *protos = calloc(out->n + 1, sizeof(*protos));
	bool *found = calloc(out->n + 1, sizeof(*found));
	int *which = calloc(out->n + 1, sizeof(*which)), rc = 0;
	const struct elf_obj **def = calloc(out->n + 1, sizeof(*def));

	if (!names || !protos || !found || !which || !def) {
		rc = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < out->n; i++)
		def[i] = out->f[i].dwarf ? definer(s, out->f[i].name) : NULL;
	for (int l = 0; l < s->nr_libs; l++) {
		int n = 0;

		for (int i = 0; i < out->n; i++)
			if (def[i] == &s->libs[l]) {
				which[n] = i;
				found[n] = false;
				names[n++] = out->f[i].name;
			}
		if (n && lt_dwarf__protos(s->libs[l].path, names, n, protos, found) <= 0)
			memset(found, 0, n * sizeof(*found));
		for (int k = 0; k < n; k++) {
			if (found[k])
				out->f[which[k]].proto = protos[k];
			else
				out->f[which[k]].dwarf = false;
		}
	}
	for (int i = 0; i < out->n; i++)
		if (!def[i])
			out->f[i].dwarf = false;
out:
	free(names);
	free(protos);
	free(found);
	free(which);
	free(def);
	return rc;
}

int lt_funcs__select(const struct lt_select *s, struct lt_funcs *out)
{
	bool libs = lt_filter__libraries(s->filter) || s->nr_lpats;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (int i = -1; i < (libs ? s->nr_libs : 0) && !rc; i++) {
		const struct elf_obj *o = i < 0 ? s->exe : &s->libs[i];
		const char *path = i < 0 ? s->exe_path : o->path;

		for (int j = 0; j < o->nr_plt && !rc; j++) {
			const struct plt_entry *e = &o->plt[j];
			bool want;

			if (s->filter || !s->nr_lpats)
				want = lt_filter__match(s->filter, e->name, o->soname, o->path, i < 0);
			else
				want = false;
			if (!want && s->nr_lpats)
				want = lib_selected(s, definer(s, e->name));
			if (want)
				rc = add(s, out, o, path, e);
		}
	}
	if (!rc && s->dwarf)
		rc = dwarf_protos(s, out);
	for (int i = 0; i < out->n; i++) {
		if (!s->dwarf)
			out->f[i].dwarf = false;
		lt_plan__of(&out->f[i].proto, &out->f[i].plan);
		out->f[i].plan.got_rel = (int32_t)out->f[i].got_rel;
	}
	return rc;
}

int lt_funcs__add_entries(struct lt_funcs *out, const struct plt_entry *e, int n, const char *caller,
			  const char *path)
{
	const char **names = calloc(n + 1, sizeof(*names));
	struct lt_proto *protos = calloc(n + 1, sizeof(*protos));
	bool *found = calloc(n + 1, sizeof(*found));
	int first = out->n, rc = 0;
	struct lt_func *nf;

	if (!names || !protos || !found || out->n + n > LT_MAX_FUNCS ||
	    !(nf = realloc(out->f, (out->n + n + 1) * sizeof(*nf)))) {
		rc = names && protos && found && out->n + n > LT_MAX_FUNCS ? -E2BIG : -ENOMEM;
		goto out;
	}
	out->f = nf;
	for (int i = 0; i < n; i++) {
		struct lt_func *f = &out->f[out->n++];
		const char *sig = lt_proto__lookup(e[i].name);

		memset(f, 0, sizeof(*f));
		f->name = e[i].name;
		f->caller = caller;
		f->path = path;
		f->offset = e[i].offset;
		names[i] = e[i].name;
		if (sig && !lt_proto__parse(sig, &f->proto))
			found[i] = true;	/* the table's, not DWARF's */
		else
			lt_proto__default(&f->proto);
	}
	if (n && lt_dwarf__protos(path, names, n, protos, found) > 0)
		for (int i = 0; i < n; i++)
			if (found[i] && !lt_proto__lookup(e[i].name))
				out->f[first + i].proto = protos[i];
	for (int i = first; i < out->n; i++)
		lt_plan__of(&out->f[i].proto, &out->f[i].plan);
out:
	free(names);
	free(protos);
	free(found);
	return rc;
}

void lt_funcs__free(struct lt_funcs *fs)
{
	free(fs->f);
	memset(fs, 0, sizeof(*fs));
}

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
