// SPDX-License-Identifier: GPL-2.0
/*
 * test_flight.c - the flight recorder's ring (records leave by age and by the
 * size cap, side-band records stay, lost events are counted, a walk is in
 * time order and holds only the window), the --trigger parser, the latency
 * buckets and the rolling percentile window.
 */
#include "unit.h"
#include "lib/record/flight_ring.h"
#include "lib/record/trigger.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ULL
#define SEC 1000000000ULL

static const struct perf_event_attr attr = {
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD,
	.sample_id_all = 1,
};

/* SAMPLE: header, ip, pid/tid, time, period */
static size_t sample(uint64_t *r, uint64_t ip, uint64_t t)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 40 };

	memcpy(r, &h, 8);
	r[1] = ip;
	r[2] = 42 | (42ULL << 32);
	r[3] = t;
	r[4] = 1;
	return 40;
}

/* COMM: header, pid, tid, "x", then the sample_id trailer (tid, time) */
static size_t comm(uint64_t *r, uint64_t t)
{
	struct perf_event_header h = { PERF_RECORD_COMM, 0, 40 };

	memcpy(r, &h, 8);
	r[1] = 42 | (42ULL << 32);
	r[2] = 'x';
	r[3] = 42 | (42ULL << 32);
	r[4] = t;
	return 40;
}

/* LOST: header, id, lost, trailer */
static size_t lost(uint64_t *r, uint64_t n, uint64_t t)
{
	struct perf_event_header h = { PERF_RECORD_LOST, 0, 40 };

	memcpy(r, &h, 8);
	r[1] = 7;
	r[2] = n;
	r[3] = 42 | (42ULL << 32);
	r[4] = t;
	return 40;
}

struct seen {
	int n, samples;
	uint64_t ips[64], times[64];
	uint32_t types[64];
};

static int keep(void *ctx, const void *rec, size_t len)
{
	struct seen *s = ctx;
	const struct perf_event_header *h = rec;
	const uint64_t *r = rec;

	if (s->n < 64) {
		s->types[s->n] = h->type;
		s->ips[s->n] = h->type == PERF_RECORD_SAMPLE ? r[1] : 0;
		s->times[s->n] = h->type == PERF_RECORD_SAMPLE ? r[3] : r[len / 8 - 1];
	}
	s->n++;
	s->samples += h->type == PERF_RECORD_SAMPLE;
	return 0;
}

TEST(flight_ring_keeps_the_window_only)
{
	struct flight_ring *r;
	struct flight_window w;
	struct seen s = { 0 };
	struct flight_ring_stats st;
	uint64_t rec[5];

	CHECK_INT(flight_ring__new(&r, 2 * SEC, FLIGHT_MIN_CAP, &attr), 0);
	/* one sample every 100 ms for 10 s: the window keeps the last 2 s */
	for (int i = 0; i < 100; i++)
		CHECK_INT(flight_ring__add(r, rec, sample(rec, 1000 + i, 10 * SEC + i * 100 * MS), 10 * SEC + i * 100 * MS),
			  0);
	CHECK_INT(flight_ring__walk(r, 10 * SEC + 99 * 100 * MS, keep, &s, &w), 0);
	/* [17.9 s, 19.9 s]: samples 79..99 */
	CHECK_INT(s.samples, 21);
	CHECK_INT(w.samples, 21);
	CHECK_INT(s.ips[0], 1079);
	CHECK_INT(s.ips[20], 1099);
	CHECK_INT(w.last_ns - w.first_ns, 2 * SEC);
	flight_ring__stats(r, &st);
	CHECK_INT(st.seen, 100);
	CHECK_INT(st.cut, 0);
	/* time passes with nothing new: the expired chunks go, the walk is empty */
	flight_ring__expire(r, 60 * SEC);
	flight_ring__stats(r, &st);
	CHECK_INT(st.samples, 0);
	memset(&s, 0, sizeof(s));
	CHECK_INT(flight_ring__walk(r, 60 * SEC, keep, &s, &w), 0);
	CHECK_INT(s.n, 0);
	flight_ring__free(r);
}

