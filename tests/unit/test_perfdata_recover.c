// SPDX-License-Identifier: GPL-2.0
/*
 * test_perfdata_recover.c - recordings are never lost (issue 17): the writer keeps
 * an earlier file until the new one began (then as .old), its header is valid
 * while it writes, and the reader takes every complete record of a file whose
 * header was never finalised (sonde's: no features; perf's: data size 0).
 */
#include "unit.h"
#include "lib/perfdata/perfdata.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

static const struct perf_event_attr rattr = {
	.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK, .sample_type = RST,
	.freq = 1, .sample_freq = 99,
};

/* a 40-byte SAMPLE of event id 7 */
static void rsample(uint8_t *b, uint64_t time)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 40 };
	uint64_t v[4] = { 7, 0x400100 + time, 100 | (100ULL << 32), time };

	memcpy(b, &h, 8);
	memcpy(b + 8, v, 32);
}

static char *slurp(const char *p, size_t *n)
{
	FILE *f = fopen(p, "re");
	char *b = malloc(1 << 20);

	*n = f && b ? fread(b, 1, 1 << 20, f) : 0;
	if (f)
		fclose(f);
	return b;
}

static int count_tmp(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix)) && strstr(e->d_name, ".tmp.");
	if (d)
		closedir(d);
	return n;
}

static struct perfdata_writer *start(const char *p, int nsamples)
{
	struct perfdata_writer *w;
	uint64_t id = 7;
	uint8_t rec[40];
	char err[256];

	if (perfdata_writer__create(&w, p, err, sizeof(err)))
		return NULL;
	if (perfdata_writer__add_attr(w, &rattr, "cpu-clock", &id, 1) || perfdata_writer__begin(w)) {
		perfdata_writer__free(w);
		return NULL;
	}
	for (int i = 0; i < nsamples; i++) {
		rsample(rec, i + 1);
		perfdata_writer__write(w, rec, sizeof(rec));
		if (i % 100 == 99)
			perfdata_writer__finished_round(w);
	}
	return w;
}

