// SPDX-License-Identifier: GPL-2.0
/*
 * tracedata.c - the TRACING_DATA section walked by hand (libtraceevent parses
 * one format at a time but not perf's container around them), its event
 * formats handed to libtraceevent; see tracedata.h.
 */
#include "lib/perfdata/tracedata.h"
#include "lib/tracefs/tep_safe.h"
#include "lib/tracefs/tracefs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

struct tracedata {
	struct tep_handle *tep;
	bool from_file;
};

struct cursor {
	const unsigned char *p, *end, *start;
	bool swap;
};

static bool take(struct cursor *c, void *dst, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	memcpy(dst, c->p, n);
	c->p += n;
	return true;
}

static bool take_u32(struct cursor *c, uint32_t *v)
{
	if (!take(c, v, 4))
		return false;
	if (c->swap)
		*v = __builtin_bswap32(*v);
	return true;
}

static bool take_u64(struct cursor *c, uint64_t *v)
{
	if (!take(c, v, 8))
		return false;
	if (c->swap)
		*v = __builtin_bswap64(*v);
	return true;
}

static const char *take_str(struct cursor *c)
{
	const unsigned char *nul = memchr(c->p, 0, c->end - c->p);
	const char *s = (const char *)c->p;

	if (!nul)
		return NULL;
	c->p = nul + 1;
	return s;
}

static bool skip(struct cursor *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n)
		return false;
	c->p += n;
	return true;
}

/* format text: no NUL, no control characters but tabs and line ends */
static bool is_text(const char *s, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return false;
	return true;
}

#define BAD(msg) do { snprintf(err, errlen, "tracing data: %s at offset %#zx", msg, (size_t)(c.p - c.start)); goto fail; } while (0)

int tracedata__new(struct tracedata **out, const void *data, size_t size, char *err, size_t errlen)
{
	static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct tracedata *t = calloc(1, sizeof(*t));
	struct cursor c = { data, (const unsigned char *)data + size, data, false };
	unsigned char m[10], endian, long_size;
	uint32_t page_size, n;
	const char *version;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->tep = tep_alloc();
	if (!t->tep) {
		free(t);
		return -ENOMEM;
	}
	tep_set_long_size(t->tep, sizeof(long));
	tep_set_page_size(t->tep, 4096);
	if (!data || !size) {
		*out = t;
		return 0;
	}
	if (!take(&c, m, sizeof(m)) || memcmp(m, magic, sizeof(m)))
		BAD("bad magic");
	if (!(version = take_str(&c)))
		BAD("no version");
	if (!take(&c, &endian, 1) || !take(&c, &long_size, 1))
		BAD("truncated");
	c.swap = (endian != 0) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	tep_set_file_bigendian(t->tep, endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, long_size);
	if (!take_u32(&c, &page_size))
		BAD("truncated");
	tep_set_page_size(t->tep, page_size);
	/* header_page and header_event: a name, a size, the text */
	for (int i = 0; i < 2; i++) {
		char name[16];
		uint64_t len;
		const char *want = i ? "header_event" : "header_page";

		if (!take(&c, name, strlen(want) + 1) || memcmp(name, want, strlen(want) + 1))
			BAD("missing header section");
		if (!take_u64(&c, &len) || !skip(&c, len))
			BAD("truncated header section");
	}
	/* ftrace's own formats */
	if (!take_u32(&c, &n))
		BAD("truncated");
	for (uint32_t i = 0; i < n; i++) {
		uint64_t len;

		if (!take_u64(&c, &len) || !skip(&c, len))
			BAD("truncated ftrace format");
	}
	/* the event formats, per system */
	if (!take_u32(&c, &n))
		BAD("truncated");
	for (uint32_t s = 0; s < n; s++) {
		const char *sys = take_str(&c);
		uint32_t count;

		if (!sys || !take_u32(&c, &count))
			BAD("truncated system");
		for (uint32_t i = 0; i < count; i++) {
			uint64_t len;
			const char *fmt = (const char *)c.p;

			if (!take_u64(&c, &len))
				BAD("truncated event format");
			fmt = (const char *)c.p;
			if (!skip(&c, len))
				BAD("truncated event format");
			/* a format libtraceevent rejects is left out, as perf does; so is one
			   that is not text, which its tokenizer takes a NUL of for the end and
			   then dereferences a NULL token (a hostile file crashed it) */
			if (is_text(fmt, len) && tep_safe__parse_event(t->tep, fmt, len, sys))
				BAD("an event format whose print fmt divides by zero");
		}
	}
	/* kallsyms, printk formats and saved cmdlines follow; not needed for the fields */
	(void)version;
	t->from_file = true;
	*out = t;
	return 0;
fail:
	tep_free(t->tep);
	free(t);
	return -EINVAL;
}

void tracedata__free(struct tracedata *t)
{
	if (!t)
		return;
	tep_free(t->tep);
	free(t);
}

