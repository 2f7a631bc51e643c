// SPDX-License-Identifier: GPL-2.0
/*
 * perfdata_read.c - reading perf.data (sonde's and perf's): the header and attrs,
 * the feature sections, and the records of the data section in time order.
 *
 * Every length and offset in the file is checked before use: a truncated,
 * corrupted or hostile file gives -errno and one line naming the offset, never a
 * read outside the file. Opening validates the framing of every record and sorts
 * an index by time; next() decodes one record at a time.
 */
#include "lib/perfdata/perfdata.h"
#include "lib/perfdata/perfdata_int.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ATTRS 4096

struct rindex {
	uint64_t time;
	uint64_t off;
};

struct idmap {
	uint64_t id;
	int idx;
};

struct perfdata_reader {
	uint8_t *data;
	size_t size;
	bool mapped;
	struct perfdata_attr *attrs;
	int nr_attrs;
	char (*names)[64];		/* made-up names for attrs EVENT_DESC does not name */
	struct idmap *ids;
	size_t nr_ids;
	int id_pos;			/* u64 index of the id in a sample body, or -1 */
	int is_pos;			/* u64 index of the id from a record's end, or -1 */
	uint64_t attrs_offset;		/* for messages */
	bool pipe;			/* pipe mode: attrs and features are records */
	struct perfdata_features feat;
	const char **cmdline;
	struct perfdata_build_id *bids;
	size_t bids_alloc;
	struct rindex *idx;
	size_t nr_idx, idx_cap, cur;
	size_t released;		/* release_behind() */
	size_t populated;		/* release_behind(): mapped up to here */
	bool no_populate;		/* the kernel has no MADV_POPULATE_READ */
	struct perfdata_reader_stats st;
	char err[256];
	bool unfinished;		/* the header was never finalised: records go to the end */
	bool expanded;			/* the data was looked at for COMPRESSED records */
	char note[256];			/* perfdata_reader__warning() */
};

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static inline uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/* ----------------------------------------------------------------- opening */

static int find_attr(const struct perfdata_reader *r, uint64_t id)
{
	size_t lo = 0, hi = r->nr_ids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->ids[mid].id == id)
			return r->ids[mid].idx;
		if (r->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;	/* perf too falls back to the first event */
}

/* which attr a record belongs to */
static int record_attr(const struct perfdata_reader *r, const uint8_t *rec, uint16_t size, uint32_t type)
{
	if (r->nr_attrs == 1)
		return 0;
	if (type == PERF_RECORD_SAMPLE) {
		if (r->id_pos < 0 || 8 + (size_t)r->id_pos * 8 + 8 > size)
			return 0;
		return find_attr(r, rd64(rec + 8 + r->id_pos * 8));
	}
	if (r->is_pos < 0 || !r->attrs[0].attr.sample_id_all || (size_t)r->is_pos * 8 + 8 > size)
		return 0;
	return find_attr(r, rd64(rec + size - r->is_pos * 8));
}

static int read_string(const uint8_t *base, size_t *off, size_t end, const char **out)
{
	uint32_t len;

	if (end - *off < 4)
		return -1;
	len = rd32(base + *off);
	*off += 4;
	if (len > end - *off || !len || !memchr(base + *off, 0, len))
		return -1;
	*out = (const char *)base + *off;
	*off += len;
	return 0;
}

/*
 * One entry of the BUILD_ID feature, or a HEADER_BUILD_ID record of pipe-mode data
 * (the same layout), appended to the features' build ids. Returns the bytes it took,
 * 0 for a malformed entry, (size_t)-1 when out of memory.
 */
static size_t add_build_id(struct perfdata_reader *r, const uint8_t *p, size_t avail)
{
	struct perfdata_features *f = &r->feat;
	struct pd_build_id_rec h;
	struct perfdata_build_id *bi;

	if (avail < sizeof(h))
		return 0;
	memcpy(&h, p, sizeof(h));
	if (h.size < sizeof(h) || h.size > avail || !memchr(p + sizeof(h), 0, h.size - sizeof(h)))
		return 0;
	if (f->nr_build_ids == r->bids_alloc) {
		size_t na = r->bids_alloc ? 2 * r->bids_alloc : 16;
		struct perfdata_build_id *nb = realloc(r->bids, na * sizeof(*nb));

		if (!nb)
			return (size_t)-1;
		r->bids = nb;
		r->bids_alloc = na;
	}
	f->build_ids = r->bids;
	bi = &r->bids[f->nr_build_ids++];
	bi->pid = h.pid;
	bi->misc = h.misc & ~PERF_RECORD_MISC_BUILD_ID_SIZE_;
	memcpy(bi->id, h.build_id, 20);
	bi->size = (h.misc & PERF_RECORD_MISC_BUILD_ID_SIZE_) && h.build_id_size <= 20 ? h.build_id_size : 20;
	bi->filename = (const char *)p + sizeof(h);
	return h.size;
}

