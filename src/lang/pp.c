// SPDX-License-Identifier: GPL-2.0
/*
 * pp.c - the little of the C preprocessor bpftrace scripts use: #ifdef,
 * #ifndef, #if (numbers, defined(X), !), #else, #endif, #define and #undef.
 * An object-like #define's value is lexed in place of its name (lex.c), as
 * bpftrace's preprocessor substitutes it; function-like ones are not
 * expanded. BPFTRACE_HAVE_BTF is defined when the kernel has BTF, as bpftrace
 * defines it: tools keep hand-written struct copies behind
 * `#ifndef BPFTRACE_HAVE_BTF`. An #include brings no types (they come from
 * BTF), only names: <errno.h>'s (check.c) and the #define constants of the
 * header (kconst.c). Skipped lines still count for line numbers.
 */
#include "lang/lang.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *word(const char **p, const char *end, size_t *len)
{
	const char *s;

	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
	s = *p;
	while (*p < end && (isalnum((unsigned char)**p) || **p == '_'))
		(*p)++;
	*len = *p - s;
	return s;
}

int pp__lookup(const struct lexer *lx, const char *s, size_t n)
{
	for (int i = lx->npp_defs - 1; i >= 0; i--)
		if (strlen(lx->pp_defs[i]) == n && !strncmp(lx->pp_defs[i], s, n))
			return i;
	return -1;
}

static bool defined(struct lexer *lx, const char *s, size_t n)
{
	if (n == 17 && !strncmp(s, "BPFTRACE_HAVE_BTF", 17))
		return access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	return pp__lookup(lx, s, n) >= 0;
}

/* #define NAME VALUE: VALUE is the rest of the line, without a trailing // comment */
static void define(struct lexer *lx, const char *p, const char *e)
{
	size_t m;
	const char *name = word(&p, e, &m), *v;

	if (!m || lx->npp_defs >= (int)(sizeof(lx->pp_defs) / sizeof(lx->pp_defs[0])))
		return;
	lx->pp_defs[lx->npp_defs] = arena__strndup(lx->prog->arena, name, m);
	if (p < e && *p == '(') {	/* NAME(args): function-like, not expanded */
		lx->pp_vals[lx->npp_defs++] = NULL;
		return;
	}
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	v = p;
	for (bool quoted = false; p < e; p++) {
		if (*p == '"' && (p == v || p[-1] != '\\'))
			quoted = !quoted;
		if (!quoted && p + 1 < e && p[0] == '/' && (p[1] == '/' || p[1] == '*'))
			break;
	}
	while (p > v && isspace((unsigned char)p[-1]))
		p--;
	lx->pp_vals[lx->npp_defs++] = arena__strndup(lx->prog->arena, v, p - v);
}

/* #if's expression: a number, defined(X) or defined X, each with any '!' before it; anything else is 0 */
static bool if_value(struct lexer *lx, const char *p, const char *end)
{
	bool neg = false, v = false;
	size_t n;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '!'))
		neg ^= *p++ == '!';
	if (p < end && isdigit((unsigned char)*p)) {
		v = strtol(p, NULL, 0) != 0;
	} else {
		const char *w = word(&p, end, &n);

		if (n == 7 && !strncmp(w, "defined", 7)) {
			while (p < end && (*p == ' ' || *p == '('))
				p++;
			w = word(&p, end, &n);
			v = defined(lx, w, n);
		}
	}
	return neg ? !v : v;
}

static const char *line_end(const char *p, const char *end)
{
	const char *e = memchr(p, '\n', end - p);

	return e ? e : end;
}

/*
 * Skip lines up to the #else or #endif that closes the current #if (nested
 * ones skipped whole): lx->p is left at that directive's line start.
 */
