// SPDX-License-Identifier: GPL-2.0
/*
 * flight_ring.c - a flight recorder's records in memory: a time- and
 * size-bounded ring of samples and a store of side-band records (see
 * flight_ring.h).
 */
#include "lib/record/flight_ring.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* a run of entries: [u64 time][the record], each record a multiple of 8 bytes */
struct chunk {
	struct chunk *next;
	size_t used, size;
	uint64_t newest;		/* the latest time of its entries */
	uint64_t samples;
	uint64_t records;
	unsigned char data[];
};

struct store {
	struct chunk *head, *tail;
	size_t bytes, cap;
	uint64_t samples, records;
};

struct flight_ring {
	uint64_t window_ns;
	size_t chunk_size;
	struct perf_event_attr attr;
	struct store ring, side;
	struct flight_ring_stats st;
};

int flight_ring__new(struct flight_ring **out, uint64_t window_ns, size_t cap, const struct perf_event_attr *attr)
{
	struct flight_ring *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	if (cap < FLIGHT_MIN_CAP)
		cap = FLIGHT_MIN_CAP;
	r->window_ns = window_ns;
	r->attr = *attr;
	r->side.cap = cap / 8;
	r->ring.cap = cap - r->side.cap;
	/* small enough that the cap frees memory in small steps, large enough to be cheap */
	r->chunk_size = cap / 32;
	if (r->chunk_size > ((size_t)1 << 20))
		r->chunk_size = (size_t)1 << 20;
	*out = r;
	return 0;
}

static void store__clear(struct store *s)
{
	while (s->head) {
		struct chunk *c = s->head;

		s->head = c->next;
		free(c);
	}
	s->tail = NULL;
	s->bytes = 0;
	s->samples = s->records = 0;
}

void flight_ring__free(struct flight_ring *r)
{
	if (!r)
		return;
	store__clear(&r->ring);
	store__clear(&r->side);
	free(r);
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* the record's time: a sample's TIME field, else its sample_id trailer's; false if it has none */
static bool record_time(const struct perf_event_attr *a, const unsigned char *rec, size_t size, uint64_t *t)
{
	const struct perf_event_header *h = (const void *)rec;
	uint64_t st = a->sample_type;
	size_t off;

	if (!(st & PERF_SAMPLE_TIME))
		return false;
	if (h->type == PERF_RECORD_SAMPLE) {
		off = sizeof(*h) + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
					!!(st & PERF_SAMPLE_TID));
	} else {
		size_t after = 8 * (1 + !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
				    !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER));

		if (!a->sample_id_all || size < sizeof(*h) + after)
			return false;
		off = size - after;
	}
	if (off + 8 > size)
		return false;
	*t = rd64(rec + off);
	return true;
}

/* records that give meaning to addresses for a process's whole life */
static bool is_side_band(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_BPF_EVENT:
	case PERF_RECORD_CGROUP:
	case PERF_RECORD_NAMESPACES:
	case PERF_RECORD_TEXT_POKE:
		return true;
	default:
		return false;
	}
}

static int store__append(struct store *s, size_t chunk_size, uint64_t t, const void *rec, size_t size,
			 bool sample)
{
	size_t need = 8 + size;
	struct chunk *c = s->tail;

	if (!c || c->used + need > c->size) {
		size_t sz = need > chunk_size ? need : chunk_size;

		c = malloc(sizeof(*c) + sz);
		if (!c)
			return -ENOMEM;
		memset(c, 0, sizeof(*c));
		c->size = sz;
		if (s->tail)
			s->tail->next = c;
		else
			s->head = c;
		s->tail = c;
		s->bytes += sizeof(*c) + sz;
	}
	memcpy(c->data + c->used, &t, 8);
	memcpy(c->data + c->used + 8, rec, size);
	c->used += need;
	if (t > c->newest)
		c->newest = t;
	c->records++;
	c->samples += sample;
	s->records++;
	s->samples += sample;
	return 0;
}

/* samples of chunk c at or after `from` */
static uint64_t chunk_samples_since(const struct chunk *c, uint64_t from)
{
	uint64_t n = 0;

	for (size_t off = 0; off < c->used;) {
		const struct perf_event_header *h = (const void *)(c->data + off + 8);

		n += h->type == PERF_RECORD_SAMPLE && rd64(c->data + off) >= from;
		off += 8 + h->size;
	}
	return n;
}

