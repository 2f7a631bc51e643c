// SPDX-License-Identifier: GPL-2.0
/*
 * flame.c - `sonde flame`: folded stacks (files, stdin, two profiles to
 * compare, or a recording) to an interactive SVG flame graph, or to
 * speedscope / pprof files. flamegraph.pl's options keep their names and
 * meanings.
 *
 * A recording (-i FILE) is folded by src/lib/profile/collapse.c, as `sonde collapse -i`
 * folds it; an input that holds bpftrace's maps (`@[ustack] = count()`) is
 * folded as `sonde collapse` folds it.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/export/export.h"
#include "lib/flame/flamegraph.h"
#include "lib/profile/collapse.h"
#include "lib/flame/folded.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const flame_usage[] = {
	"sonde flame [<options>] [FILE...]",
	"sonde flame --diff [<options>] BEFORE AFTER",
	"sonde flame [<options>] -i sonde.data",
	NULL,
};

#define MAX_WARNINGS 10

struct flame_cmd {
	struct flame_opts fo;
	const char *output, *format, *minwidth, *recording;
	bool diff, normalize, strip_hex, reverse, cp;
	unsigned long warned;
};

static void warn_line(void *arg, const char *src, unsigned long lineno, const char *why)
{
	struct flame_cmd *c = arg;

	if (++c->warned <= MAX_WARNINGS)
		warning("%s:%lu: line skipped: %s", src, lineno, why);
}

/* --minwidth NUM or NUM%, as flamegraph.pl: ^[0-9.]+%?$ */
static int parse_minwidth(struct flame_cmd *c)
{
	const char *s = c->minwidth;
	char *end;
	size_t n = strlen(s);

	if (!n || strspn(s, "0123456789.") < n - (s[n - 1] == '%') || s[0] == '%')
		return -1;
	c->fo.minwidth = strtod(s, &end);
	if (end == s)
		return -1;
	c->fo.minwidth_pct = s[n - 1] == '%';
	return 0;
}

struct bt_src {
	struct flame_cmd *c;
	const char *name;
};

static void warn_entry(unsigned long line, const char *why, void *arg)
{
	struct bt_src *b = arg;

	warn_line(b->c, b->name, line, why);
}

/* bpftrace's maps, folded as `sonde collapse` folds them */
static long read_bpftrace(struct folded *f, struct flame_cmd *c, FILE *in, const char *name, enum folded_slot slot)
{
	struct collapse_opts o = { 0 };
	struct collapse_stats st;
	struct bt_src b = { c, name };
	int rc = collapse__bpftrace(f, in, &o, slot, warn_entry, &b, &st);

	if (!rc && !st.kept && !st.skipped)
		warning("%s: no map keyed by a stack (such as @[ustack] = count()) in this bpftrace output", name);
	if (!rc && st.other_events)
		warning("several stack maps in '%s': drawing '%s' only", name, st.event);
	return rc;
}

