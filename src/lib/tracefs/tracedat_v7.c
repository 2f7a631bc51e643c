// SPDX-License-Identifier: GPL-2.0
/*
 * tracedat_v7.c - trace.dat version 7 (trace-cmd.dat.v7(5)), trace-cmd 3's
 * default: after the version, the compression ("none" or "zstd") and the
 * offset of the first options section. Each section has a 16-byte header (id,
 * flags, description, size) and, compressed, a 4-byte packed and a 4-byte
 * unpacked size; options sections name the others by offset and chain to the
 * next. BUFFER options give each buffer's CPUs and where their pages are
 * (zstd: a count of blocks, then the blocks).
 */
#include "lib/tracefs/tracedat_int.h"

#include <stdlib.h>
#include <string.h>

#include <zstd.h>

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	memcpy(&v, p, n);
	return v;
}

/* zstd blocks: 4-byte compressed size, 4-byte size, the bytes; into a new buffer of size *n */
static unsigned char *unzstd(struct tdat_reader *r, const unsigned char *p, size_t avail, size_t *n, size_t *used)
{
	uint32_t csize, size;
	unsigned char *out;

	if (avail < 8) {
		tdat_cur__bad(&r->c, "truncated: a compressed block without its sizes");
		return NULL;
	}
	csize = le(p, 4);
	size = le(p + 4, 4);
	if (csize > avail - 8 || size > (1u << 28)) {
		tdat_cur__bad(&r->c, "a compressed block of %u bytes (%u unpacked) with %zu left", csize, size, avail - 8);
		return NULL;
	}
	out = malloc(size ? size : 1);
	if (!out) {
		tdat_cur__bad(&r->c, "out of memory");
		return NULL;
	}
	if (ZSTD_decompress(out, size, p + 8, csize) != size) {
		free(out);
		tdat_cur__bad(&r->c, "a compressed block that does not unpack to its %u bytes", size);
		return NULL;
	}
	*n = size;
	*used = 8 + csize;
	return out;
}

