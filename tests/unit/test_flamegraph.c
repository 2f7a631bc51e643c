// SPDX-License-Identifier: GPL-2.0
/*
 * test_flamegraph.c - the SVG renderer: golden files (tests/golden/flame-*.svg,
 * whose first line is the sonde command that writes the rest), escaping,
 * elision, palettes, the consistent palette file and option errors.
 */
#include "unit.h"
#include "lib/flame/flamegraph.h"
#include "lib/flame/flame_palette.h"
#include "lib/flame/folded.h"
#include "lib/export/export.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	int c;

	if (!f)
		return NULL;
	out = open_memstream(&buf, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, out);
	fclose(out);
	fclose(f);
	return buf;
}

/* tests run from the top of the tree; fall back to the build dir's parent */
static char *golden(const char *name)
{
	char path[4200];
	char *s;

	snprintf(path, sizeof(path), "tests/golden/%s", name);
	if ((s = slurp(path)))
		return s;
	snprintf(path, sizeof(path), "%s/../tests/golden/%s", unit__build_dir(), name);
	return slurp(path);
}

static struct folded *tree(const char *text, unsigned flags)
{
	struct folded *f = folded__new(flags);
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	folded__read(f, in, "t", FOLDED_AFTER, NULL, NULL);
	fclose(in);
	folded__finish(f);
	return f;
}

static char *render(struct folded *f, const struct flame_opts *o, struct flame_result *res, int *rc)
{
	char *buf = NULL, err[256] = "";
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	*rc = flame__render(f, o, out, res, err, sizeof(err));
	fclose(out);
	return buf;
}

/* compare with a golden file, minus its first line (the command that made it) */
static int same_as_golden(const char *name, const char *svg)
{
	char *g = golden(name);
	const char *body;
	int same;

	if (!g) {
		printf("   cannot read tests/golden/%s\n", name);
		return 0;
	}
	body = strchr(g, '\n');
	same = body && !strcmp(body + 1, svg);
	if (!same) {
		char path[4200];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s.actual", unit__build_dir(), name);
		if ((f = fopen(path, "w"))) {
			fputs(svg, f);
			fclose(f);
			printf("   differs from tests/golden/%s: see %s\n", name, path);
		}
	}
	free(g);
	return same;
}

TEST(flame_golden_default)
{
	char *in = golden("flame-simple.folded"), *svg;
	struct flame_opts o;
	struct flame_result res;
	struct folded *f;
	int rc;

	CHECK(in);
	f = tree(in, 0);
	flame_opts__init(&o);
	svg = render(f, &o, &res, &rc);
	CHECK_INT(rc, 0);
	CHECK_INT(res.elided, 0);
	CHECK(same_as_golden("flame-simple.svg", svg));
	free(svg);
	free(in);
	folded__free(f);
}

TEST(flame_golden_diff_icicle)
{
	char *in = golden("flame-diff.folded"), *svg;
	struct flame_opts o;
	struct flame_result res;
	struct folded *f;
	int rc;

	CHECK(in);
	f = tree(in, 0);
	flame_opts__init(&o);
	o.inverted = true;
	o.title = "Diff";
	o.subtitle = "before vs after";
	o.width = 600;
	svg = render(f, &o, &res, &rc);
	CHECK_INT(rc, 0);
	CHECK(same_as_golden("flame-diff.svg", svg));
	free(svg);
	free(in);
	folded__free(f);
}

TEST(flame_xml_escape)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	const char in[] = "a<b>&\"c'\x01 caf\xc3\xa9 \xff\xc3 \xed\xa0\x80 \xf0\x9f\x94\xa5";

	flame__xml_escape(out, in, sizeof(in) - 1);
	fclose(out);
	CHECK_STR(buf, "a&lt;b&gt;&amp;&quot;c&#39;\xef\xbf\xbd caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd "
		       "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xf0\x9f\x94\xa5");
	free(buf);
}

