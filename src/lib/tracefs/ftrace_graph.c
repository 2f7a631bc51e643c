// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_graph.c - the function_graph tracer (a kernel call tree with
 * durations) for `sonde ftrace -G`. In the private instance where the kernel
 * allows it there (6.10 and later); before that function_graph runs only in
 * the top-level buffer, as trace-cmd and perf ftrace use it: then every setting
 * touched is saved first and restored by ftrace__close, and also in a state
 * file (/run/sonde-fgraph-PID) so that a sonde killed with SIGKILL has them
 * restored by the next ftrace__open. A top-level tracer someone else set is
 * never taken over.
 */
#include "lib/tracefs/ftrace.h"
#include "lib/tracefs/tracefs.h"

#include "lib/proc/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ERR(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); } while (0)
#define STATE_FMT "/run/sonde-fgraph-%d"

/* the top-level files -G changes, restored as they were */
static const char *const saved_files[] = {
	"tracing_on", "current_tracer", "set_graph_function", "set_graph_notrace", "max_graph_depth",
	"set_ftrace_pid", "set_ftrace_filter", "set_ftrace_notrace", "options/funcgraph-irqs", "options/graph-time",
	"options/function-fork", "set_ftrace_notrace_pid", NULL,
};
#define NSAVED (sizeof(saved_files) / sizeof(saved_files[0]) - 1)

/* a whole file (up to 64 kB) into a malloc'd string; NULL when it cannot be read */
static char *slurp(const char *path)
{
	char *buf = malloc(65536);
	ssize_t n = 0, r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (n < 65535 && (r = read(fd, buf + n, 65535 - n)) > 0)
		n += r;
	close(fd);
	buf[n] = 0;
	return buf;
}

/* write back a saved value: a list file line by line (its "all"/"no pid" text means empty) */
static void restore_one(const char *root, const char *file, const char *val)
{
	char *copy, *line, *sv;
	bool list = !strncmp(file, "set_", 4);

	if (!list) {
		tracefs__put(root, file, val, false);
		return;
	}
	tracefs__put(root, file, "", false);
	if (!strncmp(val, "####", 4) || !strncmp(val, "no pid", 6) || !(copy = strdup(val)))
		return;
	for (line = strtok_r(copy, "\n", &sv); line; line = strtok_r(NULL, "\n", &sv))
		if (*line != '#')
			tracefs__put(root, file, strtok(line, " "), true);	/* "func [options]": the name */
	free(copy);
}

/* the state file: the top-level values, one "FILE=VALUE" record per NUL-ended entry */
static void write_state(struct ftrace *ft)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), STATE_FMT, (int)getpid());
	f = fopen(path, "we");
	if (!f)
		return;	/* only the SIGKILL case loses: ftrace__close restores from memory */
	for (size_t i = 0; i < NSAVED; i++)
		if (ft->graph_saved[i])
			fprintf(f, "%s=%s%c", saved_files[i], ft->graph_saved[i], 0);
	fclose(f);
}

static void restore_from(const char *root, char *state, size_t len)
{
	/* tracing_on last: the tracer and its filters first */
	for (int pass = 0; pass < 2; pass++)
		for (char *p = state; p < state + len; p += strlen(p) + 1) {
			char *eq = strchr(p, '=');

			if (!eq)
				continue;
			*eq = 0;
			if ((pass == 1) == !strcmp(p, "tracing_on"))
				restore_one(root, p, eq + 1);
			*eq = '=';
		}
}

int ftrace__graph_restore_stale(struct ftrace *ft, pid_t *pid_out)
{
	char path[64], *state = NULL;
	pid_t found = 0;
	int n = 0;

	DIR *run = opendir("/run");
	struct dirent *d;

	while (run && (d = readdir(run))) {
		int pid;

		if (sscanf(d->d_name, "sonde-fgraph-%d", &pid) != 1 || pid == getpid() || target__alive(pid))
			continue;
		snprintf(path, sizeof(path), STATE_FMT, pid);
		state = slurp(path);
		if (state) {
			size_t len = 0;

			while (len < 65534 && (state[len] || state[len + 1]))	/* NUL-ended entries, then NUL */
				len++;
			restore_from(ft->root, state, len + 1);
			free(state);
			found = pid;
			n++;
		}
		unlink(path);
	}
	if (run)
		closedir(run);
	if (pid_out)
		*pid_out = found;
	return n;
}

