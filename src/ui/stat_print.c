// SPDX-License-Identifier: GPL-2.0
/*
 * stat_print.c - perf stat's output, byte for byte where perf is right.
 * Column widths follow perf 6.1's stat-display.c as measured on this machine:
 * an 18-wide value, a 4-wide unit, a 32-wide name (25 when the value is a
 * <not ...> marker), then a 35-wide metric column.
 */
#include "ui/json.h"
#include "ui/stat_print.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#define METRIC_LEN 35

static void prefix(const struct stat_print *p, const struct stat_model *m, int u, double ts)
{
	const char *sep = p->fmt == STAT_CSV ? p->sep : " ";

	if (p->fmt == STAT_JSON) {
		if (ts >= 0)
			fprintf(p->out, "\"interval\" : %.9f, ", ts);
		if (m->aggr == AGGR_CPU)
			fprintf(p->out, "\"cpu\" : \"%d\", ", m->unit_id[u]);
		else if (m->aggr == AGGR_THREAD)
			fprintf(p->out, "\"thread\" : \"%s\", ", m->unit_label[u]);
		return;
	}
	if (ts >= 0) {
		unsigned long sec = (unsigned long)ts;
		unsigned long nsec = (unsigned long)llround((ts - sec) * 1e9);

		if (nsec >= 1000000000UL) {
			sec++;
			nsec -= 1000000000UL;
		}
		fprintf(p->out, "%6lu.%09lu%s", sec, nsec, sep);
	}
	if (m->aggr == AGGR_CPU) {
		if (p->fmt == STAT_CSV)
			fprintf(p->out, "CPU%d%s", m->unit_id[u], sep);
		else
			fprintf(p->out, "CPU%-7d%s", m->unit_id[u], sep);
	} else if (m->aggr == AGGR_THREAD) {
		const char *label = m->unit_label[u];
		const char *dash = strrchr(label, '-');
		int clen = dash ? (int)(dash - label) : (int)strlen(label);

		if (p->fmt == STAT_CSV)
			fprintf(p->out, "%s%s", label, sep);
		else
			fprintf(p->out, "%16.*s-%-8s%s", clen, label, dash ? dash + 1 : "", sep);
	}
}

/* printf's %' without touching the process locale: group with sep, if any */
static void format_value(char *buf, size_t len, double v, bool frac, const char *sep)
{
	char raw[64];
	int n, intlen, out = 0;
	char *dot;

	snprintf(raw, sizeof(raw), frac ? "%.2f" : "%.0f", v);
	if (!sep || !*sep) {
		snprintf(buf, len, "%s", raw);
		return;
	}
	dot = strchr(raw, '.');
	intlen = dot ? (int)(dot - raw) : (int)strlen(raw);
	n = 0;
	if (raw[0] == '-') {
		buf[out++] = '-';
		n = 1;
	}
	for (int i = n; i < intlen && out < (int)len - 8; i++) {
		buf[out++] = raw[i];
		if ((intlen - i - 1) % 3 == 0 && i != intlen - 1)
			for (const char *c = sep; *c; c++)
				buf[out++] = *c;
	}
	snprintf(buf + out, len - out, "%s", dot ? dot : "");
}

static void print_metric(const struct stat_print *p, const struct stat_metric *mt, bool csv_always)
{
	if (p->fmt == STAT_CSV) {
		if (!mt->has) {
			if (csv_always)
				fprintf(p->out, "%s%s", p->sep, p->sep);
			return;
		}
		fprintf(p->out, "%s", p->sep);
		{
			char num[64];

			snprintf(num, sizeof(num), mt->fmt, mt->value);
			/* CSV carries the bare number: no padding, no % sign */
			char *s = num;

			while (*s == ' ')
				s++;
			s[strcspn(s, "% ")] = 0;
			fprintf(p->out, "%s%s%s", s, p->sep, mt->unit);
		}
		return;
	}
	if (!mt->has) {
		fprintf(p->out, "%-*s", METRIC_LEN, "");
		return;
	}
	{
		int n = fprintf(p->out, " # ");

		n += fprintf(p->out, mt->fmt, mt->value);
		fprintf(p->out, " %-*s", METRIC_LEN - n - 1, mt->unit);
	}
}

