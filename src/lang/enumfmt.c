// SPDX-License-Identifier: GPL-2.0
/*
 * enumfmt.c - enums and GFP flags: the script's enum declarations become BTF
 * enums in the program's own BTF (split from the kernel's), so the script's
 * and the kernel's enumerators are named the same way when printf's %s meets
 * a value typed with one. %gr prints GFP flags as the kernel's %pGg does: the
 * table (composite names first, then single bits) is the one the kmem
 * tracepoints' print fmt spells out in tracefs, read once.
 */
#include "lang/enumfmt.h"
#include "lang/ktypes.h"
#include "lang/output.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

/* ---- the script's enum declarations ---- */
struct cursor {
	const char *p, *end;
	struct loc loc;		/* of p */
};

static void skip_ws(struct cursor *c)
{
	while (c->p < c->end) {
		if (*c->p == '\n') {
			c->loc.line++;
			c->loc.col = 1;
			c->p++;
		} else if (isspace((unsigned char)*c->p)) {
			c->loc.col++;
			c->p++;
		} else if (c->p + 1 < c->end && c->p[0] == '/' && c->p[1] == '/') {
			while (c->p < c->end && *c->p != '\n')
				c->p++;
		} else if (c->p + 1 < c->end && c->p[0] == '/' && c->p[1] == '*') {
			c->p += 2;
			c->loc.col += 2;
			while (c->p + 1 < c->end && !(c->p[0] == '*' && c->p[1] == '/')) {
				if (*c->p == '\n') {
					c->loc.line++;
					c->loc.col = 0;
				}
				c->loc.col++;
				c->p++;
			}
			c->p += 2;
			c->loc.col += 2;
		} else {
			return;
		}
	}
}

static int ident(struct cursor *c)
{
	int n = 0;

	if (c->p >= c->end)
		return 0;
	while (c->p + n < c->end && (isalnum((unsigned char)c->p[n]) || c->p[n] == '_'))
		n++;
	return isdigit((unsigned char)*c->p) ? 0 : n;
}

static void step(struct cursor *c, int n)
{
	c->p += n;
	c->loc.col += n;
}

static int bad(struct program *p, struct cursor *c, const char *what)
{
	struct loc l = c->loc;

	l.len = 1;
	lang__error(p, l, "%s", what);
	return -1;
}

int enumfmt__decl(struct program *p, const char *at, struct loc loc)
{
	struct cursor c = { .p = at, .end = p->src + p->srclen, .loc = loc };
	struct { const char *name; long long v; } vals[256];
	char name[128] = "";
	int n = 0, len;
	long long next = 0;
	bool wide = false;

	step(&c, 4);	/* "enum" */
	skip_ws(&c);
	if ((len = ident(&c)) > 0) {
		snprintf(name, sizeof(name), "%.*s", len, c.p);
		step(&c, len);
		skip_ws(&c);
	}
	if (c.p >= c.end || *c.p != '{')
		return 0;	/* "enum x;" or a use: nothing to define */
	step(&c, 1);
	for (;;) {
		skip_ws(&c);
		if (c.p < c.end && *c.p == '}')
			break;
		if ((len = ident(&c)) <= 0)
			return bad(p, &c, "an enumerator name was expected here");
		if (n == (int)(sizeof(vals) / sizeof(vals[0])))
			return bad(p, &c, "too many enumerators (256 at most)");
		vals[n].name = arena__strndup(p->arena, c.p, (size_t)len);
		step(&c, len);
		skip_ws(&c);
		if (c.p < c.end && *c.p == '=') {
			char *e;

			step(&c, 1);
			skip_ws(&c);
			errno = 0;
			next = strtoll(c.p, &e, 0);
			if (e == c.p || errno)
				return bad(p, &c, "an enumerator's value is an integer literal");
			step(&c, (int)(e - c.p));
			skip_ws(&c);
		}
		vals[n].v = next++;
		if (vals[n].v < INT32_MIN || vals[n].v > UINT32_MAX)
			wide = true;
		n++;
		if (c.p < c.end && *c.p == ',') {
			step(&c, 1);
			continue;
		}
		skip_ws(&c);
		if (c.p >= c.end || *c.p != '}')
			return bad(p, &c, "',' or '}' was expected after the enumerator");
	}
	struct btf *btf = ktypes__own(p);
	bool sign = false;
	int id;

	if (!btf) {
		lang__error(p, loc, "cannot make room for the script's enum: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++)
		sign |= vals[i].v < 0;
	id = wide ? btf__add_enum64(btf, name, 8, sign) : btf__add_enum(btf, name, 4);
	for (int i = 0; i < n && id > 0; i++) {
		int rc = wide ? btf__add_enum64_value(btf, vals[i].name, (uint64_t)vals[i].v) :
			btf__add_enum_value(btf, vals[i].name, vals[i].v);

		if (rc < 0)
			id = rc;
	}
	if (id < 0) {
		lang__error(p, loc, "cannot add the enum to the program's BTF: %s", strerror(-id));
		return -1;
	}
	return 0;
}

static bool lookup(const struct btf *btf, int from, int to, const char *name, long long *v, int *id)
{
	for (int i = from; i < to; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);

			for (int k = 0; k < btf_vlen(t); k++, e++)
				if (!strcmp(btf__name_by_offset(btf, e->name_off), name)) {
					*v = btf_kflag(t) ? (long long)(int32_t)e->val : (long long)(uint32_t)e->val;
					*id = i;
					return true;
				}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);

			for (int k = 0; k < btf_vlen(t); k++, e++)
				if (!strcmp(btf__name_by_offset(btf, e->name_off), name)) {
					*v = (long long)btf_enum64_value(e);
					*id = i;
					return true;
				}
		}
	}
	return false;
}

