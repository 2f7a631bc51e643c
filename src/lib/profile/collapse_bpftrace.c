// SPDX-License-Identifier: GPL-2.0
/*
 * collapse_bpftrace.c - the maps bpftrace (and `sonde probe`) print, folded
 * as stackcollapse-bpftrace.pl folds them; see collapse.h.
 *
 * A map entry is "@NAME[" KEY "]: " VALUE. The key's elements are joined by
 * ", "; a stack element is a newline and then one line per frame, leaf first,
 * indented (raw stacks are not), so an entry keyed by a stack spans lines:
 *
 *	@c[symchain, 		a scalar element, then a stack
 *	    chain_c+42		frames, leaf first
 *	    main+117
 *	, 16466]: 64		after the stack: ", " or "]", the end and the value
 *
 * Inside a key, a line that starts with ',' or ']' is key text again, any
 * other line a frame. The folded stack is the scalar elements in key order,
 * then the stacks from the last to the first, each root first: for
 * @[kstack, ustack] the user stack under the kernel one, as the script
 * gives it (without its ", " frame between them).
 */
#include "lib/profile/collapse.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS 65536		/* frames and elements of one entry */
#define MAX_TEXT ((size_t)16 << 20)	/* bytes of one entry */
#define SNIFF_BYTES 65536

struct item {
	size_t off, len;	/* in text */
	unsigned stack;		/* 0: a scalar element; else which stack (1, 2, ...) */
};

struct bt {
	struct folded *f;
	enum folded_slot slot;
	bool offsets;
	const char *want;	/* the map to fold; NULL until the first stack map */
	struct collapse_stats *st;
	void (*warn)(unsigned long line, const char *why, void *arg);
	void *warn_arg;
	/* the entry being read */
	enum { OUT, KEY, SKIP } state;
	char name[128];
	unsigned long line;	/* where it starts */
	unsigned stacks;	/* stacks met so far */
	char *text;		/* the items' bytes */
	size_t len, cap;
	struct item *items;
	size_t nitems, icap;
	char *stack;		/* scratch: the folded stack */
	size_t scap;
	char why[256];
};

static void skip_entry(struct bt *b, unsigned long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void skip_entry(struct bt *b, unsigned long line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->why, sizeof(b->why), fmt, ap);
	va_end(ap);
	b->st->skipped++;
	if (b->warn)
		b->warn(line, b->why, b->warn_arg);
}

/* is the entry being read one of the map folded (or may it be: none chosen yet)? */
static bool wanted(const struct bt *b)
{
	return !b->want || !strcmp(b->name, b->want);
}

static void too_big(struct bt *b)
{
	skip_entry(b, b->line, "%s: an entry of more than %d frames or 16 MiB", b->name, MAX_ITEMS);
}

/* "@" then [A-Za-z0-9_]* then "[": the length of "@NAME", or 0 */
static size_t entry_start(const char *s)
{
	size_t n = 1;

	if (s[0] != '@')
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return s[n] == '[' ? n : 0;
}

/* the last "]:" of s that ends it or is followed by a blank: its offset, or -1 */
static long entry_end(const char *s, size_t len)
{
	for (size_t i = len; i-- > 1;)
		if (s[i - 1] == ']' && s[i] == ':' && (i + 1 == len || s[i + 1] == ' '))
			return (long)i - 1;
	return -1;
}

static int add_item(struct bt *b, const char *s, size_t len, unsigned stack)
{
	if (b->nitems >= MAX_ITEMS || b->len + len > MAX_TEXT)
		return 1;
	if (b->nitems == b->icap) {
		size_t nc = b->icap ? 2 * b->icap : 64;
		struct item *ni = realloc(b->items, nc * sizeof(*ni));

		if (!ni)
			return -ENOMEM;
		b->items = ni;
		b->icap = nc;
	}
	if (b->len + len + 1 > b->cap) {
		size_t nc = 2 * (b->len + len + 1);
		char *nt = realloc(b->text, nc);

		if (!nt)
			return -ENOMEM;
		b->text = nt;
		b->cap = nc;
	}
	memcpy(b->text + b->len, s, len);
	for (size_t i = 0; i < len; i++)	/* a ';' would split the frame */
		if (b->text[b->len + i] == ';')
			b->text[b->len + i] = ':';
	b->items[b->nitems++] = (struct item){ b->len, len, stack };
	b->len += len;
	return 0;
}

