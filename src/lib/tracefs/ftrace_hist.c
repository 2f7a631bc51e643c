// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_hist.c - the kernel's hist triggers in sonde's instance, and its
 * latency tracers in the top-level buffer (the kernel runs them nowhere
 * else), with every top-level setting they change put back.
 */
#include "lib/tracefs/ftrace.h"
#include "lib/tracefs/tracefs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERR(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); } while (0)

/* the whole of DIR/file, malloc'd; NULL with errno */
static char *slurp(const char *dir, const char *file)
{
	char path[PATH_MAX], *buf = NULL;
	size_t len = 0, cap = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n;

		if (cap - len < 65536) {
			char *nb = realloc(buf, cap + 65536 + 1);

			if (!nb) {
				free(buf);
				close(fd);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap += 65536;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

int ftrace__hist_add(struct ftrace *ft, const char *event, const char *trigger, char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX], *t;
	const char *colon = strchr(event, ':');
	int rc;

	if (!colon || strchr(event, '*') || strchr(event, '?') || strchr(colon + 1, ':')) {
		ERR("--hist takes one event, GROUP:EVENT, not '%s'", event);
		return -EINVAL;
	}
	snprintf(dir, sizeof(dir), "%s/events/%.*s/%s", ft->dir, (int)(colon - event), event, colon + 1);
	snprintf(path, sizeof(path), "%s/trigger", dir);
	if (access(dir, F_OK)) {
		ERR("no tracepoint '%s' (see sonde ftrace --list-events)", event);
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "%s/hist", dir);
	if (access(path, F_OK)) {
		ERR("this kernel has no hist triggers (no events/%s/hist: CONFIG_HIST_TRIGGERS is off)", event);
		return -ENODEV;
	}
	if (!(t = strdup(trigger)))
		return -ENOMEM;
	rc = tracefs__put(dir, "trigger", t, true);
	if (rc) {
		/* the kernel says why in the instance's error_log; the line it keeps there is enough */
		char *log = slurp(ft->dir, "error_log"), *last = NULL;

		/* "[  12.345678] hist:GROUP:EVENT: Couldn't find field: ...", then its command */
		for (char *l = log ? strtok(log, "\n") : NULL; l; l = strtok(NULL, "\n"))
			if (l[0] == '[' && strchr(l, ']') && strstr(l, "hist:"))
				last = strchr(l, ']') + 1 + (strchr(l, ']')[1] == ' ');
		ERR("the kernel refuses the hist trigger '%s' on %s: %s%s%s", trigger, event, strerror(-rc),
		    last ? ": " : "", last ? last : "");
		free(log);
		free(t);
		return rc;
	}
	snprintf(ft->hist_dir, sizeof(ft->hist_dir), "%s", dir);
	ft->hist_trigger = t;
	return 0;
}

char *ftrace__hist_read(struct ftrace *ft, char *err, size_t errlen)
{
	char *s = ft->hist_trigger ? slurp(ft->hist_dir, "hist") : NULL;

	if (!s)
		ERR("cannot read %s/hist: %s", ft->hist_dir, strerror(ft->hist_trigger ? errno : ENOENT));
	return s;
}

void ftrace__hist_close(struct ftrace *ft)
{
	char *rm;

	if (!ft->hist_trigger)
		return;
	if (asprintf(&rm, "!%s", ft->hist_trigger) >= 0) {
		tracefs__put(ft->hist_dir, "trigger", rm, true);
		free(rm);
	}
	free(ft->hist_trigger);
	ft->hist_trigger = NULL;
}

/* ---- latency tracers ---- */

/*
 * what a sonde killed with SIGKILL leaves is put back by the next one: the
 * saved values go into the state file -G's top-level run uses, in its format
 * ("FILE=VALUE", NUL-ended), which ftrace__graph_restore_stale reads
 */
#define LAT_STATE "/run/sonde-fgraph-%d"

static const char *const lat_files[] = { "current_tracer", "tracing_max_latency", "tracing_thresh", "tracing_on" };

static const struct {
	const char *name, *config;
} lat_tracers[] = {
	{ "wakeup", "CONFIG_SCHED_TRACER" }, { "wakeup_rt", "CONFIG_SCHED_TRACER" },
	{ "wakeup_dl", "CONFIG_SCHED_TRACER" }, { "irqsoff", "CONFIG_IRQSOFF_TRACER" },
	{ "preemptoff", "CONFIG_PREEMPT_TRACER" }, { "preemptirqsoff", "CONFIG_IRQSOFF_TRACER and CONFIG_PREEMPT_TRACER" },
};

static const char *lat_config(const char *name)
{
	for (size_t i = 0; i < sizeof(lat_tracers) / sizeof(lat_tracers[0]); i++)
		if (!strcmp(lat_tracers[i].name, name))
			return lat_tracers[i].config;
	return NULL;
}

static bool tracer_listed(const char *root, const char *name, char *avail, size_t len)
{
	char *s = slurp(root, "available_tracers"), *sv;
	bool ok = false;

	snprintf(avail, len, "%s", s ? s : "");
	avail[strcspn(avail, "\n")] = 0;
	for (char *t = s ? strtok_r(s, " \n", &sv) : NULL; t; t = strtok_r(NULL, " \n", &sv))
		ok |= !strcmp(t, name);
	free(s);
	return ok;
}

static void first_line(const char *root, const char *file, char *buf, size_t len)
{
	char *s = slurp(root, file);

	snprintf(buf, len, "%s", s ? s : "");
	buf[strcspn(buf, "\n")] = 0;
	free(s);
}

int ftrace__latency_start(struct ftrace_latency *lt, const char *tracer, unsigned long thresh_us,
			  char *err, size_t errlen)
{
	return ftrace__latency_start_at(lt, tracefs__dir(), true, tracer, thresh_us, err, errlen);
}

int ftrace__latency_start_at(struct ftrace_latency *lt, const char *root, bool stale, const char *tracer,
			     unsigned long thresh_us, char *err, size_t errlen)
{
	const char *config = lat_config(tracer);
	char avail[512], num[32];
	int rc;

	memset(lt, 0, sizeof(*lt));
	if (!config) {
		ERR("'%s' is not a latency tracer (wakeup, wakeup_rt, wakeup_dl, irqsoff, preemptoff, preemptirqsoff)",
		    tracer);
		return -EINVAL;
	}
	if (!root) {
		ERR("tracefs is not mounted");
		return -ENODEV;
	}
	snprintf(lt->root, sizeof(lt->root), "%s", root);
	if (stale) {
		struct ftrace tmp;

		memset(&tmp, 0, sizeof(tmp));
		snprintf(tmp.root, sizeof(tmp.root), "%s", root);
		lt->restored = ftrace__graph_restore_stale(&tmp, &lt->restored_pid);
	}
	if (!tracer_listed(root, tracer, avail, sizeof(avail))) {
		ERR("this kernel has no %s tracer (%s is off; available_tracers: %s)", tracer, config,
		    avail[0] ? avail : "none");
		return -ENODEV;
	}
	for (int i = 0; i < 4; i++)
		first_line(root, lat_files[i], lt->saved[i], sizeof(lt->saved[i]));
	if (strcmp(lt->saved[0], "nop")) {
		ERR("the top-level tracer is in use (current_tracer is %s): latency tracers run only there",
		    lt->saved[0]);
		return -EBUSY;
	}
	lt->started = true;
	{
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), LAT_STATE, (int)getpid());
		if ((f = fopen(path, "we"))) {	/* without it, only the SIGKILL case loses */
			for (int i = 0; i < 4; i++)
				fprintf(f, "%s=%s%c", lat_files[i], lt->saved[i], 0);
			fclose(f);
		}
	}
	snprintf(num, sizeof(num), "%lu", thresh_us);
	if ((rc = tracefs__put(root, "tracing_on", "0", false)) || (rc = tracefs__put(root, "tracing_thresh", num, false)) ||
	    (rc = tracefs__put(root, "tracing_max_latency", "0", false)) || (rc = tracefs__put(root, "current_tracer", tracer, false)) ||
	    (rc = tracefs__put(root, "tracing_on", "1", false))) {
		ERR("cannot set up the %s tracer: %s", tracer, strerror(-rc));
		ftrace__latency_stop(lt);
		return rc;
	}
	return 0;
}

