// SPDX-License-Identifier: GPL-2.0
/*
 * perfdata_write.c - writing perf.data: header, attrs and their ids, the record
 * stream copied from the kernel's ring buffers, records synthesized from /proc
 * for what already runs, and the feature sections at the end.
 *
 * The file is written front to back: a valid header (no features, the data size
 * kept at the last round written out), ids, attrs, then the data section;
 * finish() appends the feature sections and rewrites the header. It is written
 * under a temporary name until commit().
 *
 * "-" writes pipe-mode data to stdout, as `perf record -o -` does: a 16-byte
 * header, then the attrs and the features as records (HEADER_ATTR, HEADER_FEATURE,
 * HEADER_TRACING_DATA) ahead of the kernel's records, and the build ids, known
 * only at the end, as HEADER_BUILD_ID records after them. Nothing is seeked back to.
 */
#include "lib/perfdata/perfdata.h"
#include "lib/perfdata/perfdata_int.h"
#include "lib/proc/maps.h"
#include "lib/util.h"
#include "lib/version.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define WBUF_SIZE (256 * 1024)

struct wattr {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	size_t nr_ids;
};

struct perfdata_writer {
	int fd;
	char *path;
	char *tmp_path;		/* written here until commit() renames it to path */
	bool committed;		/* path names the new recording (or no temporary was used) */
	bool unseekable;	/* written in place to a FIFO or a device */
	struct pd_header head;	/* the header as begin() wrote it */
	uint64_t round_end;	/* file offset after the last FINISHED_ROUND */
	uint64_t head_end;	/* the data end that the header on disk gives */
	uint64_t last_flush;	/* util__now_ns() of the last flush at a round's end */
	struct wattr *attrs;
	int nr_attrs;
	char **cmdline;
	int nr_cmdline;
	uint64_t data_offset;	/* where the data section starts */
	uint64_t pos;		/* file offset of the next byte written */
	uint8_t *buf;		/* write buffer */
	size_t buf_len;
	bool begun, finished;
	bool pipe;		/* pipe mode on stdout */
	struct pd_zstd *z;	/* -z: records go out as COMPRESSED records */
	int z_level;
	uint32_t z_mmap_len;	/* the most one COMPRESSED record holds, plus a record: readers size for it */
	bool synth_data;	/* synthesize non-executable mappings too */
	struct perfdata_writer_stats st;
	/* mapped files seen in MMAP/MMAP2 records: an open-addressing string set */
	char **files;
	size_t files_alloc, nr_files;
};

int perfdata_writer__create(struct perfdata_writer **out, const char *path,
			    char *err, size_t errlen)
{
	struct perfdata_writer *w = calloc(1, sizeof(*w));
	struct stat sb;
	int e;

	*out = NULL;
	if (!w || !(w->buf = malloc(WBUF_SIZE)) || !(w->path = strdup(path))) {
		snprintf(err, errlen, "out of memory");
		if (w)
			free(w->buf);
		free(w);
		return -ENOMEM;
	}
	if (!strcmp(path, "-")) {
		w->pipe = true;
		w->committed = true;
		e = 0;
		if (isatty(STDOUT_FILENO)) {
			e = ENOTTY;
			snprintf(err, errlen, "not writing a binary recording to a terminal: redirect stdout or give -o FILE");
		} else if ((w->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) < 0) {
			e = errno;
			snprintf(err, errlen, "cannot write to stdout: %s", strerror(e));
		}
		if (e) {
			free(w->path);
			free(w->buf);
			free(w);
			return -e;
		}
		*out = w;
		return 0;
	}
	if (!lstat(path, &sb) && !S_ISREG(sb.st_mode)) {
		/* a device, a FIFO or a symbolic link (-o /dev/null, -o /dev/stdout): written in
		   place, never replaced (a symlink's file is truncated, as perf truncates) */
		w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (w->fd >= 0 && !fstat(w->fd, &sb) && S_ISREG(sb.st_mode))
			fchmod(w->fd, 0600);	/* a symlink's file: only its owner reads it */
		else if (w->fd >= 0 && S_ISFIFO(sb.st_mode))
			w->pipe = true;		/* a FIFO gets perf's pipe format, as perf writes it there */
		else
			w->unseekable = true;	/* a device: no header updates */
		w->committed = true;
	} else {
		/* a recording holds addresses and command lines: only its owner reads it
		   (mkostemp's mode is 0600). The new recording goes to a temporary name
		   next to path, which replaces path only once commit() says it began */
		if (asprintf(&w->tmp_path, "%s.tmp.XXXXXX", path) < 0)
			w->tmp_path = NULL;
		w->fd = w->tmp_path ? mkostemp(w->tmp_path, O_CLOEXEC) : (errno = ENOMEM, -1);
	}
	if (w->fd < 0) {
		e = errno;
		snprintf(err, errlen, "cannot create '%s': %s", path, strerror(e));
		free(w->tmp_path);
		free(w->path);
		free(w->buf);
		free(w);
		return -e;
	}
	*out = w;
	return 0;
}

