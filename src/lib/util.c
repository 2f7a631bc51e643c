// SPDX-License-Identifier: GPL-2.0
/* util.c - timerfds, the monotonic clock, edit distance, text lines; see util.h */
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>

int util__timer_arm(int fd, long long ns, bool periodic)
{
	struct itimerspec it = { 0 };

	if (ns <= 0)
		ns = 1;
	it.it_value.tv_sec = ns / 1000000000LL;
	it.it_value.tv_nsec = ns % 1000000000LL;
	if (periodic)
		it.it_interval = it.it_value;
	return timerfd_settime(fd, 0, &it, NULL) ? -errno : 0;
}

uint64_t util__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int util__edit_distance(const char *a, const char *b, bool ignore_case)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[96];

	if (la > 94 || lb > 94)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		int prev = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			int cur = row[j];
			unsigned char x = a[i - 1], y = b[j - 1];
			int best;

			if (ignore_case) {
				x = tolower(x);
				y = tolower(y);
			}
			best = prev + (x != y);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

int util__read_int(const char *path, int *v)
{
	FILE *f = fopen(path, "re");
	int rc = -ENOENT;

	if (f) {
		rc = fscanf(f, "%d", v) == 1 ? 0 : -EINVAL;
		fclose(f);
	}
	return rc;
}

int util__lines_begin(struct util_lines *l, FILE *in)
{
	l->in = in;
	l->head_pos = 0;
	l->head_len = fread(l->head, 1, sizeof(l->head), in);
	if (ferror(in))
		return errno ? -errno : -EIO;
	return memchr(l->head, 0, l->head_len) ? -EILSEQ : 0;
}

ssize_t util__read_line(struct util_lines *l, char **line, size_t *cap, size_t max)
{
	size_t n = 0;
	int c;

	for (;;) {
		if (n >= max)
			return -EFBIG;
		if (n + 2 > *cap) {
			size_t nc = *cap ? 2 * *cap : 256;
			char *p;

			p = realloc(*line, nc);
			if (!p)
				return -ENOMEM;
			*line = p;
			*cap = nc;
		}
		c = l->head_pos < l->head_len ? (unsigned char)l->head[l->head_pos++] : getc_unlocked(l->in);
		if (c == EOF)
			break;
		if (c == 0)
			return -EILSEQ;
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (*line)
		(*line)[n] = 0;
	if (ferror(l->in))
		return errno ? -errno : -EIO;
	return n ? (ssize_t)n : -1;
}

const char *util__text_error(int rc)
{
	if (rc == -EILSEQ)
		return "binary data, not text (a NUL byte)";
	if (rc == -EFBIG)
		return "a line longer than 16 MiB: not line-oriented text";
	return strerror(-rc);
}
