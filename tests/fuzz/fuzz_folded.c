// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_folded.c - folded stacks from anywhere: the parser, the tree, and every
 * writer of it (SVG, speedscope, pprof, folded) must take any bytes without a
 * crash, a leak or a hang. The first byte picks the parser's flags and the
 * renderer's switches.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/export/export.h"
#include "lib/flame/flamegraph.h"
#include "lib/flame/folded.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flame_opts o;
	struct flame_result res;
	struct folded *f;
	char err[256], *buf = NULL;
	size_t len = 0;
	unsigned mode;
	FILE *in, *out;
	double sum = 0;

	if (size < 1)
		return 0;
	mode = data[0];
	f = folded__new((mode & 1 ? FOLDED_REVERSE : 0) | (mode & 2 ? FOLDED_FLAMECHART : 0) |
			(mode & 4 ? FOLDED_STRIP_HEX : 0));
	if (!f)
		return 0;
	in = fmemopen((void *)(data + 1), size - 1 ? size - 1 : 1, "r");
	if (in) {
		if (size > 1)
			folded__read(f, in, "fuzz", mode & 8 ? FOLDED_BEFORE : FOLDED_AFTER, NULL, NULL);
		fclose(in);
	}
	if (mode & 16)
		folded__normalize(f);
	folded__finish(f);
	for (uint32_t i = 0; i < folded__nr_nodes(f); i++)
		sum += folded__self(f, i);
	/* the root holds every count (sums of doubles: equal up to rounding) */
	if (fabsl(sum - folded__total(f)) > 1e-9 * (fabs(sum) > 1 ? fabs(sum) : 1))
		abort();

	out = open_memstream(&buf, &len);
	flame_opts__init(&o);
	o.inverted = mode & 32;
	o.flamechart = mode & 2;
	o.hash = mode & 64;
	o.minwidth = mode & 128 ? 0 : 0.1;
	o.colors = (mode & 0x30) == 0x30 ? "chain" : (mode & 0x30) == 0x20 ? "java" : "hot";
	flame__render(f, &o, out, &res, err, sizeof(err));
	fflush(out);
	if (buf && memmem(buf, len, "]]>", 3) != strstr(buf, "]]></script>"))
		abort();	/* input text never closes the script's CDATA */
	export__speedscope(f, out, "fuzz", "none", err, sizeof(err));
	export__pprof(f, out, "samples", "count", err, sizeof(err));
	fclose(out);
	free(buf);

	/* what folded__write prints reads back whole, to the same totals */
	if (!(mode & 2) && folded__total(f) < 1e15) {
		struct folded *g = folded__new(0);
		char *text = NULL;
		size_t tlen = 0;
		FILE *w = open_memstream(&text, &tlen), *r;
		long bad;

		folded__write(f, w, folded__is_diff(f) ? FOLDED_WRITE_DIFF : 0);
		fclose(w);
		/* a stack whose first frame starts with '#' reads back as a comment line:
		 * folded text cannot say it otherwise, so such output is not compared */
		bool comment = tlen && (text[0] == '#' || memmem(text, tlen, "\n#", 2));

		/* the reader also takes blanks then "# " as a comment line (a first frame " # x") */
		for (size_t i = 0; i < tlen && !comment; i++) {
			if (i && text[i - 1] != '\n')
				continue;
			size_t k = i;

			while (k < tlen && text[k] == ' ')
				k++;
			comment = k + 1 < tlen && text[k] == '#' && text[k + 1] == ' ';
		}

		/* nor can it keep blanks at the edge of a frame next to the count
		 * ("a;b\t 15" reads as the stack "a;b"): such names are left out too */
		for (size_t i = 0; i < tlen && !comment; i++)
			if (text[i] == '\t' || text[i] == '\v' || text[i] == '\f' || text[i] == '\r' ||
			    (text[i] == ' ' && i + 1 < tlen && (text[i + 1] == ' ' || text[i + 1] == ';')) ||
			    (text[i] == ';' && i + 1 < tlen && text[i + 1] == ' '))
				comment = true;

		if (tlen && g && !comment && (r = fmemopen(text, tlen, "r"))) {
			bad = folded__read(g, r, "again", FOLDED_AFTER, NULL, NULL);
			fclose(r);
			folded__finish(g);
			if (bad != 0 || fabsl(folded__total(g) - folded__total(f)) >
			    1e-6 * (folded__total(f) > 1 ? folded__total(f) : 1) + 1e-6 * folded__nr_nodes(f))
				abort();
		}
		free(text);
		folded__free(g);
	}
	folded__free(f);
	return 0;
}
