// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_mmaps.c - side-band memory-map tracking for BPF commands, through the
 * sampler (one dummy event per CPU, inherited by the child's descendants,
 * enabled at its exec) and the perf record layouts of linux/perf_event.h.
 */
#include "lib/bpf_mmaps.h"
#include "lib/event.h"
#include "lib/sampler.h"
#include "lib/symbol.h"
#include "lib/target.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct bpf_mmaps {
	struct symbolizer *sym;
	struct evlist evl;
	struct target t;
	struct sampler smp;
	bool open;
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

		if (h->size < sizeof(*h) || h->size > end - p)
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

static int feed_cb(void *ctx, const void *recs, size_t len)
{
	bpf_mmaps__feed(ctx, recs, len);
	return 0;
}

int bpf_mmaps__open(struct bpf_mmaps **out, struct symbolizer *s, pid_t child, char *err, size_t errlen)
{
	struct sampler_config cfg = { .period = 1, .mmap_pages = 16 };
	struct bpf_mmaps *m = calloc(1, sizeof(*m));
	int rc;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->sym = s;
	m->t.child = child;
	rc = evlist__parse(&m->evl, "dummy", err, errlen);
	if (!rc) {
		sampler__config_attrs(&m->evl, &m->t, &cfg);
		rc = sampler__open(&m->smp, &m->evl, &m->t, &cfg, err, errlen);
	}
	if (rc) {
		evlist__free(&m->evl);
		free(m);
		return rc;
	}
	m->open = true;
	*out = m;
	return 0;
}

int bpf_mmaps__drain(struct bpf_mmaps *m)
{
	return m ? sampler__drain(&m->smp, feed_cb, m->sym) : 0;
}

void bpf_mmaps__close(struct bpf_mmaps *m)
{
	if (!m)
		return;
	if (m->open)
		sampler__close(&m->smp);
	evlist__free(&m->evl);
	free(m);
}