/* "sym+46", "sym+0x2e": the length without the offset */
static size_t strip_offset(const char *s, size_t len)
{
	size_t p = len;

	while (p > 0 && isxdigit((unsigned char)s[p - 1]))
		p--;
	if (p >= 2 && s[p - 1] == 'x' && s[p - 2] == '0' && p < len) {
		p -= 2;
	} else {
		p = len;
		while (p > 0 && isdigit((unsigned char)s[p - 1]))
			p--;
	}
	return p > 1 && p < len && s[p - 1] == '+' ? p - 1 : len;
}

/* one frame line: leading blanks go; without --offsets, ustack(perf)'s
   "ADDR sym+off (module)" becomes the symbol and "+off" goes */
static int add_frame(struct bt *b, const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (!b->offsets) {
		size_t hex = 0;

		while (hex < len && isxdigit((unsigned char)s[hex]))
			hex++;
		if (hex && hex < len && s[hex] == ' ' && s[len - 1] == ')') {
			const char *open = NULL;

			for (size_t i = len; i-- > hex + 1;)
				if (s[i] == '(' && s[i - 1] == ' ') {
					open = s + i - 1;
					break;
				}
			if (open && open > s + hex + 1) {
				len = open - (s + hex + 1);
				s += hex + 1;
			}
		}
		len = strip_offset(s, len);
	}
	if (!len)
		return 0;
	return add_item(b, s, len, b->stacks);
}

/* scalar elements of key text s[0..len): split at ", ", empty ones (separators,
   empty stacks) left out */
static int add_scalars(struct bt *b, const char *s, size_t len)
{
	size_t start = 0;
	int rc;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && !(s[i] == ',' && i + 1 < len && s[i + 1] == ' '))
			continue;
		size_t a = start, z = i;

		while (a < z && s[a] == ' ')
			a++;
		while (z > a && s[z - 1] == ' ')
			z--;
		if (z > a && (rc = add_item(b, s + a, z - a, 0)))
			return rc;
		start = i + 2;
		if (i < len)
			i++;
	}
	return 0;
}

/* the value after "]: ": a count (a non-negative integer up to 2^64-1) */
static int parse_value(const char *s, size_t len, folded_count *v)
{
	char num[32];

	while (len && s[0] == ' ')
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (!len || len >= sizeof(num))
		return -1;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return -1;
	memcpy(num, s, len);
	num[len] = 0;
	*v = strtold(num, NULL);
	return *v > FOLDED_COUNT_MAX ? -1 : 0;
}

