// SPDX-License-Identifier: GPL-2.0
/*
 * use_print.c - the USE report as text, JSON and vmstat-like interval rows.
 */
#include "ui/json.h"
#include "ui/use_print.h"

#include <math.h>
#include <string.h>

#define WRAP 100

/* "busy_pct" -> "busy", "rx_kb_s" -> "rx", "r_s" -> "r" */
static void label(const struct use_metric *m, char *buf, size_t len)
{
	static const char *const suffixes[] = { "_kb_s", "_pct", "_mib", "_ms", "_s" };
	size_t n;

	snprintf(buf, len, "%s", m->key);
	n = strlen(buf);
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t sl = strlen(suffixes[i]);

		if (n > sl && !strcmp(buf + n - sl, suffixes[i])) {
			buf[n - sl] = 0;
			break;
		}
	}
}

static void value(const struct use_metric *m, char *buf, size_t len)
{
	double v = m->value;

	switch (m->unit) {
	case UNIT_PCT: snprintf(buf, len, "%.1f%%", v); break;
	case UNIT_NUM: snprintf(buf, len, "%.2f", v); break;
	case UNIT_COUNT: snprintf(buf, len, "%.0f", v); break;
	case UNIT_PER_S: snprintf(buf, len, "%.1f/s", v); break;
	case UNIT_KB_S: snprintf(buf, len, "%.1f kB/s", v); break;
	case UNIT_MS: snprintf(buf, len, "%.2f ms", v); break;
	case UNIT_MIB: snprintf(buf, len, "%.0f MiB", v); break;
	}
}

/* one U, S or E line of a resource, wrapped under its first column */
static void kind_line(FILE *f, const struct use_resource *res, enum use_kind k, const char *first)
{
	int col, indent = 16;
	bool any = false;

	col = fprintf(f, "%-13s %c ", first, "USE"[k]);
	for (int i = 0; i < res->n; i++) {
		char l[48], v[48], item[112];
		int w;

		if (res->m[i].kind != k)
			continue;
		label(&res->m[i], l, sizeof(l));
		value(&res->m[i], v, sizeof(v));
		w = snprintf(item, sizeof(item), "%s%s %s", any ? "  " : "", l, v);
		if (any && col + w > WRAP) {
			col = fprintf(f, "\n%*s", indent, "") - 1;
			w = snprintf(item, sizeof(item), "%s %s", l, v);
		}
		col += fprintf(f, "%s", item);
		any = true;
	}
	if (res->note[k][0] && any)
		fprintf(f, "  (%s)", res->note[k]);
	else if (res->note[k][0])
		fprintf(f, "- %s", res->note[k]);
	else if (!any)
		fputs("-", f);
	fputc('\n', f);
}

void use_print__text(FILE *f, const struct use_report *r, bool per_cpu)
{
	int shown_cpus = 0;

	fprintf(f, "sonde use: %.1f s sample, %d CPU%s, load average %.2f %.2f %.2f\n\n",
		r->duration, r->ncpus, r->ncpus == 1 ? "" : "s", r->load[0], r->load[1], r->load[2]);
	fprintf(f, "%-13s   %s\n", "resource", "U utilization  S saturation  E errors (over the sample)");
	for (int i = 0; i < r->nr_res; i++) {
		const struct use_resource *res = &r->res[i];
		char name[64];

		if (res->detail) {
			const struct use_metric *b = use__metric(res, "busy_pct");
			const struct use_metric *u = use__metric(res, "usr_pct");
			const struct use_metric *s = use__metric(res, "sys_pct");

			if (!per_cpu && r->ncpus > 8)
				continue;
			if (!shown_cpus++)
				fprintf(f, "%-13s   per CPU busy%%:", "");
			if (b && u && s)
				fprintf(f, "%s %s %.0f (usr %.0f sys %.0f)", shown_cpus % 4 == 1 && shown_cpus > 1 ? "\n                 " : "",
					res->name, b->value, u->value, s->value);
			if (i + 1 == r->nr_res || !r->res[i + 1].detail)
				fputc('\n', f);
			continue;
		}
		if (strcmp(res->type, res->name))
			snprintf(name, sizeof(name), "%s %s", res->type, res->name);
		else
			snprintf(name, sizeof(name), "%s", res->name);
		kind_line(f, res, USE_U, name);
		kind_line(f, res, USE_S, "");
		kind_line(f, res, USE_E, "");
	}
	if (!r->nr_flags) {
		fprintf(f, "\nno flags: nothing crossed a threshold during the sample\n");
	} else {
		fprintf(f, "\nflags:\n");
		for (int i = 0; i < r->nr_flags; i++) {
			const struct use_flag *fl = &r->flags[i];

			fprintf(f, "  [%s %s] %s\n", fl->resource, use__kind_name(fl->kind), fl->what);
			fprintf(f, "      next: %s\n", fl->next);
		}
	}
	if (r->nr_missing) {
		fprintf(f, "\nnot read:\n");
		for (int i = 0; i < r->nr_missing; i++)
			fprintf(f, "  %s: %s\n", r->missing[i].what, r->missing[i].why);
	}
}

static void json_num(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.3f", v);
}

