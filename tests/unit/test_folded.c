// SPDX-License-Identifier: GPL-2.0
/* test_folded.c - the folded-stack parser, the stack tree and folded output */
#include "unit.h"
#include "lib/flame/folded.h"

#include <stdlib.h>

static struct folded *parse(unsigned flags, const char *text, long *bad)
{
	struct folded *f = folded__new(flags);
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	*bad = folded__read(f, in, "test", FOLDED_AFTER, NULL, NULL);
	fclose(in);
	folded__finish(f);
	return f;
}

/* the folded text the tree writes back */
static char *written(struct folded *f, unsigned flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	folded__write(f, out, flags);
	fclose(out);
	return buf;
}

/* child of parent named name, or FOLDED_NONE */
static uint32_t child(struct folded *f, uint32_t parent, const char *name)
{
	for (uint32_t c = folded__node(f, parent)->child; c != FOLDED_NONE; c = folded__node(f, c)->next)
		if (!strcmp(folded__name(f, folded__node(f, c)->name, NULL), name))
			return c;
	return FOLDED_NONE;
}

TEST(folded_tree_merges_prefixes)
{
	long bad;
	struct folded *f = parse(0, "main;a;b 10\nmain;a;c 5\nmain;d 3\nmain;a;b 2\n", &bad);
	uint32_t main_, a, b;

	CHECK_INT(bad, 0);
	CHECK_INT(folded__nr_nodes(f), 6);	/* root main a b c d */
	CHECK(folded__total(f) == 20);
	main_ = child(f, 0, "main");
	CHECK(main_ != FOLDED_NONE);
	a = child(f, main_, "a");
	b = child(f, a, "b");
	CHECK(folded__subtotal(f, a) == 17 && folded__self(f, a) == 0);
	CHECK(folded__subtotal(f, b) == 12 && folded__self(f, b) == 12);
	CHECK_INT(folded__nr_stacks(f), 3);
	CHECK(!folded__is_diff(f));
	folded__free(f);
}

TEST(folded_siblings_sorted_by_name)
{
	long bad;
	struct folded *f = parse(0, "r;zeta 1\nr;alpha 1\nr;Mid 1\nr;alpha2 1\n", &bad);
	uint32_t r = child(f, 0, "r"), c = folded__node(f, r)->child;
	const char *want[] = { "Mid", "alpha", "alpha2", "zeta" };

	for (int i = 0; i < 4; i++, c = folded__node(f, c)->next) {
		CHECK(c != FOLDED_NONE);
		CHECK_STR(folded__name(f, folded__node(f, c)->name, NULL), want[i]);
	}
	CHECK(c == FOLDED_NONE);
	folded__free(f);
}

TEST(folded_siblings_sorted_as_flamegraph_pl_sorts_lines)
{
	long bad;
	/* "r;f_1443;x" < "r;f_144;x" ('3' < ';') but "r;f_144 1" < "r;f_1443 1" (' ' < '3') */
	struct folded *f = parse(0, "r;f_144;x 1\nr;f_1443;x 1\ns;f_144 1\ns;f_1443 1\n", &bad);
	uint32_t r = child(f, 0, "r"), s = child(f, 0, "s");

	CHECK_STR(folded__name(f, folded__node(f, folded__node(f, r)->child)->name, NULL), "f_1443");
	CHECK_STR(folded__name(f, folded__node(f, folded__node(f, s)->child)->name, NULL), "f_144");
	folded__free(f);
}

