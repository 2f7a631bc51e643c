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
#include <zstd.h>

struct cur {
	const unsigned char *buf;
	size_t len, pos;
	const char *what;	/* the section being read, for the error line */
	char *err;
	size_t errlen;
	bool bad;
};

static void bad(struct cur *c, const char *fmt, ...)
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

static const unsigned char *take(struct cur *c, uint64_t n)
{
	const unsigned char *p;

	if (c->bad)
		return NULL;
	if (n > c->len - c->pos) {
		bad(c, "truncated: %llu bytes wanted, %zu left", (unsigned long long)n, c->len - c->pos);
		return NULL;
	}
	p = c->buf + c->pos;
	c->pos += n;
	return p;
}

static uint64_t get(struct cur *c, int n)
{
	const unsigned char *p = take(c, n);
	uint64_t v = 0;

	if (!p)
		return 0;
	memcpy(&v, p, n);	/* little endian files only (checked), on a little-endian machine */
	return v;
}

/* a NUL-terminated string in the file */
static const char *str(struct cur *c)
{
	const unsigned char *nul;
	const char *s;

	if (c->bad)
		return NULL;
	nul = memchr(c->buf + c->pos, 0, c->len - c->pos);
	if (!nul) {
		bad(c, "truncated: a string without its end");
		return NULL;
	}
	s = (const char *)c->buf + c->pos;
	c->pos = nul - c->buf + 1;
	return s;
}

/* a sized text as a NUL-terminated copy (libtraceevent wants strings) */
static char *text(struct cur *c, int szbytes)
{
	uint64_t n = get(c, szbytes);
	const unsigned char *p = take(c, n);
	char *s;

	if (!p)
		return NULL;
	s = malloc(n + 1);
	if (!s) {
		bad(c, "out of memory");
		return NULL;
	}
	memcpy(s, p, n);
	s[n] = 0;
	return s;
}

struct cpu_run {
	const unsigned char *pages;
	uint64_t size, at;	/* bytes; the page being read */
	struct kbuffer *kb;
	void *data;		/* the current event, NULL at the end */
	unsigned long long ts;
	int cpu;
	const char *buffer;	/* "" for the top buffer */
	unsigned char *owned;	/* pages decompressed (version 7 with zstd) */
	unsigned char *page;	/* the current page's copy */
};

struct reader {
	struct cur c;
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	uint32_t page_size;
	uint32_t nr_cpus;
	struct cpu_run *runs;
	int nr_runs;
	struct { uint64_t off; const char *name; } buffers[64];
	int nr_buffers;
	bool v7, zstd;
	unsigned char **owned;	/* version 7: the decompressed sections (names point into them) */
	const unsigned char *file;
	size_t file_len;
	int nr_owned;
};

static int head7(struct reader *r);
static int sec_headers(struct reader *r);
static int sec_ftrace(struct reader *r);
static int sec_events(struct reader *r);
static int sec_kallsyms(struct reader *r);
static int sec_printk(struct reader *r);
static int sec_cmdlines(struct reader *r);

static int add_run(struct reader *r, const char *name, uint64_t off, uint64_t size, int cpu)
{
	struct cpu_run *n;

	if (!size)
		return 0;
	if (off > r->c.len || size > r->c.len - off) {
		bad(&r->c, "cpu%d's data (%llu bytes at %llu) is past the end of the file", cpu,
		    (unsigned long long)size, (unsigned long long)off);
		return -1;
	}
	n = realloc(r->runs, (r->nr_runs + 1) * sizeof(*n));
	if (!n) {
		bad(&r->c, "out of memory");
		return -1;
	}
	r->runs = n;
	n[r->nr_runs++] = (struct cpu_run){ .pages = r->c.buf + off, .size = size, .cpu = cpu, .buffer = name };
	return 0;
}