TEST(flight_ring_cap_frees_the_oldest_and_counts_them)
{
	struct flight_ring *r;
	struct flight_ring_stats st;
	struct flight_window w;
	struct seen s = { 0 };
	uint64_t rec[5];
	int n = 100000;	/* 4 MB of samples in a 1 MB ring, all inside the window */

	CHECK_INT(flight_ring__new(&r, 3600 * SEC, FLIGHT_MIN_CAP, &attr), 0);
	for (int i = 0; i < n; i++)
		CHECK_INT(flight_ring__add(r, rec, sample(rec, i, SEC + i), SEC + i), 0);
	flight_ring__stats(r, &st);
	CHECK(st.bytes <= FLIGHT_MIN_CAP);
	CHECK(st.samples > 0 && st.samples < (uint64_t)n);
	CHECK_INT(st.cut + st.samples, n);	/* every sample is held or counted as cut */
	CHECK_INT(flight_ring__walk(r, SEC + n, keep, &s, &w), 0);
	CHECK_INT(w.samples, st.samples);
	CHECK_INT(s.ips[0], n - (int)st.samples);	/* the newest ones stay */
	flight_ring__free(r);
}

TEST(flight_ring_side_band_stays_and_walks_in_time_order)
{
	struct flight_ring *r;
	struct flight_window w;
	struct seen s = { 0 };
	uint64_t rec[15];
	size_t len;

	CHECK_INT(flight_ring__new(&r, 1 * SEC, FLIGHT_MIN_CAP, &attr), 0);
	CHECK_INT(flight_ring__add(r, rec, comm(rec, 1 * SEC), 1 * SEC), 0);
	/* three records in one drain, out of time order (two CPUs' buffers) */
	len = sample(rec, 3, 10 * SEC + 300 * MS);
	len += lost(rec + len / 8, 5, 10 * SEC + 100 * MS);
	len += sample(rec + len / 8, 2, 10 * SEC + 200 * MS);
	CHECK_INT(flight_ring__add(r, rec, len, 10 * SEC + 300 * MS), 0);
	CHECK_INT(flight_ring__walk(r, 10 * SEC + 500 * MS, keep, &s, &w), 0);
	CHECK_INT(s.n, 4);
	CHECK_INT(s.types[0], PERF_RECORD_COMM);	/* 9 s older than the window, still there */
	CHECK_INT(s.types[1], PERF_RECORD_LOST);
	CHECK_INT(s.ips[2], 2);
	CHECK_INT(s.ips[3], 3);
	CHECK_INT(w.lost, 5);
	CHECK_INT(w.samples, 2);
	flight_ring__free(r);
}

TEST(flight_ring_counts_lost_and_refuses_bad_records)
{
	struct flight_ring *r;
	struct flight_ring_stats st;
	uint64_t rec[5];
	struct perf_event_header *h = (void *)rec;

	CHECK_INT(flight_ring__new(&r, SEC, FLIGHT_MIN_CAP, &attr), 0);
	CHECK_INT(flight_ring__add(r, rec, lost(rec, 12, SEC), SEC), 0);
	CHECK_INT(flight_ring__add(r, rec, lost(rec, 30, SEC), SEC), 0);
	flight_ring__stats(r, &st);
	CHECK_INT(st.lost, 42);
	CHECK_INT(st.lost_records, 2);
	sample(rec, 1, SEC);
	h->size = 44;		/* not a multiple of 8 */
	CHECK_INT(flight_ring__add(r, rec, 40, SEC), -EBADMSG);
	h->size = 80;		/* past the end */
	CHECK_INT(flight_ring__add(r, rec, 40, SEC), -EBADMSG);
	h->size = 0;
	CHECK_INT(flight_ring__add(r, rec, 40, SEC), -EBADMSG);
	flight_ring__stats(r, &st);
	CHECK_INT(st.seen, 0);
	flight_ring__free(r);
}

static const char *parse_err(const char *s)
{
	static char err[256];
	struct trigger t;

	err[0] = 0;
	if (!trigger__parse(s, &t, err, sizeof(err)))
		return "ok";
	return err;
}

