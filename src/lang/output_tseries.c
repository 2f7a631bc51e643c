// SPDX-License-Identifier: GPL-2.0
/*
 * output_tseries.c - a tseries() map printed the way upstream bpftrace draws
 * one: a header with the minimum and maximum, an hh:mm:ss[.ms] axis, one line
 * per interval with a '*' placed on a 53-column scale ('.' marks zero when
 * the range crosses it) and the value at its end, '-' for an interval without
 * values; or, with -f json, a "tseries" line of {interval_start, value}.
 *
 * The BPF side (gen_map.c) keeps, per CPU, per key and per slot (epoch %
 * count), { epoch, value, aux } with epoch = CLOCK_TAI ns / interval. Here the
 * CPUs' slots are merged by epoch. As upstream draws a map of several keys,
 * the window is the map's: its last count intervals, up to the last any key
 * wrote; each key's series runs from its first interval with a value in that
 * window to the window's end ('-' where it has none; -f json leaves those
 * out), and the keys go from the least to the most recently written.
 */
#include "lang/output.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { GRAPH_W = 53, PAD = 21 };

struct slot {
	uint64_t epoch;
	int64_t value;
	uint64_t aux;
};

struct series {
	uint8_t *key;		/* the user's key (without the slot) */
	struct slot *s;		/* every CPU's non-empty slots */
	int n, cap;
};

static void put_int(FILE *f, int64_t v, int width, bool left)
{
	fprintf(f, left ? "%-*lld" : "%*lld", width, (long long)v);
}

void out__tseries_graph(FILE *f, const int64_t *vals, const bool *has, int n, uint64_t first_ns, uint64_t interval_ns,
			bool unsig)
{
	int64_t mn = 0, mx = 0;
	bool any = false;

	for (int i = 0; i < n; i++)
		if (has[i]) {
			if (!any || vals[i] < mn)
				mn = vals[i];
			if (!any || vals[i] > mx)
				mx = vals[i];
			any = true;
		}
	if (!any) {
		fputs("<no data>", f);
		return;
	}
	if (mn == mx) {	/* room on both sides of a flat line (none below 0 for unsigned values, as upstream) */
		if (mn > INT64_MIN && !(unsig && mn == 0))
			mn--;
		if (mx < INT64_MAX)
			mx++;
	}
	/* the axis' unit: that of the interval (as upstream, of the span over n - 1: 0, so ns, for one line) */
	uint64_t span = n > 1 ? interval_ns : 0, scale = 1;
	int digits = 9;
	const char *unit = "ns";

	if (span >= 1000000000ULL)
		digits = 0, scale = 1000000000ULL, unit = "";
	else if (span >= 1000000ULL)
		digits = 3, scale = 1000000ULL, unit = "ms";
	else if (span >= 1000ULL)
		digits = 6, scale = 1000ULL, unit = "\xce\xbcs";	/* μs */
	char fmt[32];
	int tsize = 8 + (digits ? 1 + digits : 0);

	snprintf(fmt, sizeof(fmt), "hh:mm:ss%s%s", digits ? "." : "", unit);
	fprintf(f, "%*s", tsize + 1, "");
	put_int(f, mn, PAD, true);
	put_int(f, mx, GRAPH_W - PAD, false);
	fprintf(f, "\n%-*s|", tsize + 1, fmt);
	for (int i = 0; i < GRAPH_W - 2; i++)
		fputc('_', f);
	fputs("|\n", f);

	float range = (float)(mx - mn);
	int zero = 0;

	if (mn < 0 && mx > 0)
		zero = (int)((float)GRAPH_W * (float)(0 - mn) / range);
	for (int i = 0; i < n; i++) {
		uint64_t t = first_ns + (uint64_t)i * interval_ns;
		time_t sec = (time_t)(t / 1000000000ULL);
		struct tm tm;
		char line[GRAPH_W + 1], hms[16];

		localtime_r(&sec, &tm);
		strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
		fputs(hms, f);
		if (digits)
			fprintf(f, ".%0*llu", digits, (unsigned long long)(t % 1000000000ULL / scale));
		fputc(' ', f);
		memset(line, ' ', GRAPH_W);
		line[GRAPH_W] = 0;
		line[0] = line[GRAPH_W - 1] = '|';
		if (zero > 0)
			line[zero] = '.';
		if (!has[i]) {
			fprintf(f, "%s -\n", line);
			continue;
		}
		int at = (int)((float)(GRAPH_W - 1) * (float)(vals[i] - mn) / range);

		line[at < 0 ? 0 : at > GRAPH_W - 1 ? GRAPH_W - 1 : at] = '*';
		fprintf(f, "%s %lld\n", line, (long long)vals[i]);
	}
	fprintf(f, "%*s v", tsize, "");
	for (int i = 0; i < GRAPH_W - 2; i++)
		fputc('_', f);
	fprintf(f, "v\n%*s ", tsize, "");
	put_int(f, mn, PAD, true);
	put_int(f, mx, GRAPH_W - PAD, false);
	fputc('\n', f);
}

