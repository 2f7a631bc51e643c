// SPDX-License-Identifier: GPL-2.0
/*
 * perfdata_trace.c - the TRACING_DATA feature read back: the tracefs format file
 * of each recorded tracepoint (as perfdata_feat.c and perf write them), parsed into
 * fields so the RAW payload of tracepoint samples can be shown as name=value.
 * Hostile input is bounded everywhere: lengths are checked against the section.
 */
#include "lib/perfdata.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct perfdata_tracing {
	struct perfdata_tp_format *fmts;
	int nr;
};

struct tcur {
	const uint8_t *p;
	size_t len, off;
};

static int need(struct tcur *c, size_t n)
{
	return n <= c->len - c->off ? 0 : -1;
}

static int rd_u32(struct tcur *c, uint32_t *v)
{
	if (need(c, 4))
		return -1;
	memcpy(v, c->p + c->off, 4);
	c->off += 4;
	return 0;
}

static int rd_u64(struct tcur *c, uint64_t *v)
{
	if (need(c, 8))
		return -1;
	memcpy(v, c->p + c->off, 8);
	c->off += 8;
	return 0;
}

/* a NUL-terminated string at the cursor */
static const char *rd_str(struct tcur *c)
{
	const char *s = (const char *)c->p + c->off;
	const void *z = memchr(s, 0, c->len - c->off);

	if (!z)
		return NULL;
	c->off += (const char *)z - s + 1;
	return s;
}

static int skip_sized(struct tcur *c)
{
	uint64_t n;

	if (rd_u64(c, &n) || n > c->len - c->off)
		return -1;
	c->off += n;
	return 0;
}

static void free_fmt(struct perfdata_tp_format *f)
{
	for (int i = 0; i < f->nr_fields; i++)
		free(f->fields[i].name);
	free(f->fields);
	free(f->system);
	free(f->name);
}

/* one format file: name, ID and the fields */
static int parse_format(const char *sys, const char *txt, size_t len, struct perfdata_tp_format *f)
{
	char *buf = strndup(txt, len), *line, *save = NULL;
	int alloc = 0;

	if (!buf)
		return -ENOMEM;
	memset(f, 0, sizeof(*f));
	f->system = strdup(sys);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *fld, *semi, *name;
		struct perfdata_tp_field *nf;
		unsigned off = 0, size = 0;
		int sgn = 0;

		while (*line == ' ' || *line == '\t')
			line++;
		if (!strncmp(line, "name: ", 6)) {
			free(f->name);
			f->name = strdup(line + 6);
			continue;
		}
		if (!strncmp(line, "ID: ", 4)) {
			f->id = strtoull(line + 4, NULL, 10);
			continue;
		}
		if (strncmp(line, "field:", 6))
			continue;
		fld = line + 6;
		semi = strchr(fld, ';');
		if (!semi)
			continue;
		*semi = 0;
		{
			const char *o = strstr(semi + 1, "offset:"), *z = strstr(semi + 1, "size:"),
				   *g = strstr(semi + 1, "signed:");

			if (!o || !z)
				continue;
			off = strtoul(o + 7, NULL, 10);
			size = strtoul(z + 5, NULL, 10);
			sgn = g ? atoi(g + 7) : 0;
		}
		/* the name is the last identifier, before a trailing [N] ("char comm[16]";
		   "__data_loc char[] name" has its brackets before the name) */
		char *end = fld + strlen(fld), *br = NULL;

		while (end > fld && end[-1] == ' ')
			end--;
		if (end > fld && end[-1] == ']' && (br = strrchr(fld, '[')))
			end = br;
		br = strchr(fld, '[');

		while (end > fld && end[-1] == ' ')
			end--;
		name = end;
		while (name > fld && (name[-1] == '_' || (name[-1] >= '0' && name[-1] <= '9') ||
				      (name[-1] >= 'a' && name[-1] <= 'z') || (name[-1] >= 'A' && name[-1] <= 'Z')))
			name--;
		/* common_* belong to every event; __syscall_nr and the like are internal */
		if (name == end || !strncmp(name, "common_", 7) || !strncmp(name, "__", 2))
			continue;
		if (f->nr_fields == alloc) {
			nf = realloc(f->fields, (alloc = alloc ? alloc * 2 : 8) * sizeof(*nf));
			if (!nf)
				break;
			f->fields = nf;
		}
		nf = &f->fields[f->nr_fields++];
		memset(nf, 0, sizeof(*nf));
		nf->name = strndup(name, end - name);
		nf->offset = off;
		nf->size = size;
		nf->is_signed = sgn;
		nf->is_dynamic = !strncmp(fld, "__data_loc", 10);
		nf->is_string = strstr(fld, "char") && (br || nf->is_dynamic);
		nf->is_pointer = strchr(fld, '*') != NULL;
	}
	free(buf);
	return f->name && f->system ? 0 : -EINVAL;
}

