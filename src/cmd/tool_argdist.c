// SPDX-License-Identifier: GPL-2.0
/*
 * tool_argdist.c - BCC's argdist: each -C (count) or -H (histogram) specifier
 *   {p,r,t,u}:{[LIB],CATEGORY}:FUNC(SIGNATURE)[:TYPE[,TYPE...]:EXPR[,EXPR...][:FILTER]][#LABEL]
 * becomes a probe that counts its expressions' values in a map (a hist()
 * for -H), and an interval probe prints every map as BCC does each -i
 * seconds: "[HH:MM:SS]", then per specifier its label, "\tCOUNT      EVENT"
 * and one "\tN          expr = value" row per value (or the histogram),
 * and clears them unless -c. In a return probe (r:) $retval is the return
 * value, $entry(NAME) the parameter NAME as it was at the call and $latency
 * the call's time in nanoseconds: an entry probe keeps those per thread.
 */
#include "cmd/tool_gen.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct argdist_opts {
	const char *pid;
	long string_size, interval, count, top;
	bool cumulative;
};

/* "$latency" and "$entry(NAME)" of probe N into the maps its entry probe fills; which were seen */
static void entry_refs(const char *e, size_t len, int n, struct sbuf *out, bool *lat, char names[][32], int *nnames)
{
	for (size_t i = 0; i < len; ) {
		if (!strncmp(e + i, "$latency", 8) && i + 8 <= len) {
			sbuf__printf(out, "(nsecs - @start%d[tid])", n);
			*lat = true;
			i += 8;
			continue;
		}
		if (i + 7 <= len && !strncmp(e + i, "$entry(", 7)) {
			size_t s = i + 7, c = s;

			while (c < len && e[c] != ')')
				c++;
			char nm[32];

			snprintf(nm, sizeof(nm), "%.*s", (int)(c - s), e + s);
			int k;

			for (k = 0; k < *nnames && strcmp(names[k], nm); k++)
				;
			if (k == *nnames && *nnames < 6)
				snprintf(names[(*nnames)++], 32, "%s", nm);
			sbuf__printf(out, "@entry%d_%s[tid]", n, nm);
			i = c < len ? c + 1 : len;
			continue;
		}
		sbuf__add(out, e + i, 1);
		i++;
	}
}

