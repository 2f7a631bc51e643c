// SPDX-License-Identifier: GPL-2.0
/* the probe language's user-space formatting of hist(n, k) labels, buf, ntop, strftime */
#include "unit.h"

#include "lang/output.h"
#include "ui/hist.h"

#include <stdlib.h>
#include <string.h>

static char *label(int b, int k)
{
	static char buf[64];

	hist__bt_label(&(struct hist_bt){ .k = k }, b, buf, sizeof(buf));
	return buf;
}

/* hand-derived: bucket i > 2^(k+1) is [L(i-1), L(i)), L(j) = 2^p (2^k + (j & (2^k - 1))), p = (j >> k) - 1 */
TEST(probefmt_histk_labels)
{
	CHECK_STR(label(0, 2), "(..., 0)");
	CHECK_STR(label(1, 2), "[0]");
	CHECK_STR(label(8, 2), "[7]");	/* 2 << 2: the last single value */
	CHECK_STR(label(9, 2), "[8, 10)");
	CHECK_STR(label(13, 2), "[16, 20)");
	CHECK_STR(label(23, 2), "[96, 112)");
	CHECK_STR(label(36, 2), "[896, 1024)");	/* p = 8: no suffix yet */
	CHECK_STR(label(41, 2), "[2048, 2560)");	/* p = 9: still none, though 2048 is 2K */
	CHECK_STR(label(45, 2), "[4K, 5K)");
	CHECK_STR(label(5, 1), "[4, 6)");
	CHECK_STR(label(7, 1), "[8, 12)");
	CHECK_STR(label(126, 1), "[6E, 8E)");	/* the last bucket of int64 */
	CHECK_STR(label(1888, 5), "[8064P, 8192P)");
}

TEST(probefmt_histk_ranges)
{
	long long mn, mx;

	hist__bt_range(&(struct hist_bt){ .k = 3 }, 0, &mn, &mx);
	CHECK_INT(mx, -1);
	hist__bt_range(&(struct hist_bt){ .k = 3 }, 16, &mn, &mx);
	CHECK_INT(mn, 15);
	CHECK_INT(mx, 15);
	hist__bt_range(&(struct hist_bt){ .k = 3 }, 17, &mn, &mx);	/* [16, 18) */
	CHECK_INT(mn, 16);
	CHECK_INT(mx, 17);
	hist__bt_range(&(struct hist_bt){ .k = 2 }, 23, &mn, &mx);
	CHECK_INT(mn, 96);
	CHECK_INT(mx, 111);
}

static char *value(enum ty_kind kind, int size, const void *data, size_t len)
{
	static char out[512];
	struct out o = { 0 };
	struct type t = { .kind = kind, .size = (uint16_t)size };
	uint8_t v[256] = { 0 };
	char *text = NULL;
	size_t tl = 0;
	FILE *f = open_memstream(&text, &tl);

	memcpy(v, data, len);
	if (!fmt__value(&o, f, &t, v))
		fputs("(not handled)", f);
	fclose(f);
	snprintf(out, sizeof(out), "%s", text);
	free(text);
	return out;
}

TEST(probefmt_values)
{
	/* buf: the length first, then bytes; 32..126 as they are, the rest \xNN */
	CHECK_STR(value(TY_BUF, 16, "\x04\0\0\0\0\0\0\0a\\\x7f\xffzz", 14), "a\\\\x7f\\xff");
	/* a corrupted length stops at the value's end */
	CHECK_STR(value(TY_BUF, 16, "\xff\0\0\0\0\0\0\0abcdefgh", 16), "abcdefgh");
	CHECK_STR(value(TY_INET, 24, "\x02\0\0\0\0\0\0\0\x7f\0\0\x01", 12), "127.0.0.1");
	CHECK_STR(value(TY_INET, 24, "\x0a\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 24), "::1");
	CHECK_STR(value(TY_INET, 24, "\x63\0\0\0\0\0\0\0\x7f\0\0\x01", 12), "");
	CHECK_STR(value(TY_STRERROR, 8, "\x02\0\0\0\0\0\0\0", 8), "No such file or directory");
	CHECK_STR(value(TY_INT, 8, "\x02", 1), "(not handled)");
}

TEST(probefmt_strftime)
{
	char *s = fmt__strftime("%%|%f|", 1500, 64);

	/* %f is the microseconds, 6 digits, put in before strftime sees the format */
	CHECK(s && strlen(s) == 9 && strspn(s + 2, "0123456789") == 6);
	CHECK(s && s[0] == '%' && s[1] == '|' && s[8] == '|');
	free(s);
	s = fmt__strftime("%Y-%m-%d", 0, 4);	/* does not fit: bpftrace's "(?)" */
	CHECK_STR(s, "(?)");
	free(s);
	s = fmt__strftime("", 0, 64);	/* strftime gives 0 bytes: "(?)" too */
	CHECK_STR(s, "(?)");
	free(s);
}

/* output_lines.c: two threads' parts of lines, mixed as two CPUs send them, come out whole */
TEST(probefmt_lines_per_thread)
{
	char *buf = NULL;
	size_t len = 0;
	struct out o = { .f = open_memstream(&buf, &len) };

	CHECK(o.f);
	out__lines_text(&o, 7, "a1 ");
	out__lines_text(&o, 9, "b1 ");
	out__lines_text(&o, 9, "b2\n");	/* ends 9's line: written at once */
	out__lines_text(&o, 0, "none\n");	/* no thread known: as it comes */
	out__lines_text(&o, 7, "a2\nc1");	/* ends 7's line, begins another */
	out__lines_text(&o, 11, "whole\n");
	out__lines_text(&o, 7, " c2\n");
	out__lines_text(&o, 12, "never ended");
	out__lines_flush(&o);	/* the end of the run */
	fclose(o.f);
	CHECK_STR(buf, "b1 b2\nnone\na1 a2\nwhole\nc1 c2\nnever ended");
	CHECK(!o.lines && !o.nlines);
	free(buf);
}

/* -f json: every printf its own event, as bpftrace prints them */
TEST(probefmt_lines_json)
{
	char *buf = NULL;
	size_t len = 0;
	struct out o = { .f = open_memstream(&buf, &len), .json = true };

	CHECK(o.f);
	out__lines_text(&o, 7, "a1 ");
	out__lines_text(&o, 7, "a2\n");
	out__lines_flush(&o);
	fclose(o.f);
	CHECK_STR(buf, "{\"type\": \"printf\", \"data\": \"a1 \"}\n{\"type\": \"printf\", \"data\": \"a2\\n\"}\n");
	free(buf);
}
