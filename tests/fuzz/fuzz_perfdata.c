// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_perfdata.c - the perf.data reader must refuse truncated, corrupted or
 * hostile files with one line naming the problem, never crash, hang or read
 * outside the file. Every pointer it hands out is touched so ASan sees misuse.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/perfdata/perfdata.h"
#include "lib/perfdata/tracedata.h"

static volatile uint64_t sink;

/* every pointer of a decoded record */
static int touch(const struct perfdata_event *ev, void *ctx)
{
	(void)ctx;
	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		for (uint64_t i = 0; i < ev->sample.nr_callchain; i++)
			sink += ev->sample.callchain[i];
		for (uint64_t i = 0; i < ev->sample.nr_user_regs; i++)
			sink += ev->sample.user_regs[i];
		for (uint64_t i = 0; i < ev->sample.user_stack_size; i++)
			sink += ev->sample.user_stack[i];
		for (uint32_t i = 0; i < ev->sample.raw_size; i++)
			sink += ev->sample.raw[i];
		for (uint64_t i = 0; i < ev->sample.nr_branch; i++)
			sink += ev->sample.branch[i].from;
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		sink += strlen(ev->mmap.filename);
		if (ev->mmap.build_id)
			sink += ev->mmap.build_id[ev->mmap.build_id_size ? ev->mmap.build_id_size - 1 : 0];
		break;
	case PERF_RECORD_COMM:
		sink += strlen(ev->comm.comm);
		break;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfdata_reader *r;
	struct perfdata_event ev;
	const struct perfdata_features *f;
	const struct perfdata_attr *a;
	char err[256] = "";
	int nr, rc;
	/* the same bytes as a ring buffer's records, as top decodes them */
	struct perfdata_attr ring = { .attr = { .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
						PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW,
					.sample_id_all = 1 } };

	perfdata__parse_records(&ring, data, size, touch, NULL);
	if (perfdata_reader__open_mem(&r, data, size, err, sizeof(err)) < 0) {
		if (!err[0] || strchr(err, '\n'))
			abort();	/* every refusal is one line that says why */
		return 0;
	}
	a = perfdata_reader__attrs(r, &nr);
	for (int i = 0; i < nr; i++) {
		sink += strlen(a[i].name);
		for (size_t j = 0; j < a[i].nr_ids; j++)
			sink += a[i].ids[j];
	}
	f = perfdata_reader__features(r);
	for (uint32_t i = 0; i < f->nr_cmdline; i++)
		sink += strlen(f->cmdline[i]);
	for (size_t i = 0; i < f->nr_build_ids; i++)
		sink += strlen(f->build_ids[i].filename) + f->build_ids[i].id[19];
	if (f->hostname)
		sink += strlen(f->hostname);
	if (f->tracing_data) {
		struct tracedata *t;

		/* formats from the file (libtraceevent parses them); hostile ones must not crash */
		if (tracedata__new(&t, f->tracing_data, f->tracing_data_size, err, sizeof(err)) == 0) {
			uint8_t raw[64] = { 0 };
			char buf[512];

			for (int i = 0; i < nr; i++) {
				uint16_t type = (uint16_t)a[i].attr.config;

				memcpy(raw, &type, sizeof(type));
				tracedata__format(t, a[i].attr.config, raw, sizeof(raw), 0, 0, buf, sizeof(buf));
			}
			tracedata__free(t);
		} else if (!err[0] || strchr(err, '\n')) {
			abort();
		}
	}
	while ((rc = perfdata_reader__next(r, &ev)) != 0) {
		if (rc < 0) {
			if (!strstr(perfdata_reader__error(r), "offset"))
				abort();
			continue;
		}
		touch(&ev, NULL);
	}
	perfdata_reader__free(r);
	return 0;
}
