// SPDX-License-Identifier: GPL-2.0
/*
 * provider_usdt.c - usdt:BINARY:[PROVIDER:]NAME probes: every location of
 * every matching probe (lib/symbol/usdt.h reads them from the ELF notes) becomes
 * an instance with its own program, since each location has its own
 * argument specs. Each attaches as a uprobe perf event at the location's file
 * offset; a probe guarded by a semaphore also passes the semaphore's file
 * offset, so the kernel counts it up while the probe is attached.
 */
#include "lang/provider.h"
#include "lib/proc/maps.h"
#include "lib/symbol/usdt.h"
#include "lib/util.h"

#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_LEN 4096

/* does a mapped file's path name the library or binary `name` ("c", "libc", "libc.so.6")? */
static bool names_file(const char *path, const char *name)
{
	const char *b = strrchr(path, '/');
	size_t n = strlen(name);
	char lib[256];

	b = b ? b + 1 : path;
	if (!strcmp(b, name))
		return true;
	if (!strncmp(b, name, n) && !strncmp(b + n, ".so", 3))
		return true;
	snprintf(lib, sizeof(lib), "lib%s", name);
	n = strlen(lib);
	return !strncmp(b, lib, n) && !strncmp(b + n, ".so", 3);
}

/* a file as process pid sees it: its path in our mount namespace */
static void pid_path(pid_t pid, const char *path, char *out, size_t len)
{
	struct stat a, b;
	char root[PATH_LEN + 32];

	snprintf(root, sizeof(root), "/proc/%d/root%s", pid, path);
	if (!stat(path, &a) && !stat(root, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		snprintf(out, len, "%s", path);
	else
		snprintf(out, len, "%s", root);
}

/*
 * the files process pid maps executable that `name` names (every one for ""
 * or "*"); their count (at most max), or -errno
 */
static int pid_files(pid_t pid, const char *name, char (*out)[PATH_LEN], int max)
{
	struct proc_maps *it = proc_maps__open(pid);
	const struct proc_map *m;
	int n = 0;

	if (!it)
		return -errno;
	while (n < max && (m = proc_maps__next(it))) {
		const char *path = m->name;

		if (path[0] != '/' || !proc_map__exec(m) || strstr(path, " (deleted)"))
			continue;
		if (*name && strcmp(name, "*") && !names_file(path, name))
			continue;
		char full[PATH_LEN];
		bool dup = false;

		pid_path(pid, path, full, sizeof(full));
		for (int i = 0; i < n && !dup; i++)
			dup = !strcmp(out[i], full);
		if (!dup)
			snprintf(out[n++], PATH_LEN, "%s", full);
	}
	proc_maps__close(it);
	return n;
}

#define MAX_FILES 64

/* the files an attach point's BINARY names; their count or -errno with a message */
static int usdt_files(struct program *prog, struct attach *ap, const char *bin, char (*files)[PATH_LEN])
{
	pid_t pid = provider__target_pid();
	int n;

	if (!*bin || !strcmp(bin, "*")) {
		if (pid <= 0) {
			lang__error(prog, ap->loc, "a usdt probe without a binary needs -p PID (its binary and libraries are searched)");
			return -EINVAL;
		}
		n = pid_files(pid, "", files, MAX_FILES);
		if (n < 0)
			lang__error(prog, ap->loc, "cannot read the mappings of process %d: %s", pid, strerror(-n));
		return n;
	}
	/* with -p, a library is the one that process maps (its version, its mount namespace) */
	if (pid > 0 && !strchr(bin, '/') && (n = pid_files(pid, bin, files, 1)) > 0)
		return n;
	if (provider__resolve_path(bin, files[0], PATH_LEN)) {
		lang__error(prog, ap->loc, "cannot find binary or library '%s'%s", bin,
			    pid > 0 ? " (neither in PATH, the library directories, nor mapped by the -p process)" : "");
		return -ENOENT;
	}
	return 1;
}

int provider__usdt_expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail)
{
	const char *bin = ap->a, *prov = ap->c ? ap->b : "*", *name = ap->c ? ap->c : ap->b;
	char (*files)[PATH_LEN];
	char err[512] = "";
	int nfiles, found = 0, nnotes = 0, rc = 0;

	if (!bin || !name || !*name || !*prov) {
		lang__error(prog, ap->loc, "a usdt probe is written usdt:BINARY:[PROVIDER:]NAME");
		return -EINVAL;
	}
	files = calloc(MAX_FILES, sizeof(*files));
	if (!files)
		return -ENOMEM;
	nfiles = usdt_files(prog, ap, bin, files);
	if (nfiles < 0) {
		free(files);
		return nfiles;
	}
	for (int f = 0; f < nfiles && !rc; f++) {
		struct usdt_probe *probes;
		int n;

		rc = usdt__read(files[f], &probes, &n, err, sizeof(err));
		if (rc) {
			if (nfiles > 1) {	/* one of a process's mappings: not ours to judge */
				rc = 0;
				continue;
			}
			lang__error(prog, ap->loc, "cannot read the USDT probes of '%s': %s", files[f], err);
			break;
		}
		nnotes += n;
		for (int i = 0; i < n; i++) {
			struct usdt_probe *p = &probes[i];
			char iname[PATH_LEN + 300];

			if (fnmatch(prov, p->provider, 0) || fnmatch(name, p->name, 0))
				continue;
			if (found >= 4096) {
				lang__error(prog, ap->loc, "'%s' matches more than 4096 USDT probe locations", ap->text);
				rc = -E2BIG;
				break;
			}
			snprintf(iname, sizeof(iname), "usdt:%s:%s:%s", files[f], p->provider, p->name);
			struct ap_inst *in = provider__new_inst(prog, pr, ap, tail, iname);
			struct usdt_probe *copy = arena__alloc(prog->arena, sizeof(*copy));

			*copy = *p;
			in->usdt = copy;
			in->path = arena__strndup(prog->arena, files[f], strlen(files[f]));
			in->sym = arena__strndup(prog->arena, p->name, strlen(p->name));
			in->offset = p->offset;
			found++;
		}
		usdt__free(probes);
	}
	if (!rc && !found) {
		const char *what = nfiles == 1 ? files[0] : "the binary and libraries of the -p process";

		if (pr->aps->next) {	/* one of several attach points, as uprobes */
			lang__warn(prog, ap->loc, "skipping '%s': no USDT probe matches it in %s", ap->text, what);
		} else if (!nnotes) {
			lang__error(prog, ap->loc, "%s has no USDT probes (no .note.stapsdt section)", what);
			rc = -ENOENT;
		} else {
			lang__error(prog, ap->loc, "no USDT probe %s:%s in %s (see sonde probe -l 'usdt:%s:*')", prov, name,
				    what, nfiles == 1 ? files[0] : bin);
			rc = -ENOENT;
		}
	}
	free(files);
	return rc;
}


/* the first bit of the uprobe PMU's ref_ctr_offset field ("config:32-63"), or -1 */
static int ref_ctr_shift(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/format/ref_ctr_offset", "r");
	int bit = -1;

	if (f) {
		if (fscanf(f, "config:%d", &bit) != 1)
			bit = -1;
		fclose(f);
	}
	return bit;
}

int provider__usdt_attach(struct ap_inst *in, const struct attach_ctx *ctx, char *err, size_t errlen)
{
	struct perf_event_attr attr = { 0 };
	const char *type_path = "/sys/bus/event_source/devices/uprobe/type";
	pid_t pid = ctx->pid > 0 ? ctx->pid : -1;
	int type;

	if (util__read_int(type_path, &type)) {
		snprintf(err, errlen, "cannot attach '%s': this kernel has no uprobe PMU (%s is missing)", in->name, type_path);
		return -EOPNOTSUPP;
	}
	attr.size = sizeof(attr);
	attr.type = type;
	if (in->usdt->sem_offset) {
		int shift = ref_ctr_shift();

		if (shift < 0) {
			snprintf(err, errlen, "cannot attach '%s': it is guarded by a semaphore and this kernel cannot count "
				 "it (no ref_ctr_offset in /sys/bus/event_source/devices/uprobe/format: Linux 4.20 or later); "
				 "the program would skip the probe", in->name);
			return -EOPNOTSUPP;
		}
		if (shift >= 64 || in->usdt->sem_offset >> (64 - shift)) {
			snprintf(err, errlen, "cannot attach '%s': its semaphore's offset 0x%llx does not fit the uprobe PMU",
				 in->name, (unsigned long long)in->usdt->sem_offset);
			return -EOVERFLOW;
		}
		attr.config = in->usdt->sem_offset << shift;
	}
	attr.config1 = (uint64_t)(uintptr_t)in->path;
	attr.config2 = in->offset;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	return provider__attach_perf(in, &attr, pid, pid >= 0 ? -1 : 0, err, errlen);
}

struct seen {
	char **names;
	int n;
};

static void list_file(const char *path, const char *rest, struct seen *s)
{
	struct usdt_probe *probes;
	char err[256], name[PATH_LEN + 300], pat1[PATH_LEN + 300], pat2[PATH_LEN + 300];
	int n;

	if (usdt__read(path, &probes, &n, err, sizeof(err)))
		return;
	snprintf(pat1, sizeof(pat1), "usdt:%s:%s", path, rest);
	snprintf(pat2, sizeof(pat2), "usdt:%s:*:%s", path, rest);
	for (int i = 0; i < n; i++) {
		bool dup = false;

		snprintf(name, sizeof(name), "usdt:%s:%s:%s", path, probes[i].provider, probes[i].name);
		if (fnmatch(pat1, name, 0) && fnmatch(pat2, name, 0))
			continue;
		for (int j = 0; j < s->n && !dup; j++)	/* a probe with several locations is listed once */
			dup = !strcmp(s->names[j], name);
		if (dup)
			continue;
		char **v = realloc(s->names, (s->n + 1) * sizeof(*v));

		if (!v)
			break;
		s->names = v;
		if (!(s->names[s->n] = strdup(name)))
			break;
		s->n++;
	}
	usdt__free(probes);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void provider__usdt_list(const char *pat, void (*cb)(const char *name, void *ctx), void *ctx)
{
	const char *p = pat + 5, *c = strchr(p, ':');
	char bin[PATH_LEN];
	char (*files)[PATH_LEN] = calloc(MAX_FILES, sizeof(*files));
	struct seen s = { 0 };
	pid_t pid = provider__target_pid();
	int n = 0;

	if (!files)
		return;
	if (!c)	/* "usdt:BINARY" lists all of its probes */
		c = p + strlen(p);
	snprintf(bin, sizeof(bin), "%.*s", (int)(c - p), p);
	if (pid > 0 && !strchr(bin, '/'))
		n = pid_files(pid, bin, files, MAX_FILES);
	if (n <= 0 && *bin && strcmp(bin, "*") && !provider__resolve_path(bin, files[0], PATH_LEN))
		n = 1;
	for (int i = 0; i < n; i++)
		list_file(files[i], *c ? c + 1 : "*", &s);
	if (s.n)	/* sorted, as bpftrace lists them */
		qsort(s.names, s.n, sizeof(*s.names), cmp_str);
	for (int i = 0; i < s.n; i++) {
		cb(s.names[i], ctx);
		free(s.names[i]);
	}
	free(s.names);
	free(files);
}