static void store__drop_head(struct store *s)
{
	struct chunk *c = s->head;

	s->head = c->next;
	if (!s->head)
		s->tail = NULL;
	s->bytes -= sizeof(*c) + c->size;
	s->records -= c->records;
	s->samples -= c->samples;
	free(c);
}

static uint64_t window_start(const struct flight_ring *r, uint64_t now)
{
	return now > r->window_ns ? now - r->window_ns : 0;
}

void flight_ring__expire(struct flight_ring *r, uint64_t now_ns)
{
	uint64_t from = window_start(r, now_ns);

	while (r->ring.head && r->ring.head->newest < from)
		store__drop_head(&r->ring);
	while (r->ring.bytes > r->ring.cap && r->ring.head) {
		r->st.cut += chunk_samples_since(r->ring.head, from);
		store__drop_head(&r->ring);
	}
	while (r->side.bytes > r->side.cap && r->side.head) {
		r->st.side_dropped += r->side.head->records;
		store__drop_head(&r->side);
	}
}

int flight_ring__add(struct flight_ring *r, const void *recs, size_t len, uint64_t now_ns)
{
	const unsigned char *p = recs;
	int rc = 0;

	for (size_t off = 0; off < len;) {
		const struct perf_event_header *h = (const void *)(p + off);
		uint64_t t = now_ns;
		bool sample;

		if (len - off < sizeof(*h) || h->size < sizeof(*h) || h->size % 8 || h->size > len - off) {
			rc = -EBADMSG;
			break;
		}
		record_time(&r->attr, p + off, h->size, &t);
		sample = h->type == PERF_RECORD_SAMPLE;
		if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16) {
			r->st.lost += rd64(p + off + sizeof(*h) + 8);
			r->st.lost_records++;
		} else if (h->type == PERF_RECORD_LOST_SAMPLES && h->size >= sizeof(*h) + 8) {
			r->st.lost += rd64(p + off + sizeof(*h));
			r->st.lost_records++;
		}
		r->st.seen += sample;
		if (is_side_band(h->type))
			rc = store__append(&r->side, r->chunk_size, t, p + off, h->size, false);
		else
			rc = store__append(&r->ring, r->chunk_size, t, p + off, h->size, sample);
		if (rc)
			break;
		off += h->size;
	}
	flight_ring__expire(r, now_ns);
	return rc;
}

struct entry {
	uint64_t time, seq;
	const unsigned char *rec;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static size_t collect(const struct store *s, uint64_t from, struct entry *e, size_t n)
{
	for (const struct chunk *c = s->head; c; c = c->next)
		for (size_t off = 0; off < c->used;) {
			const struct perf_event_header *h = (const void *)(c->data + off + 8);
			uint64_t t = rd64(c->data + off);

			if (t >= from) {
				e[n].time = t;
				e[n].seq = n;
				e[n].rec = c->data + off + 8;
				n++;
			}
			off += 8 + h->size;
		}
	return n;
}

int flight_ring__walk(const struct flight_ring *r, uint64_t now_ns,
		      int (*fn)(void *ctx, const void *rec, size_t len), void *ctx, struct flight_window *win)
{
	size_t max = r->ring.records + r->side.records, n;
	struct entry *e = calloc(max ? max : 1, sizeof(*e));
	int rc = 0;

	memset(win, 0, sizeof(*win));
	win->from_ns = window_start(r, now_ns);
	if (!e)
		return -ENOMEM;
	n = collect(&r->side, 0, e, 0);
	n = collect(&r->ring, win->from_ns, e, n);
	qsort(e, n, sizeof(*e), entry_cmp);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct perf_event_header *h = (const void *)e[i].rec;

		if (h->type == PERF_RECORD_SAMPLE) {
			if (!win->samples++)
				win->first_ns = e[i].time;
			win->last_ns = e[i].time;
		} else if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16) {
			win->lost += rd64(e[i].rec + sizeof(*h) + 8);
		} else if (h->type == PERF_RECORD_LOST_SAMPLES && h->size >= sizeof(*h) + 8) {
			win->lost += rd64(e[i].rec + sizeof(*h));
		}
		rc = fn(ctx, e[i].rec, h->size);
	}
	free(e);
	return rc;
}

void flight_ring__stats(const struct flight_ring *r, struct flight_ring_stats *st)
{
	*st = r->st;
	st->samples = r->ring.samples;
	st->side_records = r->side.records;
	st->bytes = r->ring.bytes + r->side.bytes;
}
