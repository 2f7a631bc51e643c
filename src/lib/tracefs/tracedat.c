// SPDX-License-Identifier: GPL-2.0
/*
 * tracedat.c - writing trace-cmd's trace.dat (version 6) from an instance's
 * per-CPU trace_pipe_raw pages. The layout, from trace-cmd.dat(5): magic,
 * version, endianness, long size, page size; header_page and header_event;
 * the ftrace and event formats; kallsyms and printk formats;
 * saved cmdlines; the CPU count; options; "flyrecord" with each CPU's offset
 * and size, the trace clock; then each CPU's pages, page aligned.
 * The reader is tracedat_read.c.
 */
#include "lib/tracefs/tracedat.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cpu_pages {
	int fd;
	unsigned char *data;	/* whole pages */
	size_t len, cap;
};

struct tracedat_rec {
	char dir[4096];
	size_t page_size;
	int nr_cpus;
	struct cpu_pages *cpu;
	unsigned char *page;
};

void tracedat_rec__free(struct tracedat_rec *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nr_cpus; i++) {
		if (r->cpu[i].fd >= 0)
			close(r->cpu[i].fd);
		free(r->cpu[i].data);
	}
	free(r->cpu);
	free(r->page);
	free(r);
}

int tracedat_rec__open(struct tracedat_rec **rp, const char *dir, char *err, size_t errlen)
{
	struct tracedat_rec *r = calloc(1, sizeof(*r));
	char path[4200];

	*rp = NULL;
	if (!r)
		return -ENOMEM;
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	r->page_size = (size_t)sysconf(_SC_PAGESIZE);
	r->page = malloc(r->page_size);
	if (!r->page) {
		tracedat_rec__free(r);
		return -ENOMEM;
	}
	for (;;) {
		struct cpu_pages *n;
		int fd;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", dir, r->nr_cpus);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT && r->nr_cpus > 0)
				break;
			snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
			int e = -errno;

			tracedat_rec__free(r);
			return e;
		}
		n = realloc(r->cpu, (r->nr_cpus + 1) * sizeof(*n));
		if (!n) {
			close(fd);
			tracedat_rec__free(r);
			return -ENOMEM;
		}
		r->cpu = n;
		r->cpu[r->nr_cpus++] = (struct cpu_pages){ .fd = fd };
	}
	*rp = r;
	return 0;
}

int tracedat_rec__drain(struct tracedat_rec *r, char *err, size_t errlen)
{
	for (int i = 0; i < r->nr_cpus; i++) {
		struct cpu_pages *c = &r->cpu[i];

		for (;;) {
			ssize_t n = read(c->fd, r->page, r->page_size);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				break;
			if (n < 0) {
				snprintf(err, errlen, "cannot read cpu%d's trace_pipe_raw: %s", i, strerror(errno));
				return -errno;
			}
			if (n == 0)
				break;
			if (c->len + r->page_size > c->cap) {
				size_t cap = c->cap ? c->cap * 2 : 16 * r->page_size;
				unsigned char *d = realloc(c->data, cap);

				if (!d)
					return -ENOMEM;
				c->data = d;
				c->cap = cap;
			}
			memset(r->page + n, 0, r->page_size - n);
			memcpy(c->data + c->len, r->page, r->page_size);
			c->len += r->page_size;
		}
	}
	return 0;
}

unsigned long long tracedat_rec__pages(const struct tracedat_rec *r)
{
	unsigned long long n = 0;

	for (int i = 0; i < r->nr_cpus; i++)
		n += r->cpu[i].len / r->page_size;
	return n;
}

/* the file being written, with its first error kept */
struct out {
	FILE *f;
	int err;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (!o->err && n && fwrite(p, 1, n, o->f) != n)
		o->err = errno ? errno : EIO;
}

static void put4(struct out *o, uint32_t v)
{
	put(o, &v, 4);	/* the file says little endian: this machine's order */
}

static void put8(struct out *o, uint64_t v)
{
	put(o, &v, 8);
}

static void put2(struct out *o, uint16_t v)
{
	put(o, &v, 2);
}

/* a whole tracefs file: its size (in szbytes) and its bytes */
static int put_file(struct out *o, const char *path, int szbytes)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = util__read_file(path, 64 << 20, &buf, &len);

	if (rc)
		return rc;
	if (szbytes == 8)
		put8(o, len);
	else
		put4(o, (uint32_t)len);
	put(o, buf, len);
	free(buf);
	return 0;
}

static bool enabled(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	bool on = !util__read_file(path, 64, &buf, &len) && len && buf[0] == '1';

	free(buf);
	return on;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the names in dir that are directories, sorted; count or -errno */
static int subdirs(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	int n = 0;

	*out = NULL;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char **nv;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv || !(nv[n] = strdup(de->d_name))) {
			free(nv ? nv : v);
			closedir(d);
			return -ENOMEM;
		}
		v = nv;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), by_name);
	*out = v;
	return n;
}

