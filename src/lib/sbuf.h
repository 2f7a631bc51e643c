/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sbuf.h - a growing string, for text composed in pieces (strace's decoded
 * arguments, the programs `sonde tool` writes). The buffer is the caller's:
 * sbuf__free gives it back, or sbuf__take hands it over. A failed allocation
 * marks the string oom and later writes do nothing, so that a writer checks
 * once, at the end.
 */
#ifndef SONDE_SBUF_H
#define SONDE_SBUF_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf {
	char *buf;		/* NUL-terminated once anything was written; NULL before */
	size_t len, cap;
	bool oom;		/* an allocation failed: the text is cut */
};

void sbuf__add(struct sbuf *b, const char *s, size_t n);
void sbuf__puts(struct sbuf *b, const char *s);
void sbuf__printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* empty again (and no longer oom: the cut text is gone), its memory kept */
void sbuf__reset(struct sbuf *b);
void sbuf__free(struct sbuf *b);
/* the text, the caller's to free, and b empty; NULL (the text freed) when oom */
char *sbuf__take(struct sbuf *b);

#endif
