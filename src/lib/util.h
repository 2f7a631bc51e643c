/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - small helpers more than one module needs: timerfds, the monotonic
 * clock, an edit distance for "did you mean" suggestions, reading text lines.
 * Only util__read_line allocates: the caller's line buffer, which it frees.
 */
#ifndef SONDE_UTIL_H
#define SONDE_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* arm timerfd fd to fire after ns nanoseconds (at least 1), then every ns if periodic; 0 or -errno */
int util__timer_arm(int fd, long long ns, bool periodic);

/* CLOCK_MONOTONIC in nanoseconds */
uint64_t util__now_ns(void);

/* the integer a file holds (a sysfs or procfs knob); 0, -ENOENT or -EINVAL */
int util__read_int(const char *path, int *v);

/* Levenshtein distance of two short strings (99 when longer than 94 bytes) */
int util__edit_distance(const char *a, const char *b, bool ignore_case);

/*
 * One line of a text input (getline's contract: *line grows, NUL-terminated, the
 * newline kept): its length, -1 at the end, -EILSEQ when it holds a NUL byte (the
 * input is binary, not text: /dev/zero, a recording), -EFBIG when it is longer
 * than max (nothing more of it is read), -ENOMEM, or -errno of a read error.
 */
ssize_t util__read_line(FILE *in, char **line, size_t *cap, size_t max);
#define UTIL_MAX_LINE ((size_t)16 << 20)	/* longest text line the parsers take */

/* the words for util__read_line's own errors, else strerror */
const char *util__text_error(int rc);

#endif