int perfdata_writer__commit(struct perfdata_writer *w, char *err, size_t errlen)
{
	struct stat sb;
	char *old = NULL;
	int e = 0;

	if (w->committed)
		return 0;
	/* an earlier recording is kept as PATH.old, as perf keeps perf.data.old */
	if (!stat(w->path, &sb) && sb.st_size > 0) {
		if (asprintf(&old, "%s.old", w->path) < 0) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		if (rename(w->path, old)) {
			e = errno;
			snprintf(err, errlen, "cannot move '%s' to '%s': %s", w->path, old, strerror(e));
			free(old);
			return -e;
		}
	}
	if (rename(w->tmp_path, w->path)) {
		e = errno;
		snprintf(err, errlen, "cannot rename '%s' to '%s': %s", w->tmp_path, w->path, strerror(e));
		if (old)
			rename(old, w->path);	/* put the earlier one back */
		free(old);
		return -e;
	}
	free(old);
	w->committed = true;
	return 0;
}

int perfdata_writer__add_attr(struct perfdata_writer *w, const struct perf_event_attr *attr,
			      const char *name, const uint64_t *ids, size_t nr_ids)
{
	struct wattr *a, *na;

	if (w->begun)
		return -EBUSY;
	if (w->nr_attrs) {
		const struct perf_event_attr *f = &w->attrs[0].attr;

		if (pd_id_hdr_size(f->sample_type) != pd_id_hdr_size(attr->sample_type) ||
		    f->sample_id_all != attr->sample_id_all)
			return -EINVAL;
	}
	na = realloc(w->attrs, (w->nr_attrs + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	w->attrs = na;
	a = &w->attrs[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	a->attr = *attr;
	a->attr.size = sizeof(a->attr);
	a->name = strdup(name ? name : "");
	a->ids = malloc((nr_ids ? nr_ids : 1) * sizeof(uint64_t));
	if (!a->name || !a->ids) {
		free(a->name);
		free(a->ids);
		return -ENOMEM;
	}
	memcpy(a->ids, ids, nr_ids * sizeof(uint64_t));
	a->nr_ids = nr_ids;
	w->nr_attrs++;
	return 0;
}

int perfdata_writer__set_cmdline(struct perfdata_writer *w, int argc, char *const argv[])
{
	w->cmdline = calloc(argc + 1, sizeof(char *));
	if (!w->cmdline)
		return -ENOMEM;
	for (int i = 0; i < argc; i++) {
		w->cmdline[i] = strdup(argv[i]);
		if (!w->cmdline[i])
			return -ENOMEM;
		w->nr_cmdline++;
	}
	return 0;
}

/*
 * The header on disk says the data ends at the last FINISHED_ROUND that is
 * written out, so that a recording killed at any moment is a file perf and sonde
 * read up to there (the feature bits stay 0 until finish(): readers then know
 * that the records may go on to the file's end).
 */
static int update_head(struct perfdata_writer *w)
{
	if (w->pipe || w->unseekable || !w->begun || w->finished || w->round_end <= w->head_end)
		return 0;
	w->head.data.size = w->round_end - w->head.data.offset;
	if (pwrite(w->fd, &w->head, sizeof(w->head), 0) != sizeof(w->head))
		return errno ? -errno : -EIO;
	w->head_end = w->round_end;
	return 0;
}

static int flush_buf(struct perfdata_writer *w)
{
	size_t off = 0;

	while (off < w->buf_len) {
		ssize_t r = write(w->fd, w->buf + off, w->buf_len - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ENOSPC;
		off += r;
	}
	w->buf_len = 0;
	return update_head(w);
}

static int out(struct perfdata_writer *w, const void *p, size_t len)
{
	const uint8_t *s = p;

	while (len) {
		size_t n = WBUF_SIZE - w->buf_len;
		int rc;

		if (n > len)
			n = len;
		if (s)
			memcpy(w->buf + w->buf_len, s, n);
		else
			memset(w->buf + w->buf_len, 0, n);
		w->buf_len += n;
		w->pos += n;
		if (s)
			s += n;
		len -= n;
		if (w->buf_len == WBUF_SIZE && (rc = flush_buf(w)))
			return rc;
	}
	return 0;
}

static int pipe_begin(struct perfdata_writer *w);

int perfdata_writer__begin(struct perfdata_writer *w)
{
	struct pd_header h = { 0 };
	uint64_t ids_off;
	int rc;

	if (w->begun || !w->nr_attrs)
		return -EINVAL;
	w->begun = true;
	if (w->pipe)
		return pipe_begin(w);
	/* a valid header from the start, with no data and no features until there are */
	memcpy(h.magic, "PERFILE2", 8);
	h.size = sizeof(h);
	h.attr_size = sizeof(struct perf_event_attr) + 16;
	ids_off = sizeof(h);
	for (int i = 0; i < w->nr_attrs; i++)
		h.attrs.offset += w->attrs[i].nr_ids * 8;
	h.attrs.offset += ids_off;
	h.attrs.size = w->nr_attrs * h.attr_size;
	h.data.offset = h.attrs.offset + h.attrs.size;
	w->head = h;
	rc = out(w, &h, sizeof(h));
	for (int i = 0; i < w->nr_attrs && !rc; i++)
		rc = out(w, w->attrs[i].ids, w->attrs[i].nr_ids * 8);
	for (int i = 0; i < w->nr_attrs && !rc; i++) {
		struct pd_section ids = { ids_off, w->attrs[i].nr_ids * 8 };

		rc = out(w, &w->attrs[i].attr, sizeof(w->attrs[i].attr));
		if (!rc)
			rc = out(w, &ids, sizeof(ids));
		ids_off += ids.size;
	}
	w->data_offset = w->pos;
	w->round_end = w->head_end = w->pos;
	w->last_flush = util__now_ns();
	/* the header and the attrs are on disk before the first record */
	return rc ? rc : flush_buf(w);
}

/* the set of mapped file names, for the BUILD_ID feature */
static size_t str_hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static int remember_file(struct perfdata_writer *w, const char *name, size_t maxlen)
{
	size_t len = strnlen(name, maxlen), h;
	char *copy;

	if (!len || len == maxlen || (name[0] != '/' && strncmp(name, "[vdso]", 6)))
		return 0;
	if (name[0] != '/')
		return 0;	/* [vdso]: no file to take a build id from */
	if ((w->nr_files + 1) * 2 > w->files_alloc) {
		size_t na = w->files_alloc ? w->files_alloc * 2 : 256;
		char **nf = calloc(na, sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		for (size_t i = 0; i < w->files_alloc; i++) {
			char *f = w->files[i];

			if (!f)
				continue;
			for (h = str_hash(f) & (na - 1); nf[h]; h = (h + 1) & (na - 1))
				;
			nf[h] = f;
		}
		free(w->files);
		w->files = nf;
		w->files_alloc = na;
	}
	for (h = str_hash(name) & (w->files_alloc - 1); w->files[h]; h = (h + 1) & (w->files_alloc - 1))
		if (!strncmp(w->files[h], name, len) && !w->files[h][len])
			return 0;
	copy = strndup(name, len);
	if (!copy)
		return -ENOMEM;
	w->files[h] = copy;
	w->nr_files++;
	return 0;
}

/* a COMPRESSED record, from pd_deflate() */
static int emit(void *ctx, const void *rec, size_t size)
{
	return out(ctx, rec, size);
}

int perfdata_writer__write(struct perfdata_writer *w, const void *recs, size_t len)
{
	const uint8_t *p = recs;
	size_t off = 0;

	if (!w->begun || w->finished)
		return -EINVAL;
	while (off < len) {
		struct perf_event_header h;
		uint64_t v;
		size_t at;

		if (len - off < sizeof(h))
			return -EINVAL;
		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			return -EINVAL;
		switch (h.type) {
		case PERF_RECORD_SAMPLE:
			w->st.samples++;
			break;
		case PERF_RECORD_LOST:		/* id, then lost */
		case PERF_RECORD_LOST_SAMPLES:	/* lost */
			at = h.type == PERF_RECORD_LOST ? 16 : 8;
			if (h.size >= at + 8) {
				memcpy(&v, p + off + at, 8);
				w->st.lost += v;
				w->st.lost_records += h.type == PERF_RECORD_LOST;
			}
			break;
		case PERF_RECORD_MMAP:
			if (h.size > 40 && !(h.misc & PERF_RECORD_MISC_MMAP_DATA) &&
			    remember_file(w, (const char *)p + off + 40, h.size - 40))
				return -ENOMEM;
			break;
		case PERF_RECORD_MMAP2: {
			uint32_t prot;

			if (h.size <= 72)
				break;
			memcpy(&prot, p + off + 64, 4);
			if ((prot & PROT_EXEC) && remember_file(w, (const char *)p + off + 72, h.size - 72))
				return -ENOMEM;
			break;
		}
		}
		off += h.size;
	}
	if (w->z) {
		w->st.raw_bytes += len;
		return pd_deflate(w->z, recs, len, emit, w);
	}
	return out(w, recs, len);
}

int perfdata_writer__set_compression(struct perfdata_writer *w, int level, size_t ring_bytes)
{
	size_t len = ring_bytes + 4096 > (256 << 10) ? ring_bytes + 4096 : (256 << 10);

	if (w->begun || w->z || len > UINT32_MAX)
		return -EINVAL;
	w->z_level = level;
	w->z_mmap_len = (uint32_t)len;
	/* a record cut at a chunk's end waits in the reader's buffer for the rest of it */
	return pd_deflate_new(&w->z, level, len - 65536);
}

int perfdata_writer__finished_round(struct perfdata_writer *w)
{
	struct perf_event_header h = { PERFDATA_RECORD_FINISHED_ROUND, 0, sizeof(h) };
	/* never compressed: perf writes it between COMPRESSED records */
	int rc = !w->begun || w->finished ? -EINVAL : w->z ? out(w, &h, sizeof(h)) : perfdata_writer__write(w, &h, sizeof(h));

	w->round_end = w->pos;
	if (rc)
		return rc;
	/* a pipe's reader gets each round as it ends (and a reader that quit is seen); a
	   file gets the rounds of the last second at least, and a header that covers them:
	   a killed record loses a second, not a buffer */
	if (!w->pipe && util__now_ns() - w->last_flush < 1000000000ULL)
		return 0;
	w->last_flush = util__now_ns();
	return flush_buf(w);
}

void perfdata_writer__stats(const struct perfdata_writer *w, struct perfdata_writer_stats *st)
{
	*st = w->st;
	st->bytes = w->pos;
}

/* ---------------------------------------------------------------- synthesis */

/* the sample_id trailer of a synthesized record: time 0, the first event's id */
static size_t synth_trailer(const struct perfdata_writer *w, uint8_t *p, uint32_t pid, uint32_t tid)
{
	const struct wattr *a = &w->attrs[0];
	uint64_t st = a->attr.sample_type, id = a->nr_ids ? a->ids[0] : 0, zero = 0;
	size_t n = 0;

	if (!a->attr.sample_id_all)
		return 0;
	if (st & PERF_SAMPLE_TID) {
		memcpy(p + n, &pid, 4);
		memcpy(p + n + 4, &tid, 4);
		n += 8;
	}
	if (st & PERF_SAMPLE_TIME)
		memcpy(p + n, &zero, 8), n += 8;
	if (st & PERF_SAMPLE_ID)
		memcpy(p + n, &id, 8), n += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		memcpy(p + n, &id, 8), n += 8;
	if (st & PERF_SAMPLE_CPU)
		memcpy(p + n, &zero, 8), n += 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		memcpy(p + n, &id, 8), n += 8;
	return n;
}

static int synth_comm(struct perfdata_writer *w, uint32_t pid, uint32_t tid, const char *comm)
{
	uint8_t rec[8 + 8 + 24 + 48] = { 0 };
	struct perf_event_header h = { PERF_RECORD_COMM, 0, 0 };
	size_t n = strnlen(comm, 15), len = 16 + ((n + 1 + 7) & ~7u);

	memcpy(rec + 8, &pid, 4);
	memcpy(rec + 12, &tid, 4);
	memcpy(rec + 16, comm, n);
	len += synth_trailer(w, rec + len, pid, tid);
	h.size = (uint16_t)len;
	memcpy(rec, &h, sizeof(h));
	return perfdata_writer__write(w, rec, len);
}

static int synth_mmap(struct perfdata_writer *w, uint32_t type, uint16_t misc, uint32_t pid, uint32_t tid,
		      uint64_t start, uint64_t len, uint64_t pgoff, uint32_t maj, uint32_t min,
		      uint64_t ino, uint32_t prot, uint32_t flags, const char *name)
{
	uint8_t rec[4096 + 256] = { 0 };
	struct perf_event_header h = { type, misc, 0 };
	size_t nl = strnlen(name, 4095), off = 8;

	memcpy(rec + off, &pid, 4);
	memcpy(rec + off + 4, &tid, 4);
	memcpy(rec + off + 8, &start, 8);
	memcpy(rec + off + 16, &len, 8);
	memcpy(rec + off + 24, &pgoff, 8);
	off += 32;
	if (type == PERF_RECORD_MMAP2) {
		memcpy(rec + off, &maj, 4);
		memcpy(rec + off + 4, &min, 4);
		memcpy(rec + off + 8, &ino, 8);
		/* ino_generation stays 0 */
		memcpy(rec + off + 24, &prot, 4);
		memcpy(rec + off + 28, &flags, 4);
		off += 32;
	}
	memcpy(rec + off, name, nl);
	off += (nl + 1 + 7) & ~(size_t)7;
	off += synth_trailer(w, rec + off, pid, tid);
	h.size = (uint16_t)off;
	memcpy(rec, &h, sizeof(h));
	return perfdata_writer__write(w, rec, off);
}

void perfdata_writer__synth_data_maps(struct perfdata_writer *w, bool on)
{
	w->synth_data = on;
}

struct ksym {
	unsigned long long addr;
	char name[128];
};

/* KSYMBOL records for the BPF programs loaded now (their JIT code is in kernel stacks) */
static int synth_bpf(struct perfdata_writer *w, const struct ksym *bpf, size_t nb,
		     const unsigned long long *tagged, size_t nt)
{
	int rc = 0;

	for (size_t i = 0; i < nb && !rc; i++) {
		uint8_t rec[8 + 16 + 128 + 64] = { 0 };
		struct perf_event_header h = { PERF_RECORD_KSYMBOL, PERF_RECORD_MISC_KERNEL, 0 };
		unsigned long long next = bpf[i].addr + 4096;
		uint16_t type = PERF_RECORD_KSYMBOL_TYPE_BPF, flags = 0;
		size_t nl = strlen(bpf[i].name), off;
		uint32_t len;

		/* up to the next module or BPF symbol, at most a page */
		for (size_t j = 0; j < nt; j++)
			if (tagged[j] > bpf[i].addr && tagged[j] < next)
				next = tagged[j];
		len = (uint32_t)(next - bpf[i].addr);
		memcpy(rec + 8, &bpf[i].addr, 8);
		memcpy(rec + 16, &len, 4);
		memcpy(rec + 20, &type, 2);
		memcpy(rec + 22, &flags, 2);
		memcpy(rec + 24, bpf[i].name, nl);
		off = 24 + ((nl + 1 + 7) & ~(size_t)7);
		off += synth_trailer(w, rec + off, (uint32_t)-1, 0);
		h.size = (uint16_t)off;
		memcpy(rec, &h, sizeof(h));
		rc = perfdata_writer__write(w, rec, off);
	}
	return rc;
}

int perfdata_writer__synth_kernel(struct perfdata_writer *w)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	unsigned long long text = 0, stext = 0, etext = 0, *tagged = NULL;
	struct ksym *bpf = NULL;
	size_t nb = 0, ab = 0, nt = 0, at = 0;
	int rc;

	if (!f)
		return -errno;
	/* one pass: _text, _etext, and the module/BPF symbols (tagged "[name]") */
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char t, name[256], mod[64] = "";
		bool is_tagged = strchr(line, '[') != NULL;

		if (!is_tagged && text && etext)
			continue;
		if (sscanf(line, "%llx %c %255s %63s", &a, &t, name, mod) < 3)
			continue;
		if (!is_tagged) {
			if (!strcmp(name, "_text"))
				text = a;
			else if (!strcmp(name, "_stext"))
				stext = a;
			else if (!strcmp(name, "_etext"))
				etext = a;
			continue;
		}
		if (!a)
			continue;
		if (nt == at) {
			unsigned long long *n = realloc(tagged, (at = at ? at * 2 : 1024) * sizeof(*n));

			if (!n)
				break;
			tagged = n;
		}
		tagged[nt++] = a;
		if (strcmp(mod, "[bpf]"))
			continue;
		if (nb == ab) {
			struct ksym *n = realloc(bpf, (ab = ab ? ab * 2 : 16) * sizeof(*n));

			if (!n)
				break;
			bpf = n;
		}
		bpf[nb].addr = a;
		snprintf(bpf[nb].name, sizeof(bpf[nb].name), "%s", name);
		nb++;
	}
	fclose(f);
	if (!text)
		text = stext;
	if (!text) {
		rc = -EACCES;	/* kptr_restrict hides the addresses */
		goto out;
	}
	/* the kernel's text ends at _etext, as perf maps it: modules and BPF JIT code lie beyond */
	rc = synth_mmap(w, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, (uint32_t)-1, 0, text,
			etext > text ? etext - text : ~0ULL - text, text, 0, 0, 0, PROT_READ | PROT_EXEC, 0,
			"[kernel.kallsyms]_text");
	if (!rc)
		rc = synth_bpf(w, bpf, nb, tagged, nt);
out:
	free(bpf);
	free(tagged);
	return rc;
}

static int synth_maps(struct perfdata_writer *w, pid_t pid)
{
	struct proc_maps *it = proc_maps__open(pid);
	const struct proc_map *m;
	int rc = 0;

	if (!it)
		return -errno;
	while (!rc && (m = proc_maps__next(it))) {
		const char *perms = m->perms, *name = m->name;
		uint32_t prot;

		if (perms[2] != 'x' && !w->synth_data)
			continue;
		if (name[0] != '/' && strcmp(name, "[vdso]") && (perms[2] == 'x' || strcmp(name, "[stack]")))
			continue;
		prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		       (perms[2] == 'x' ? PROT_EXEC : 0);
		rc = synth_mmap(w, PERF_RECORD_MMAP2,
				PERF_RECORD_MISC_USER | (perms[2] == 'x' ? 0 : PERF_RECORD_MISC_MMAP_DATA), pid, pid,
				m->start, m->end - m->start, m->pgoff, m->maj, m->min, m->ino, prot,
				perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE, name);
	}
	proc_maps__close(it);
	return rc;
}

static void read_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	buf[0] = 0;
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

int perfdata_writer__synth_task(struct perfdata_writer *w, pid_t pid)
{
	char path[64], comm[32];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!rc && (de = readdir(d))) {
		pid_t tid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tid = atoi(de->d_name);
		read_comm(pid, tid, comm, sizeof(comm));
		if (comm[0])
			rc = synth_comm(w, pid, tid, comm);
	}
	closedir(d);
	if (!rc) {
		rc = synth_maps(w, pid);
		if (rc == -ENOENT || rc == -ESRCH || rc == -EACCES)
			rc = 0;	/* gone meanwhile, or a kernel thread */
	}
	return rc;
}

int perfdata_writer__synth_all(struct perfdata_writer *w)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int rc = 0;

	if (!d)
		return -errno;
	while (!rc && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		rc = perfdata_writer__synth_task(w, atoi(de->d_name));
		if (rc == -ESRCH || rc == -ENOENT || rc == -EACCES)
			rc = 0;
	}
	closedir(d);
	return rc;
}

/* ---------------------------------------------------------------- features */

/* one build-id record: file name's id, as perf writes it (name padded, no pid) */
static void build_id_rec(struct pd_buf *b, uint16_t misc, const char *name, const uint8_t *id, uint8_t size)
{
	struct pd_build_id_rec r;
	size_t n = strlen(name) + 1, padded = (n + PERFDATA_NAME_ALIGN - 1) & ~(size_t)(PERFDATA_NAME_ALIGN - 1);

	if (sizeof(r) + padded > 65535)
		return;
	memset(&r, 0, sizeof(r));
	r.misc = misc | PERF_RECORD_MISC_BUILD_ID_SIZE_;
	r.size = (uint16_t)(sizeof(r) + padded);
	r.pid = -1;
	memcpy(r.build_id, id, 20);
	r.build_id_size = size;
	pd_buf__add(b, &r, sizeof(r));
	pd_buf__add(b, name, n);
	pd_buf__add(b, NULL, padded - n);
}

static void feat_build_ids(struct perfdata_writer *w, struct pd_buf *b)
{
	uint8_t id[20], size;

	if (!pd_build_id__kernel(id, &size))
		build_id_rec(b, PERF_RECORD_MISC_KERNEL, "[kernel.kallsyms]", id, size);
	for (size_t i = 0; i < w->files_alloc; i++)
		if (w->files[i] && !pd_build_id__file(w->files[i], id, &size))
			build_id_rec(b, PERF_RECORD_MISC_USER, w->files[i], id, size);
}

static void feat_event_desc(struct perfdata_writer *w, struct pd_buf *b)
{
	pd_buf__u32(b, w->nr_attrs);
	pd_buf__u32(b, sizeof(struct perf_event_attr));
	for (int i = 0; i < w->nr_attrs; i++) {
		const struct wattr *a = &w->attrs[i];

		pd_buf__add(b, &a->attr, sizeof(a->attr));
		pd_buf__u32(b, a->nr_ids);
		pd_buf__string(b, a->name);
		pd_buf__add(b, a->ids, a->nr_ids * 8);
	}
}

static void feat_cmdline(struct perfdata_writer *w, struct pd_buf *b)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = 0;
	pd_buf__u32(b, w->nr_cmdline + 1);
	pd_buf__string(b, exe[0] ? exe : "sonde");
	for (int i = 0; i < w->nr_cmdline; i++)
		pd_buf__string(b, w->cmdline[i]);
}