TEST(flame_minwidth_elides_and_counts)
{
	char *text = malloc(64 * 1000 + 64), *p = text, *svg;
	struct flame_opts o;
	struct flame_result res;
	struct folded *f;
	int rc;

	p += sprintf(p, "m;big 1000000\n");
	for (int i = 0; i < 1000; i++)
		p += sprintf(p, "m;s%d;leaf 1\n", i);
	f = tree(text, 0);
	flame_opts__init(&o);
	svg = render(f, &o, &res, &rc);
	CHECK_INT(rc, 0);
	CHECK_INT(res.drawn, 3);
	CHECK_INT(res.elided, 2000);
	CHECK(strstr(svg, "<!-- ELIDED: 2000 frames narrower than 0.1 px left out -->"));
	CHECK(strstr(svg, ">2000 frames under 0.1 px not drawn</text>"));
	free(svg);
	o.minwidth = 0;
	svg = render(f, &o, &res, &rc);
	CHECK_INT(res.drawn, 2003);
	CHECK(!strstr(svg, "ELIDED"));
	free(svg);
	free(text);
	folded__free(f);
}

TEST(flame_labels_truncated_with_dots)
{
	struct folded *f = tree("m;a_function_with_a_rather_long_name 1\nm;b 30\n", 0);
	struct flame_opts o;
	struct flame_result res;
	int rc;
	char *svg;

	flame_opts__init(&o);
	o.width = 320;	/* 300 px for 31 samples: the long one gets 9.68 px, one char */
	svg = render(f, &o, &res, &rc);
	CHECK_INT(rc, 0);
	CHECK(strstr(svg, "width=\"9.68\" height=\"15.0\" fill=\"rgb(") );
	CHECK(strstr(svg, "></text></g>\n"));	/* too narrow for 3 characters: no label */
	free(svg);
	o.width = 50;
	folded__free(f);
	f = tree("m;a_function_with_a_rather_long_name 30\n", 0);
	svg = render(f, &o, &res, &rc);
	/* 30 px / (12 * 0.59) = 4 characters: 2 and ".." */
	CHECK(strstr(svg, ">a_..</text>"));
	free(svg);
	folded__free(f);
}

TEST(flame_empty_and_bad_options)
{
	struct folded *f = tree("junk\n", 0);
	struct flame_opts o;
	struct flame_result res;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int rc;

	flame_opts__init(&o);
	CHECK_INT(flame__render(f, &o, out, &res, err, sizeof(err)), 0);
	fflush(out);
	CHECK(res.empty);
	CHECK(strstr(buf, "ERROR: No valid input provided to sonde flame."));
	o.colors = "plaid";
	CHECK_INT(flame__render(f, &o, out, &res, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "unknown palette 'plaid'"));
	flame_opts__init(&o);
	o.notes = "a -- b";
	rc = flame__render(f, &o, out, &res, err, sizeof(err));
	CHECK_INT(rc, -EINVAL);
	flame_opts__init(&o);
	o.width = 5;
	CHECK_INT(flame__render(f, &o, out, &res, err, sizeof(err)), -EINVAL);
	fclose(out);
	free(buf);
	folded__free(f);
}

TEST(flame_palettes_in_range)
{
	static const struct { const char *pal; int lo[3], hi[3]; } cases[] = {
		{ "hot", { 205, 0, 0 }, { 255, 230, 55 } },
		{ "mem", { 0, 190, 0 }, { 0, 240, 210 } },
		{ "io", { 80, 80, 190 }, { 140, 140, 245 } },
		{ "orange", { 190, 90, 0 }, { 255, 155, 0 } },
		{ "purple", { 190, 80, 190 }, { 255, 140, 255 } },
	};
	char name[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		int pal = flame_pal__parse(cases[i].pal);

		CHECK(pal >= 0);
		for (int k = 0; k < 300; k++) {
			int n = snprintf(name, sizeof(name), "func_%d", k);

			for (int how = 0; how < 3; how++) {
				struct rgb c = flame_pal__colour(pal, how, name, n, false);

				CHECK(c.r >= cases[i].lo[0] && c.r <= cases[i].hi[0]);
				CHECK(c.g >= cases[i].lo[1] && c.g <= cases[i].hi[1]);
				CHECK(c.b >= cases[i].lo[2] && c.b <= cases[i].hi[2]);
			}
		}
	}
	CHECK(flame_pal__parse("nope") < 0);
	/* differential: full red, full blue, white */
	CHECK(flame_pal__diff(10, 10).g == 0 && flame_pal__diff(10, 10).r == 255);
	CHECK(flame_pal__diff(-10, 10).r == 0 && flame_pal__diff(-10, 10).b == 255);
	CHECK(flame_pal__diff(0, 10).g == 255);
	CHECK(flame_pal__diff(5, 10).g == 105);
}

