// SPDX-License-Identifier: GPL-2.0
/*
 * test_perfdata_order.c - the reader hands out records by time, and records of
 * one time in file order, whatever runs the file holds them in: CPU buffers
 * written round after round, each in order, interleaved (the reader merges
 * those runs instead of sorting the whole).
 */
#include "unit.h"
#include "lib/perfdata/perfdata.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

/* a sample of ST: ip says which one it is */
static void sample(uint8_t *b, uint64_t ip, uint64_t time, uint32_t cpu)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 48 };
	uint64_t v[5] = { 7, ip, 100 | (uint64_t)101 << 32, time, cpu };

	memcpy(b, &h, 8);
	memcpy(b + 8, v, 40);
}

/* a new recording of cpu-clock samples (ST) at path (a mkstemp template), begun; NULL on failure */
static struct perfdata_writer *order_begin(char *path)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
				     .sample_type = ST, .sample_id_all = 1, .sample_period = 1000 };
	struct perfdata_writer *w;
	uint64_t id = 7;
	char err[256];
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	close(fd);
	if (perfdata_writer__create(&w, path, err, sizeof(err)))
		return NULL;
	perfdata_writer__add_attr(w, &a, "cpu-clock", &id, 1);
	if (perfdata_writer__begin(w)) {
		perfdata_writer__free(w);
		return NULL;
	}
	return w;
}

/* w finished, then read back: every sample by time, those of one time by ip (their place), n of them */
static void order_check(struct perfdata_writer *w, char *path, uint64_t n)
{
	uint64_t seen = 0, last_t = 0, last_ip = 0;
	struct perfdata_reader *r;
	struct perfdata_event ev;
	char err[256];

	CHECK_INT(perfdata_writer__finish(w, err, sizeof(err)), 0);
	perfdata_writer__free(w);
	CHECK_INT(perfdata_reader__open(&r, path, err, sizeof(err)), 0);
	while (perfdata_reader__next(r, &ev) == 1) {
		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		CHECK(seen == 0 || ev.time > last_t || (ev.time == last_t && ev.sample.ip > last_ip));
		last_t = ev.time;
		last_ip = ev.sample.ip;
		seen++;
	}
	perfdata_reader__free(r);
	unlink(path);
	CHECK_INT(seen, n);
}

TEST(perfdata_reader_merges_runs_in_time_order)
{
	char path[64] = "/tmp/sonde-unit-order.XXXXXX";
	struct perfdata_writer *w = order_begin(path);
	uint64_t n = 0, t;
	uint8_t b[48];

	CHECK(w);
	if (!w)
		return;
	/*
	 * 40 rounds of 3 CPUs' buffers, each buffer in time order, the CPUs'
	 * times interleaved and some equal; ip = the record's place in the file
	 */
	for (int round = 0; round < 40; round++) {
		for (uint32_t cpu = 0; cpu < 3; cpu++)
			for (uint32_t i = 0; i < 25 + cpu * 10; i++) {
				t = round * 1000 + i * (cpu + 2) * 3 / 2;
				sample(b, n++, t, cpu);
				perfdata_writer__write(w, b, sizeof(b));
			}
		perfdata_writer__finished_round(w);
	}
	order_check(w, path, n);
}

/* runs of random lengths that overlap a little, a lot or not at all, equal times too */
TEST(perfdata_reader_merges_random_runs)
{
	char path[64] = "/tmp/sonde-unit-order.XXXXXX";
	struct perfdata_writer *w = order_begin(path);
	uint64_t n = 0, t, base = 1000000;
	uint8_t b[48];

	CHECK(w);
	if (!w)
		return;
	srandom(42);
	for (int run = 0; run < 300; run++) {
		uint32_t len = 1 + random() % 200, step = 1 + random() % 5;

		base += random() % 3 == 0 ? 1000 : 0;			/* sometimes past all before */
		t = base - (random() % 2 ? random() % 600 : 0);		/* sometimes far back */
		for (uint32_t i = 0; i < len; i++, t += step * (random() % 4 != 0)) {
			sample(b, n++, t, run & 1);
			perfdata_writer__write(w, b, sizeof(b));
		}
	}
	order_check(w, path, n);
}

/* the resident size of the mapping of path in this process, in KB; -1 when it is not mapped */
static long mapped_kb(const char *path)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false;
	long kb = -1, v;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '-') && strstr(line, path))
			in = true;
		else if (in && sscanf(line, "Rss: %ld kB", &v) == 1) {
			kb = kb < 0 ? v : kb + v;
			in = false;
		}
	}
	fclose(f);
	return kb;
}

/*
 * reading a recording keeps a window of it resident, not the whole file: here 24 MB of
 * samples and, as perf writes it, a LOST_SAMPLES record at the end stamped 0, which the
 * time order reads first
 */
TEST(perfdata_reader_keeps_a_window_resident)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
				     .sample_type = ST, .sample_id_all = 1, .sample_period = 1000 };
	uint64_t id = 7, n = 0, seen = 0;
	struct perfdata_writer *w;
	struct perfdata_reader *r;
	struct perfdata_event ev;
	char path[64] = "/tmp/sonde-unit-window.XXXXXX", err[256];
	static uint8_t b[48 * 4096];
	int fd = mkstemp(path);
	long kb;

	CHECK(fd >= 0);
	close(fd);
	CHECK_INT(perfdata_writer__create(&w, path, err, sizeof(err)), 0);
	perfdata_writer__add_attr(w, &a, "cpu-clock", &id, 1);
	CHECK_INT(perfdata_writer__begin(w), 0);
	for (int chunk = 0; chunk < 128; chunk++) {
		for (int i = 0; i < 4096; i++, n++)
			sample(b + 48 * i, n, n + 1, 0);
		perfdata_writer__write(w, b, sizeof(b));
	}
	{	/* LOST_SAMPLES: lost, then the sample_id trailer (tid, time 0, cpu, identifier) */
		struct perf_event_header h = { PERF_RECORD_LOST_SAMPLES, 0, 48 };
		uint64_t v[5] = { 3, 100 | (uint64_t)101 << 32, 0, 0, 7 };

		memcpy(b, &h, 8);
		memcpy(b + 8, v, 40);
		perfdata_writer__write(w, b, 48);
	}
	CHECK_INT(perfdata_writer__finish(w, err, sizeof(err)), 0);
	perfdata_writer__free(w);
	CHECK_INT(perfdata_reader__open(&r, path, err, sizeof(err)), 0);
	CHECK_INT(perfdata_reader__next(r, &ev), 1);
	CHECK_INT(ev.type, PERF_RECORD_LOST_SAMPLES);
	while (perfdata_reader__next(r, &ev) == 1)
		seen += ev.type == PERF_RECORD_SAMPLE;
	CHECK_INT(seen, n);
	kb = mapped_kb(path);
	CHECK(kb >= 0 && kb < 6 * 1024);
	if (kb >= 6 * 1024)
		fprintf(stderr, "   %ld KB of the 24 MB recording resident\n", kb);
	perfdata_reader__free(r);
	unlink(path);
}
