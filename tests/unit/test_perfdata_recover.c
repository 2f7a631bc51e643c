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