static int argdist_probe(struct sbuf *b, struct sbuf *show, int n, const char *spec, bool hist,
			 const struct argdist_opts *o, char *err, size_t errlen)
{
	char text[1024], *label = NULL, *parts[6], e2[256];
	int np = 0, rc = -1;
	struct bcc_probe p;
	const char *end;
	struct sbuf filt = { 0 }, key = { 0 }, disp = { 0 };
	bool lat = false;
	char names[6][32];
	int nnames = 0;

	snprintf(text, sizeof(text), "%s", spec);
	if ((label = strchr(text, '#')))
		*label++ = 0;
	parts[np++] = text;	/* split at the ':' outside parentheses (the signature's, casts') */
	for (int depth = 0, i = 0; text[i] && np < 6; i++) {
		depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
		if (text[i] == ':' && !depth) {
			text[i] = 0;
			parts[np++] = text + i + 1;
		}
	}
	if (np < 3) {
		snprintf(e2, sizeof(e2), "at least the probe type, library, and function signature must be specified");
		goto bad;
	}
	if (!strchr(parts[2], '(') || !strchr(parts[2], ')')) {
		snprintf(e2, sizeof(e2), "function signature '%s' has an invalid format", parts[2]);
		goto bad;
	}
	char head[600];

	snprintf(head, sizeof(head), "%s:%s:%s", parts[0], parts[1], parts[2]);
	if (!parts[0][0] || bcc_probe__parse(&p, head, &end, e2, sizeof(e2)))
		goto bad;
	bool ret = p.type == 'r';
	const char *types = np > 3 ? parts[3] : ret ? "int" : "u64";
	const char *exprs = np > 4 ? parts[4] : ret ? "$retval" : "1";
	const char *ts[8], *es[8];
	size_t tl[8], el[8];
	int nt = tool_gen__split(types, ts, tl, 8), ne = tool_gen__split(exprs, es, el, 8);

	if (np == 4 || !nt || !ne) {
		snprintf(e2, sizeof(e2), np == 4 ? "no exprs specified" : "no expr types specified");
		goto bad;
	}
	if (nt != ne) {
		snprintf(e2, sizeof(e2), "mismatched # of exprs and types");
		goto bad;
	}
	if (hist && ne > 1) {
		snprintf(e2, sizeof(e2), "histograms can only have 1 expr");
		goto bad;
	}
	if (hist && np < 5 && !ret) {
		snprintf(e2, sizeof(e2), "histograms must have expr");
		goto bad;
	}
	for (int i = 0; i < ne; i++) {
		struct sbuf sub = { 0 };
		char ty[96], cast[64];
		bool str;

		snprintf(ty, sizeof(ty), "%.*s", (int)tl[i], ts[i]);
		if (!bcc_type__cast(ty, cast, sizeof(cast), &str)) {
			snprintf(e2, sizeof(e2), "unknown type '%s'", ty);
			goto bad;
		}
		entry_refs(es[i], el[i], n, &sub, &lat, names, &nnames);
		if (i)
			sbuf__printf(&key, ", ");
		sbuf__printf(&key, str ? "str(" : "(%s)(", cast);
		if (bcc_expr__rewrite(&p, sub.buf ? sub.buf : "", sub.len, &key, e2, sizeof(e2))) {
			free(sub.buf);
			goto bad;
		}
		sbuf__printf(&key, str ? ", %ld)" : ")", o->string_size);
		free(sub.buf);
		/* the row's text: "expr = %d", the expression as the user wrote it */
		sbuf__printf(&disp, "%s", i ? ", " : "");
		tool_gen__lit(&disp, es[i], el[i], true);
		sbuf__printf(&disp, " = %s", str ? "%s" : "%ld");
	}
	if (np > 5 && parts[5][0]) {
		struct sbuf sub = { 0 };

		entry_refs(parts[5], strlen(parts[5]), n, &sub, &lat, names, &nnames);
		if (bcc_expr__rewrite(&p, sub.buf ? sub.buf : "", sub.len, &filt, e2, sizeof(e2))) {
			free(sub.buf);
			goto bad;
		}
		free(sub.buf);
	}
	if ((lat || nnames) && !ret) {
		snprintf(e2, sizeof(e2), "$entry() and $latency are for return probes (r:)");
		goto bad;
	}
	sbuf__printf(b, "\n// %s %s\n", hist ? "-H" : "-C", spec);
	if (lat || nnames) {		/* the entry probe: what the return probe reads */
		struct bcc_probe entry = p;

		entry.type = 'p';
		memmove(entry.attach + 1, entry.attach + 4, strlen(entry.attach + 4) + 1);	/* uretprobe: uprobe: */
		sbuf__printf(b, "%s\n", entry.attach);
		if (o->pid)
			sbuf__printf(b, "/pid == %s/\n", o->pid);
		sbuf__printf(b, "{\n");
		if (lat)
			sbuf__printf(b, "\t@start%d[tid] = nsecs;\n", n);
		for (int i = 0; i < nnames; i++) {
			int k;

			for (k = 0; k < p.nparams && strcmp(p.params[k].name, names[i]); k++)
				;
			if (k == p.nparams) {
				snprintf(e2, sizeof(e2), "$entry(%s): no such param", names[i]);
				goto bad;
			}
			sbuf__printf(b, "\t@entry%d_%s[tid] = (%s)arg%d;\n", n, names[i], p.params[k].cast, k);
		}
		sbuf__printf(b, "}\n\n");
	}
	sbuf__printf(b, "%s\n", p.attach);
	{
		struct sbuf pred = { 0 };

		if (o->pid)
			sbuf__printf(&pred, "pid == %s", o->pid);
		if (lat || nnames)
			sbuf__printf(&pred, "%shas_key(%s%d%s%s, tid)", pred.len ? " && " : "", lat ? "@start" : "@entry", n,
				     lat ? "" : "_", lat ? "" : names[0]);
		if (pred.len)
			sbuf__printf(b, "/%s/\n", pred.buf);
		free(pred.buf);
	}
	sbuf__printf(b, "{\n");
	if (filt.len)
		sbuf__printf(b, "\tif (%s) {\n\t", filt.buf);
	if (hist)
		sbuf__printf(b, "\t@h%d = hist(%s);\n", n, key.buf);
	else
		sbuf__printf(b, "\t@c%d[%s] = count();\n", n, key.buf);
	if (filt.len)
		sbuf__printf(b, "\t}\n");
	if (lat)
		sbuf__printf(b, "\tdelete(@start%d[tid]);\n", n);
	for (int i = 0; i < nnames; i++)
		sbuf__printf(b, "\tdelete(@entry%d_%s[tid]);\n", n, names[i]);
	sbuf__printf(b, "}\n");
	/* what the interval prints for it */
	if (hist) {
		sbuf__printf(show, "\tprint_log2_hist(@h%d, \"", n);
		if (label)
			tool_gen__lit(show, label, strlen(label), false);
		else if (np > 4)
			tool_gen__lit(show, es[0], el[0], false);
		else
			sbuf__printf(show, "retval");
		sbuf__printf(show, "\");\n");
		if (!o->cumulative)
			sbuf__printf(show, "\tclear(@h%d);\n", n);
	} else {
		sbuf__printf(show, "\tprintf(\"%%s\\n\", \"");
		tool_gen__lit(show, label ? label : spec, strlen(label ? label : spec), false);
		sbuf__printf(show, "\");\n\tprintf(\"\\t%%-10s %%s\\n\", \"COUNT\", \"EVENT\");\n");
		sbuf__printf(show, "\tfor ($kv : @c%d) sort($kv.1) {\n", n);
		if (o->top > 0)	/* -T: the rows that fewer than TOP others outnumber */
			sbuf__printf(show, "\t\t$r = 0;\n\t\tfor ($o : @c%d) { if ($o.1 > $kv.1) { $r++; } }\n"
				     "\t\tif ($r < %ld) {\n\t", n, o->top);
		sbuf__printf(show, "\t\tprintf(\"\\t%%-10d %s\\n\", $kv.1", np > 4 ? disp.buf : ret ? "retval = %ld" : "total calls");
		if (np > 4 || ret)
			for (int i = 0; i < ne; i++)
				sbuf__printf(show, ne > 1 ? ", $kv.0.%d" : ", $kv.0", i);
		sbuf__printf(show, ");\n%s\t}\n", o->top > 0 ? "\t\t}\n" : "");
		if (!o->cumulative)
			sbuf__printf(show, "\tclear(@c%d);\n", n);
	}
	rc = 0;
	goto out;
bad:
	snprintf(err, errlen, "error parsing probe '%s': %s", spec, e2);
out:
	free(filt.buf);
	free(key.buf);
	free(disp.buf);
	return rc;
}