/* "flyrecord", then each CPU's offset and size, then the clock */
static int flyrecord(struct reader *r, const char *name)
{
	struct cur *c = &r->c;
	const char *tag;

	c->what = "the flyrecord section";
	tag = str(c);
	if (!tag)
		return -1;
	if (strcmp(tag, "flyrecord")) {
		bad(c, "'%.20s' where 'flyrecord' belongs (latency files are not read)", tag);
		return -1;
	}
	for (uint32_t i = 0; i < r->nr_cpus && !c->bad; i++) {
		uint64_t off = get(c, 8), size = get(c, 8);

		if (!c->bad && add_run(r, name, off, size, i))
			return -1;
	}
	uint64_t n = get(c, 8);	/* the clock, "[local]" */

	take(c, n);
	return c->bad ? -1 : 0;
}

static int options(struct reader *r)
{
	struct cur *c = &r->c;

	c->what = "the options";
	for (;;) {
		uint16_t id = get(c, 2);
		uint32_t size;
		const unsigned char *p;

		if (c->bad)
			return -1;
		if (id == 0)
			return 0;
		size = get(c, 4);
		p = take(c, size);
		if (!p)
			return -1;
		if (id == 3) {	/* BUFFER: where an instance's flyrecord is, and its name */
			const unsigned char *nul = size > 8 ? memchr(p + 8, 0, size - 8) : NULL;

			if (!nul) {
				bad(c, "a BUFFER option without its name");
				return -1;
			}
			if (r->nr_buffers < 64) {
				memcpy(&r->buffers[r->nr_buffers].off, p, 8);
				r->buffers[r->nr_buffers++].name = (const char *)p + 8;
			}
		}
	}
}

static int cmdlines(struct reader *r, const char *s)
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
static int head(struct reader *r)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct cur *c = &r->c;
	const unsigned char *m;
	const char *ver, *tag;

	c->what = "the file's header";
	m = take(c, sizeof(magic));
	if (!m || memcmp(m, magic, sizeof(magic))) {
		if (!c->bad)
			bad(c, "no trace-cmd magic");
		return -1;
	}
	ver = str(c);
	if (!ver)
		return -1;
	if (strcmp(ver, "6") && strcmp(ver, "7")) {
		bad(c, "file version %.8s (versions 6 and 7 are read)", ver);
		return -1;
	}
	if (get(c, 1) != 0 || c->bad) {
		bad(c, "a big-endian file");
		return -1;
	}
	if (get(c, 1) != 8) {
		bad(c, "longs that are not 8 bytes");
		return -1;
	}
	r->page_size = get(c, 4);
	if (r->page_size < 64 || r->page_size > (1u << 20)) {
		bad(c, "page size %u", r->page_size);
		return -1;
	}
	tep_set_file_bigendian(r->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(r->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(r->tep, 8);
	tep_set_page_size(r->tep, r->page_size);
	if (!strcmp(ver, "7"))
		return head7(r);
	if (sec_headers(r) || sec_ftrace(r) || sec_events(r) || sec_kallsyms(r) || sec_printk(r) || sec_cmdlines(r))
		return -1;
	c->what = "the CPU count";
	r->nr_cpus = get(c, 4);
	if (!c->bad && (r->nr_cpus == 0 || r->nr_cpus > 8192)) {
		bad(c, "%u CPUs", r->nr_cpus);
		return -1;
	}
	c->what = "the options";
	tag = str(c);
	if (!tag)
		return -1;
	if (strcmp(tag, "options  ")) {
		bad(c, "'%.20s' where the options belong", tag);
		return -1;
	}
	return options(r);
}

static int sec_headers(struct reader *r)
{
	struct cur *c = &r->c;
	const char *tag;
	char *s;

	c->what = "header_page";
	tag = str(c);
	if (!tag || strcmp(tag, "header_page")) {
		bad(c, "no header_page");
		return -1;
	}
	s = text(c, 8);
	if (!s)
		return -1;
	tep_parse_header_page(r->tep, s, strlen(s), 8);
	free(s);
	c->what = "header_event";
	tag = str(c);
	if (!tag || strcmp(tag, "header_event")) {
		bad(c, "no header_event");
		return -1;
	}
	free(text(c, 8));
	return c->bad ? -1 : 0;
}

static int sec_ftrace(struct reader *r)
{
	struct cur *c = &r->c;
	uint32_t n;
	char *s;

	c->what = "the ftrace formats";
	n = get(c, 4);
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		s = text(c, 8);
		if (s)
			tep_parse_event(r->tep, s, strlen(s), "ftrace");
		free(s);
	}
	return c->bad ? -1 : 0;
}

