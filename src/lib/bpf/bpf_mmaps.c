// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_mmaps.c - side-band memory-map tracking for BPF commands, through the
 * sampler (one dummy event per CPU, inherited by the child's descendants,
 * enabled at its exec) and the perf record layouts of linux/perf_event.h.
 */
#include "lib/bpf/bpf_mmaps.h"
#include "lib/event/event.h"
#include "lib/event/sampler.h"
#include "lib/symbol/symbol.h"
#include "lib/proc/target.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bpf_mmaps {
	struct symbolizer *sym;
	struct evlist evl;
	struct target t;
	struct sampler smp;
	bool open;
	uint8_t *buf;		/* one drain's records, copied from every CPU's buffer */
	size_t len, alloc;
	int time_back;		/* the time field is this many bytes before a record's end */
};

struct rec_mmap2 {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint8_t id[24];		/* maj, min, ino, ino_generation, or the build id */
	uint32_t prot, flags;
	char filename[];
};

struct rec_mmap {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	char filename[];
};

struct rec_fork {
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* filename is NUL-terminated within the record: check before trusting it */
static const char *rec_string(const void *rec, size_t off, size_t size)
{
	const char *s = (const char *)rec + off;

	if (off >= size || !memchr(s, 0, size - off))
		return NULL;
	return s;
}

int bpf_mmaps__feed(struct symbolizer *s, const void *recs, size_t len)
{
	const uint8_t *p = recs, *end = p + len;

	while (end - p >= (long)sizeof(struct perf_event_header)) {
		const struct perf_event_header *h = (const void *)p;
		const char *name;

		/* records are 8-byte aligned, as in every perf ring buffer: the next one's header too */
		if (h->size < sizeof(*h) || h->size > end - p || h->size % 8)
			return -EINVAL;
		switch (h->type) {
		case PERF_RECORD_MMAP2:
			if (h->size >= sizeof(struct rec_mmap2) &&
			    (name = rec_string(h, offsetof(struct rec_mmap2, filename), h->size))) {
				const struct rec_mmap2 *m = (const void *)h;
				bool has_id = h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID;

				symbolizer__add_mmap(s, m->pid, m->addr, m->len, m->pgoff, name,
						     has_id ? m->id + 4 : NULL, has_id ? (m->id[0] > 20 ? 20 : m->id[0]) : 0);
			}
			break;
		case PERF_RECORD_MMAP:
			if (h->size >= sizeof(struct rec_mmap) &&
			    (name = rec_string(h, offsetof(struct rec_mmap, filename), h->size))) {
				const struct rec_mmap *m = (const void *)h;

				symbolizer__add_mmap(s, m->pid, m->addr, m->len, m->pgoff, name, NULL, 0);
			}
			break;
		case PERF_RECORD_COMM:
			if (h->size >= sizeof(*h) + 8 && (h->misc & PERF_RECORD_MISC_COMM_EXEC)) {
				const uint32_t *ids = (const void *)(h + 1);

				symbolizer__exec(s, ids[0]);
			}
			break;
		case PERF_RECORD_FORK:
			if (h->size >= sizeof(struct rec_fork)) {
				const struct rec_fork *f = (const void *)h;

				if (f->pid != f->ppid)	/* a new process, not a thread */
					symbolizer__fork(s, f->ppid, f->pid);
			}
			break;
		default:	/* exits are kept: we symbolize after the processes are gone */
			break;
		}
		p += h->size;
	}
	return 0;
}

static int collect(void *ctx, const void *recs, size_t len)
{
	struct bpf_mmaps *m = ctx;

	if (m->len + len > m->alloc) {
		size_t na = (m->len + len) * 2;
		uint8_t *nb = realloc(m->buf, na);

		if (!nb)
			return -ENOMEM;
		m->buf = nb;
		m->alloc = na;
	}
	memcpy(m->buf + m->len, recs, len);
	m->len += len;
	return 0;
}

struct rec_ref {
	uint64_t time;
	size_t off;
};

static int by_time(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;	/* stable */
}

int bpf_mmaps__open(struct bpf_mmaps **out, struct symbolizer *s, pid_t child, char *err, size_t errlen)
{
	struct target t = { .child = child };

	return bpf_mmaps__open_target(out, s, &t, err, errlen);
}

int bpf_mmaps__open_target(struct bpf_mmaps **out, struct symbolizer *s, const struct target *t,
			   char *err, size_t errlen)
{
	struct sampler_config cfg = { .period = 1, .mmap_pages = 16 };
	struct bpf_mmaps *m = calloc(1, sizeof(*m));
	int rc;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->sym = s;
	m->t = *t;
	rc = evlist__parse(&m->evl, "dummy", err, errlen);
	if (!rc) {
		uint64_t st;

		sampler__config_attrs(&m->evl, &m->t, &cfg);
		/* the sample_id trailer: ... TIME, then ID, STREAM_ID, CPU, IDENTIFIER as set */
		st = m->evl.ev[0].attr.sample_type;
		m->time_back = 8 + 8 * (!!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
					!!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER));
		if (!(st & PERF_SAMPLE_TIME) || !m->evl.ev[0].attr.sample_id_all)
			m->time_back = 0;	/* no times: keep the buffers' order */
		rc = sampler__open(&m->smp, &m->evl, &m->t, &cfg, err, errlen);
	}
	if (rc) {
		evlist__free(&m->evl);
		free(m);
		return rc;
	}
	m->open = true;
	/* the events start disabled: a command's at its exec, running processes' now */
	if (!t->child && (rc = sampler__enable(&m->smp))) {
		snprintf(err, errlen, "cannot enable the memory-map events: %s", strerror(-rc));
		bpf_mmaps__close(m);
		return rc;
	}
	m->t.pids = m->t.tids = NULL;	/* t's lists: read only while opening */
	m->t.cpus = NULL;
	*out = m;
	return 0;
}

/*
 * Each CPU's buffer is in time order, but not the buffers between them: a
 * child's fork can sit in one and its exec and new maps in another. Records
 * are applied in the order of the time their sample_id trailer carries.
 */
int bpf_mmaps__drain(struct bpf_mmaps *m)
{
	struct rec_ref *refs = NULL;
	size_t n = 0, cap = 0;
	int rc;

	if (!m)
		return 0;
	m->len = 0;
	rc = sampler__drain(&m->smp, collect, m);
	for (size_t off = 0; !rc && off + sizeof(struct perf_event_header) <= m->len;) {
		const struct perf_event_header *h = (const void *)(m->buf + off);
		uint64_t t = 0;

		if (h->size < sizeof(*h) || off + h->size > m->len)
			break;
		if (m->time_back && h->size >= sizeof(*h) + m->time_back)
			memcpy(&t, m->buf + off + h->size - m->time_back, sizeof(t));
		if (n == cap) {
			struct rec_ref *nr = realloc(refs, (cap = cap ? cap * 2 : 256) * sizeof(*nr));

			if (!nr) {
				rc = -ENOMEM;
				break;
			}
			refs = nr;
		}
		refs[n++] = (struct rec_ref){ t, off };
		off += h->size;
	}
	if (n)
		qsort(refs, n, sizeof(*refs), by_time);
	for (size_t i = 0; !rc && i < n; i++) {
		const struct perf_event_header *h = (const void *)(m->buf + refs[i].off);

		bpf_mmaps__feed(m->sym, h, h->size);
	}
	free(refs);
	return rc;
}

void bpf_mmaps__close(struct bpf_mmaps *m)
{
	if (!m)
		return;
	if (m->open)
		sampler__close(&m->smp);
	evlist__free(&m->evl);
	free(m->buf);
	free(m);
}