TEST(perfdata_writer_keeps_the_earlier_file)
{
	char dir[] = "/tmp/sonde-unit-keep.XXXXXX", p[128], old[140], err[256];
	struct perfdata_writer *w;
	struct stat sb;
	size_t n;
	char *b;
	FILE *f;

	CHECK(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/x.data", dir);
	snprintf(old, sizeof(old), "%s.old", p);
	f = fopen(p, "we");
	CHECK(f);
	fputs("earlier", f);
	fclose(f);
	/* a recording that never began leaves no trace */
	CHECK((w = start(p, 3)) != NULL);
	CHECK_INT(count_tmp(dir, "x.data"), 1);
	perfdata_writer__free(w);
	b = slurp(p, &n);
	CHECK(n == 7 && !memcmp(b, "earlier", 7));
	free(b);
	CHECK_INT(count_tmp(dir, "x.data"), 0);
	CHECK(stat(old, &sb) != 0);
	/* one that began takes the name; the earlier one is .old */
	CHECK((w = start(p, 3)) != NULL);
	CHECK_INT(perfdata_writer__commit(w, err, sizeof(err)), 0);
	b = slurp(old, &n);
	CHECK(n == 7 && !memcmp(b, "earlier", 7));
	free(b);
	CHECK_INT(perfdata_writer__finish(w, err, sizeof(err)), 0);
	perfdata_writer__free(w);
	CHECK(stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0600);
	CHECK_INT(count_tmp(dir, "x.data"), 0);
	unlink(p);
	unlink(old);
	rmdir(dir);
}

/* the file as a killed record leaves it: what was written, then half a record */
static void check_unfinished(bool perf_style)
{
	char p[] = "/tmp/sonde-unit-unfin.XXXXXX", err[256], want[256];
	struct perfdata_writer *w;
	struct perfdata_reader *r;
	struct perfdata_reader_stats st;
	struct perfdata_event ev;
	uint64_t doff, dsize, zero = 0, flags[4] = { 0 };
	size_t n;
	char *b;
	int nev = 0;

	close(mkstemp(p));
	CHECK((w = start(p, 5)) != NULL);
	CHECK_INT(perfdata_writer__finish(w, err, sizeof(err)), 0);
	perfdata_writer__free(w);
	b = slurp(p, &n);
	unlink(p);
	memcpy(&doff, b + 40, 8);
	memcpy(&dsize, b + 48, 8);
	CHECK(doff + dsize + 20 <= n);
	/* cut after the data, in the middle of a copy of its first record */
	memcpy(b + doff + dsize, b + doff, 20);
	n = doff + dsize + 20;
	memcpy(b + 48, &zero, 8);
	if (!perf_style)
		memcpy(b + 72, flags, sizeof(flags));	/* sonde's: no features yet */
	CHECK_INT(perfdata_reader__open_mem(&r, b, n, err, sizeof(err)), 0);
	free(b);
	CHECK(perfdata_reader__warning(r) != NULL);
	/* the data starts at 104 + 8 + sizeof(attr) + 16; five samples of 40 bytes */
	snprintf(want, sizeof(want), "the recording was not finished: read 5 records; the last record, cut at "
		 "offset %#zx (20 of 40 bytes), was dropped", 104 + 8 + sizeof(struct perf_event_attr) + 16 + 200);
	CHECK_STR(perfdata_reader__warning(r), want);
	perfdata_reader__stats(r, &st);
	CHECK_INT(st.nr_samples, 5);
	while (perfdata_reader__next(r, &ev) == 1)
		nev++;
	CHECK_INT(nev, 5);
	CHECK(perfdata_reader__features(r)->hostname == NULL);
	perfdata_reader__free(r);
}

TEST(perfdata_reader_unfinished_sonde_file) { check_unfinished(false); }
TEST(perfdata_reader_unfinished_perf_file) { check_unfinished(true); }

TEST(perfdata_finished_empty_file_is_not_unfinished)
{
	char p[] = "/tmp/sonde-unit-empty.XXXXXX", err[256];
	struct perfdata_writer *w;
	struct perfdata_reader *r;

	close(mkstemp(p));
	CHECK((w = start(p, 0)) != NULL);
	CHECK_INT(perfdata_writer__finish(w, err, sizeof(err)), 0);
	perfdata_writer__free(w);
	CHECK_INT(perfdata_reader__open(&r, p, err, sizeof(err)), 0);
	unlink(p);
	CHECK(perfdata_reader__warning(r) == NULL);
	CHECK(perfdata_reader__features(r)->hostname != NULL);
	perfdata_reader__free(r);
}

/* while the writer works, the file on disk reads to its last round written out */
TEST(perfdata_header_valid_while_recording)
{
	char p[] = "/tmp/sonde-unit-live.XXXXXX", err[256];
	struct perfdata_writer *w;
	struct perfdata_reader *r;
	struct perfdata_reader_stats st;
	uint64_t dsize;
	size_t n;
	char *b;

	close(mkstemp(p));
	CHECK((w = start(p, 10000)) != NULL);	/* 400 KB: the 256 KB buffer went out once */
	CHECK_INT(perfdata_writer__commit(w, err, sizeof(err)), 0);
	b = slurp(p, &n);
	CHECK(n >= 256 * 1024 && !memcmp(b, "PERFILE2", 8));
	memcpy(&dsize, b + 48, 8);
	free(b);
	CHECK(dsize > 0 && dsize % (100 * 40 + 8) == 0);	/* whole rounds */
	CHECK_INT(perfdata_reader__open(&r, p, err, sizeof(err)), 0);
	perfdata_reader__stats(r, &st);
	CHECK(st.nr_samples > 6000 && st.nr_samples < 10000);
	CHECK(perfdata_reader__warning(r) != NULL);
	perfdata_reader__free(r);
	perfdata_writer__free(w);
	unlink(p);
}

/* the samples of a reading of b[0, n): -1 on an error, with it in err */
static long zcut_samples(const char *b, size_t n, char *err, size_t errlen)
{
	struct perfdata_reader *r;
	struct perfdata_reader_stats st;

	if (perfdata_reader__open_mem(&r, b, n, err, errlen))
		return -1;
	perfdata_reader__stats(r, &st);
	if (!perfdata_reader__warning(r) || !strstr(perfdata_reader__warning(r), "not finished")) {
		snprintf(err, errlen, "no warning at %zu bytes", n);
		perfdata_reader__free(r);
		return -1;
	}
	perfdata_reader__free(r);
	return (long)st.nr_samples;
}

/*
 * A killed record -z, cut anywhere near its end: every complete record before the
 * cut is read, the cut one dropped with the warning, never an error, and a shorter
 * file never gives more samples. Its end: a write of random samples too big for one
 * COMPRESSED record (one of them decompresses to half a sample), then small rounds.
 */
TEST(perfdata_reader_cut_compressed_recording)
{
	char p[] = "/tmp/sonde-unit-zcut.XXXXXX", err[256];
	struct perfdata_writer *w;
	uint64_t doff, dsize, zero = 0, flags[4] = { 0 }, seed = 42, id = 7;
	uint8_t *big = malloc(3000 * 40);
	size_t n, split = 0, len;
	long prev, cnt;
	char *b;

	CHECK(big);
	close(mkstemp(p));
	CHECK_INT(perfdata_writer__create(&w, p, err, sizeof(err)), 0);
	CHECK_INT(perfdata_writer__add_attr(w, &rattr, "cpu-clock", &id, 1), 0);
	CHECK_INT(perfdata_writer__set_compression(w, 1, 4096), 0);
	CHECK_INT(perfdata_writer__begin(w), 0);
	for (int i = 0; i < 3000; i++) {
		rsample(big + 40 * i, i + 1);
		for (int j = 8; j < 32; j += 8) {	/* ip, pid/tid: random, hardly compressible */
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			memcpy(big + 40 * i + 8 + j, &seed, 8);
		}
	}
	CHECK_INT(perfdata_writer__write(w, big, 3000 * 40), 0);
	CHECK_INT(perfdata_writer__finished_round(w), 0);
	for (int i = 0; i < 12; i++) {
		uint8_t rec[80];

		rsample(rec, 5000 + 2 * i);
		rsample(rec + 40, 5001 + 2 * i);
		CHECK_INT(perfdata_writer__write(w, rec, sizeof(rec)), 0);
		CHECK_INT(perfdata_writer__finished_round(w), 0);
	}
	CHECK_INT(perfdata_writer__finish(w, err, sizeof(err)), 0);
	perfdata_writer__free(w);
	b = slurp(p, &n);
	unlink(p);
	free(big);
	/* as killed: sonde's header without features, the records to the file's end */
	memcpy(&doff, b + 40, 8);
	memcpy(&dsize, b + 48, 8);
	CHECK(doff + dsize <= n);
	n = doff + dsize;
	memcpy(b + 48, &zero, 8);
	memcpy(b + 72, flags, sizeof(flags));
	/* where the record after a full one (64 KiB) starts: the big write went on there */
	for (size_t off = doff; off + 8 <= n; ) {
		struct perf_event_header h;

		memcpy(&h, b + off, 8);
		CHECK(h.size >= 8);
		if (h.type == PERFDATA_RECORD_COMPRESSED && h.size == 65535)
			split = off + h.size;
		off += h.size;
	}
	CHECK(split > doff && split + 600 < n);
	CHECK_INT(zcut_samples(b, n, err, sizeof(err)), 3024);
	prev = 3024;
	/* every cut in the last 600 bytes, then every one in the record that ends the big write */
	for (len = n - 1; len >= split - 16; len--) {
		if (len == n - 600)
			len = split + 400 < n - 600 ? split + 400 : len;
		cnt = zcut_samples(b, len, err, sizeof(err));
		if (cnt < 0)
			fprintf(stderr, "cut to %zu bytes: %s\n", len, err);
		CHECK(cnt >= 0);
		if (cnt > prev)
			fprintf(stderr, "cut to %zu bytes: %ld samples, %ld with a byte more\n", len, cnt, prev);
		CHECK(cnt <= prev);
		prev = cnt;
	}
	CHECK(prev < 3000);	/* cut inside the big write's records: what they held is partly gone */
	free(b);
}