static struct series *series_of(struct series **v, int *n, const uint8_t *key, int keylen)
{
	for (int i = 0; i < *n; i++)
		if (!memcmp((*v)[i].key, key, keylen))
			return &(*v)[i];
	struct series *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return NULL;
	*v = nv;
	struct series *s = &nv[(*n)++];

	memset(s, 0, sizeof(*s));
	s->key = malloc(keylen ? keylen : 1);
	if (!s->key)
		return NULL;
	memcpy(s->key, key, keylen);
	return s;
}

static int add_slot(struct series *s, const struct slot *x)
{
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 16;
		struct slot *ns = realloc(s->s, cap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		s->s = ns;
		s->cap = cap;
	}
	s->s[s->n++] = *x;
	return 0;
}

/* the last epoch a series wrote */
static uint64_t last_epoch(const struct series *s)
{
	uint64_t last = 0;

	for (int i = 0; i < s->n; i++)
		if (s->s[i].epoch > last)
			last = s->s[i].epoch;
	return last;
}

/* the series' values in the map's window, which ends at epoch last; *first: the first epoch shown */
static int merge(const struct mapinfo *m, const struct series *s, uint64_t last, int64_t *vals, bool *has,
		 uint64_t *first)
{
	uint64_t lo = last;	/* none in the window: the window's last interval alone, without a value */

	for (int i = 0; i < s->n; i++)
		if (s->s[i].epoch <= last && s->s[i].epoch + (uint64_t)m->ts_count > last && s->s[i].epoch < lo)
			lo = s->s[i].epoch;
	int n = (int)(last - lo + 1);

	for (int e = 0; e < n; e++) {
		int64_t v = 0, total = 0;
		uint64_t aux = 0, best = 0;

		has[e] = false;
		for (int i = 0; i < s->n; i++) {
			const struct slot *x = &s->s[i];

			if (x->epoch != lo + (uint64_t)e)
				continue;
			switch (m->ts_mode) {
			case TS_LAST:	/* aux: when it was written */
				if (x->aux > best)
					best = x->aux, v = x->value;
				break;
			case TS_SUM: case TS_AVG:
				total += x->value;
				aux += x->aux;
				break;
			case TS_MIN:
				if (!has[e] || x->value < v)
					v = x->value;
				break;
			case TS_MAX:
				if (!has[e] || x->value > v)
					v = x->value;
				break;
			}
			has[e] = true;
		}
		if (m->ts_mode == TS_SUM)
			v = total;
		else if (m->ts_mode == TS_AVG)
			v = aux ? total / (int64_t)aux : 0;
		vals[e] = v;
	}
	*first = lo;
	return n;
}

/* CLOCK_TAI - CLOCK_REALTIME: whole seconds (37 with leap seconds set, 0 without) */
static uint64_t tai_offset_ns(void)
{
	struct timespec tai, real;

	if (clock_gettime(CLOCK_TAI, &tai) || clock_gettime(CLOCK_REALTIME, &real))
		return 0;
	long long d = (long long)tai.tv_sec - real.tv_sec + (tai.tv_nsec - real.tv_nsec >= 500000000 ? 1 :
							     tai.tv_nsec - real.tv_nsec < -500000000 ? -1 : 0);
	return d > 0 ? (uint64_t)d * 1000000000ULL : 0;
}

static int cmp_series_len;

/* least recently written first (upstream's order), then by key */
static int cmp_series(const void *a, const void *b)
{
	uint64_t x = last_epoch(a), y = last_epoch(b);

	if (x != y)
		return x < y ? -1 : 1;
	return memcmp(((const struct series *)a)->key, ((const struct series *)b)->key, cmp_series_len);
}

static void json_time(FILE *f, uint64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000ULL);
	struct tm tm;
	char b[32];

	gmtime_r(&sec, &tm);
	strftime(b, sizeof(b), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(f, "\"%s.%09llu\"", b, (unsigned long long)(ns % 1000000000ULL));
}

