// SPDX-License-Identifier: GPL-2.0
/*
 * tracedat_read.c - reading trace-cmd's trace.dat (version 6, and version 7
 * as trace-cmd 3 writes it by default: sections, options sections chained by
 * offset, zstd compression), sonde's or trace-cmd's, into the lines
 * `trace-cmd report` prints. The sections are
 * parsed here with every length checked against the file; the formats, the
 * pages and the event text are libtraceevent's (tep_parse_event, kbuffer,
 * tep_print_event with its plugins, as trace-cmd itself uses them). Each
 * buffer (the top one and those of the BUFFER options: instances, printed
 * with their name first) has a run of pages per CPU; the events of all of
 * them are merged in time order.
 */
#include "lib/tracefs/tracedat.h"
#include "lib/tracefs/tracedat_int.h"
#include "lib/tracefs/tep_safe.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <traceevent/trace-seq.h>

void tdat_cur__bad(struct tdat_cur *c, const char *fmt, ...)
{
	va_list ap;
	char why[200];

	if (c->bad)
		return;
	c->bad = true;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "not a valid trace.dat: %s at byte %zu (in %s)", why, c->pos, c->what);
}

const unsigned char *tdat_cur__take(struct tdat_cur *c, uint64_t n)
{
	const unsigned char *p;

	if (c->bad)
		return NULL;
	if (n > c->len - c->pos) {
		tdat_cur__bad(c, "truncated: %llu bytes wanted, %zu left", (unsigned long long)n, c->len - c->pos);
		return NULL;
	}
	p = c->buf + c->pos;
	c->pos += n;
	return p;
}

uint64_t tdat_cur__get(struct tdat_cur *c, int n)
{
	const unsigned char *p = tdat_cur__take(c, n);
	uint64_t v = 0;

	if (!p)
		return 0;
	memcpy(&v, p, n);	/* little endian files only (checked), on a little-endian machine */
	return v;
}

/* a NUL-terminated string in the file */
const char *tdat_cur__str(struct tdat_cur *c)
{
	const unsigned char *nul;
	const char *s;

	if (c->bad)
		return NULL;
	nul = memchr(c->buf + c->pos, 0, c->len - c->pos);
	if (!nul) {
		tdat_cur__bad(c, "truncated: a string without its end");
		return NULL;
	}
	s = (const char *)c->buf + c->pos;
	c->pos = nul - c->buf + 1;
	return s;
}

/* a sized text as a NUL-terminated copy (libtraceevent wants strings) */
static char *text(struct tdat_cur *c, int szbytes)
{
	uint64_t n = tdat_cur__get(c, szbytes);
	const unsigned char *p = tdat_cur__take(c, n);
	char *s;

	if (!p)
		return NULL;
	s = malloc(n + 1);
	if (!s) {
		tdat_cur__bad(c, "out of memory");
		return NULL;
	}
	memcpy(s, p, n);
	s[n] = 0;
	return s;
}

int tracedat_rd__add_run(struct tdat_reader *r, const char *name, uint64_t off, uint64_t size, int cpu)
{
	struct tdat_run *n;

	if (!size)
		return 0;
	if (off > r->c.len || size > r->c.len - off) {
		tdat_cur__bad(&r->c, "cpu%d's data (%llu bytes at %llu) is past the end of the file", cpu,
		    (unsigned long long)size, (unsigned long long)off);
		return -1;
	}
	n = realloc(r->runs, (r->nr_runs + 1) * sizeof(*n));
	if (!n) {
		tdat_cur__bad(&r->c, "out of memory");
		return -1;
	}
	r->runs = n;
	n[r->nr_runs++] = (struct tdat_run){ .pages = r->c.buf + off, .size = size, .cpu = cpu, .buffer = name };
	return 0;
}

