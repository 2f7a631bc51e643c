// SPDX-License-Identifier: GPL-2.0
/* test_util.c - lib/util.h: lists, UTF-8 sequences, JSON strings, files, commands */
#include "unit.h"
#include "lib/util.h"
#include "ui/json.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

TEST(util_list_has)
{
	CHECK(util__list_has("bash,sh", "sh"));
	CHECK(util__list_has("bash,sh", "bash"));
	CHECK(!util__list_has("bash", "sh"));
	CHECK(!util__list_has("bash,sh", "bas"));
	CHECK(!util__list_has("", "sh"));
	CHECK(!util__list_has(NULL, "sh"));
	CHECK(util__list_has_num("12,34", 34));
	CHECK(util__list_has_num("12, 34", 34));
	CHECK(!util__list_has_num("12,34", 3));
	CHECK(!util__list_has_num("123", 12));
	CHECK(!util__list_has_num("x,12y", 12));
}

TEST(util_utf8_seq)
{
	uint32_t cp = 0;

	CHECK_INT(util__utf8_seq((const unsigned char *)"a", 1, &cp), 1);
	CHECK_INT(cp, 'a');
	CHECK_INT(util__utf8_seq((const unsigned char *)"\xc3\xa9", 2, &cp), 2);
	CHECK_INT(cp, 0xe9);
	CHECK_INT(util__utf8_seq((const unsigned char *)"\xe2\x82\xac", 3, &cp), 3);
	CHECK_INT(cp, 0x20ac);
	CHECK_INT(util__utf8_seq((const unsigned char *)"\xf0\x9f\x94\xa5", 4, &cp), 4);
	CHECK_INT(cp, 0x1f525);
	CHECK_INT(util__utf8_seq((const unsigned char *)"\xe2\x82\xac", 2, &cp), 0);	/* truncated */
	CHECK_INT(util__utf8_seq((const unsigned char *)"\xc0\xaf", 2, &cp), 0);		/* overlong */
	CHECK_INT(util__utf8_seq((const unsigned char *)"\xe0\x80\xaf", 3, &cp), 0);	/* overlong */
	CHECK_INT(util__utf8_seq((const unsigned char *)"\xed\xa0\x80", 3, &cp), 0);	/* surrogate */
	CHECK_INT(util__utf8_seq((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 0);	/* > U+10FFFF */
	CHECK_INT(util__utf8_seq((const unsigned char *)"\x80", 1, &cp), 0);
	CHECK_INT(util__utf8_seq((const unsigned char *)"\xc3(", 2, &cp), 0);
}

static char *json(const char *s, size_t len, bool keep)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	util__json_str(f, s, len, keep);
	fclose(f);
	return buf;
}

TEST(util_json_str)
{
	char *s;

	s = json("a\"b\\c\n\t\r\x01\x7f", 10, false);
	CHECK_STR(s, "\"a\\\"b\\\\c\\n\\t\\r\\u0001\x7f\"");
	free(s);
	s = json("caf\xc3\xa9 \xff x\xe2\x82", 11, false);
	CHECK_STR(s, "\"caf\xc3\xa9 \\ufffd x\\ufffd\\ufffd\"");
	free(s);
	s = json("caf\xc3\xa9 \xff", 7, true);
	CHECK_STR(s, "\"caf\xc3\xa9 \xff\"");
	free(s);
	s = json("a\0b", 3, false);
	CHECK_STR(s, "\"a\\u0000b\"");
	free(s);
}

/* every --json output: a name that is not UTF-8 still makes valid JSON */
TEST(ui_json_str)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	json__str(f, "x\xfe\"y");
	json__str(f, NULL);
	fclose(f);
	CHECK_STR(buf, "\"x\\ufffd\\\"y\"\"\"");
	free(buf);
}

