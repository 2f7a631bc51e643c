// SPDX-License-Identifier: GPL-2.0
/*
 * tool_gen.c - what BCC's trace and argdist share: their probe specifiers'
 * heads (p:c:malloc(size_t size), r::do_sys_open, t:sched:sched_switch,
 * u:lib:probe) as attach points, and the C expressions in their filters and
 * arguments rewritten into sonde's language (tool_gen.h).
 */
#include "sonde.h"
#include "cmd/tool_gen.h"
#include "lang/provider.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tool_gen__take(struct sbuf *b, char *err, size_t errlen)
{
	char *s = sbuf__take(b);

	if (!s)
		snprintf(err, errlen, "out of memory");
	return s;
}

void tool_gen__lit(struct sbuf *b, const char *s, size_t n, bool fmt)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		if (s[i] == '"' || s[i] == '\\')
			sbuf__add(b, "\\", 1);
		if (s[i] == '%' && fmt)
			sbuf__add(b, "%", 1);
		sbuf__add(b, s + i, 1);
	}
}

const char *tool_gen__opt(const char *const *named, int nnamed, const char *name)
{
	size_t n = strlen(name);
	const char *v = NULL;

	for (int i = 0; i < nnamed; i++)
		if (!strncmp(named[i], name, n) && (named[i][n] == '=' || !named[i][n]))
			v = named[i][n] ? named[i] + n + 1 : "";
	return v;
}

/* C's integer types and the kernel's short names, in sonde's spelling */
static const struct { const char *c, *s; } int_types[] = {
	{ "char", "int8" }, { "signed char", "int8" }, { "unsigned char", "uint8" }, { "u8", "uint8" }, { "s8", "int8" },
	{ "bool", "uint8" }, { "short", "int16" }, { "unsigned short", "uint16" }, { "u16", "uint16" },
	{ "s16", "int16" }, { "int", "int32" }, { "signed", "int32" }, { "unsigned", "uint32" },
	{ "unsigned int", "uint32" }, { "u32", "uint32" }, { "s32", "int32" }, { "pid_t", "int32" },
	{ "uid_t", "uint32" }, { "gid_t", "uint32" }, { "long", "int64" }, { "long long", "int64" },
	{ "unsigned long", "uint64" }, { "unsigned long long", "uint64" }, { "u64", "uint64" }, { "s64", "int64" },
	{ "size_t", "uint64" }, { "ssize_t", "int64" }, { "off_t", "int64" }, { "loff_t", "int64" },
	{ "uintptr_t", "uint64" }, { "gfp_t", "uint32" }, { "int8_t", "int8" }, { "uint8_t", "uint8" },
	{ "int16_t", "int16" }, { "uint16_t", "uint16" }, { "int32_t", "int32" }, { "uint32_t", "uint32" },
	{ "int64_t", "int64" }, { "uint64_t", "uint64" }, { "long int", "int64" }, { "unsigned long int", "uint64" },
};

/* "const  char  *" -> "char *": qualifiers dropped, one space between words, "*" after a space */
static void norm_type(const char *in, size_t len, char *out, size_t outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 3 < outlen; ) {
		if (isspace((unsigned char)in[i])) {
			i++;
			continue;
		}
		if (in[i] == '*') {
			if (o && out[o - 1] != '*')
				out[o++] = ' ';
			out[o++] = '*';
			i++;
			continue;
		}
		size_t s = i;

		while (i < len && (isalnum((unsigned char)in[i]) || in[i] == '_'))
			i++;
		if (i == s) {		/* something else: kept as it is */
			out[o++] = in[i++];
			continue;
		}
		if ((i - s == 5 && !strncmp(in + s, "const", 5)) || (i - s == 8 && !strncmp(in + s, "volatile", 8)))
			continue;
		if (o && o + 1 < outlen)
			out[o++] = ' ';
		for (size_t k = s; k < i && o + 1 < outlen; k++)
			out[o++] = in[k];
	}
	out[o] = 0;
}

