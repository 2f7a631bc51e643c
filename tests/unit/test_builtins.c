// SPDX-License-Identifier: GPL-2.0
/* test_builtins.c - the builtin functions' table (src/lang/builtins/) and the depth bounds of programs */
#include "unit.h"

#include "lang/builtins/builtins.h"
#include "lang/lang.h"

#include <stdlib.h>
#include <string.h>

static const struct builtin *const families[] = {
	builtins_output, builtins_maps, builtins_strings, builtins_stacks, builtins_time, builtins_net,
	builtins_task, builtins_types, builtins_packets,
};

/* every row is whole, found by its name, and its id leads back to a row with the same hooks */
TEST(builtins_rows_are_whole_and_found)
{
	int rows = 0;

	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++)
		for (const struct builtin *b = families[f]; b->name; b++, rows++) {
			struct node n = { .kind = N_CALL, .op = (int)b->id };
			const struct builtin *of = builtin__of(&n);

			CHECK(b->check != NULL);
			CHECK(b->min_args >= 0 && b->min_args <= b->max_args);
			CHECK(b->id > 0 && b->id < F_END);
			CHECK(builtin__func(b->name) == b);	/* no name twice */
			CHECK(of && of->id == b->id && of->check == b->check && of->gen_int == b->gen_int &&
			      of->gen_stmt == b->gen_stmt);
			CHECK(!(b->flags & BF_AGG) || b->agg > 0);
		}
	CHECK(rows >= 80);
	CHECK(builtin__func("no_such_function") == NULL);
}

/* every id of enum bfunc has a row */
TEST(builtins_every_id_has_a_row)
{
	for (int id = 1; id < F_END; id++) {
		struct node n = { .kind = N_CALL, .op = id };

		CHECK(builtin__of(&n) != NULL);
	}
}

static int depth_error(const char *src, const char *want)
{
	struct program *p = lang__new("t.bt", src, strlen(src));
	int rc = lang__parse(p);
	int ok = rc && p->err && strstr(p->err, want);

	lang__free(p);
	return ok;
}

static char *repeat(const char *pre, const char *unit, int n, const char *post)
{
	size_t lp = strlen(pre), lu = strlen(unit), lq = strlen(post);
	char *s = malloc(lp + lu * n + lq + 1), *o = s;

	memcpy(o, pre, lp);
	o += lp;
	for (int i = 0; i < n; i++, o += lu)
		memcpy(o, unit, lu);
	memcpy(o, post, lq + 1);
	return s;
}

TEST(lang_nesting_and_depth_are_bounded)
{
	char *parens = repeat("BEGIN { $x = ", "(", 5000, "1");
	char *chain = repeat("BEGIN { $x = 1", "+1", 3000, "; }");
	char *ok = repeat("BEGIN { $x = 1", "+1", 1000, "; }");
	struct program *p = lang__new("t.bt", ok, strlen(ok));

	CHECK(depth_error(parens, "nested more than 200 levels deep"));
	CHECK(depth_error(chain, "more than the 2000 sonde allows"));
	CHECK_INT(lang__parse(p), 0);	/* a long chain under the bound parses */
	lang__free(p);
	free(parens);
	free(chain);
	free(ok);
}
