// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace.c - tracefs control through a private instance.
 *
 * The kernel's interface (Documentation/trace/ftrace.rst, events.rst):
 * instances/NAME is created by mkdir and removed by rmdir (EBUSY while a file of
 * it is open); each instance has its own buffers, tracing_on, current_tracer,
 * events/G/E/{enable,filter}, set_event_pid with options/event-fork, and
 * set_ftrace_filter/notrace/pid with options/function-fork.
 */
#include "lib/tracefs/ftrace.h"
#include "lib/symbol/elfsym.h"
#include "lib/tracefs/tracefs.h"
#include "lib/proc/target.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ERR(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); } while (0)

/* the first line of DIR/file into buf; 0 or -errno */
static int get(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

/* note in ft->stale that `what` of the gone sonde `pid` was removed (or could not be: e > 0) */
static void note_stale(struct ftrace *ft, pid_t pid, const char *what, int e)
{
	struct ftrace_stale *st = NULL, *nv;
	size_t len;

	for (int i = 0; i < ft->nr_stale; i++)
		if (ft->stale[i].pid == pid)
			st = &ft->stale[i];
	if (!st) {
		nv = realloc(ft->stale, (ft->nr_stale + 1) * sizeof(*nv));
		if (!nv)
			return;
		ft->stale = nv;
		st = &nv[ft->nr_stale++];
		st->pid = pid;
		st->what[0] = 0;
	}
	len = strlen(st->what);
	snprintf(st->what + len, sizeof(st->what) - len, "%s%s%s%s", len ? ", " : "", what,
		 e ? " (could not remove it: " : "", e ? strerror(e) : "");
	if (e) {
		len = strlen(st->what);
		snprintf(st->what + len, sizeof(st->what) - len, ")");
	}
}

/* the pid of a sonde that named something "PREFIX<pid><end>", when it is gone; 0 otherwise */
static pid_t gone_sonde(const char *s, const char *prefix, char end)
{
	char *e;
	long pid;

	if (strncmp(s, prefix, strlen(prefix)))
		return 0;
	pid = strtol(s + strlen(prefix), &e, 10);
	if (*e != end || pid <= 0 || pid == getpid() || target__alive((pid_t)pid))
		return 0;
	return pid;
}

/* instances/sonde-PID whose process is gone (killed with SIGKILL): remove them */
static void remove_stale(struct ftrace *ft)
{
	char path[PATH_MAX], what[300], on[8] = "";
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/instances", ft->root);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		pid_t pid = gone_sonde(d->d_name, "sonde-", 0);

		if (!pid)
			continue;
		snprintf(path, sizeof(path), "%s/instances/%s", ft->root, d->d_name);
		get(path, "tracing_on", on, sizeof(on));
		snprintf(what, sizeof(what), "instance %s%s", d->d_name, on[0] == '1' ? " (still tracing)" : "");
		/* its events off first: a uprobe event enabled there could not be removed */
		tracefs__put(path, "tracing_on", "0", false);
		tracefs__put(path, "events/enable", "0", false);
		note_stale(ft, pid, what, rmdir(path) ? errno : 0);
	}
	closedir(dir);
}

/* uprobe events of groups sonde_PID whose process is gone: remove them */
static void remove_stale_uprobes(struct ftrace *ft)
{
	char path[PATH_MAX], line[1024];
	char *del[64];
	pid_t pids[64];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/uprobe_events", ft->root);
	f = fopen(path, "re");
	if (!f)
		return;
	/* "p:sonde_123/main /bin/x:0x0000000000001139" */
	while (n < 64 && fgets(line, sizeof(line), f)) {
		char *g = strchr(line, ':'), *sp;
		pid_t pid;

		if (!g || !(sp = strchr(g, ' ')))
			continue;
		*sp = 0;
		pid = gone_sonde(g + 1, "sonde_", '/');
		if (pid && asprintf(&del[n], "-:%s", g + 1) > 0)
			pids[n++] = pid;
	}
	fclose(f);
	for (int i = 0; i < n; i++) {
		char what[300];
		int rc = tracefs__put(ft->root, "uprobe_events", del[i], true);

		snprintf(what, sizeof(what), "uprobe event %s", del[i] + 2);
		note_stale(ft, pids[i], what, -rc);
		free(del[i]);
	}
}