void use_print__json(FILE *f, const struct use_report *r, double t)
{
	fputc('{', f);
	if (t >= 0) {
		fputs("\"time\":", f);
		json_num(f, t);
		fputc(',', f);
	}
	fputs("\"duration_s\":", f);
	json_num(f, r->duration);
	fprintf(f, ",\"cpus\":%d,\"load\":[", r->ncpus);
	for (int i = 0; i < 3; i++) {
		if (i)
			fputc(',', f);
		json_num(f, r->load[i]);
	}
	fputs("],\"resources\":[", f);
	for (int i = 0; i < r->nr_res; i++) {
		const struct use_resource *res = &r->res[i];

		fputs(i ? ",{\"type\":" : "{\"type\":", f);
		json__str(f, res->type);
		fputs(",\"name\":", f);
		json__str(f, res->name);
		for (int k = USE_U; k <= USE_E; k++) {
			bool any = false;

			fprintf(f, ",\"%s\":{", use__kind_name(k));
			for (int j = 0; j < res->n; j++) {
				if (res->m[j].kind != (enum use_kind)k)
					continue;
				if (any)
					fputc(',', f);
				json__str(f, res->m[j].key);
				fputc(':', f);
				json_num(f, res->m[j].value);
				any = true;
			}
			fputc('}', f);
		}
		for (int k = USE_U; k <= USE_E; k++)
			if (res->note[k][0]) {
				fprintf(f, ",\"%s_note\":", use__kind_name(k));
				json__str(f, res->note[k]);
			}
		fputc('}', f);
	}
	fputs("],\"flags\":[", f);
	for (int i = 0; i < r->nr_flags; i++) {
		fputs(i ? ",{\"resource\":" : "{\"resource\":", f);
		json__str(f, r->flags[i].resource);
		fprintf(f, ",\"kind\":\"%s\",\"what\":", use__kind_name(r->flags[i].kind));
		json__str(f, r->flags[i].what);
		fputs(",\"next\":", f);
		json__str(f, r->flags[i].next);
		fputc('}', f);
	}
	fputs("],\"not_read\":[", f);
	for (int i = 0; i < r->nr_missing; i++) {
		fputs(i ? ",{\"file\":" : "{\"file\":", f);
		json__str(f, r->missing[i].what);
		fputs(",\"why\":", f);
		json__str(f, r->missing[i].why);
		fputc('}', f);
	}
	fputs("]}\n", f);
}

static double get(const struct use_report *r, const char *type, const char *key)
{
	const struct use_resource *res = use__find(r, type, type);
	const struct use_metric *m = res ? use__metric(res, key) : NULL;

	return m ? m->value : NAN;
}

/* the sum (or the maximum) of a metric over every resource of a type */
static double over(const struct use_report *r, const char *type, const char *key, bool max)
{
	double v = 0;
	bool any = false;

	for (int i = 0; i < r->nr_res; i++) {
		const struct use_metric *m;

		if (strcmp(r->res[i].type, type) || !(m = use__metric(&r->res[i], key)))
			continue;
		v = max ? (any && v > m->value ? v : m->value) : v + m->value;
		any = true;
	}
	return any ? v : NAN;
}

void use_print__row_header(FILE *f)
{
	fprintf(f, "%8s %5s %4s %4s %4s %4s %5s %5s %6s %5s %6s %6s %5s %5s %5s %5s %8s %8s %8s %8s %6s %5s\n",
		"time", "cpu%", "us", "sy", "wa", "st", "runq", "blkd", "load1", "mem%", "swap/s", "majf/s",
		"psiC", "psiM", "psiI", "disk%", "rkB/s", "wkB/s", "rxkB/s", "txkB/s", "retr/s", "flags");
}

static void col(FILE *f, int w, int prec, double v)
{
	if (isnan(v))
		fprintf(f, " %*s", w, "-");
	else
		fprintf(f, " %*.*f", w, prec, v);
}

void use_print__row(FILE *f, const struct use_report *r, double t)
{
	fprintf(f, "%8.1f", t);
	col(f, 5, 1, get(r, "cpu", "busy_pct"));
	col(f, 4, 0, get(r, "cpu", "usr_pct"));
	col(f, 4, 0, get(r, "cpu", "sys_pct"));
	col(f, 4, 0, get(r, "cpu", "iowait_pct"));
	col(f, 4, 0, get(r, "cpu", "steal_pct"));
	col(f, 5, 1, get(r, "cpu", "runq"));
	col(f, 5, 1, get(r, "cpu", "blocked"));
	col(f, 6, 2, get(r, "cpu", "load1"));
	col(f, 5, 1, get(r, "memory", "used_pct"));
	col(f, 6, 0, get(r, "memory", "swap_pages_s"));
	col(f, 6, 0, get(r, "memory", "majflt_s"));
	col(f, 5, 1, get(r, "cpu", "psi_some_pct"));
	col(f, 5, 1, get(r, "memory", "psi_some_pct"));
	col(f, 5, 1, get(r, "io", "psi_some_pct"));
	col(f, 5, 1, over(r, "disk", "util_pct", true));
	col(f, 8, 0, over(r, "disk", "read_kb_s", false));
	col(f, 8, 0, over(r, "disk", "write_kb_s", false));
	col(f, 8, 1, over(r, "net", "rx_kb_s", false));
	col(f, 8, 1, over(r, "net", "tx_kb_s", false));
	col(f, 6, 1, get(r, "tcp", "retrans_s"));
	fprintf(f, " %5d\n", r->nr_flags);
}