TEST(folded_malformed_lines)
{
	static const struct { const char *line, *why; } cases[] = {
		{ "main;a", "no count after the stack" },
		{ "main;a -5", "negative count" },
		{ "main;a x5", "the count is not a number" },
		{ "main;a 1e5", "the count is not a number" },
		{ "main;a .5", "the count is not a number" },
		{ "main;;a 5", "empty frame in the stack" },
		{ ";a 5", "empty frame in the stack" },
		{ "a; 5", "empty frame in the stack" },
		{ " 5", "empty stack" },
		{ "5", "no count after the stack" },
	};
	struct folded *f = folded__new(0);
	const char *why;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		CHECK_INT(folded__parse_line(f, cases[i].line, strlen(cases[i].line), FOLDED_AFTER, &why), 1);
		CHECK_STR(why, cases[i].why);
	}
	CHECK_INT(folded__parse_line(f, "a\0b 5", 5, FOLDED_AFTER, &why), 1);
	CHECK_STR(why, "NUL byte in the line");
	/* blank and "# " comment lines are skipped silently */
	CHECK_INT(folded__parse_line(f, "   \n", 4, FOLDED_AFTER, &why), 1);
	CHECK(why == NULL);
	CHECK_INT(folded__parse_line(f, "# comment 5", 11, FOLDED_AFTER, &why), 1);
	CHECK(why == NULL);
	folded__finish(f);
	CHECK(folded__total(f) == 0);
	folded__free(f);
}

static unsigned long warned_line;
static void on_warn(void *arg, const char *src, unsigned long lineno, const char *why)
{
	(void)arg, (void)src, (void)why;
	warned_line = lineno;
}

TEST(folded_read_reports_line_numbers)
{
	const char *text = "a 1\nb 2\nbroken\nc 3\n";
	struct folded *f = folded__new(0);
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	CHECK_INT(folded__read(f, in, "x", FOLDED_AFTER, on_warn, NULL), 1);
	CHECK_INT(warned_line, 3);
	fclose(in);
	folded__finish(f);
	CHECK(folded__total(f) == 6);
	folded__free(f);
}

TEST(folded_decimals_spaces_and_crlf)
{
	long bad;
	struct folded *f = parse(0, "main;do work;x 1.5\r\nmain;do work;x 2.\nmain;y\t0.25\n", &bad);
	uint32_t m = child(f, 0, "main");

	CHECK_INT(bad, 0);
	CHECK(folded__total(f) == 3.75);
	CHECK(child(f, m, "do work") != FOLDED_NONE);
	CHECK(folded__subtotal(f, child(f, m, "y")) == 0.25);
	folded__free(f);
}

/* counts are integers in the nodes until a fraction arrives: the values read stay the same */
TEST(folded_counts_move_from_integers_to_fractions)
{
	long bad;
	struct folded *f = parse(0, "main;a 18446744073709551613\nmain;b 1\n", &bad);
	uint32_t m = child(f, 0, "main"), a = child(f, m, "a");
	const char *fr[] = { "main", "b" };
	size_t fl[] = { 4, 1 };
	char *out;

	CHECK_INT(bad, 0);
	CHECK(folded__total(f) == 18446744073709551614.0L);
	CHECK(folded__self(f, a) == 18446744073709551613.0L);
	/* a fraction after millions of integers: those move over exactly */
	CHECK_INT(folded__add_frames(f, fr, fl, 2, 0.5, 0), 0);
	CHECK_INT(folded__finish(f), 0);
	CHECK(folded__total(f) == 18446744073709551614.5L);
	CHECK(folded__subtotal(f, m) == 18446744073709551614.5L);
	CHECK(folded__self(f, child(f, m, "b")) == 1.5);
	out = written(f, 0);
	CHECK_STR(out, "main;a 18446744073709551613\nmain;b 1.5\n");
	free(out);
	folded__free(f);

	/* add_frames is not held to the parser's 2^64-1: a sum past it rounds as a long double */
	f = folded__new(0);
	CHECK_INT(folded__add_frames(f, fr, fl, 2, FOLDED_COUNT_MAX, 0), 0);
	fr[1] = "c";
	CHECK_INT(folded__add_frames(f, fr, fl, 2, FOLDED_COUNT_MAX, 0), 0);
	CHECK_INT(folded__finish(f), 0);
	CHECK(folded__total(f) == 2 * FOLDED_COUNT_MAX);
	CHECK(folded__self(f, 2) == FOLDED_COUNT_MAX);
	CHECK_INT(folded__add_frames(f, fr, fl, 2, FOLDED_COUNT_MAX, 0), 0);
	CHECK_INT(folded__finish(f), 0);
	CHECK(folded__self(f, 3) == 2 * FOLDED_COUNT_MAX);
	folded__free(f);
}

