// SPDX-License-Identifier: GPL-2.0
/*
 * export_speedscope.c - folded stacks as speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json): shared.frames holds
 * each distinct name once, the single "sampled" profile lists every distinct
 * stack as indices into it, root first, with its count as the weight.
 * Frame index k is name id k of the tree, so no second table is needed.
 */
#include "lib/export/export.h"
#include "lib/util.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int export__speedscope(const struct folded *f, FILE *out, const char *name, const char *unit,
		       char *err, size_t errlen)
{
	uint32_t nnodes = folded__nr_nodes(f), *path = NULL;
	size_t cap = 0;
	bool first = true;
	char num[64];

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"sonde flame\",", out);
	fputs("\"name\":", out);
	util__json_str(out, name, strlen(name), false);
	fputs(",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", out);
	for (uint32_t k = 0; k < folded__nr_names(f); k++) {
		size_t len;
		const char *s = folded__name(f, k, &len);

		fputs(k ? ",\n{\"name\":" : "\n{\"name\":", out);
		util__json_str(out, s, len, false);
		fputc('}', out);
	}
	fputs("]},\"profiles\":[{\"type\":\"sampled\",\"name\":", out);
	util__json_str(out, name, strlen(name), false);
	fputs(",\"unit\":", out);
	util__json_str(out, unit, strlen(unit), false);
	folded__format_count(num, sizeof(num), folded__total(f));
	fprintf(out, ",\"startValue\":0,\"endValue\":%s,\"samples\":[", num);
	for (uint32_t i = 1; i < nnodes; i++) {
		size_t depth = 0;

		if (!(folded__self(f, i) > 0))
			continue;
		for (uint32_t p = i; p != 0; p = folded__node(f, p)->parent) {
			if (depth == cap) {
				size_t nc = cap ? cap * 2 : 64;
				uint32_t *np = realloc(path, sizeof(*np) * nc);

				if (!np) {
					free(path);
					snprintf(err, errlen, "out of memory");
					return -ENOMEM;
				}
				path = np;
				cap = nc;
			}
			path[depth++] = folded__node(f, p)->name;
		}
		fputs(first ? "\n[" : ",\n[", out);
		first = false;
		while (depth--)
			fprintf(out, depth ? "%u," : "%u", path[depth]);
		fputc(']', out);
	}
	fputs("],\"weights\":[", out);
	first = true;
	for (uint32_t i = 1; i < nnodes; i++) {
		if (!(folded__self(f, i) > 0))
			continue;
		folded__format_count(num, sizeof(num), folded__self(f, i));
		fprintf(out, first ? "%s" : ",%s", num);
		first = false;
	}
	fputs("]}]}\n", out);
	free(path);
	if (ferror(out)) {
		snprintf(err, errlen, "cannot write the speedscope file: %s", strerror(EIO));
		return -EIO;
	}
	return 0;
}
