// SPDX-License-Identifier: GPL-2.0
/* test_sbuf.c - lib/sbuf.h: a growing string */
#include "unit.h"
#include "lib/sbuf.h"

#include <stdlib.h>
#include <string.h>

TEST(sbuf_grows_past_its_first_allocation)
{
	struct sbuf b = { 0 };
	char *s;

	sbuf__puts(&b, "ab");
	sbuf__printf(&b, "%d-%s", 12, "x");
	CHECK_STR(b.buf, "ab12-x");
	/* a printf longer than the room left: formatted again into a larger buffer */
	sbuf__printf(&b, "%600s|", "y");
	CHECK_INT((int)b.len, 6 + 601);
	CHECK_INT((int)strlen(b.buf), 6 + 601);
	CHECK(!strncmp(b.buf, "ab12-x    ", 10));
	CHECK_STR(b.buf + b.len - 2, "y|");
	sbuf__add(&b, "zzz", 2);
	CHECK_STR(b.buf + b.len - 3, "|zz");
	CHECK(!b.oom);
	s = sbuf__take(&b);
	CHECK_INT((int)strlen(s), 6 + 601 + 2);
	CHECK(!b.buf && !b.len && !b.cap);
	free(s);
}

TEST(sbuf_reset_and_oom)
{
	struct sbuf b = { 0 };

	sbuf__printf(&b, "%s", "");
	CHECK_STR(b.buf, "");
	sbuf__puts(&b, "one");
	sbuf__reset(&b);
	sbuf__puts(&b, "two");
	CHECK_STR(b.buf, "two");
	b.oom = true;	/* a failed allocation before: writes do nothing, take gives NULL */
	sbuf__puts(&b, "three");
	CHECK_STR(b.buf, "two");
	sbuf__reset(&b);	/* a new text: written again */
	sbuf__puts(&b, "four");
	CHECK_STR(b.buf, "four");
	b.oom = true;
	CHECK(!sbuf__take(&b));
	CHECK(!b.buf && !b.oom);
	sbuf__free(&b);
}