int enumfmt__ident(struct program *p, struct node *n)
{
	const struct btf *btf = ktypes__btf(p, NULL, 0);
	int cnt = btf ? (int)btf__type_cnt(btf) : 0;
	int own = p->btf_own && p->btf_base ? (int)btf__type_cnt(p->btf_base) : 1;
	long long v;
	int id;

	if (!btf || !(lookup(btf, own, cnt, n->s, &v, &id) || lookup(btf, 1, own, n->s, &v, &id)))
		return -ENOENT;
	n->kind = N_INT;
	n->i = v;
	memset(&n->ty, 0, sizeof(n->ty));
	n->ty.kind = TY_INT;
	n->ty.size = 8;
	n->ty.bits = 64;
	n->ty.sign = true;
	n->ty.btf_id = id;
	return 0;
}

int enumfmt__field_enum(struct program *p, const char *ctype)
{
	char name[128];
	int id;

	if (!ctype || strncmp(ctype, "enum ", 5) || strchr(ctype, '*') || strchr(ctype, '['))
		return 0;
	snprintf(name, sizeof(name), "%s", ctype);
	name[strcspn(name + 5, " \t") + 5] = 0;
	id = ktypes__find(p, name);
	return id > 0 ? id : 0;
}

/* the enumerator of enum `id` whose value is v, or NULL */
static const char *enum_name(const struct btf *btf, int id, uint64_t v, uint64_t *shown)
{
	const struct btf_type *t = btf ? btf__type_by_id(btf, id) : NULL;

	if (!t || !btf_is_any_enum(t))
		return NULL;
	if (t->size < 8)
		v &= (1ULL << (t->size * 8)) - 1;
	*shown = v;
	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		for (int k = 0; k < btf_vlen(t); k++, e++)
			if ((uint32_t)e->val == (uint32_t)v)
				return btf__name_by_offset(btf, e->name_off);
	} else {
		const struct btf_enum64 *e = btf_enum64(t);

		for (int k = 0; k < btf_vlen(t); k++, e++)
			if (btf_enum64_value(e) == v)
				return btf__name_by_offset(btf, e->name_off);
	}
	return NULL;
}

int enumfmt__bits(struct program *p, int id, bool *sign)
{
	const struct btf_type *t = p->btf ? btf__type_by_id(p->btf, id) : NULL;

	*sign = t && btf_kflag(t);
	return t && t->size >= 1 && t->size <= 8 ? t->size * 8 : 64;
}

