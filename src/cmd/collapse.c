// SPDX-License-Identifier: GPL-2.0
/*
 * collapse.c - `sonde collapse`: folded stacks ("comm;outer;...;leaf COUNT"), one
 * line per distinct stack, for flame graphs.
 *   - from a recording (-i FILE): the frames `perf script report stackcollapse`
 *     prints for it, counts = samples (--period: periods);
 *   - from `perf script` text on stdin (or -i -): what stackcollapse-perf.pl
 *     prints, with its options and name tidying;
 *   - --diff BEFORE AFTER: difffolded.pl's two-column form.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/folded.h"
#include "lib/perfscript.h"
#include "lib/session.h"

#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const collapse_usage[] = {
	"sonde collapse [<options>] [-i FILE]",
	"perf script | sonde collapse [<options>]",
	"sonde collapse --diff BEFORE.folded AFTER.folded",
	NULL,
};

struct collapse {
	bool pid, tid, kernel, jit, addrs, inline_, period;
	const char *event_filter;
	bool event_defaulted, event_warned;
	char *event_seen;
	struct folded *f;
	char **names;		/* scratch: frame names of one stack, root first */
	size_t *lens;
	size_t *caps;		/* bytes allocated for each name: reused from stack to stack */
	size_t cap;
	unsigned long skipped;
	int err;
};

static int reserve(struct collapse *c, size_t n)
{
	if (n <= c->cap)
		return 0;
	size_t nc = n + 64;
	char **nn = realloc(c->names, nc * sizeof(*nn));

	if (!nn)
		return -ENOMEM;
	c->names = nn;
	size_t *nl = realloc(c->lens, nc * sizeof(*nl));

	if (!nl)
		return -ENOMEM;
	c->lens = nl;
	size_t *ncaps = realloc(c->caps, nc * sizeof(*ncaps));

	if (!ncaps)
		return -ENOMEM;
	c->caps = ncaps;
	for (size_t i = c->cap; i < nc; i++) {
		c->names[i] = NULL;
		c->caps[i] = 0;
	}
	c->cap = nc;
	return 0;
}

