// SPDX-License-Identifier: GPL-2.0
/*
 * trigger.c - parse the flight recorder's --trigger conditions, and the
 * rolling percentile window behind pNN(NAME) triggers.
 */
#include "lib/record/trigger.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* a number then a unit, from *sp; 0 with *sp past it, or -EINVAL */
static int take_duration(const char **sp, bool bare_unit_s, uint64_t *ns)
{
	static const struct { const char *name; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "\xc2\xb5s", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 },
	};
	const char *s = *sp, *u;
	char *end;
	double v, mult = 0;
	size_t ulen = 0;

	if (!isdigit((unsigned char)*s) && *s != '.')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	u = skip_ws(end);	/* "5 ms" as well as "5ms" */
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i].name);

		/* the longest unit that matches and is not followed by a letter */
		if (!strncmp(u, units[i].name, n) && !isalpha((unsigned char)u[n]) && n > ulen) {
			ulen = n;
			mult = units[i].ns;
		}
	}
	if (!ulen) {
		if (!bare_unit_s || isalpha((unsigned char)*u))
			return -EINVAL;
		mult = 1e9;
		u = end;
	}
	v *= mult;
	if (v >= 1.8e19)
		return -EINVAL;
	*ns = (uint64_t)llround(v);
	*sp = u + ulen;
	return 0;
}

int trigger__parse_duration(const char *s, bool bare_unit_s, uint64_t *ns)
{
	const char *p = skip_ws(s);

	if (take_duration(&p, bare_unit_s, ns))
		return -EINVAL;
	return *skip_ws(p) ? -EINVAL : 0;
}

/* a syscall name: [a-z0-9_], from *sp into name; 0 or -EINVAL */
static int take_name(const char **sp, char *name, size_t len)
{
	const char *s = *sp;
	size_t n = 0;

	while (islower((unsigned char)s[n]) || isdigit((unsigned char)s[n]) || s[n] == '_')
		n++;
	if (!n || n >= len || isdigit((unsigned char)*s))
		return -EINVAL;
	memcpy(name, s, n);
	name[n] = 0;
	*sp = s + n;
	return 0;
}

/* pNN: 99 -> 99, 999 -> 99.9, 50 -> 50; p99.9 -> 99.9; 0 or -EINVAL */
static int take_pct(const char **sp, double *pct)
{
	const char *s = *sp;
	size_t n = 0;

	while (isdigit((unsigned char)s[n]))
		n++;
	if (!n || n > 6)
		return -EINVAL;
	if (s[n] == '.') {
		char *end;
		double v = strtod(s, &end);

		if (end == s + n + 1 || end > s + n + 5 || v <= 0 || v >= 100)
			return -EINVAL;
		*pct = v;
		*sp = end;
		return 0;
	}
	/* two digits are a percent (p50, p95); more read as HdrHistogram's nines (p999: 99.9) */
	if (n == 1 || (n > 2 && strncmp(s, "99", 2)) || s[0] == '0')
		return -EINVAL;
	*pct = strtod(s, NULL) / pow(10, (double)n) * 100;
	if (*pct <= 0 || *pct >= 100)
		return -EINVAL;
	*sp = s + n;
	return 0;
}

/* the text of [from, to) without its spaces ("5 ms" -> "5ms"); false when it does not fit */
static bool squeeze(const char *from, const char *to, char *buf, size_t len)
{
	size_t n = 0;

	for (; from < to; from++)
		if (!isspace((unsigned char)*from)) {
			if (n + 1 >= len)
				return false;
			buf[n++] = *from;
		}
	buf[n] = 0;
	return true;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -EINVAL; } while (0)

