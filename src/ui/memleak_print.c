// SPDX-License-Identifier: GPL-2.0
/* memleak_print.c - print outstanding allocations as BCC's memleak does, or folded */
#include "ui/memleak_print.h"
#include "lib/bpf/bpf_offcpu.h"
#include "lib/export/export.h"
#include "lib/flame/folded.h"
#include "lib/symbol/symbol.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* frames at the top of a kernel stack that are the tracing machinery (the BPF program, the tracepoint) */
static int kern_skip(struct symbolizer *s, const struct memleak_stack *st)
{
	struct offcpu_entry e = { .key.tgid = st->pid, .nr_kern = st->nr, .kern = st->ips };

	return offcpu_entry__kern_skip(s, &e);
}

/* BCC's sym(addr, pid, show_module=True, show_offset=True): "main+0x1d [leaky]" */
static void print_frame(FILE *out, struct symbolizer *s, pid_t pid, uint64_t addr, bool kernel)
{
	struct sym_frame f;
	const char *mod = NULL;

	if (symbolizer__resolve(s, pid, addr, kernel, &f, 1) < 1)
		memset(&f, 0, sizeof(f));
	if (kernel)
		mod = "kernel";
	else if (f.dso)
		mod = strrchr(f.dso, '/') ? strrchr(f.dso, '/') + 1 : f.dso;
	if (f.sym)
		fprintf(out, "%s+0x%llx", f.sym, (unsigned long long)f.offset);
	else
		fprintf(out, "[unknown]");
	if (mod)
		fprintf(out, " [%s]", mod);
}

void memleak_print__text(FILE *out, struct symbolizer *s, const struct memleak_report *r,
			 const struct memleak_print *o)
{
	char ts[16];
	time_t now = time(NULL);
	struct tm tm;
	int first = r->n > o->top ? r->n - o->top : 0;

	localtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	fprintf(out, "[%s] Top %d stacks with outstanding allocations:\n", ts, o->top);
	for (int i = 0; o->show_allocs && i < r->na; i++)
		fprintf(out, "\taddr = %llx size = %llu\n", (unsigned long long)r->a[i].addr,
			(unsigned long long)r->a[i].size);
	for (int i = first; i < r->n; i++) {
		const struct memleak_stack *st = &r->s[i];

		if (st->stack_id < 0)	/* BCC leaves out the allocations it has no stack for */
			continue;
		fprintf(out, "\t%llu bytes in %llu allocations from stack\n", (unsigned long long)st->bytes,
			(unsigned long long)st->count);
		for (int j = o->kernel ? kern_skip(s, st) : 0; j < st->nr; j++) {
			fprintf(out, "\t\t");
			print_frame(out, s, st->pid, st->ips[j], o->kernel);
			fprintf(out, "\n");
		}
	}
	fflush(out);
}

void memleak_print__trace(FILE *out, const struct memleak_trace *e)
{
	char comm[sizeof(e->comm) + 1] = "";

	memcpy(comm, e->comm, sizeof(e->comm));
	fprintf(out, "%16s-%-7u [%03u] %llu.%06llu: ", comm, e->pid, e->cpu, (unsigned long long)(e->ts / 1000000000),
		(unsigned long long)(e->ts % 1000000000 / 1000));
	if (e->kind == MEMLEAK_TRACE_ALLOC_ENTER)
		fprintf(out, "alloc entered, size = %llu\n", (unsigned long long)e->size);
	else if (e->kind == MEMLEAK_TRACE_ALLOC_EXIT)
		fprintf(out, "alloc exited, size = %llu, result = %llx\n", (unsigned long long)e->size,
			(unsigned long long)e->addr);
	else
		fprintf(out, "free entered, address = %llx, size = %llu\n", (unsigned long long)e->addr,
			(unsigned long long)e->size);
}

void memleak_print__folded(FILE *out, struct symbolizer *s, const struct memleak_report *r,
			   const struct memleak_print *o)
{
	for (int i = 0; i < r->n; i++) {
		const struct memleak_stack *st = &r->s[i];
		int skip = o->kernel ? kern_skip(s, st) : 0;

		if (st->stack_id < 0 || !st->bytes)
			continue;
		for (int j = st->nr - 1; j >= skip; j--)
			fprintf(out, "%s%s", offcpu__frame_name(s, st->pid, st->ips[j], o->kernel), j > skip ? ";" : "");
		fprintf(out, " %llu\n", (unsigned long long)st->bytes);
	}
	fflush(out);
}

int memleak_print__pprof(FILE *out, struct symbolizer *s, const struct memleak_report *r,
			 const struct memleak_print *o, char *err, size_t errlen)
{
	static const char *const types[2][2] = { { "inuse_objects", "count" }, { "inuse_space", "bytes" } };
	struct folded *f = folded__new(0);
	int rc = f ? 0 : -ENOMEM;

	for (int i = 0; !rc && i < r->n; i++) {
		const struct memleak_stack *st = &r->s[i];
		int skip = o->kernel ? kern_skip(s, st) : 0, n = 0;
		const char **frames = st->nr ? calloc(st->nr, sizeof(*frames)) : NULL;
		size_t *lens = st->nr ? calloc(st->nr, sizeof(*lens)) : NULL;

		if (st->stack_id < 0 || !st->count || st->nr <= skip) {
			free(frames);
			free(lens);
			continue;
		}
		if (!frames || !lens)
			rc = -ENOMEM;
		for (int j = st->nr - 1; !rc && j >= skip; j--) {	/* root first; each name copied */
			if (!(frames[n] = strdup(offcpu__frame_name(s, st->pid, st->ips[j], o->kernel))))
				rc = -ENOMEM;
			else
				lens[n] = strlen(frames[n]), n++;
		}
		if (!rc)
			rc = folded__add_frames(f, frames, lens, n, st->bytes, st->count);
		for (int j = 0; j < n; j++)
			free((char *)frames[j]);
		free(frames);
		free(lens);
	}
	if (!rc)
		rc = folded__finish(f);
	if (rc)
		snprintf(err, errlen, "out of memory");
	else
		rc = export__pprof2(f, out, types, err, errlen);
	folded__free(f);
	return rc;
}
