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

/* one -C or -H specifier, read */
struct adspec {
	const char *spec;	/* as given */
	int n;			/* its number: the maps @cN, @hN, @startN, @entryN_NAME */
	bool hist, ret;		/* -H; a return probe (r:) */
	char text[1024], *label, *parts[6];	/* text split at its top-level ':' */
	int np;
	struct bcc_probe p;
	const char *es[8];	/* the expressions as written */
	size_t el[8];
	int ne;
	struct sbuf key, disp, filt;	/* the map key, the row's printf text, the filter */
	bool lat;		/* $latency is used */
	char names[6][32];	/* the $entry(NAME)s used */
	int nnames;
	char e2[256];		/* what is wrong with it */
};

/* the label after '#', then the parts at the ':' outside parentheses (the signature's, casts') */
static int ad_split(struct adspec *a)
{
	char *text = a->text, head[600];
	const char *end;

	snprintf(text, sizeof(a->text), "%s", a->spec);
	if ((a->label = strchr(text, '#')))
		*a->label++ = 0;
	a->parts[a->np++] = text;
	for (int depth = 0, i = 0; text[i] && a->np < 6; i++) {
		depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
		if (text[i] == ':' && !depth) {
			text[i] = 0;
			a->parts[a->np++] = text + i + 1;
		}
	}
	if (a->np < 3) {
		snprintf(a->e2, sizeof(a->e2), "at least the probe type, library, and function signature must be specified");
		return -1;
	}
	if (!strchr(a->parts[2], '(') || !strchr(a->parts[2], ')')) {
		snprintf(a->e2, sizeof(a->e2), "function signature '%s' has an invalid format", a->parts[2]);
		return -1;
	}
	snprintf(head, sizeof(head), "%s:%s:%s", a->parts[0], a->parts[1], a->parts[2]);
	if (!a->parts[0][0] || bcc_probe__parse(&a->p, head, &end, a->e2, sizeof(a->e2)))
		return -1;
	a->ret = a->p.type == 'r';
	return 0;
}

/* e[0..len) rewritten into out, its $latency and $entry() into the entry probe's maps; 0 or -1 */
static int ad_rewrite(struct adspec *a, const char *e, size_t len, struct sbuf *out)
{
	struct sbuf sub = { 0 };
	int rc;

	entry_refs(e, len, a->n, &sub, &a->lat, a->names, &a->nnames);
	rc = bcc_expr__rewrite(&a->p, sub.buf ? sub.buf : "", sub.len, out, a->e2, sizeof(a->e2));
	free(sub.buf);
	return rc;
}

/* the types and expressions (with their defaults) into the key and the row's text, then the filter */
static int ad_values(struct adspec *a, const struct argdist_opts *o)
{
	int np = a->np;
	const char *types = np > 3 ? a->parts[3] : a->ret ? "int" : "u64";
	const char *exprs = np > 4 ? a->parts[4] : a->ret ? "$retval" : "1";
	const char *ts[8];
	size_t tl[8];
	int nt = tool_gen__split(types, ts, tl, 8);

	a->ne = tool_gen__split(exprs, a->es, a->el, 8);
	if (np == 4 || !nt || !a->ne)
		snprintf(a->e2, sizeof(a->e2), np == 4 ? "no exprs specified" : "no expr types specified");
	else if (nt != a->ne)
		snprintf(a->e2, sizeof(a->e2), "mismatched # of exprs and types");
	else if (a->hist && a->ne > 1)
		snprintf(a->e2, sizeof(a->e2), "histograms can only have 1 expr");
	else if (a->hist && np < 5 && !a->ret)
		snprintf(a->e2, sizeof(a->e2), "histograms must have expr");
	if (a->e2[0])
		return -1;
	for (int i = 0; i < a->ne; i++) {
		char ty[96], cast[64];
		bool str;

		snprintf(ty, sizeof(ty), "%.*s", (int)tl[i], ts[i]);
		if (!bcc_type__cast(ty, cast, sizeof(cast), &str)) {
			snprintf(a->e2, sizeof(a->e2), "unknown type '%s'", ty);
			return -1;
		}
		if (i)
			sbuf__printf(&a->key, ", ");
		sbuf__printf(&a->key, str ? "str(" : "(%s)(", cast);
		if (ad_rewrite(a, a->es[i], a->el[i], &a->key))
			return -1;
		sbuf__printf(&a->key, str ? ", %ld)" : ")", o->string_size);
		/* the row's text: "expr = %d", the expression as the user wrote it */
		sbuf__printf(&a->disp, "%s", i ? ", " : "");
		tool_gen__lit(&a->disp, a->es[i], a->el[i], true);
		sbuf__printf(&a->disp, " = %s", str ? "%s" : "%ld");
	}
	if (np > 5 && a->parts[5][0] && ad_rewrite(a, a->parts[5], strlen(a->parts[5]), &a->filt))
		return -1;
	if ((a->lat || a->nnames) && !a->ret) {
		snprintf(a->e2, sizeof(a->e2), "$entry() and $latency are for return probes (r:)");
		return -1;
	}
	return 0;
}