int trigger__parse(const char *s, struct trigger *t, char *err, size_t errlen)
{
	static const char *const forms = "expected 'syscall:NAME > DURATION' or 'pNN(NAME) > DURATION [over S]'";
	const char *p = skip_ws(s), *what;
	char thr[32], win[48] = "";
	uint64_t w_ns;

	memset(t, 0, sizeof(*t));
	if (!*p)
		FAIL("--trigger '': %s", forms);
	if (!strncmp(p, "syscall:", 8)) {
		t->kind = TRIGGER_SYSCALL;
		p = skip_ws(p + 8);
		if (take_name(&p, t->syscall, sizeof(t->syscall)))
			FAIL("--trigger '%s': expected a syscall name after 'syscall:' (read, openat...)", s);
	} else if (*p == 'p' && isdigit((unsigned char)p[1])) {
		t->kind = TRIGGER_PCT;
		p++;
		if (take_pct(&p, &t->pct))
			FAIL("--trigger '%s': a percentile is p50, p90, p99, p999 or p99.9 (0 < p < 100)", s);
		p = skip_ws(p);
		if (*p != '(')
			FAIL("--trigger '%s': expected '(' and a syscall name after the percentile: p99(read)", s);
		p = skip_ws(p + 1);
		if (take_name(&p, t->syscall, sizeof(t->syscall)))
			FAIL("--trigger '%s': expected a syscall name in the parentheses: p99(read)", s);
		p = skip_ws(p);
		if (*p != ')')
			FAIL("--trigger '%s': expected ')' after the syscall name", s);
		p++;
	} else {
		FAIL("--trigger '%s': %s", s, forms);
	}
	p = skip_ws(p);
	if (*p != '>')
		FAIL("--trigger '%s': expected '>' or '>=' and a duration: > 100ms", s);
	t->or_equal = p[1] == '=';
	p = skip_ws(p + 1 + t->or_equal);
	what = p;
	if (take_duration(&p, false, &t->threshold_ns))
		FAIL("--trigger '%s': expected a duration with its unit after '>': 100ms, 2s, 500us", s);
	if (!squeeze(what, p, thr, sizeof(thr)))
		FAIL("--trigger '%s': the duration after '>' is too long", s);
	if (!t->threshold_ns && !t->or_equal)
		FAIL("--trigger '%s': the threshold must be above 0", s);
	p = skip_ws(p);
	t->window_s = TRIGGER_DEFAULT_WINDOW;
	if (!strncmp(p, "over", 4) && (isspace((unsigned char)p[4]) || isdigit((unsigned char)p[4]))) {
		if (t->kind != TRIGGER_PCT)
			FAIL("--trigger '%s': 'over S' is for percentile triggers only", s);
		p = skip_ws(p + 4);
		what = p;
		if (take_duration(&p, true, &w_ns) || w_ns < 1000000000ULL || w_ns > TRIGGER_MAX_WINDOW * 1000000000ULL ||
		    w_ns % 1000000000ULL)
			FAIL("--trigger '%s': the window after 'over' is whole seconds, 1s to %ds", s, TRIGGER_MAX_WINDOW);
		t->window_s = (unsigned)(w_ns / 1000000000ULL);
		memcpy(win, " over ", 7);
		if (!squeeze(what, p, win + 6, sizeof(win) - 6))
			FAIL("--trigger '%s': the window after 'over' is too long", s);
		p = skip_ws(p);
	}
	if (*p)
		FAIL("--trigger '%s': unexpected '%s' after the condition", s, p);
	if (t->kind == TRIGGER_PCT) {
		char pc[16];

		/* enough calls that the percentile is not simply the slowest of a few */
		t->min_calls = (uint64_t)ceil(100.0 / (100.0 - t->pct) - 1e-9);
		/* a spelling that reads back as itself: p99, p99.9, p9.0 */
		snprintf(pc, sizeof(pc), "%.10g", t->pct);
		if (!strchr(pc, '.') && (t->pct < 10 || t->pct != (int)t->pct))
			strcat(pc, ".0");
		snprintf(t->text, sizeof(t->text), "p%s(%s) %s %s%s", pc, t->syscall, t->or_equal ? ">=" : ">",
			 thr, win);
	} else {
		snprintf(t->text, sizeof(t->text), "syscall:%s %s %s", t->syscall, t->or_equal ? ">=" : ">", thr);
	}
	return 0;
}

