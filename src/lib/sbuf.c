// SPDX-License-Identifier: GPL-2.0
/*
 * sbuf.c - a growing string (sbuf.h).
 */
#include "lib/sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* room for n more bytes and the NUL; false (and oom) when there is none */
static bool sbuf_room(struct sbuf *b, size_t n)
{
	size_t cap;
	char *nb;

	if (b->oom)
		return false;
	if (b->len + n + 1 <= b->cap)
		return true;
	for (cap = b->cap ? b->cap : 256; cap < b->len + n + 1; cap *= 2)
		;
	nb = realloc(b->buf, cap);
	if (!nb) {
		b->oom = true;
		return false;
	}
	b->buf = nb;
	b->cap = cap;
	return true;
}

void sbuf__add(struct sbuf *b, const char *s, size_t n)
{
	if (!sbuf_room(b, n))
		return;
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void sbuf__puts(struct sbuf *b, const char *s)
{
	sbuf__add(b, s, strlen(s));
}

void sbuf__printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	size_t room;
	int n;

	if (!sbuf_room(b, 0))
		return;
	room = b->cap - b->len;
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->len, room, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= room && sbuf_room(b, (size_t)n)) {	/* it did not fit: again, with room */
		va_start(ap, fmt);
		vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	} else if (n >= 0 && (size_t)n >= room) {
		n = -1;
	}
	if (n < 0) {
		b->buf[b->len] = '\0';
		return;
	}
	b->len += (size_t)n;
}

void sbuf__reset(struct sbuf *b)
{
	b->len = 0;
	b->oom = false;
	if (b->buf)
		b->buf[0] = '\0';
}

void sbuf__free(struct sbuf *b)
{
	free(b->buf);
	*b = (struct sbuf){ 0 };
}

char *sbuf__take(struct sbuf *b)
{
	char *s = b->oom ? NULL : b->buf;

	if (b->oom)
		free(b->buf);
	*b = (struct sbuf){ 0 };
	return s;
}