static int sec_events(struct reader *r)
{
	struct cur *c = &r->c;
	uint32_t n;
	char *s;

	c->what = "the event formats";
	n = get(c, 4);
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		const char *sys = str(c);
		uint32_t ne = get(c, 4);

		for (uint32_t e = 0; e < ne && !c->bad; e++) {
			s = text(c, 8);
			if (s)
				tep_parse_event(r->tep, s, strlen(s), sys);
			free(s);
		}
	}
	return c->bad ? -1 : 0;
}

static int sec_kallsyms(struct reader *r)
{
	struct cur *c = &r->c;
	char *s;

	c->what = "kallsyms";
	s = text(c, 4);
	if (s && *s)
		tep_parse_kallsyms(r->tep, s);
	free(s);
	return c->bad ? -1 : 0;
}

static int sec_printk(struct reader *r)
{
	struct cur *c = &r->c;
	char *s;

	c->what = "the printk formats";
	s = text(c, 4);
	if (s && *s)
		tep_parse_printk_formats(r->tep, s);
	free(s);
	return c->bad ? -1 : 0;
}

static int sec_cmdlines(struct reader *r)
{
	struct cur *c = &r->c;
	char *s;

	c->what = "the saved cmdlines";
	s = text(c, 8);
	cmdlines(r, s);
	free(s);
	return c->bad ? -1 : 0;
}

/* version 7 (trace-cmd.dat.v7(5)): sections found through chains of options sections */

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	memcpy(&v, p, n);
	return v;
}

/* zstd blocks: 4-byte compressed size, 4-byte size, the bytes; into a new buffer of size *n */
static unsigned char *unzstd(struct reader *r, const unsigned char *p, size_t avail, size_t *n, size_t *used)
{
	uint32_t csize, size;
	unsigned char *out;

	if (avail < 8) {
		bad(&r->c, "truncated: a compressed block without its sizes");
		return NULL;
	}
	csize = le(p, 4);
	size = le(p + 4, 4);
	if (csize > avail - 8 || size > (1u << 28)) {
		bad(&r->c, "a compressed block of %u bytes (%u unpacked) with %zu left", csize, size, avail - 8);
		return NULL;
	}
	out = malloc(size ? size : 1);
	if (!out) {
		bad(&r->c, "out of memory");
		return NULL;
	}
	if (ZSTD_decompress(out, size, p + 8, csize) != size) {
		free(out);
		bad(&r->c, "a compressed block that does not unpack to its %u bytes", size);
		return NULL;
	}
	*n = size;
	*used = 8 + csize;
	return out;
}

/* point r->c at the section at off (with id want), unpacked if compressed; the caller restores r->c */
static int section(struct reader *r, uint64_t off, unsigned want, const char *what)
{
	struct cur *c = &r->c;
	unsigned id, flags;
	uint64_t size;

	c->what = what;
	if (off > c->len) {
		bad(c, "a section at %llu, past the end", (unsigned long long)off);
		return -1;
	}
	c->pos = off;
	id = get(c, 2);
	flags = get(c, 2);
	get(c, 4);	/* its description's place in the strings */
	size = get(c, 8);
	if (c->bad)
		return -1;
	if (id != want) {
		bad(c, "section %u where section %u belongs", id, want);
		return -1;
	}
	if (size > c->len - c->pos) {
		bad(c, "truncated: a section of %llu bytes, %zu left", (unsigned long long)size, c->len - c->pos);
		return -1;
	}
	if (flags & 1) {
		size_t n, used;
		unsigned char *b = unzstd(r, c->buf + c->pos, size, &n, &used), **v;

		if (!b)
			return -1;
		v = realloc(r->owned, (r->nr_owned + 1) * sizeof(*v));
		if (!v) {
			free(b);
			bad(c, "out of memory");
			return -1;
		}
		r->owned = v;
		v[r->nr_owned++] = b;
		c->buf = b;
		c->len = n;
		c->pos = 0;
	} else {
		c->len = c->pos + size;
	}
	return 0;
}