static int parse_feature(struct perfdata_reader *r, int bit, uint64_t off, uint64_t size,
			 char *err, size_t errlen)
{
	const uint8_t *b = r->data;
	size_t o = off, end = off + size;
	struct perfdata_features *f = &r->feat;
	const char **str = NULL;

	switch (bit) {
	case PERFDATA_FEAT_HOSTNAME: str = &f->hostname; break;
	case PERFDATA_FEAT_OSRELEASE: str = &f->osrelease; break;
	case PERFDATA_FEAT_VERSION: str = &f->version; break;
	case PERFDATA_FEAT_ARCH: str = &f->arch; break;
	case PERFDATA_FEAT_CPUDESC: str = &f->cpudesc; break;
	case PERFDATA_FEAT_CPUID: str = &f->cpuid; break;
	}
	if (str) {
		if (read_string(b, &o, end, str))
			goto bad;
		return 0;
	}
	switch (bit) {
	case PERFDATA_FEAT_TRACING_DATA:
		f->tracing_data = b + off;
		f->tracing_data_size = size;
		return 0;
	case PERFDATA_FEAT_NRCPUS:
		if (size < 8)
			goto bad;
		f->nr_cpus_avail = rd32(b + o);
		f->nr_cpus_online = rd32(b + o + 4);
		return 0;
	case PERFDATA_FEAT_TOTAL_MEM:
		if (size < 8)
			goto bad;
		f->total_mem_kb = rd64(b + o);
		return 0;
	case PERFDATA_FEAT_CMDLINE: {
		uint32_t nr;

		if (size < 4)
			goto bad;
		nr = rd32(b + o);
		o += 4;
		if (nr > size / 4)
			goto bad;
		free(r->cmdline);	/* a second CMDLINE (pipe mode) replaces the first */
		r->cmdline = calloc(nr ? nr : 1, sizeof(char *));
		if (!r->cmdline)
			return fail(err, errlen, -ENOMEM, "out of memory");
		for (uint32_t i = 0; i < nr; i++)
			if (read_string(b, &o, end, &r->cmdline[i]))
				goto bad;
		f->cmdline = r->cmdline;
		f->nr_cmdline = nr;
		return 0;
	}
	case PERFDATA_FEAT_EVENT_DESC: {
		uint32_t nr, asz;

		if (size < 8)
			goto bad;
		nr = rd32(b + o);
		asz = rd32(b + o + 4);
		o += 8;
		if (asz < PERF_ATTR_SIZE_VER0 || asz > 4096 || nr > size / asz)
			goto bad;
		for (uint32_t i = 0; i < nr; i++) {
			uint32_t nids;
			const char *name;

			if (end - o < asz + 4)
				goto bad;
			o += asz;
			nids = rd32(b + o);
			o += 4;
			if (read_string(b, &o, end, &name) || nids > (end - o) / 8)
				goto bad;
			o += nids * 8;
			if ((int)i < r->nr_attrs && *name)
				r->attrs[i].name = name;
		}
		return 0;
	}
	case PERFDATA_FEAT_BUILD_ID:
		while (end - o >= sizeof(struct pd_build_id_rec)) {
			size_t used = add_build_id(r, b + o, end - o);

			if (!used)
				goto bad;
			if (used == (size_t)-1)
				return fail(err, errlen, -ENOMEM, "out of memory");
			o += used;
		}
		return 0;
	}
	return 0;	/* a feature sonde does not use */
bad:
	return fail(err, errlen, -EINVAL, "corrupted feature section %d at offset %#zx", bit, o);
}

