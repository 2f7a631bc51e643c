// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_bpftrace.c - bpftrace's printed maps (`sonde collapse`, `sonde flame`
 * on `sonde probe` output) must be folded or skipped, never crash, leak or
 * hang; the sniffer must hand every byte back. The first byte picks the
 * options: --offsets, --map @k, the slot.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/profile/collapse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct collapse_opts o = { 0 };
	struct collapse_stats st;
	struct folded *f;
	unsigned mode;
	FILE *in, *r;
	bool bt;

	if (size < 1)
		return 0;
	mode = data[0];
	data++;
	size--;
	o.offsets = mode & 1;
	o.map = mode & 2 ? "@k" : NULL;
	f = folded__new(mode & 4 ? FOLDED_STRIP_HEX : 0);
	if (!f)
		return 0;
	in = fmemopen((void *)data, size ? size : 1, "r");
	if (in) {
		if (size)
			collapse__bpftrace(f, in, &o, mode & 8 ? FOLDED_BEFORE : FOLDED_AFTER, NULL, NULL, &st);
		fclose(in);
	}
	folded__finish(f);
	folded__free(f);

	collapse__is_bpftrace((const char *)data, size, mode & 16);
	/* what the sniffer read is read again, then the rest, byte for byte */
	in = fmemopen((void *)data, size ? size : 1, "r");
	if (in && size && !collapse__sniff(in, &bt, &r)) {
		uint8_t *back = malloc(size + 1);
		size_t n = back ? fread(back, 1, size + 1, r) : size;

		if (back && (n != size || memcmp(back, data, size)))
			abort();
		free(back);
		fclose(r);
	}
	if (in)
		fclose(in);
	return 0;
}