TEST(folded_two_counts_make_a_diff)
{
	long bad;
	struct folded *f = parse(0, "main;a 10 30\nmain;b 30 10\nmain;do work 2 7\n", &bad);
	uint32_t m = child(f, 0, "main"), a = child(f, m, "a"), w = child(f, m, "do work");

	CHECK_INT(bad, 0);
	CHECK(folded__is_diff(f));
	CHECK(folded__total(f) == 47 && folded__total_before(f) == 42);
	CHECK(folded__self(f, a) == 30 && folded__before_self(f, a) == 10);
	/* the trailing-number ambiguity of the format: "do work 2 7" is 2 -> 7 */
	CHECK(w != FOLDED_NONE && folded__before_total(f, w) == 2);
	folded__free(f);
}

TEST(folded_diff_slots_and_normalize)
{
	struct folded *f = folded__new(0);
	const char *why;

	/* difffolded.pl -n: 10 -> 18 and 30 -> 54 with totals 50 and 90 */
	CHECK_INT(folded__parse_line(f, "m;a 10", 6, FOLDED_BEFORE, &why), 0);
	CHECK_INT(folded__parse_line(f, "m;b 30", 6, FOLDED_BEFORE, &why), 0);
	CHECK_INT(folded__parse_line(f, "m;c 10", 6, FOLDED_BEFORE, &why), 0);
	CHECK_INT(folded__parse_line(f, "m;a 90", 6, FOLDED_AFTER, &why), 0);
	folded__normalize(f);
	folded__finish(f);
	char *s = written(f, FOLDED_WRITE_DIFF);

	CHECK_STR(s, "m;a 18 90\nm;b 54 0\nm;c 18 0\n");
	free(s);
	folded__free(f);
}

TEST(folded_write_sorts_as_stackcollapse)
{
	long bad;
	/* byte order of whole stacks: "a" < "a-x" < "a;b" ('-' sorts before ';') */
	struct folded *f = parse(0, "a;b 1\na-x 2\na 3\na;b 4\nB 1\n", &bad);
	char *s = written(f, 0);

	CHECK_STR(s, "B 1\na 3\na-x 2\na;b 5\n");
	free(s);
	folded__free(f);
}

TEST(folded_add_frames_api)
{
	struct folded *f = folded__new(0);
	const char *fr[] = { "proc", "main", "sym with spaces", "leaf_[k]" };
	size_t len[] = { 4, 4, 15, 8 };
	char *s;

	CHECK_INT(folded__add_frames(f, fr, len, 4, 1001001, 0), 0);
	CHECK_INT(folded__add_frames(f, fr, len, 4, 1001001, 0), 0);
	CHECK_INT(folded__add_frames(f, fr, len, 2, 7, 0), 0);
	CHECK_INT(folded__add_stack(f, "proc;other", 10, 3, 0), 0);
	folded__finish(f);
	s = written(f, 0);
	CHECK_STR(s, "proc;main 7\nproc;main;sym with spaces;leaf_[k] 2002002\nproc;other 3\n");
	free(s);
	folded__free(f);
}

/*
 * Chains of only children are kept out of the lookup table until a second
 * child arrives; stacks added in any order, and after folded__finish() has
 * sorted the siblings, still land on one node each. 3,000 stacks under 100
 * parents (the table grows past its first size), every one added twice.
 */