static int cmp_idmap(const void *a, const void *b)
{
	const struct idmap *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_rindex(const void *a, const void *b)
{
	const struct rindex *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static bool rindex_lt(const struct rindex *x, const struct rindex *y)
{
	return x->time < y->time || (x->time == y->time && x->off < y->off);
}

/*
 * merge the neighbouring sorted runs a[lo, mid) and a[mid, hi) in place, with *tmp
 * (*cap entries, grown) holding a copy of the shorter one; false when out of memory
 */
static bool merge_runs(struct rindex *a, size_t lo, size_t mid, size_t hi, struct rindex **tmp, size_t *cap)
{
	size_t na, nb, need, l, h;

	/*
	 * Only where the runs overlap moves: the left run's head below the right's
	 * first, and the right's tail above the left's last, are in place already
	 * (a round's buffers overlap at their edges; most of each run stays put)
	 */
	for (l = lo, h = mid; l < h; ) {	/* the first of the left run above a[mid] */
		size_t m = l + (h - l) / 2;

		if (rindex_lt(&a[mid], &a[m]))
			h = m;
		else
			l = m + 1;
	}
	lo = l;
	for (l = mid, h = hi; l < h; ) {	/* the first of the right run not below a[mid - 1] */
		size_t m = l + (h - l) / 2;

		if (rindex_lt(&a[m], &a[mid - 1]))
			l = m + 1;
		else
			h = m;
	}
	hi = l;
	na = mid - lo;
	nb = hi - mid;
	need = na < nb ? na : nb;

	if (need > *cap) {
		struct rindex *t = realloc(*tmp, need * sizeof(*t));

		if (!t)
			return false;
		*tmp = t;
		*cap = need;
	}
	if (na <= nb) {		/* the left one aside, merged from the front */
		size_t i = 0, j = mid, k = lo;

		memcpy(*tmp, a + lo, na * sizeof(*a));
		while (i < na && j < hi)
			a[k++] = rindex_lt(&a[j], &(*tmp)[i]) ? a[j++] : (*tmp)[i++];
		memcpy(a + k, *tmp + i, (na - i) * sizeof(*a));
	} else {		/* the right one aside, merged from the back */
		size_t i = mid, t = nb, k = hi;

		memcpy(*tmp, a + mid, nb * sizeof(*a));
		while (t > 0 && i > lo)
			a[--k] = rindex_lt(&(*tmp)[t - 1], &a[i - 1]) ? a[--i] : (*tmp)[--t];
		memcpy(a + lo, *tmp, t * sizeof(*a));
	}
	return true;
}

/*
 * The records by time (then place): they come in runs already in order (a CPU's
 * buffer per round; most of a perf.data is one run), so neighbouring runs are
 * merged, not the whole sorted again; qsort was 5% of a report. The merges work
 * in place, with a copy of the shorter run only: sorting a million records needs
 * a few KB more, not another 16 MB. The same order as cmp_rindex (no two records
 * share off).
 */
static void rindex_sort(struct rindex *a, size_t n)
{
	struct rindex *tmp = NULL;
	size_t runs, cap = 0;

	if (n < 2)
		return;
	do {
		runs = 0;
		for (size_t lo = 0, mid, hi; lo < n; lo = hi, runs++) {
			for (mid = lo + 1; mid < n && !rindex_lt(&a[mid], &a[mid - 1]); mid++)
				;
			for (hi = mid + (mid < n); hi < n && !rindex_lt(&a[hi], &a[hi - 1]); hi++)
				;
			if (mid < hi && !merge_runs(a, lo, mid, hi, &tmp, &cap)) {
				free(tmp);
				qsort(a, n, sizeof(*a), cmp_rindex);
				return;
			}
		}
	} while (runs > 1);
	free(tmp);
}

/* where the id sits, as the kernel lays records out: u64 index in a sample body */
static int id_pos_of(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
	       !!(st & PERF_SAMPLE_ADDR);
}

/* ... and counted in u64s back from the end of a non-sample record */
static int is_pos_of(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return 1 + !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID);
}

/* names, the id -> attr map and the id positions, once r->attrs is filled */
static int finish_attrs(struct perfdata_reader *r, char *err, size_t errlen)
{
	size_t nids = 0;

	r->names = calloc(r->nr_attrs, sizeof(*r->names));
	if (!r->names)
		return fail(err, errlen, -ENOMEM, "out of memory");
	for (int i = 0; i < r->nr_attrs; i++) {
		struct perfdata_attr *a = &r->attrs[i];

		nids += a->nr_ids;
		if (a->attr.type == PERF_TYPE_SOFTWARE && a->attr.config == PERF_COUNT_SW_CPU_CLOCK)
			snprintf(r->names[i], 64, "cpu-clock");
		else if (a->attr.type == PERF_TYPE_SOFTWARE && a->attr.config == PERF_COUNT_SW_TASK_CLOCK)
			snprintf(r->names[i], 64, "task-clock");
		else if (a->attr.type == PERF_TYPE_HARDWARE && a->attr.config == PERF_COUNT_HW_CPU_CYCLES)
			snprintf(r->names[i], 64, "cycles");
		else
			snprintf(r->names[i], 64, "event%d:%u:%#llx", i, a->attr.type,
				 (unsigned long long)a->attr.config);
		if (!a->name)		/* pipe mode: EVENT_DESC may have come first */
			a->name = r->names[i];
		/* events may lay their records out differently only if the id sits at the same place
		   in all of them (perf's rule: PERF_SAMPLE_IDENTIFIER, or the same id positions) */
		if (id_pos_of(a->attr.sample_type) != id_pos_of(r->attrs[0].attr.sample_type) ||
		    is_pos_of(a->attr.sample_type) != is_pos_of(r->attrs[0].attr.sample_type) ||
		    (a->attr.sample_id_all != r->attrs[0].attr.sample_id_all && r->nr_attrs > 1))
			return fail(err, errlen, -EINVAL, "attr %d: its sample id is not where the first event "
				    "has it: the records cannot be told apart (attrs at offset %#llx)", i,
				    (unsigned long long)r->attrs_offset);
	}
	r->ids = calloc(nids ? nids : 1, sizeof(*r->ids));
	if (!r->ids)
		return fail(err, errlen, -ENOMEM, "out of memory");
	for (int i = 0; i < r->nr_attrs; i++)
		for (size_t j = 0; j < r->attrs[i].nr_ids; j++)
			r->ids[r->nr_ids++] = (struct idmap){ rd64((const uint8_t *)&r->attrs[i].ids[j]), i };
	qsort(r->ids, r->nr_ids, sizeof(*r->ids), cmp_idmap);
	/* where the id sits, as the kernel lays records out (the first attr decides) */
	r->id_pos = id_pos_of(r->attrs[0].attr.sample_type);
	r->is_pos = is_pos_of(r->attrs[0].attr.sample_type);
	return 0;
}

static int parse_attrs(struct perfdata_reader *r, const struct pd_header *h, char *err, size_t errlen)
{
	size_t asz = h->attr_size;

	r->attrs_offset = h->attrs.offset;
	if (asz < PERF_ATTR_SIZE_VER0 + 16 || asz > 4096 + 16 || h->attrs.size % asz)
		return fail(err, errlen, -EINVAL, "bad attr size %zu in the header at offset 0x10", asz);
	if (h->attrs.offset > r->size || h->attrs.size > r->size - h->attrs.offset)
		return fail(err, errlen, -EINVAL, "truncated: the attrs at offset %#llx end past the file's end",
			    (unsigned long long)h->attrs.offset);
	r->nr_attrs = h->attrs.size / asz;
	if (!r->nr_attrs || r->nr_attrs > MAX_ATTRS)
		return fail(err, errlen, -EINVAL, "%d attrs at offset %#llx: expected 1 to %d",
			    r->nr_attrs, (unsigned long long)h->attrs.offset, MAX_ATTRS);
	r->attrs = calloc(r->nr_attrs, sizeof(*r->attrs));
	if (!r->attrs)
		return fail(err, errlen, -ENOMEM, "out of memory");
	for (int i = 0; i < r->nr_attrs; i++) {
		const uint8_t *p = r->data + h->attrs.offset + i * asz;
		struct perfdata_attr *a = &r->attrs[i];
		size_t n = asz - 16 < sizeof(a->attr) ? asz - 16 : sizeof(a->attr);
		struct pd_section ids;

		memcpy(&a->attr, p, n);
		a->attr.size = sizeof(a->attr);
		memcpy(&ids, p + asz - 16, sizeof(ids));
		if (ids.offset > r->size || ids.size > r->size - ids.offset || ids.size % 8 || (ids.offset & 7))
			return fail(err, errlen, -EINVAL, "bad ids section of attr %d at offset %#zx",
				    i, (size_t)(p + asz - 16 - r->data));
		a->ids = (const uint64_t *)(r->data + ids.offset);
		a->nr_ids = ids.size / 8;
	}
	return finish_attrs(r, err, errlen);
}

/*
 * Pipe mode (perf record -o -): no header sections; the attrs, the features and
 * the tracing data arrive as records ahead of the kernel's. Collect them here;
 * index_records() then skips them.
 */
/* the attr and feature records of pipe-mode data between offsets start and end */
static int parse_pipe_header(struct perfdata_reader *r, uint64_t start, uint64_t end, char *err, size_t errlen)
{
	uint64_t off = start;
	int alloc = 0;

	r->pipe = true;
	r->attrs_offset = start;
	while (off < end) {
		struct perf_event_header h;
		const uint8_t *rec = r->data + off;

		if (end - off < sizeof(h))
			break;	/* index_records() reports it */
		memcpy(&h, rec, sizeof(h));
		if (h.size < sizeof(h) || (h.size & 7) || h.size > end - off)
			break;
		if (h.type == PERFDATA_RECORD_HEADER_ATTR) {
			uint32_t asz;
			struct perfdata_attr *a;

			if (h.size < 8 + PERF_ATTR_SIZE_VER0)
				return fail(err, errlen, -EINVAL, "bad attr record at offset %#llx", (unsigned long long)off);
			asz = rd32(rec + 8 + 4);
			if (asz < PERF_ATTR_SIZE_VER0 || asz > h.size - 8u || (asz & 7))
				return fail(err, errlen, -EINVAL, "bad attr size %u at offset %#llx", asz,
					    (unsigned long long)off + 12);
			if (r->nr_attrs == MAX_ATTRS)
				return fail(err, errlen, -EINVAL, "more than %d attrs at offset %#llx", MAX_ATTRS,
					    (unsigned long long)off);
			if (r->nr_attrs == alloc) {
				struct perfdata_attr *na = realloc(r->attrs, (alloc = alloc ? 2 * alloc : 8) * sizeof(*na));

				if (!na)
					return fail(err, errlen, -ENOMEM, "out of memory");
				r->attrs = na;
			}
			a = &r->attrs[r->nr_attrs++];
			memset(a, 0, sizeof(*a));
			memcpy(&a->attr, rec + 8, asz < sizeof(a->attr) ? asz : sizeof(a->attr));
			a->attr.size = sizeof(a->attr);
			a->ids = (const uint64_t *)(rec + 8 + asz);
			a->nr_ids = (h.size - 8 - asz) / 8;
		} else if (h.type == PERFDATA_RECORD_HEADER_TRACING_DATA) {
			uint32_t sz = h.size >= 12 ? rd32(rec + 8) : 0;
			uint64_t padded = ((uint64_t)sz + 7) & ~7ULL;

			if (padded > end - off - h.size)
				return fail(err, errlen, -EINVAL, "truncated tracing data at offset %#llx",
					    (unsigned long long)off);
			r->feat.tracing_data = rec + h.size;
			r->feat.tracing_data_size = sz;
			r->feat.bits[0] |= 1ULL << PERFDATA_FEAT_TRACING_DATA;
			off += padded;
		} else if (h.type == PERFDATA_RECORD_HEADER_BUILD_ID) {
			size_t used = add_build_id(r, rec, h.size);

			if (used == (size_t)-1)
				return fail(err, errlen, -ENOMEM, "out of memory");
			if (used != h.size)
				return fail(err, errlen, -EINVAL, "bad build id record at offset %#llx",
					    (unsigned long long)off);
		} else if (h.type == PERFDATA_RECORD_HEADER_FEATURE && h.size >= 16) {
			uint64_t feat = rd64(rec + 8);
			int rc;

			if (feat < PERFDATA_FEAT_MAX && feat != PERFDATA_FEAT_TRACING_DATA) {
				rc = parse_feature(r, (int)feat, off + 16, h.size - 16, err, errlen);
				if (rc)
					return rc;
				r->feat.bits[feat / 64] |= 1ULL << (feat % 64);
			}
		}
		off += h.size;
	}
	if (!r->nr_attrs)
		return fail(err, errlen, -EINVAL, "pipe-mode data without an attr record before offset %#llx",
			    (unsigned long long)off);
	return finish_attrs(r, err, errlen);
}

/*
 * A recording that was never finished (a killed `sonde record` or `perf record`),
 * or a pipe stream cut short, ends in the middle of a record: the records before
 * it are kept, and the note says what was dropped.
 */
static void note_cut(struct perfdata_reader *r, uint64_t off, uint64_t have, uint64_t need)
{
	char cut[128] = "";

	if (have)
		snprintf(cut, sizeof(cut), "; the last record, cut at offset %#llx (%llu of %llu bytes), "
			 "was dropped", (unsigned long long)off, (unsigned long long)have,
			 (unsigned long long)need);
	snprintf(r->note, sizeof(r->note), "%s: read %llu records%s",
		 r->pipe ? "the stream ends in the middle of a record" : "the recording was not finished",
		 (unsigned long long)r->st.nr_records, cut);
}

/*
 * A mapped file's pages well behind off, the record being read, leave the
 * process (they stay in the page cache): a pass over the records keeps about
 * RELEASE_WINDOW of the file resident, not all of it. A record the time order
 * takes from further back is read again from the page cache; pointers into the
 * data stay valid, as the mapping does. Read copies (pipes, expanded data) stay.
 * The window follows the record read, backwards too: a record out of place (perf
 * writes its lost-sample counts at the end, stamped 0) moves it there and back.
 */
#define RELEASE_WINDOW (1u << 20)

/*
 * The pages ahead are mapped in one call per RELEASE_WINDOW / 4 read: a fault
 * maps 16 pages, and a fault costs ~20 us in a VM (a third of report's time
 * went into the faults of reading the file twice). A jump far back starts there.
 */
static void populate_ahead(struct perfdata_reader *r, uint64_t off)
{
	size_t lo, hi, end = (r->size + 4095) & ~(size_t)4095;

	if (r->no_populate || (off + RELEASE_WINDOW / 4 <= r->populated && off + 2 * RELEASE_WINDOW >= r->populated))
		return;
	lo = off & ~(uint64_t)4095;
	if (off + 2 * RELEASE_WINDOW >= r->populated && r->populated > lo)
		lo = r->populated;
	hi = (off + RELEASE_WINDOW + 4095) & ~(uint64_t)4095;
	if (hi > end)
		hi = end;
	if (hi > lo && madvise(r->data + lo, hi - lo, MADV_POPULATE_READ) && errno == EINVAL)
		r->no_populate = true;	/* before Linux 5.14: the faults map them */
	r->populated = hi;
}

static void release_behind(struct perfdata_reader *r, uint64_t off)
{
	size_t to;

	if (!r->mapped)
		return;
	populate_ahead(r, off);
	if (off < r->released) {	/* back: keep from here */
		r->released = off & ~(uint64_t)4095;
		return;
	}
	if (off < r->released + 2 * RELEASE_WINDOW)
		return;
	to = (off - RELEASE_WINDOW) & ~(size_t)4095;
	madvise(r->data + r->released, to - r->released, MADV_DONTNEED);
	r->released = to;
}

/* walk the data section: check every record's framing and index it by time */
static int index_records(struct perfdata_reader *r, uint64_t start, uint64_t size, char *err, size_t errlen)
{
	uint64_t off = start, end = start + size, last_time = 0, n = 0;
	/* a cut at the end is not an error in a pipe stream or an unfinished file */
	bool cut_ok = r->pipe || r->unfinished;

	while (off < end) {
		struct perf_event_header h;
		const uint8_t *rec = r->data + off;
		uint64_t time = last_time;
		uint32_t cpu = 0, pid = 0;
		const struct perf_event_attr *a;

		if (end - off < sizeof(h) && cut_ok) {
			note_cut(r, off, end - off, sizeof(h));
			break;
		}
		if (end - off < sizeof(h))
			return fail(err, errlen, -EINVAL, "truncated record header at offset %#llx",
				    (unsigned long long)off);
		memcpy(&h, rec, sizeof(h));
		if (h.size > end - off && cut_ok && h.size >= sizeof(h)) {
			note_cut(r, off, end - off, h.size);
			break;
		}
		if (h.type == PERFDATA_RECORD_COMPRESSED || h.type == 83 /* COMPRESSED2 */)
			return fail(err, errlen, -EINVAL, "a compressed record %s at offset %#llx",
				    r->expanded ? "inside compressed data" : "in a recording whose header says "
				    "it is not compressed", (unsigned long long)off);
		if (h.size < sizeof(h) || (h.size & 7))
			return fail(err, errlen, -EINVAL, "bad record size %u at offset %#llx (type %u)",
				    h.size, (unsigned long long)off, h.type);
		if (h.size > end - off)
			return fail(err, errlen, -EINVAL, "truncated record at offset %#llx: %u bytes, %llu left",
				    (unsigned long long)off, h.size, (unsigned long long)(end - off));
		if (h.type == PERFDATA_RECORD_HEADER_ATTR && !r->pipe)
			return fail(err, errlen, -EINVAL, "attr record at offset %#llx in a file that is not pipe-mode",
				    (unsigned long long)off);
		if (h.type == PERFDATA_RECORD_HEADER_TRACING_DATA && r->pipe) {
			/* its payload follows the record, outside its size */
			uint64_t padded = h.size >= 12 ? ((uint64_t)rd32(rec + 8) + 7) & ~7ULL : 0;

			if (padded > end - off - h.size && cut_ok) {
				note_cut(r, off, end - off, h.size + padded);
				break;
			}
			if (padded > end - off - h.size)
				return fail(err, errlen, -EINVAL, "truncated tracing data at offset %#llx",
					    (unsigned long long)off);
			off += padded;
		}
		r->st.nr_records++;
		if (h.type < PERF_RECORD_MAX)
			r->st.nr_by_type[h.type]++;
		if (h.type >= PERFDATA_RECORD_HEADER_ATTR) {	/* perf's own bookkeeping */
			off += h.size;
			continue;
		}
		a = &r->attrs[record_attr(r, rec, h.size, h.type)].attr;
		if (h.type == PERF_RECORD_SAMPLE) {
			uint64_t st = a->sample_type;
			size_t to = 8 + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
					     !!(st & PERF_SAMPLE_TID));

			r->st.nr_samples++;
			if ((st & PERF_SAMPLE_TIME) && to + 8 <= h.size)
				time = rd64(rec + to);
		} else {
			if (h.type == PERF_RECORD_LOST && h.size >= 24)
				r->st.lost += rd64(rec + 16);
			else if (h.type == PERF_RECORD_LOST_SAMPLES && h.size >= 16)
				r->st.lost += rd64(rec + 8);
			pd_trailer(a, rec, h.size, &time, &cpu, &pid);
		}
		last_time = time;
		if (util__grow_mapped(&r->idx, &r->idx_cap, n + 1, sizeof(*r->idx)))
			return fail(err, errlen, -ENOMEM, "out of memory");
		r->idx[n++] = (struct rindex){ time, off };
		off += h.size;
		release_behind(r, off);
	}
	r->released = 0;
	r->populated = 0;
	r->nr_idx = n;
	if (r->unfinished && !r->note[0])
		note_cut(r, 0, 0, 0);
	rindex_sort(r->idx, n);
	return 0;
}