/* the features sonde writes, in bit order */
static const int feats[] = {
	PERFDATA_FEAT_TRACING_DATA, PERFDATA_FEAT_BUILD_ID, PERFDATA_FEAT_HOSTNAME,
	PERFDATA_FEAT_OSRELEASE, PERFDATA_FEAT_VERSION, PERFDATA_FEAT_ARCH,
	PERFDATA_FEAT_NRCPUS, PERFDATA_FEAT_CPUDESC, PERFDATA_FEAT_TOTAL_MEM,
	PERFDATA_FEAT_CMDLINE, PERFDATA_FEAT_EVENT_DESC, PERFDATA_FEAT_COMPRESSED,
};
enum { NF = sizeof(feats) / sizeof(feats[0]) };

/* the contents of one feature section into b (empty when there is nothing to say) */
static int build_feature(struct perfdata_writer *w, int feat, struct pd_buf *b, char *err, size_t errlen)
{
	int rc = 0;

	switch (feat) {
	case PERFDATA_FEAT_TRACING_DATA: {
		char **tps = calloc(w->nr_attrs, sizeof(*tps));
		int ntp = 0;

		if (!tps) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		for (int i = 0; i < w->nr_attrs; i++)
			if (w->attrs[i].attr.type == PERF_TYPE_TRACEPOINT && strchr(w->attrs[i].name, ':'))
				tps[ntp++] = w->attrs[i].name;
		if (ntp)
			rc = pd_feat__tracing_data(b, tps, ntp, err, errlen);
		free(tps);
		break;
	}
	case PERFDATA_FEAT_BUILD_ID: feat_build_ids(w, b); break;
	case PERFDATA_FEAT_HOSTNAME:
	case PERFDATA_FEAT_OSRELEASE:
	case PERFDATA_FEAT_ARCH: pd_feat__uname(b, feat); break;
	case PERFDATA_FEAT_VERSION: pd_buf__string(b, "sonde-" SONDE_VERSION); break;
	case PERFDATA_FEAT_NRCPUS: pd_feat__nrcpus(b); break;
	case PERFDATA_FEAT_CPUDESC: pd_feat__cpudesc(b); break;
	case PERFDATA_FEAT_TOTAL_MEM: pd_feat__total_mem(b); break;
	case PERFDATA_FEAT_CMDLINE: feat_cmdline(w, b); break;
	case PERFDATA_FEAT_EVENT_DESC: feat_event_desc(w, b); break;
	case PERFDATA_FEAT_COMPRESSED:
		if (w->z) {	/* version 0, type 1 (zstd), level, ratio, the readers' buffer */
			uint64_t packed = w->pos - w->data_offset;

			pd_buf__u32(b, 0);
			pd_buf__u32(b, 1);
			pd_buf__u32(b, (uint32_t)w->z_level);
			pd_buf__u32(b, w->pipe || !packed ? 0 : (uint32_t)(w->st.raw_bytes / packed));
			pd_buf__u32(b, w->z_mmap_len);
		}
		break;
	}
	if (!rc && b->err) {
		rc = b->err;
		snprintf(err, errlen, "out of memory");
	}
	return rc;
}

