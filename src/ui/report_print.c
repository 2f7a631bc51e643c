// SPDX-License-Identifier: GPL-2.0
/*
 * report_print.c - perf report --stdio's layout: the header, the entries with
 * their percentage columns and sort-key columns, and the call graph drawn with
 * perf's "|", "---" and "--NN.NN%--" art (as measured from perf 6.1 here).
 */
#include "ui/json.h"
#include "ui/report_print.h"

#include <inttypes.h>
#include <string.h>

#define GRAPH_MARGIN 12

static const char *key_header(enum hist_key k)
{
	switch (k) {
	case HK_COMM: return "Command";
	case HK_PID: return "Pid:Command";
	case HK_TID: return "Tid:Command";
	case HK_DSO: return "Shared Object";
	case HK_SYM: return "Symbol";
	case HK_CPU: return "CPU";
	case HK_SRCLINE: return "Source:Line";
	default: return "?";
	}
}

static int key_value(char *buf, size_t len, const struct hist_entry *e, enum hist_key k)
{
	switch (k) {
	case HK_COMM: return snprintf(buf, len, "%s", e->comm);
	case HK_PID: return snprintf(buf, len, "%7u:%s", e->pid, e->comm);
	case HK_TID: return snprintf(buf, len, "%7u:%s", e->tid, e->comm);
	case HK_DSO: return snprintf(buf, len, "%s", e->dso);
	case HK_SYM:
		if (e->sym)
			return snprintf(buf, len, "[%c] %s", e->level, e->sym);
		/* perf's "%-#.*llx": 0x and 16 digits, but no 0x for 0 */
		return snprintf(buf, len, e->addr ? "[%c] %#018" PRIx64 : "[%c] %016" PRIx64, e->level, e->addr);
	case HK_CPU: return snprintf(buf, len, "%3.3d", (int)e->cpu);	/* no CPU: "-001" */
	case HK_SRCLINE: return snprintf(buf, len, "%s", e->srcline);
	default: return snprintf(buf, len, "?");
	}
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

static bool shown(const struct report_print *p, const struct hist *h, const struct hist_entry *e)
{
	uint64_t v = hist__opts(h)->children ? e->children : e->self;

	if ((p->only_comm && strcmp(e->comm, p->only_comm)) || (p->only_dso && strcmp(e->dso, p->only_dso)))
		return false;
	return pct(v, hist__total_period(h)) >= p->percent_limit;
}

/* perf's convert_unit: 3294 samples print as "3K" */
static void samples_unit(unsigned long long n, unsigned long long *v, char *unit)
{
	*unit = ' ';
	*v = n;
	if (*v > 1000) { *v /= 1000; *unit = 'K'; }
	if (*v > 1000) { *v /= 1000; *unit = 'M'; }
	if (*v > 1000) { *v /= 1000; *unit = 'G'; }
}

void report_print__header(const struct report_print *p, const struct hist *h, const char *event,
			  unsigned long long lost, bool first)
{
	unsigned long long v;
	char unit;

	if (p->quiet) {
		if (first && p->elided_comm)
			fprintf(p->out, "# comm: %s\n", p->elided_comm);
		return;
	}
	if (first) {
		fprintf(p->out, "# To display the perf.data header info, please use --header/--header-only options.\n#\n");
		if (p->elided_comm)
			fprintf(p->out, "# comm: %s\n", p->elided_comm);
		fprintf(p->out, "#\n# Total Lost Samples: %llu\n#\n", lost);
	}
	samples_unit(hist__nr_samples(h), &v, &unit);
	fprintf(p->out, "# Samples: %llu%c of event '%s'\n", v, unit, event);
	fprintf(p->out, "# Event count (approx.): %" PRIu64 "\n#\n", hist__total_period(h));
}

/* ---- call graph ---- */

struct graph {
	const struct report_print *p;
	uint64_t total;
	uint64_t min_hits;
	bool any;		/* print_level printed something */
	char line[4096];
};

static bool over(const struct graph *g, const struct cc_node *n)
{
	return n->hits >= g->min_hits && n->hits;
}

static void node_name(char *buf, size_t len, const struct cc_node *n)
{
	if (n->name)
		snprintf(buf, len, "%s%s", n->name, n->inlined ? " (inlined)" : "");
	else
		snprintf(buf, len, "%#" PRIx64, n->key);
}

static void margin(FILE *f, int m)
{
	fprintf(f, "%*s", m, "");
}

static void print_level(struct graph *g, const struct cc_node *list, int depth, unsigned mask, int m)
{
	FILE *f = g->p->out;

	for (const struct cc_node *c = list; c; c = c->next) {
		const struct cc_node *next = c->next, *seg = c;
		unsigned new_mask = mask;
		bool first = true;
		char name[1024];

		if (!over(g, c))
			continue;
		while (next && !over(g, next))
			next = next->next;
		if (!next)
			new_mask &= ~(1u << (depth - 1));
		/* the separator keeps the old mask: the link goes on to the last child */
		g->any = true;
		margin(f, m);
		for (int i = 0; i < depth; i++)
			fputs(mask & (1u << i) ? "|          " : "           ", f);
		fputc('\n', f);
		/* a node and its single-child continuation are one segment */
		for (;;) {
			margin(f, m);
			for (int i = 0; i < depth; i++) {
				fputc(new_mask & (1u << i) ? '|' : ' ', f);
				if (first && i == depth - 1)
					fprintf(f, "--%.2f%%--", pct(seg->hits, g->total));
				else
					fputs("          ", f);
			}
			node_name(name, sizeof(name), seg);
			fprintf(f, "%s\n", name);
			first = false;
			if (seg->child && !seg->child->next && !hist__cc_self(seg))
				seg = seg->child;
			else
				break;
		}
		if (depth < 31)
			print_level(g, seg->child, depth + 1, new_mask | (1u << depth), m);
	}
}

static void print_graph(const struct report_print *p, const struct hist *h, const struct hist_entry *e)
{
	struct graph g = { .p = p, .total = hist__total_period(h) };
	uint64_t entry_period = hist__opts(h)->children ? e->children : e->self;
	const struct cc_node *root = NULL;
	int nroots = 0, m = GRAPH_MARGIN;

	g.min_hits = (uint64_t)((double)g.total * p->graph_min / 100.0);
	for (const struct cc_node *c = e->cc; c; c = c->next)
		if (over(&g, c)) {
			nroots++;
			root = c;
		}
	if (!nroots)
		return;
	if (nroots == 1 && root->hits == entry_period) {
		/* sorted by symbol first, perf leaves out the root: it is the entry's own symbol */
		bool skip = hist__opts(h)->keys[0] == HK_SYM, printed = false;
		const struct cc_node *seg = root;
		char name[1024];

		for (bool first = true;; first = false) {
			if (!first || !skip) {
				margin(p->out, printed ? m + 3 : m);
				if (!printed)
					fputs("|\n", p->out);
				if (!printed)
					margin(p->out, m);
				fputs(printed ? "" : "---", p->out);
				node_name(name, sizeof(name), seg);
				fprintf(p->out, "%s\n", name);
				printed = true;
			}
			if (seg->child && !seg->child->next && !hist__cc_self(seg))
				seg = seg->child;
			else
				break;
		}
		print_level(&g, seg->child, 1, 1, printed ? m + 3 : m);
		g.any |= printed;
	} else {
		print_level(&g, e->cc, 1, 1, m);
	}
	if (g.any)	/* perf: no blank line after a graph that printed nothing */
		fputc('\n', p->out);
}

void report_print__entries(const struct report_print *p, const struct hist *h)
{
	const struct hist_opts *o = hist__opts(h);
	size_t n = hist__nr_entries(h), printed = 0;
	int width[HK_MAX];
	char buf[2048];

	for (int k = 0; k < o->nr_keys; k++)
		width[k] = strlen(key_header(o->keys[k]));
	/* perf sizes the columns over every entry, shown or not; CPU's stays 3 wide */
	for (size_t i = 0; i < n; i++) {
		const struct hist_entry *e = hist__entry(h, i);

		for (int k = 0; k < o->nr_keys; k++) {
			int l = o->keys[k] == HK_CPU || (o->keys[k] == HK_SRCLINE && !e->srcline_sized)
					? 0 : key_value(buf, sizeof(buf), e, o->keys[k]);

			if (l >= (int)sizeof(buf))	/* snprintf's untruncated length: buf holds less */
				l = sizeof(buf) - 1;
			/* perf sizes the symbol column by the name alone: an inlined one's " (inlined)" overhangs */
			if (o->keys[k] == HK_SYM && e->sym && l > 11 && !strcmp(buf + l - 10, " (inlined)"))
				l -= 10;
			/* an entry with no symbol makes perf's DSO column as wide as an address (16) */
			if (o->keys[k] == HK_DSO && !e->sym && l < 16)
				l = 16;
			if (l > width[k])
				width[k] = l;
		}
	}
	if (!p->quiet) {
		/* "# Children      Self  Command  Shared Object      Symbol" and its dots */
		for (int pass = 0; pass < 2; pass++) {
			fputs("# ", p->out);
			if (o->children)
				fprintf(p->out, "%8s  %8s", pass ? "........" : "Children", pass ? "........" : "Self");
			else
				fprintf(p->out, "%8s", pass ? "........" : "Overhead");
			if (p->show_nr)
				fprintf(p->out, "  %12s", pass ? "............" : "Samples");
			for (int k = 0; k < o->nr_keys; k++) {
				fputs("  ", p->out);
				if (pass) {
					for (int i = 0; i < width[k]; i++)
						fputc('.', p->out);
				} else {
					fprintf(p->out, "%-*s", width[k], key_header(o->keys[k]));
				}
			}
			fputc('\n', p->out);
		}
		fputs("#\n", p->out);
	}
	for (size_t i = 0; i < n; i++) {
		const struct hist_entry *e = hist__entry(h, i);
		char num[32];

		if (!shown(p, h, e))
			continue;
		if (p->top && printed >= p->top)
			break;
		printed++;
		fputs("  ", p->out);
		if (o->children) {
			snprintf(num, sizeof(num), "%.2f%%", pct(e->children, hist__total_period(h)));
			fprintf(p->out, "%8s  ", num);
		}
		snprintf(num, sizeof(num), "%.2f%%", pct(e->self, hist__total_period(h)));
		fprintf(p->out, "%8s", num);
		if (p->show_nr)
			fprintf(p->out, "  %12" PRIu64, o->children ? e->nr_children : e->nr_self);
		for (int k = 0; k < o->nr_keys; k++) {
			enum hist_key key = o->keys[k];

			key_value(buf, sizeof(buf), e, key);
			if (key == HK_SRCLINE && (int)strlen(buf) > width[k])
				buf[width[k]] = 0;	/* perf's "%-.*s" */
			/* perf pads every column but the last, and the last too unless it is sym, srcline or cpu */
			if (k == o->nr_keys - 1 && (key == HK_SYM || key == HK_SRCLINE || key == HK_CPU))
				fprintf(p->out, "  %s", buf);
			else
				fprintf(p->out, "  %-*s", width[k], buf);
		}
		fputc('\n', p->out);
		if (p->graph && o->callchain)
			print_graph(p, h, e);
	}
}

void report_print__json(const struct report_print *p, const struct hist *h, const char *event,
			unsigned long long lost)
{
	const struct hist_opts *o = hist__opts(h);
	size_t n = hist__nr_entries(h), printed = 0;
	FILE *f = p->out;

	fputs("{\"event\": ", f);
	json__str(f, event);
	fprintf(f, ", \"samples\": %" PRIu64 ", \"event_count\": %" PRIu64 ", \"lost\": %llu, \"entries\": [",
		hist__nr_samples(h), hist__total_period(h), lost);
	for (size_t i = 0; i < n; i++) {
		const struct hist_entry *e = hist__entry(h, i);
		char addr[32];

		if (!shown(p, h, e))
			continue;
		if (p->top && printed >= p->top)
			break;
		fprintf(f, "%s\n  {", printed++ ? "," : "");
		if (o->children)
			fprintf(f, "\"children\": %.4f, ", pct(e->children, hist__total_period(h)));
		fprintf(f, "\"self\": %.4f, \"samples\": %" PRIu64 ", \"period\": %" PRIu64 ", \"comm\": ",
			pct(e->self, hist__total_period(h)), o->children ? e->nr_children : e->nr_self,
			o->children ? e->children : e->self);
		json__str(f, e->comm);
		fprintf(f, ", \"pid\": %u, \"tid\": %u, \"dso\": ", e->pid, e->tid);
		json__str(f, e->dso);
		fputs(", \"symbol\": ", f);
		if (e->sym) {
			json__str(f, e->sym);
		} else {
			snprintf(addr, sizeof(addr), "%#" PRIx64, e->addr);
			json__str(f, addr);
		}
		fprintf(f, ", \"kernel\": %s", e->level == 'k' ? "true" : "false");
		if (e->srcline) {
			fputs(", \"srcline\": ", f);
			json__str(f, e->srcline);
		}
		fputc('}', f);
	}
	fputs("\n]}", f);
}

/* perf report --header's block, from the file's feature sections */
void report_print__file_header(const struct report_print *p, struct perfdata_reader *r)
{
	const struct perfdata_features *f = perfdata_reader__features(r);
	struct perfdata_reader_stats st;
	int nattrs;
	const struct perfdata_attr *attrs = perfdata_reader__attrs(r, &nattrs);

	perfdata_reader__stats(r, &st);
	fprintf(p->out, "# ========\n");
	fprintf(p->out, "# data offset    : %llu\n", (unsigned long long)st.data_offset);
	fprintf(p->out, "# data size      : %llu\n", (unsigned long long)st.data_size);
	if (f->hostname)
		fprintf(p->out, "# hostname : %s\n", f->hostname);
	if (f->osrelease)
		fprintf(p->out, "# os release : %s\n", f->osrelease);
	if (f->version)
		fprintf(p->out, "# perf version : %s\n", f->version);
	if (f->arch)
		fprintf(p->out, "# arch : %s\n", f->arch);
	if (f->nr_cpus_online) {
		fprintf(p->out, "# nrcpus online : %u\n", f->nr_cpus_online);
		fprintf(p->out, "# nrcpus avail : %u\n", f->nr_cpus_avail);
	}
	if (f->cpudesc)
		fprintf(p->out, "# cpudesc : %s\n", f->cpudesc);
	if (f->cpuid)
		fprintf(p->out, "# cpuid : %s\n", f->cpuid);
	if (f->total_mem_kb)
		fprintf(p->out, "# total memory : %llu kB\n", (unsigned long long)f->total_mem_kb);
	if (f->nr_cmdline) {
		fprintf(p->out, "# cmdline :");
		for (uint32_t i = 0; i < f->nr_cmdline; i++)
			fprintf(p->out, " %s", f->cmdline[i]);
		fprintf(p->out, "\n");
	}
	for (int i = 0; i < nattrs; i++) {
		const struct perf_event_attr *a = &attrs[i].attr;

		fprintf(p->out, "# event : name = %s, type = %u, config = %#llx, size = %u, %s = %llu, sample_type = %#llx\n",
			attrs[i].name ? attrs[i].name : "", a->type, (unsigned long long)a->config, a->size,
			a->freq ? "sample_freq" : "sample_period", (unsigned long long)a->sample_period,
			(unsigned long long)a->sample_type);
	}
	fprintf(p->out, "# samples : %llu, lost : %llu\n", (unsigned long long)st.nr_samples,
		(unsigned long long)st.lost);
	for (size_t i = 0; i < f->nr_build_ids; i++) {
		const struct perfdata_build_id *b = &f->build_ids[i];

		fprintf(p->out, "# build id : ");
		for (int k = 0; k < b->size; k++)
			fprintf(p->out, "%02x", b->id[k]);
		fprintf(p->out, " %s\n", b->filename ? b->filename : "");
	}
	fprintf(p->out, "# ========\n#\n");
}

void report_print__events(const struct report_print *p, struct hist *const *hists, const struct perfdata_attr *attrs,
			  int nr, unsigned long long lost, bool json, const char *input)
{
	if (json)
		fputs("{\"events\": [", p->out);
	for (int i = 0, shown = 0; i < nr; i++) {
		if (!hist__nr_samples(hists[i]) && nr > 1)
			continue;
		if (json) {
			fputs(shown ? ",\n" : "\n", p->out);
			report_print__json(p, hists[i], attrs[i].name, lost);
		} else {
			if (shown)
				fputs("\n\n", p->out);
			report_print__header(p, hists[i], attrs[i].name, lost, shown == 0);
			report_print__entries(p, hists[i]);
		}
		shown++;
	}
	if (json)
		fputs("\n]}\n", p->out);
	else if (!p->quiet)
		fprintf(p->out, "\n\n#\n# (Tip: draw these stacks with 'sonde flame -i %s -o flame.svg')\n#\n", input);
}

void report_print__top(const struct report_print *p, const struct hist *h, const struct top_screen *s)
{
	if (s->tty)
		fputs("\033[H\033[2J", p->out);
	fprintf(p->out, "   PerfTop: %7.0f irqs/sec  kernel:%4.1f%% lost: %llu [%s],  (%s)\n",
		s->rate, s->kernel_pct, s->lost, s->event, s->target);
	for (int i = 0; i < 79; i++)
		fputc('-', p->out);
	fprintf(p->out, "\n");
	if (p->only_comm || p->only_dso)
		fprintf(p->out, "   zoomed into %s%s%s%s\n", p->only_comm ? "command " : "", p->only_comm ? p->only_comm : "",
			p->only_dso ? "DSO " : "", p->only_dso ? p->only_dso : "");
	fprintf(p->out, "\n");
	report_print__entries(p, h);
	if (s->tty)
		fprintf(p->out, "\n   q quit   c zoom into the top command   d zoom into the top DSO   z zero each refresh%s   K/U kernel/user\n",
			s->zero ? " (on)" : "");
	fflush(p->out);
}
