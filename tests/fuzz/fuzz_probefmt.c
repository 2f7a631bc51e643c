// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_probefmt.c - the values sonde probe's functions leave in records and
 * maps (buf, ntop, strerror, strftime, hist(n, k) buckets) come back from the
 * kernel as bytes: formatting corrupted ones, and any strftime format, must
 * never crash or read past the value.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"
#include "lang/output.h"
#include "ui/hist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fmtsite site = { .fmt = "%Y-%m-%d %H:%M:%S.%f" }, *sites[1] = { &site };
	struct program prog = { .sites = sites, .nsites = 1, .cfg = { .max_strlen = 64 } };
	struct out o = { .prog = &prog, .kstack_fd = -1, .ustack_fd = -1 };
	static const enum ty_kind kinds[] = { TY_BUF, TY_INET, TY_STRERROR, TY_TIMESTAMP };
	char *text = NULL, label[64];
	size_t tlen = 0;
	FILE *f;

	if (size < 1)
		return 0;
	uint8_t sel = data[0] % 6;

	data++;
	size--;
	if (sel == 4) {	/* a hist(n, k) bucket number from a map key */
		uint32_t b = 0;
		long long mn, mx;

		memcpy(&b, data, size < 4 ? size : 4);
		int k = 1 + (int)(b >> 28) % 5;

		b &= 0xfffffff;
		struct hist_bt h = { .k = k };

		hist__bt_label(&h, (int)(b % (((64 - k) << k) + 2)), label, sizeof(label));
		hist__bt_range(&h, (int)(b % (((64 - k) << k) + 2)), &mn, &mx);
		return 0;
	}
	if (sel == 5) {	/* a strftime format from the program */
		char *fmt = malloc(size + 1);
		uint64_t ns = 0;

		if (!fmt)
			return 0;
		memcpy(fmt, data, size);
		fmt[size] = 0;
		memcpy(&ns, data, size < 8 ? size : 8);
		free(fmt__strftime(fmt, ns, 1 + (int)(ns % 200)));
		free(fmt);
		return 0;
	}
	/* a value of the size its type says, from whatever bytes came */
	struct type t = { .kind = kinds[sel], .size = sel == 0 ? 8 + ((size + 7) & ~7u) : sel == 1 ? 24 : sel == 2 ? 8 : 16 };
	uint8_t *v = calloc(1, t.size);

	if (!v)
		return 0;
	memcpy(v, data, size < t.size ? size : t.size);
	f = open_memstream(&text, &tlen);
	if (f) {
		if (!fmt__value(&o, f, &t, v))
			abort();
		fclose(f);
	}
	free(text);
	free(v);
	return 0;
}