int ftrace__latency_result(struct ftrace_latency *lt, unsigned long long *max_us, char **trace)
{
	char buf[64];

	tracefs__put(lt->root, "tracing_on", "0", false);
	first_line(lt->root, "tracing_max_latency", buf, sizeof(buf));
	*max_us = strtoull(buf, NULL, 10);
	*trace = slurp(lt->root, "trace");
	return *trace ? 0 : -errno;
}

void ftrace__latency_stop(struct ftrace_latency *lt)
{
	if (!lt->started)
		return;
	tracefs__put(lt->root, "tracing_on", "0", false);
	tracefs__put(lt->root, "current_tracer", lt->saved[0][0] ? lt->saved[0] : "nop", false);
	for (int i = 1; i < 4; i++)
		if (lt->saved[i][0])
			tracefs__put(lt->root, lat_files[i], lt->saved[i], false);
	lt->started = false;
	{
		char path[64];

		snprintf(path, sizeof(path), LAT_STATE, (int)getpid());
		unlink(path);
	}
}

bool ftrace__feature_more(const char *name, const char **why)
{
	static char msgs[8][256];
	static int next;
	char *msg = msgs[next++ % 8], avail[512], path[PATH_MAX];
	const char *root = tracefs__dir(), *config;

	*why = msg;
	if (!root) {
		snprintf(msg, sizeof(msgs[0]), "tracefs is not mounted");
		return false;
	}
	if (!strcmp(name, "hist")) {
		snprintf(path, sizeof(path), "%s/events/sched/sched_switch/hist", root);
		snprintf(msg, sizeof(msgs[0]), "no events/*/*/hist (CONFIG_HIST_TRIGGERS): ftrace --hist counts in BPF");
		return !access(path, F_OK);
	}
	config = lat_config(name);
	if (tracer_listed(root, name, avail, sizeof(avail)))
		return true;
	snprintf(msg, sizeof(msgs[0]), "not in available_tracers (%s)", config ? config : "?");
	return false;
}