static void print_row(const struct stat_print *p, const struct stat_model *m, int e, int u, double ts)
{
	const struct event *ev = &m->evl->ev[e];
	const struct stat_cell *c = &m->cell[e * m->nr_units + u];
	bool counted = m->supported[e] && c->val >= 0 && c->run && c->ena;
	double pct_run = c->ena ? 100.0 * (double)c->run / (double)c->ena : 100.0;
	double noise = runstat__rel_pct(&c->rs);
	const char *marker = m->supported[e] ? "<not counted>" : "<not supported>";
	double shown = c->val * ev->scale;
	bool frac = ev->scale != 1.0;
	struct stat_metric mt;

	if (p->no_scale && counted && c->run && c->run < c->ena)
		shown = shown * (double)c->run / (double)c->ena;
	if (!counted)
		pct_run = 100.0;

	if (p->fmt == STAT_JSON) {
		fputc('{', p->out);
		prefix(p, m, u, ts);
		if (counted)
			fprintf(p->out, "\"counter-value\" : \"%f\", ", shown);
		else
			fprintf(p->out, "\"counter-value\" : \"%s\", ", marker);
		fprintf(p->out, "\"unit\" : \"%s\", \"event\" : ", ev->unit);
		json__str(p->out, ev->name);
		fprintf(p->out, ", ");
		if (p->runs > 1)
			fprintf(p->out, "\"variance\" : %.2f, ", noise);
		fprintf(p->out, "\"event-runtime\" : %llu, \"pcnt-running\" : %.2f",
			counted ? (unsigned long long)c->run : 0ULL, pct_run);
		if (counted) {
			statmodel__metric(m, e, u, &mt);
			if (mt.has)
				fprintf(p->out, ", \"metric-value\" : %f, \"metric-unit\" : \"%s\"", mt.value, mt.unit);
		}
		fprintf(p->out, "}\n");
		return;
	}

	prefix(p, m, u, ts);
	if (p->fmt == STAT_CSV) {
		char num[64];

		if (counted)
			format_value(num, sizeof(num), shown, frac, NULL);
		else
			snprintf(num, sizeof(num), "%s", marker);
		fprintf(p->out, "%s%s%s%s%s", num, p->sep, ev->unit, p->sep, ev->name);
		if (p->runs > 1)
			fprintf(p->out, "%s%.2f%%", p->sep, counted ? noise : 0.0);
		fprintf(p->out, "%s%llu%s%.2f", p->sep, counted ? (unsigned long long)c->run : 0ULL,
			p->sep, pct_run);
		if (counted)
			statmodel__metric(m, e, u, &mt);
		else
			memset(&mt, 0, sizeof(mt));
		print_metric(p, &mt, true);
		fputc('\n', p->out);
		return;
	}

	if (!counted) {
		fprintf(p->out, "%18s %-4s %-25s", marker, ev->unit, ev->name);
		fprintf(p->out, "%-*s", METRIC_LEN, "");
	} else {
		char num[64];

		format_value(num, sizeof(num), shown, frac, p->thousands);
		fprintf(p->out, "%18s %-4s %-32s", num, ev->unit, ev->name);
		statmodel__metric(m, e, u, &mt);
		print_metric(p, &mt, false);
		if (p->runs > 1 && noise)
			fprintf(p->out, "  ( +-%6.2f%% )", noise);
		if (c->run != c->ena)
			fprintf(p->out, "  (%.2f%%)", pct_run);
	}
	fputc('\n', p->out);
}

void stat_print__header(const struct stat_print *p, const char *what, int runs)
{
	if (p->fmt != STAT_STD)
		return;
	fprintf(p->out, "\n Performance counter stats for %s", what);
	if (runs > 1)
		fprintf(p->out, " (%d runs)", runs);
	fprintf(p->out, ":\n\n");
}

void stat_print__interval_header(const struct stat_print *p, enum stat_aggr aggr)
{
	if (p->fmt != STAT_STD)
		return;
	if (aggr == AGGR_CPU)
		fprintf(p->out, "#           time CPU                    counts unit events\n");
	else if (aggr == AGGR_THREAD)
		fprintf(p->out, "#           time              comm-pid                  counts unit events\n");
	else
		fprintf(p->out, "#           time             counts unit events\n");
}

void stat_print__rows(const struct stat_print *p, const struct stat_model *m, double ts)
{
	/* perf lists per-CPU rows event by event, per-thread rows thread by thread */
	if (m->aggr == AGGR_THREAD) {
		for (int u = 0; u < m->nr_units; u++)
			for (int e = 0; e < m->evl->nr; e++)
				print_row(p, m, e, u, ts);
		return;
	}
	for (int e = 0; e < m->evl->nr; e++)
		for (int u = 0; u < m->nr_units; u++)
			print_row(p, m, e, u, ts);
}

static int precision_of(double num)
{
	if (num > 1)
		return 0;
	if (num <= 0)
		return 9;
	return (int)lround(ceil(-log10(num)));
}

void stat_print__footer(const struct stat_print *p, const struct stat_model *m,
			bool ru_valid, double user_s, double sys_s)
{
	double avg = m->wall.mean / 1e9;

	if (p->fmt != STAT_STD)
		return;
	if (m->evl->nr)		/* perf's -n prints no blank line after the header */
		fputc('\n', p->out);
	if (p->runs <= 1) {
		fprintf(p->out, " %17.9f seconds time elapsed", avg);
		if (ru_valid) {
			fprintf(p->out, "\n\n");
			fprintf(p->out, " %17.9f seconds user\n", user_s);
			fprintf(p->out, " %17.9f seconds sys\n", sys_s);
		}
	} else {
		double sd = runstat__stddev_mean(&m->wall) / 1e9;
		int prec = precision_of(sd) + 2;
		double pct = avg ? 100.0 * sd / avg : 0;

		fprintf(p->out, " %17.*f +- %.*f seconds time elapsed", prec, avg, prec, sd);
		if (pct)
			fprintf(p->out, "  ( +-%6.2f%% )", pct);
	}
	fprintf(p->out, "\n\n");
}

const char *stat_print__thousands_sep(void)
{
	/* perf's %'-grouping follows LC_NUMERIC: "1,000" in en_US, "1000" in C */
	static char thousands[8];

	if (setlocale(LC_NUMERIC, "")) {
		snprintf(thousands, sizeof(thousands), "%s", localeconv()->thousands_sep);
		setlocale(LC_NUMERIC, "C");
	}
	return thousands;
}