TEST(flight_trigger_parses_the_two_forms)
{
	struct trigger t;
	char err[256];

	CHECK_INT(trigger__parse("syscall:read > 100ms", &t, err, sizeof(err)), 0);
	CHECK_INT(t.kind, TRIGGER_SYSCALL);
	CHECK_STR(t.syscall, "read");
	CHECK_INT(t.threshold_ns, 100 * MS);
	CHECK(!t.or_equal);
	CHECK_STR(t.text, "syscall:read > 100ms");
	CHECK(trigger__exceeds(&t, 100 * MS + 1) && !trigger__exceeds(&t, 100 * MS));

	CHECK_INT(trigger__parse("  syscall: openat>=1.5s ", &t, err, sizeof(err)), 0);
	CHECK_STR(t.syscall, "openat");
	CHECK_INT(t.threshold_ns, 1500 * MS);
	CHECK(t.or_equal && trigger__exceeds(&t, 1500 * MS));
	CHECK_STR(t.text, "syscall:openat >= 1.5s");

	CHECK_INT(trigger__parse("p99(read) > 50ms", &t, err, sizeof(err)), 0);
	CHECK_INT(t.kind, TRIGGER_PCT);
	CHECK(t.pct > 98.999 && t.pct < 99.001);
	CHECK_INT(t.window_s, TRIGGER_DEFAULT_WINDOW);
	CHECK_INT(t.min_calls, 100);
	CHECK_STR(t.text, "p99(read) > 50ms");

	CHECK_INT(trigger__parse("p999( pread64 ) > 250us over 30s", &t, err, sizeof(err)), 0);
	CHECK(t.pct > 99.8999 && t.pct < 99.9001);
	CHECK_STR(t.syscall, "pread64");
	CHECK_INT(t.threshold_ns, 250000);
	CHECK_INT(t.window_s, 30);
	CHECK_INT(t.min_calls, 1000);
	CHECK_STR(t.text, "p99.9(pread64) > 250us over 30s");

	CHECK_INT(trigger__parse("p99.9(read) > 1s", &t, err, sizeof(err)), 0);
	CHECK(t.pct > 99.8999 && t.pct < 99.9001);
	CHECK_INT(trigger__parse("p50(write) > 2us", &t, err, sizeof(err)), 0);
	CHECK_INT(t.min_calls, 2);
	/* the text is a trigger that parses as the same one */
	CHECK_INT(trigger__parse("syscall:read > 5 \t ms", &t, err, sizeof(err)), 0);
	CHECK_STR(t.text, "syscall:read > 5ms");
	CHECK_INT(trigger__parse("p9.0(read) > 1ms", &t, err, sizeof(err)), 0);
	CHECK_STR(t.text, "p9.0(read) > 1ms");
	{
		struct trigger again;

		CHECK_INT(trigger__parse(t.text, &again, err, sizeof(err)), 0);
		CHECK_STR(again.text, t.text);
	}
}

TEST(flight_trigger_rejects_with_one_line)
{
	CHECK_STR(parse_err("syscall:read > 100"),
		  "--trigger 'syscall:read > 100': expected a duration with its unit after '>': 100ms, 2s, 500us");
	CHECK_STR(parse_err("foo"),
		  "--trigger 'foo': expected 'syscall:NAME > DURATION' or 'pNN(NAME) > DURATION [over S]'");
	CHECK_STR(parse_err("syscall:read < 1ms"), "--trigger 'syscall:read < 1ms': expected '>' or '>=' and a duration: > 100ms");
	CHECK_STR(parse_err("p99(read > 1ms"), "--trigger 'p99(read > 1ms': expected ')' after the syscall name");
	CHECK_STR(parse_err("p99 read > 1ms"),
		  "--trigger 'p99 read > 1ms': expected '(' and a syscall name after the percentile: p99(read)");
	CHECK_STR(parse_err("p100(read) > 1ms"),
		  "--trigger 'p100(read) > 1ms': a percentile is p50, p90, p99, p999 or p99.9 (0 < p < 100)");
	CHECK_STR(parse_err("syscall:read > 0ms"), "--trigger 'syscall:read > 0ms': the threshold must be above 0");
	CHECK_STR(parse_err("syscall:read > 5ms over 2s"),
		  "--trigger 'syscall:read > 5ms over 2s': 'over S' is for percentile triggers only");
	CHECK_STR(parse_err("p99(read) > 5ms over 0.5s"),
		  "--trigger 'p99(read) > 5ms over 0.5s': the window after 'over' is whole seconds, 1s to 3600s");
	CHECK_STR(parse_err("syscall:read > 5ms and more"),
		  "--trigger 'syscall:read > 5ms and more': unexpected 'and more' after the condition");
	CHECK_STR(parse_err("syscall:Read > 5ms"),
		  "--trigger 'syscall:Read > 5ms': expected a syscall name after 'syscall:' (read, openat...)");
	CHECK_STR(parse_err("syscall:read > 5 ms"), "ok");
	CHECK_STR(parse_err("syscall:read > 5msec"),
		  "--trigger 'syscall:read > 5msec': expected a duration with its unit after '>': 100ms, 2s, 500us");
	CHECK_STR(parse_err("p09(read) > 1ms"),
		  "--trigger 'p09(read) > 1ms': a percentile is p50, p90, p99, p999 or p99.9 (0 < p < 100)");
	CHECK_STR(parse_err("p9(read) > 1ms"),
		  "--trigger 'p9(read) > 1ms': a percentile is p50, p90, p99, p999 or p99.9 (0 < p < 100)");
}