/* a return probe's entry probe: what it keeps for $latency and $entry(); 0 or -1 */
static int ad_entry_probe(struct sbuf *b, struct adspec *a, const struct argdist_opts *o)
{
	struct bcc_probe entry = a->p;
	int n = a->n;

	entry.type = 'p';
	memmove(entry.attach + 1, entry.attach + 4, strlen(entry.attach + 4) + 1);	/* uretprobe: uprobe: */
	sbuf__printf(b, "%s\n", entry.attach);
	if (o->pid)
		sbuf__printf(b, "/pid == %s/\n", o->pid);
	sbuf__printf(b, "{\n");
	if (a->lat)
		sbuf__printf(b, "\t@start%d[tid] = nsecs;\n", n);
	for (int i = 0; i < a->nnames; i++) {
		int k;

		for (k = 0; k < a->p.nparams && strcmp(a->p.params[k].name, a->names[i]); k++)
			;
		if (k == a->p.nparams) {
			snprintf(a->e2, sizeof(a->e2), "$entry(%s): no such param", a->names[i]);
			return -1;
		}
		sbuf__printf(b, "\t@entry%d_%s[tid] = (%s)arg%d;\n", n, a->names[i], a->p.params[k].cast, k);
	}
	sbuf__printf(b, "}\n\n");
	return 0;
}

/* the probe that counts (or puts in the histogram) the values */
static void ad_probe(struct sbuf *b, const struct adspec *a, const struct argdist_opts *o)
{
	struct sbuf pred = { 0 };
	int n = a->n;

	sbuf__printf(b, "%s\n", a->p.attach);
	if (o->pid)
		sbuf__printf(&pred, "pid == %s", o->pid);
	if (a->lat || a->nnames)
		sbuf__printf(&pred, "%shas_key(%s%d%s%s, tid)", pred.len ? " && " : "", a->lat ? "@start" : "@entry",
			     n, a->lat ? "" : "_", a->lat ? "" : a->names[0]);
	if (pred.len)
		sbuf__printf(b, "/%s/\n", pred.buf);
	free(pred.buf);
	sbuf__printf(b, "{\n");
	if (a->filt.len)
		sbuf__printf(b, "\tif (%s) {\n\t", a->filt.buf);
	if (a->hist)
		sbuf__printf(b, "\t@h%d = hist(%s);\n", n, a->key.buf);
	else
		sbuf__printf(b, "\t@c%d[%s] = count();\n", n, a->key.buf);
	if (a->filt.len)
		sbuf__printf(b, "\t}\n");
	if (a->lat)
		sbuf__printf(b, "\tdelete(@start%d[tid]);\n", n);
	for (int i = 0; i < a->nnames; i++)
		sbuf__printf(b, "\tdelete(@entry%d_%s[tid]);\n", n, a->names[i]);
	sbuf__printf(b, "}\n");
}

/* what the interval prints for it: the histogram, or the counts as rows */
static void ad_show(struct sbuf *show, const struct adspec *a, const struct argdist_opts *o)
{
	const char *label = a->label ? a->label : a->spec;
	int n = a->n;

	if (a->hist) {
		sbuf__printf(show, "\tprint_log2_hist(@h%d, \"", n);
		if (a->label)
			tool_gen__lit(show, a->label, strlen(a->label), false);
		else if (a->np > 4)
			tool_gen__lit(show, a->es[0], a->el[0], false);
		else
			sbuf__printf(show, "retval");
		sbuf__printf(show, "\");\n");
		if (!o->cumulative)
			sbuf__printf(show, "\tclear(@h%d);\n", n);
		return;
	}
	sbuf__printf(show, "\tprintf(\"%%s\\n\", \"");
	tool_gen__lit(show, label, strlen(label), false);
	sbuf__printf(show, "\");\n\tprintf(\"\\t%%-10s %%s\\n\", \"COUNT\", \"EVENT\");\n");
	sbuf__printf(show, "\tfor ($kv : @c%d) sort($kv.1) {\n", n);
	if (o->top > 0)	/* -T: the rows that fewer than TOP others outnumber */
		sbuf__printf(show, "\t\t$r = 0;\n\t\tfor ($o : @c%d) { if ($o.1 > $kv.1) { $r++; } }\n"
			     "\t\tif ($r < %ld) {\n\t", n, o->top);
	sbuf__printf(show, "\t\tprintf(\"\\t%%-10d %s\\n\", $kv.1",
		     a->np > 4 ? a->disp.buf : a->ret ? "retval = %ld" : "total calls");
	if (a->np > 4 || a->ret)
		for (int i = 0; i < a->ne; i++)
			sbuf__printf(show, a->ne > 1 ? ", $kv.0.%d" : ", $kv.0", i);
	sbuf__printf(show, ");\n%s\t}\n", o->top > 0 ? "\t\t}\n" : "");
	if (!o->cumulative)
		sbuf__printf(show, "\tclear(@c%d);\n", n);
}

static int argdist_probe(struct sbuf *b, struct sbuf *show, int n, const char *spec, bool hist,
			 const struct argdist_opts *o, char *err, size_t errlen)
{
	struct adspec *a = calloc(1, sizeof(*a));
	int rc = -1;

	if (!a) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	a->spec = spec;
	a->n = n;
	a->hist = hist;
	if (!ad_split(a) && !ad_values(a, o)) {
		sbuf__printf(b, "\n// %s %s\n", hist ? "-H" : "-C", spec);
		if (!((a->lat || a->nnames) && ad_entry_probe(b, a, o))) {
			ad_probe(b, a, o);
			ad_show(show, a, o);
			rc = 0;
		}
	}
	if (rc)
		snprintf(err, errlen, "error parsing probe '%s': %s", spec, a->e2);
	sbuf__free(&a->filt);
	sbuf__free(&a->key);
	sbuf__free(&a->disp);
	free(a);
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
