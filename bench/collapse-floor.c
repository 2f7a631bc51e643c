// SPDX-License-Identifier: GPL-2.0
/*
 * collapse-floor.c - the least work a collapse of a perf.data file can do, for
 * bench/report.sh to set beside `cat` and `sonde collapse`: read the data
 * section once (pread into a buffer that stays in cache, as cat does), and for
 * every sample hash its thread and callchain into a table of counts. No
 * symbols, no time order, no output: what is left is reading and counting.
 * It prints the samples and distinct stacks it counted.
 *
 *   collapse-floor FILE        (a perf.data file of one event, not pipe mode)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct section { uint64_t offset, size; };
struct file_header {
	char magic[8];
	uint64_t size, attr_size;
	struct section attrs, data, event_types;
};

#define CHUNK (256 << 10)
#define MAX_RECORD 65536	/* a record's size is a u16 */

static uint64_t *keys, *counts;
static size_t cap = 1 << 16, used;

static void count(uint64_t h)
{
	size_t i;

	if (2 * (used + 1) > cap) {	/* grow at half full */
		uint64_t *ok = keys, *oc = counts;
		size_t ocap = cap;

		cap *= 2;
		keys = calloc(cap, sizeof(*keys));
		counts = calloc(cap, sizeof(*counts));
		if (!keys || !counts)
			exit(1);
		for (size_t j = 0; j < ocap; j++) {
			if (!ok[j])
				continue;
			for (i = ok[j] & (cap - 1); keys[i]; i = (i + 1) & (cap - 1))
				;
			keys[i] = ok[j], counts[i] = oc[j];
		}
		free(ok);
		free(oc);
	}
	for (i = h & (cap - 1); keys[i] && keys[i] != h; i = (i + 1) & (cap - 1))
		;
	if (!keys[i])
		keys[i] = h, used++;
	counts[i]++;
}

/* the 64-bit words of a sample before its callchain, by sample_type */
static int words_before_callchain(uint64_t st, int *tid_at)
{
	static const uint64_t order[] = { PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,
					  PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
					  PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD };
	int n = 0;

	*tid_at = -1;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(st & order[i]))
			continue;
		if (order[i] == PERF_SAMPLE_TID)
			*tid_at = n;
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	static unsigned char buf[CHUNK + MAX_RECORD];
	struct perf_event_attr attr = { 0 };
	struct file_header fh;
	uint64_t off, end, samples = 0;
	size_t have = 0, pos = 0;
	int fd, skip, tid_at;

	if (argc != 2 || (fd = open(argv[1], O_RDONLY)) < 0 || pread(fd, &fh, sizeof(fh), 0) != sizeof(fh) ||
	    memcmp(fh.magic, "PERFILE2", 8) || fh.attr_size < 8 + PERF_ATTR_SIZE_VER0 ||
	    pread(fd, &attr, PERF_ATTR_SIZE_VER0, fh.attrs.offset) != PERF_ATTR_SIZE_VER0) {
		fprintf(stderr, "usage: collapse-floor PERF.DATA (a perf.data file, not pipe mode)\n");
		return 2;
	}
	if (!(attr.sample_type & PERF_SAMPLE_CALLCHAIN) || (attr.sample_type & PERF_SAMPLE_READ)) {
		fprintf(stderr, "collapse-floor: the samples have no callchain (or a read group)\n");
		return 2;
	}
	skip = words_before_callchain(attr.sample_type, &tid_at);
	keys = calloc(cap, sizeof(*keys));
	counts = calloc(cap, sizeof(*counts));
	if (!keys || !counts)
		return 1;
	off = fh.data.offset;
	end = fh.data.offset + fh.data.size;
	for (;;) {
		const struct perf_event_header *h;

		if (have - pos < MAX_RECORD && off < end) {	/* keep a whole record ahead */
			size_t want = end - off < CHUNK ? end - off : CHUNK;
			ssize_t n;

			memmove(buf, buf + pos, have - pos);
			have -= pos, pos = 0;
			if ((n = pread(fd, buf + have, want, off)) <= 0)
				break;
			have += n, off += n;
		}
		if (have - pos < sizeof(*h))
			break;
		h = (const void *)(buf + pos);
		if (h->size < sizeof(*h) || h->size > have - pos)
			break;
		if (h->type == PERF_RECORD_SAMPLE && h->size >= sizeof(*h) + 8 * (skip + 1)) {
			const uint64_t *w = (const void *)(h + 1);
			uint64_t nr = w[skip], x = tid_at >= 0 ? w[tid_at] * 0x9E3779B97F4A7C15ull : 0;

			if (8 * (skip + 1 + nr) <= h->size - sizeof(*h)) {
				for (uint64_t i = 0; i < nr; i++) {
					x = (x ^ w[skip + 1 + i]) * 0xff51afd7ed558ccdull;
					x ^= x >> 29;
				}
				count(x | 1);
				samples++;
			}
		}
		pos += h->size;
	}
	printf("%llu samples, %zu stacks\n", (unsigned long long)samples, used);
	return 0;
}
