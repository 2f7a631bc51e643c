// SPDX-License-Identifier: GPL-2.0
/*
 * tool_trace.c - BCC's trace: each probe specifier
 *   [{p,r}]:[LIB]:FUNC[(SIGNATURE)] [(FILTER)] ["FORMAT"[, ARGS...]]
 *   t:CATEGORY:EVENT [(FILTER)] ["FORMAT"[, ARGS...]]
 *   u:LIB:PROBE [(FILTER)] ["FORMAT"[, ARGS...]]
 * becomes one probe of a program that prints BCC's line for each event:
 * "PID TID COMM FUNC MESSAGE", after a TIME and a CPU column with -T/-t
 * and -C, and followed by the stacks with -K/-U. BCC counts the arguments
 * from arg1; the FORMAT's %d/%u/%x convert as BCC's do (to int, unsigned
 * int: %ld and %llx for 64 bits), %s reads a string of -Z bytes, %K and %U
 * are a kernel and a user address's symbol.
 */
#include "cmd/tool_gen.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct trace_opts {
	const char *pid, *tid, *uid, *name;
	long max_events, string_size;
	bool include_self, timestamp, unix_ts, time, cpu, kstack, ustack;
};

/*
 * FORMAT's conversions as sonde's printf takes them, each with the wrapping its
 * value needs (BCC's C types): fmt gets the format, wrap[i] "(int32)(%s)"-like.
 */
static int convert_format(const char *f, size_t flen, struct sbuf *fmt, char wrap[][32], int max, long strsize,
			  char *err, size_t errlen)
{
	int n = 0;

	for (size_t i = 0; i < flen; i++) {
		if (f[i] != '%') {
			sbuf__add(fmt, f + i, 1);
			continue;
		}
		if (i + 1 < flen && f[i + 1] == '%') {
			sbuf__add(fmt, "%%", 2);
			i++;
			continue;
		}
		size_t s = i + 1, e = s;

		while (e < flen && strchr("-+ #0", f[e]))
			e++;
		while (e < flen && isdigit((unsigned char)f[e]))
			e++;
		size_t spec_end = e;	/* flags and width, kept */
		char lenmod[3] = "";
		int l = 0;

		while (e < flen && (f[e] == 'l' || f[e] == 'h') && l < 2)
			lenmod[l++] = f[e++];
		lenmod[l] = 0;
		char conv = e < flen ? f[e] : 0;
		const char *w = NULL, *out = NULL;
		bool wide = !strcmp(lenmod, "l") || !strcmp(lenmod, "ll"), half = !strcmp(lenmod, "h");

		if (l && !wide && !half)
			conv = 0;
		switch (conv) {
		case 'd': w = wide ? "(int64)(%s)" : half ? "(int16)(%s)" : "(int32)(%s)"; out = "d"; break;
		case 'u': w = wide ? "(uint64)(%s)" : half ? "(uint16)(%s)" : "(uint32)(%s)"; out = "u"; break;
		case 'x': w = wide ? "(uint64)(%s)" : half ? NULL : "(uint32)(%s)"; out = "x"; break;
		case 'c': w = l ? NULL : "(int8)(%s)"; out = "c"; break;
		case 's': w = l ? NULL : "str(%s, SIZE)"; out = "s"; break;
		case 'K': w = l ? NULL : "ksym(%s)"; out = "s"; break;
		case 'U': w = l ? NULL : "usym(%s)"; out = "s"; break;
		}
		if (!w) {
			snprintf(err, errlen, "unrecognized format specifier '%%%.*s'", (int)(e + 1 - s < 8 ? e + 1 - s : 8),
				 f + s);
			return -1;
		}
		if (n >= max) {
			snprintf(err, errlen, "too many format specifiers");
			return -1;
		}
		sbuf__add(fmt, "%", 1);
		sbuf__add(fmt, f + s, spec_end - s);
		sbuf__printf(fmt, "%s%s", wide ? "l" : "", out);	/* printf's %d is C's: 32 bits */
		if (conv == 's')	/* -Z: the bytes read of a string */
			snprintf(wrap[n++], 32, "str(%%s, %ld)", strsize);
		else
			snprintf(wrap[n++], 32, "%s", w);
		i = e;
	}
	return n;
}

