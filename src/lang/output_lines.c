// SPDX-License-Identifier: GPL-2.0
/*
 * output_lines.c - a line at a time, per thread.
 *
 * A probe that prints one line with several printf()s (execsnoop's columns,
 * then join(args)) sends several records. sonde's ring buffer is one for all
 * CPUs, in the order the records were reserved, so the parts of two lines
 * printed at the same moment on two CPUs come interleaved. (bpftrace reads a
 * perf buffer per CPU, one CPU after the other, which keeps a probe's
 * records together.) When the program prints partial lines, its printf and
 * join records carry the thread that made them (gen_call.c, g_rec_kind()),
 * and the text of a thread is held here until it ends a line, however long
 * that takes: a line begun at a read's entry and ended at its return stays
 * whole while other threads print theirs. A part no end follows shows at the
 * end of the run (or when the parts held pass PENDING_MAX bytes). Lines of
 * one thread keep their order; -f json prints every printf as its own event,
 * as bpftrace does.
 */
#include "lang/output.h"

#include <stdlib.h>
#include <string.h>

#define PENDING_MAX (1 << 20)

struct pending_line {
	uint32_t tid;
	char *text;		/* a part with no newline */
	size_t len;
};

static void drop(struct out *o, int i)
{
	free(o->lines[i].text);
	memmove(&o->lines[i], &o->lines[i + 1], (o->nlines - i - 1) * sizeof(o->lines[0]));
	o->nlines--;
}

void out__lines_text(struct out *o, uint32_t tid, const char *text)
{
	size_t n = strlen(text);
	struct pending_line *l = NULL;
	int i;

	for (i = 0; i < o->nlines; i++)
		if (o->lines[i].tid == tid) {
			l = &o->lines[i];
			break;
		}
	/* a sorted loop's rows (output_rows.c) are put in order there */
	if (o->json || o->rows || !tid || (!l && n && text[n - 1] == '\n')) {
		out__printf(o, text);	/* nothing waits: as it comes */
		return;
	}
	if (!l) {
		struct pending_line *v = realloc(o->lines, (o->nlines + 1) * sizeof(*v));

		if (!v) {
			out__printf(o, text);
			return;
		}
		o->lines = v;
		i = o->nlines++;
		l = &o->lines[i];
		*l = (struct pending_line){ .tid = tid };
	}
	char *t = realloc(l->text, l->len + n + 1);

	if (!t) {	/* out of memory: what waited, then this */
		if (l->text)
			out__printf(o, l->text);
		out__printf(o, text);
		drop(o, i);
		return;
	}
	memcpy(t + l->len, text, n + 1);
	l->text = t;
	l->len += n;
	char *nl = memrchr(t, '\n', l->len);

	if (!nl) {
		size_t held = 0;

		for (int j = 0; j < o->nlines; j++)
			held += o->lines[j].len;
		if (held > PENDING_MAX)	/* a program that never ends its lines */
			out__lines_flush(o);
		return;
	}
	size_t head = nl + 1 - t;
	char keep = t[head];

	t[head] = '\0';
	out__printf(o, t);
	t[head] = keep;
	if (head == l->len) {
		drop(o, i);
		return;
	}
	memmove(t, t + head, l->len - head + 1);
	l->len -= head;
}

void out__lines_flush(struct out *o)
{
	while (o->nlines) {
		out__printf(o, o->lines[0].text);
		drop(o, 0);
	}
	free(o->lines);
	o->lines = NULL;
}
