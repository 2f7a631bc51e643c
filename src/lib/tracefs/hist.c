// SPDX-License-Identifier: GPL-2.0
/*
 * hist.c - the hist trigger spec read as the kernel reads it, and the hist
 * file's text written as kernel/trace/trace_events_hist.c writes it (6.1):
 * "{ key: %10llu, ... } hitcount: %10llu  val: %10llu", ".hex" keys "%llx",
 * ".sym" "[%llx] %-45s", ".execname" "%-16s[%10llu]", ".syscall"
 * "%-30s[%3llu]", ".log2" "~ 2^%-2ld", strings "%-50s"; then the totals.
 */
#include "lib/tracefs/hist.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static const struct {
	const char *name;
	unsigned mod;
} mods[] = {
	{ "hex", HIST_HEX }, { "sym", HIST_SYM }, { "sym-offset", HIST_SYM_OFFSET },
	{ "execname", HIST_EXECNAME }, { "syscall", HIST_SYSCALL }, { "log2", HIST_LOG2 },
};

/* "name[.mod]" of length n into f */
static int field(const char *s, size_t n, struct hist_field *f, bool key, char *err, size_t errlen)
{
	const char *dot = memchr(s, '.', n);
	size_t nl = dot ? (size_t)(dot - s) : n;

	memset(f, 0, sizeof(*f));
	if (!nl || nl >= sizeof(f->name))
		return fail(err, errlen, "hist: a field name of 1 to %zu characters expected, not '%.*s'",
			    sizeof(f->name) - 1, (int)n, s);
	for (size_t i = 0; i < nl; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return fail(err, errlen, "hist: '%.*s' is not a field name", (int)nl, s);
	memcpy(f->name, s, nl);
	if (dot) {
		size_t ml = n - nl - 1;
		size_t i;

		for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
			if (strlen(mods[i].name) == ml && !memcmp(mods[i].name, dot + 1, ml))
				break;
		if (i == sizeof(mods) / sizeof(mods[0]))
			return fail(err, errlen, "hist: unknown modifier '.%.*s' on '%s' (.hex .sym .sym-offset "
				    ".execname .syscall .log2)", (int)ml, dot + 1, f->name);
		f->mods = mods[i].mod;
		if (!key && f->mods != HIST_HEX)
			return fail(err, errlen, "hist: a value takes .hex only, not '.%s' on '%s'", mods[i].name,
				    f->name);
		if (f->mods == HIST_EXECNAME && strcmp(f->name, "common_pid"))
			return fail(err, errlen, "hist: .execname goes on common_pid only, not on '%s'", f->name);
	}
	return 0;
}

/* the comma list of a keys=, vals= or sort= */
static int list(const char *s, size_t n, struct hist_spec *h, char which, char *err, size_t errlen)
{
	for (size_t i = 0; i <= n; ) {
		size_t e = i;

		while (e < n && s[e] != ',')
			e++;
		if (e == i)
			return fail(err, errlen, "hist: an empty field in '%.*s'", (int)n, s);
		if (which == 'k') {
			if (h->nkeys == HIST_MAX_KEYS)
				return fail(err, errlen, "hist: at most %d keys", HIST_MAX_KEYS);
			if (field(s + i, e - i, &h->keys[h->nkeys++], true, err, errlen))
				return -1;
		} else if (which == 'v') {
			if (e - i == 8 && !memcmp(s + i, "hitcount", 8)) {
				i = e + 1;
				continue;
			}
			if (h->nvals == HIST_MAX_VALS)
				return fail(err, errlen, "hist: at most %d values besides hitcount", HIST_MAX_VALS);
			if (field(s + i, e - i, &h->vals[h->nvals++], false, err, errlen))
				return -1;
		} else {
			struct hist_sort *so;
			const char *dot = memchr(s + i, '.', e - i);
			size_t nl = dot ? (size_t)(dot - s - i) : e - i;
			int k;

			if (h->nsort == HIST_MAX_SORT)
				return fail(err, errlen, "hist: at most %d sort keys", HIST_MAX_SORT);
			so = &h->sort[h->nsort++];
			so->descending = false;
			/* "name[.modifier][.descending|.ascending]": the modifier is the field's own */
			for (const char *m = dot; m; ) {
				const char *next = memchr(m + 1, '.', s + e - m - 1);
				size_t ml = (next ? next : s + e) - m - 1;
				bool known = false;

				for (size_t j = 0; j < sizeof(mods) / sizeof(mods[0]); j++)
					known |= strlen(mods[j].name) == ml && !memcmp(mods[j].name, m + 1, ml);
				if (ml == 10 && !memcmp(m + 1, "descending", 10) && !next)
					so->descending = true;
				else if (!(ml == 9 && !memcmp(m + 1, "ascending", 9) && !next) && !(known && m == dot))
					return fail(err, errlen, "hist: sort key '%.*s': .descending or .ascending expected",
						    (int)(e - i), s + i);
				m = next;
			}
			if (nl == 8 && !memcmp(s + i, "hitcount", 8)) {
				so->idx = 0;
			} else {
				so->idx = 1000;
				for (k = 0; k < h->nvals; k++)
					if (strlen(h->vals[k].name) == nl && !memcmp(h->vals[k].name, s + i, nl))
						so->idx = k + 1;
				for (k = 0; k < h->nkeys && so->idx == 1000; k++)
					if (strlen(h->keys[k].name) == nl && !memcmp(h->keys[k].name, s + i, nl))
						so->idx = -1 - k;
				if (so->idx == 1000)
					return fail(err, errlen, "hist: sort key '%.*s' is neither hitcount nor one of "
						    "the keys or vals", (int)nl, s + i);
			}
		}
		i = e + 1;
	}
	return 0;
}

int hist_spec__parse(const char *s, struct hist_spec *h, char *err, size_t errlen)
{
	const char *end, *iff;
	const char *sorts = NULL;
	size_t nsorts = 0;

	memset(h, 0, sizeof(*h));
	h->size = 2048;
	if (!strncmp(s, "hist:", 5))
		s += 5;
	iff = strstr(s, " if ");
	end = iff ? iff : s + strlen(s);
	while (end > s && end[-1] == ' ')
		end--;
	if (iff) {
		const char *f = iff + 4;

		while (*f == ' ')
			f++;
		if (!*f)
			return fail(err, errlen, "hist: nothing after 'if'");
		if (strlen(f) >= sizeof(h->filter))
			return fail(err, errlen, "hist: the filter is longer than %zu characters", sizeof(h->filter) - 1);
		strcpy(h->filter, f);
	}
	for (const char *p = s; p < end; ) {
		const char *e = memchr(p, ':', end - p), *v;
		size_t n;

		if (!e)
			e = end;
		n = e - p;
		v = memchr(p, '=', n);
		if (!v)
			return fail(err, errlen, "hist: '%.*s': keys=, vals=, sort= or size= expected", (int)n, p);
		size_t kl = v - p, vl = n - kl - 1;

		v++;
		if ((kl == 4 && !memcmp(p, "keys", 4)) || (kl == 3 && !memcmp(p, "key", 3))) {
			if (h->nkeys)
				return fail(err, errlen, "hist: keys= twice");
			if (list(v, vl, h, 'k', err, errlen))
				return -1;
		} else if ((kl == 4 && !memcmp(p, "vals", 4)) || (kl == 6 && !memcmp(p, "values", 6))) {
			if (list(v, vl, h, 'v', err, errlen))
				return -1;
		} else if (kl == 4 && !memcmp(p, "sort", 4)) {
			sorts = v;	/* after vals=, which it may name */
			nsorts = vl;
		} else if (kl == 4 && !memcmp(p, "size", 4)) {
			char num[16], *ep;
			unsigned long sz;

			if (!vl || vl >= sizeof(num))
				return fail(err, errlen, "hist: size=%.*s is not a number", (int)vl, v);
			memcpy(num, v, vl);
			num[vl] = 0;
			errno = 0;
			sz = strtoul(num, &ep, 0);
			/* the kernel's map has 2^7 to 2^17 entries: size= rounds up to a power of two there */
			if (*ep || errno || sz <= 64 || sz > (1UL << 17))
				return fail(err, errlen, "hist: size=%s: 65 to 131072 entries (rounded up to a power of two)", num);
			h->size = 128;
			while (h->size < sz)
				h->size <<= 1;
		} else {
			return fail(err, errlen, "hist: unknown '%.*s=' (keys=, vals=, sort=, size=)", (int)kl, p);
		}
		p = e + 1;
	}
	if (!h->nkeys)
		return fail(err, errlen, "hist: no keys= (keys=FIELD[.MOD],...)");
	if (sorts && list(sorts, nsorts, h, 's', err, errlen))
		return -1;
	return 0;
}

static void put_field(char **p, size_t *left, const struct hist_field *f)
{
	int n = snprintf(*p, *left, "%s", f->name);

	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
		if (f->mods == mods[i].mod && n >= 0 && (size_t)n < *left)
			n += snprintf(*p + n, *left - n, ".%s", mods[i].name);
	if (n < 0 || (size_t)n >= *left)
		n = *left ? *left - 1 : 0;
	*p += n;
	*left -= n;
}

static void put(char **p, size_t *left, const char *s)
{
	int n = snprintf(*p, *left, "%s", s);

	if (n < 0 || (size_t)n >= *left)
		n = *left ? *left - 1 : 0;
	*p += n;
	*left -= n;
}

void hist_spec__info(const struct hist_spec *h, char *buf, size_t len)
{
	char *p = buf, num[32];
	size_t left = len;

	if (!len)
		return;
	buf[0] = 0;
	put(&p, &left, "hist:keys=");
	for (int i = 0; i < h->nkeys; i++) {
		if (i)
			put(&p, &left, ",");
		put_field(&p, &left, &h->keys[i]);
	}
	put(&p, &left, ":vals=hitcount");
	for (int i = 0; i < h->nvals; i++) {
		put(&p, &left, ",");
		put_field(&p, &left, &h->vals[i]);
	}
	put(&p, &left, ":sort=");
	if (!h->nsort)
		put(&p, &left, "hitcount");
	for (int i = 0; i < h->nsort; i++) {
		int idx = h->sort[i].idx;

		if (i)
			put(&p, &left, ",");
		if (!idx)
			put(&p, &left, "hitcount");
		else
			put_field(&p, &left, idx > 0 ? &h->vals[idx - 1] : &h->keys[-1 - idx]);
		if (h->sort[i].descending)
			put(&p, &left, ".descending");
	}
	snprintf(num, sizeof(num), ":size=%u", h->size);
	put(&p, &left, num);
	if (h->filter[0]) {
		put(&p, &left, " if ");
		put(&p, &left, h->filter);
	}
}

/* the kernel's .log2: ilog2(roundup_pow_of_two(v)) */
static uint64_t log2_bucket(uint64_t v)
{
	uint64_t b = 0;

	while (b < 63 && (1ULL << b) < v)
		b++;
	return b;
}

static const struct hist_spec *sort_spec;	/* qsort has no argument */

static int cmp_key(const struct hist_entry *a, const struct hist_entry *b, int k)
{
	if (a->str[k] || b->str[k])
		return strcmp(a->str[k] ? a->str[k] : "", b->str[k] ? b->str[k] : "");
	return a->key[k] < b->key[k] ? -1 : a->key[k] > b->key[k];
}

static int cmp_keys(const struct hist_entry *a, const struct hist_entry *b)
{
	for (int k = 0; k < sort_spec->nkeys; k++) {
		int c = cmp_key(a, b, k);

		if (c)
			return c;
	}
	return 0;
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct hist_entry *a = pa, *b = pb;
	const struct hist_spec *h = sort_spec;
	struct hist_sort def = { 0, false };
	int ns = h->nsort ? h->nsort : 1;

	for (int i = 0; i < ns; i++) {
		const struct hist_sort *s = h->nsort ? &h->sort[i] : &def;
		int c;

		if (s->idx < 0) {
			c = cmp_key(a, b, -1 - s->idx);
		} else {
			uint64_t x = s->idx ? a->vals[s->idx - 1] : a->hits, y = s->idx ? b->vals[s->idx - 1] : b->hits;

			c = x < y ? -1 : x > y;
		}
		if (c)
			return s->descending ? -c : c;
	}
	return cmp_keys(a, b);	/* ties in the order of the keys: the kernel's is its map's */
}

static void print_key(const struct hist_spec *h, const struct hist_entry *e, const struct hist_names *nm, FILE *out)
{
	fputs("{ ", out);
	for (int k = 0; k < h->nkeys; k++) {
		const struct hist_field *f = &h->keys[k];
		uint64_t v = e->key[k];
		char sym[256] = "";
		const char *sc;

		if (k)
			fputs(", ", out);
		if (e->str[k]) {
			fprintf(out, "%s: %-50s", f->name, e->str[k]);
		} else if (f->mods == HIST_HEX) {
			fprintf(out, "%s: %llx", f->name, (unsigned long long)v);
		} else if (f->mods == HIST_SYM || f->mods == HIST_SYM_OFFSET) {
			if (nm && nm->sym)
				nm->sym(v, f->mods == HIST_SYM_OFFSET, sym, sizeof(sym), nm->arg);
			fprintf(out, f->mods == HIST_SYM ? "%s: [%llx] %-45s" : "%s: [%llx] %-55s", f->name,
				(unsigned long long)v, sym);
		} else if (f->mods == HIST_EXECNAME) {
			fprintf(out, "%s: %-16s[%10llu]", f->name, e->comm, (unsigned long long)v);
		} else if (f->mods == HIST_SYSCALL) {
			sc = nm && nm->syscall ? nm->syscall(v, nm->arg) : NULL;
			fprintf(out, "%s: %-30s[%3llu]", f->name, sc && *sc ? sc : "unknown_syscall",
				(unsigned long long)v);
		} else if (f->mods == HIST_LOG2) {
			fprintf(out, "%s: ~ 2^%-2ld", f->name, (long)v);
		} else {
			fprintf(out, "%s: %10llu", f->name, (unsigned long long)v);
		}
	}
	fputs(" }", out);
}

int hist__print(const struct hist_spec *h, struct hist_entry *e, size_t n, uint64_t hits, uint64_t dropped,
		const struct hist_names *names, FILE *out)
{
	char info[1024];
	size_t m = 0;

	/* .log2: the bucket is the key, and entries of one bucket are one */
	for (int k = 0; k < h->nkeys; k++)
		if (h->keys[k].mods == HIST_LOG2)
			for (size_t i = 0; i < n; i++)
				if (!e[i].str[k])
					e[i].key[k] = log2_bucket(e[i].key[k]);
	sort_spec = h;
	if (n)
		qsort(e, n, sizeof(*e), (int (*)(const void *, const void *))cmp_keys);
	for (size_t i = 0; i < n; i++) {
		if (m && !cmp_keys(&e[m - 1], &e[i])) {
			e[m - 1].hits += e[i].hits;
			for (int v = 0; v < h->nvals; v++)
				e[m - 1].vals[v] += e[i].vals[v];
			continue;
		}
		if (m != i)
			e[m] = e[i];
		m++;
	}
	if (m)
		qsort(e, m, sizeof(*e), cmp_entry);
	hist_spec__info(h, info, sizeof(info));
	fprintf(out, "# event histogram\n#\n# trigger info: %s [active]\n#\n\n", info);
	for (size_t i = 0; i < m; i++) {
		print_key(h, &e[i], names, out);
		fprintf(out, " hitcount: %10llu", (unsigned long long)e[i].hits);
		for (int v = 0; v < h->nvals; v++)
			fprintf(out, h->vals[v].mods == HIST_HEX ? "  %s: %10llx" : "  %s: %10llu", h->vals[v].name,
				(unsigned long long)e[i].vals[v]);
		fputc('\n', out);
	}
	fprintf(out, "\nTotals:\n    Hits: %llu\n    Entries: %zu\n    Dropped: %llu\n", (unsigned long long)hits, m,
		(unsigned long long)dropped);
	return ferror(out) ? -1 : 0;
}