int ftrace__open(struct ftrace *ft, char *err, size_t errlen)
{
	const char *root = tracefs__dir();

	memset(ft, 0, sizeof(*ft));
	ft->pipe_fd = -1;
	if (!root) {
		ERR("tracefs is not mounted and could not be mounted at /sys/kernel/tracing");
		return -ENODEV;
	}
	snprintf(ft->root, sizeof(ft->root), "%s", root);
	remove_stale(ft);
	remove_stale_uprobes(ft);
	{
		pid_t gone;

		if (ftrace__graph_restore_stale(ft, &gone) > 0)
			note_stale(ft, gone, "the top-level function_graph settings (restored)", 0);
	}
	snprintf(ft->uprobe_group, sizeof(ft->uprobe_group), "sonde_%d", (int)getpid());
	snprintf(ft->dir, sizeof(ft->dir), "%s/instances/sonde-%d", root, (int)getpid());
	if (mkdir(ft->dir, 0700)) {
		int e = errno;

		ERR("cannot create the tracefs instance '%s': %s%s", ft->dir, strerror(e),
		    e == EACCES || e == EPERM ? " (tracing needs root or CAP_SYS_ADMIN)" : "");
		return -e;
	}
	ft->created = true;
	snprintf(ft->tdir, sizeof(ft->tdir), "%s", ft->dir);
	tracefs__put(ft->dir, "tracing_on", "0", false);	/* an instance starts on: nothing until ftrace__start */
	return 0;
}

static int enable_one(struct ftrace *ft, const char *group, const char *name, const char *filter,
		      char *err, size_t errlen)
{
	char file[PATH_MAX];
	int rc;

	if (filter) {
		snprintf(file, sizeof(file), "events/%s/%s/filter", group, name);
		rc = tracefs__put(ft->dir, file, filter, false);
		if (rc) {
			char why[512] = "", *p, *nl;

			/* after a bad filter the file holds the expression, a caret and the parser's reason */
			if (!get(ft->dir, file, why, sizeof(why)) && (p = strstr(why, "parse_error: "))) {
				p += 13;
				if ((nl = strchr(p, '\n')))
					*nl = 0;
			} else {
				p = strerror(-rc);
			}
			ERR("bad filter '%s' for %s:%s: %s", filter, group, name, p);
			return rc;
		}
	}
	snprintf(file, sizeof(file), "events/%s/%s/enable", group, name);
	rc = tracefs__put(ft->dir, file, "1", false);
	if (rc) {
		ERR("cannot enable %s:%s: %s", group, name, strerror(-rc));
		return rc;
	}
	ft->nr_events++;
	return 0;
}

int ftrace__enable_events(struct ftrace *ft, const char *spec, const char *filter, char *err, size_t errlen)
{
	char grp[256], name[256];
	const char *sep = strpbrk(spec, ":/");
	struct tp_name *v = NULL;
	int n, rc = 0;

	if (!*spec || strlen(spec) >= sizeof(grp)) {
		ERR("bad event '%s'", spec);
		return -EINVAL;
	}
	if (sep) {
		snprintf(grp, sizeof(grp), "%.*s", (int)(sep - spec), spec);
		snprintf(name, sizeof(name), "%s", sep + 1);
		if (!*grp || !*name || strpbrk(name, ":/")) {
			ERR("bad event '%s': GROUP:EVENT, GROUP or EVENT (globs allowed)", spec);
			return -EINVAL;
		}
		n = tracefs__glob(grp, name, &v);
	} else {
		n = tracefs__glob(spec, "*", &v);	/* a group ... */
		if (n == 0) {
			free(v);
			n = tracefs__glob("*", spec, &v);	/* ... or an event of any group */
		}
	}
	if (n < 0) {
		ERR("cannot list the tracefs events: %s", strerror(-n));
		return n;
	}
	if (n == 0) {
		free(v);
		ERR("no tracepoint matches '%s'; see 'sonde ftrace --list-events'", spec);
		return -ENOENT;
	}
	for (int i = 0; i < n && !rc; i++) {
		if (!strcmp(v[i].group, "ftrace"))	/* the tracers' own formats, not events */
			continue;
		rc = enable_one(ft, v[i].group, v[i].name, filter, err, errlen);
	}
	tracefs__free_names(v, n);
	return rc ? rc : n;
}

