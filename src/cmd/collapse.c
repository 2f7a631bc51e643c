// SPDX-License-Identifier: GPL-2.0
/*
 * collapse.c - `sonde collapse`: folded stacks ("comm;outer;...;leaf COUNT"), one
 * line per distinct stack, for flame graphs.
 *   - from a recording (-i FILE): the frames `perf script report stackcollapse`
 *     prints for it, counts = samples (--period: periods);
 *   - from `perf script` text on stdin (or -i -): what stackcollapse-perf.pl
 *     prints, with its options and name tidying, counts = the periods printed;
 *   - from the maps bpftrace and `sonde probe` print (`@[ustack] = count()`),
 *     on stdin or -i FILE: what stackcollapse-bpftrace.pl prints, offsets
 *     stripped (--offsets keeps them); which it is, the first 64 KiB say;
 *   - --diff BEFORE AFTER: difffolded.pl's two-column form.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/profile/collapse.h"
#include "lib/flame/folded.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const collapse_usage[] = {
	"sonde collapse [<options>] [-i FILE]",
	"perf script | sonde collapse [<options>]",
	"sonde probe -e '... { @[ustack] = count(); }' | sonde collapse [--map @NAME]",
	"sonde collapse --diff BEFORE.folded AFTER.folded",
	NULL,
};

#define MAX_WARNINGS 5

static void folded_warn(void *arg, const char *src, unsigned long lineno, const char *why)
{
	unsigned long *shown = arg;

	if ((*shown)++ < MAX_WARNINGS)
		warning("%s:%lu: skipped: %s", src, lineno, why);
}

static int collapse_diff(const char *before, const char *after, bool normalize)
{
	struct folded *f = folded__new(0);
	const char *files[2] = { before, after };
	int rc = 0;

	if (!f)
		return 1;
	for (int i = 0; i < 2 && !rc; i++) {
		FILE *in = strcmp(files[i], "-") ? fopen(files[i], "re") : stdin;

		if (!in) {
			error("cannot open '%s': %s", files[i], strerror(errno));
			rc = 1;
			break;
		}
		unsigned long shown = 0;
		long r = folded__read(f, in, files[i], i == 0 ? FOLDED_BEFORE : FOLDED_AFTER, folded_warn, &shown);

		if (r < 0) {
			error("cannot read '%s': %s", files[i], util__text_error((int)r));
			rc = 1;
		} else if (shown > MAX_WARNINGS) {
			warning("%s: ... and %lu more lines skipped", files[i], shown - MAX_WARNINGS);
		}
		if (in != stdin)
			fclose(in);
	}
	if (!rc) {
		if (normalize)
			folded__normalize(f);
		if (folded__finish(f) || folded__write(f, stdout, FOLDED_WRITE_DIFF))
			rc = 1;
	}
	folded__free(f);
	return rc;
}

struct text_src {
	const char *name;
	unsigned long shown;
};

static void text_warn(unsigned long line, const char *why, void *arg)
{
	struct text_src *t = arg;

	if (t->shown++ < MAX_WARNINGS)
		warning("%s:%lu: skipped: %s", t->name, line, why);
}

/* the first option given that bpftrace's maps do not have (or only they have) */
static const char *misfit_option(const struct collapse_opts *o, bool bpftrace)
{
	if (!bpftrace)
		return o->map ? "--map" : o->offsets ? "--offsets" : NULL;
	return o->pid ? "--pid" : o->tid ? "--tid" : o->kernel ? "--kernel" : o->jit ? "--jit" :
	       o->addrs ? "--addrs" : o->inline_ ? "--inline" : o->period ? "--period" :
	       o->event_filter ? "--event-filter" : o->filter.comms ? "--comms" : o->max_stack ? "--max-stack" : NULL;
}

/* bpftrace's maps or perf script text on in (named name); 0, or 1 when said why */
static int fold_text(struct folded *f, FILE *in, const char *name, const struct collapse_opts *o,
		     struct collapse_stats *st, bool *bpftrace)
{
	struct text_src t = { name, 0 };
	const char *misfit;
	FILE *r;
	int rc = collapse__sniff(in, bpftrace, &r);

	if (rc) {
		error("cannot read '%s': %s", name, strerror(-rc));
		return 1;
	}
	if ((misfit = misfit_option(o, *bpftrace))) {
		fclose(r);
		error("%s does not apply to %s", misfit,
		      *bpftrace ? "bpftrace's maps (the input is bpftrace output)" : "perf script text, only to bpftrace's maps");
		return 1;
	}
	if (*bpftrace)
		rc = collapse__bpftrace(f, r, o, FOLDED_AFTER, text_warn, &t, st);
	else
		rc = collapse__perf_script(f, r, o, text_warn, &t, st);
	fclose(r);
	if (rc < 0) {
		error("cannot read %s from %s: %s", *bpftrace ? "bpftrace output" : "perf script text", name,
		      util__text_error(rc));
		return 1;
	}
	if (st->skipped > MAX_WARNINGS)
		warning("%lu %s skipped in all", st->skipped, *bpftrace ? "entries" : "lines");
	if (!*bpftrace)
		return 0;
	if (!st->kept) {
		if (st->skipped)
			error("no entry of '%s' in %s could be folded", st->event, name);
		else if (o->map && st->other_events)
			error("no map '%s' keyed by a stack in %s (it has '%s')", o->map, name, st->other);
		else if (o->map)
			error("no map '%s' keyed by a stack in %s", o->map, name);
		else
			error("no map keyed by a stack (such as @[ustack] = count()) in %s", name);
		return 1;
	}
	if (st->other_events && !o->map)
		warning("several stack maps in the input: keeping '%s' only (choose with --map)", st->event);
	return 0;
}