bool trigger__exceeds(const struct trigger *t, uint64_t ns)
{
	return t->or_equal ? ns >= t->threshold_ns : ns > t->threshold_ns;
}

void trigger__fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 10000000000ULL)
		snprintf(buf, len, "%.1f s", ns / 1e9);
	else if (ns >= 1000000000ULL)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.0f ms", ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, len, "%.0f us", ns / 1e3);
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
}

/* ------------------------------------------------------------ the buckets */

uint32_t trigger__bucket(uint64_t v)
{
	int e;

	if (v < FLIGHT_SUB)
		return (uint32_t)v;
	e = 63 - __builtin_clzll(v);
	return (uint32_t)((e - FLIGHT_SUB_BITS + 1) * FLIGHT_SUB + ((v >> (e - FLIGHT_SUB_BITS)) & (FLIGHT_SUB - 1)));
}

uint64_t trigger__bucket_low(uint32_t b)
{
	unsigned e;

	if (b < FLIGHT_SUB)
		return b;
	e = b / FLIGHT_SUB + FLIGHT_SUB_BITS - 1;
	return (uint64_t)(FLIGHT_SUB + b % FLIGHT_SUB) << (e - FLIGHT_SUB_BITS);
}

uint64_t trigger__bucket_high(uint32_t b)
{
	if (b < FLIGHT_SUB)
		return b;
	return trigger__bucket_low(b) + ((1ULL << (b / FLIGHT_SUB - 1)) - 1);
}

/* ------------------------------------------------------------- the window */

int pct_window__init(struct pct_window *w, unsigned nslots)
{
	memset(w, 0, sizeof(*w));
	if (!nslots)
		return -EINVAL;
	w->slots = calloc((size_t)nslots * FLIGHT_NBUCKETS, sizeof(uint64_t));
	w->prev = calloc(FLIGHT_NBUCKETS, sizeof(uint64_t));
	if (!w->slots || !w->prev) {
		pct_window__free(w);
		return -ENOMEM;
	}
	w->nslots = nslots;
	return 0;
}

void pct_window__push(struct pct_window *w, const uint64_t *cum)
{
	uint64_t *slot = w->slots + (size_t)w->next * FLIGHT_NBUCKETS;

	/* the counts since attach start at 0; one that went down (a CPU read mid-update) counts none */
	for (int i = 0; i < FLIGHT_NBUCKETS; i++) {
		slot[i] = cum[i] > w->prev[i] ? cum[i] - w->prev[i] : 0;
		if (cum[i] > w->prev[i])
			w->prev[i] = cum[i];
	}
	w->next = (w->next + 1) % w->nslots;
	if (w->filled < w->nslots)
		w->filled++;
}

int pct_window__value(const struct pct_window *w, double pct, uint64_t *value, uint64_t *count)
{
	uint64_t n = 0, rank, seen = 0;

	*value = 0;
	*count = 0;
	for (unsigned s = 0; s < w->nslots; s++)
		for (int i = 0; i < FLIGHT_NBUCKETS; i++)
			n += w->slots[(size_t)s * FLIGHT_NBUCKETS + i];
	if (!n)
		return -ENODATA;
	rank = (uint64_t)ceil(pct / 100.0 * (double)n - 1e-9);
	if (rank < 1)
		rank = 1;
	for (int i = 0; i < FLIGHT_NBUCKETS; i++) {
		for (unsigned s = 0; s < w->nslots; s++)
			seen += w->slots[(size_t)s * FLIGHT_NBUCKETS + i];
		if (seen >= rank) {
			*value = trigger__bucket_high(i);
			break;
		}
	}
	*count = n;
	return 0;
}

void pct_window__free(struct pct_window *w)
{
	free(w->slots);
	free(w->prev);
	w->slots = w->prev = NULL;
}