/* "(FILTER)" at *s, if there is one, rewritten into filt; *s moved past it; 0 or -1 with e2 */
static int trace_filter(const struct bcc_probe *p, const char **s, struct sbuf *filt, char *e2, size_t e2len)
{
	const char *f = *s, *c = *s;
	int depth = 0;

	if (*c != '(')
		return 0;
	for (; *c; c++) {	/* up to its balancing ')' */
		if (*c == '(')
			depth++;
		else if (*c == ')' && !--depth)
			break;
	}
	if (!*c) {
		snprintf(e2, e2len, "unmatched end of predicate");
		return -1;
	}
	if (bcc_expr__rewrite(p, f, (size_t)(c + 1 - f), filt, e2, e2len))
		return -1;
	for (c++; isspace((unsigned char)*c); c++)
		;
	*s = c;
	return 0;
}

/* "FORMAT", ARGS at s: the format into fmt, the values (", v1, v2") into vals; 0 or -1 with e2 */
static int trace_message(const struct bcc_probe *p, const char *s, long strsize, struct sbuf *fmt, struct sbuf *vals,
			 char *e2, size_t e2len)
{
	const char *q = s[0] == '"' ? strchr(s + 1, '"') : NULL;
	const char *start[16];
	size_t len[16];
	char wrap[16][32];
	int nfmt, nv;

	if (!q) {
		snprintf(e2, e2len, "expected format string in \"s");
		return -1;
	}
	nfmt = convert_format(s + 1, (size_t)(q - s - 1), fmt, wrap, 16, strsize, e2, e2len);
	if (nfmt < 0)
		return -1;
	for (s = q + 1; isspace((unsigned char)*s); s++)
		;
	if (*s == ',')
		s++;
	nv = tool_gen__split(s, start, len, 16);
	if (nv != nfmt) {
		snprintf(e2, e2len, "the format has %d specifiers and %d arguments follow it", nfmt, nv);
		return -1;
	}
	for (int i = 0; i < nv; i++) {
		struct sbuf v = { 0 };
		char *pct = strstr(wrap[i], "%s");	/* where the value goes */

		if (bcc_expr__rewrite(p, start[i], len[i], &v, e2, e2len)) {
			free(v.buf);
			return -1;
		}
		sbuf__printf(vals, ", %.*s%s%s", (int)(pct - wrap[i]), wrap[i], v.buf ? v.buf : "", pct + 2);
		free(v.buf);
	}
	return 0;
}

/* the probe's block: its predicate, then the printf of BCC's columns and the message */
static void trace_block(struct sbuf *b, const char *text, const struct bcc_probe *p, const struct trace_opts *o,
			const struct sbuf *filt, const struct sbuf *fmt, const struct sbuf *vals)
{
	struct sbuf pred = { 0 };	/* the process, the thread, the user, the name, trace itself, the filter */

	if (o->pid)
		sbuf__printf(&pred, "%spid == %s", pred.len ? " && " : "", o->pid);
	else if (o->tid)
		sbuf__printf(&pred, "%stid == %s", pred.len ? " && " : "", o->tid);
	else if (!o->include_self)
		sbuf__printf(&pred, "%spid != %d", pred.len ? " && " : "", (int)getpid());
	if (o->uid)
		sbuf__printf(&pred, "%suid == %s", pred.len ? " && " : "", o->uid);
	if (o->name)
		sbuf__printf(&pred, "%sstrcontains(comm, \"%s\")", pred.len ? " && " : "", o->name);
	if (filt->len)
		sbuf__printf(&pred, "%s%s", pred.len ? " && " : "", filt->buf);
	sbuf__printf(b, "\n// %s\n%s\n", text, p->attach);
	if (pred.len)
		sbuf__printf(b, "/%s/\n", pred.buf);
	free(pred.buf);
	sbuf__printf(b, "{\n");
	if (o->max_events > 0)
		sbuf__printf(b, "\tif (@events >= %ld) { return; }\n\t@events++;\n", o->max_events);
	sbuf__printf(b, "\tprintf(\"%s%s%%-7d %%-7d %%-15s %%-16s %s%s\\n\"",
		     o->unix_ts ? "%-17s " : o->timestamp ? "%-8.6f " : o->time ? "%-8s " : "", o->cpu ? "%-3d " : "",
		     fmt->buf ? fmt->buf : "", o->kstack || o->ustack ? "%s%s" : "");
	if (o->unix_ts)
		sbuf__printf(b, ", strftime(\"%%s.%%f\", nsecs)");
	else if (o->timestamp)
		sbuf__printf(b, ", fdiv(elapsed, 1000000000)");
	else if (o->time)
		sbuf__printf(b, ", strftime(\"%%H:%%M:%%S\", nsecs)");
	if (o->cpu)
		sbuf__printf(b, ", cpu");
	sbuf__printf(b, ",\n\t       pid, tid, comm, \"%s\"%s", p->func, vals->buf ? vals->buf : "");
	if (o->kstack || o->ustack)
		sbuf__printf(b, ", %s, %s", o->kstack ? "kstack" : "\"\"", o->ustack ? "ustack" : "\"\"");
	sbuf__printf(b, ");\n");
	if (o->max_events > 0)
		sbuf__printf(b, "\tif (@events == %ld) { exit(); }\n", o->max_events);
	sbuf__printf(b, "}\n");
}