int ftrace__set_pids(struct ftrace *ft, const pid_t *pids, int n, bool follow, char *err, size_t errlen)
{
	char buf[32];
	int rc;

	tracefs__put(ft->dir, "set_event_pid", "", false);
	for (int i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%d", (int)pids[i]);
		rc = tracefs__put(ft->dir, "set_event_pid", buf, true);
		if (rc) {
			ERR("cannot trace pid %d: %s", (int)pids[i], strerror(-rc));
			return rc;
		}
		/* the function tracer's own pid filter; refused with the tracer itself here */
		tracefs__put(ft->dir, "set_ftrace_pid", buf, true);
	}
	if (follow) {
		rc = tracefs__put(ft->dir, "options/event-fork", "1", false);
		if (rc) {
			ERR("cannot follow children (options/event-fork): %s", strerror(-rc));
			return rc;
		}
		tracefs__put(ft->dir, "options/function-fork", "1", false);
	}
	return 0;
}

static bool has_tracer(const char *root, const char *name)
{
	char buf[1024], *tok, *sv;

	if (get(root, "available_tracers", buf, sizeof(buf)))
		return false;
	for (tok = strtok_r(buf, " \n", &sv); tok; tok = strtok_r(NULL, " \n", &sv))
		if (!strcmp(tok, name))
			return true;
	return false;
}

#define EPERM_FMT "cannot use the function tracer: the kernel refuses it (writing %s: Operation not permitted; " \
		  "this kernel or its hypervisor forbids function tracing); tracepoints (-e) still work"