/* point r->c at the section at off (with id want), unpacked if compressed; the caller restores r->c */
static int section(struct tdat_reader *r, uint64_t off, unsigned want, const char *what)
{
	struct tdat_cur *c = &r->c;
	unsigned id, flags;
	uint64_t size;

	c->what = what;
	if (off > c->len) {
		tdat_cur__bad(c, "a section at %llu, past the end", (unsigned long long)off);
		return -1;
	}
	c->pos = off;
	id = tdat_cur__get(c, 2);
	flags = tdat_cur__get(c, 2);
	tdat_cur__get(c, 4);	/* its description's place in the strings */
	size = tdat_cur__get(c, 8);
	if (c->bad)
		return -1;
	if (id != want) {
		tdat_cur__bad(c, "section %u where section %u belongs", id, want);
		return -1;
	}
	if (size > c->len - c->pos) {
		tdat_cur__bad(c, "truncated: a section of %llu bytes, %zu left", (unsigned long long)size, c->len - c->pos);
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
			tdat_cur__bad(c, "out of memory");
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
static int sub(struct tdat_reader *r, const unsigned char *p, uint32_t size, unsigned id, const char *what,
	       int (*fn)(struct tdat_reader *))
{
	struct tdat_cur saved = r->c;
	bool b;

	if (size < 8) {
		tdat_cur__bad(&r->c, "option %u without its offset", id);
		return -1;
	}
	r->c.buf = r->file;
	r->c.len = r->file_len;
	if (!section(r, le(p, 8), id, what))
		fn(r);
	b = r->c.bad;
	r->c = (struct tdat_cur){ saved.buf, saved.len, saved.pos, saved.what, saved.err, saved.errlen, saved.bad || b };
	return b ? -1 : 0;
}

/* BUFFER: name, clock, page size, CPUs, then each CPU's id, offset and size */
static int buffer7(struct tdat_reader *r, const unsigned char *p, uint32_t size)
{
	struct tdat_cur saved = r->c, *c = &r->c;
	const char *name;
	uint32_t ncpu;
	int rc = -1;

	c->buf = p;
	c->len = size;
	c->pos = 8;
	c->what = "a BUFFER option";
	name = tdat_cur__str(c);
	tdat_cur__str(c);	/* the clock */
	tdat_cur__get(c, 4);	/* the page size */
	ncpu = tdat_cur__get(c, 4);
	for (uint32_t i = 0; i < ncpu && !c->bad; i++) {
		uint32_t cpu = tdat_cur__get(c, 4);
		uint64_t off = tdat_cur__get(c, 8), sz = tdat_cur__get(c, 8);
		struct tdat_cur in = *c;

		if (c->bad)
			break;
		*c = (struct tdat_cur){ r->file, r->file_len, 0, "the event pages", in.err, in.errlen, false };
		if (off > r->file_len || (!r->zstd && sz > r->file_len - off)) {
			tdat_cur__bad(c, "cpu%u's data (%llu bytes at %llu) is past the end of the file", cpu,
			    (unsigned long long)sz, (unsigned long long)off);
		} else if (!sz) {
			/* nothing recorded on this CPU */
		} else if (!r->zstd) {
			tracedat_rd__add_run(r, name, off, sz, cpu);
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
					tdat_cur__bad(c, "out of memory");
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
				struct tdat_run *nr = realloc(r->runs, (r->nr_runs + 1) * sizeof(*nr));

				if (nr) {
					r->runs = nr;
					nr[r->nr_runs++] = (struct tdat_run){ .pages = all, .size = total, .cpu = cpu,
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
static int options7(struct tdat_reader *r, uint64_t off, uint64_t *next)
{
	struct tdat_cur saved = r->c;
	int rc = 0;

	*next = 0;
	r->c.buf = r->file;
	r->c.len = r->file_len;
	if (section(r, off, 0, "an options section"))
		goto out;
	while (!r->c.bad && !rc) {
		unsigned id = tdat_cur__get(&r->c, 2);
		uint32_t size = tdat_cur__get(&r->c, 4);
		const unsigned char *p = tdat_cur__take(&r->c, size);

		if (!p)
			break;
		switch (id) {
		case 0:
			*next = size >= 8 ? le(p, 8) : 0;
			goto out;
		case 3: rc = buffer7(r, p, size); break;
		case 8: r->nr_cpus = size >= 4 ? le(p, 4) : 0; break;
		case 16: rc = sub(r, p, size, id, "the headers", tracedat_rd__headers); break;
		case 17: rc = sub(r, p, size, id, "the ftrace formats", tracedat_rd__ftrace); break;
		case 18: rc = sub(r, p, size, id, "the event formats", tracedat_rd__events); break;
		case 19: rc = sub(r, p, size, id, "kallsyms", tracedat_rd__kallsyms); break;
		case 20: rc = sub(r, p, size, id, "the printk formats", tracedat_rd__printk); break;
		case 21: rc = sub(r, p, size, id, "the saved cmdlines", tracedat_rd__cmdlines); break;
		default: break;
		}
	}
out:
	saved.bad = saved.bad || r->c.bad;
	r->c = saved;
	return saved.bad ? -1 : 0;
}

int tracedat_rd__head7(struct tdat_reader *r)
{
	struct tdat_cur *c = &r->c;
	const char *alg;
	uint64_t next;

	r->v7 = true;
	alg = tdat_cur__str(c);
	tdat_cur__str(c);	/* the compression's version */
	next = tdat_cur__get(c, 8);
	if (c->bad)
		return -1;
	if (strcmp(alg, "none") && strcmp(alg, "zstd")) {
		tdat_cur__bad(c, "compressed with '%.20s' (none and zstd are read)", alg);
		return -1;
	}
	r->zstd = !strcmp(alg, "zstd");
	for (int i = 0; next; i++) {
		if (i > 1000) {
			tdat_cur__bad(c, "a loop of options sections");
			return -1;
		}
		if (options7(r, next, &next))
			return -1;
	}
	if (!r->nr_cpus || r->nr_cpus > 8192) {
		tdat_cur__bad(c, "%u CPUs", r->nr_cpus);
		return -1;
	}
	return 0;
}