/* one probe specifier: its probe block */
static int trace_probe(struct sbuf *b, const char *text, const struct trace_opts *o, bool *trivial, char *err,
		       size_t errlen)
{
	struct sbuf filt = { 0 }, fmt = { 0 }, vals = { 0 };
	struct bcc_probe p;
	const char *s;
	char e2[256];
	int rc = -1;

	if (!bcc_probe__parse(&p, text, &s, e2, sizeof(e2))) {
		while (isspace((unsigned char)*s))
			s++;
		if (!trace_filter(&p, &s, &filt, e2, sizeof(e2))) {
			*trivial &= !*s;	/* a message follows */
			if (!(*s && trace_message(&p, s, o->string_size, &fmt, &vals, e2, sizeof(e2)))) {
				trace_block(b, text, &p, o, &filt, &fmt, &vals);
				rc = 0;
			}
		}
	}
	if (rc)
		snprintf(err, errlen, "error in probe '%s': %s", text, e2);
	sbuf__free(&filt);
	sbuf__free(&fmt);
	sbuf__free(&vals);
	return rc;
}

char *tool_gen__trace(int npos, char *const *pos, const char *const *named, int nnamed, char *err, size_t errlen)
{
	struct trace_opts o = {
		.pid = tool_gen__opt(named, nnamed, "pid"), .tid = tool_gen__opt(named, nnamed, "tid"),
		.uid = tool_gen__opt(named, nnamed, "uid"), .name = tool_gen__opt(named, nnamed, "name"),
		.include_self = tool_gen__opt(named, nnamed, "include-self"),
		.timestamp = tool_gen__opt(named, nnamed, "timestamp"), .time = tool_gen__opt(named, nnamed, "time"),
		.unix_ts = tool_gen__opt(named, nnamed, "unix-timestamp"), .cpu = tool_gen__opt(named, nnamed, "print_cpu"),
		.kstack = tool_gen__opt(named, nnamed, "kernel-stack"), .ustack = tool_gen__opt(named, nnamed, "user-stack"),
		.string_size = 80,
	};
	const char *v;
	struct sbuf b = { 0 }, probes = { 0 };
	bool trivial = true;	/* no probe has a format: the header's last column is "" rather than "-" */

	if ((v = tool_gen__opt(named, nnamed, "max-events")))
		o.max_events = atol(v);
	if ((v = tool_gen__opt(named, nnamed, "string-size")))
		o.string_size = atol(v);
	if (o.string_size < 1 || o.string_size > 200) {
		snprintf(err, errlen, "-Z: a string size from 1 to 200 bytes");
		return NULL;
	}
	if (o.pid && o.tid) {
		snprintf(err, errlen, "only one of -p and -L may be specified");
		return NULL;
	}
	o.unix_ts &= o.timestamp;
	for (int i = 0; i < npos; i++)
		if (trace_probe(&probes, pos[i], &o, &trivial, err, errlen)) {
			free(probes.buf);
			return NULL;
		}
	sbuf__printf(&b, "// generated by sonde tool trace from its probes (each above its block)\n"
		     "config = { print_maps_on_exit = false; max_strlen = %ld }\n\n",
		     o.string_size < 64 ? 64 : o.string_size);
	/* the header: BCC's columns, and "-" over the messages unless no probe has one */
	sbuf__printf(&b, "BEGIN\n{\n\tprintf(\"%s%s%%-7s %%-7s %%-15s %%-16s %%s\\n\"%s%s, ",
		     o.unix_ts ? "%-17s " : (o.timestamp || o.time) ? "%-8s " : "", o.cpu ? "%-3s " : "",
		     (o.timestamp || o.time) ? ", \"TIME\"" : "", o.cpu ? ", \"CPU\"" : "");
	sbuf__printf(&b, "\"PID\", \"TID\", \"COMM\", \"FUNC\", \"%s\");\n}\n", trivial ? "" : "-");
	sbuf__add(&b, probes.buf, probes.len);
	free(probes.buf);
	if (b.oom || probes.oom) {
		free(b.buf);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return b.buf;
}