/*
 * Pipe mode, before the first record: the header, an attr record per event (attr
 * then its ids), the tracing data of tracepoint events, then a record per feature
 * but the build ids (finish() writes those). Records are padded to 8 bytes.
 */
static int pipe_begin(struct perfdata_writer *w)
{
	struct { char magic[8]; uint64_t size; } ph = { "PERFILE2", sizeof(ph) };
	char err[256];
	int rc = out(w, &ph, sizeof(ph));

	for (int i = 0; i < w->nr_attrs && !rc; i++) {
		struct perf_event_header h = { PERFDATA_RECORD_HEADER_ATTR, 0, 0 };
		size_t len = sizeof(h) + sizeof(w->attrs[i].attr) + w->attrs[i].nr_ids * 8;

		if (len > 65535)
			return -E2BIG;
		h.size = (uint16_t)len;
		rc = out(w, &h, sizeof(h));
		if (!rc)
			rc = out(w, &w->attrs[i].attr, sizeof(w->attrs[i].attr));
		if (!rc)
			rc = out(w, w->attrs[i].ids, w->attrs[i].nr_ids * 8);
	}
	for (int i = 0; i < NF && !rc; i++) {
		struct pd_buf b = { 0 };
		size_t padded;

		if (feats[i] == PERFDATA_FEAT_BUILD_ID)
			continue;
		rc = build_feature(w, feats[i], &b, err, sizeof(err));
		padded = (b.len + 7) & ~(size_t)7;
		if (rc || !b.len) {
			/* nothing */
		} else if (feats[i] == PERFDATA_FEAT_TRACING_DATA) {
			/* the record gives the padded size (perf checks it), the data follows */
			struct { struct perf_event_header h; uint32_t size, pad; } t = {
				{ PERFDATA_RECORD_HEADER_TRACING_DATA, 0, sizeof(t) }, (uint32_t)padded, 0 };

			rc = b.len > UINT32_MAX ? -E2BIG : out(w, &t, sizeof(t));
			if (!rc)
				rc = out(w, b.p, b.len);
			if (!rc)
				rc = out(w, NULL, padded - b.len);
		} else if (padded + 16 <= 65535) {
			struct { struct perf_event_header h; uint64_t feat; } f = {
				{ PERFDATA_RECORD_HEADER_FEATURE, 0, (uint16_t)(padded + 16) }, (uint64_t)feats[i] };

			rc = out(w, &f, sizeof(f));
			if (!rc)
				rc = out(w, b.p, b.len);
			if (!rc)
				rc = out(w, NULL, padded - b.len);
		}	/* a feature too big for a record is left out, as perf leaves it */
		pd_buf__free(&b);
	}
	w->data_offset = w->pos;
	return rc;
}