static void free_names(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* the event systems: those with an event enabled in the instance, each with those events' formats */
static int put_events(struct out *o, const char *dir, const char *root)
{
	char path[8600], **sys = NULL;
	int nsys, nused = 0, rc = 0;
	long count_at;

	snprintf(path, sizeof(path), "%s/events", dir);
	nsys = subdirs(path, &sys);
	if (nsys < 0)
		return nsys;
	count_at = ftell(o->f);
	put4(o, 0);	/* the count, written again at the end */
	for (int s = 0; s < nsys && !rc; s++) {
		char **ev = NULL, **on = NULL;
		int nev, non = 0;

		snprintf(path, sizeof(path), "%s/events/%s", dir, sys[s]);
		nev = subdirs(path, &ev);
		if (nev <= 0) {
			free_names(ev, nev > 0 ? nev : 0);
			continue;
		}
		on = calloc(nev, sizeof(*on));
		for (int e = 0; on && e < nev; e++) {
			snprintf(path, sizeof(path), "%s/events/%s/%s/enable", dir, sys[s], ev[e]);
			if (enabled(path))
				on[non++] = ev[e];
		}
		if (non) {
			put(o, sys[s], strlen(sys[s]) + 1);
			put4(o, non);
			for (int e = 0; e < non && !rc; e++) {
				snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, sys[s], on[e]);
				rc = put_file(o, path, 8);
			}
			nused++;
		}
		free(on);
		free_names(ev, nev);
	}
	free_names(sys, nsys);
	if (!rc && !o->err) {
		long end = ftell(o->f);

		fseek(o->f, count_at, SEEK_SET);
		put4(o, nused);
		fseek(o->f, end, SEEK_SET);
	}
	return rc;
}

static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

int tracedat_rec__write(struct tracedat_rec *r, const char *root, const char *path, char *err, size_t errlen)
{
	struct out o = { .f = fopen(path, "we") };
	char p[4300], *clock = NULL;
	size_t clock_len = 0;
	long table;
	uint64_t off;
	int rc;

	if (!o.f) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -errno;
	}
	put(&o, magic, sizeof(magic));
	put(&o, "6", 2);
	put(&o, "\0\x08", 2);	/* little endian, 8-byte longs */
	put4(&o, (uint32_t)r->page_size);
	put(&o, "header_page", 12);
	snprintf(p, sizeof(p), "%s/events/header_page", root);
	rc = put_file(&o, p, 8);
	if (!rc) {
		put(&o, "header_event", 13);
		snprintf(p, sizeof(p), "%s/events/header_event", root);
		rc = put_file(&o, p, 8);
	}
	if (rc) {
		snprintf(err, errlen, "cannot read %s: %s", p, strerror(-rc));
		goto out;
	}
	put4(&o, 0);	/* no ftrace (function tracer) formats: sonde records tracepoints */
	rc = put_events(&o, r->dir, root);
	if (rc) {
		snprintf(err, errlen, "cannot read the formats of the enabled events in %s/events: %s", root, strerror(-rc));
		goto out;
	}
	/* the symbols and trace_printk formats, for the events that print addresses or use bprint */
	if (put_file(&o, "/proc/kallsyms", 4))
		put4(&o, 0);
	snprintf(p, sizeof(p), "%s/printk_formats", root);
	if (put_file(&o, p, 4))
		put4(&o, 0);
	snprintf(p, sizeof(p), "%s/saved_cmdlines", root);
	if (put_file(&o, p, 8))
		put8(&o, 0);
	put4(&o, r->nr_cpus);
	put(&o, "options  ", 10);
	snprintf(p, sizeof(p), "%s/trace_clock", r->dir);
	if (!util__read_file(p, 4096, &clock, &clock_len) && clock_len) {
		put2(&o, 4);	/* TRACECLOCK: the clocks, the one used in brackets */
		put4(&o, (uint32_t)clock_len);
		put(&o, clock, clock_len);
	}
	put2(&o, 0);	/* the end of the options */
	put(&o, "flyrecord", 10);
	table = ftell(o.f);
	for (int i = 0; i < r->nr_cpus; i++) {
		put8(&o, 0);
		put8(&o, 0);
	}
	/* the clock in use: "[local]" */
	if (clock) {
		char *a = strchr(clock, '['), *b = a ? strchr(a, ']') : NULL;

		if (a && b) {
			put8(&o, b - a + 1);
			put(&o, a, b - a + 1);
		} else {
			put8(&o, 7);
			put(&o, "[local]", 7);
		}
	} else {
		put8(&o, 7);
		put(&o, "[local]", 7);
	}
	off = ftell(o.f);
	off = (off + r->page_size - 1) / r->page_size * r->page_size;
	if (!o.err && fseek(o.f, table, SEEK_SET) == 0) {
		uint64_t at = off;

		for (int i = 0; i < r->nr_cpus; i++) {
			put8(&o, r->cpu[i].len ? at : 0);
			put8(&o, r->cpu[i].len);
			at += r->cpu[i].len;
		}
		if (fseek(o.f, (long)off, SEEK_SET))
			o.err = errno;
		for (int i = 0; i < r->nr_cpus; i++)
			put(&o, r->cpu[i].data, r->cpu[i].len);
	}
	if (o.err) {
		rc = -o.err;
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(o.err));
	}
out:
	free(clock);
	if (fclose(o.f) && !rc) {
		rc = -errno;
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	}
	return rc;
}
