// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_gfpfmt.c - printf's %gr reads its GFP flag table from a tracepoint's
 * print fmt in tracefs (the C expressions of __print_flags): any text must give
 * a table or -1, never a crash or a read past its end; the flags of any value
 * then print within the buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lang/enumfmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gfpflag *t = NULL;
	char *copy = malloc(size ? size : 1), text[64];
	int n;

	if (!copy)
		return 0;
	memcpy(copy, data, size);	/* exactly size bytes: no NUL after them */
	n = enumfmt__gfp_parse(copy, size, &t);
	if (n > 0) {
		static const uint64_t vals[] = { 0, 1, 0xcc0, 0x820, 0xffffffff, ~0ULL };

		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			enumfmt__gfp_text(t, n, vals[i], text, sizeof(text));
			if (strlen(text) >= sizeof(text))
				abort();
		}
	} else if (t) {
		abort();
	}
	free(t);
	free(copy);
	return 0;
}
