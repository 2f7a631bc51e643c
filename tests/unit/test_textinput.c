// SPDX-License-Identifier: GPL-2.0
/*
 * test_textinput.c - text inputs that are not text, or never end (issue 17):
 * util__read_line's limits, and folded counts exact to 2^64-1 with fractions.
 */
#include "unit.h"
#include "lib/flame/folded.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static ssize_t line_of(const char *data, size_t n, size_t max, char **line)
{
	FILE *f = fmemopen((void *)data, n, "r");
	struct util_lines l;
	size_t cap = 0;
	ssize_t r;

	*line = NULL;
	r = util__lines_begin(&l, f);
	if (!r)
		r = util__read_line(&l, line, &cap, max);
	fclose(f);
	return r;
}

TEST(util_read_line_limits)
{
	struct util_lines ls;
	char *l, big[6000];
	FILE *f;
	size_t cap = 0;

	CHECK_INT(line_of("ab\ncd", 5, 100, &l), 3);
	CHECK_STR(l, "ab\n");
	free(l);
	/* a NUL in the first 4 KiB: binary, before any line */
	CHECK_INT(line_of("a\n\0b\n", 5, 100, &l), -EILSEQ);
	free(l);
	CHECK_INT(line_of("0123456789abcdef", 16, 8, &l), -EFBIG);
	free(l);
	CHECK_INT(line_of("", 0, 8, &l), -1);
	free(l);
	/* the last line without a newline, then the end; a NUL past the first 4 KiB */
	memset(big, 'x', sizeof(big));
	big[4999] = '\n';
	big[5001] = 0;
	f = fmemopen(big, sizeof(big), "r");
	l = NULL;
	CHECK_INT(util__lines_begin(&ls, f), 0);
	CHECK_INT(util__read_line(&ls, &l, &cap, 10000), 5000);
	CHECK_INT(util__read_line(&ls, &l, &cap, 10000), -EILSEQ);
	fclose(f);
	f = fmemopen("x\ny", 3, "r");
	CHECK_INT(util__lines_begin(&ls, f), 0);
	CHECK_INT(util__read_line(&ls, &l, &cap, 100), 2);
	CHECK_INT(util__read_line(&ls, &l, &cap, 100), 1);
	CHECK_STR(l, "y");
	CHECK_INT(util__read_line(&ls, &l, &cap, 100), -1);
	fclose(f);
	free(l);
	CHECK(strstr(util__text_error(-EILSEQ), "binary") != NULL);
}

static long read_folded(struct folded *f, const char *text)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	long r = folded__read(f, in, "t", FOLDED_AFTER, NULL, NULL);

	fclose(in);
	return r;
}

TEST(folded_counts_exact_to_u64_max)
{
	struct folded *f = folded__new(0);
	char buf[64];

	CHECK(f);
	CHECK_INT(read_folded(f, "a;b 9223372036854775807\na;b 9223372036854775807\na;c 1\n"), 0);
	CHECK_INT(folded__finish(f), 0);
	folded__format_count(buf, sizeof(buf), folded__total(f));
	CHECK_STR(buf, "18446744073709551615");
	/* one more is past 2^64-1: the line is skipped, the total stays exact */
	CHECK_INT(read_folded(f, "a;d 1\n"), 1);
	CHECK_INT(read_folded(f, "a;d 18446744073709551616\n"), 1);
	CHECK_INT(folded__finish(f), 0);
	folded__format_count(buf, sizeof(buf), folded__total(f));
	CHECK_STR(buf, "18446744073709551615");
	folded__free(f);

	folded__format_count(buf, sizeof(buf), 0.5L);
	CHECK_STR(buf, "0.5");
	folded__format_count(buf, sizeof(buf), 1234567.25L);
	CHECK_STR(buf, "1234567.25");
}

TEST(folded_binary_input_is_an_error)
{
	struct folded *f = folded__new(0);
	FILE *in = fmemopen("a;b 1\n\0\0\0", 9, "r");

	CHECK(f && in);
	CHECK_INT(folded__read(f, in, "t", FOLDED_AFTER, NULL, NULL), -EILSEQ);
	fclose(in);
	folded__free(f);
}

/*
 * folded__read takes its input a block (1 MiB) at a time: lines cut by a
 * block's end, a line longer than a block, a last line without a newline, and
 * the 16 MiB limit hold as util__read_line holds them.
 */
TEST(folded_read_across_blocks)
{
	size_t n = 3u << 20, used = 0, lines = 0;
	char *text = malloc(n + (17u << 20)), buf[64];
	struct folded *f = folded__new(0);
	FILE *in;

	CHECK(text && f);
	while (used < n) {	/* "a;fNNN 1\n" lines of varied lengths */
		used += sprintf(text + used, "a;f%zu;%.*s 1\n", lines, (int)(lines % 37 + 1), "gggggggggggggggggggggggggggggggggggggg");
		lines++;
	}
	used += sprintf(text + used, "a;");	/* one frame of 1.5 MiB */
	memset(text + used, 'x', 3u << 19);
	used += 3u << 19;
	used += sprintf(text + used, " 2\na;last 3");
	in = fmemopen(text, used, "r");
	CHECK_INT(folded__read(f, in, "t", FOLDED_AFTER, NULL, NULL), 0);
	fclose(in);
	CHECK_INT(folded__finish(f), 0);
	CHECK_INT(folded__nr_stacks(f), lines + 2);
	folded__format_count(buf, sizeof(buf), folded__total(f));
	CHECK_INT(strtoul(buf, NULL, 10), lines + 5);
	folded__free(f);

	/* a line of 16 MiB is no line */
	memset(text, 'y', 17u << 20);
	in = fmemopen(text, 17u << 20, "r");
	f = folded__new(0);
	CHECK_INT(folded__read(f, in, "t", FOLDED_AFTER, NULL, NULL), -EFBIG);
	fclose(in);
	folded__free(f);
	free(text);
}
