// SPDX-License-Identifier: GPL-2.0
/*
 * fgraph_fold.c - the function_graph tracer's text made folded stacks whose
 * counts are nanoseconds: each frame's own time (its duration less its
 * children's), so that a flame graph's widths are the call tree's durations.
 * The lines, per CPU (" 1)"): "DUR us | func();" a leaf, "| func() {" an
 * entry, "DUR us | }" its exit; markers (==========>, => task switches,
 * ------) are skipped, and an exit whose entry came before the trace began
 * closes nothing.
 */
#include "lib/tracefs/fgraph_fold.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FG_DEPTH 128
#define FG_CPUS 1024

struct frame {
	char *name;
	unsigned long long children;	/* ns of the calls it made */
};

struct cpu_stack {
	struct frame f[FG_DEPTH];
	int depth;
};

struct folded {
	char *key;
	unsigned long long ns;
};

struct fgraph_fold {
	struct cpu_stack *cpu[FG_CPUS];
	struct folded *v;
	size_t n, cap;
};

struct fgraph_fold *fgraph_fold__new(void)
{
	return calloc(1, sizeof(struct fgraph_fold));
}

void fgraph_fold__free(struct fgraph_fold *f)
{
	if (!f)
		return;
	for (int c = 0; c < FG_CPUS; c++) {
		for (int i = 0; f->cpu[c] && i < f->cpu[c]->depth; i++)
			free(f->cpu[c]->f[i].name);
		free(f->cpu[c]);
	}
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].key);
	free(f->v);
	free(f);
}

/* emit the stack s (plus leaf when not NULL) with ns */
static int emit(struct fgraph_fold *f, const struct cpu_stack *s, const char *leaf, unsigned long long ns)
{
	size_t len = leaf ? strlen(leaf) + 1 : 1;
	char *key, *p;

	for (int i = 0; i < s->depth; i++)
		len += strlen(s->f[i].name) + 1;
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 1024;
		struct folded *nv = realloc(f->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		f->v = nv;
		f->cap = cap;
	}
	key = p = malloc(len);
	if (!key)
		return -ENOMEM;
	*p = 0;
	for (int i = 0; i < s->depth; i++)
		p += sprintf(p, "%s%s", i ? ";" : "", s->f[i].name);
	if (leaf)
		sprintf(p, "%s%s", s->depth ? ";" : "", leaf);
	f->v[f->n].key = key;
	f->v[f->n++].ns = ns;
	return 0;
}

/* "12.345 us" -> 12345 ns; 0 when the line has no duration */
static unsigned long long duration(const char *s, const char *bar)
{
	unsigned long long whole = 0, frac = 0;
	int digits = 0;

	while (s < bar && !isdigit((unsigned char)*s))
		s++;
	if (s >= bar)
		return 0;
	while (isdigit((unsigned char)*s))
		whole = whole * 10 + (*s++ - '0');
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s) && digits < 3; digits++)
			frac = frac * 10 + (*s++ - '0');
	while (digits++ < 3)
		frac *= 10;
	return whole * 1000 + frac;
}

int fgraph_fold__line(struct fgraph_fold *f, const char *line)
{
	const char *paren = strchr(line, ')'), *bar = strchr(line, '|'), *fn;
	struct cpu_stack *s;
	unsigned long long ns;
	char name[256];
	size_t l;
	int cpu;

	if (!paren || !bar || bar < paren || sscanf(line, " %d)", &cpu) != 1 || cpu < 0 || cpu >= FG_CPUS)
		return 0;	/* a header, a task-switch or CPU marker */
	if (strstr(line, "==========") || strstr(line, "=>"))
		return 0;
	if (!f->cpu[cpu] && !(f->cpu[cpu] = calloc(1, sizeof(*f->cpu[cpu]))))
		return -ENOMEM;
	s = f->cpu[cpu];
	ns = duration(paren + 1, bar);
	for (fn = bar + 1; *fn == ' '; fn++)
		;
	l = strcspn(fn, "\n");
	while (l && fn[l - 1] == ' ')
		l--;
	if (l && fn[0] == '}') {	/* an exit: its own time is its duration less its children's */
		if (!s->depth)
			return 0;
		struct frame *top = &s->f[s->depth - 1];
		unsigned long long self = ns > top->children ? ns - top->children : 0;
		int rc = emit(f, s, NULL, self);

		free(top->name);
		s->depth--;
		if (s->depth)
			s->f[s->depth - 1].children += ns;
		return rc;
	}
	if (l < 3 || !memchr(fn, '(', l))
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(fn, "("), fn);
	if (fn[l - 1] == '{') {	/* an entry */
		if (s->depth == FG_DEPTH)
			return 0;
		if (!(s->f[s->depth].name = strdup(name)))
			return -ENOMEM;
		s->f[s->depth++].children = 0;
		return 0;
	}
	if (fn[l - 1] == ';') {	/* a leaf */
		if (s->depth)
			s->f[s->depth - 1].children += ns;
		return emit(f, s, name, ns);
	}
	return 0;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->key, ((const struct folded *)b)->key);
}

int fgraph_fold__write(struct fgraph_fold *f, FILE *out)
{
	if (f->n)
		qsort(f->v, f->n, sizeof(*f->v), by_key);
	for (size_t i = 0; i < f->n;) {
		unsigned long long ns = 0;
		size_t j = i;

		while (j < f->n && !strcmp(f->v[j].key, f->v[i].key))
			ns += f->v[j++].ns;
		if (ns && fprintf(out, "%s %llu\n", f->v[i].key, ns) < 0)
			return -EIO;
		i = j;
	}
	return 0;
}