const char *bcc_type__cast(const char *ctype, char *out, size_t len, bool *string)
{
	char t[96];

	norm_type(ctype, strlen(ctype), t, sizeof(t));
	*string = false;
	if (!strcmp(t, "char *") || !strcmp(t, "unsigned char *")) {
		*string = true;
		snprintf(out, len, "uint64");
		return out;
	}
	char *star = strchr(t, '*');

	if (star) {	/* void *, struct x *, int *: nothing after the stars */
		if (strspn(star, "*") != strlen(star) || star == t || star[-1] != ' ')
			return NULL;
		star[-1] = 0;
		if (!strcmp(t, "void")) {
			snprintf(out, len, "uint64");
			return out;
		}
		if (!strncmp(t, "struct ", 7) || !strncmp(t, "union ", 6)) {
			if (strchr(strchr(t, ' ') + 1, ' '))
				return NULL;
			snprintf(out, len, "%s %s", t, star);
			return out;
		}
	}
	for (size_t i = 0; i < sizeof(int_types) / sizeof(int_types[0]); i++)
		if (!strcmp(t, int_types[i].c)) {
			snprintf(out, len, "%s%s%s", int_types[i].s, star ? " " : "", star ? star : "");
			return out;
		}
	return NULL;
}

int bcc_probe__signature(struct bcc_probe *p, const char *sig, size_t len, char *err, size_t errlen)
{
	p->nparams = 0;
	for (size_t i = 0; i < len; ) {
		size_t s = i, e;

		while (i < len && sig[i] != ',')
			i++;
		e = i++;
		while (s < e && isspace((unsigned char)sig[s]))
			s++;
		while (e > s && isspace((unsigned char)sig[e - 1]))
			e--;
		if (s == e)
			continue;
		size_t n = e;		/* the name: the last word */

		while (n > s && (isalnum((unsigned char)sig[n - 1]) || sig[n - 1] == '_'))
			n--;
		if (p->nparams >= 6 || n == e || n == s) {
			snprintf(err, errlen, "cannot read the signature's parameter '%.*s'", (int)(e - s), sig + s);
			return -1;
		}
		struct bcc_param *pa = &p->params[p->nparams++];
		char ctype[96];

		snprintf(pa->name, sizeof(pa->name), "%.*s", (int)(e - n), sig + n);
		snprintf(ctype, sizeof(ctype), "%.*s", (int)(n - s), sig + s);
		if (!bcc_type__cast(ctype, pa->cast, sizeof(pa->cast), &pa->string)) {
			snprintf(err, errlen, "unknown type '%s' of the parameter '%s'", ctype, pa->name);
			return -1;
		}
	}
	return 0;
}

/* LIB as tool__event_spec names it ("c" is libc), into out: "uprobe:libc:x" gives "libc" */
static int lib_name(const char *lib, char *out, size_t len)
{
	char pat[300], ap[320];

	snprintf(pat, sizeof(pat), "p:%s:x", lib);
	if (tool__event_spec(pat, ap, sizeof(ap)) || strncmp(ap, "uprobe:", 7))
		return -1;
	snprintf(out, len, "%.*s", (int)(strlen(ap) - 7 - 2), ap + 7);
	return 0;
}