/* folded stacks, or the maps bpftrace prints */
static int read_input(struct folded *f, struct flame_cmd *c, const char *path, enum folded_slot slot)
{
	FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin, *text;
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	bool bpftrace;
	long bad;

	if (!in) {
		error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	bad = collapse__sniff(in, &bpftrace, &text);
	if (!bad) {
		if (bpftrace)
			bad = read_bpftrace(f, c, text, name, slot);
		else
			bad = folded__read(f, text, name, slot, warn_line, c);
		fclose(text);
	}
	if (in != stdin)
		fclose(in);
	if (bad < 0) {
		error("cannot read '%s': %s", name, util__text_error((int)bad));
		return -1;
	}
	return 0;
}

/* a recording, folded as `sonde collapse -i` folds it */
static int read_recording(struct folded *f, struct flame_cmd *c, const char *path)
{
	struct collapse_opts o = { 0 };
	struct collapse_stats st;
	char err[512];

	(void)c;
	if (collapse__recording(f, path, &o, &st, err, sizeof(err)) < 0) {
		error("cannot read '%s': %s", path, err);
		return -1;
	}
	if (st.incomplete[0])
		warning("'%s': %s", path, st.incomplete);
	if (st.bad_records)
		warning("%lu records of '%s' could not be read and were skipped; the first: %s",
			st.bad_records, path, st.first_error);
	if (st.other_events)
		warning("several events in '%s': drawing '%s' only", path, st.event);
	return 0;
}

/* the recording, the two profiles of --diff, the folded files or stdin; 0, 1 or 129 (no input) */
static int read_inputs(struct folded *f, struct flame_cmd *c, int argc, char **argv)
{
	if (c->recording)
		return read_recording(f, c, c->recording) ? 1 : 0;
	if (c->diff) {
		if (read_input(f, c, argv[0], FOLDED_BEFORE) || read_input(f, c, argv[1], FOLDED_AFTER))
			return 1;
		if (c->normalize)
			folded__normalize(f);
		return 0;
	}
	if (argc == 0) {
		if (isatty(STDIN_FILENO)) {
			error("no input: give folded files, pipe folded stacks in, or -i a recording");
			hint("perf script | stackcollapse-perf.pl | sonde flame >cpu.svg, or sonde flame -i sonde.data -o cpu.svg");
			return 129;
		}
		return read_input(f, c, "-", FOLDED_AFTER) ? 1 : 0;
	}
	for (int i = 0; i < argc; i++)
		if (read_input(f, c, argv[i], FOLDED_AFTER))
			return 1;
	return 0;
}

static int write_output(struct folded *f, struct flame_cmd *c, FILE *out)
{
	struct flame_result res;
	char err[512] = "";
	int rc;

	if (!strcmp(c->format, "folded")) {
		/* the merged stacks, sorted as stackcollapse-perf.pl sorts; with --diff difffolded.pl's form */
		rc = folded__write(f, out, folded__is_diff(f) ? FOLDED_WRITE_DIFF : 0);
		if (rc)
			snprintf(err, sizeof(err), "cannot write the folded stacks: %s", strerror(-rc));
	} else if (!strcmp(c->format, "speedscope")) {
		if (folded__total(f) <= 0) {
			error("no valid stacks in the input: nothing to export");
			return 2;
		}
		rc = export__speedscope(f, out, c->fo.title ? c->fo.title : "sonde flame",
					!strcmp(c->fo.countname, "bytes") ? "bytes" : "none", err, sizeof(err));
	} else if (!strcmp(c->format, "pprof")) {
		if (folded__total(f) <= 0) {
			error("no valid stacks in the input: nothing to export");
			return 2;
		}
		rc = export__pprof(f, out, c->fo.countname, !strcmp(c->fo.countname, "bytes") ? "bytes" : "count",
				   err, sizeof(err));
	} else {
		rc = flame__render(f, &c->fo, out, &res, err, sizeof(err));
		if (!rc && res.empty) {
			error("no valid stacks in the input: the SVG only says so");
			return 2;
		}
		if (!rc && res.total_ignored)
			warning("--total %g is less than the actual total %g, so it is ignored",
				c->fo.total, (double)folded__total(f));
		if (!rc && !strcmp(c->fo.countname, "samples") && res.total < 100)
			warning("stack count is low (%g samples): the graph may not show much", res.total);
		if (!rc)
			debug(1, "%u frames drawn, %u narrower than the minimum width left out, depth %u",
			      res.drawn, res.elided, res.depth);
	}
	if (rc) {
		error("%s", err[0] ? err : strerror(-rc));
		return rc == -EINVAL ? 129 : 1;
	}
	return 0;
}

/* to -o FILE or stdout */
static int write_file(struct folded *f, struct flame_cmd *c)
{
	FILE *out = stdout;
	int rc;

	if (c->output && !(out = fopen(c->output, "w"))) {
		error("cannot create '%s': %s", c->output, strerror(errno));
		return 1;
	}
	rc = write_output(f, c, out);
	if (out != stdout && fclose(out) && !rc) {
		error("cannot write '%s': %s", c->output, strerror(errno));
		rc = 1;
	}
	return rc;
}

int cmd_flame(int argc, char **argv)
{
	struct flame_cmd c = { .format = "svg" };
	const char *colors = NULL;
	struct folded *f;
	unsigned flags = 0;
	int rc = 0;

	flame_opts__init(&c.fo);
	const struct opt opts[] = {
		OPT_GROUP("input and output"),
		OPT_STRING('i', "input", &c.recording, "FILE", "a recording (sonde record, perf record), folded as sonde collapse -i does"),
		OPT_STRING('o', "output", &c.output, "FILE", "write to FILE instead of stdout"),
		OPT_STRING(0, "format", &c.format, "FMT", "svg (default), speedscope (JSON), pprof (gzip'd profile.proto), folded (merged stacks)"),
		OPT_BOOL(0, "diff", &c.diff, "differential graph of two profiles: BEFORE AFTER (difffolded.pl)"),
		OPT_BOOL('n', "normalize", &c.normalize, "with --diff, scale BEFORE to AFTER's total (difffolded.pl -n)"),
		OPT_BOOL('s', "strip-hex", &c.strip_hex, "0x1234 in frame names becomes 0x... (difffolded.pl -s)"),
		OPT_GROUP("flamegraph.pl's options"),
		OPT_STRING(0, "title", &c.fo.title, "TEXT", "title (default \"Flame Graph\")"),
		OPT_STRING(0, "subtitle", &c.fo.subtitle, "TEXT", "second line under the title"),
		OPT_INT(0, "width", &c.fo.width, "PX", "image width (default 1200)"),
		OPT_INT(0, "height", &c.fo.height, "PX", "height of each frame (default 16)"),
		OPT_STRING(0, "minwidth", &c.minwidth, "NUM[%]", "leave out frames narrower than NUM px, or NUM% of the total (default 0.1 px)"),
		OPT_STRING(0, "fonttype", &c.fo.fonttype, "FONT", "font (default Verdana)"),
		OPT_DOUBLE(0, "fontsize", &c.fo.fontsize, "NUM", "font size (default 12)"),
		OPT_DOUBLE(0, "fontwidth", &c.fo.fontwidth, "NUM", "average glyph width / font size (default 0.59)"),
		OPT_STRING(0, "countname", &c.fo.countname, "TEXT", "unit of the counts (default \"samples\")"),
		OPT_STRING(0, "nametype", &c.fo.nametype, "TEXT", "name type label (default \"Function:\")"),
		OPT_STRING(0, "colors", &colors, "PALETTE", "hot (default), mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, purple, orange"),
		OPT_STRING(0, "bgcolors", &c.fo.bgcolors, "COLOR", "background: yellow, blue, green, grey or #rrggbb"),
		OPT_BOOL(0, "hash", &c.fo.hash, "colours keyed by a hash of the name"),
		OPT_BOOL(0, "random", &c.fo.random, "random colours, different on every run"),
		OPT_BOOL(0, "cp", &c.cp, "consistent palette: read and update palette.map"),
		OPT_BOOL(0, "reverse", &c.reverse, "reverse each stack (a bottom-up graph)"),
		OPT_BOOL(0, "inverted", &c.fo.inverted, "icicle graph: the root at the top"),
		OPT_BOOL(0, "flamechart", &c.fo.flamechart, "flame chart: keep the input order, time on x"),
		OPT_BOOL(0, "negate", &c.fo.negate, "swap the differential colours (red and blue)"),
		OPT_DOUBLE(0, "factor", &c.fo.factor, "NUM", "multiply the counts shown by NUM"),
		OPT_STRING(0, "notes", &c.fo.notes, "TEXT", "notes written into the SVG"),
		OPT_DOUBLE(0, "total", &c.fo.total, "NUM", "the 100% count, to draw several graphs to one scale"),
		OPT_STRING(0, "encoding", &c.fo.encoding, "ENC", "encoding of the XML declaration"),
		OPT_VERBOSE(),
		OPT_END(),
	};

	argc = opt__parse(argc, argv, opts, flame_usage, 0);
	if (colors)
		c.fo.colors = colors;
	if (flame__check_palette(c.fo.colors))
		opt__usage_error(flame_usage, opts, "unknown palette '%s'", c.fo.colors);
	if (c.fo.bgcolors && flame__check_bgcolors(c.fo.bgcolors))
		opt__usage_error(flame_usage, opts, "unknown background '%s' (yellow, blue, green, grey or #rrggbb)",
				 c.fo.bgcolors);
	if (c.minwidth && parse_minwidth(&c))
		opt__usage_error(flame_usage, opts, "--minwidth takes a number of pixels or a percentage, not '%s'",
				 c.minwidth);
	if (strcmp(c.format, "svg") && strcmp(c.format, "speedscope") && strcmp(c.format, "pprof") &&
	    strcmp(c.format, "folded"))
		opt__usage_error(flame_usage, opts, "unknown format '%s' (svg, speedscope, pprof or folded)", c.format);
	if (c.recording && (c.diff || argc))
		opt__usage_error(flame_usage, opts, "-i takes the recording: no folded files or --diff with it");
	if (c.diff && argc != 2)
		opt__usage_error(flame_usage, opts, "--diff takes two files, BEFORE and AFTER");
	if (c.normalize && !c.diff)
		opt__usage_error(flame_usage, opts, "--normalize needs --diff");
	if (c.cp)
		c.fo.cp_file = "palette.map";

	if (c.reverse)
		flags |= FOLDED_REVERSE;
	if (c.fo.flamechart)
		flags |= FOLDED_FLAMECHART;
	if (c.strip_hex)
		flags |= FOLDED_STRIP_HEX;
	if (!(f = folded__new(flags))) {
		error("out of memory");
		return 1;
	}
	rc = read_inputs(f, &c, argc, argv);
	if (rc == 129) {
		folded__free(f);
		return 129;
	}
	if (rc)
		goto fail;
	if (c.warned > MAX_WARNINGS)
		warning("%lu malformed lines skipped in all (the first %d shown)", c.warned, MAX_WARNINGS);
	if (folded__finish(f)) {
		error("out of memory");
		goto fail;
	}
	rc = write_file(f, &c);
	folded__free(f);
	return rc;
fail:
	folded__free(f);
	return 1;
}
