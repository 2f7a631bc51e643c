// SPDX-License-Identifier: GPL-2.0
/*
 * lang.c - what the probe language's passes share: the arena, error messages
 * pointing at the source with a caret (file:line:col, as jq does), types' names.
 */
#include "lang/lang.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

struct chunk {
	struct chunk *next;
	size_t used, cap;
	_Alignas(16) char data[];
};

struct arena {
	struct chunk *head;
};

struct arena *arena__new(void)
{
	return calloc(1, sizeof(struct arena));
}

void arena__free(struct arena *a)
{
	if (!a)
		return;
	for (struct chunk *c = a->head, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	free(a);
}

void *arena__alloc(struct arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (!a->head || a->head->used + n > a->head->cap) {
		size_t cap = n > 65536 ? n : 65536;
		struct chunk *c = malloc(sizeof(*c) + cap);

		if (!c)
			abort();	/* out of memory: nothing sensible to say */
		c->next = a->head;
		c->used = 0;
		c->cap = cap;
		a->head = c;
	}
	void *p = a->head->data + a->head->used;

	a->head->used += n;
	memset(p, 0, n);
	return p;
}

char *arena__strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena__alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

struct program *lang__new(const char *file, const char *src, size_t len)
{
	struct program *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->arena = arena__new();
	if (!p->arena) {
		free(p);
		return NULL;
	}
	p->file = file ? file : "stdin";
	p->src = src;
	p->srclen = len;
	p->cfg.max_strlen = 64;
	p->cfg.max_cat_bytes = 10240;
	p->cfg.stack_depth = 127;
	p->cfg.max_map_keys = 4096;
	p->cfg.license = "GPL";
	return p;
}

void lang__free(struct program *p)
{
	if (!p)
		return;
	free(p->sites);
	free(p->err);
	free(p->warn);
	if (p->btf_own)	/* the kernel's (btf, or btf_base under it) is shared: bpf_util__vmlinux_btf() */
		btf__free(p->btf);
	arena__free(p->arena);
	free(p);
}

void lang__error(struct program *p, struct loc loc, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	p->nerr++;
	if (p->err)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	/* the source line */
	const char *s = p->src, *end = p->src + p->srclen;
	int line = 1;

	while (s < end && line < loc.line) {
		if (*s++ == '\n')
			line++;
	}
	const char *e = s;

	while (e < end && *e != '\n')
		e++;
	int llen = (int)(e - s);

	if (llen > 400)
		llen = 400;
	size_t cap = strlen(p->file) + strlen(msg) + 3 * (size_t)llen + 128;
	char *out = malloc(cap);

	if (!out)
		return;
	int n = snprintf(out, cap, "%s:%d:%d: error: %s\n%.*s\n", p->file, loc.line, loc.col, msg, llen, s);

	for (int i = 1; i < loc.col && i <= llen && n + 2 < (int)cap; i++)
		out[n++] = s[i - 1] == '\t' ? '\t' : ' ';
	int carets = loc.len > 0 ? loc.len : 1;

	if (loc.col - 1 + carets > llen + 1)
		carets = llen + 1 - (loc.col - 1);
	if (carets < 1)
		carets = 1;
	for (int i = 0; i < carets && n + 2 < (int)cap; i++)
		out[n++] = '^';
	out[n] = 0;
	p->err = out;
	if (loc.exp)
		macro__explain(p, loc, &p->err);
}

void lang__warn(struct program *p, struct loc loc, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	size_t old = p->warn ? strlen(p->warn) : 0;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t add = strlen(p->file) + strlen(msg) + 64;
	char *n = realloc(p->warn, old + add);

	if (!n)
		return;
	p->warn = n;
	snprintf(n + old, add, "%s:%d:%d: warning: %s\n", p->file, loc.line, loc.col, msg);
}

static void (*diag_fn)(enum lang_diag kind, const char *msg);

void lang__set_diag(void (*fn)(enum lang_diag kind, const char *msg))
{
	diag_fn = fn;
}

void lang__diag(enum lang_diag kind, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (diag_fn) {
		diag_fn(kind, msg);
		return;
	}
	fflush(stdout);
	fprintf(stderr, "sonde: %s%s\n", kind == LANG_WARNING ? "warning: " : "", msg);
}

/* every spelling of a provider: current names, 0.17 names, short aliases */
static const struct {
	const char *spelling, *name;
} providers[] = {
	{ "BEGIN", "BEGIN" }, { "begin", "BEGIN" }, { "END", "END" }, { "end", "END" },
	{ "tracepoint", "tracepoint" }, { "t", "tracepoint" },
	{ "rawtracepoint", "rawtracepoint" }, { "rt", "rawtracepoint" },
	{ "uprobe", "uprobe" }, { "u", "uprobe" }, { "uretprobe", "uretprobe" }, { "ur", "uretprobe" },
	{ "usdt", "usdt" }, { "U", "usdt" },
	{ "kprobe", "kprobe" }, { "k", "kprobe" }, { "kretprobe", "kretprobe" }, { "kr", "kretprobe" },
	{ "kfunc", "fentry" }, { "f", "fentry" }, { "fentry", "fentry" },
	{ "kretfunc", "fexit" }, { "fr", "fexit" }, { "fexit", "fexit" },
	{ "profile", "profile" }, { "p", "profile" }, { "interval", "interval" }, { "i", "interval" },
	{ "software", "software" }, { "s", "software" }, { "hardware", "hardware" }, { "h", "hardware" },
	{ "watchpoint", "watchpoint" }, { "w", "watchpoint" }, { "asyncwatchpoint", "asyncwatchpoint" },
	{ "aw", "asyncwatchpoint" }, { "iter", "iter" }, { "it", "iter" },
	{ "self", "self" }, { "test", "test" }, { "bench", "bench" },
};

const char *lang__provider_name(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++)
		if (strlen(providers[i].spelling) == n && !memcmp(providers[i].spelling, s, n))
			return providers[i].name;
	return NULL;
}

