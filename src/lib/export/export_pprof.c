// SPDX-License-Identifier: GPL-2.0
/*
 * export_pprof.c - folded stacks as pprof's profile.proto (package
 * perftools.profiles), gzip'd as pprof, Pyroscope, Parca and Grafana expect.
 *
 * Encoded by hand: a profile uses only two wire types (varints, and
 * length-delimited strings, packed arrays and sub-messages), and the whole
 * encoder is the few helpers below. libprotobuf-c would add a build-time code
 * generator and a runtime library for less code than it replaces.
 *
 * Layout: string_table[0] = "", then the sample type and unit, then one
 * string per distinct name (string index = name id + 3); Function and
 * Location ids are name id + 1 (ids must not be 0); one Sample per distinct
 * stack, location_id leaf first, one value per sample type.
 */
#include "lib/export/export.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { WT_VARINT = 0, WT_LEN = 2 };

struct pb {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static void pb_reserve(struct pb *b, size_t n)
{
	if (b->oom || b->len + n <= b->cap)
		return;
	size_t cap = b->cap ? b->cap * 2 : 256;

	while (cap < b->len + n)
		cap *= 2;
	uint8_t *np = realloc(b->p, cap);

	if (!np) {
		b->oom = true;
		return;
	}
	b->p = np;
	b->cap = cap;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	pb_reserve(b, 10);
	if (b->oom)
		return;
	do {
		uint8_t byte = v & 0x7f;

		v >>= 7;
		b->p[b->len++] = byte | (v ? 0x80 : 0);
	} while (v);
}

static void pb_tag(struct pb *b, unsigned field, unsigned wt)
{
	pb_varint(b, (uint64_t)field << 3 | wt);
}

static void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	pb_tag(b, field, WT_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, unsigned field, const void *s, size_t len)
{
	pb_tag(b, field, WT_LEN);
	pb_varint(b, len);
	pb_reserve(b, len);
	if (b->oom)
		return;
	memcpy(b->p + b->len, s, len);
	b->len += len;
}

/* a sub-message: its bytes, prefixed by field tag and length; sub is emptied */
static void pb_msg(struct pb *b, unsigned field, struct pb *sub)
{
	if (sub->oom)
		b->oom = true;
	pb_bytes(b, field, sub->p, sub->len);
	sub->len = 0;
}

static void value_type(struct pb *prof, unsigned field, uint64_t type, uint64_t unit, struct pb *tmp)
{
	pb_uint(tmp, 1, type);
	pb_uint(tmp, 2, unit);
	pb_msg(prof, field, tmp);
}

int export__gzip(FILE *out, const void *data, size_t len)
{
	z_stream z = { 0 };
	uint8_t buf[1 << 16];
	int zr;

	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)len;	/* profiles stay far below 4 GiB */
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			deflateEnd(&z);
			return -EIO;
		}
		fwrite(buf, 1, sizeof(buf) - z.avail_out, out);
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return ferror(out) ? -EIO : 0;
}

/* proto3 strings must be UTF-8: invalid bytes become U+FFFD (out holds 3 * len) */
static size_t utf8_clean(const char *str, size_t len, char *out)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = util__utf8_seq(s + i, len - i, &cp);

		if (!n) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		memcpy(out + o, s + i, n);
		o += n;
		i += n;
	}
	return o;
}

/* types[i] = { type, unit }; one type: the after counts; two: the before counts, then the after counts */
static int write_pprof(const struct folded *f, FILE *out, const char *const types[][2], int ntypes,
		       char *err, size_t errlen)
{
	struct pb prof = { 0 }, tmp = { 0 }, sub = { 0 }, ids = { 0 };
	uint32_t nnames = folded__nr_names(f), first = 1 + 2 * ntypes;	/* string of the first name */
	int rc;

	if (!(folded__total(f) < 9.2e18) || !(folded__total_before(f) < 9.2e18)) {
		snprintf(err, errlen, "counts too large for pprof's int64 values");
		return -ERANGE;
	}
	for (int t = 0; t < ntypes; t++)	/* sample_type: strings 1 and 2, 3 and 4 */
		value_type(&prof, 1, 1 + 2 * t, 2 + 2 * t, &tmp);
	for (uint32_t i = 1; i < folded__nr_nodes(f); i++) {
		long long v = llround(folded__self(f, i));
		long long b = ntypes > 1 ? llround(folded__before_self(f, i)) : 0;

		if (v <= 0 && b <= 0)
			continue;
		for (uint32_t p = i; p != 0; p = folded__node(f, p)->parent)
			pb_varint(&ids, folded__node(f, p)->name + 1);	/* leaf first */
		pb_msg(&tmp, 1, &ids);		/* location_id, packed */
		if (ntypes > 1)
			pb_varint(&ids, (uint64_t)(b > 0 ? b : 0));
		pb_varint(&ids, (uint64_t)(v > 0 ? v : 0));
		pb_msg(&tmp, 2, &ids);		/* value, packed */
		pb_msg(&prof, 2, &tmp);
	}
	for (uint32_t k = 0; k < nnames; k++) {	/* location k+1 -> function k+1 */
		pb_uint(&tmp, 1, k + 1);
		pb_uint(&sub, 1, k + 1);	/* Line.function_id */
		pb_msg(&tmp, 4, &sub);
		pb_msg(&prof, 4, &tmp);
	}
	for (uint32_t k = 0; k < nnames; k++) {
		pb_uint(&tmp, 1, k + 1);
		pb_uint(&tmp, 2, k + first);	/* name */
		pb_uint(&tmp, 3, k + first);	/* system_name: the only form known */
		pb_msg(&prof, 5, &tmp);
	}
	pb_bytes(&prof, 6, "", 0);
	for (int t = 0; t < ntypes; t++) {
		pb_bytes(&prof, 6, types[t][0], strlen(types[t][0]));
		pb_bytes(&prof, 6, types[t][1], strlen(types[t][1]));
	}
	for (uint32_t k = 0; k < nnames; k++) {
		size_t len;
		const char *s = folded__name(f, k, &len);
		char *clean = malloc(3 * len + 1);

		if (!clean) {
			prof.oom = true;
			break;
		}
		pb_bytes(&prof, 6, clean, utf8_clean(s, len, clean));
		free(clean);
	}
	value_type(&prof, 11, 2 * ntypes - 1, 2 * ntypes, &tmp);	/* period_type: the last sample type */
	pb_uint(&prof, 12, 1);			/* period */
	rc = prof.oom || tmp.oom || sub.oom || ids.oom ? -ENOMEM : export__gzip(out, prof.p, prof.len);
	if (rc)
		snprintf(err, errlen, rc == -ENOMEM ? "out of memory" : "cannot write the pprof file");
	free(prof.p);
	free(tmp.p);
	free(sub.p);
	free(ids.p);
	return rc;
}

int export__pprof(const struct folded *f, FILE *out, const char *type, const char *unit,
		  char *err, size_t errlen)
{
	const char *const types[1][2] = { { type, unit } };

	return write_pprof(f, out, types, 1, err, errlen);
}

int export__pprof2(const struct folded *f, FILE *out, const char *const types[2][2], char *err, size_t errlen)
{
	return write_pprof(f, out, types, 2, err, errlen);
}