/* the reader's bytes become n (malloc'd, size bytes): the mapping or the old copy goes */
static void replace_data(struct perfdata_reader *r, uint8_t *n, size_t size)
{
	if (r->mapped)
		munmap(r->data, r->size);
	else
		free(r->data);
	r->mapped = false;
	r->data = n;
	r->size = size;
}

/*
 * perf pads neither its feature records nor some others in pipe mode, which leaves
 * the kernel's records after them at offsets that are not 8-aligned. Copy the stream
 * so that every record starts 8-aligned (offsets in messages then count in the copy).
 */
static int align_pipe(struct perfdata_reader *r)
{
	size_t off = 16, need = 16, o;
	uint8_t *n = NULL;
	bool aligned = true;

	for (int pass = 0; pass < 2; pass++) {
		off = 16;
		o = 16;
		if (pass == 1) {
			if (aligned)
				return 0;
			n = calloc(1, need);
			if (!n)
				return -ENOMEM;
			memcpy(n, r->data, 16);
		}
		while (r->size - off >= sizeof(struct perf_event_header)) {
			struct perf_event_header h;
			size_t len, padded;

			memcpy(&h, r->data + off, sizeof(h));
			if (h.size < sizeof(h) || h.size > r->size - off)
				break;
			len = h.size;
			if (h.type == PERFDATA_RECORD_HEADER_TRACING_DATA && h.size >= 12) {
				uint64_t extra = ((uint64_t)rd32(r->data + off + 8) + 7) & ~7ULL;

				if (extra > r->size - off - h.size)
					break;
				if (pass == 1) {
					memcpy(n + o, r->data + off, h.size);
					memcpy(n + o + ((h.size + 7) & ~7u), r->data + off + h.size, extra);
				}
				padded = ((h.size + 7) & ~7u) + extra;
				len = h.size + extra;
			} else {
				padded = (h.size + 7) & ~7u;
				if (padded != h.size && h.type < PERFDATA_RECORD_HEADER_ATTR)
					break;	/* a kernel record with a bad size: index_records() says so */
				if (pass == 1) {
					uint16_t ps = (uint16_t)padded;

					memcpy(n + o, r->data + off, h.size);
					memcpy(n + o + 6, &ps, 2);
				}
			}
			if (padded != len)
				aligned = false;
			off += len;
			o += padded;
		}
		if (pass == 0) {
			need = o + (r->size - off);
		} else {
			memcpy(n + o, r->data + off, r->size - off);	/* what could not be walked */
			replace_data(r, n, need);
		}
	}
	return 0;
}