/* an entry ended with value text v: fold it, or say why not */
static int finish_entry(struct bt *b, const char *v, size_t vlen)
{
	folded_count count;
	size_t n = 0, need = 1;
	const char *why;
	int rc;

	b->state = OUT;
	if (!b->stacks)
		return 0;	/* not a stack map: @start[tid], @bytes[comm] */
	if (!b->want) {
		snprintf(b->st->event, sizeof(b->st->event), "%s", b->name);
		b->want = b->st->event;
	}
	if (strcmp(b->name, b->want)) {
		if (!b->st->other_events)
			snprintf(b->st->other, sizeof(b->st->other), "%s", b->name);
		b->st->other_events = true;
		return 0;
	}
	if (parse_value(v, vlen, &count)) {
		while (vlen && *v == ' ')
			v++, vlen--;
		while (vlen && isspace((unsigned char)v[vlen - 1]))
			vlen--;
		if (!vlen)
			skip_entry(b, b->line, "%s: the value is not a count (a histogram?)", b->name);
		else
			skip_entry(b, b->line, "%s: the value is not a count: '%.*s'", b->name,
				   vlen > 60 ? 60 : (int)vlen, v);
		return 0;
	}
	for (size_t i = 0; i < b->nitems; i++)
		need += b->items[i].len + 1;
	if (need > b->scap) {
		char *ns = realloc(b->stack, need);

		if (!ns)
			return -ENOMEM;
		b->stack = ns;
		b->scap = need;
	}
	/* scalars in key order, then the stacks last to first, each root first */
	for (size_t k = 0; k < 2 * b->nitems; k++) {
		const struct item *it = &b->items[k < b->nitems ? k : 2 * b->nitems - 1 - k];

		if (!it->stack != (k < b->nitems))
			continue;
		memcpy(b->stack + n, b->text + it->off, it->len);
		n += it->len;
		b->stack[n++] = ';';
	}
	if (n)
		n--;
	rc = folded__add_text(b->f, b->stack, n, count, b->slot, &why);
	if (rc < 0)
		return rc;
	if (rc) {
		skip_entry(b, b->line, "%s: %s", b->name, why);
		return 0;
	}
	b->st->kept++;
	return 0;
}

/* key text outside a stack (the entry's first line after "[", or a line that
   starts with ',' or ']'): scalars, maybe the end and its value */
static int key_text(struct bt *b, const char *s, size_t len)
{
	long end = entry_end(s, len);
	int rc;

	if (end < 0) {
		rc = add_scalars(b, s, len);
		if (rc > 0) {
			too_big(b);
			b->state = SKIP;
			return 0;
		}
		b->stacks++;	/* a stack follows */
		return rc;
	}
	rc = add_scalars(b, s, end);
	if (rc > 0) {
		too_big(b);
		b->state = OUT;
		return 0;
	}
	if (rc < 0)
		return rc;
	/* the stack before "]" (if any) ended with this line; a key without a line
	   break has none */
	return finish_entry(b, s + end + 2, len - end - 2);
}

static int begin_entry(struct bt *b, unsigned long line, const char *s, size_t len, size_t name_len)
{
	snprintf(b->name, sizeof(b->name), "%.*s", (int)name_len, s);
	b->line = line;
	b->stacks = 0;
	b->len = 0;
	b->nitems = 0;
	b->state = KEY;
	/* "@[, comm]: 5": an empty stack first (@[kstack, comm] in user space) */
	if (len - name_len - 1 >= 2 && s[name_len + 1] == ',' && s[name_len + 2] == ' ')
		b->stacks++;
	return key_text(b, s + name_len + 1, len - name_len - 1);
}

static int bt_line(struct bt *b, unsigned long line, char *s, size_t len)
{
	size_t name_len = entry_start(s);
	int rc;

	if (b->state != OUT && name_len) {
		if (b->state == KEY && b->stacks && wanted(b))
			skip_entry(b, b->line, "%s: the entry has no end (\"]: COUNT\")", b->name);
		b->state = OUT;
	}
	switch (b->state) {
	case OUT:
		return name_len ? begin_entry(b, line, s, len, name_len) : 0;
	case SKIP:
		if (!len || (entry_end(s, len) >= 0 && (s[0] == ']' || s[0] == ',')))
			b->state = OUT;
		return 0;
	case KEY:
		if (!len) {
			if (wanted(b))
				skip_entry(b, b->line, "%s: a blank line inside the entry", b->name);
			b->state = OUT;
			return 0;
		}
		if (s[0] == ',' || s[0] == ']')
			return key_text(b, s, len);
		rc = add_frame(b, s, len);
		if (rc > 0) {
			too_big(b);
			b->state = SKIP;
			return 0;
		}
		return rc;
	}
	return 0;
}

int collapse__bpftrace(struct folded *f, FILE *in, const struct collapse_opts *o, enum folded_slot slot,
		       void (*warn)(unsigned long line, const char *why, void *arg), void *arg,
		       struct collapse_stats *st)
{
	struct bt b = { .f = f, .slot = slot, .offsets = o->offsets, .st = st, .warn = warn, .warn_arg = arg };
	struct util_lines lines;
	unsigned long lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc;

