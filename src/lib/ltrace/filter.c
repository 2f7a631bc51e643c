// SPDX-License-Identifier: GPL-2.0
/* filter.c - ltrace's -e filter chains (see filter.h) */
#include "lib/ltrace/filter.h"
#include "lib/util.h"

#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pattern {
	char *text;		/* a glob; NULL: anything */
	regex_t re;
	bool regex, main, path;
};

struct rule {
	bool add;
	struct pattern sym, lib;
};

struct lt_filter {
	struct rule *r;
	int n;
};

static void pattern_free(struct pattern *p)
{
	if (p->regex)
		regfree(&p->re);
	free(p->text);
}

/* one pattern of text [s, s+len): a glob or /regex/ */
static int pattern_init(struct pattern *p, const char *s, size_t len, bool lib, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	if (!len)
		return 0;
	if (len >= 2 && s[0] == '/' && s[len - 1] == '/') {
		char *t = strndup(s + 1, len - 2);
		int rc;

		if (!t)
			return -ENOMEM;
		rc = util__regcomp(&p->re, t, REG_EXTENDED | REG_NOSUB);
		free(t);
		if (rc) {
			char why[128];

			regerror(rc, NULL, why, sizeof(why));
			snprintf(err, errlen, "cannot compile the regular expression '%.*s': %s", (int)len, s, why);
			return -EINVAL;
		}
		p->regex = true;
		return 0;
	}
	/* ^ and $ mean the start and the end, which a whole-name glob is anyway */
	if (*s == '^')
		s++, len--;
	if (len && s[len - 1] == '$')
		len--;
	if (!(p->text = strndup(s, len)))
		return -ENOMEM;
	p->main = lib && !strcmp(p->text, "MAIN");
	p->path = lib && p->text[0] == '/';
	return 0;
}

static bool pattern_match(const struct pattern *p, const char *s)
{
	if (p->regex)
		return !regexec(&p->re, s, 0, NULL, 0);
	return !p->text || !fnmatch(p->text, s, 0);
}

static int add_rule(struct lt_filter *f, bool add, const char *s, size_t len, char *err, size_t errlen)
{
	const char *at = memchr(s, '@', len);
	struct rule *nr = realloc(f->r, (f->n + 1) * sizeof(*nr)), *r;
	int rc;

	if (!nr)
		return -ENOMEM;
	f->r = nr;
	r = &f->r[f->n];
	memset(r, 0, sizeof(*r));
	r->add = add;
	/* /sym@lib/ is /sym/@/lib/ */
	if (at && len > 2 && s[0] == '/' && s[len - 1] == '/' && at > s && at < s + len - 1) {
		char sym[256], lib[256];

		snprintf(sym, sizeof(sym), "%.*s/", (int)(at - s), s);
		snprintf(lib, sizeof(lib), "/%.*s", (int)(s + len - at - 1), at + 1);
		if (!(rc = pattern_init(&r->sym, sym, strlen(sym), false, err, errlen)))
			rc = pattern_init(&r->lib, lib, strlen(lib), true, err, errlen);
	} else if (!(rc = pattern_init(&r->sym, s, at ? (size_t)(at - s) : len, false, err, errlen)) && at) {
		rc = pattern_init(&r->lib, at + 1, s + len - at - 1, true, err, errlen);
	}
	if (rc) {	/* the half that parsed goes */
		pattern_free(&r->sym);
		pattern_free(&r->lib);
		return rc;
	}
	f->n++;
	return 0;
}

int lt_filter__parse(struct lt_filter **fp, const char *expr, char *err, size_t errlen)
{
	struct lt_filter *f = *fp;
	const char *s = expr;
	bool first = true;
	int rc;

	if (!f && !(f = *fp = calloc(1, sizeof(*f))))
		return -ENOMEM;
	if (!*s) {
		snprintf(err, errlen, "empty filter expression");
		return -EINVAL;
	}
	while (*s) {
		bool add = true;
		size_t len;

		if (*s == '+' || *s == '-' || *s == '!')
			add = *s++ == '+';
		else if (!first) {
			snprintf(err, errlen, "cannot parse the filter '%s'", expr);
			return -EINVAL;
		}
		/* a chain that starts by taking out starts from everything */
		if (first && !add && (rc = add_rule(f, true, "", 0, err, errlen)))
			return rc;
		first = false;
		if (*s == '/') {	/* a regex may hold + and - */
			const char *end = strchr(s + 1, '/');

			if (end && end[1] == '@' && end[2] == '/')
				end = strchr(end + 3, '/');
			len = end ? (size_t)(end - s + 1) : strlen(s);
			if (end && end[1] == '@')
				len += strcspn(end + 1, "+-!");
		} else {
			len = strcspn(s, "+-!");
		}
		if (!len) {
			snprintf(err, errlen, "empty rule in the filter '%s'", expr);
			return -EINVAL;
		}
		if ((rc = add_rule(f, add, s, len, err, errlen)))
			return rc;
		s += len;
	}
	return 0;
}

bool lt_filter__match(const struct lt_filter *f, const char *sym, const char *soname, const char *path, bool main)
{
	bool marked = false;

	if (!f)
		return main;
	for (int i = 0; i < f->n; i++) {
		const struct rule *r = &f->r[i];
		bool lib;

		if (r->lib.main)
			lib = main;
		else if (r->lib.path)
			lib = pattern_match(&r->lib, path);
		else
			lib = pattern_match(&r->lib, soname);
		if (lib && pattern_match(&r->sym, sym))
			marked = r->add;
	}
	return marked;
}

bool lt_filter__libraries(const struct lt_filter *f)
{
	if (!f)
		return false;
	for (int i = 0; i < f->n; i++)
		if (f->r[i].add && !f->r[i].lib.main)
			return true;
	return false;
}

void lt_filter__free(struct lt_filter *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->n; i++) {
		pattern_free(&f->r[i].sym);
		pattern_free(&f->r[i].lib);
	}
	free(f->r);
	free(f);
}