/*
 * perf record -z: the data section with its COMPRESSED records expanded, appended
 * to a copy of the file (the header and the features stay where they are); *start
 * and *size then name it. Nothing changes when nothing is compressed.
 */
static int expand(struct perfdata_reader *r, uint64_t *start, uint64_t *size, char *err, size_t errlen)
{
	size_t len, at = (r->size + 7) & ~(size_t)7;
	uint8_t *x, *n;
	int rc = pd_inflate(r->data, *start, *size, r->pipe, 64 * r->size + (64 << 20), &x, &len, err, errlen);

	r->expanded = true;
	if (rc || !x)
		return rc;
	n = malloc(at + len);
	if (!n) {
		free(x);
		return fail(err, errlen, -ENOMEM, "out of memory");
	}
	memcpy(n, r->data, r->size);
	memset(n + r->size, 0, at - r->size);
	memcpy(n + at, x, len);
	free(x);
	replace_data(r, n, at + len);
	*start = at;
	*size = len;
	return 0;
}

/*
 * A finished recording without records has its data size 0 too: then the feature
 * table follows the (empty) data, and its first section starts right after it.
 * In a killed perf record's file, records are there instead.
 */
static bool empty_data(const struct perfdata_reader *r, const struct pd_header *h)
{
	uint64_t nfeat = 0, first;

	for (int i = 0; i < 4; i++)
		nfeat += pd_popcount(h->flags[i]);
	if (h->data.offset > r->size || r->size - h->data.offset < 16)
		return false;
	first = rd64(r->data + h->data.offset);
	return first == h->data.offset + nfeat * 16;
}

