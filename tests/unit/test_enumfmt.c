// SPDX-License-Identifier: GPL-2.0
/* enumfmt.c's GFP table: read from a print fmt's __print_flags, printed as %pGg prints */
#include "unit.h"

#include "lang/enumfmt.h"

#include <stdlib.h>
#include <string.h>

static const char fmt[] = "print fmt: \"gfp_flags=%s\", (REC->gfp_flags) ? __print_flags(REC->gfp_flags, \"|\", "
	"{( unsigned long)((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | (( gfp_t)((((1UL))) << (6)))), \"GFP_NOFS\"}, "
	"{( unsigned long)(( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))), \"__GFP_RECLAIM\"}, "
	"{( unsigned long)(( gfp_t)((((1UL))) << (6))), \"__GFP_IO\"}, "
	"{( unsigned long)(( gfp_t)0x20), \"__GFP_HIGH\"}, {(0x3f & ~0x1e), \"ODD\"}) : \"none\"";

TEST(gfp_table_from_print_fmt)
{
	struct gfpflag *t;
	char buf[128];
	int n = enumfmt__gfp_parse(fmt, strlen(fmt), &t);

	CHECK_INT(n, 5);
	CHECK(t[0].mask == 0xc40);	/* 1<<10 | 1<<11 | 1<<6 */
	CHECK_STR(t[0].name, "GFP_NOFS");
	CHECK(t[1].mask == 0xc00);
	CHECK(t[3].mask == 0x20);
	CHECK(t[4].mask == 0x21);
	/* names in table order, each taking its bits; the rest as hex */
	enumfmt__gfp_text(t, n, 0xc40, buf, sizeof(buf));
	CHECK_STR(buf, "GFP_NOFS");
	enumfmt__gfp_text(t, n, 0xc60, buf, sizeof(buf));
	CHECK_STR(buf, "GFP_NOFS|__GFP_HIGH");
	enumfmt__gfp_text(t, n, 0xc00 | 0x40000, buf, sizeof(buf));
	CHECK_STR(buf, "__GFP_RECLAIM|0x40000");
	enumfmt__gfp_text(t, n, 0, buf, sizeof(buf));
	CHECK_STR(buf, "");
	enumfmt__gfp_text(t, n, 0x21, buf, sizeof(buf));
	CHECK_STR(buf, "__GFP_HIGH|0x1");	/* ODD's bits are gone once __GFP_HIGH took 0x20 */
	enumfmt__gfp_text(t, n, 0xc61, buf, 12);	/* cut to the buffer */
	CHECK_STR(buf, "GFP_NOFS|__");
	free(t);
}

TEST(gfp_table_corrupt)
{
	static const char *bad[] = {
		"no flags here", "__print_flags(REC->gfp_flags, \"|\",", "__print_flags(REC->gfp_flags, \"|\", {(1 << , \"A\"}",
		"__print_flags(REC->gfp_flags, \"|\", {((((((1)", "__print_flags(REC->gfp_flags, \"|\", {1, \"unterminated",
		"__print_flags(REC->gfp_flags, \"|\", {x, \"A\"}",
	};
	struct gfpflag *t;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(enumfmt__gfp_parse(bad[i], strlen(bad[i]), &t), -1);
		CHECK(t == NULL);
	}
	/* a good entry, then garbage: the entries before it */
	const char *part = "__print_flags(REC->gfp_flags, \"|\", {0x2, \"B\"}, {(1 <<, \"C\"}";

	CHECK_INT(enumfmt__gfp_parse(part, strlen(part), &t), 1);
	free(t);
}