/* pipe mode, at the end: a HEADER_BUILD_ID record per file (the feature's entries) */
static int pipe_finish(struct perfdata_writer *w)
{
	struct pd_buf b = { 0 };
	int rc;

	feat_build_ids(w, &b);
	rc = b.err;
	for (size_t o = 0; !rc && b.len - o >= sizeof(struct pd_build_id_rec); ) {
		struct pd_build_id_rec *r = (struct pd_build_id_rec *)(b.p + o);
		uint16_t size = r->size;

		/* padded to 8 bytes (perf leaves them at 4): the name's NULs absorb it */
		r->type = PERFDATA_RECORD_HEADER_BUILD_ID;
		r->size = (uint16_t)((size + 7) & ~7);
		rc = out(w, r, size);
		if (!rc)
			rc = out(w, NULL, r->size - size);
		o += size;
	}
	pd_buf__free(&b);
	return rc ? rc : flush_buf(w);
}

int perfdata_writer__finish(struct perfdata_writer *w, char *err, size_t errlen)
{
	struct pd_buf fb[NF];
	struct pd_section secs[NF];
	struct pd_header h = { .size = sizeof(h), .attr_size = sizeof(struct perf_event_attr) + 16 };
	int nsec = 0, rc = 0;
	uint64_t data_end, off;

	if (!w->begun || w->finished) {
		snprintf(err, errlen, "the recording was not started");
		return -EINVAL;
	}
	memset(fb, 0, sizeof(fb));
	data_end = w->pos;
	if (!w->pipe && (rc = perfdata_writer__commit(w, err, errlen)))
		return rc;
	if (w->pipe) {
		rc = pipe_finish(w);
		goto done;
	}
	for (int i = 0; i < NF && !rc; i++)
		rc = build_feature(w, feats[i], &fb[i], err, errlen);
	if (rc)
		goto out;

	/* the section table follows the data, then the contents in bit order */
	for (int i = 0; i < NF; i++)
		if (fb[i].len || feats[i] == PERFDATA_FEAT_BUILD_ID)
			nsec++;
	off = data_end + nsec * sizeof(struct pd_section);
	nsec = 0;
	for (int i = 0; i < NF; i++) {
		if (!fb[i].len && feats[i] != PERFDATA_FEAT_BUILD_ID)
			continue;
		secs[nsec].offset = off;
		secs[nsec].size = fb[i].len;
		off += fb[i].len;
		h.flags[feats[i] / 64] |= 1ULL << (feats[i] % 64);
		nsec++;
	}
	rc = out(w, secs, nsec * sizeof(secs[0]));
	for (int i = 0; i < NF && !rc; i++)
		if (fb[i].len)
			rc = out(w, fb[i].p, fb[i].len);
	if (!rc)
		rc = flush_buf(w);

	memcpy(h.magic, "PERFILE2", 8);
	h.attrs.offset = w->data_offset - w->nr_attrs * (sizeof(struct perf_event_attr) + 16);
	h.attrs.size = w->nr_attrs * (sizeof(struct perf_event_attr) + 16);
	h.data.offset = w->data_offset;
	h.data.size = data_end - w->data_offset;
	if (!rc && pwrite(w->fd, &h, sizeof(h), 0) != sizeof(h))
		rc = errno ? -errno : -EIO;
done:
	if (rc)
		snprintf(err, errlen, "cannot write '%s': %s", w->path, strerror(-rc));
	w->finished = true;
	if (close(w->fd) && !rc) {
		rc = -errno;
		snprintf(err, errlen, "cannot write '%s': %s", w->path, strerror(-rc));
	}
	w->fd = -1;
out:
	for (int i = 0; i < NF; i++)
		pd_buf__free(&fb[i]);
	return rc;
}

void perfdata_writer__free(struct perfdata_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp_path && !w->committed)
		unlink(w->tmp_path);	/* never begun for real: the earlier recording stays */
	free(w->tmp_path);
	for (int i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].name);
		free(w->attrs[i].ids);
	}
	free(w->attrs);
	for (int i = 0; i < w->nr_cmdline; i++)
		free(w->cmdline[i]);
	free(w->cmdline);
	for (size_t i = 0; i < w->files_alloc; i++)
		free(w->files[i]);
	free(w->files);
	free(w->buf);
	free(w->path);
	pd_deflate_free(w->z);
	free(w);
}