static void set_name(struct collapse *c, size_t i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_name(struct collapse *c, size_t i, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(c->names[i], c->caps[i], fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= c->caps[i]) {
		char *nb = realloc(c->names[i], n + 64);

		if (!nb) {
			c->err = -ENOMEM;
			c->lens[i] = 0;
			return;
		}
		c->names[i] = nb;
		c->caps[i] = n + 64;
		va_start(ap, fmt);
		n = vsnprintf(c->names[i], c->caps[i], fmt, ap);
		va_end(ap);
	}
	if (n < 0) {
		c->err = -EINVAL;
		n = 0;
	}
	c->lens[i] = n;
}

static char *process_name(const struct collapse *c, const char *comm, const char *pid, const char *tid)
{
	char *s;
	int rc;

	if (c->tid)
		rc = asprintf(&s, "%s-%s/%s", comm, pid, tid);
	else if (c->pid)
		rc = asprintf(&s, "%s-%s", comm, pid);
	else
		rc = asprintf(&s, "%s", comm);
	if (rc < 0)
		return NULL;
	for (char *p = s; *p; p++)
		if (*p == ' ')
			*p = '_';
	return s;
}

static int add_stack(struct collapse *c, size_t n, double count)
{
	if (c->err)
		return c->err;
	return folded__add_frames(c->f, (const char *const *)c->names, c->lens, n, count, 0);
}

static bool event_wanted(struct collapse *c, const char *event)
{
	if (!c->event_filter) {
		free(c->event_seen);
		c->event_seen = strdup(event);
		c->event_filter = c->event_seen;
		c->event_defaulted = true;
		return true;
	}
	if (!strcmp(event, c->event_filter))
		return true;
	if (c->event_defaulted && !c->event_warned) {
		warning("several events in the input: keeping '%s' only (choose with --event-filter)", c->event_filter);
		c->event_warned = true;
	}
	return false;
}

/* ---- a recording: perf's stackcollapse.py frames ---- */

static int on_sample(const struct session_sample *smp, void *arg)
{
	struct collapse *c = arg;
	char pid[16], tid[16], *pname;
	size_t n = 0;

	if (!event_wanted(c, smp->event_name))
		return 0;
	if (reserve(c, smp->nr_frames + 1))
		return -ENOMEM;
	snprintf(pid, sizeof(pid), "%u", smp->s->pid);
	snprintf(tid, sizeof(tid), "%u", smp->s->tid);
	pname = process_name(c, smp->comm, pid, tid);
	if (!pname)
		return -ENOMEM;
	set_name(c, n++, "%s", pname);
	free(pname);
	for (int i = smp->nr_frames - 1; i >= 0; i--) {
		const struct session_frame *f = &smp->frames[i];
		const char *dso = f->sym.dso ? f->sym.dso : "";
		const char *suffix = "";

		if (f->sym.inlined && c->inline_)
			suffix = "_[i]";
		else if (c->kernel && f->kernel)
			suffix = "_[k]";
		else if (c->jit && !fnmatch("/tmp/perf-*.map", dso, 0))
			suffix = "_[j]";
		if (f->sym.sym)
			set_name(c, n, "%s%s", f->sym.sym, suffix);
		else if (c->addrs)
			set_name(c, n, "[unknown <%llx>]%s", (unsigned long long)f->ip, suffix);
		else
			set_name(c, n, "[unknown]%s", suffix);
		/* a ';' would split the frame */
		for (char *p = c->names[n]; p && *p; p++)
			if (*p == ';')
				*p = ':';
		n++;
	}
	return add_stack(c, n, c->period ? (double)smp->s->period : 1.0);
}

/* ---- perf script text: stackcollapse-perf.pl's frames ---- */

static regex_t re_offset, re_dotparen;

static void tidy(char *f)
{
	regmatch_t m;
	char *p;

	for (p = f; *p; p++)
		if (*p == ';')
			*p = ':';
	if (regexec(&re_dotparen, f, 0, NULL, 0)) {
		/* drop C++ argument lists, but keep "(anonymous namespace)" */
		for (p = strchr(f, '('); p; p = strchr(p + 1, '('))
			if (strncmp(p, "(anonymous namespace)", 21)) {
				*p = 0;
				break;
			}
	}
	for (p = f; *p;) {
		if (*p == '"' || *p == '\'')
			memmove(p, p + 1, strlen(p));
		else
			p++;
	}
	(void)m;
}

static int on_text(const struct ps_sample *s, void *arg)
{
	struct collapse *c = arg;
	char *pname;
	size_t n = 0, total = 0;

	if (!event_wanted(c, s->event))
		return 0;
	/* each frame may hold an inline chain "a->b->c" */
	for (size_t i = 0; i < s->nr_frames; i++) {
		total++;
		for (const char *p = s->frames[i].func; (p = strstr(p, "->")); p += 2)
			total++;
	}
	if (reserve(c, total + 1))
		return -ENOMEM;
	pname = process_name(c, s->comm, s->pid, s->tid);
	if (!pname)
		return -ENOMEM;
	set_name(c, n++, "%s", pname);
	free(pname);
	for (size_t fi = s->nr_frames; fi-- > 0;) {
		const struct ps_frame *fr = &s->frames[fi];
		char *raw = strdup(fr->func), *save = NULL;
		regmatch_t m;
		char *parts[64];
		int np = 0;
		const char *mod = fr->dso;

		if (!raw)
			return -ENOMEM;
		if (!regexec(&re_offset, raw, 1, &m, 0))
			raw[m.rm_so] = 0;
		if (raw[0] == '(') {
			free(raw);
			continue;	/* a process name, not a frame */
		}
		for (char *t = raw, *arrow; t && np < 64; t = arrow ? arrow + 2 : NULL) {
			arrow = strstr(t, "->");
			if (arrow)
				*arrow = 0;
			parts[np++] = t;
		}
		(void)save;
		/* stackcollapse-perf.pl keeps an "a->b" chain in its written order */
		for (int k = 0; k < np; k++) {
			char *func = parts[k];
			const char *suffix = "";

			if (!strcmp(func, "[unknown]")) {
				const char *base = strrchr(mod, '/');

				base = base ? base + 1 : mod;
				if (strcmp(mod, "[unknown]") && *mod) {
					if (c->addrs)
						set_name(c, n, "[%s <%s>]", base, fr->addr);
					else
						set_name(c, n, "[%s]", base);
				} else {
					if (c->addrs)
						set_name(c, n, "[unknown <%s>]", fr->addr);
					else
						set_name(c, n, "[unknown]");
				}
			} else {
				set_name(c, n, "%s", func);
				if (c->names[n])
					tidy(c->names[n]);
			}
			if (np > 1)
				suffix = "_[i]";
			else if (c->kernel && (mod[0] == '[' || (strlen(mod) >= 7 && !strcmp(mod + strlen(mod) - 7, "vmlinux"))) &&
				 !strstr(mod, "unknown"))
				suffix = "_[k]";
			else if (c->jit && !fnmatch("/tmp/perf-*.map", mod, 0))
				suffix = "_[j]";
			if (*suffix && c->names[n] && !strstr(c->names[n], suffix)) {
				char *old = strdup(c->names[n]);

				if (!old)
					return -ENOMEM;
				set_name(c, n, "%s%s", old, suffix);
				free(old);
			}
			c->lens[n] = c->names[n] ? strlen(c->names[n]) : 0;
			n++;
		}
		free(raw);
	}
	return add_stack(c, n, c->period && *s->period ? strtod(s->period, NULL) : 1.0);
}

static void text_warn(unsigned long line, const char *why, void *arg)
{
	struct collapse *c = arg;

	if (c->skipped++ < 5)
		warning("stdin:%lu: skipped: %s", line, why);
}

static void folded_warn(void *arg, const char *src, unsigned long lineno, const char *why)
{
	(void)arg;
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
		if (folded__read(f, in, files[i], i == 0 ? FOLDED_BEFORE : FOLDED_AFTER, folded_warn, NULL) < 0) {
			error("cannot read '%s': %s", files[i], strerror(errno));
			rc = 1;
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

int cmd_collapse(int argc, char **argv)
{
	struct collapse c = { 0 };
	const char *input = NULL;
	bool all = false, diff = false, normalize = false;
	int max_stack = 0;
	const struct opt opts[] = {
		OPT_STRING('i', "input", &input, "FILE", "a recording (default: perf script text on stdin, else sonde.data); - for stdin"),
		OPT_BOOL(0, "pid", &c.pid, "prefix stacks with comm-PID"),
		OPT_BOOL(0, "tid", &c.tid, "prefix stacks with comm-PID/TID"),
		OPT_BOOL(0, "kernel", &c.kernel, "mark kernel frames with _[k]"),
		OPT_BOOL(0, "jit", &c.jit, "mark JIT frames (/tmp/perf-PID.map) with _[j]"),
		OPT_BOOL(0, "all", &all, "--kernel and --jit"),
		OPT_BOOL(0, "addrs", &c.addrs, "keep the addresses of unknown frames"),
		OPT_BOOL(0, "inline", &c.inline_, "expand inlined functions, marked _[i]"),
		OPT_STRING(0, "event-filter", &c.event_filter, "EVENT", "only samples of this event (default: the first seen)"),
		OPT_BOOL(0, "period", &c.period, "weight stacks by the sample period, not 1"),
		OPT_INT(0, "max-stack", &max_stack, "N", "use at most N frames of each stack"),
		OPT_BOOL(0, "diff", &diff, "BEFORE AFTER: two-column folded stacks, as difffolded.pl"),
		OPT_BOOL('n', "normalize", &normalize, "with --diff: scale BEFORE to AFTER's total"),
		OPT_VERBOSE(),
		OPT_END(),
	};
	int rc = 1;

	argc = opt__parse(argc, argv, opts, collapse_usage, 0);
	if (diff) {
		if (argc != 2)
			opt__usage_error(collapse_usage, opts, "--diff takes two folded files: BEFORE AFTER");
		return collapse_diff(argv[0], argv[1], normalize);
	}
	if (argc)
		opt__usage_error(collapse_usage, opts, "unexpected argument '%s' (a recording is given with -i)", argv[0]);
	if (all)
		c.kernel = c.jit = true;
	if (max_stack < 0)
		opt__usage_error(collapse_usage, opts, "--max-stack cannot be negative");
	if (regcomp(&re_offset, "\\+0x[0-9a-f]+$", REG_EXTENDED) ||
	    regcomp(&re_dotparen, "\\.\\(.*\\)\\.", REG_EXTENDED)) {
		error("cannot compile the name patterns");
		return 1;
	}
	c.f = folded__new(0);
	if (!c.f)
		goto out;
	if ((input && !strcmp(input, "-")) || (!input && !isatty(0))) {
		int r = perfscript__read(stdin, on_text, text_warn, &c);

		if (r < 0) {
			error("cannot read perf script text from stdin: %s", strerror(-r));
			goto out;
		}
		if (c.skipped > 5)
			warning("%lu lines skipped in all", c.skipped);
	} else {
		struct session_opts so = { .sym_flags = c.inline_ ? SYM_INLINE : 0, .max_stack = max_stack };
		struct session *s;
		char err[512];

		if (!input)
			input = default_recording();
		if (session__open(&s, input, &so, err, sizeof(err))) {
			error("cannot read '%s': %s", input, err);
			goto out;
		}
		if (session__walk(s, on_sample, NULL, &c) < 0) {
			error("cannot read '%s': %s", input, strerror(-c.err ? -c.err : EIO));
			session__free(s);
			goto out;
		}
		if (session__bad_records(s))
			warning("%lu records of '%s' could not be read and were skipped; the first: %s",
				session__bad_records(s), input, session__first_error(s));
		session__free(s);
	}
	if (c.err || folded__finish(c.f) || folded__write(c.f, stdout, 0)) {
		error("cannot write the folded stacks: %s", strerror(c.err ? -c.err : errno));
		goto out;
	}
	rc = 0;
out:
	regfree(&re_offset);
	regfree(&re_dotparen);
	for (size_t i = 0; i < c.cap; i++)
		free(c.names[i]);
	free(c.names);
	free(c.lens);
	free(c.caps);
	free(c.event_seen);
	folded__free(c.f);
	return rc;
}
