// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - `sonde report`: the hottest functions of a recording (sonde's or
 * perf's), with self and children percentages and call graphs, as
 * `perf report --stdio` prints them; --json for scripts.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/profile/hist.h"
#include "lib/profile/session.h"
#include "ui/report_print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const report_usage[] = {
	"sonde report [<options>] [-i FILE]",
	NULL,
};

struct report_ctx {
	struct hist **hists;		/* one per event of the recording */
	int nr_attrs;
	int err;
};

static int on_sample(const struct session_sample *smp, void *arg)
{
	struct report_ctx *c = arg;
	int rc;

	if (smp->attr_idx < 0 || smp->attr_idx >= c->nr_attrs)
		return 0;
	rc = hist__add(c->hists[smp->attr_idx], smp);
	if (rc)
		c->err = rc;
	return rc;
}

/* perf report --header's block, from the file's feature sections */
static void print_header(struct perfdata_reader *r, const struct perfdata_attr *attrs, int nattrs)
{
	const struct perfdata_features *f = perfdata_reader__features(r);
	struct perfdata_reader_stats st;

	perfdata_reader__stats(r, &st);
	printf("# ========\n");
	printf("# data offset    : %llu\n", (unsigned long long)st.data_offset);
	printf("# data size      : %llu\n", (unsigned long long)st.data_size);
	if (f->hostname)
		printf("# hostname : %s\n", f->hostname);
	if (f->osrelease)
		printf("# os release : %s\n", f->osrelease);
	if (f->version)
		printf("# perf version : %s\n", f->version);
	if (f->arch)
		printf("# arch : %s\n", f->arch);
	if (f->nr_cpus_online) {
		printf("# nrcpus online : %u\n", f->nr_cpus_online);
		printf("# nrcpus avail : %u\n", f->nr_cpus_avail);
	}
	if (f->cpudesc)
		printf("# cpudesc : %s\n", f->cpudesc);
	if (f->cpuid)
		printf("# cpuid : %s\n", f->cpuid);
	if (f->total_mem_kb)
		printf("# total memory : %llu kB\n", (unsigned long long)f->total_mem_kb);
	if (f->nr_cmdline) {
		printf("# cmdline :");
		for (uint32_t i = 0; i < f->nr_cmdline; i++)
			printf(" %s", f->cmdline[i]);
		printf("\n");
	}
	for (int i = 0; i < nattrs; i++) {
		const struct perf_event_attr *a = &attrs[i].attr;

		printf("# event : name = %s, type = %u, config = %#llx, size = %u, %s = %llu, sample_type = %#llx\n",
		       attrs[i].name ? attrs[i].name : "", a->type, (unsigned long long)a->config, a->size,
		       a->freq ? "sample_freq" : "sample_period", (unsigned long long)a->sample_period,
		       (unsigned long long)a->sample_type);
	}
	printf("# samples : %llu, lost : %llu\n", (unsigned long long)st.nr_samples, (unsigned long long)st.lost);
	for (size_t i = 0; i < f->nr_build_ids; i++) {
		const struct perfdata_build_id *b = &f->build_ids[i];

		printf("# build id : ");
		for (int k = 0; k < b->size; k++)
			printf("%02x", b->id[k]);
		printf(" %s\n", b->filename ? b->filename : "");
	}
	printf("# ========\n#\n");
}

/* sonde.data, or perf.data when only that one is here */
const char *default_recording(void)
{
	if (access("sonde.data", F_OK) && !access("perf.data", F_OK))
		return "perf.data";
	return "sonde.data";
}

