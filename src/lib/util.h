/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - small helpers more than one module needs: timerfds, the monotonic
 * clock, growing arrays, an edit distance for "did you mean" suggestions, reading text lines,
 * comma-separated lists, UTF-8 sequences, JSON strings, whole files. Only
 * util__read_line, util__read_fd and util__read_file allocate: the caller
 * frees their buffer.
 */
#ifndef SONDE_UTIL_H
#define SONDE_UTIL_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* arm timerfd fd to fire after ns nanoseconds (at least 1), then every ns if periodic; 0 or -errno */
int util__timer_arm(int fd, long long ns, bool periodic);

/*
 * Room for need elements in the array at *(T **)arr, of *cap elements of elem
 * bytes each: a short one grows to twice its capacity (first when it had
 * none), or more until need fits. 0, or -ENOMEM with the array and *cap as
 * they were.
 */
int util__grow(void *arr, size_t *cap, size_t need, size_t elem, size_t first);

/*
 * Memory the kernel may back with huge pages (transparent huge pages, where the
 * system allows them on request): a report's call graph nodes and tables are
 * touched once each, and a fresh 4 KB page costs 20-45 us in a VM (a fault and
 * the host backing it), a huge page about as much for 512 times the memory. A
 * huge page is resident whole, though: small inputs stay on small pages, and
 * only what grows past UTIL_HUGE_FROM asks for huge ones, unless the input is
 * big (util__big_input): then from the first byte.
 * util__huge_block(): UTIL_HUGE bytes aligned to them, zeroed; the nth (1 for
 * the first) a structure asks for is on huge pages past the threshold. NULL
 * when out of memory.
 */
#define UTIL_HUGE (2u << 20)
#define UTIL_HUGE_FROM (2 * UTIL_HUGE)
/* an input of this many bytes or more makes tables of many MB: huge pages from the start */
#define UTIL_BIG_INPUT (8u << 20)
/* the command reads an input of bytes: past UTIL_BIG_INPUT, memory asks for huge pages at once */
void util__big_input(uint64_t bytes);
void *util__huge_block(size_t nth);
void util__huge_free(void *block);

/*
 * An array in memory of its own, grown with mremap: its pages are neither copied
 * nor faulted in again as it grows, and they are huge past UTIL_HUGE_FROM. As
 * util__grow (the capacity rounded up to whole UTIL_HUGEs); util__free_mapped()
 * lets it go.
 */
int util__grow_mapped(void *arr, size_t *cap, size_t need, size_t elem);
void util__free_mapped(void *p, size_t cap, size_t elem);

/* CLOCK_MONOTONIC in nanoseconds */
uint64_t util__now_ns(void);
/* CLOCK_MONOTONIC in seconds */
double util__now_s(void);

/*
 * all of fd to its end (a pipe, a tracefs or /proc file whose size says 0)
 * into *out, malloc'd and NUL-terminated, its length in *len (may be NULL);
 * more than max bytes (0: no limit) is -EFBIG. 0 or -errno; fd stays open.
 */
int util__read_fd(int fd, size_t max, char **out, size_t *len);
/* the same for the file at path */
int util__read_file(const char *path, size_t max, char **out, size_t *len);

/* the integer a file holds (a sysfs or procfs knob); 0, -ENOENT or -EINVAL */
int util__read_int(const char *path, int *v);

/* the file execvp() would run for cmd (cmd itself when it has a '/'), into buf; 0 or -ENOENT */
int util__find_command(const char *cmd, char *buf, size_t len);

/* Levenshtein distance of two short strings (99 when longer than 94 bytes) */
int util__edit_distance(const char *a, const char *b, bool ignore_case);

/*
 * Lines of a text input. util__lines_begin reads its first 4 KiB at once, so that
 * binary input is one error before any line is parsed: -EILSEQ when they hold a
 * NUL byte (/dev/zero, random bytes, a recording), else 0 (or -errno).
 */
struct util_lines {
	FILE *in;
	char head[4096];
	size_t head_len, head_pos;
};
int util__lines_begin(struct util_lines *l, FILE *in);
/*
 * The next line (getline's contract: *line grows, NUL-terminated, the newline
 * kept): its length, -1 at the end, -EILSEQ when it holds a NUL byte, -EFBIG when
 * it is longer than max (nothing more of it is read), -ENOMEM, or -errno.
 */
ssize_t util__read_line(struct util_lines *l, char **line, size_t *cap, size_t max);
#define UTIL_MAX_LINE ((size_t)16 << 20)	/* longest text line the parsers take */

/* the words for util__read_line's own errors, else strerror */
const char *util__text_error(int rc);

/* whether the comma-separated list ("bash,sh") holds s exactly */
/* regcomp(), or REG_ESIZE for a pattern whose repetitions would take exponential memory */
int util__regcomp(regex_t *re, const char *pattern, int flags);
bool util__list_has(const char *list, const char *s);
/* whether the comma-separated list of numbers ("12,34") holds v */
bool util__list_has_num(const char *list, long v);

/*
 * the length (1 to 4) of the well-formed UTF-8 sequence s starts with (len
 * bytes readable), its code point in *cp; 0 when none starts there (a stray
 * or truncated byte, an overlong form, a surrogate, past U+10FFFF)
 */
size_t util__utf8_seq(const unsigned char *s, size_t len, uint32_t *cp);

/*
 * s[0..len) as a JSON string, quotes included: \" \\ \n \r \t, other control
 * bytes as \u00XX (bpftrace's escapes); bytes that are not UTF-8 become
 * \ufffd, or pass as they are with keep_bytes (bpftrace's -f json does)
 */
void util__json_str(FILE *f, const char *s, size_t len, bool keep_bytes);

#endif