/* no format in the file: read this machine's tracefs one, if the id is there */
static struct tep_event *live_format(struct tracedata *t, uint64_t id)
{
	struct tp_name *tps;
	int n = tracefs__glob("*", "*", &tps);
	struct tep_event *ev = NULL;
	const char *dir = tracefs__dir();

	if (n < 0 || !dir)
		return NULL;
	for (int i = 0; i < n && !ev; i++) {
		char path[512];
		FILE *f;
		char *buf = NULL;
		size_t cap = 0, len;

		if (tracefs__event_id(tps[i].group, tps[i].name) != (long long)id)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, tps[i].group, tps[i].name);
		f = fopen(path, "re");
		if (!f)
			break;
		len = getdelim(&buf, &cap, 0, f);
		fclose(f);
		if ((ssize_t)len > 0)
			tep_parse_event(t->tep, buf, len, tps[i].group);
		free(buf);
		ev = tep_find_event(t->tep, (int)id);
	}
	tracefs__free_names(tps, n);
	return ev;
}

/*
 * Whether a print format divides by something that may be zero: libtraceevent
 * evaluates "REC->a / REC->b" as written and dies of SIGFPE when b is 0 (a
 * hostile perf.data can write any format; found by fuzz_perfdata). Such events
 * are printed field by field instead.
 */
static bool may_divide_by_zero(const struct tep_print_arg *a, int depth)
{
	for (; a; a = a->next) {
		if (depth > 64)
			return true;
		switch (a->type) {
		case TEP_PRINT_OP:
			if (a->op.op && (a->op.op[0] == '/' || a->op.op[0] == '%') && !a->op.op[1] &&
			    !(a->op.right && a->op.right->type == TEP_PRINT_ATOM && a->op.right->atom.atom &&
			      strtoll(a->op.right->atom.atom, NULL, 0) != 0))
				return true;
			if (may_divide_by_zero(a->op.left, depth + 1) || may_divide_by_zero(a->op.right, depth + 1))
				return true;
			break;
		case TEP_PRINT_TYPE:
			if (may_divide_by_zero(a->typecast.item, depth + 1))
				return true;
			break;
		case TEP_PRINT_FLAGS:
			if (may_divide_by_zero(a->flags.field, depth + 1))
				return true;
			break;
		case TEP_PRINT_SYMBOL:
			if (may_divide_by_zero(a->symbol.field, depth + 1))
				return true;
			break;
		case TEP_PRINT_HEX: case TEP_PRINT_HEX_STR:
			if (may_divide_by_zero(a->hex.field, depth + 1) || may_divide_by_zero(a->hex.size, depth + 1))
				return true;
			break;
		case TEP_PRINT_INT_ARRAY:
			if (may_divide_by_zero(a->int_array.field, depth + 1) || may_divide_by_zero(a->int_array.count, depth + 1) ||
			    may_divide_by_zero(a->int_array.el_size, depth + 1))
				return true;
			break;
		case TEP_PRINT_DYNAMIC_ARRAY:
			if (may_divide_by_zero(a->dynarray.index, depth + 1))
				return true;
			break;
		case TEP_PRINT_FUNC:
			if (may_divide_by_zero(a->func.args, depth + 1))
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

int tracedata__format(struct tracedata *t, uint64_t id, const void *raw, size_t raw_size,
		      int cpu, uint64_t time, char *buf, size_t len)
{
	struct tep_event *ev = tep_find_event(t->tep, (int)id);
	struct tep_record rec = { 0 };
	struct trace_seq s;
	int n;

	if (!ev && !t->from_file)
		ev = live_format(t, id);
	if (!ev || !raw || !raw_size) {
		size_t o = 0;

		buf[0] = 0;
		for (size_t i = 0; i < raw_size && o + 3 < len; i++)
			o += snprintf(buf + o, len - o, "%02x", ((const unsigned char *)raw)[i]);
		return -ENOENT;
	}
	rec.data = (void *)raw;
	rec.size = raw_size;
	rec.cpu = cpu;
	rec.ts = time;
	trace_seq_init(&s);
	if (may_divide_by_zero(ev->print_fmt.args, 0))
		tep_print_fields(&s, rec.data, rec.size, ev);
	else
		tep_print_event(t->tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	n = snprintf(buf, len, "%s", s.buffer ? s.buffer : "");
	trace_seq_destroy(&s);
	return n;
}

int tracedata__field(struct tracedata *t, uint64_t id, const char *name,
		     unsigned *offset, unsigned *size, int *is_signed)
{
	struct tep_event *ev = tep_find_event(t->tep, (int)id);
	struct tep_format_field *f;

	if (!ev && !t->from_file)
		ev = live_format(t, id);
	f = ev ? tep_find_field(ev, name) : NULL;
	if (!f)
		return -ENOENT;
	*offset = (unsigned)f->offset;
	*size = (unsigned)f->size;
	*is_signed = !!(f->flags & TEP_FIELD_IS_SIGNED);
	return 0;
}