static bool has_tracer(const char *dir, const char *name)
{
	char path[PATH_MAX], *buf, *tok, *sv;
	bool yes = false;

	snprintf(path, sizeof(path), "%s/available_tracers", dir);
	buf = slurp(path);
	for (tok = buf ? strtok_r(buf, " \n", &sv) : NULL; tok && !yes; tok = strtok_r(NULL, " \n", &sv))
		yes = !strcmp(tok, name);
	free(buf);
	return yes;
}

static int set_list(const char *dir, const char *file, char *const *v, int n, char *err, size_t errlen)
{
	tracefs__put(dir, file, "", false);
	for (int i = 0; i < n; i++) {
		int rc = tracefs__put(dir, file, v[i], true);

		if (rc) {
			ERR(rc == -EINVAL || rc == -ENOENT ? "no traceable kernel function matches '%s' (%s)" :
			    "cannot write '%s' to %s: %s", v[i], file, strerror(-rc));
			return rc == -EINVAL ? -ENOENT : rc;
		}
	}
	return 0;
}

int ftrace__set_graph(struct ftrace *ft, const struct ftrace_graph_opts *o, const pid_t *pids, int npids,
		      char *err, size_t errlen)
{
	const char *dir = ft->dir;
	char buf[64], path[PATH_MAX];
	int rc;

	if (!has_tracer(ft->root, "function_graph")) {
		ERR("cannot use the function_graph tracer: this kernel %s (available_tracers lacks it); "
		    "tracepoints (-e) still work", has_tracer(ft->root, "function") ?
		    "has the function tracer but not function_graph" : "has no function tracer here");
		return -ENODEV;
	}
	if (!has_tracer(ft->dir, "function_graph")) {	/* before 6.10: the top-level buffer only */
		char *cur;

		dir = ft->root;
		snprintf(path, sizeof(path), "%s/current_tracer", dir);
		cur = slurp(path);
		if (cur && strcmp(cur, "nop\n")) {
			ERR("cannot use function_graph: the top-level tracer is '%.*s', someone else's (this kernel "
			    "runs function_graph only there); 'echo nop > current_tracer' frees it", (int)strcspn(cur, "\n"),
			    cur);
			free(cur);
			return -EBUSY;
		}
		free(cur);
		for (size_t i = 0; i < NSAVED; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, saved_files[i]);
			ft->graph_saved[i] = slurp(path);
			if (ft->graph_saved[i])	/* one line for the scalar files */
				ft->graph_saved[i][strncmp(saved_files[i], "set_", 4) ?
						    strcspn(ft->graph_saved[i], "\n") : strlen(ft->graph_saved[i])] = 0;
		}
		ft->graph_top = true;
		write_state(ft);
		tracefs__put(dir, "tracing_on", "0", false);
		tracefs__put(dir, "trace", "", false);	/* what the top-level buffer held is not this trace */
	}
	snprintf(ft->tdir, sizeof(ft->tdir), "%s", dir);
	if ((rc = set_list(dir, "set_graph_function", o->funcs, o->n, err, errlen)) ||
	    (rc = set_list(dir, "set_graph_notrace", o->notrace, o->nn, err, errlen)) ||
	    (rc = set_list(dir, "set_ftrace_filter", o->only, o->nonly, err, errlen)))
		return rc;
	snprintf(buf, sizeof(buf), "%d", o->max_depth);
	if (ft->graph_top && (rc = tracefs__put(dir, "max_graph_depth", buf, false))) {
		ERR("cannot set max_graph_depth to %d: %s", o->max_depth, strerror(-rc));
		return rc;
	}
	if (!ft->graph_top && o->max_depth) {
		ERR("--max-depth: this kernel's max_graph_depth is global, not the instance's");
		return -EINVAL;
	}
	tracefs__put(dir, "options/funcgraph-irqs", o->no_irq ? "0" : "1", false);
	if (o->graph_time && (rc = tracefs__put(dir, "options/graph-time", "1", false))) {
		ERR("--graph-time: %s", rc == -ENOENT ? "this kernel has no options/graph-time (CONFIG_FUNCTION_PROFILER "
		    "is off): durations include the children's time only" : strerror(-rc));
		return rc;
	}
	if (!o->graph_time)
		tracefs__put(dir, "options/graph-time", "0", false);
	tracefs__put(dir, "set_ftrace_pid", "", false);
	for (int i = 0; i < npids; i++) {
		snprintf(buf, sizeof(buf), "%d", (int)pids[i]);
		if ((rc = tracefs__put(dir, "set_ftrace_pid", buf, true))) {
			ERR("cannot trace pid %d (set_ftrace_pid): %s", (int)pids[i], strerror(-rc));
			return rc;
		}
	}
	if (npids) {
		tracefs__put(dir, "options/function-fork", o->children ? "1" : "0", false);
	} else {	/* everyone but sonde: its reads of trace_pipe would be traced too */
		snprintf(buf, sizeof(buf), "%d", (int)getpid());
		tracefs__put(dir, "set_ftrace_notrace_pid", buf, false);
	}
	rc = tracefs__put(dir, "current_tracer", "function_graph", false);
	if (rc) {
		ERR("cannot select the function_graph tracer: %s%s", strerror(-rc), rc == -EPERM ?
		    " (the kernel or its hypervisor forbids function tracing); tracepoints (-e) still work" : "");
		return rc;
	}
	ft->function = true;
	return 0;
}

