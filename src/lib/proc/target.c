// SPDX-License-Identifier: GPL-2.0
/* target.c - pid, tid and cpu lists; see target.h */
#include "lib/proc/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int push(int **v, int *n, int *cap, int x)
{
	if (*n == *cap) {
		int nc = *cap ? *cap * 2 : 16;
		int *nv = realloc(*v, nc * sizeof(int));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = x;
	return 0;
}

/* the end of a parsed list: an empty one is -EINVAL; on an error v is freed and *n is 0 */
static int list_end(int rc, int *v, int *n)
{
	if (!rc && !*n)
		rc = -EINVAL;
	if (rc) {
		free(v);
		*n = 0;
	}
	return rc;
}

int target__parse_pids(const char *s, pid_t **out, int *n)
{
	int *v = NULL, cap = 0, rc = 0;
	const char *p = s;

	*n = 0;
	while (*p) {
		char *end;
		long x = strtol(p, &end, 10);

		if (end == p || x <= 0 || x > 4194304 || (*end && *end != ',')) {
			rc = -EINVAL;
			break;
		}
		if ((rc = push(&v, n, &cap, (int)x)))
			break;
		p = *end ? end + 1 : end;
		if (*end == ',' && !*p) {
			rc = -EINVAL;
			break;
		}
	}
	if (!(rc = list_end(rc, v, n)))
		*out = (pid_t *)v;
	return rc;
}

int target__parse_cpus(const char *s, int **out, int *n)
{
	int *v = NULL, cap = 0, rc = 0;
	const char *p = s;

	*n = 0;
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0 || a > 65535) {
			rc = -EINVAL;
			break;
		}
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > 65535) {
				rc = -EINVAL;
				break;
			}
		}
		for (long c = a; c <= b && !rc; c++) {
			bool dup = false;

			for (int i = 0; i < *n; i++)
				dup |= v[i] == c;
			if (!dup)
				rc = push(&v, n, &cap, (int)c);
		}
		if (rc)
			break;
		if (*end && *end != ',' && *end != '\n') {
			rc = -EINVAL;
			break;
		}
		p = *end == ',' ? end + 1 : end;
	}
	if (!(rc = list_end(rc, v, n)))
		*out = v;
	return rc;
}

int target__online_cpus(int **out, int *n)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	return target__parse_cpus(buf, out, n);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int target__threads(pid_t pid, pid_t **out, int *n)
{
	char path[64];
	struct dirent *d;
	int *v = NULL, cap = 0;
	DIR *dir;

	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		if (push(&v, n, &cap, atoi(d->d_name))) {
			closedir(dir);
			free(v);
			return -ENOMEM;
		}
	}
	closedir(dir);
	if (!*n) {
		free(v);
		return -ESRCH;
	}
	qsort(v, *n, sizeof(int), cmp_int);
	*out = (pid_t *)v;
	return 0;
}

int target__status_field(pid_t pid, const char *name, char *buf, size_t len)
{
	char path[64], line[512];
	size_t nl = strlen(name);
	int rc = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return -errno;
	while (rc && fgets(line, sizeof(line), f)) {
		const char *v = line + nl + 1;

		if (strncmp(line, name, nl) || line[nl] != ':')
			continue;
		v += strspn(v, " \t");
		snprintf(buf, len, "%.*s", (int)strcspn(v, "\n"), v);
		rc = 0;
	}
	fclose(f);
	return rc;
}

pid_t target__tgid(pid_t tid)
{
	char v[32];
	int tgid = 0;

	if (target__status_field(tid, "Tgid", v, sizeof(v)) || sscanf(v, "%d", &tgid) != 1)
		return tid;
	return tgid > 0 ? tgid : tid;
}

void target__comm(pid_t tid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	f = fopen(path, "re");
	if (!f || !fgets(buf, len, f)) {
		snprintf(buf, len, "?");
	} else {
		buf[strcspn(buf, "\n")] = 0;
	}
	if (f)
		fclose(f);
}

void target__free(struct target *t)
{
	free(t->pids);
	free(t->tids);
	free(t->cpus);
	t->pids = t->tids = NULL;
	t->cpus = NULL;
	t->nr_pids = t->nr_tids = t->nr_cpus = 0;
}

bool target__alive(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	if (pid <= 0 || (kill(pid, 0) && errno == ESRCH))
		return false;
	/* kill() succeeds on a zombie: its state is the letter after the comm's ')' */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT && errno != ESRCH;	/* hidden from us (hidepid): it exists */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 && errno != ESRCH;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return true;
	if (p[2] == 'X' || p[2] == 'x')
		return false;
	if (p[2] != 'Z')
		return true;
	/* a process whose first thread exited shows Z while its other threads run */
	return !target__status_field(pid, "Threads", buf, sizeof(buf)) && atoi(buf) > 1;
}

