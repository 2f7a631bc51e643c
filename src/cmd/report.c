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

struct graph_opts {
	bool graph, caller, order_given;
};

/* -g graph,0.5,caller: perf's words, in any order */
static int parse_callgraph(const char *spec, struct graph_opts *g, double *graph_min)
{
	char *cg = strdup(spec), *save = NULL;

	if (!cg)
		return -1;
	for (char *t = strtok_r(cg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		double v = strtod(t, &end);

		if (!strcmp(t, "none") || !strcmp(t, "no"))
			g->graph = false;
		else if (!strcmp(t, "caller"))
			g->caller = g->order_given = true;
		else if (!strcmp(t, "callee")) {
			g->caller = false;
			g->order_given = true;
		}
		else if (!strcmp(t, "graph") || !strcmp(t, "function") || !strcmp(t, "percent"))
			;
		else if (end != t && !*end)
			*graph_min = v;
		else {
			free(cg);
			return -1;
		}
	}
	free(cg);
	return 0;
}

static bool wants_srcline(const struct hist_opts *ho)
{
	for (int i = 0; i < ho->nr_keys; i++)
		if (ho->keys[i] == HK_SRCLINE)
			return true;
	return false;
}

/*
 * perf's elision: with one --comms name, the comm key says nothing; leave its
 * column out when other keys remain and name it in the header
 */
static const char *elide_comm(struct hist_opts *ho, const char *comms)
{
	int k = 0;

	if (!comms || strchr(comms, ',') || !*comms)
		return NULL;
	for (int i = 0; i < ho->nr_keys; i++)
		if (ho->keys[i] == HK_COMM)
			k = i + 1;
	if (!k)
		return NULL;
	if (ho->nr_keys > 1) {
		memmove(&ho->keys[k - 1], &ho->keys[k], (ho->nr_keys - k) * sizeof(ho->keys[0]));
		ho->nr_keys--;
	}
	return comms;
}

/* any event with call chains or stack copies */
static bool has_callchain(struct session *s)
{
	int n;
	const struct perfdata_attr *attrs = perfdata_reader__attrs(session__reader(s), &n);

	for (int i = 0; i < n; i++)
		if (attrs[i].attr.sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER))
			return true;
	return false;
}

/* sonde.data, or perf.data when only that one is here */
const char *default_recording(void)
{
	if (access("sonde.data", F_OK) && !access("perf.data", F_OK))
		return "perf.data";
	return "sonde.data";
}

/* what the options set beside the printer's, the session's and the hist's */
struct report_opts {
	const char *input;
	bool children, json, inline_, header, header_only;
	struct graph_opts g;
};

/* the options into o, pr, so and ho, checked (a usage error exits 129) */
static void parse_options(struct report_opts *o, struct report_print *pr, struct session_opts *so,
			  struct hist_opts *ho, int argc, char **argv)
{
	const char *sort = "comm,dso,sym", *callgraph = NULL, *bad;
	bool no_children = false, stdio_ = true;
	int max_stack = 0, top = 0;
	const struct opt opts[] = {
		OPT_STRING('i', "input", &o->input, "FILE", "the recording (default sonde.data, or perf.data)"),
		OPT_BOOL(0, "stdio", &stdio_, "text output (the only interface; accepted for perf's users)"),
		OPT_BOOL(0, "children", &o->children, "inclusive (children) percentages when there are call graphs (default)"),
		OPT_BOOL(0, "no-children", &no_children, "self percentages only"),
		OPT_STRING('s', "sort", &sort, "KEYS", "group by these keys: comm,pid,tid,dso,sym,cpu,srcline (default comm,dso,sym)"),
		OPT_STRING('g', "call-graph", &callgraph, "MODE", "graph (default), caller, callee, none; perf's 'graph,0.5,caller' works"),
		OPT_DOUBLE(0, "percent-limit", &pr->percent_limit, "PCT", "hide entries below PCT percent"),
		OPT_INT(0, "top", &top, "N", "show the N hottest entries"),
		OPT_BOOL('n', "show-nr-samples", &pr->show_nr, "a column with the number of samples"),
		OPT_BOOL(0, "json", &o->json, "JSON for scripts"),
		OPT_STRING(0, "comms", &so->filter.comms, "COMMS", "only these commands (comma list)"),
		OPT_STRING(0, "pid", &so->filter.pids, "PIDS", "only these processes"),
		OPT_STRING(0, "tid", &so->filter.tids, "TIDS", "only these threads"),
		OPT_INT(0, "max-stack", &max_stack, "N", "use at most N frames of each stack"),
		OPT_BOOL(0, "inline", &o->inline_, "inlined functions in DWARF-unwound stacks as frames of their own (default: "
			 "perf's; --no-inline)"),
		OPT_STRING(0, "symfs", &so->symfs, "DIR", "look for the recorded files under DIR first"),
		OPT_STRING(0, "kallsyms", &so->kallsyms, "FILE", "kernel symbols from a copy of the recorded machine's /proc/kallsyms "
			   "(else this boot's, cached in ~/.cache/sonde; SONDE_NO_KSYMCACHE=1 reads /proc/kallsyms)"),
		OPT_BOOL('q', "quiet", &pr->quiet, "no header"),
		OPT_BOOL(0, "header", &o->header, "first the recording's header: host, kernel, CPUs, command line, events"),
		OPT_BOOL(0, "header-only", &o->header_only, "only the recording's header"),
		OPT_VERBOSE(),
		OPT_END(),
	};