TEST(folded_only_children_and_siblings_merge)
{
	struct folded *f = folded__new(0);
	char stack[64];
	uint32_t nodes = 0;
	int rounds[] = { 0, 1 };

	for (int r = 0; r < 2; r++) {
		for (int i = 0; i < 3000; i++) {
			int k = rounds[r] ? 2999 - i : i * 7 % 3000;
			int n = snprintf(stack, sizeof(stack), "p%d;c%d;x;y", k % 100, k);

			CHECK_INT(folded__add_stack(f, stack, (size_t)n, 1, 0), 0);
		}
		CHECK_INT(folded__finish(f), 0);
		if (r == 0)
			nodes = folded__nr_nodes(f);
	}
	/* root, 100 parents, 3,000 chains of three */
	CHECK_INT(nodes, 1 + 100 + 3 * 3000);
	CHECK_INT(folded__nr_nodes(f), nodes);
	CHECK(folded__total(f) == 6000);
	for (int k = 0; k < 3000; k += 299) {
		snprintf(stack, sizeof(stack), "p%d", k % 100);
		uint32_t p = child(f, 0, stack);

		snprintf(stack, sizeof(stack), "c%d", k);
		uint32_t c = child(f, p, stack);

		CHECK(c != FOLDED_NONE && folded__subtotal(f, c) == 2);
		CHECK(folded__self(f, child(f, child(f, c, "x"), "y")) == 2);
	}
	folded__free(f);
}

TEST(folded_reverse_and_flamechart)
{
	long bad;
	struct folded *f = parse(FOLDED_REVERSE, "a;b;c 2\nx;b;c 3\n", &bad);
	uint32_t c = child(f, 0, "c"), b = child(f, c, "b");

	CHECK(c != FOLDED_NONE && folded__subtotal(f, c) == 5);
	CHECK(child(f, b, "a") != FOLDED_NONE && child(f, b, "x") != FOLDED_NONE);
	folded__free(f);

	/* a flame chart merges only with the previous sibling, and keeps input order */
	f = parse(FOLDED_FLAMECHART, "m;z 1\nm;a 1\nm;a 2\nm;z 1\n", &bad);
	uint32_t m = child(f, 0, "m"), k = folded__node(f, m)->child;
	const char *want[] = { "z", "a", "z" };
	double tot[] = { 1, 3, 1 };

	for (int i = 0; i < 3; i++, k = folded__node(f, k)->next) {
		CHECK(k != FOLDED_NONE);
		CHECK_STR(folded__name(f, folded__node(f, k)->name, NULL), want[i]);
		CHECK(folded__subtotal(f, k) == tot[i]);
	}
	CHECK(k == FOLDED_NONE);
	folded__free(f);
}

TEST(folded_strip_hex)
{
	long bad;
	struct folded *f = parse(FOLDED_STRIP_HEX, "m;f+0x1a2b 1\nm;f+0xffff 2\nm;0x 1\n", &bad);
	char *s = written(f, 0);

	CHECK_STR(s, "m;0x 1\nm;f+0x... 3\n");
	free(s);
	folded__free(f);
}

TEST(folded_deep_stack_no_recursion)
{
	size_t n = 20000;
	char *line = malloc(n * 4 + 16), *p = line;
	struct folded *f = folded__new(0);
	const char *why;

	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s%zu", i ? ";" : "", i % 100);
	p += sprintf(p, " 7");
	CHECK_INT(folded__parse_line(f, line, p - line, FOLDED_AFTER, &why), 0);
	CHECK_INT(folded__finish(f), 0);
	CHECK_INT(folded__nr_nodes(f), n + 1);
	CHECK(folded__subtotal(f, 1) == 7);
	free(line);
	folded__free(f);
}

TEST(folded_format_count)
{
	char b[64];

	folded__format_count(b, sizeof(b), 42);
	CHECK_STR(b, "42");
	folded__format_count(b, sizeof(b), 1.5);
	CHECK_STR(b, "1.5");
	folded__format_count(b, sizeof(b), 123456789012.0);
	CHECK_STR(b, "123456789012");
	folded__format_count(b, sizeof(b), 1e20);
	CHECK_STR(b, "100000000000000000000");
	folded__format_count(b, sizeof(b), 0.000001);
	CHECK_STR(b, "0.000001");
}
