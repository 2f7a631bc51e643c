// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_plt.c - sonde ltrace's readers of outside input. The first byte picks:
 * 0: a whole ELF file through elf_obj__read_mem (its PLT stubs, SONAME,
 * DT_NEEDED, exports); 1: a -e filter chain, matched against a few names;
 * 2: a prototype signature, then its capture plan; 3: a printf format with
 * made-up arguments through lt_format__args. Whatever parses must be usable.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ltrace/filter.h"
#include "lib/ltrace/funcs.h"
#include "lib/ltrace/plt.h"
#include "lib/ltrace/proto.h"

static void elf(const uint8_t *d, size_t n)
{
	struct elf_obj o;

	if (elf_obj__read_mem(&o, d, n, "fuzz"))
		return;
	if (!o.soname || o.nr_plt < 0 || o.nr_needed < 0)
		abort();
	for (int i = 0; i < o.nr_plt; i++)
		if (!o.plt[i].name || !o.plt[i].name[0])
			abort();
	for (int i = 1; i < o.nr_exports; i++)
		if (strcmp(o.exports[i - 1], o.exports[i]) > 0)
			abort();
	for (int i = 0; i < o.nr_exports; i++)
		if (!elf_obj__defines(&o, o.exports[i]))
			abort();
	elf_obj__free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, err[256];
	struct lt_filter *f = NULL;
	struct lt_proto p;
	struct lt_plan pl;
	struct sbuf o = { 0 };

	if (size < 1)
		return 0;
	if (data[0] % 4 == 0) {
		elf(data + 1, size - 1);
		return 0;
	}
	if (!(s = strndup((const char *)data + 1, size - 1)))
		return 0;
	switch (data[0] % 4) {
	case 1:
		if (!lt_filter__parse(&f, s, err, sizeof(err))) {
			lt_filter__match(f, "malloc", "libc.so.6", "/lib/libc.so.6", false);
			lt_filter__match(f, "strlen", "prog", "/bin/prog", true);
			lt_filter__libraries(f);
		}
		lt_filter__free(f);
		break;
	case 2:
		if (!lt_proto__parse(s, &p)) {
			struct lt_val v[LT_MAX_ARGS] = { { 1, "%s%d", 5, false } };

			lt_plan__of(&p, &pl);
			if (pl.n > 3)
				abort();
			lt_format__args(&o, &p, v, 32);
			lt_format__value(&o, p.ret, v, 32);
		}
		break;
	case 3: {
		struct lt_val v[LT_MAX_ARGS] = { { 1, s, (int)strlen(s) + 1, false }, { 2, "ab", 3, false },
						 { 0, NULL, -1, false }, { 'x', NULL, -1, false } };

		lt_proto__parse("i(f)", &p);
		lt_format__args(&o, &p, v, 8);
		break;
	}
	}
	sbuf__free(&o);
	free(s);
	return 0;
}