	argc = opt__parse(argc, argv, opts, report_usage, 0);
	opt__check_ids(report_usage, so->filter.pids, false);
	opt__check_ids(report_usage, so->filter.tids, true);
	if (argc)
		opt__usage_error(report_usage, opts, "unexpected argument '%s' (the recording is given with -i)", argv[0]);
	if (!o->input)
		o->input = default_recording();
	if (hist__parse_sort(ho, sort, &bad))
		opt__usage_error(report_usage, opts, "unknown sort key '%s' (comm, pid, tid, dso, sym, cpu, srcline)", bad);
	if (callgraph && parse_callgraph(callgraph, &o->g, &pr->graph_min))
		opt__usage_error(report_usage, opts, "-g '%s': expected graph, caller, callee, none or a threshold", callgraph);
	if (top < 0 || max_stack < 0 || pr->percent_limit < 0)
		opt__usage_error(report_usage, opts, "--top, --max-stack and --percent-limit cannot be negative");
	o->children = o->children && !no_children;
	pr->top = top;
	so->max_stack = max_stack;
	so->keep_filtered = true;	/* perf's percentages stay of all samples */
	pr->elided_comm = elide_comm(ho, so->filter.comms);
	/* srcline: the lines of inlined frames too, where each was inlined */
	so->sym_flags = (o->inline_ ? SYM_INLINE_UNWOUND : 0) | (wants_srcline(ho) ? SYM_SRCLINE | SYM_BINUTILS_FILES : 0);
}

/* what reading the recording met: the reader's warning, the records it skipped */
static void warn_read(struct session *s, const char *input)
{
	if (perfdata_reader__warning(session__reader(s)))
		warning("'%s': %s", input, perfdata_reader__warning(session__reader(s)));
	if (session__bad_records(s))
		warning("%lu records of '%s' could not be read and were skipped; the first: %s",
			session__bad_records(s), input, session__first_error(s));
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .children = true, .inline_ = true, .g = { .graph = true, .caller = true } };
	struct report_print pr = { .out = stdout, .graph_min = 0.5 };
	struct session_opts so = { 0 };
	struct session *s = NULL;
	struct hist_opts ho = { 0 };
	struct perfdata_reader_stats st;
	const struct perfdata_attr *attrs;
	struct hist **hists = NULL;
	bool cc;
	char err[512];
	int rc = 1, nattrs = 0;

	parse_options(&o, &pr, &so, &ho, argc, argv);
	rc = session__open(&s, o.input, &so, err, sizeof(err));
	if (rc) {
		error("cannot read '%s': %s", o.input, err);
		if (rc == -ENOENT)
			hint("record one with 'sonde record -g -- COMMAND' (or give a perf.data with -i)");
		return 1;
	}
	if (o.header || o.header_only)
		report_print__file_header(&pr, session__reader(s));
	if (o.header_only) {
		session__free(s);
		return 0;
	}
	cc = has_callchain(s);
	ho.children = o.children && cc;
	ho.callchain = cc && o.g.graph;
	/* perf: caller-first graphs under inclusive entries, callee-first under self ones */
	ho.caller = o.g.order_given ? o.g.caller : ho.children;
	pr.graph = ho.callchain;
	ho.lines = session__symbolizer(s);	/* srcline: the source lines of the frames it resolved */
	ho.inline_lines = o.inline_;
	rc = hist__from_session(s, &ho, &hists, &nattrs);
	if (rc) {
		error("cannot read '%s': %s", o.input, strerror(-rc));
		rc = 1;
		goto out;
	}
	warn_read(s, o.input);
	perfdata_reader__stats(session__reader(s), &st);
	attrs = perfdata_reader__attrs(session__reader(s), &nattrs);
	report_print__events(&pr, hists, attrs, nattrs, st.lost, o.json, o.input);
	rc = 0;
out:
	for (int i = 0; hists && i < nattrs; i++)
		hist__free(hists[i]);
	free(hists);
	session__free(s);
	return rc;
}