/* "flyrecord", then each CPU's offset and size, then the clock */
static int flyrecord(struct tdat_reader *r, const char *name)
{
	struct tdat_cur *c = &r->c;
	const char *tag;

	c->what = "the flyrecord section";
	tag = tdat_cur__str(c);
	if (!tag)
		return -1;
	if (strcmp(tag, "flyrecord")) {
		tdat_cur__bad(c, "'%.20s' where 'flyrecord' belongs (latency files are not read)", tag);
		return -1;
	}
	for (uint32_t i = 0; i < r->nr_cpus && !c->bad; i++) {
		uint64_t off = tdat_cur__get(c, 8), size = tdat_cur__get(c, 8);

		if (!c->bad && tracedat_rd__add_run(r, name, off, size, i))
			return -1;
	}
	uint64_t n = tdat_cur__get(c, 8);	/* the clock, "[local]" */

	tdat_cur__take(c, n);
	return c->bad ? -1 : 0;
}

static int options(struct tdat_reader *r)
{
	struct tdat_cur *c = &r->c;

	c->what = "the options";
	for (;;) {
		uint16_t id = tdat_cur__get(c, 2);
		uint32_t size;
		const unsigned char *p;

		if (c->bad)
			return -1;
		if (id == 0)
			return 0;
		size = tdat_cur__get(c, 4);
		p = tdat_cur__take(c, size);
		if (!p)
			return -1;
		if (id == 3) {	/* BUFFER: where an instance's flyrecord is, and its name */
			const unsigned char *nul = size > 8 ? memchr(p + 8, 0, size - 8) : NULL;

			if (!nul) {
				tdat_cur__bad(c, "a BUFFER option without its name");
				return -1;
			}
			if (r->nr_buffers < 64) {
				memcpy(&r->buffers[r->nr_buffers].off, p, 8);
				r->buffers[r->nr_buffers++].name = (const char *)p + 8;
			}
		}
	}
}