int lang__add_site(struct program *p, struct fmtsite *s)
{
	if (p->nsites == p->capsites) {
		int cap = p->capsites ? p->capsites * 2 : 16;
		struct fmtsite **n = realloc(p->sites, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->sites = n;
		p->capsites = cap;
	}
	p->sites[p->nsites] = s;
	return p->nsites++;
}

bool type__is_int(const struct type *t)
{
	return t->kind == TY_INT;
}

int type__array_bytes(const struct type *t)
{
	return t->ntup * (t->bits ? t->bits / 8 : 1);
}

const char *type__str(const struct type *t, char *buf, size_t len)
{
	switch (t->kind) {
	case TY_NONE: snprintf(buf, len, "none"); break;
	case TY_VOID: snprintf(buf, len, "void"); break;
	case TY_INT:
		if (t->ptr) {
			char in[48];

			snprintf(buf, len, "%s *", t->ptr->kind == TY_STRUCT ? "struct" : type__str(t->ptr, in, sizeof(in)));
		} else {
			snprintf(buf, len, "%sint%d", t->sign ? "" : "u", t->bits ? t->bits : 64);
		}
		break;
	case TY_STRUCT: snprintf(buf, len, "struct"); break;
	case TY_STR: snprintf(buf, len, "string[%d]", t->size); break;
	case TY_BUF: snprintf(buf, len, "buffer[%d]", t->size); break;
	case TY_KSTACK: snprintf(buf, len, "kstack"); break;
	case TY_USTACK: snprintf(buf, len, "ustack"); break;
	case TY_KSYM: snprintf(buf, len, "ksym"); break;
	case TY_USYM: snprintf(buf, len, "usym"); break;
	case TY_INET: snprintf(buf, len, "inet"); break;
	case TY_CTX: snprintf(buf, len, "args"); break;
	case TY_AGG: snprintf(buf, len, "aggregation"); break;
	case TY_MAPREF: snprintf(buf, len, "map"); break;
	case TY_TIMESTAMP: snprintf(buf, len, "timestamp"); break;
	case TY_CGPATH: snprintf(buf, len, "cgroup_path"); break;
	case TY_MACADDR: snprintf(buf, len, "macaddr"); break;
	case TY_ARRAY: snprintf(buf, len, "%sint%d[%d]", t->sign ? "" : "u", t->bits ? t->bits : 8, t->ntup); break;
	case TY_STRERROR: snprintf(buf, len, "strerror"); break;
	case TY_USERNAME: snprintf(buf, len, "username"); break;
	case TY_FDIV: snprintf(buf, len, "fdiv"); break;
	case TY_DISKNAME: snprintf(buf, len, "disk_name"); break;
	case TY_MEMINFO: snprintf(buf, len, "meminfo"); break;
	case TY_PCTL: snprintf(buf, len, "percentile"); break;
	case TY_SIGNAME: snprintf(buf, len, "signal_name"); break;
	case TY_TUPLE: {
		size_t n = snprintf(buf, len, "(");

		for (int i = 0; i < t->ntup && n < len; i++) {
			char sub[64];

			n += snprintf(buf + n, len - n, "%s%s%s%s", i ? "," : "", t->names ? t->names[i] : "",
				      t->names ? "=" : "", type__str(&t->tup[i], sub, sizeof(sub)));
		}
		if (n < len)
			snprintf(buf + n, len - n, ")");
		break;
	}
	}
	return buf;
}

/* how deep the tree under n goes (n and its siblings at depth 1), without recursion; -ENOMEM */
static int tree_depth(struct node *n, struct node **deepest)
{
	struct item { struct node *n; int d; } *st = NULL;
	int top = 0, cap = 0, max = 0;

	if (n) {
		st = malloc((cap = 256) * sizeof(*st));
		if (!st)
			return -ENOMEM;
		st[top++] = (struct item){ n, 1 };
	}
	while (top > 0) {
		struct item it = st[--top];
		struct node *kids[] = { it.n->next, it.n->l, it.n->r, it.n->x, it.n->args };

		if (it.d > max) {
			max = it.d;
			*deepest = it.n;
		}
		if (top + 5 > cap) {
			struct item *m = realloc(st, (cap *= 2) * sizeof(*st));

			if (!m) {
				free(st);
				return -ENOMEM;
			}
			st = m;
		}
		for (int k = 0; k < 5; k++)
			if (kids[k])
				st[top++] = (struct item){ kids[k], k ? it.d + 1 : it.d };
	}
	free(st);
	return max;
}

static int depth_check(struct program *p, struct node *n)
{
	struct node *deepest = NULL;
	int d = tree_depth(n, &deepest);

	if (d < 0)
		return d;
	if (d > LANG_MAX_DEPTH) {
		lang__error(p, deepest->loc, "the program nests %d levels deep here, more than the %d sonde allows "
			    "(each operator of a chain such as 1+1+... is a level)", d, LANG_MAX_DEPTH);
		return -EINVAL;
	}
	return 0;
}

int lang__depth(struct program *p)
{
	int rc = 0;

	for (struct macrodef *m = p->macros; m && !rc; m = m->next)
		rc = depth_check(p, m->body);
	for (struct probe *pr = p->probes; pr && !rc; pr = pr->next) {
		rc = depth_check(p, pr->pred);
		if (!rc)
			rc = depth_check(p, pr->body);
	}
	return rc;
}
