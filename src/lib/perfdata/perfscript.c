// SPDX-License-Identifier: GPL-2.0
/* perfscript.c - parsing perf script's default text; see perfscript.h */
#include "lib/perfdata/perfscript.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ps_state {
	char *hdr;			/* the header line, split in place */
	struct ps_sample s;
	struct ps_frame *frames;	/* sized for the current sample */
	char **lines;			/* frame lines (owned) */
	size_t n, cap;
};

static void reset(struct ps_state *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->lines[i]);
	st->n = 0;
	free(st->hdr);
	st->hdr = NULL;
}

/*
 * "comm pid/tid [cpu] time: period event:" -> fields. comm may hold spaces: it
 * ends before the first run of blanks followed by digits (and /digits) and a
 * blank, as stackcollapse-perf.pl reads it.
 */
static bool parse_header(struct ps_state *st, char *line)
{
	char *p = line + 1, *end;
	size_t len;

	for (; *p; p++) {
		char *q, *num;

		if (!isspace((unsigned char)*p))
			continue;
		q = p;
		while (isspace((unsigned char)*q))
			q++;
		if (!isdigit((unsigned char)*q))
			continue;
		num = q;
		while (isdigit((unsigned char)*q))
			q++;
		if (*q == '/') {
			q++;
			if (!isdigit((unsigned char)*q))
				continue;
			while (isdigit((unsigned char)*q))
				q++;
		}
		if (*q && !isspace((unsigned char)*q))
			continue;
		/* found: comm = line..p, ids = num..q */
		*p = 0;
		st->s.comm = line;
		{
			char *slash = memchr(num, '/', q - num);
			char saved = *q;

			*q = 0;
			if (slash) {
				*slash = 0;
				st->s.pid = num;
				st->s.tid = slash + 1;
			} else {
				st->s.pid = "?";
				st->s.tid = num;
			}
			if (!saved) {
				st->s.event = "";
				st->s.period = "";
				return true;
			}
			p = q + 1;
		}
		/*
		 * the tail, as stackcollapse-perf.pl reads it (":\s*(\d+)*\s+(\S+):\s*$"):
		 * the last word, ending in ':', is the event only after "TIME:" and a
		 * period, if any; "java 3278 cpu-clock:" (no time) names no event
		 */
		len = strlen(p);
		while (len && isspace((unsigned char)p[len - 1]))
			p[--len] = 0;
		st->s.event = "";
		st->s.period = "";
		if (len && p[len - 1] == ':') {
			char *ev_end = p + len - 1, *ev = ev_end, *d;

			while (ev > p && !isspace((unsigned char)ev[-1]))
				ev--;
			end = ev;
			while (end > p && isspace((unsigned char)end[-1]))
				end--;
			if (end == ev || ev == ev_end)
				return true;
			d = end;
			while (d > p && isdigit((unsigned char)d[-1]))
				d--;
			while (d > p && isspace((unsigned char)d[-1]))
				d--;
			if (d == p || d[-1] != ':')
				return true;
			*ev_end = 0;
			st->s.event = ev;
			*end = 0;
			for (d = end; d > p && isdigit((unsigned char)d[-1]); d--)
				;
			st->s.period = d;
		}
		return true;
	}
	return false;
}

/* does a line parse as a sample header (on a copy)? */
static bool header_like(const char *line)
{
	struct ps_state tmp = { 0 };
	char *copy = strdup(line);
	bool ok = copy && parse_header(&tmp, copy);

	free(copy);
	return ok;
}

/*
 * "\t  addr func (dso)", as stackcollapse-perf.pl matches it
 * ("^\s*(\w+)\s*(.+) \((.*)\)"): the dso is between the last " (" and the
 * last ')' after it, the function is what precedes (spaces and parentheses
 * included: "ns::f(int) (/bin/x)"); anything after that ')' is ignored.
 * An empty function ("7f1e58  (libc.so)") is the space before " (".
 */
