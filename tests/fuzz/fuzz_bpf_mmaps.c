// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_bpf_mmaps.c - perf side-band records (MMAP, MMAP2, COMM, FORK) as
 * `sonde offcpu` feeds them to the symbolizer: any bytes are rejected or
 * applied, never read past their end; then an address is resolved in every
 * process they named.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "lib/bpf/bpf_mmaps.h"
#include "lib/symbol/symbol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbolizer *s = symbolizer__new(0);
	uint8_t *copy = malloc(size ? size : 1);	/* exactly sized: ASan sees any overread */
	struct sym_frame f;

	if (!s || !copy)
		abort();
	memcpy(copy, data, size);
	bpf_mmaps__feed(s, copy, size);
	for (size_t off = 0; off + 16 <= size; off += 8) {
		const struct perf_event_header *h = (const void *)(copy + off);
		uint32_t pid;

		memcpy(&pid, copy + off + 8, 4);
		if (h->type == PERF_RECORD_MMAP2 || h->type == PERF_RECORD_MMAP)
			symbolizer__resolve(s, (pid_t)pid, 0x400000, false, &f, 1);
	}
	free(copy);
	symbolizer__free(s);
	return 0;
}