void ftrace__graph_close(struct ftrace *ft)
{
	char path[64];
	size_t len = 0;
	char *state;

	if (!ft->graph_top)
		return;
	tracefs__put(ft->root, "tracing_on", "0", false);
	tracefs__put(ft->root, "current_tracer", "nop", false);
	/* the saved values, as the state file has them (the same code that restores a killed run's) */
	state = malloc(65536 * 2);
	for (size_t i = 0; state && i < NSAVED; i++)
		if (ft->graph_saved[i] && len + strlen(saved_files[i]) + strlen(ft->graph_saved[i]) + 2 < 65536 * 2)
			len += sprintf(state + len, "%s=%s", saved_files[i], ft->graph_saved[i]) + 1;
	if (state)
		restore_from(ft->root, state, len);
	free(state);
	for (size_t i = 0; i < NSAVED; i++) {
		free(ft->graph_saved[i]);
		ft->graph_saved[i] = NULL;
	}
	snprintf(path, sizeof(path), STATE_FMT, (int)getpid());
	unlink(path);
	ft->graph_top = false;
}

bool ftrace__feature(const char *name, const char **why)
{
	static char msgs[4][256];	/* one per feature: the caller keeps the reasons */
	char *msg = msgs[name[0] == 'k' ? 0 : name[0] == 'u' ? 1 : strchr(name, '_') ? 3 : 2];
	const char *root = tracefs__dir();
	char path[PATH_MAX], inst[PATH_MAX];
	bool ok;
	int rc;

	*why = msg;
	if (!root) {
		snprintf(msg, sizeof(msgs[0]), "tracefs is not mounted");
		return false;
	}
	if (!strcmp(name, "kprobe_events") || !strcmp(name, "uprobe_events")) {
		snprintf(path, sizeof(path), "%s/%s", root, name);
		ok = !access(path, W_OK);
		snprintf(msg, sizeof(msgs[0]), "no %s (CONFIG_%s_EVENTS)", name, name[0] == 'k' ? "KPROBE" : "UPROBE");
		return ok;
	}
	if (!has_tracer(root, name)) {
		snprintf(msg, sizeof(msgs[0]), "not in available_tracers");
		return false;
	}
	/* tried for real in an instance of its own: a filter on one function */
	snprintf(inst, sizeof(inst), "%s/instances/sonde-%d", root, (int)getpid());
	if (mkdir(inst, 0700)) {
		snprintf(msg, sizeof(msgs[0]), "cannot create an instance: %s", strerror(errno));
		return false;
	}
	rc = tracefs__put(inst, "set_ftrace_filter", "do_sys_openat2", false);
	rmdir(inst);
	snprintf(msg, sizeof(msgs[0]), "the kernel refuses it (set_ftrace_filter: %s)", strerror(-rc));
	return !rc;
}
