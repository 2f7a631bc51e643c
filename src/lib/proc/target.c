// SPDX-License-Identifier: GPL-2.0
/* target.c - pid, tid and cpu lists; see target.h */
#include "lib/proc/target.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	if (!rc && !*n)
		rc = -EINVAL;
	if (rc) {
		free(v);
		*n = 0;
		return rc;
	}
	*out = (pid_t *)v;
	return 0;
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
	if (!rc && !*n)
		rc = -EINVAL;
	if (rc) {
		free(v);
		*n = 0;
		return rc;
	}
	*out = v;
	return 0;
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
