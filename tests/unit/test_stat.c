// SPDX-License-Identifier: GPL-2.0
/* test_stat.c - derived metrics, repeat statistics and perf stat's layouts */
#include "unit.h"
#include "lib/event/statmodel.h"
#include "lib/proc/target.h"
#include "ui/stat_print.h"

#include <math.h>
#include <stdlib.h>

/* a model with made-up counts, as if read from the kernel */
static void fake_model(struct stat_model *m, struct evlist *l, const char *events,
		       const double *vals, const unsigned long long *run, const unsigned long long *ena)
{
	char err[256];

	memset(m, 0, sizeof(*m));
	memset(l, 0, sizeof(*l));
	if (evlist__parse(l, events, err, sizeof(err)))
		printf("   parse: %s\n", err);
	m->evl = l;
	m->aggr = AGGR_GLOBAL;
	m->nr_units = 1;
	m->unit_id = calloc(1, sizeof(int));
	m->unit_label = calloc(1, sizeof(char *));
	m->unit_label[0] = strdup("");
	m->cell = calloc(l->nr, sizeof(*m->cell));
	m->supported = calloc(l->nr, sizeof(bool));
	for (int i = 0; i < l->nr; i++) {
		m->supported[i] = vals[i] >= -1.5;	/* -2: not supported */
		m->cell[i].val = vals[i] < 0 ? -1 : vals[i];
		m->cell[i].run = run ? run[i] : 1000;
		m->cell[i].ena = ena ? ena[i] : 1000;
	}
}

static char *render(const struct stat_model *m, enum stat_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct stat_print p = { .out = f, .fmt = fmt, .sep = ",", .runs = 1 };

	stat_print__rows(&p, m, -1);
	fclose(f);
	return buf;
}

TEST(stat_metrics)
{
	struct stat_model m;
	struct evlist l;
	struct stat_metric mt;
	/* 2 ms of task-clock in 4 ms wall; 3000 cycles, 6000 instructions, 100 branches, 5 misses */
	double v[] = { 2e6, 3e9, 6e9, 100, 5, 1000, 10, 4 };

	fake_model(&m, &l, "task-clock,cycles,instructions,branches,branch-misses,cache-references,cache-misses,page-faults", v, NULL, NULL);
	m.wall_ns = 4e6;
	statmodel__metric(&m, 0, 0, &mt);
	CHECK(mt.has);
	CHECK_STR(mt.unit, "CPUs utilized");
	CHECK(fabs(mt.value - 0.5) < 1e-9);
	statmodel__metric(&m, 1, 0, &mt);
	CHECK_STR(mt.unit, "GHz");
	CHECK(fabs(mt.value - 1500.0) < 1e-6);	/* 3e9 cycles in 2 ms */
	statmodel__metric(&m, 2, 0, &mt);
	CHECK_STR(mt.unit, "insn per cycle");
	CHECK(fabs(mt.value - 2.0) < 1e-9);
	statmodel__metric(&m, 3, 0, &mt);
	CHECK_STR(mt.unit, "K/sec");		/* 100 per 2 ms = 50 K/sec */
	CHECK(fabs(mt.value - 50.0) < 1e-9);
	statmodel__metric(&m, 4, 0, &mt);
	CHECK_STR(mt.unit, "of all branches");
	CHECK(fabs(mt.value - 5.0) < 1e-9);
	statmodel__metric(&m, 6, 0, &mt);
	CHECK_STR(mt.unit, "of all cache refs");
	CHECK(fabs(mt.value - 1.0) < 1e-9);
	statmodel__metric(&m, 7, 0, &mt);
	CHECK_STR(mt.unit, "K/sec");
	CHECK(fabs(mt.value - 2.0) < 1e-9);
	statmodel__free(&m);
	evlist__free(&l);
}

TEST(stat_no_clock_no_rate)
{
	struct stat_model m;
	struct evlist l;
	struct stat_metric mt;
	double v[] = { 7 };

	fake_model(&m, &l, "context-switches", v, NULL, NULL);
	statmodel__metric(&m, 0, 0, &mt);
	CHECK(!mt.has);
	statmodel__free(&m);
	evlist__free(&l);
}