static void print_series(struct out *o, const struct mapinfo *m, const struct series *s, uint64_t last, long long div,
			 bool firstkey)
{
	int64_t *vals = calloc(m->ts_count, sizeof(*vals));
	bool *has = calloc(m->ts_count, sizeof(*has));
	uint64_t lo = 0, off = o->prog && o->prog->cfg.dummy_ts_map ? 0 : tai_offset_ns();	/* a dummy clock is no TAI */

	if (!vals || !has)
		goto out;
	int n = s->n ? merge(m, s, last, vals, has, &lo) : 0;

	for (int i = 0; div > 1 && i < n; i++)
		vals[i] /= div;
	uint64_t first = lo * (uint64_t)m->ts_interval - off;

	if (o->json) {
		if (m->nkeys) {
			char *k = out__key_str(o, m, s->key, true);

			fprintf(o->f, "%s\"%s\": ", firstkey ? "" : ", ", k ? k : "");
			free(k);
		}
		fputc('[', o->f);
		for (int i = 0, any = 0; i < n; i++) {	/* an interval without a value is left out, as upstream */
			if (!has[i])
				continue;
			fputs(any++ ? ", {\"interval_start\": " : "{\"interval_start\": ", o->f);
			json_time(o->f, first + (uint64_t)i * m->ts_interval);
			fprintf(o->f, ", \"value\": %lld}", (long long)vals[i]);
		}
		fputc(']', o->f);
		goto out;
	}
	fputs(m->name, o->f);
	if (m->nkeys) {
		char *k = out__key_str(o, m, s->key, false);

		fputs(k ? k : "", o->f);
		free(k);
	}
	fputs(":\n", o->f);
	out__tseries_graph(o->f, vals, has, n, first, (uint64_t)m->ts_interval, !m->val.sign);
	fputc('\n', o->f);
out:
	free(vals);
	free(has);
}

int out__tseries(struct out *o, struct mapinfo *m, long long top, long long div)
{
	int ncpu = o->ncpus > 0 ? o->ncpus : 1, keylen = (int)m->key_size - 8, nser = 0, rc = 0;
	uint8_t *key = calloc(1, m->key_size), *next = calloc(1, m->key_size);
	struct slot *val = calloc(ncpu, sizeof(struct slot));
	struct series *ser = NULL;
	bool first = true;

	if (!key || !next || !val) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < m->max_entries && !bpf_map_get_next_key(m->fd, first ? NULL : key, next); i++) {
		first = false;
		memcpy(key, next, m->key_size);
		if (bpf_map_lookup_elem(m->fd, key, val))
			continue;
		struct series *s = series_of(&ser, &nser, key, keylen);

		if (!s) {
			rc = -ENOMEM;
			goto out;
		}
		for (int c = 0; c < ncpu; c++)
			if (val[c].aux && (rc = add_slot(s, &val[c])))
				goto out;
	}
	for (int i = 0; i < nser; i++)	/* zero()'d or cleared: entries without values are no series */
		if (!ser[i].n) {
			free(ser[i].key);
			free(ser[i].s);
			ser[i--] = ser[--nser];
		}
	cmp_series_len = keylen;
	if (nser)
		qsort(ser, nser, sizeof(*ser), cmp_series);
	int from = top > 0 && nser > top ? nser - (int)top : 0;
	uint64_t last = 0;

	for (int i = 0; i < nser; i++)	/* the map's window ends where its last key wrote */
		if (last_epoch(&ser[i]) > last)
			last = last_epoch(&ser[i]);

	if (o->json) {
		fputs("{\"type\": \"tseries\", \"data\": {", o->f);
		fprintf(o->f, "\"%s\": ", m->name);
		if (m->nkeys)
			fputc('{', o->f);
		for (int i = from; i < nser; i++)
			print_series(o, m, &ser[i], last, div, i == from);
		if (!m->nkeys && !nser)
			fputs("[]", o->f);
		fputs(m->nkeys ? "}}}\n" : "}}\n", o->f);
		goto out;
	}
	for (int i = from; i < nser; i++)
		print_series(o, m, &ser[i], last, div, i == from);
	if (!nser)
		fputc('\n', o->f);
out:
	for (int i = 0; i < nser; i++) {
		free(ser[i].key);
		free(ser[i].s);
	}
	free(ser);
	free(key);
	free(next);
	free(val);
	return rc;
}