const char *enumfmt__name(struct out *o, const struct type *t, uint64_t v)
{
	uint64_t shown;

	return t->kind == TY_INT && !t->ptr && t->btf_id > 0 ? enum_name(o->prog ? o->prog->btf : NULL, t->btf_id, v, &shown) : NULL;
}

/* ---- GFP flags ---- */
struct gparse {
	const char *p, *end;
	bool err;
};

static void gws(struct gparse *g)
{
	while (g->p < g->end && isspace((unsigned char)*g->p))
		g->p++;
}

static bool gis(struct gparse *g, const char *s)
{
	size_t n = strlen(s);

	gws(g);
	if ((size_t)(g->end - g->p) >= n && !memcmp(g->p, s, n)) {
		g->p += n;
		return true;
	}
	return false;
}

static uint64_t g_or(struct gparse *g, int depth);

/* "( unsigned long)" or "( gfp_t)": identifiers only between the parentheses */
static bool gcast(struct gparse *g)
{
	const char *q = g->p + 1;
	bool any = false;

	while (q < g->end && (isalnum((unsigned char)*q) || *q == '_' || *q == ' ')) {
		any |= *q != ' ';
		if (isdigit((unsigned char)*q) && (q == g->p + 1 || q[-1] == ' '))
			return false;
		q++;
	}
	if (!any || q >= g->end || *q != ')')
		return false;
	g->p = q + 1;
	return true;
}

static uint64_t gunary(struct gparse *g, int depth)
{
	gws(g);
	if (g->err || g->p >= g->end || depth > 64) {
		g->err = true;
		return 0;
	}
	if (*g->p == '~') {
		g->p++;
		return ~gunary(g, depth + 1);
	}
	if (*g->p == '(') {
		if (gcast(g))
			return gunary(g, depth + 1);
		g->p++;
		uint64_t v = g_or(g, depth + 1);

		if (!gis(g, ")"))
			g->err = true;
		return v;
	}
	if (isdigit((unsigned char)*g->p)) {	/* decimal or 0x hex, read within the text (not NUL-ended) */
		uint64_t v = 0;
		int base = 10;

		if (g->p + 1 < g->end && g->p[0] == '0' && (g->p[1] == 'x' || g->p[1] == 'X')) {
			base = 16;
			g->p += 2;
		}
		for (; g->p < g->end && isxdigit((unsigned char)*g->p); g->p++) {
			int d = isdigit((unsigned char)*g->p) ? *g->p - '0' : (tolower((unsigned char)*g->p) - 'a' + 10);

			if (d >= base)
				break;
			v = v * (uint64_t)base + (uint64_t)d;
		}
		while (g->p < g->end && (*g->p == 'U' || *g->p == 'L' || *g->p == 'u' || *g->p == 'l'))
			g->p++;
		return v;
	}
	g->err = true;
	return 0;
}

static uint64_t gshift(struct gparse *g, int depth)
{
	uint64_t v = gunary(g, depth);

	for (;;) {
		bool l = gis(g, "<<");

		if (!l && !gis(g, ">>"))
			return v;
		uint64_t s = gunary(g, depth);

		v = s > 63 ? 0 : l ? v << s : v >> s;
	}
}

static uint64_t gand(struct gparse *g, int depth)
{
	uint64_t v = gshift(g, depth);

	for (;;) {
		gws(g);
		if (g->p + 1 < g->end && g->p[0] == '&' && g->p[1] != '&') {
			g->p++;
			v &= gshift(g, depth);
		} else {
			return v;
		}
	}
}

static uint64_t g_or(struct gparse *g, int depth)
{
	uint64_t v = gand(g, depth);

	for (;;) {
		gws(g);
		if (g->p + 1 < g->end && g->p[0] == '|' && g->p[1] != '|') {
			g->p++;
			v |= gand(g, depth);
		} else {
			return v;
		}
	}
}

