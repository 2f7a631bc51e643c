// SPDX-License-Identifier: GPL-2.0
/*
 * jitmap.c - the symbol maps JITs write for perf: /tmp/perf-PID.map, one
 * "START SIZE name" line per compiled function, both numbers hex (Java's
 * perf-map-agent, Node's --perf-basic-prof, Python 3.12's perf trampoline).
 * Later lines win over earlier ones at the same address (code gets reused).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/symbol/symbol_int.h"

struct jitmap {
	char *path;
	struct jit_sym *syms;
	size_t n;
};

struct seq_sym {
	struct jit_sym s;
	size_t seq;
};

static int seq_cmp(const void *a, const void *b)
{
	const struct seq_sym *x = a, *y = b;

	if (x->s.start != y->s.start)
		return x->s.start < y->s.start ? -1 : 1;
	return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;	/* newest first */
}

int jitmap__load(struct jitmap **out, const char *path)
{
	struct jitmap *j = calloc(1, sizeof(*j));
	struct seq_sym *tmp = NULL;
	size_t cap = 0, n = 0, m = 0, len = 0;
	char *line = NULL;
	FILE *f;
	int err = 0;

	if (!j)
		return -ENOMEM;
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		free(j);
		return err;
	}
	while (getline(&line, &len, f) > 0) {
		unsigned long long start, size;
		int pos = 0;

		if (sscanf(line, "%llx %llx %n", &start, &size, &pos) < 2 || !pos || !size)
			continue;
		line[strcspn(line, "\n")] = 0;
		if (!line[pos])
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 1024;
			struct seq_sym *ns = realloc(tmp, nc * sizeof(*ns));

			if (!ns) {
				err = -ENOMEM;
				break;
			}
			tmp = ns;
			cap = nc;
		}
		tmp[n].s = (struct jit_sym){ start, size, strdup(line + pos) };
		tmp[n].seq = n;
		if (!tmp[n].s.name) {
			err = -ENOMEM;
			break;
		}
		n++;
	}
	free(line);
	fclose(f);
	j->path = strdup(path);
	j->syms = calloc(n ? n : 1, sizeof(*j->syms));
	if (!err && (!j->path || !j->syms))
		err = -ENOMEM;
	if (err) {
		for (size_t i = 0; i < n; i++)
			free((char *)tmp[i].s.name);
		free(tmp);
		jitmap__free(j);
		return err;
	}
	if (n)	/* qsort() of no array is undefined, even of 0 elements */
		qsort(tmp, n, sizeof(*tmp), seq_cmp);
	for (size_t i = 0; i < n; i++) {
		if (m && j->syms[m - 1].start == tmp[i].s.start) {
			free((char *)tmp[i].s.name);	/* an older entry at the same address */
			continue;
		}
		j->syms[m++] = tmp[i].s;
	}
	j->n = m;
	free(tmp);
	*out = j;
	return 0;
}

const struct jit_sym *jitmap__find(const struct jitmap *j, uint64_t addr)
{
	size_t lo = sym__upper_bound(j->syms, j->n, sizeof(*j->syms), offsetof(struct jit_sym, start), addr);

	/* a few entries back in case a big one covers smaller ones after it */
	for (size_t i = lo, k = 0; i > 0 && k < 8; i--, k++)
		if (addr - j->syms[i - 1].start < j->syms[i - 1].size)
			return &j->syms[i - 1];
	return NULL;
}

const char *jitmap__path(const struct jitmap *j)
{
	return j->path;
}

void jitmap__free(struct jitmap *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++)
		free((char *)j->syms[i].name);
	free(j->syms);
	free(j->path);
	free(j);
}