static int cmdlines(struct tdat_reader *r, const char *s)
{
	while (s && *s) {
		const char *nl = strchr(s, '\n');
		char comm[64];
		int pid;

		if (sscanf(s, "%d %63[^\n]", &pid, comm) == 2)
			tep_register_comm(r->tep, comm, pid);
		s = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* everything before the data: headers, formats, symbols, cmdlines, options */
static int head(struct tdat_reader *r)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct tdat_cur *c = &r->c;
	const unsigned char *m;
	const char *ver, *tag;

	c->what = "the file's header";
	m = tdat_cur__take(c, sizeof(magic));
	if (!m || memcmp(m, magic, sizeof(magic))) {
		if (!c->bad)
			tdat_cur__bad(c, "no trace-cmd magic");
		return -1;
	}
	ver = tdat_cur__str(c);
	if (!ver)
		return -1;
	if (strcmp(ver, "6") && strcmp(ver, "7")) {
		tdat_cur__bad(c, "file version %.8s (versions 6 and 7 are read)", ver);
		return -1;
	}
	if (tdat_cur__get(c, 1) != 0 || c->bad) {
		tdat_cur__bad(c, "a big-endian file");
		return -1;
	}
	if (tdat_cur__get(c, 1) != 8) {
		tdat_cur__bad(c, "longs that are not 8 bytes");
		return -1;
	}
	r->page_size = tdat_cur__get(c, 4);
	if (r->page_size < 64 || r->page_size > (1u << 20)) {
		tdat_cur__bad(c, "page size %u", r->page_size);
		return -1;
	}
	tep_set_file_bigendian(r->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(r->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(r->tep, 8);
	tep_set_page_size(r->tep, r->page_size);
	if (!strcmp(ver, "7"))
		return tracedat_rd__head7(r);
	if (tracedat_rd__headers(r) || tracedat_rd__ftrace(r) || tracedat_rd__events(r) || tracedat_rd__kallsyms(r) || tracedat_rd__printk(r) || tracedat_rd__cmdlines(r))
		return -1;
	c->what = "the CPU count";
	r->nr_cpus = tdat_cur__get(c, 4);
	if (!c->bad && (r->nr_cpus == 0 || r->nr_cpus > 8192)) {
		tdat_cur__bad(c, "%u CPUs", r->nr_cpus);
		return -1;
	}
	c->what = "the options";
	tag = tdat_cur__str(c);
	if (!tag)
		return -1;
	if (strcmp(tag, "options  ")) {
		tdat_cur__bad(c, "'%.20s' where the options belong", tag);
		return -1;
	}
	return options(r);
}

int tracedat_rd__headers(struct tdat_reader *r)
{
	struct tdat_cur *c = &r->c;
	const char *tag;
	char *s;

	c->what = "header_page";
	tag = tdat_cur__str(c);
	if (!tag || strcmp(tag, "header_page")) {
		tdat_cur__bad(c, "no header_page");
		return -1;
	}
	s = text(c, 8);
	if (!s)
		return -1;
	tep_parse_header_page(r->tep, s, strlen(s), 8);
	free(s);
	c->what = "header_event";
	tag = tdat_cur__str(c);
	if (!tag || strcmp(tag, "header_event")) {
		tdat_cur__bad(c, "no header_event");
		return -1;
	}
	free(text(c, 8));
	return c->bad ? -1 : 0;
}

int tracedat_rd__ftrace(struct tdat_reader *r)
{
	struct tdat_cur *c = &r->c;
	uint32_t n;
	char *s;

	c->what = "the ftrace formats";
	n = tdat_cur__get(c, 4);
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		s = text(c, 8);
		if (s && tep_safe__parse_event(r->tep, s, strlen(s), "ftrace"))	/* as the event formats below */
			tdat_cur__bad(c, "an ftrace format whose print fmt divides by zero");
		free(s);
	}
	return c->bad ? -1 : 0;
}

int tracedat_rd__events(struct tdat_reader *r)
{
	struct tdat_cur *c = &r->c;
	uint32_t n;
	char *s;

	c->what = "the event formats";
	n = tdat_cur__get(c, 4);
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		const char *sys = tdat_cur__str(c);
		uint32_t ne = tdat_cur__get(c, 4);

		for (uint32_t e = 0; e < ne && !c->bad; e++) {
			s = text(c, 8);
			if (s && tep_safe__parse_event(r->tep, s, strlen(s), sys))
				tdat_cur__bad(c, "an event format whose print fmt divides by zero");
			free(s);
		}
	}
	return c->bad ? -1 : 0;
}

int tracedat_rd__kallsyms(struct tdat_reader *r)
{
	struct tdat_cur *c = &r->c;
	char *s;

	c->what = "kallsyms";
	s = text(c, 4);
	if (s && *s)
		tep_parse_kallsyms(r->tep, s);
	free(s);
	return c->bad ? -1 : 0;
}

int tracedat_rd__printk(struct tdat_reader *r)
{
	struct tdat_cur *c = &r->c;
	char *s;

	c->what = "the printk formats";
	s = text(c, 4);
	if (s && *s)
		tep_safe__parse_printk_formats(r->tep, s);
	free(s);
	return c->bad ? -1 : 0;
}

int tracedat_rd__cmdlines(struct tdat_reader *r)
{
	struct tdat_cur *c = &r->c;
	char *s;

	c->what = "the saved cmdlines";
	s = text(c, 8);
	cmdlines(r, s);
	free(s);
	return c->bad ? -1 : 0;
}

/* the run's next page with an event on it; false at the end */
static bool load_page(struct tdat_reader *r, struct tdat_run *run)
{
	while (run->at + r->page_size <= run->size) {
		const unsigned char *p = run->pages + run->at;
		uint64_t commit;

		memcpy(&commit, p + 8, 8);
		commit &= (1ULL << 27) - 1;	/* the high bits are flags (missed events) */
		if (commit > r->page_size - 16) {
			r->c.pos = (size_t)(p - r->c.buf) + 8;
			r->c.what = "the event pages";
			tdat_cur__bad(&r->c, "cpu%d: a page that holds %llu bytes, more than a page", run->cpu,
			    (unsigned long long)commit);
			return false;
		}
		/* a copy, with room after it: a corrupted event's fields read zeros, not past the file */
		memset(run->page, 0, 2 * r->page_size);
		memcpy(run->page, p, 16 + commit);
		run->at += r->page_size;
		if (kbuffer_load_subbuffer(run->kb, run->page) < 0)
			continue;
		run->data = kbuffer_read_event(run->kb, &run->ts);
		if (run->data)
			return true;
	}
	return false;
}

static bool run_next(struct tdat_reader *r, struct tdat_run *run)
{
	if (run->data)
		run->data = kbuffer_next_event(run->kb, &run->ts);
	return run->data || load_page(r, run);
}

static int print(struct tdat_reader *r, struct tdat_run *run, struct trace_seq *s,
		 int (*line)(const char *s, void *arg), void *arg)
{
	struct tep_record rec = {
		.ts = run->ts, .cpu = run->cpu, .data = run->data,
		.size = kbuffer_event_size(run->kb), .record_size = kbuffer_curr_size(run->kb),
	};
	struct tep_event *ev;
	char name[256];
	int rc;

	if (rec.size < 0 || rec.size > (int)r->page_size)
		rec.size = 0;
	trace_seq_reset(s);
	/* as trace-cmd report: with instances, every line starts with its buffer's name, the top one's blank */
	if (r->name_width)
		trace_seq_printf(s, "%*s%s ", r->name_width, run->buffer, *run->buffer ? ":" : " ");
	tep_print_event(r->tep, s, &rec, "%16s-%-5d [%03d] %6.1000d: ", TEP_PRINT_COMM, TEP_PRINT_PID,
			TEP_PRINT_CPU, TEP_PRINT_TIME);
	ev = tep_find_event_by_record(r->tep, &rec);
	snprintf(name, sizeof(name), "%s:", ev ? ev->name : "[unknown]");
	trace_seq_printf(s, "%-21s ", name);
	if (ev)
		tep_print_event(r->tep, s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(s);
	rc = line(s->buffer, arg);
	return rc;
}

int tracedat__report(const unsigned char *buf, size_t len, int (*line)(const char *s, void *arg), void *arg,
		     char *err, size_t errlen)
{
	struct tdat_reader r = { .c = { .buf = buf, .len = len, .err = err, .errlen = errlen }, .file = buf, .file_len = len };
	struct trace_seq s;
	char cpus[32];
	int rc = -EINVAL;

	r.tep = tep_alloc();
	if (!r.tep)
		return -ENOMEM;
	trace_seq_init(&s);
	if (head(&r) || (!r.v7 && flyrecord(&r, "")))
		goto out;
	for (int i = 0; i < r.nr_buffers; i++) {
		if (r.buffers[i].off > len) {
			r.c.what = "the BUFFER options";
			tdat_cur__bad(&r.c, "buffer '%.40s' at %llu, past the end", r.buffers[i].name,
			    (unsigned long long)r.buffers[i].off);
			goto out;
		}
		r.c.pos = r.buffers[i].off;
		if (flyrecord(&r, r.buffers[i].name))
			goto out;
	}
	r.plugins = tep_load_plugins(r.tep);
	for (int i = 0; i < r.nr_runs; i++) {
		r.runs[i].kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
		r.runs[i].page = calloc(2, r.page_size);
		if (!r.runs[i].kb || !r.runs[i].page) {
			rc = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		load_page(&r, &r.runs[i]);
	}
	if (r.c.bad)
		goto out;
	for (int i = 0; i < r.nr_runs; i++)
		if ((int)strlen(r.runs[i].buffer) > r.name_width)
			r.name_width = strlen(r.runs[i].buffer);
	snprintf(cpus, sizeof(cpus), "cpus=%u", r.nr_cpus);
	rc = line(cpus, arg);
	while (!rc) {
		struct tdat_run *min = NULL;

		for (int i = 0; i < r.nr_runs; i++)
			if (r.runs[i].data && (!min || r.runs[i].ts < min->ts))
				min = &r.runs[i];
		if (!min)
			break;
		rc = print(&r, min, &s, line, arg);
		run_next(&r, min);
		if (r.c.bad) {
			rc = -EINVAL;
			break;
		}
	}
out:
	for (int i = 0; i < r.nr_owned; i++)
		free(r.owned[i]);
	free(r.owned);
	for (int i = 0; i < r.nr_runs; i++) {
		free(r.runs[i].owned);
		if (r.runs[i].kb)
			kbuffer_free(r.runs[i].kb);
		free(r.runs[i].page);
	}
	free(r.runs);
	trace_seq_destroy(&s);
	if (r.plugins)
		tep_unload_plugins(r.plugins, r.tep);
	tep_free(r.tep);
	return rc;
}