TEST(stat_text_layout_matches_perf)
{
	struct stat_model m;
	struct evlist l;
	double v[] = { 1490000, 2, 101, -2 };
	char *out;

	fake_model(&m, &l, "task-clock,context-switches,page-faults,cycles", v, NULL, NULL);
	m.wall_ns = 3028455.0;
	out = render(&m, STAT_STD);
	/* perf 6.1's lines for `perf stat ls` on this machine, byte for byte */
	CHECK_STR(out,
		  "              1.49 msec task-clock                       #    0.492 CPUs utilized          \n"
		  "                 2      context-switches                 #    1.342 K/sec                  \n"
		  "               101      page-faults                      #   67.785 K/sec                  \n"
		  "   <not supported>      cycles                                                      \n");
	free(out);
	out = render(&m, STAT_CSV);
	CHECK_STR(out,
		  "1.49,msec,task-clock,1000,100.00,0.492,CPUs utilized\n"
		  "2,,context-switches,1000,100.00,1.342,K/sec\n"
		  "101,,page-faults,1000,100.00,67.785,K/sec\n"
		  "<not supported>,,cycles,0,100.00,,\n");
	free(out);
	statmodel__free(&m);
	evlist__free(&l);
}

TEST(stat_multiplexed_share_shown)
{
	struct stat_model m;
	struct evlist l;
	double v[] = { 1000 };
	unsigned long long run[] = { 250 }, ena[] = { 1000 };
	char *out;

	fake_model(&m, &l, "instructions", v, run, ena);
	out = render(&m, STAT_STD);
	CHECK(strstr(out, "  (25.00%)\n") != NULL);
	free(out);
	out = render(&m, STAT_CSV);
	CHECK_STR(out, "1000,,instructions,250,25.00,,\n");
	free(out);
	out = render(&m, STAT_JSON);
	CHECK(strstr(out, "\"pcnt-running\" : 25.00") != NULL);
	CHECK(strstr(out, "\"counter-value\" : \"1000.000000\"") != NULL);
	free(out);
	statmodel__free(&m);
	evlist__free(&l);
}

TEST(stat_scaling_and_runstat)
{
	struct counter_val v = { 100, 1000, 250 };
	struct runstat rs = { 0 };

	CHECK(fabs(counter_val__scaled(v) - 400.0) < 1e-9);
	v.run = 0;
	CHECK(counter_val__scaled(v) < 0);
	runstat__add(&rs, 1.0);
	runstat__add(&rs, 2.0);
	runstat__add(&rs, 3.0);
	CHECK(fabs(rs.mean - 2.0) < 1e-12);
	/* sample stddev 1, of the mean 1/sqrt(3) */
	CHECK(fabs(runstat__stddev_mean(&rs) - 1.0 / sqrt(3.0)) < 1e-12);
	CHECK(fabs(runstat__rel_pct(&rs) - 100.0 / sqrt(3.0) / 2.0) < 1e-9);
}

TEST(target_lists)
{
	int *c, n;
	pid_t *p;

	CHECK_INT(target__parse_cpus("0-3,6,2", &c, &n), 0);
	CHECK_INT(n, 5);
	CHECK_INT(c[4], 6);
	free(c);
	CHECK(target__parse_cpus("3-1", &c, &n) < 0);
	CHECK(target__parse_cpus("a", &c, &n) < 0);
	CHECK(target__parse_cpus("", &c, &n) < 0);
	CHECK_INT(target__parse_pids("12,34", &p, &n), 0);
	CHECK_INT(n, 2);
	CHECK_INT(p[1], 34);
	free(p);
	CHECK(target__parse_pids("12,", &p, &n) < 0);
	CHECK(target__parse_pids("-1", &p, &n) < 0);
	CHECK(target__parse_pids("1x", &p, &n) < 0);
	CHECK_INT(target__online_cpus(&c, &n), 0);
	CHECK(n >= 1);
	free(c);
}
