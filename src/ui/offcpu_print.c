// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu_print.c - print an off-CPU profile as offcputime does, or folded
 * (stackcollapse format, weights in microseconds) through a folded tree, so
 * that two stack ids whose frames have the same names become one line.
 */
#include "ui/offcpu_print.h"
#include "lib/flame/folded.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void offcpu_print__header(FILE *out, const char *what, const struct offcpu_print *o, double duration)
{
	fprintf(out, "Tracing off-CPU time (us) of %s by %s stack", what ? what : "all threads",
		o->user_only ? "user" : o->kern_only ? "kernel" : "user + kernel");
	if (duration > 0)
		fprintf(out, " for %g secs.\n", duration);
	else
		fprintf(out, "... Hit Ctrl-C to end.\n");
}

static void print_entry(FILE *out, struct symbolizer *s, const struct offcpu_entry *e, const struct offcpu_print *o)
{
	pid_t tgid = e->key.tgid;

	if (!o->user_only) {
		if (offcpu__stack_missed(e->key.kern_stack_id))
			fprintf(out, "    [Missed Kernel Stack]\n");
		for (int i = offcpu_entry__kern_skip(s, e); i < e->nr_kern; i++)
			fprintf(out, "    %s\n", offcpu__frame_name(s, tgid, e->kern[i], true));
	}
	if (!o->kern_only) {
		if (o->delimited && !o->user_only && e->key.user_stack_id >= 0 && e->key.kern_stack_id >= 0)
			fprintf(out, "    --\n");
		if (offcpu__stack_missed(e->key.user_stack_id))
			fprintf(out, "    [Missed User Stack]\n");
		for (int i = 0; i < e->nr_user; i++)
			fprintf(out, "    %s\n", offcpu__frame_name(s, tgid, e->user[i], false));
	}
	fprintf(out, "    %-16s %s (%u)%s\n", "-", e->key.comm, e->key.pid, e->oncpu ? " [on CPU]" : "");
	fprintf(out, "        %llu\n\n", (unsigned long long)(e->ns / 1000));
}

void offcpu_print__text(FILE *out, struct symbolizer *s, const struct offcpu_profile *p, const struct offcpu_print *o)
{
	for (int i = 0; i < p->n; i++)
		print_entry(out, s, &p->e[i], o);
}

/* names[n++] = printf(fmt, ...) */
static int push(char **names, size_t *lens, size_t *n, const char *fmt, const char *a, const char *b)
{
	if (asprintf(&names[*n], fmt, a, b) < 0)
		return -ENOMEM;
	lens[*n] = strlen(names[*n]);
	(*n)++;
	return 0;
}

static int add_folded(struct folded *f, struct symbolizer *s, const struct offcpu_entry *e, const struct offcpu_print *o)
{
	/* --wall: off-CPU frames carry flamegraph.pl's _[w] annotation (--colors chain) */
	const char *mark = o->wall && !e->oncpu ? "_[w]" : "";
	uint64_t us = e->ns / 1000;
	size_t cap = (size_t)e->nr_user + e->nr_kern + 4, n = 0;
	char **names;
	size_t *lens;
	int rc = 0;

	if (!us)
		return 0;
	names = calloc(cap, sizeof(*names));
	lens = calloc(cap, sizeof(*lens));
	if (!names || !lens) {
		free(names);
		free(lens);
		return -ENOMEM;
	}
	rc = push(names, lens, &n, "%s%s", e->key.comm, "");
	if (!o->kern_only) {
		if (!rc && offcpu__stack_missed(e->key.user_stack_id))
			rc = push(names, lens, &n, "%s%s", "[Missed User Stack]", mark);
		for (int i = e->nr_user - 1; i >= 0 && !rc; i--)
			rc = push(names, lens, &n, "%s%s", offcpu__frame_name(s, e->key.tgid, e->user[i], false), mark);
	}
	if (!o->user_only) {
		if (!rc && o->delimited && !o->kern_only)
			rc = push(names, lens, &n, "%s%s", "-", "");
		if (!rc && offcpu__stack_missed(e->key.kern_stack_id))
			rc = push(names, lens, &n, "%s%s", "[Missed Kernel Stack]", mark);
		for (int i = e->nr_kern - 1, skip = offcpu_entry__kern_skip(s, e); i >= skip && !rc; i--)
			rc = push(names, lens, &n, "%s%s", offcpu__frame_name(s, e->key.tgid, e->kern[i], true), mark);
	}
	if (!rc)
		rc = folded__add_frames(f, (const char *const *)names, lens, n, (double)us, 0);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(lens);
	return rc;
}

int offcpu_print__folded(FILE *out, struct symbolizer *s, const struct offcpu_profile *p, const struct offcpu_print *o)
{
	struct folded *f = folded__new(0);
	int rc = f ? 0 : -ENOMEM;

	for (int i = 0; i < p->n && !rc; i++)
		rc = add_folded(f, s, &p->e[i], o);
	if (!rc)
		rc = folded__finish(f);
	if (!rc)
		rc = folded__write(f, out, 0);
	folded__free(f);
	return rc;
}