int bcc_probe__parse(struct bcc_probe *p, const char *text, const char **end, char *err, size_t errlen)
{
	char spec[300], *parts[5];
	const char *s = text, *sig = NULL;
	size_t n = strcspn(s, " \t(");
	int np = 0;

	memset(p, 0, sizeof(*p));
	snprintf(spec, sizeof(spec), "%.*s", (int)n, s);
	s += n;
	if (*s == '(') {	/* the signature, up to its ')' */
		sig = s + 1;
		s = strchr(sig, ')');
		if (!s) {
			snprintf(err, errlen, "the signature of '%s' has no ')'", spec);
			return -1;
		}
		if (bcc_probe__signature(p, sig, (size_t)(s - sig), err, errlen))
			return -1;
		s++;
	}
	*end = s;
	for (char *c = spec, *d; np < 5; c = d + 1) {
		parts[np++] = c;
		if (!(d = strchr(c, ':')) || np == 5)
			break;
		*d = 0;
	}
	if (np == 1) {			/* FUNC: p::FUNC */
		parts[2] = parts[0];
		parts[0] = parts[1] = "";
		np = 3;
	} else if (np == 2) {		/* LIB:FUNC */
		parts[2] = parts[1];
		parts[1] = parts[0];
		parts[0] = "";
		np = 3;
	}
	p->type = parts[0][0] ? parts[0][0] : 'p';
	if (strlen(parts[0]) > 1 || !strchr("prtu", p->type)) {
		snprintf(err, errlen, "probe type must be '', 'p', 't', 'r', or 'u', but got '%s'", parts[0]);
		return -1;
	}
	if (!parts[np - 1][0]) {
		snprintf(err, errlen, "'%s' names no function", text);
		return -1;
	}
	if (p->type == 't') {
		if (np != 3 || !parts[1][0]) {
			snprintf(err, errlen, "a tracepoint is t:CATEGORY:EVENT, not '%.*s'", (int)n, text);
			return -1;
		}
		snprintf(p->attach, sizeof(p->attach), "tracepoint:%s:%s", parts[1], parts[2]);
		snprintf(p->func, sizeof(p->func), "%s", parts[2]);
	} else if (p->type == 'u') {
		char lib[256];

		if (!parts[1][0] || lib_name(parts[1], lib, sizeof(lib))) {
			snprintf(err, errlen, "a USDT probe is u:LIB:PROBE, not '%.*s'", (int)n, text);
			return -1;
		}
		p->user = true;
		snprintf(p->attach, sizeof(p->attach), "usdt:%s:%s%s%s", lib, parts[2], np > 3 ? ":" : "",
			 np > 3 ? parts[3] : "");
		snprintf(p->func, sizeof(p->func), "%s%s%s", parts[2], np > 3 ? ":" : "", np > 3 ? parts[3] : "");
	} else {
		char lib[256] = "";
		const char *fn = parts[np - 1];

		for (int i = 1; i < np - 1; i++)	/* a library path may have had ':' */
			snprintf(lib + strlen(lib), sizeof(lib) - strlen(lib), "%s%s", i > 1 ? ":" : "", parts[i]);
		p->user = lib[0] != 0;
		if (p->user && lib_name(lib, lib, sizeof(lib))) {
			snprintf(err, errlen, "cannot read the library '%s'", lib);
			return -1;
		}
		if (p->user)
			snprintf(p->attach, sizeof(p->attach), "%s:%s:%s", p->type == 'r' ? "uretprobe" : "uprobe", lib, fn);
		else
			snprintf(p->attach, sizeof(p->attach), "%s:%s", p->type == 'r' ? "kretprobe" : "kprobe", fn);
		snprintf(p->func, sizeof(p->func), "%.*s", (int)strcspn(fn, "+"), fn);
	}
	if (sig && (p->type == 't' || p->type == 'u') && p->nparams) {
		snprintf(err, errlen, "USDT and tracepoint probes can't have a function signature; use arg1, arg2, ... instead");
		return -1;
	}
	return 0;
}

int tool_gen__split(const char *s, const char **start, size_t *len, int max)
{
	int n = 0, depth = 0;
	const char *p = s, *b = s;

	for (;; p++) {
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				break;
			continue;
		}
		if (*p == '(' || *p == '[')
			depth++;
		else if ((*p == ')' || *p == ']') && depth)
			depth--;
		if (*p && !(*p == ',' && !depth))
			continue;
		while (b < p && isspace((unsigned char)*b))
			b++;
		size_t l = (size_t)(p - b);

		while (l && isspace((unsigned char)b[l - 1]))
			l--;
		if (l && n < max) {
			start[n] = b;
			len[n++] = l;
		}
		if (!*p)
			break;
		b = p + 1;
	}
	return n;
}