static int open_common(struct perfdata_reader *r, char *err, size_t errlen)
{
	struct pd_header h;
	uint64_t magic, feat_off, start, size;
	int nfeat = 0, rc;

	if (r->size < 8)
		return fail(err, errlen, -EINVAL, "not a perf.data file: %zu bytes", r->size);
	memcpy(&magic, r->data, 8);
	if (magic == PERFDATA_MAGIC_SWAPPED)
		return fail(err, errlen, -EOPNOTSUPP, "a perf.data file of the other byte order: not supported");
	if (!memcmp(r->data, "PERFFILE", 8))
		return fail(err, errlen, -EOPNOTSUPP, "a version 1 perf.data file (PERFFILE): not supported");
	if (magic != PERFDATA_MAGIC)
		return fail(err, errlen, -EINVAL, "not a perf.data file: bad magic at offset 0");
	if (r->size < 16)
		return fail(err, errlen, -EINVAL, "truncated header: %zu bytes", r->size);
	if (rd64(r->data + 8) == 16) {
		uint64_t start = 16, size = r->size - 16;

		/* a compressed stream is expanded (and aligned) into a copy, the rest aligned in
		   place; first, as the parsers keep pointers into the data */
		r->pipe = true;
		rc = expand(r, &start, &size, err, errlen);
		if (!rc && start == 16) {
			rc = align_pipe(r);
			size = r->size - 16;
		}
		if (!rc)
			rc = parse_pipe_header(r, start, start + size, err, errlen);
		if (rc)
			return rc;
		return index_records(r, start, size, err, errlen);
	}
	if (r->size < sizeof(h))
		return fail(err, errlen, -EINVAL, "truncated header: %zu bytes of %zu", r->size, sizeof(h));
	memcpy(&h, r->data, sizeof(h));
	if (h.size < sizeof(h) || h.size > r->size)
		return fail(err, errlen, -EINVAL, "bad header size %llu at offset 0x8", (unsigned long long)h.size);
	/* no feature bits, or no data size: the header was never finalised (sonde writes
	   none until the end, perf keeps the data size 0): the records go on to the end
	   of the file, and what follows them is not a feature table */
	if ((!(h.flags[0] | h.flags[1] | h.flags[2] | h.flags[3]) || (!h.data.size && !empty_data(r, &h))) &&
	    h.data.offset >= h.size && h.data.offset <= r->size) {
		r->unfinished = true;
		memset(h.flags, 0, sizeof(h.flags));
		h.data.size = r->size - h.data.offset;
	}
	if (h.data.offset > r->size || h.data.size > r->size - h.data.offset)
		return fail(err, errlen, -EINVAL, "truncated: the data section (offset %#llx, %llu bytes) ends past "
			    "the file's end (%#zx)", (unsigned long long)h.data.offset,
			    (unsigned long long)h.data.size, r->size);
	if (h.data.offset & 7)
		return fail(err, errlen, -EINVAL, "data section at an unaligned offset %#llx",
			    (unsigned long long)h.data.offset);
	if (h.flags[PERFDATA_FEAT_DIR_FORMAT / 64] & (1ULL << (PERFDATA_FEAT_DIR_FORMAT % 64)))
		return fail(err, errlen, -EOPNOTSUPP, "a directory-format recording (perf record --threads): not supported");
	start = h.data.offset;
	size = h.data.size;
	/*
	 * first: the parsers keep pointers into the data. A finished recording says whether it
	 * has COMPRESSED records (perf's and sonde's -z write the feature): the others are not
	 * read once more to look for them.
	 */
	rc = r->unfinished || (h.flags[PERFDATA_FEAT_COMPRESSED / 64] & (1ULL << (PERFDATA_FEAT_COMPRESSED % 64)))
		     ? expand(r, &start, &size, err, errlen) : 0;
	if (rc)
		return rc;
	rc = parse_attrs(r, &h, err, errlen);
	if (rc)
		return rc;
	r->st.data_offset = h.data.offset;
	r->st.data_size = h.data.size;

	memcpy(r->feat.bits, h.flags, sizeof(r->feat.bits));
	feat_off = h.data.offset + h.data.size;
	for (int bit = 0; bit < PERFDATA_FEAT_MAX; bit++) {
		struct pd_section s;
		uint64_t at;

		if (!(h.flags[bit / 64] & (1ULL << (bit % 64))))
			continue;
		at = feat_off + nfeat++ * sizeof(s);
		if (at > r->size || r->size - at < sizeof(s))
			return fail(err, errlen, -EINVAL, "truncated: the feature table at offset %#llx is missing",
				    (unsigned long long)at);
		memcpy(&s, r->data + at, sizeof(s));
		if (s.offset > r->size || s.size > r->size - s.offset)
			return fail(err, errlen, -EINVAL, "truncated: feature %d (offset %#llx, %llu bytes) ends past "
				    "the file's end", bit, (unsigned long long)s.offset, (unsigned long long)s.size);
		rc = parse_feature(r, bit, s.offset, s.size, err, errlen);
		if (rc)
			return rc;
	}
	return index_records(r, start, size, err, errlen);
}