/* -i FILE: a regular file that holds bpftrace's output is folded here (1: failed, said); else -1 */
static int fold_bpftrace_file(struct folded *f, const char *path, const struct collapse_opts *o,
			      struct collapse_stats *st)
{
	struct stat sb;
	bool bpftrace = false;
	FILE *in, *r;
	int rc;

	if (stat(path, &sb) || !S_ISREG(sb.st_mode) || !(in = fopen(path, "re")))
		return -1;
	if (collapse__sniff(in, &bpftrace, &r) || (fclose(r), !bpftrace)) {
		fclose(in);
		return -1;
	}
	rewind(in);
	rc = fold_text(f, in, path, o, st, &bpftrace);
	fclose(in);
	return rc;
}

int cmd_collapse(int argc, char **argv)
{
	struct collapse_opts o = { 0 };
	struct collapse_stats st;
	struct folded *f = NULL;
	const char *input = NULL;
	bool all = false, diff = false, normalize = false, bpftrace = false;
	char *map = NULL;
	const struct opt opts[] = {
		OPT_STRING('i', "input", &input, "FILE", "a recording or bpftrace output (default: perf script or bpftrace text on stdin, else sonde.data); - for stdin"),
		OPT_BOOL(0, "pid", &o.pid, "prefix stacks with comm-PID"),
		OPT_BOOL(0, "tid", &o.tid, "prefix stacks with comm-PID/TID"),
		OPT_BOOL(0, "kernel", &o.kernel, "mark kernel frames with _[k]"),
		OPT_BOOL(0, "jit", &o.jit, "mark JIT frames (/tmp/perf-PID.map) with _[j]"),
		OPT_BOOL(0, "all", &all, "--kernel and --jit"),
		OPT_BOOL(0, "addrs", &o.addrs, "keep the addresses of unknown frames"),
		OPT_BOOL(0, "inline", &o.inline_, "expand inlined functions, marked _[i]"),
		OPT_STRING(0, "event-filter", &o.event_filter, "EVENT", "only samples of this event (default: the first seen)"),
		OPT_STRING(0, "comms", &o.filter.comms, "COMMS", "only these commands (comma list)"),
		OPT_BOOL(0, "period", &o.period, "a recording: weight stacks by the sample period, not 1 (perf script text: always)"),
		OPT_INT(0, "max-stack", &o.max_stack, "N", "use at most N frames of each stack"),
		OPT_BOOL(0, "diff", &diff, "BEFORE AFTER: two-column folded stacks, as difffolded.pl"),
		OPT_BOOL('n', "normalize", &normalize, "with --diff: scale BEFORE to AFTER's total"),
		OPT_STRING(0, "map", &o.map, "@NAME", "bpftrace output: fold this map (default: the first keyed by a stack)"),
		OPT_BOOL(0, "offsets", &o.offsets, "bpftrace output: keep frames as printed (func+46), as stackcollapse-bpftrace.pl"),
		OPT_VERBOSE(),
		OPT_END(),
	};
	int rc = 1, r;

	argc = opt__parse(argc, argv, opts, collapse_usage, 0);
	if (diff) {
		if (argc != 2)
			opt__usage_error(collapse_usage, opts, "--diff takes two folded files: BEFORE AFTER");
		return collapse_diff(argv[0], argv[1], normalize);
	}
	if (argc)
		opt__usage_error(collapse_usage, opts, "unexpected argument '%s' (a recording is given with -i)", argv[0]);
	if (all)
		o.kernel = o.jit = true;
	if (o.max_stack < 0)
		opt__usage_error(collapse_usage, opts, "--max-stack cannot be negative");
	f = folded__new(0);
	if (!f) {
		error("out of memory");
		return 1;
	}
	if (o.map && o.map[0] != '@' && asprintf(&map, "@%s", o.map) > 0)
		o.map = map;
	if ((input && !strcmp(input, "-")) || (!input && !isatty(0))) {
		if (fold_text(f, stdin, "stdin", &o, &st, &bpftrace))
			goto out;
	} else if (input && (r = fold_bpftrace_file(f, input, &o, &st)) >= 0) {
		if (r)
			goto out;
		bpftrace = true;
	} else {
		char err[512];
		const char *misfit = misfit_option(&o, false);

		if (misfit) {
			error("%s does not apply to recordings, only to bpftrace's maps", misfit);
			goto out;
		}
		if (!input)
			input = default_recording();
		if (collapse__recording(f, input, &o, &st, err, sizeof(err)) < 0) {
			error("cannot read '%s': %s", input, err);
			goto out;
		}
		if (st.incomplete[0])
			warning("'%s': %s", input, st.incomplete);
		if (st.bad_records)
			warning("%lu records of '%s' could not be read and were skipped; the first: %s",
				st.bad_records, input, st.first_error);
	}
	if (!bpftrace && o.event_filter && !st.kept && st.other_events) {
		error("no samples of event '%s' in the input (it has '%s')", o.event_filter, st.other);
		goto out;
	}
	if (!bpftrace && st.other_events && !o.event_filter)
		warning("several events in the input: keeping '%s' only (choose with --event-filter)", st.event);
	if (folded__finish(f) || folded__write(f, stdout, 0)) {
		error("cannot write the folded stacks: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	folded__free(f);
	free(map);
	return rc;
}