static int set_globs(struct ftrace *ft, const char *file, char *const *globs, int n, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		int rc = tracefs__put(ft->dir, file, globs[i], i > 0);

		if (rc == -EPERM || rc == -EACCES) {
			ERR(EPERM_FMT, file);
			return -EPERM;
		}
		if (rc == -EINVAL || rc == -ENOENT || rc == -ENODEV) {
			ERR("no traceable kernel function matches '%s'; see 'sonde ftrace --list-functions'", globs[i]);
			return -ENOENT;
		}
		if (rc) {
			ERR("cannot write '%s' to %s: %s", globs[i], file, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

int ftrace__set_functions(struct ftrace *ft, char *const *funcs, int n, char *const *notrace, int nn,
			  char *err, size_t errlen)
{
	int rc;

	if (!has_tracer(ft->root, "function")) {
		ERR("cannot use the function tracer: this kernel has none (CONFIG_FUNCTION_TRACER is off)");
		return -ENODEV;
	}
	rc = set_globs(ft, "set_ftrace_filter", funcs, n, err, errlen);
	if (!rc)
		rc = set_globs(ft, "set_ftrace_notrace", notrace, nn, err, errlen);
	if (rc)
		return rc;
	rc = tracefs__put(ft->dir, "current_tracer", "function", false);
	if (rc == -EPERM || rc == -EACCES) {
		ERR(EPERM_FMT, "current_tracer");
		return -EPERM;
	}
	if (rc) {
		ERR("cannot select the function tracer: %s", strerror(-rc));
		return rc;
	}
	ft->function = true;
	return 0;
}

int ftrace__add_uprobe(struct ftrace *ft, const char *spec, bool ret, char *ev, size_t evlen,
		       char *err, size_t errlen)
{
	char bin[PATH_MAX], real[PATH_MAX], name[64], cmd[PATH_MAX + 160];
	const char *colon = strrchr(spec, ':'), *func;
	unsigned long long off;
	char **nv;
	int rc;

	if (!colon || colon == spec || !colon[1] || (size_t)(colon - spec) >= sizeof(bin)) {
		ERR("bad uprobe '%s': BINARY:FUNCTION or BINARY:0xOFFSET", spec);
		return -EINVAL;
	}
	snprintf(bin, sizeof(bin), "%.*s", (int)(colon - spec), spec);
	func = colon + 1;
	if (!strchr(bin, '/')) {	/* a command name: where PATH finds it */
		const char *path = getenv("PATH");
		char *dirs = strdup(path ? path : "/usr/bin:/bin"), *d, *sv;
		bool found = false;

		for (d = dirs ? strtok_r(dirs, ":", &sv) : NULL; d && !found; d = strtok_r(NULL, ":", &sv)) {
			snprintf(real, sizeof(real), "%s/%s", d, bin);
			found = !access(real, X_OK);
		}
		free(dirs);
		if (found)
			snprintf(bin, sizeof(bin), "%s", real);
	}
	if (!realpath(bin, real)) {
		rc = -errno;
		ERR("bad uprobe '%s': cannot find '%s': %s", spec, bin, strerror(-rc));
		return rc;
	}
	if (!strncmp(func, "0x", 2)) {
		char *end;

		off = strtoull(func, &end, 16);
		if (*end) {
			ERR("bad uprobe '%s': '%s' is not an offset", spec, func);
			return -EINVAL;
		}
		snprintf(name, sizeof(name), "%s_%llx", ret ? "ret" : "off", off);
	} else {
		size_t j = 0;

		uint64_t foff = 0;

		rc = elfsym__func_offset(real, func, &foff);
		off = foff;
		if (rc) {
			ERR("bad uprobe '%s': %s", spec, rc == -ENOENT ? "no such function in its symbol tables" :
			    rc == -ENOEXEC ? "not an ELF executable or library" : strerror(-rc));
			return rc;
		}
		/* an event name is [A-Za-z0-9_]: C++ and versioned names are folded */
		for (const char *c = func; *c && j < sizeof(name) - 9; c++)
			name[j++] = isalnum((unsigned char)*c) ? *c : '_';
		name[j] = 0;
		if (ret)
			strcat(name, "__return");
	}
	for (int i = 0; i < ft->nr_uprobes; i++)
		if (!strcmp(ft->uprobes[i], name)) {
			ERR("uprobe '%s' given twice", spec);
			return -EEXIST;
		}
	snprintf(cmd, sizeof(cmd), "%c:%s/%s %s:0x%llx", ret ? 'r' : 'p', ft->uprobe_group, name, real, off);
	rc = tracefs__put(ft->root, "uprobe_events", cmd, true);
	if (rc) {
		ERR("cannot create the uprobe '%s' (uprobe_events): %s%s", spec, strerror(-rc),
		    rc == -ENOENT || rc == -ENODEV ? " (a kernel without CONFIG_UPROBE_EVENTS)" : "");
		return rc;
	}
	nv = realloc(ft->uprobes, (ft->nr_uprobes + 1) * sizeof(*nv));
	if (!nv || !(nv[ft->nr_uprobes] = strdup(name))) {
		if (nv)
			ft->uprobes = nv;
		snprintf(cmd, sizeof(cmd), "-:%s/%s", ft->uprobe_group, name);
		tracefs__put(ft->root, "uprobe_events", cmd, true);
		return -ENOMEM;
	}
	ft->uprobes = nv;
	ft->nr_uprobes++;
	snprintf(ev, evlen, "%s:%s", ft->uprobe_group, name);
	return 0;
}

int ftrace__set_buffer_kb(struct ftrace *ft, unsigned kb, char *err, size_t errlen)
{
	char buf[32];
	int rc;

	snprintf(buf, sizeof(buf), "%u", kb);
	rc = tracefs__put(ft->dir, "buffer_size_kb", buf, false);
	if (rc)
		ERR("cannot set the buffer to %u kB per CPU: %s", kb, strerror(-rc));
	return rc;
}

int ftrace__start(struct ftrace *ft, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int rc;

	snprintf(path, sizeof(path), "%s/trace_pipe", ft->tdir);
	ft->pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (ft->pipe_fd < 0) {
		rc = -errno;
		ERR("cannot open '%s': %s", path, strerror(-rc));
		return rc;
	}
	rc = tracefs__put(ft->tdir, "tracing_on", "1", false);
	if (rc)
		ERR("cannot turn tracing on: %s", strerror(-rc));
	return rc;
}

void ftrace__stop(struct ftrace *ft)
{
	if (ft->created)
		tracefs__put(ft->tdir, "tracing_on", "0", false);
}

unsigned long long ftrace__overruns(const struct ftrace *ft)
{
	unsigned long long total = 0;
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/per_cpu", ft->tdir);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		char file[PATH_MAX], buf[1024], *p;

		if (strncmp(d->d_name, "cpu", 3))
			continue;
		snprintf(file, sizeof(file), "per_cpu/%s/stats", d->d_name);
		if (!get(ft->tdir, file, buf, sizeof(buf)) && (p = strstr(buf, "overrun: ")))
			total += strtoull(p + 9, NULL, 10);
		if (!get(ft->tdir, file, buf, sizeof(buf)) && (p = strstr(buf, "dropped events: ")))
			total += strtoull(p + 16, NULL, 10);
	}
	closedir(dir);
	return total;
}

void ftrace__close(struct ftrace *ft)
{
	if (ft->pipe_fd >= 0) {
		close(ft->pipe_fd);
		ft->pipe_fd = -1;
	}
	free(ft->stale);
	ft->stale = NULL;
	ft->nr_stale = 0;
	if (!ft->created)
		return;
	ftrace__hist_close(ft);
	ftrace__graph_close(ft);
	tracefs__put(ft->dir, "tracing_on", "0", false);
	if (ft->function)
		tracefs__put(ft->dir, "current_tracer", "nop", false);
	tracefs__put(ft->dir, "events/enable", "0", false);
	if (rmdir(ft->dir) && errno == EBUSY) {
		/* a reader still holds a file: give it a moment */
		usleep(50000);
		rmdir(ft->dir);
	}
	ft->created = false;
	for (int i = 0; i < ft->nr_uprobes; i++) {
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "-:%s/%s", ft->uprobe_group, ft->uprobes[i]);
		tracefs__put(ft->root, "uprobe_events", cmd, true);
		free(ft->uprobes[i]);
	}
	free(ft->uprobes);
	ft->uprobes = NULL;
	ft->nr_uprobes = 0;
}

struct line_list {
	char **v;
	int n, cap;
};

static int list_add(struct line_list *l, const char *s)
{
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 256;
		char **nv = realloc(l->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	if (!(l->v[l->n] = strdup(s)))
		return -ENOMEM;
	l->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the lines of a tracefs file that match pattern (on the whole line, or the part after ':'), sorted */
static int list_file(const char *file, const char *pattern, bool after_colon,
		     void (*cb)(const char *, void *), void *arg)
{
	const char *root = tracefs__dir();
	struct line_list l = { 0 };
	char path[PATH_MAX], line[512];
	FILE *f;
	int rc = 0;

	if (!root)
		return -ENODEV;
	snprintf(path, sizeof(path), "%s/%s", root, file);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!rc && fgets(line, sizeof(line), f)) {
		char *nl = strchr(line, '\n'), *c;

		if (nl)
			*nl = 0;
		if (!*line)
			continue;
		c = after_colon ? strchr(line, ':') : NULL;
		if (!pattern || !fnmatch(pattern, line, 0) || (c && !fnmatch(pattern, c + 1, 0)))
			rc = list_add(&l, line);
		else if (!after_colon) {
			/* "func [module]": match the function's name alone too */
			char *sp = strchr(line, ' ');

			if (sp) {
				*sp = 0;
				if (!fnmatch(pattern, line, 0)) {
					*sp = ' ';
					rc = list_add(&l, line);
				}
			}
		}
	}
	if (ferror(f) && !rc)
		rc = -errno ? -errno : -EIO;
	fclose(f);
	if (!rc) {
		qsort(l.v, l.n, sizeof(*l.v), cmp_str);
		for (int i = 0; i < l.n; i++)
			if (!i || strcmp(l.v[i], l.v[i - 1]))
				cb(l.v[i], arg);
		rc = l.n;
	}
	for (int i = 0; i < l.n; i++)
		free(l.v[i]);
	free(l.v);
	return rc;
}

int ftrace__list_events(const char *pattern, void (*cb)(const char *ev, void *arg), void *arg)
{
	return list_file("available_events", pattern, true, cb, arg);
}

int ftrace__list_functions(const char *pattern, void (*cb)(const char *fn, void *arg), void *arg)
{
	return list_file("available_filter_functions", pattern, false, cb, arg);
}