int perfdata_reader__open_mem(struct perfdata_reader **out, const void *buf, size_t size,
			      char *err, size_t errlen)
{
	struct perfdata_reader *r = calloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	if (!r || !(r->data = malloc(size ? size : 1))) {
		free(r);
		return fail(err, errlen, -ENOMEM, "out of memory");
	}
	memcpy(r->data, buf, size);
	r->size = size;
	rc = open_common(r, err, errlen);
	if (rc) {
		perfdata_reader__free(r);
		return rc;
	}
	*out = r;
	return 0;
}

/*
 * A pipe or a device: read it all (pipe-mode data from `perf record -o -`). What
 * does not start with a perf.data magic is not read further (/dev/zero would fill
 * the memory), and a stream larger than half the memory is refused (-EFBIG).
 */
static int slurp_fd(int fd, uint8_t **out, size_t *size)
{
	size_t n = 0, alloc = 1 << 20, limit = (size_t)sysconf(_SC_PHYS_PAGES) / 2 * (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *p = malloc(alloc);

	if (limit < (64u << 20))
		limit = 64u << 20;
	while (p) {
		ssize_t r;

		if (n >= 8 && memcmp(p, "PERFILE2", 8) && memcmp(p, "2ELIFREP", 8) &&
		    memcmp(p, "PERFFILE", 8))
			break;	/* open_common() says what it is not */
		if (n == alloc) {
			uint8_t *q;

			if (alloc >= limit) {
				free(p);
				return -EFBIG;
			}
			q = realloc(p, alloc *= 2);
			if (!q) {
				free(p);
				return -ENOMEM;
			}
			p = q;
		}
		r = read(fd, p + n, (n < 8 ? 8 : alloc) - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(p);
			return -e;
		}
		if (!r)
			break;
		n += r;
	}
	if (!p)
		return -ENOMEM;
	*out = p;
	*size = n;
	return 0;
}

int perfdata_reader__open(struct perfdata_reader **out, const char *path, char *err, size_t errlen)
{
	struct perfdata_reader *r;
	struct stat sb;
	int fd, rc;
	char msg[256];
	bool is_stdin = !strcmp(path, "-");

	*out = NULL;
	fd = is_stdin ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		return fail(err, errlen, rc, "%s", strerror(-rc));	/* the caller names the file */
	}
	if (fstat(fd, &sb) || S_ISDIR(sb.st_mode)) {
		close(fd);
		return fail(err, errlen, -EISDIR, "a directory (perf record --threads recordings are not "
			    "supported)");
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		close(fd);
		return fail(err, errlen, -ENOMEM, "out of memory");
	}
	if (!S_ISREG(sb.st_mode)) {
		rc = slurp_fd(fd, &r->data, &r->size);
		close(fd);
		if (rc == -EFBIG) {
			free(r);
			return fail(err, errlen, rc, "cannot read '%s': more than half of this machine's memory; "
				    "record to a file (-o FILE), which is mapped, not read", path);
		}
		if (rc) {
			free(r);
			return fail(err, errlen, rc, "%s", strerror(-rc));
		}
	} else {
		r->size = sb.st_size;
		if (r->size) {
			r->data = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);
			if (r->data == MAP_FAILED) {
				rc = -errno;
				r->data = NULL;
				close(fd);
				free(r);
				return fail(err, errlen, rc, "cannot map it: %s", strerror(-rc));
			}
			r->mapped = true;
		}
		close(fd);
	}
	util__big_input(r->size);	/* the index and what the records make: huge pages at once */
	rc = open_common(r, msg, sizeof(msg));
	if (rc) {
		perfdata_reader__free(r);
		return fail(err, errlen, rc, "%s", msg);
	}
	*out = r;
	return 0;
}