/* a pipe read to its end, a file whose size says 0, the size limit */
TEST(util_read_fd_and_file)
{
	char big[20000], *s = NULL;
	size_t len = 0;
	int p[2];

	memset(big, 'x', sizeof(big));
	CHECK(pipe(p) == 0);
	if (fork() == 0) {
		close(p[0]);
		for (int i = 0; i < 3; i++)
			if (write(p[1], big, sizeof(big)) != (ssize_t)sizeof(big))
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	CHECK_INT(util__read_fd(p[0], 0, &s, &len), 0);
	close(p[0]);
	wait(NULL);
	CHECK_INT(len, 3 * sizeof(big));
	CHECK(s[0] == 'x' && s[len - 1] == 'x' && s[len] == 0);
	free(s);
	CHECK_INT(util__read_file("/proc/self/stat", 0, &s, &len), 0);
	CHECK(len > 10 && strlen(s) == len);
	free(s);
	CHECK_INT(util__read_file("/proc/self/maps", 10, &s, &len), -EFBIG);
	CHECK(s == NULL);
	CHECK_INT(util__read_file("/nonexistent/x", 0, &s, &len), -ENOENT);
}

TEST(util_find_command)
{
	char buf[4096], *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	CHECK_INT(util__find_command("./x/y", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "./x/y");
	setenv("PATH", "/nonexistent-dir:/bin:/usr/bin", 1);
	CHECK_INT(util__find_command("sh", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "/bin/sh");
	CHECK_INT(util__find_command("no-such-command-t", buf, sizeof(buf)), -ENOENT);
	setenv("PATH", "/proc/self:/bin", 1);	/* /proc/self/fd is a directory, not a command */
	CHECK_INT(util__find_command("fd", buf, sizeof(buf)), -ENOENT);
	if (old)
		setenv("PATH", old, 1);
	else
		unsetenv("PATH");
	free(old);
}

TEST(util_grow)
{
	size_t cap = 0;
	int *v = NULL;

	CHECK_INT(util__grow(&v, &cap, 1, sizeof(*v), 4), 0);
	CHECK_INT((int)cap, 4);
	v[3] = 7;
	CHECK_INT(util__grow(&v, &cap, 4, sizeof(*v), 4), 0);	/* it fits: nothing moves */
	CHECK_INT((int)cap, 4);
	CHECK_INT(util__grow(&v, &cap, 5, sizeof(*v), 4), 0);	/* doubles */
	CHECK_INT((int)cap, 8);
	CHECK_INT(util__grow(&v, &cap, 40, sizeof(*v), 4), 0);	/* doubles until it fits */
	CHECK_INT((int)cap, 64);
	CHECK_INT(v[3], 7);
	CHECK_INT(util__grow(&v, &cap, (size_t)-1 / 2, sizeof(*v), 4), -ENOMEM);
	CHECK_INT((int)cap, 64);
	CHECK_INT(v[3], 7);
	free(v);
}

TEST(util_grow_mapped_and_huge_blocks)
{
	size_t cap = 0, last = 0;
	uint32_t *v = NULL;
	uint8_t *b = util__huge_block(1), *c = util__huge_block(3);

	/* grown from nothing past the size where it asks for huge pages: what was written stays */
	for (size_t need = 1; need < 3 * UTIL_HUGE_FROM / sizeof(*v); need = need * 3 + 1) {
		CHECK_INT(util__grow_mapped(&v, &cap, need, sizeof(*v)), 0);
		CHECK(cap >= need && cap * sizeof(*v) % UTIL_HUGE == 0);
		for (size_t i = last; i < need; i++)
			v[i] = (uint32_t)(i * 2654435761u);
		last = need;
		for (size_t i = 0; i < last; i += 4093)
			CHECK_INT(v[i] == (uint32_t)(i * 2654435761u), 1);
	}
	CHECK_INT(util__grow_mapped(&v, &cap, 1, sizeof(*v)), 0);	/* it fits: nothing moves */
	CHECK_INT(util__grow_mapped(&v, &cap, (size_t)-1 / 2, sizeof(*v)), -ENOMEM);
	CHECK_INT(v[last - 1] == (uint32_t)((last - 1) * 2654435761u), 1);
	util__free_mapped(v, cap, sizeof(*v));
	util__free_mapped(NULL, 0, sizeof(*v));
	/* blocks: aligned, zeroed, all of them writable */
	CHECK(b && c);
	CHECK_INT((int)((uintptr_t)b % UTIL_HUGE), 0);
	CHECK_INT((int)((uintptr_t)c % UTIL_HUGE), 0);
	CHECK_INT(b[0] | b[UTIL_HUGE - 1] | c[UTIL_HUGE / 2], 0);
	memset(b, 1, UTIL_HUGE);
	memset(c, 2, UTIL_HUGE);
	CHECK_INT(b[UTIL_HUGE - 1] + c[0], 3);
	util__huge_free(b);
	util__huge_free(c);
	util__huge_free(NULL);
	/* past a big input's size, from the first block on: still aligned and zeroed */
	util__big_input(UTIL_BIG_INPUT - 1);
	util__big_input(UTIL_BIG_INPUT);
	b = util__huge_block(1);
	CHECK(b && (uintptr_t)b % UTIL_HUGE == 0 && !b[0] && !b[UTIL_HUGE - 1]);
	util__huge_free(b);
}