static bool parse_frame(char *line, struct ps_frame *f)
{
	char *p = line, *addr, *addr_end, *ws_end, *open = NULL, *close;

	while (isspace((unsigned char)*p))
		p++;
	addr = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (p == addr)
		return false;
	addr_end = p;
	while (isspace((unsigned char)*p))
		p++;
	ws_end = p;
	close = strrchr(p, ')');
	if (!close)
		return false;
	for (char *q = addr_end; q + 1 < close; q++)
		if (q[0] == ' ' && q[1] == '(')
			open = q;
	if (!open || open == addr_end || (open > ws_end && ws_end == addr_end))
		return false;	/* (perl would cut the address short to make a function) */
	f->func = open > ws_end ? ws_end : open - 1;
	f->dso = open + 2;
	*close = 0;
	*open = 0;
	if (f->func == open - 1 && open - 1 < ws_end) {
		/* the function is one blank: keep it, apart from the address */
		static char blank[] = " ";

		f->func = blank;
	}
	*addr_end = 0;
	f->addr = addr;
	return true;
}

static int emit(struct ps_state *st, ps_sample_fn fn, void *arg, bool ended)
{
	int rc;

	if (!st->hdr)
		return 0;
	if (st->n) {
		struct ps_frame *nf = realloc(st->frames, st->n * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		st->frames = nf;
	}
	for (size_t i = 0; i < st->n; i++)
		if (!parse_frame(st->lines[i], &st->frames[i]))
			return -EINVAL;	/* checked when read */
	st->s.frames = st->frames;
	st->s.nr_frames = st->n;
	st->s.ended = ended;
	rc = fn(&st->s, arg);
	reset(st);
	return rc;
}

int perfscript__read(FILE *in, ps_sample_fn fn, ps_warn_fn warn, void *arg)
{
	struct ps_state st = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long lineno = 0;
	int rc = 0;
	struct util_lines lines;

	if ((rc = util__lines_begin(&lines, in)))
		return rc;
	while ((len = util__read_line(&lines, &line, &cap, UTIL_MAX_LINE)) >= 0) {
		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len) {
			rc = emit(&st, fn, arg, true);
			if (rc)
				break;
			continue;
		}
		if (line[0] == '#')
			continue;
		if (isspace((unsigned char)line[0]) || (st.hdr && !header_like(line))) {
			/* a frame; stackcollapse-perf.pl takes one unindented too ("java 19983 cycles:" dumps) */
			struct ps_frame f;
			char *copy;

			if (!st.hdr) {
				if (warn)
					warn(lineno, "a frame line outside a sample", arg);
				continue;
			}
			copy = strdup(line);
			if (!copy) {
				rc = -ENOMEM;
				break;
			}
			if (!parse_frame(copy, &f)) {
				free(copy);
				if (warn)
					warn(lineno, "not a frame ('ADDR FUNC (DSO)')", arg);
				continue;
			}
			free(copy);
			if (st.n == st.cap || !st.lines) {
				size_t nc = st.cap ? st.cap * 2 : 32;
				char **nl = realloc(st.lines, nc * sizeof(*nl));

				if (!nl) {
					rc = -ENOMEM;
					break;
				}
				st.lines = nl;
				st.cap = nc;
			}
			st.lines[st.n] = strdup(line);
			if (!st.lines[st.n]) {
				rc = -ENOMEM;
				break;
			}
			st.n++;
			continue;
		}
		/* a new header: a sample without a blank line before it ends here */
		rc = emit(&st, fn, arg, true);
		if (rc)
			break;
		st.hdr = strdup(line);
		if (!st.hdr) {
			rc = -ENOMEM;
			break;
		}
		if (!parse_header(&st, st.hdr)) {
			free(st.hdr);
			st.hdr = NULL;
			if (warn)
				warn(lineno, "not a sample header ('COMM PID TIME: PERIOD EVENT:')", arg);
			continue;
		}
		st.s.line = lineno;
	}
	if (!rc && len < -1)
		rc = (int)len;	/* binary data, an endless line, a read error: util__text_error() */
	if (!rc)
		rc = emit(&st, fn, arg, false);
	reset(&st);
	free(st.lines);
	free(st.frames);
	free(line);
	return rc;
}
