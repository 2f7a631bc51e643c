// SPDX-License-Identifier: GPL-2.0
/* util.c - timerfds, the monotonic clock, edit distance, text lines, lists, UTF-8, JSON strings; see util.h */
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

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

int util__grow(void *arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t nc = *cap ? *cap : first ? first : 1;
	void *old, *p;

	if (need <= *cap)
		return 0;
	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return -ENOMEM;
		nc *= 2;
	}
	if (elem && nc > SIZE_MAX / elem)
		return -ENOMEM;
	memcpy(&old, arr, sizeof(old));
	if (!(p = realloc(old, nc * elem)))
		return -ENOMEM;
	memcpy(arr, &p, sizeof(p));
	*cap = nc;
	return 0;
}

/* where huge pages start: UTIL_HUGE_FROM, or 0 once a big input is read */
static size_t huge_from = UTIL_HUGE_FROM;

void util__big_input(uint64_t bytes)
{
	if (bytes >= UTIL_BIG_INPUT)
		huge_from = 0;
}

void *util__huge_block(size_t nth)
{
	uint8_t *p = mmap(NULL, 2 * UTIL_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t head;

	if (p == MAP_FAILED)
		return NULL;
	/* the aligned UTIL_HUGE in the middle stays */
	head = (UTIL_HUGE - (uintptr_t)p % UTIL_HUGE) % UTIL_HUGE;
	if (head)
		munmap(p, head);
	munmap(p + head + UTIL_HUGE, UTIL_HUGE - head);
	if (nth * UTIL_HUGE > huge_from)
		madvise(p + head, UTIL_HUGE, MADV_HUGEPAGE);	/* a hint: without THP, small pages */
	return p + head;
}

void util__huge_free(void *block)
{
	if (block)
		munmap(block, UTIL_HUGE);
}

static size_t mapped_len(size_t bytes)
{
	return (bytes + UTIL_HUGE - 1) & ~(size_t)(UTIL_HUGE - 1);
}

int util__grow_mapped(void *arr, size_t *cap, size_t need, size_t elem)
{
	size_t old_len = mapped_len(*cap * elem), len;
	void *old, *p;

	if (need <= *cap)
		return 0;
	if (!elem || need > SIZE_MAX / 2 / elem)
		return -ENOMEM;
	len = mapped_len(need * elem > 2 * old_len ? need * elem : 2 * old_len);
	memcpy(&old, arr, sizeof(old));
	p = old ? mremap(old, old_len, len, MREMAP_MAYMOVE)
		: mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	if (len >= huge_from)
		madvise(p, len, MADV_HUGEPAGE);
	memcpy(arr, &p, sizeof(p));
	*cap = len / elem;
	return 0;
}

void util__free_mapped(void *p, size_t cap, size_t elem)
{
	if (p)
		munmap(p, mapped_len(cap * elem));
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

int util__read_fd(int fd, size_t max, char **out, size_t *len)
{
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap);

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (cap - n < 4096) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			return -e;
		}
		if (!r)
			break;
		n += r;
		if (max && n > max) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[n] = 0;
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

int util__read_file(const char *path, size_t max, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	*out = NULL;
	if (fd < 0)
		return -errno;
	rc = util__read_fd(fd, max, out, len);
	close(fd);
	return rc;
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

int util__find_command(const char *cmd, char *buf, size_t len)
{
	const char *p = getenv("PATH");
	struct stat st;

	if (strchr(cmd, '/')) {
		snprintf(buf, len, "%s", cmd);
		return 0;
	}
	for (p = p ? p : "/usr/local/bin:/usr/bin:/bin"; *p; p += *p == ':') {
		size_t l = strcspn(p, ":");

		snprintf(buf, len, "%.*s/%s", (int)(l ? l : 1), l ? p : ".", cmd);	/* "" is the cwd */
		p += l;
		if (!stat(buf, &st) && S_ISREG(st.st_mode) && !access(buf, X_OK))
			return 0;
	}
	return -ENOENT;
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

double util__now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

bool util__list_has(const char *list, const char *s)
{
	size_t n = strlen(s);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");

		if (l == n && !strncmp(p, s, n))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

bool util__list_has_num(const char *list, long v)
{
	for (const char *p = list; p && *p;) {
		char *end;
		long x = strtol(p, &end, 10);

		if (end != p && x == v && (*end == ',' || !*end))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

size_t util__utf8_seq(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned c = s[0];
	uint32_t v;
	size_t n;

	if (!len)
		return 0;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, v = c & 0x07;
	else
		return 0;
	if (n > len)
		return 0;
	for (size_t k = 1; k < n; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[k] & 0x3f);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10ffff)) ||
	    (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

void util__json_str(FILE *f, const char *str, size_t len, bool keep_bytes)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		uint32_t cp;
		size_t n;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else if (c < 0x80 || keep_bytes)
			fputc(c, f);
		else if ((n = util__utf8_seq(s + i, len - i, &cp))) {
			fwrite(s + i, 1, n, f);
			i += n;
			continue;
		} else
			fputs("\\ufffd", f);
		i++;
	}
	fputc('"', f);
}

/*
 * a pattern regcomp can take without blowing up: glibc copies the pattern's
 * tree for each repetition, so stacked (a+++...) or large ({m,n}) repetitions
 * take exponential memory (700 bytes of ltrace -e /REGEX/ took 2 GB); names of
 * functions and syscalls never need them
 */
static bool regex_is_tame(const char *re)
{
	int bounds = 0, quantifiers = 0;
	bool after_quantifier = false;

	if (strlen(re) > 256)
		return false;
	for (const char *p = re; *p; p++) {
		bool q = *p == '+' || *p == '*' || *p == '?' || *p == '{';

		if (*p == '\\' && p[1]) {
			p++;
			after_quantifier = false;
			continue;
		}
		if (q && (after_quantifier || ++quantifiers > 16))
			return false;
		if (*p == '{') {
			char *end;
			long m = strtol(p + 1, &end, 10), n = m;

			if (*end == ',')
				n = end[1] == '}' ? m : strtol(end + 1, &end, 10);
			if (++bounds > 2 || m > 32 || n > 32)
				return false;
			while (*p && *p != '}')
				p++;
			if (!*p)
				return false;
		}
		after_quantifier = q;
	}
	return true;
}

int util__regcomp(regex_t *re, const char *pattern, int flags)
{
	return regex_is_tame(pattern) ? regcomp(re, pattern, flags) : REG_ESIZE;
}