static bool ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* the end of the parenthesized group that starts at s[i] == '(' */
static size_t group_end(const char *s, size_t i, size_t len)
{
	int depth = 0;

	for (; i < len; i++) {
		if (s[i] == '"') {
			for (i++; i < len && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
		} else if (s[i] == '(') {
			depth++;
		} else if (s[i] == ')' && !--depth) {
			return i;
		}
	}
	return len;
}

static const struct { const char *bcc, *sonde; } aliases[] = {
	{ "$tgid", "pid" }, { "$pid", "tid" }, { "$uid", "uid" }, { "$gid", "gid" }, { "$cpu", "cpu" },
	{ "$task", "curtask" }, { "$retval", "retval" }, { "$PID", "pid" },
};

int bcc_expr__rewrite(const struct bcc_probe *p, const char *e, size_t len, struct sbuf *out, char *err,
		      size_t errlen)
{
	for (size_t i = 0; i < len; ) {
		if (e[i] == '"') {			/* a string, as it is */
			size_t s = i++;

			while (i < len && e[i] != '"')
				i += e[i] == '\\' ? 2 : 1;
			i = i < len ? i + 1 : len;
			sbuf__add(out, e + s, i - s);
			continue;
		}
		if (e[i] == '$') {
			size_t s = i++;

			while (i < len && ident(e[i]))
				i++;
			size_t k;

			for (k = 0; k < sizeof(aliases) / sizeof(aliases[0]); k++)
				if (strlen(aliases[k].bcc) == i - s && !strncmp(aliases[k].bcc, e + s, i - s))
					break;
			if (k == sizeof(aliases) / sizeof(aliases[0])) {
				snprintf(err, errlen, "unknown '%.*s' (BCC's are $pid, $tgid, $uid, $gid, $cpu, $task)",
					 (int)(i - s), e + s);
				return -1;
			}
			sbuf__printf(out, "%s", aliases[k].sonde);
			continue;
		}
		if (e[i] == '(' && i + 1 < len) {	/* a C cast: (int), (unsigned long), (char *) */
			size_t c = group_end(e, i, len);
			char ty[96], cast[64];
			bool str;

			if (c < len && c - i - 1 < sizeof(ty) && !memchr(e + i + 1, '(', c - i - 1)) {
				snprintf(ty, sizeof(ty), "%.*s", (int)(c - i - 1), e + i + 1);
				if (bcc_type__cast(ty, cast, sizeof(cast), &str)) {
					sbuf__printf(out, "(%s)", cast);
					i = c + 1;
					continue;
				}
			}
			sbuf__add(out, "(", 1);
			i++;
			continue;
		}
		if (!ident(e[i]) || (i && ident(e[i - 1]))) {
			sbuf__add(out, e + i, 1);
			i++;
			continue;
		}
		size_t s = i;

		while (i < len && ident(e[i]))
			i++;
		size_t n = i - s;
		const char *w = e + s;

		if (i > s && s && (e[s - 1] == '.' || (s > 1 && e[s - 2] == '-' && e[s - 1] == '>'))) {
			sbuf__add(out, w, n);	/* a member's name */
			continue;
		}
		if (n == 4 && !strncmp(w, "arg", 3) && w[3] >= '1' && w[3] <= '6') {
			if (p->type == 't') {
				snprintf(err, errlen, "a tracepoint's fields are args->NAME, not %.*s", (int)n, w);
				return -1;
			}
			sbuf__printf(out, "arg%d", w[3] - '1');
			if (i + 5 <= len && !strncmp(e + i, "@user", 5))
				i += 5;
			continue;
		}
		if (n == 6 && !strncmp(w, "STRCMP", 6) && i < len && e[i] == '(') {	/* STRCMP("lit", e) */
			size_t c = group_end(e, i, len), q = i + 1;

			while (q < c && isspace((unsigned char)e[q]))
				q++;
			if (q >= c || e[q] != '"') {
				snprintf(err, errlen, "STRCMP's first argument is a string in quotes");
				return -1;
			}
			size_t qe = q + 1;

			while (qe < c && e[qe] != '"')
				qe += e[qe] == '\\' ? 2 : 1;
			size_t a = qe + 1;

			while (a < c && (isspace((unsigned char)e[a]) || e[a] == ','))
				a++;
			sbuf__printf(out, "(str(");
			if (bcc_expr__rewrite(p, e + a, c - a, out, err, errlen))
				return -1;
			sbuf__printf(out, ") == %.*s)", (int)(qe + 1 - q), e + q);
			i = c < len ? c + 1 : len;
			continue;
		}
		int k;

		for (k = 0; k < p->nparams; k++)
			if (strlen(p->params[k].name) == n && !strncmp(p->params[k].name, w, n))
				break;
		if (k < p->nparams) {
			sbuf__printf(out, "((%s)arg%d)", p->params[k].cast, k);
			continue;
		}
		sbuf__add(out, w, n);
	}
	return out->oom ? (snprintf(err, errlen, "out of memory"), -1) : 0;
}

static void count_match(const char *name, void *ctx)
{
	(void)name;
	(*(int *)ctx)++;
}

/* how many probes the attach point names (BCC's "Tracing N functions") */
int tool_gen__matches(const char *attach)
{
	int n = 0;

	provider__list(attach, count_match, &n);
	return n;
}

char *tool_gen__program(const char *name, int npos, char *const *pos, const char *const *named, int nnamed,
			char *err, size_t errlen)
{
	if (!strcmp(name, "trace"))
		return tool_gen__trace(npos, pos, named, nnamed, err, errlen);
	if (!strcmp(name, "funccount") && npos > 0)
		return tool_gen__funccount(pos[0], named, nnamed, err, errlen);
	if (!strcmp(name, "stackcount") && npos > 0)
		return tool_gen__stackcount(pos[0], named, nnamed, err, errlen);
	if (!strcmp(name, "argdist"))
		return tool_gen__argdist(named, nnamed, err, errlen);
	snprintf(err, errlen, "'%s' has no program of its own", name);
	return NULL;
}