/* a section named by an option (8-byte offset), parsed by fn */
static int sub(struct reader *r, const unsigned char *p, uint32_t size, unsigned id, const char *what,
	       int (*fn)(struct reader *))
{
	struct cur saved = r->c;
	bool b;

	if (size < 8) {
		bad(&r->c, "option %u without its offset", id);
		return -1;
	}
	r->c.buf = r->file;
	r->c.len = r->file_len;
	if (!section(r, le(p, 8), id, what))
		fn(r);
	b = r->c.bad;
	r->c = (struct cur){ saved.buf, saved.len, saved.pos, saved.what, saved.err, saved.errlen, saved.bad || b };
	return b ? -1 : 0;
}

/* BUFFER: name, clock, page size, CPUs, then each CPU's id, offset and size */
static int buffer7(struct reader *r, const unsigned char *p, uint32_t size)
{
	struct cur saved = r->c, *c = &r->c;
	const char *name;
	uint32_t ncpu;
	int rc = -1;

	c->buf = p;
	c->len = size;
	c->pos = 8;
	c->what = "a BUFFER option";
	name = str(c);
	str(c);	/* the clock */
	get(c, 4);	/* the page size */
	ncpu = get(c, 4);
	for (uint32_t i = 0; i < ncpu && !c->bad; i++) {
		uint32_t cpu = get(c, 4);
		uint64_t off = get(c, 8), sz = get(c, 8);
		struct cur in = *c;

		if (c->bad)
			break;
		*c = (struct cur){ r->file, r->file_len, 0, "the event pages", in.err, in.errlen, false };
		if (off > r->file_len || (!r->zstd && sz > r->file_len - off)) {
			bad(c, "cpu%u's data (%llu bytes at %llu) is past the end of the file", cpu,
			    (unsigned long long)sz, (unsigned long long)off);
		} else if (!sz) {
			/* nothing recorded on this CPU */
		} else if (!r->zstd) {
			add_run(r, name, off, sz, cpu);
		} else {
			/* a count of blocks, then the blocks */
			const unsigned char *q = r->file + off;
			size_t left = sz, total = 0;
			uint32_t nb = r->file_len - off >= 4 ? le(q, 4) : 0;
			unsigned char *all = NULL;

			/* the option's size counts the compressed bytes only: the file's end bounds the blocks */
			q += 4;
			left = r->file_len - off >= 4 ? r->file_len - off - 4 : 0;
			for (uint32_t b = 0; b < nb && !c->bad; b++) {
				size_t n, used;
				unsigned char *blk;

				c->pos = q - r->file;
				blk = unzstd(r, q, left, &n, &used);
				if (!blk)
					break;
				unsigned char *na = realloc(all, total + n);

				if (!na) {
					free(blk);
					bad(c, "out of memory");
					break;
				}
				all = na;
				memcpy(all + total, blk, n);
				free(blk);
				total += n;
				q += used;
				left -= used;
			}
			if (!c->bad && total) {
				struct cpu_run *nr = realloc(r->runs, (r->nr_runs + 1) * sizeof(*nr));

				if (nr) {
					r->runs = nr;
					nr[r->nr_runs++] = (struct cpu_run){ .pages = all, .size = total, .cpu = cpu,
									    .buffer = name, .owned = all };
					all = NULL;
				}
			}
			free(all);
		}
		in.bad = c->bad;
		*c = in;
	}
	rc = c->bad ? -1 : 0;
	saved.bad = saved.bad || c->bad;
	r->c = saved;
	return rc;
}