static void skip_region(struct lexer *lx, bool stop_at_else)
{
	int depth = 0;

	while (lx->p < lx->end) {
		const char *p = lx->p, *e = line_end(p, lx->end);
		size_t n;

		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (p < e && *p == '#') {
			p++;
			const char *w = word(&p, e, &n);

			if ((n == 2 && !strncmp(w, "if", 2)) || (n == 5 && !strncmp(w, "ifdef", 5)) ||
			    (n == 6 && !strncmp(w, "ifndef", 6)))
				depth++;
			else if (n == 5 && !strncmp(w, "endif", 5) && depth-- == 0)
				return;
			else if (n == 4 && !strncmp(w, "else", 4) && depth == 0 && stop_at_else)
				return;
		}
		if (e == lx->end) {
			lx->p = e;
			return;
		}
		lx->line++;
		lx->line_start = e + 1;
		lx->p = e + 1;
	}
}

void pp__directive(struct lexer *lx)
{
	const char *p = lx->p + 1, *e = line_end(lx->p, lx->end);
	size_t n;
	const char *w = word(&p, e, &n);

	lx->p = e;	/* the directive's line is consumed */
	if ((n == 5 && !strncmp(w, "ifdef", 5)) || (n == 6 && !strncmp(w, "ifndef", 6)) || (n == 2 && !strncmp(w, "if", 2))) {
		bool v;

		if (n == 2) {
			v = if_value(lx, p, e);
		} else {
			size_t m;
			const char *name = word(&p, e, &m);

			v = defined(lx, name, m) == (n == 5);
		}
		if (lx->pp_depth < 64)
			lx->pp_depth++;
		if (v)
			return;
		/* false: on to the #else (whose branch is then taken) or the #endif */
		if (e < lx->end) {
			lx->line++;
			lx->line_start = e + 1;
			lx->p = e + 1;
		}
		skip_region(lx, true);
		const char *q = lx->p;

		while (q < lx->end && *q != '#')
			q++;
		if (q < lx->end && !strncmp(q + 1, "else", 4)) {
			lx->p = line_end(q, lx->end);	/* taken: lexing goes on after it */
		} else {
			lx->p = line_end(q, lx->end);	/* #endif */
			lx->pp_depth--;
		}
		return;
	}
	if (n == 4 && !strncmp(w, "else", 4)) {
		/* reached while lexing a taken branch: the other one is skipped */
		if (e < lx->end) {
			lx->line++;
			lx->line_start = e + 1;
			lx->p = e + 1;
		}
		skip_region(lx, false);
		lx->p = line_end(lx->p, lx->end);
		if (lx->pp_depth > 0)
			lx->pp_depth--;
		return;
	}
	if (n == 5 && !strncmp(w, "endif", 5)) {
		if (lx->pp_depth > 0)
			lx->pp_depth--;
		return;
	}
	if (n == 6 && !strncmp(w, "define", 6))
		define(lx, p, e);
	if (n == 5 && !strncmp(w, "undef", 5)) {
		size_t m;
		const char *name = word(&p, e, &m);
		int d = pp__lookup(lx, name, m);

		if (d >= 0)
			lx->pp_defs[d] = "";
	}
	if (n == 7 && !strncmp(w, "include", 7))
		pp__include(lx->prog, p, e);
	/* #pragma...: nothing to do */
}

void pp__include(struct program *prog, const char *p, const char *e)
{
	/* <errno.h>, <linux/errno.h>, <asm-generic/errno-base.h>... */
	kconst__include(prog, p, e);	/* <linux/sched.h>: TASK_RUNNING */
	for (const char *q = p; q < e; q++) {
		bool start = q == p || q[-1] == '/' || q[-1] == '<' || q[-1] == '"';

		if (start && q + 5 <= e && !strncmp(q, "errno", 5))
			prog->errno_names = true;
		/* <syscall.h>, <sys/syscall.h>, <asm/unistd.h>, <asm/unistd_64.h>: __NR_read, SYS_read */
		if (start && ((q + 9 <= e && !strncmp(q, "syscall.h", 9)) || (q + 6 <= e && !strncmp(q, "unistd", 6) &&
							       q > p && q[-1] == '/')))
			prog->syscall_names = true;
	}
}