char *tool_gen__argdist(const char *const *named, int nnamed, char *err, size_t errlen)
{
	struct argdist_opts o = { .pid = tool_gen__opt(named, nnamed, "pid"), .string_size = 80, .interval = 1 };
	struct sbuf b = { 0 }, probes = { 0 }, show = { 0 };
	const char *v;
	int n = 0;

	if ((v = tool_gen__opt(named, nnamed, "string-size")))
		o.string_size = atol(v);
	if ((v = tool_gen__opt(named, nnamed, "interval")))
		o.interval = atol(v);
	if ((v = tool_gen__opt(named, nnamed, "number")))
		o.count = atol(v);
	if ((v = tool_gen__opt(named, nnamed, "top")))
		o.top = atol(v);
	o.cumulative = tool_gen__opt(named, nnamed, "cumulative") != NULL;
	if (o.string_size < 1 || o.string_size > 200 || o.interval < 1) {
		snprintf(err, errlen, o.interval < 1 ? "-i: an interval of 1 second or more" :
			 "-z: a string size from 1 to 200 bytes");
		return NULL;
	}
	for (int pass = 0; pass < 2; pass++)	/* BCC's order: the counts, then the histograms */
		for (int i = 0; i < nnamed; i++) {
			const char *name = pass ? "histogram=" : "count=";

			if (strncmp(named[i], name, strlen(name)))
				continue;
			if (argdist_probe(&probes, &show, n++, named[i] + strlen(name), pass, &o, err, errlen)) {
				free(probes.buf);
				free(show.buf);
				return NULL;
			}
		}
	if (!n) {
		snprintf(err, errlen, "at least one specifier is required (-C or -H)");
		return NULL;
	}
	sbuf__printf(&b, "// generated by sonde tool argdist from its specifiers (each above its probe)\n"
		     "config = { print_maps_on_exit = false; max_strlen = %ld }\n",
		     o.string_size < 64 ? 64 : o.string_size);
	sbuf__add(&b, probes.buf, probes.len);
	sbuf__printf(&b, "\ninterval:s:%ld\n{\n\ttime(\"[%%H:%%M:%%S]\\n\");\n", o.interval);
	sbuf__add(&b, show.buf, show.len);
	if (o.count > 0)
		sbuf__printf(&b, "\tif (++@outputs >= %ld) { exit(); }\n", o.count);
	sbuf__printf(&b, "}\n");
	free(probes.buf);
	free(show.buf);
	return tool_gen__take(&b, err, errlen);
}