int enumfmt__gfp_parse(const char *fmt, size_t len, struct gfpflag **out)
{
	static const char key[] = "__print_flags(REC->gfp_flags, \"|\",";
	const char *s = memmem(fmt, len, key, sizeof(key) - 1);
	struct gparse g = { .end = fmt + len };
	struct gfpflag *t = NULL;
	int n = 0, cap = 0;

	*out = NULL;
	if (!s)
		return -1;
	g.p = s + sizeof(key) - 1;
	while (gis(&g, "{")) {
		uint64_t mask = g_or(&g, 0);

		if (g.err || !gis(&g, ",") || !gis(&g, "\""))
			break;
		const char *q = memchr(g.p, '"', (size_t)(g.end - g.p));

		if (!q || q - g.p >= (long)sizeof(t->name))
			break;
		if (n == cap) {
			struct gfpflag *nt = realloc(t, (cap = cap ? cap * 2 : 32) * sizeof(*t));

			if (!nt)
				break;
			t = nt;
		}
		t[n].mask = mask;
		snprintf(t[n].name, sizeof(t[n].name), "%.*s", (int)(q - g.p), g.p);
		n++;
		g.p = q + 1;
		if (!gis(&g, "}"))
			break;
		if (!gis(&g, ","))
			break;
	}
	if (!n) {
		free(t);
		return -1;
	}
	*out = t;
	return n;
}

void enumfmt__gfp_text(const struct gfpflag *t, int n, uint64_t flags, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (int i = 0; i < n && flags; i++) {
		if (!t[i].mask || (flags & t[i].mask) != t[i].mask)
			continue;
		flags &= ~t[i].mask;
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s", t[i].name, flags ? "|" : "");
	}
	if (flags)
		snprintf(buf + at, at < len ? len - at : 0, "%#llx", (unsigned long long)flags);
}

/* the table, from the first kmem tracepoint whose format has one; NULL (n 0) when tracefs has none */
static const struct gfpflag *gfp_table(int *n)
{
	static struct gfpflag *t;
	static int cnt = -2;
	static const char *evs[] = { "kmem/kmalloc", "kmem/mm_page_alloc", "kmem/kmem_cache_alloc" };
	static const char *dirs[] = { "/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events" };

	for (size_t d = 0; cnt == -2 && d < 2; d++)
		for (size_t e = 0; cnt == -2 && e < 3; e++) {
			char path[256], buf[65536];
			FILE *f;
			size_t len;

			snprintf(path, sizeof(path), "%s/%s/format", dirs[d], evs[e]);
			if (!(f = fopen(path, "r")))
				continue;
			len = fread(buf, 1, sizeof(buf), f);
			fclose(f);
			int k = enumfmt__gfp_parse(buf, len, &t);

			if (k > 0)
				cnt = k;
		}
	if (cnt == -2) {
		cnt = 0;
		lang__diag(LANG_WARNING, "%%gr: no GFP flag names in tracefs (events/kmem/kmalloc/format): flags print "
			   "as numbers");
	}
	*n = cnt;
	return t;
}

bool enumfmt__conv(struct out *o, FILE *f, const struct type *t, const uint8_t *d, char verb, const char **pp,
		   const char *start, int speclen)
{
	char spec[64], text[1024];
	uint64_t v = *(const uint64_t *)d, shown = v;

	if (t->kind != TY_INT || t->ptr)
		return false;
	if (verb == 'g' && **pp == 'r') {	/* %gr */
		int n;
		const struct gfpflag *tab = gfp_table(&n);

		(*pp)++;
		enumfmt__gfp_text(tab, n, v, text, sizeof(text));
	} else if (verb == 's' && t->btf_id > 0) {
		const char *name = enum_name(o->prog ? o->prog->btf : NULL, t->btf_id, v, &shown);

		if (name)
			snprintf(text, sizeof(text), "%s", name);
		else
			snprintf(text, sizeof(text), "%llu", (unsigned long long)shown);
	} else {
		return false;
	}
	snprintf(spec, sizeof(spec), "%.*ss", speclen, start);
	fprintf(f, spec, text);
	return true;
}

/* ---- typedefs ---- */
int enumfmt__typedef_bits(struct program *p, const char *name, bool *sign)
{
	struct btf *btf = ktypes__btf(p, NULL, 0);
	int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) : -1;
	struct type t;
	char err[128];

	if (id <= 0 || ktypes__type(p, id, false, &t, err, sizeof(err)) || t.kind != TY_INT || t.ptr)
		return 0;
	*sign = t.sign;
	return t.bits;
}