int perfdata_tracing__parse(struct perfdata_tracing **out, const void *data, size_t size,
			    char *err, size_t errlen)
{
	struct tcur c = { data, size, 0 };
	struct perfdata_tracing *t;
	uint32_t nsys, n, page;
	const char *s;

	*out = NULL;
	if (size < 10 || memcmp(data, "\027\010\104tracing", 10)) {
		snprintf(err, errlen, "no tracing data (bad magic at its offset 0)");
		return -EINVAL;
	}
	c.off = 10;
	if (!(s = rd_str(&c)) || need(&c, 2))
		goto bad;
	if (((const uint8_t *)data)[c.off] != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)) {
		snprintf(err, errlen, "tracing data of the other byte order: not supported");
		return -EOPNOTSUPP;
	}
	c.off += 2;
	if (rd_u32(&c, &page) || need(&c, 12) || memcmp(c.p + c.off, "header_page", 12))
		goto bad;
	c.off += 12;
	if (skip_sized(&c) || need(&c, 13) || memcmp(c.p + c.off, "header_event", 13))
		goto bad;
	c.off += 13;
	if (skip_sized(&c) || rd_u32(&c, &n))
		goto bad;
	for (uint32_t i = 0; i < n; i++)	/* ftrace's own formats */
		if (skip_sized(&c))
			goto bad;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	if (rd_u32(&c, &nsys))
		goto bad_t;
	for (uint32_t i = 0; i < nsys; i++) {
		const char *sys = rd_str(&c);

		if (!sys || rd_u32(&c, &n))
			goto bad_t;
		for (uint32_t j = 0; j < n; j++) {
			uint64_t len;
			struct perfdata_tp_format *nf;

			if (rd_u64(&c, &len) || len > c.len - c.off)
				goto bad_t;
			nf = realloc(t->fmts, (t->nr + 1) * sizeof(*nf));
			if (!nf)
				goto bad_t;
			t->fmts = nf;
			if (parse_format(sys, (const char *)c.p + c.off, len, &t->fmts[t->nr]) == 0)
				t->nr++;
			else
				free_fmt(&t->fmts[t->nr]);
			c.off += len;
		}
	}
	*out = t;
	return 0;
bad_t:
	perfdata_tracing__free(t);
bad:
	snprintf(err, errlen, "corrupted tracing data at its offset %#zx", c.off);
	return -EINVAL;
}

const struct perfdata_tp_format *perfdata_tracing__find(const struct perfdata_tracing *t, uint64_t id)
{
	for (int i = 0; t && i < t->nr; i++)
		if (t->fmts[i].id == id)
			return &t->fmts[i];
	return NULL;
}

int perfdata_tracing__format(const struct perfdata_tp_format *f, const uint8_t *raw, size_t size,
			     char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (int i = 0; i < f->nr_fields && o < len; i++) {
		const struct perfdata_tp_field *fl = &f->fields[i];
		const char *sep = i ? " " : "";
		uint64_t v = 0;

		if (fl->offset > size || fl->size > size - fl->offset) {
			o += snprintf(buf + o, len - o, "%s%s=?", sep, fl->name);
			continue;
		}
		if (fl->is_string) {
			unsigned so = fl->offset, sl = fl->size;

			if (fl->is_dynamic) {
				uint32_t loc;

				if (fl->size < 4)
					continue;
				memcpy(&loc, raw + fl->offset, 4);
				so = loc & 0xffff;
				sl = loc >> 16;
				if (so > size || sl > size - so)
					sl = 0;
			}
			o += snprintf(buf + o, len - o, "%s%s=%.*s", sep, fl->name,
				      (int)strnlen((const char *)raw + so, sl), (const char *)raw + so);
			continue;
		}
		if (fl->size == 1 || fl->size == 2 || fl->size == 4 || fl->size == 8) {
			memcpy(&v, raw + fl->offset, fl->size);	/* little-endian hosts */
			if (fl->is_signed) {
				int64_t sv = fl->size == 1 ? (int8_t)v : fl->size == 2 ? (int16_t)v :
					     fl->size == 4 ? (int32_t)v : (int64_t)v;

				o += snprintf(buf + o, len - o, "%s%s=%lld", sep, fl->name, (long long)sv);
			} else if (fl->is_pointer || !strcmp(f->system, "syscalls")) {
				/* perf's syscall formats print every argument as 0x%lx */
				o += snprintf(buf + o, len - o, "%s%s=0x%llx", sep, fl->name, (unsigned long long)v);
			} else {
				o += snprintf(buf + o, len - o, "%s%s=%llu", sep, fl->name, (unsigned long long)v);
			}
		} else {
			o += snprintf(buf + o, len - o, "%s%s=[%u bytes]", sep, fl->name, fl->size);
		}
	}
	return o >= len ? -ENOSPC : 0;
}

void perfdata_tracing__free(struct perfdata_tracing *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nr; i++)
		free_fmt(&t->fmts[i]);
	free(t->fmts);
	free(t);
}
