/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracedat_int.h - what the trace.dat reader's two files share
 * (tracedat_read.c: version 6, the section parsers, the pages; tracedat_v7.c:
 * version 7's sections, options chains and zstd). Not for outside lib/tracefs.
 * The reader owns all it holds (runs, decompressed sections, the tep handle):
 * the cursor's bytes and strings point into the file or those sections.
 */
#ifndef SONDE_TRACEDAT_INT_H
#define SONDE_TRACEDAT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

/* a cursor over the file or an unpacked section; the first error is kept in err */
struct tdat_cur {
	const unsigned char *buf;
	size_t len, pos;
	const char *what;	/* the section being read, for the error line */
	char *err;
	size_t errlen;
	bool bad;
};

struct tdat_run {
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

struct tdat_reader {
	struct tdat_cur c;
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	uint32_t page_size;
	uint32_t nr_cpus;
	struct tdat_run *runs;
	int nr_runs;
	struct { uint64_t off; const char *name; } buffers[64];
	int nr_buffers;
	int name_width;		/* the longest buffer name: lines start with it, right-aligned, when any has one */
	bool v7, zstd;
	unsigned char **owned;	/* version 7: the decompressed sections (names point into them) */
	const unsigned char *file;
	size_t file_len;
	int nr_owned;
};

/* the first error, with where (c->pos) and in what (c->what) */
void tdat_cur__bad(struct tdat_cur *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* n bytes, NULL when fewer are left */
const unsigned char *tdat_cur__take(struct tdat_cur *c, uint64_t n);
/* an n-byte little-endian number */
uint64_t tdat_cur__get(struct tdat_cur *c, int n);
/* a NUL-terminated string */
const char *tdat_cur__str(struct tdat_cur *c);

/* a CPU's pages at off in the file */
int tracedat_rd__add_run(struct tdat_reader *r, const char *name, uint64_t off, uint64_t size, int cpu);
/* the sections both versions have, read at r->c */
int tracedat_rd__headers(struct tdat_reader *r);
int tracedat_rd__ftrace(struct tdat_reader *r);
int tracedat_rd__events(struct tdat_reader *r);
int tracedat_rd__kallsyms(struct tdat_reader *r);
int tracedat_rd__printk(struct tdat_reader *r);
int tracedat_rd__cmdlines(struct tdat_reader *r);
/* version 7: after the version string, to the end of the options chain */
int tracedat_rd__head7(struct tdat_reader *r);

#endif