/* an options section: what it names, and where the next one is (0: the last) */
static int options7(struct reader *r, uint64_t off, uint64_t *next)
{
	struct cur saved = r->c;
	int rc = 0;

	*next = 0;
	r->c.buf = r->file;
	r->c.len = r->file_len;
	if (section(r, off, 0, "an options section"))
		goto out;
	while (!r->c.bad && !rc) {
		unsigned id = get(&r->c, 2);
		uint32_t size = get(&r->c, 4);
		const unsigned char *p = take(&r->c, size);

		if (!p)
			break;
		switch (id) {
		case 0:
			*next = size >= 8 ? le(p, 8) : 0;
			goto out;
		case 3: rc = buffer7(r, p, size); break;
		case 8: r->nr_cpus = size >= 4 ? le(p, 4) : 0; break;
		case 16: rc = sub(r, p, size, id, "the headers", sec_headers); break;
		case 17: rc = sub(r, p, size, id, "the ftrace formats", sec_ftrace); break;
		case 18: rc = sub(r, p, size, id, "the event formats", sec_events); break;
		case 19: rc = sub(r, p, size, id, "kallsyms", sec_kallsyms); break;
		case 20: rc = sub(r, p, size, id, "the printk formats", sec_printk); break;
		case 21: rc = sub(r, p, size, id, "the saved cmdlines", sec_cmdlines); break;
		default: break;
		}
	}
out:
	saved.bad = saved.bad || r->c.bad;
	r->c = saved;
	return saved.bad ? -1 : 0;
}

static int head7(struct reader *r)
{
	struct cur *c = &r->c;
	const char *alg;
	uint64_t next;

	r->v7 = true;
	alg = str(c);
	str(c);	/* the compression's version */
	next = get(c, 8);
	if (c->bad)
		return -1;
	if (strcmp(alg, "none") && strcmp(alg, "zstd")) {
		bad(c, "compressed with '%.20s' (none and zstd are read)", alg);
		return -1;
	}
	r->zstd = !strcmp(alg, "zstd");
	for (int i = 0; next; i++) {
		if (i > 1000) {
			bad(c, "a loop of options sections");
			return -1;
		}
		if (options7(r, next, &next))
			return -1;
	}
	if (!r->nr_cpus || r->nr_cpus > 8192) {
		bad(c, "%u CPUs", r->nr_cpus);
		return -1;
	}
	return 0;
}

/* the run's next page with an event on it; false at the end */
static bool load_page(struct reader *r, struct cpu_run *run)
{
	while (run->at + r->page_size <= run->size) {
		const unsigned char *p = run->pages + run->at;
		uint64_t commit;

		memcpy(&commit, p + 8, 8);
		commit &= (1ULL << 27) - 1;	/* the high bits are flags (missed events) */
		if (commit > r->page_size - 16) {
			r->c.pos = (size_t)(p - r->c.buf) + 8;
			r->c.what = "the event pages";
			bad(&r->c, "cpu%d: a page that holds %llu bytes, more than a page", run->cpu,
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

static bool run_next(struct reader *r, struct cpu_run *run)
{
	if (run->data)
		run->data = kbuffer_next_event(run->kb, &run->ts);
	return run->data || load_page(r, run);
}

static int print(struct reader *r, struct cpu_run *run, struct trace_seq *s,
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
	if (*run->buffer)
		trace_seq_printf(s, "%s: ", run->buffer);
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
	struct reader r = { .c = { .buf = buf, .len = len, .err = err, .errlen = errlen }, .file = buf, .file_len = len };
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
			bad(&r.c, "buffer '%.40s' at %llu, past the end", r.buffers[i].name,
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
	snprintf(cpus, sizeof(cpus), "cpus=%u", r.nr_cpus);
	rc = line(cpus, arg);
	while (!rc) {
		struct cpu_run *min = NULL;

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