TEST(flight_durations)
{
	uint64_t ns;

	CHECK_INT(trigger__parse_duration("30s", true, &ns), 0);
	CHECK_INT(ns, 30 * SEC);
	CHECK_INT(trigger__parse_duration("2m", true, &ns), 0);
	CHECK_INT(ns, 120 * SEC);
	CHECK_INT(trigger__parse_duration("500ms", true, &ns), 0);
	CHECK_INT(ns, 500 * MS);
	CHECK_INT(trigger__parse_duration("1.5", true, &ns), 0);
	CHECK_INT(ns, 1500 * MS);
	CHECK_INT(trigger__parse_duration("1.5", false, &ns), -EINVAL);
	CHECK_INT(trigger__parse_duration("-1s", true, &ns), -EINVAL);
	CHECK_INT(trigger__parse_duration("10 parsecs", true, &ns), -EINVAL);
	CHECK_INT(trigger__parse_duration("", true, &ns), -EINVAL);
}

TEST(flight_buckets_bound_the_error)
{
	/* every value is in its bucket, and a bucket is at most 1/16 of its low end wide */
	for (uint64_t v = 0; v < 100000; v += 7) {
		uint32_t b = trigger__bucket(v);

		CHECK(b < FLIGHT_NBUCKETS);
		CHECK(trigger__bucket_low(b) <= v && v <= trigger__bucket_high(b));
		CHECK((trigger__bucket_high(b) - trigger__bucket_low(b)) * 16 <= trigger__bucket_low(b) || v < 16);
	}
	CHECK_INT(trigger__bucket(~0ULL), FLIGHT_NBUCKETS - 1);
	CHECK_INT(trigger__bucket_high(FLIGHT_NBUCKETS - 1), ~0ULL);
	for (uint32_t b = 1; b < FLIGHT_NBUCKETS; b++)
		CHECK_INT(trigger__bucket_low(b), trigger__bucket_high(b - 1) + 1);
}

TEST(flight_pct_window_rolls)
{
	struct pct_window w;
	uint64_t *cum = calloc(FLIGHT_NBUCKETS, sizeof(uint64_t)), v, n;
	uint32_t fast = trigger__bucket(2000), slow = trigger__bucket(200 * MS);

	CHECK(cum);
	CHECK_INT(pct_window__init(&w, 3), 0);
	CHECK_INT(pct_window__value(&w, 99, &v, &n), -ENODATA);
	/* second 1: 990 fast calls and 10 of 200 ms: p99 is fast, p99.9 slow */
	cum[fast] = 990;
	cum[slow] = 10;
	pct_window__push(&w, cum);
	CHECK_INT(pct_window__value(&w, 99, &v, &n), 0);
	CHECK_INT(n, 1000);
	CHECK_INT(v, trigger__bucket_high(fast));
	CHECK_INT(pct_window__value(&w, 99.9, &v, &n), 0);
	CHECK(v >= 200 * MS && v <= 200 * MS + 200 * MS / 16);
	/* seconds 2-4: only fast calls; the slow ones leave with second 1 */
	for (int i = 0; i < 3; i++) {
		cum[fast] += 1000;
		pct_window__push(&w, cum);
	}
	CHECK_INT(pct_window__value(&w, 99.9, &v, &n), 0);
	CHECK_INT(n, 3000);
	CHECK_INT(v, trigger__bucket_high(fast));
	pct_window__free(&w);
	free(cum);
}
