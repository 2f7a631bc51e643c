// SPDX-License-Identifier: GPL-2.0
/*
 * perfdata_zstd.c - compressed recordings (perf record -z): the data section's
 * COMPRESSED records hold Zstandard streams of the ring buffers' records. One
 * decompression stream runs over all of them in file order, so a frame may go on
 * in the next record, as perf writes them.
 *
 * Two spellings: COMPRESSED (81, perf up to 6.x: the header then the compressed
 * bytes, its size not padded, so what follows it may sit at any offset) and
 * COMPRESSED2 (83: a u64 data_size after the header, the record padded to 8).
 *
 * A record may be cut between two COMPRESSED records, with perf's own records
 * (FINISHED_ROUND...) in between: those wait until the cut record is whole.
 *
 * The reader gets the stream with every COMPRESSED record replaced by the records
 * it held, every record 8-byte aligned, so the rest of it never sees compression.
 */
#include "lib/perfdata/perfdata.h"
#include "lib/perfdata/perfdata_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define COMPRESSED2 83

struct obuf {
	uint8_t *p;
	size_t len, alloc, limit;
};

static int reserve(struct obuf *o, size_t more)
{
	size_t na;
	uint8_t *n;

	if (more > o->limit - o->len)
		return -EFBIG;
	if (o->len + more <= o->alloc)
		return 0;
	na = o->alloc ? o->alloc : 1 << 16;
	while (na < o->len + more)
		na *= 2;
	if (na > o->limit)
		na = o->limit;
	n = realloc(o->p, na);
	if (!n)
		return -ENOMEM;
	o->p = n;
	o->alloc = na;
	return 0;
}

/* append len bytes (NULL: zeros), then zeros up to 8-byte alignment */
static int put(struct obuf *o, const void *p, size_t len)
{
	size_t padded = (len + 7) & ~(size_t)7;
	int rc = reserve(o, padded);

	if (rc)
		return rc;
	if (p)
		memcpy(o->p + o->len, p, len);
	else
		memset(o->p + o->len, 0, len);
	memset(o->p + o->len + len, 0, padded - len);
	o->len += padded;
	return 0;
}

/* the end of the last whole record from *scan on; false when the framing is broken */
static bool whole(const struct obuf *o, size_t *scan)
{
	while (o->len - *scan >= sizeof(struct perf_event_header)) {
		uint16_t size;

		memcpy(&size, o->p + *scan + 6, 2);
		if (size < sizeof(struct perf_event_header))
			return false;
		if (size > o->len - *scan)
			break;
		*scan += size;
	}
	return true;
}

static int inflate_rec(ZSTD_DStream *ds, struct obuf *o, const uint8_t *src, size_t n)
{
	ZSTD_inBuffer in = { src, n, 0 };
	bool full = false;

	/* on while there is input, or output may still be held back for want of room */
	while (in.pos < in.size || full) {
		ZSTD_outBuffer out;
		size_t r, before = in.pos;
		int rc = reserve(o, o->alloc - o->len >= 4096 ? 0 : ZSTD_DStreamOutSize());

		if (rc)
			return rc;
		out = (ZSTD_outBuffer){ o->p + o->len, o->alloc - o->len, 0 };
		r = ZSTD_decompressStream(ds, &out, &in);
		if (ZSTD_isError(r) || (in.pos == before && !out.pos && !full))
			return -EBADMSG;	/* an error, or no progress with room to write */
		o->len += out.pos;
		full = out.pos == out.size;
	}
	return 0;
}