	memset(st, 0, sizeof(*st));
	if (o->map) {
		snprintf(st->event, sizeof(st->event), "%s", o->map);
		b.want = st->event;
	}
	rc = util__lines_begin(&lines, in);
	while (!rc && (len = util__read_line(&lines, &line, &cap, UTIL_MAX_LINE)) >= 0) {
		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		rc = bt_line(&b, lineno, line, len);
	}
	if (!rc && len < -1)
		rc = (int)len;
	if (!rc && b.state == KEY && b.stacks && wanted(&b))
		skip_entry(&b, b.line, "%s: the input ends inside the entry", b.name);
	free(line);
	free(b.text);
	free(b.items);
	free(b.stack);
	return rc;
}

/* ---- is it bpftrace's output? ---- */

static bool bpftrace_line(const char *s, size_t len, bool first)
{
	size_t n;

	if (first && len > 10 && !strncmp(s, "Attaching ", 10)) {
		size_t i = 10;

		while (i < len && isdigit((unsigned char)s[i]))
			i++;
		if (i > 10 && ((len - i == 10 && !strncmp(s + i, " probes...", 10)) ||
			       (len - i == 9 && !strncmp(s + i, " probe...", 9))))
			return true;
	}
	if (!len || s[0] != '@')
		return false;
	n = 1;
	while (n < len && (isalnum((unsigned char)s[n]) || s[n] == '_'))
		n++;
	if (n == len || s[n] != '[')
		return false;
	/* "@[" or "@c[comm, " before a stack, or a whole entry "@x[1]: 5" */
	return n + 1 == len || (len >= 2 && s[len - 2] == ',' && s[len - 1] == ' ') ||
	       entry_end(s, len) > (long)n;
}

bool collapse__is_bpftrace(const char *head, size_t len, bool whole)
{
	bool first = true;

	for (size_t p = 0; p < len;) {
		const char *nl = memchr(head + p, '\n', len - p);
		size_t e = nl ? (size_t)(nl - head) : len, n = e - p;

		if (!nl && !whole)
			break;	/* a line cut by the end of the head */
		while (n && head[p + n - 1] == '\r')
			n--;
		if (n) {
			if (bpftrace_line(head + p, n, first))
				return true;
			first = false;
		}
		p = e + 1;
	}
	return false;
}

/* ---- reading the head again ---- */

struct replay {
	char *head;
	size_t len, pos;
	FILE *in;
};

static ssize_t replay_read(void *cookie, char *buf, size_t size)
{
	struct replay *r = cookie;
	size_t n;

	if (r->pos < r->len) {
		n = r->len - r->pos < size ? r->len - r->pos : size;
		memcpy(buf, r->head + r->pos, n);
		r->pos += n;
		return (ssize_t)n;
	}
	n = fread(buf, 1, size, r->in);
	if (!n && ferror(r->in))
		return -1;
	return (ssize_t)n;
}

static int replay_close(void *cookie)
{
	struct replay *r = cookie;

	free(r->head);
	free(r);
	return 0;
}

int collapse__sniff(FILE *in, bool *bpftrace, FILE **replay)
{
	cookie_io_functions_t io = { .read = replay_read, .close = replay_close };
	struct replay *r = calloc(1, sizeof(*r));

	*replay = NULL;
	if (!r || !(r->head = malloc(SNIFF_BYTES))) {
		free(r);
		return -ENOMEM;
	}
	r->in = in;
	r->len = fread(r->head, 1, SNIFF_BYTES, in);
	if (ferror(in)) {
		int err = errno ? -errno : -EIO;

		replay_close(r);
		return err;
	}
	*bpftrace = !memchr(r->head, 0, r->len) && collapse__is_bpftrace(r->head, r->len, r->len < SNIFF_BYTES);
	*replay = fopencookie(r, "r", io);
	if (!*replay) {
		replay_close(r);
		return -ENOMEM;
	}
	return 0;
}