TEST(flame_consistent_palette_file)
{
	char path[] = "/tmp/sonde-cp-XXXXXX";
	int fd = mkstemp(path), rc;
	struct flame_cp *cp;
	struct rgb c;

	CHECK(fd >= 0);
	const char text[] = "known->rgb(1,2,3)\nnot a palette line\narrow->in->name->rgb(4,5,6)\n";

	CHECK(write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1);
	close(fd);
	cp = flame_cp__load(path, &rc);
	CHECK(cp && rc == 0);
	c = flame_cp__get(cp, "known", 5, (struct rgb){ 9, 9, 9 });
	CHECK(c.r == 1 && c.g == 2 && c.b == 3);
	c = flame_cp__get(cp, "arrow->in->name", 15, (struct rgb){ 9, 9, 9 });
	CHECK(c.r == 4);
	c = flame_cp__get(cp, "new", 3, (struct rgb){ 7, 8, 9 });
	CHECK(c.r == 7);
	CHECK_INT(flame_cp__save(cp, path), 0);
	flame_cp__free(cp);
	char *s = slurp(path);

	CHECK_STR(s, "arrow->in->name->rgb(4,5,6)\nknown->rgb(1,2,3)\nnew->rgb(7,8,9)\n");
	free(s);
	unlink(path);
}

/* speedscope's names are JSON strings: escapes, and U+FFFD for bytes that are not UTF-8 */
TEST(flame_speedscope_names)
{
	struct folded *f = folded__new(0);
	char *buf = NULL, err[128];
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	const char stack[] = "ma\"in;caf\xc3\xa9\t\xff";

	CHECK_INT(folded__add_stack(f, stack, sizeof(stack) - 1, 1, 0), 0);
	CHECK_INT(folded__finish(f), 0);
	CHECK_INT(export__speedscope(f, out, "p\\q", "none", err, sizeof(err)), 0);
	fclose(out);
	CHECK(strstr(buf, "\"name\":\"p\\\\q\""));
	CHECK(strstr(buf, "{\"name\":\"ma\\\"in\"}"));
	CHECK(strstr(buf, "{\"name\":\"caf\xc3\xa9\\t\\ufffd\"}"));
	free(buf);
	folded__free(f);
}

/* the SVG's numbers without printf: the same text as "%.1f" and "%.2f", ties included */
TEST(flame_fixed_is_printf)
{
	double special[] = { 0, -0.0, 0.125, 0.375, 2.675, 1.005, 0.05, 0.25, 0.15, -0.001, -0.125,
			     1189.995, 99.995, 1e14 + 0.5, 123456.785, 3.0, 1e15, -1e16, 1.0 / 3 };
	char a[64], b[64];
	unsigned seed = 1;

	for (int d = 1; d <= 2; d++) {
		for (size_t i = 0; i < sizeof(special) / sizeof(*special); i++) {
			double v = flame__fixed(a, sizeof(a), special[i], d);

			snprintf(b, sizeof(b), "%.*f", d, special[i]);
			CHECK_STR(a, b);
			CHECK(v == strtod(b, NULL) && !signbit(v) == !signbit(strtod(b, NULL)));
		}
		for (int i = 0; i < 200000; i++) {
			/* halves and quarters of hundredths (exact ties), and arbitrary values */
			double x = i % 2 ? (double)(rand_r(&seed) % 2000000) / 400 :
				   (double)rand_r(&seed) / RAND_MAX * (i % 3 ? 1300 : 1e9) - (i % 5 ? 0 : 600);
			double v = flame__fixed(a, sizeof(a), x, d);

			snprintf(b, sizeof(b), "%.*f", d, x);
			if (strcmp(a, b) || v != strtod(b, NULL)) {
				CHECK_STR(a, b);
				break;
			}
		}
	}
}

/* integer counts are written without printf: the same digits as "%.0Lf" */
TEST(flame_count_digits_are_printf)
{
	folded_count v[] = { 0, -0.0, 1, 9, 10, 999, 1000, 18446744073709551615.0L, 18446744073709551614.0L,
			     9223372036854775807.0L, 9223372036854775808.0L, 4294967296.0L };
	char a[64], b[64];

	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++) {
		folded__format_count(a, sizeof(a), v[i]);
		snprintf(b, sizeof(b), "%.0Lf", v[i]);
		CHECK_STR(a, b);
	}
}