bool target__any_alive(const pid_t *pids, int n)
{
	for (int i = 0; i < n; i++)
		if (target__alive(pids[i]))
			return true;
	return false;
}

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

static int bad_ids(char *err, size_t errlen, const char *list, bool threads)
{
	return fail(err, errlen, -EINVAL, "invalid %s '%s': give %s ids like 12 or 12,34", threads ? "tid" : "pid",
		    list, threads ? "thread" : "process");
}

int target__check_ids(const char *list, bool threads, char *err, size_t errlen)
{
	pid_t *ids;
	int n;

	if (target__parse_pids(list, &ids, &n))
		return bad_ids(err, errlen, list, threads);
	free(ids);
	return 0;
}

/* "a command, -p PID, -t TID or -a", from what the command accepts */
static void name_targets(char *buf, size_t len, unsigned accept)
{
	const char *names[4];
	int n = 0, off;

	if (accept & TARGET_PID)
		names[n++] = "-p PID";
	if (accept & TARGET_TID)
		names[n++] = "-t TID";
	if (accept & (TARGET_ALL | TARGET_CPU))
		names[n++] = "-a";
	off = snprintf(buf, len, "a command");
	for (int i = 0; i < n && off < (int)len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i == n - 1 ? " or " : ", ", names[i]);
}

static int check_cpus(const struct target *t, char *err, size_t errlen)
{
	int *online, nonline, rc = 0;

	if (target__online_cpus(&online, &nonline))
		return 0;	/* the kernel says it when it opens the events */
	for (int i = 0; i < t->nr_cpus && !rc; i++) {
		bool found = false;

		for (int j = 0; j < nonline; j++)
			found |= online[j] == t->cpus[i];
		if (!found)
			rc = fail(err, errlen, -ENODEV, "CPU %d is not online (see /sys/devices/system/cpu/online)",
				  t->cpus[i]);
	}
	free(online);
	return rc;
}

/* every thread of each -p process, after the -t threads */
static int add_threads(struct target *t, char *err, size_t errlen)
{
	for (int i = 0; i < t->nr_pids; i++) {
		pid_t *th, *nt;
		int n;

		if (!target__alive(t->pids[i]) || target__threads(t->pids[i], &th, &n))
			return fail(err, errlen, -ESRCH, "cannot attach to process %d: no such process",
				    (int)t->pids[i]);
		nt = realloc(t->tids, (t->nr_tids + n) * sizeof(pid_t));
		if (!nt) {
			free(th);
			return fail(err, errlen, -ENOMEM, "out of memory");
		}
		t->tids = nt;
		memcpy(t->tids + t->nr_tids, th, n * sizeof(pid_t));
		t->nr_tids += n;
		free(th);
	}
	return 0;
}

int target__setup(struct target *t, const struct target_opts *o, char *err, size_t errlen)
{
	bool sys = o->all || o->cpus;
	int rc;

	memset(t, 0, sizeof(*t));
	if ((o->pids != NULL) + (o->tids != NULL) + sys > 1)
		return fail(err, errlen, -EINVAL, "-p, -t and -a/-C cannot be combined");
	if (!o->pids && !o->tids && !sys && !o->have_cmd) {
		char what[64];

		if (!o->default_all) {
			name_targets(what, sizeof(what), o->accept);
			return fail(err, errlen, -EINVAL, "nothing to %s: give %s", o->verb ? o->verb : "observe", what);
		}
		sys = true;
	}
	if (o->pids && target__parse_pids(o->pids, &t->pids, &t->nr_pids))
		return bad_ids(err, errlen, o->pids, false);
	if (o->tids && target__parse_pids(o->tids, &t->tids, &t->nr_tids))
		return bad_ids(err, errlen, o->tids, true);
	if (o->cpus && target__parse_cpus(o->cpus, &t->cpus, &t->nr_cpus))
		return fail(err, errlen, -EINVAL, "invalid CPU list '%s': give CPUs like 0-3,6", o->cpus);
	if (o->cpus && (rc = check_cpus(t, err, errlen)))
		return rc;
	if (sys && !o->cpus && (rc = target__online_cpus(&t->cpus, &t->nr_cpus)))
		return fail(err, errlen, rc, "cannot read the online CPUs from /sys/devices/system/cpu/online: %s",
			    strerror(-rc));
	t->system_wide = sys;
	for (int i = 0; i < t->nr_tids; i++)
		if (!target__alive(t->tids[i]))
			return fail(err, errlen, -ESRCH, "cannot attach to thread %d: no such thread", (int)t->tids[i]);
	return add_threads(t, err, errlen);
}