int pd_inflate(const uint8_t *data, size_t start, size_t size, bool pipe, size_t limit,
	       uint8_t **out, size_t *out_len, char *err, size_t errlen)
{
	struct obuf o = { .limit = limit }, q = { .limit = limit };	/* q: records waiting for a cut one */
	ZSTD_DStream *ds = NULL;
	size_t off = start, end = start + size, scan = 0;
	int rc = 0;
	bool any = false, framed = true;

	*out = NULL;
	*out_len = 0;
	for (size_t p = start; end - p >= sizeof(struct perf_event_header); ) {	/* any compressed at all? */
		struct perf_event_header h;

		memcpy(&h, data + p, sizeof(h));
		if (h.type == PERFDATA_RECORD_COMPRESSED || h.type == COMPRESSED2) {
			any = true;
			break;
		}
		if (h.size < sizeof(h) || h.size > end - p)
			break;
		if (h.type == PERFDATA_RECORD_HEADER_TRACING_DATA && pipe && h.size >= 12) {
			uint32_t sz;

			memcpy(&sz, data + p + 8, 4);
			if ((((uint64_t)sz + 7) & ~7ULL) > end - p - h.size)
				break;
			p += ((uint64_t)sz + 7) & ~7ULL;
		}
		p += h.size;
	}
	if (!any)
		return 0;
	ds = ZSTD_createDStream();
	if (!ds || ZSTD_isError(ZSTD_initDStream(ds))) {
		ZSTD_freeDStream(ds);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while (!rc && end - off >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		const uint8_t *rec = data + off;

		memcpy(&h, rec, sizeof(h));
		if (h.size < sizeof(h) || h.size > end - off)
			break;	/* the reader's own walk says what is wrong here */
		struct obuf *to = framed && scan < o.len ? &q : &o;

		if (h.type == PERFDATA_RECORD_COMPRESSED) {
			rc = inflate_rec(ds, &o, rec + sizeof(h), h.size - sizeof(h));
		} else if (h.type == COMPRESSED2) {
			uint64_t dsz;

			if (h.size < 16) {
				rc = -EBADMSG;
				break;
			}
			memcpy(&dsz, rec + 8, 8);
			if (dsz > h.size - 16u) {
				rc = -EBADMSG;
				break;
			}
			rc = inflate_rec(ds, &o, rec + 16, dsz);
		} else if (h.type == PERFDATA_RECORD_HEADER_TRACING_DATA && pipe && h.size >= 12) {
			uint32_t sz;
			uint64_t extra;

			memcpy(&sz, rec + 8, 4);
			extra = ((uint64_t)sz + 7) & ~7ULL;
			if (extra > end - off - h.size)
				break;
			rc = put(to, rec, h.size);	/* already padded by the pipe-mode alignment */
			if (!rc)
				rc = put(to, rec + h.size, extra);
			off += extra;
		} else {
			size_t at = to->len;

			rc = put(to, rec, h.size);
			if (!rc && (h.size & 7)) {	/* the record now ends padded: say so in its size */
				uint16_t ps = (uint16_t)((h.size + 7) & ~7u);

				memcpy(to->p + at + 6, &ps, 2);
			}
		}
		if (!rc && framed) {
			framed = whole(&o, &scan);
			if (scan == o.len && q.len) {	/* the cut record is whole: what waited follows it */
				rc = put(&o, q.p, q.len);
				q.len = 0;
				scan = o.len;
			}
		}
		if (rc)
			break;
		off += h.size;
	}
	/*
	 * The end. When the data ends inside a decompressed record, that record goes
	 * last, as it is, for the reader to drop as the cut one: what came after it in
	 * the file (the records that waited, a cut record) is past the cut. Else what
	 * could not be walked follows, not padded, so that a cut record never looks whole.
	 */
	if (!rc && !(framed && scan < o.len)) {
		if (q.len)
			rc = put(&o, q.p, q.len);	/* the framing broke: the reader says where */
		if (!rc && off < end && !(rc = reserve(&o, end - off))) {
			memcpy(o.p + o.len, data + off, end - off);
			o.len += end - off;
		}
	}
	free(q.p);
	ZSTD_freeDStream(ds);
	if (rc == -EBADMSG)
		snprintf(err, errlen, "corrupted compressed record at offset %#zx (perf record -z)", off);
	else if (rc == -EFBIG)
		snprintf(err, errlen, "compressed records at offset %#zx expand past %zu MB: not reading more", off,
			 limit >> 20);
	else if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (rc) {
		free(o.p);
		return rc;
	}
	*out = o.p;
	*out_len = o.len;
	return 0;
}

/* ------------------------------------------------------------ compression */

struct pd_zstd {
	ZSTD_CCtx *cc;
	uint8_t *buf;		/* one COMPRESSED record: header then payload */
	size_t chunk;		/* input per flush: what the reader's buffer must hold */
};

int pd_deflate_new(struct pd_zstd **out, int level, size_t chunk)
{
	struct pd_zstd *z = calloc(1, sizeof(*z));

	*out = NULL;
	if (!z || !(z->cc = ZSTD_createCCtx()) || !(z->buf = malloc(65535))) {
		if (z)
			ZSTD_freeCCtx(z->cc);
		free(z);
		return -ENOMEM;
	}
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_compressionLevel, level))) {
		pd_deflate_free(z);
		return -EINVAL;
	}
	z->chunk = chunk;
	*out = z;
	return 0;
}

void pd_deflate_free(struct pd_zstd *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->cc);
	free(z->buf);
	free(z);
}

/*
 * src as COMPRESSED records through emit(ctx, record, size). As perf writes them:
 * one stream that is flushed, never ended, after each chunk of input, so that
 * each record decompresses to at most a chunk; records at most 64 KiB, their size
 * not padded (perf 6.1 reads no other layout: COMPRESSED2 is newer).
 */
int pd_deflate(struct pd_zstd *z, const void *src, size_t len,
	       int (*emit)(void *ctx, const void *rec, size_t size), void *ctx)
{
	const uint8_t *p = src;

	while (len) {
		size_t n = len < z->chunk ? len : z->chunk;
		ZSTD_inBuffer in = { p, n, 0 };
		size_t left;

		do {
			ZSTD_outBuffer out = { z->buf + 8, 65535 - 8, 0 };
			struct perf_event_header h = { PERFDATA_RECORD_COMPRESSED, 0, 0 };
			int rc;

			left = ZSTD_compressStream2(z->cc, &out, &in, ZSTD_e_flush);
			if (ZSTD_isError(left))
				return -EIO;
			if (!out.pos)
				continue;
			h.size = (uint16_t)(8 + out.pos);
			memcpy(z->buf, &h, sizeof(h));
			rc = emit(ctx, z->buf, h.size);
			if (rc)
				return rc;
		} while (left || in.pos < in.size);
		p += n;
		len -= n;
	}
	return 0;
}
