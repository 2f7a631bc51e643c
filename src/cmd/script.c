// SPDX-License-Identifier: GPL-2.0
/*
 * script.c - `sonde script`: the samples of a recording (sonde's or perf's) as
 * text in perf script's default format, with perf's -F field selection, for the
 * tools that read perf script output (stackcollapse-perf.pl, speedscope, Firefox
 * Profiler, hotspot's importers).
 */
#include "sonde.h"
#include "opt.h"
#include "lib/perfdata/perfdata.h"
#include "lib/profile/session.h"
#include "lib/perfdata/tracedata.h"
#include "ui/script_print.h"

#include <errno.h>
#include <string.h>

static const char *const script_usage[] = {
	"sonde script [<options>]",
	NULL,
};

int cmd_script(int argc, char **argv)
{
	struct script_print sc;
	const char *input = NULL, *fields = NULL;
	bool inline_ = true;
	int max_stack = 0, rc = 1;
	struct session_opts so = { 0 };
	char err[512];
	const struct opt opts[] = {
		OPT_STRING('i', "input", &input, "FILE", "the recording (default sonde.data, or perf.data)"),
		OPT_STRING('F', "fields", &fields, "FIELDS", "comm,tid,pid,time,cpu,event,trace,ip,sym,symoff,dso,addr,"
			   "srcline,period; +f/-f change the defaults; sw:/hw:/trace: for one kind of event"),
		OPT_BOOL(0, "ns", &sc.ns, "times in nanoseconds"),
		OPT_BOOL('G', "hide-call-graph", &sc.hide_callgraph, "only the sampled address, not the call chain"),
		OPT_STRING(0, "comms", &so.filter.comms, "COMMS", "only these commands (comma list)"),
		OPT_STRING(0, "pid", &so.filter.pids, "PIDS", "only these processes"),
		OPT_STRING(0, "tid", &so.filter.tids, "TIDS", "only these threads"),
		OPT_STRING('S', "symbols", &so.filter.syms, "SYMS", "only samples in these functions (comma list)"),
		OPT_BOOL(0, "show-task-events", &sc.show_task, "also COMM, FORK and EXIT records"),
		OPT_BOOL(0, "show-mmap-events", &sc.show_mmap, "also MMAP and MMAP2 records"),
		OPT_BOOL(0, "show-lost-events", &sc.show_lost, "also LOST records"),
		OPT_INT(0, "max-stack", &max_stack, "N", "at most N frames per call chain"),
		OPT_BOOL(0, "inline", &inline_, "inlined functions in DWARF-unwound stacks as frames of their own (default: "
			 "perf's; --no-inline)"),
		OPT_VERBOSE(),
		OPT_END(),
	};
	const struct perfdata_features *feat;
	struct session *s = NULL;
	struct tracedata *td = NULL;

	script_print__init(&sc, stdout);
	argc = opt__parse(argc, argv, opts, script_usage, 0);
	opt__check_ids(script_usage, so.filter.pids, false);
	opt__check_ids(script_usage, so.filter.tids, true);
	if (argc)
		opt__usage_error(script_usage, opts, "unexpected argument '%s'", argv[0]);
	if (max_stack < 0)
		opt__usage_error(script_usage, opts, "--max-stack cannot be negative");
	if (fields && script_print__parse_fields(&sc, fields, err, sizeof(err)))
		opt__usage_error(script_usage, opts, "%s", err);
	if (!input)
		input = default_recording();
	so.max_stack = max_stack;
	so.no_callchain = sc.hide_callgraph;
	sc.inline_ = inline_;
	so.sym_flags = (inline_ ? SYM_INLINE_UNWOUND : 0) |
		       (script_print__wants_srcline(&sc) ? SYM_SRCLINE | SYM_BINUTILS_FILES : 0);
	rc = session__open(&s, input, &so, err, sizeof(err));
	if (rc) {
		error("cannot read '%s': %s", input, err);
		if (rc == -ENOENT)
			hint("record one with 'sonde record -g -- COMMAND' (or give a perf.data with -i)");
		return 1;
	}
	rc = 1;
	feat = perfdata_reader__features(session__reader(s));
	if (tracedata__new(&td, feat->tracing_data, feat->tracing_data_size, err, sizeof(err))) {
		warning("'%s': %s; tracepoint fields come from this machine's formats", input, err);
		tracedata__new(&td, NULL, 0, err, sizeof(err));
	}
	if (script_print__setup(&sc, s, td)) {
		error("out of memory");
		goto out;
	}
	rc = session__walk(s, script_print__sample, script_print__event, &sc);
	if (rc < 0) {
		if (rc != -EIO || !ferror(sc.out))
			error("cannot read '%s': %s", input, strerror(-rc));
		rc = 1;
		goto out;
	}
	rc = 0;
	if (perfdata_reader__warning(session__reader(s)))
		warning("'%s': %s", input, perfdata_reader__warning(session__reader(s)));
	if (session__bad_records(s))
		warning("%lu records of '%s' could not be read and were skipped; the first: %s",
			session__bad_records(s), input, session__first_error(s));
out:
	script_print__free(&sc);
	tracedata__free(td);
	session__free(s);
	return rc;
}