void perfdata_reader__free(struct perfdata_reader *r)
{
	if (!r)
		return;
	if (r->mapped)
		munmap(r->data, r->size);
	else
		free(r->data);
	free(r->attrs);
	free(r->names);
	free(r->ids);
	free(r->cmdline);
	free(r->bids);
	util__free_mapped(r->idx, r->idx_cap, sizeof(*r->idx));
	free(r);
}

const struct perfdata_attr *perfdata_reader__attrs(const struct perfdata_reader *r, int *nr)
{
	*nr = r->nr_attrs;
	return r->attrs;
}

const struct perfdata_features *perfdata_reader__features(const struct perfdata_reader *r)
{
	return &r->feat;
}

void perfdata_reader__stats(const struct perfdata_reader *r, struct perfdata_reader_stats *st)
{
	*st = r->st;
}

const char *perfdata_reader__warning(const struct perfdata_reader *r)
{
	return r->note[0] ? r->note : NULL;
}

const char *perfdata_reader__error(const struct perfdata_reader *r)
{
	return r->err;
}

void perfdata_reader__rewind(struct perfdata_reader *r)
{
	r->cur = 0;
	r->released = 0;
	r->populated = 0;
}

/* ----------------------------------------------------------------- records */

static int bad(struct perfdata_reader *r, uint64_t off, const char *what)
{
	snprintf(r->err, sizeof(r->err), "corrupted %s record at offset %#llx", what, (unsigned long long)off);
	return -EBADMSG;
}

int perfdata_reader__next(struct perfdata_reader *r, struct perfdata_event *ev)
{
	const struct rindex *ix;
	const uint8_t *rec;
	struct perf_event_header h;

	if (r->cur >= r->nr_idx)
		return 0;
	ix = &r->idx[r->cur++];
	release_behind(r, ix->off);
	rec = r->data + ix->off;
	memcpy(&h, rec, sizeof(h));
	memset(ev, 0, sizeof(*ev));
	ev->type = h.type;
	ev->misc = h.misc;
	ev->size = h.size;
	ev->offset = ix->off;
	ev->raw = rec;
	ev->time = ix->time;
	ev->attr_idx = record_attr(r, rec, h.size, h.type);
	ev->attr = &r->attrs[ev->attr_idx];
	if (pd_decode_record(ev, &ev->attr->attr))
		return bad(r, ix->off, perfdata__record_name(h.type));
	return 1;
}