int cmd_report(int argc, char **argv)
{
	const char *input = NULL, *sort = "comm,dso,sym", *callgraph = NULL;
	bool children = true, no_children = false, json = false, stdio_ = true, inline_ = true;
	bool header = false, header_only = false;
	struct report_print pr = { .out = stdout, .graph_min = 0.5 };
	struct report_ctx ctx = { 0 };
	struct session_opts so = { 0 };
	int max_stack = 0;
	int top = 0;
	const struct opt opts[] = {
		OPT_STRING('i', "input", &input, "FILE", "the recording (default sonde.data, or perf.data)"),
		OPT_BOOL(0, "stdio", &stdio_, "text output (the only interface; accepted for perf's users)"),
		OPT_BOOL(0, "children", &children, "inclusive (children) percentages when there are call graphs (default)"),
		OPT_BOOL(0, "no-children", &no_children, "self percentages only"),
		OPT_STRING('s', "sort", &sort, "KEYS", "group by these keys: comm,pid,tid,dso,sym,cpu,srcline (default comm,dso,sym)"),
		OPT_STRING('g', "call-graph", &callgraph, "MODE", "graph (default), caller, callee, none; perf's 'graph,0.5,caller' works"),
		OPT_DOUBLE(0, "percent-limit", &pr.percent_limit, "PCT", "hide entries below PCT percent"),
		OPT_INT(0, "top", &top, "N", "show the N hottest entries"),
		OPT_BOOL('n', "show-nr-samples", &pr.show_nr, "a column with the number of samples"),
		OPT_BOOL(0, "json", &json, "JSON for scripts"),
		OPT_STRING(0, "comms", &so.filter.comms, "COMMS", "only these commands (comma list)"),
		OPT_STRING(0, "pid", &so.filter.pids, "PIDS", "only these processes"),
		OPT_STRING(0, "tid", &so.filter.tids, "TIDS", "only these threads"),
		OPT_INT(0, "max-stack", &max_stack, "N", "use at most N frames of each stack"),
		OPT_BOOL(0, "inline", &inline_, "inlined functions in DWARF-unwound stacks as frames of their own (default: "
			 "perf's; --no-inline)"),
		OPT_STRING(0, "symfs", &so.symfs, "DIR", "look for the recorded files under DIR first"),
		OPT_STRING(0, "kallsyms", &so.kallsyms, "FILE", "kernel symbols from a copy of the recorded machine's /proc/kallsyms"),
		OPT_BOOL('q', "quiet", &pr.quiet, "no header"),
		OPT_BOOL(0, "header", &header, "first the recording's header: host, kernel, CPUs, command line, events"),
		OPT_BOOL(0, "header-only", &header_only, "only the recording's header"),
		OPT_VERBOSE(),
		OPT_END(),
	};
	struct session *s = NULL;
	struct hist_opts ho = { 0 };
	struct perfdata_reader_stats st;
	const struct perfdata_attr *attrs;
	bool caller = true, graph = true, has_callchain = false, order_given = false;
	char err[512];
	const char *bad;
	int rc = 1, nattrs;

	argc = opt__parse(argc, argv, opts, report_usage, 0);
	opt__check_ids(report_usage, so.filter.pids, false);
	opt__check_ids(report_usage, so.filter.tids, true);
	if (argc)
		opt__usage_error(report_usage, opts, "unexpected argument '%s' (the recording is given with -i)", argv[0]);
	if (!input)
		input = default_recording();
	if (hist__parse_sort(&ho, sort, &bad))
		opt__usage_error(report_usage, opts, "unknown sort key '%s' (comm, pid, tid, dso, sym, cpu, srcline)", bad);
	if (callgraph) {
		char *cg = strdup(callgraph), *save = NULL;

		for (char *t = strtok_r(cg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			char *end;
			double v = strtod(t, &end);

			if (!strcmp(t, "none") || !strcmp(t, "no"))
				graph = false;
			else if (!strcmp(t, "caller"))
				caller = order_given = true;
			else if (!strcmp(t, "callee")) {
				caller = false;
				order_given = true;
			}
			else if (!strcmp(t, "graph") || !strcmp(t, "function") || !strcmp(t, "percent"))
				;
			else if (end != t && !*end)
				pr.graph_min = v;
			else {
				free(cg);
				opt__usage_error(report_usage, opts, "-g '%s': expected graph, caller, callee, none or a threshold", callgraph);
			}
		}
		free(cg);
	}
	if (top < 0 || max_stack < 0 || pr.percent_limit < 0)
		opt__usage_error(report_usage, opts, "--top, --max-stack and --percent-limit cannot be negative");
	pr.top = top;
	so.max_stack = max_stack;
	so.sym_flags = inline_ ? SYM_INLINE_UNWOUND : 0;
	for (int i = 0; i < ho.nr_keys; i++)	/* the lines of inlined frames: where each was inlined */
		if (ho.keys[i] == HK_SRCLINE)
			so.sym_flags |= SYM_SRCLINE | SYM_BINUTILS_FILES;
	rc = session__open(&s, input, &so, err, sizeof(err));
	if (rc) {
		error("cannot read '%s': %s", input, err);
		if (rc == -ENOENT)
			hint("record one with 'sonde record -g -- COMMAND' (or give a perf.data with -i)");
		return 1;
	}
	attrs = perfdata_reader__attrs(session__reader(s), &nattrs);
	if (header || header_only) {
		print_header(session__reader(s), attrs, nattrs);
		if (header_only) {
			session__free(s);
			return 0;
		}
	}
	for (int i = 0; i < nattrs; i++)
		has_callchain |= !!(attrs[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN) ||
				 !!(attrs[i].attr.sample_type & PERF_SAMPLE_STACK_USER);
	ho.children = children && !no_children && has_callchain;
	ho.callchain = has_callchain && graph;
	/* perf: caller-first graphs under inclusive entries, callee-first under self ones */
	ho.caller = order_given ? caller : ho.children;
	pr.graph = ho.callchain;
	ho.lines = session__symbolizer(s);	/* srcline: the source lines of the frames it resolved */
	ho.inline_lines = inline_;
	ctx.nr_attrs = nattrs;
	ctx.hists = calloc(nattrs ? nattrs : 1, sizeof(*ctx.hists));
	rc = 1;
	if (!ctx.hists)
		goto out;
	for (int i = 0; i < nattrs; i++)
		if (!(ctx.hists[i] = hist__new(&ho)))
			goto out;
	if (session__walk(s, on_sample, NULL, &ctx) < 0 || ctx.err) {
		error("cannot read '%s': %s", input, strerror(ctx.err ? -ctx.err : EIO));
		goto out;
	}
	if (perfdata_reader__warning(session__reader(s)))
		warning("'%s': %s", input, perfdata_reader__warning(session__reader(s)));
	if (session__bad_records(s))
		warning("%lu records of '%s' could not be read and were skipped; the first: %s",
			session__bad_records(s), input, session__first_error(s));
	perfdata_reader__stats(session__reader(s), &st);
	if (json)
		fputs("{\"events\": [", stdout);
	for (int i = 0, shown = 0; i < nattrs; i++) {
		if (!hist__nr_samples(ctx.hists[i]) && nattrs > 1)
			continue;
		hist__sort(ctx.hists[i]);
		if (json) {
			fputs(shown ? ",\n" : "\n", stdout);
			report_print__json(&pr, ctx.hists[i], attrs[i].name, st.lost);
		} else {
			if (shown)
				fputs("\n\n", stdout);
			report_print__header(&pr, ctx.hists[i], attrs[i].name, st.lost, shown == 0);
			report_print__entries(&pr, ctx.hists[i]);
		}
		shown++;
	}
	if (json)
		fputs("\n]}\n", stdout);
	else if (!pr.quiet)
		printf("\n\n#\n# (Tip: draw these stacks with 'sonde flame -i %s -o flame.svg')\n#\n", input);
	rc = 0;
out:
	for (int i = 0; ctx.hists && i < nattrs; i++)
		hist__free(ctx.hists[i]);
	free(ctx.hists);
	session__free(s);
	return rc;
}
