// SPDX-License-Identifier: GPL-2.0
/*
 * lex.c - the probe language's lexer. Outside braces (and outside a predicate,
 * a `let`, a `config` or a `struct`) it reads attach points as raw text, since
 * `uprobe:/usr/lib/libc.so.6:malloc` or `kprobe:vfs_*+4` are not expressions;
 * everywhere else it reads C-like tokens.
 */
#include "lang/lang.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void lexer__init(struct lexer *lx, struct program *prog)
{
	memset(lx, 0, sizeof(*lx));
	lx->src = lx->p = prog->src;
	lx->end = prog->src + prog->srclen;
	lx->line = 1;
	lx->line_start = lx->src;
	lx->prog = prog;
}

static struct loc here(struct lexer *lx, const char *at, size_t len)
{
	struct loc l = { .line = lx->line, .col = (int)(at - lx->line_start) + 1, .len = (int)len };
	return l;
}

static void newline(struct lexer *lx, const char *nl)
{
	lx->line++;
	lx->line_start = nl + 1;
}

/* whitespace and comments; -1 on an unterminated comment */
static int skip_space(struct lexer *lx)
{
	while (lx->p < lx->end) {
		char c = *lx->p;

		if (c == '\n') {
			newline(lx, lx->p);
			lx->p++;
		} else if (isspace((unsigned char)c)) {
			lx->p++;
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
			const char *start = lx->p;
			struct loc l = here(lx, start, 2);

			lx->p += 2;
			while (lx->p + 1 < lx->end && !(lx->p[0] == '*' && lx->p[1] == '/')) {
				if (*lx->p == '\n')
					newline(lx, lx->p);
				lx->p++;
			}
			if (lx->p + 1 >= lx->end) {
				lang__error(lx->prog, l, "unterminated comment");
				lx->p = lx->end;
				return -1;
			}
			lx->p += 2;
		} else if (c == '#' && lx->depth == 0 && (lx->p == lx->line_start)) {
			/* #include, #define, #ifdef...: struct types come from BTF, not headers */
			pp__directive(lx);
		} else {
			break;
		}
	}
	return 0;
}

static bool spec_char(char c)
{
	return isalnum((unsigned char)c) || strchr("_:*.+-?[]!~@", c) != NULL;
}

static bool path_provider(const char *s, size_t n)
{
	const char *p = lang__provider_name(s, n);

	return p && (!strcmp(p, "uprobe") || !strcmp(p, "uretprobe") || !strcmp(p, "usdt") ||
		     !strcmp(p, "watchpoint") || !strcmp(p, "asyncwatchpoint"));
}

static struct token make(struct lexer *lx, enum tok t, const char *at)
{
	struct token k = { 0 };

	k.t = t;
	k.at = at;
	k.loc = lx->nexp ? lx->exp[0].loc : here(lx, at, lx->p - at);	/* a #define's value: at its name */
	return k;
}

/*
 * Identifier k names an object-like #define not being expanded already: lex its
 * value in its place (1), or say that a function-like one is not expanded (-1).
 */
static int expand_define(struct lexer *lx, const struct token *k)
{
	int d = pp__lookup(lx, k->s, k->slen);

	if (d < 0)
		return 0;
	if (!lx->pp_vals[d]) {
		lang__error(lx->prog, k->loc, "'%s' is a function-like #define, which sonde does not expand: "
			    "write it as a macro (macro %s(x) { ... })", k->s, k->s);
		return -1;
	}
	if (!*lx->pp_vals[d] || lx->nexp == (int)(sizeof(lx->exp) / sizeof(lx->exp[0])))
		return 0;
	for (int i = 0; i < lx->nexp; i++)
		if (lx->exp[i].def == d)	/* #define A A: as in C, not again */
			return 0;
	struct pp_expansion *x = &lx->exp[lx->nexp++];

	x->p = lx->p;
	x->end = lx->end;
	x->line = lx->line;
	x->line_start = lx->line_start;
	x->def = d;
	x->loc = k->loc;
	lx->p = lx->line_start = lx->pp_vals[d];
	lx->end = lx->p + strlen(lx->p);
	return 1;
}

/* the attach point's text with $N replaced by the Nth positional parameter ("" when it is missing) */
static char *expand_params(struct lexer *lx, const char *s, size_t n)
{
	char *out;
	size_t len = 0, cap = n + 1;

	for (size_t i = 0; i < n; i++)
		if (s[i] == '$')
			for (int k = 0; k < lx->prog->nparams; k++)
				cap += strlen(lx->prog->params[k]);
	out = arena__alloc(lx->prog->arena, cap);
	for (size_t i = 0; i < n;) {
		if (s[i] == '$' && i + 1 < n && isdigit((unsigned char)s[i + 1])) {
			long v = 0;

			for (i++; i < n && isdigit((unsigned char)s[i]) && v < 100000; i++)
				v = v * 10 + (s[i] - '0');
			if (v >= 1 && v <= lx->prog->nparams) {
				size_t pl = strlen(lx->prog->params[v - 1]);

				if (len + pl < cap) {
					memcpy(out + len, lx->prog->params[v - 1], pl);
					len += pl;
				}
			}
			continue;
		}
		if (len + 1 < cap)
			out[len++] = s[i];
		i++;
	}
	out[len] = 0;
	return out;
}

/*
 * A '/' at p in a uprobe's function name (Go's net/http.(*T).M) rather than the start
 * of a predicate: the run up to whitespace, ',' or '{' does not end in '/' (func/retval/)
 * and no '/' closes a predicate later on the line before '{' (func/pid == 1/ {), unless
 * that later '/' opens a predicate of its own after a space (net/http.F /pid == 1/ {).
 */
static bool go_path_slash(const char *p, const char *end)
{
	const char *q = p + 1;

	while (q < end && !isspace((unsigned char)*q) && *q != ',' && *q != '{')
		q++;
	if (q[-1] == '/' || q == p + 1)
		return false;
	if (q == end || *q == ',' || *q == '{')
		return true;
	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	if (q < end && *q == '/')
		return true;
	for (; q < end && *q != '{' && *q != '\n'; q++)
		if (*q == '/')
			return false;
	return true;
}

/* an attach point as text, up to whitespace, ',' or '{' ('/' only inside a uprobe's path or Go function name) */
static struct token lex_spec(struct lexer *lx)
{
	const char *start = lx->p;
	int field = 0;
	size_t first_len = 0;

	while (lx->p < lx->end) {
		char c = *lx->p;

		if (c == ':') {
			if (field == 0)
				first_len = lx->p - start;
			field++;
		} else if (c == '/') {
			if (!(field == 1 && path_provider(start, first_len)) &&
			    !(field == 2 && path_provider(start, first_len) && go_path_slash(lx->p, lx->end)) &&
			    !(field == 2 && ((first_len == 4 && !memcmp(start, "iter", 4)) ||
					     (first_len == 2 && !memcmp(start, "it", 2)))))	/* iter:task:/sys/fs/bpf/PIN */
				break;
		} else if (c == '"' && field >= 1 && lx->p[-1] == ':') {
			/* a quoted function name: C++'s ns::f, Go's net/http.(*T).M */
			const char *q = memchr(lx->p + 1, '"', lx->end - lx->p - 1);

			if (!q)
				break;
			lx->p = q;
		} else if ((c == '(' || c == ')') && field >= 2 && path_provider(start, first_len)) {
			/* Go method names: main.(*T).M */
		} else if (c == '$' && lx->p + 1 < lx->end && isdigit((unsigned char)lx->p[1])) {
			/* a positional parameter: uprobe:$1:main, or the whole attach point ($1 {): a tool's pattern */
		} else if (!spec_char(c)) {
			break;
		}
		lx->p++;
	}
	struct token k = make(lx, T_PROBE, start);

	k.s = expand_params(lx, start, lx->p - start);
	k.slen = strlen(k.s);
	lx->after_spec = true;
	return k;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static struct token lex_string(struct lexer *lx)
{
	const char *start = lx->p++, *line_start = lx->line_start;
	char *buf = arena__alloc(lx->prog->arena, lx->end - start + 1);
	size_t n = 0;
	int line = lx->line;

	while (lx->p < lx->end && *lx->p != '"') {
		char c = *lx->p++;

		if (c == '\n')	/* a string may go on over lines, as upstream's: the newline is in it */
			newline(lx, lx->p - 1);
		if (c == '\\' && lx->p < lx->end) {
			char e = *lx->p++;

			switch (e) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'a': c = '\a'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'v': c = '\v'; break;
			case 'e': c = 27; break;
			case '\\': c = '\\'; break;
			case '"': c = '"'; break;
			case '\'': c = '\''; break;
			case 'x': {
				int v = 0, d, k = 0;

				while (k < 2 && lx->p < lx->end && (d = hexval(*lx->p)) >= 0) {
					v = v * 16 + d;
					lx->p++;
					k++;
				}
				c = (char)v;
				break;
			}
			default:
				if (e >= '0' && e <= '7') {
					int v = e - '0', k = 1;

					while (k < 3 && lx->p < lx->end && *lx->p >= '0' && *lx->p <= '7') {
						v = v * 8 + (*lx->p++ - '0');
						k++;
					}
					c = (char)v;
				} else {
					struct token k = make(lx, T_ERROR, lx->p - 2);

					lang__error(lx->prog, k.loc, "invalid escape sequence '\\%c'", e);
					return k;
				}
			}
		}
		buf[n++] = c;
	}
	int end_line = lx->line;
	const char *end_start = lx->line_start;

	lx->line = line;	/* the token's place is where it starts */
	lx->line_start = line_start;
	if (lx->p >= lx->end) {
		struct token k = make(lx, T_ERROR, start);

		const char *nl = memchr(start, '\n', lx->end - start);

		k.loc.len = (int)((nl ? nl : lx->end) - start);
		lang__error(lx->prog, k.loc, "unterminated string");
		return k;
	}
	lx->p++;
	struct token k = make(lx, T_STR, start);

	lx->line = end_line;
	lx->line_start = end_start;

	k.s = buf;
	k.slen = n;
	return k;
}

/* 100ms, 1s, 2h: a duration's suffix turns a decimal literal into nanoseconds */
static bool lex_duration(struct lexer *lx, unsigned long long base, unsigned long long *v, bool *overflow)
{
	unsigned long long ns;
	int n = base == 10 ? lang__duration_suffix(lx->p, lx->end, &ns) : 0;

	if (!n)
		return false;
	if (*v > ~0ULL / ns)
		*overflow = true;
	*v *= ns;
	lx->p += n;
	return true;
}

static struct token lex_number(struct lexer *lx)
{
	const char *start = lx->p;
	unsigned long long v = 0, base = 10;
	bool any = false, overflow = false;

	if (lx->p + 1 < lx->end && lx->p[0] == '0' && (lx->p[1] == 'x' || lx->p[1] == 'X'))
		base = 16, lx->p += 2;
	else if (lx->p + 1 < lx->end && lx->p[0] == '0' && (lx->p[1] == 'b' || lx->p[1] == 'B'))
		base = 2, lx->p += 2;
	else if (lx->p[0] == '0' && lx->p + 1 < lx->end && isdigit((unsigned char)lx->p[1]))
		base = 8, lx->p++;
	for (; lx->p < lx->end; lx->p++) {
		int d = *lx->p == '_' ? -2 : hexval(*lx->p);

		if (d == -2)
			continue;
		if (d < 0 || d >= (int)base)
			break;
		if (v > (~0ULL - d) / base)
			overflow = true;
		v = v * base + d;
		any = true;
	}
	/* 1e6 */
	if (base == 10 && lx->p + 1 < lx->end && (*lx->p == 'e' || *lx->p == 'E') &&
	    isdigit((unsigned char)lx->p[1])) {
		int e = 0;

		lx->p++;
		for (; lx->p < lx->end && isdigit((unsigned char)*lx->p); lx->p++)
			if (e < 1000)	/* 1e1000 overflows anyway */
				e = e * 10 + (*lx->p - '0');
		while (e-- > 0 && !overflow) {
			if (v > ~0ULL / 10)
				overflow = true;
			v *= 10;
		}
	}
	/* a duration (5us), else C suffixes (123UL) */
	if (!lex_duration(lx, base, &v, &overflow))
		while (lx->p < lx->end && strchr("uUlL", *lx->p))
			lx->p++;
	struct token k = make(lx, T_INT, start);

	if (!any || overflow || (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '_'))) {
		while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '_'))
			lx->p++;
		k = make(lx, T_ERROR, start);
		lang__error(lx->prog, k.loc, overflow ? "integer literal is too large" : "invalid integer literal");
		return k;
	}
	k.i = (long long)v;
	return k;
}

static const struct { const char *s; enum tok t; } ops[] = {
	{ "<<=", T_SHL_ASSIGN }, { ">>=", T_SHR_ASSIGN },
	{ "->", T_ARROW }, { "..", T_DOTDOT }, { "==", T_EQ }, { "!=", T_NE }, { "<=", T_LE }, { ">=", T_GE },
	{ "&&", T_LAND }, { "||", T_LOR }, { "<<", T_SHL }, { ">>", T_SHR }, { "++", T_INC }, { "--", T_DEC },
	{ "+=", T_ADD_ASSIGN }, { "-=", T_SUB_ASSIGN }, { "*=", T_MUL_ASSIGN }, { "/=", T_DIV_ASSIGN },
	{ "%=", T_MOD_ASSIGN }, { "&=", T_AND_ASSIGN }, { "|=", T_OR_ASSIGN }, { "^=", T_XOR_ASSIGN },
	{ "{", T_LBRACE }, { "}", T_RBRACE }, { "(", T_LPAREN }, { ")", T_RPAREN }, { "[", T_LBRACKET },
	{ "]", T_RBRACKET }, { ";", T_SEMI }, { ",", T_COMMA }, { ":", T_COLON }, { ".", T_DOT },
	{ "?", T_QUESTION }, { "=", T_ASSIGN }, { "+", T_PLUS }, { "-", T_MINUS }, { "*", T_STAR },
	{ "/", T_SLASH }, { "%", T_PERCENT }, { "<", T_LT }, { ">", T_GT }, { "!", T_NOT }, { "&", T_BAND },
	{ "|", T_BOR }, { "^", T_BXOR }, { "~", T_BNOT },
};

static bool top_keyword(const char *s, size_t n)
{
	static const char *kw[] = { "config", "let", "struct", "union", "enum", "macro", "import", "fn", "__attribute__",
				    NULL };

	for (int i = 0; kw[i]; i++)
		if (strlen(kw[i]) == n && !memcmp(kw[i], s, n))
			return true;
	return false;
}

struct token lexer__next(struct lexer *lx)
{
	struct token k;

	if (skip_space(lx))
		return make(lx, T_ERROR, lx->p);
	if (lx->p >= lx->end && lx->nexp) {	/* the end of a #define's value: back after its name */
		struct pp_expansion *x = &lx->exp[--lx->nexp];

		lx->p = x->p;
		lx->end = x->end;
		lx->line = x->line;
		lx->line_start = x->line_start;
		return lexer__next(lx);
	}
	if (lx->p >= lx->end)
		return make(lx, T_EOF, lx->p);

	const char *start = lx->p;
	char c = *lx->p;
	bool spec_mode = lx->depth == 0 && !lx->after_spec;

	if (spec_mode && c == '$' && lx->p + 1 < lx->end && isdigit((unsigned char)lx->p[1]))
		return lex_spec(lx);	/* $1 { ... }: the attach point is a parameter */
	if (spec_mode && (isalpha((unsigned char)c) || c == '_')) {
		const char *q = lx->p;

		while (q < lx->end && (isalnum((unsigned char)*q) || *q == '_'))
			q++;
		if (top_keyword(start, q - start)) {
			lx->after_spec = true;	/* what follows is an expression */
			lx->in_attr = q - start == 13 && !memcmp(start, "__attribute__", 13);
			lx->p = q;
			k = make(lx, T_IDENT, start);
			k.s = arena__strndup(lx->prog->arena, start, q - start);
			k.slen = q - start;
			return k;
		}
		if (q + 1 < lx->end && *q == '=' && q[1] != '=' && (isalpha((unsigned char)q[1]) || q[1] == '_')) {
			/* NAME=probe: a name bpftrace reserves for itself and does not use; dropped */
			lx->p = q + 1;
		}
		return lex_spec(lx);
	}
	if (c == '"')
		return lex_string(lx);
	if (isdigit((unsigned char)c))
		return lex_number(lx);
	if (isalpha((unsigned char)c) || c == '_') {
		while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '_'))
			lx->p++;
		k = make(lx, T_IDENT, start);
		k.s = arena__strndup(lx->prog->arena, start, lx->p - start);
		k.slen = lx->p - start;
		switch (lx->npp_defs ? expand_define(lx, &k) : 0) {
		case 1:
			return lexer__next(lx);
		case -1:
			k.t = T_ERROR;
			break;
		}
		return k;
	}
	if (c == '$') {
		lx->p++;
		if (lx->p < lx->end && *lx->p == '#') {
			lx->p++;
			return make(lx, T_NPOS, start);
		}
		if (lx->p < lx->end && isdigit((unsigned char)*lx->p)) {
			long long v = 0;

			while (lx->p < lx->end && isdigit((unsigned char)*lx->p) && v < 100000)
				v = v * 10 + (*lx->p++ - '0');
			k = make(lx, T_POS, start);
			k.i = v;
			return k;
		}
		while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '_'))
			lx->p++;
		if (lx->p == start + 1) {
			k = make(lx, T_ERROR, start);
			lang__error(lx->prog, k.loc, "'$' must be followed by a variable name or a number");
			return k;
		}
		k = make(lx, T_VAR, start);
		k.s = arena__strndup(lx->prog->arena, start, lx->p - start);
		k.slen = lx->p - start;
		return k;
	}
	if (c == '@') {
		lx->p++;
		while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '_'))
			lx->p++;
		k = make(lx, T_MAP, start);
		k.s = arena__strndup(lx->prog->arena, start, lx->p - start);
		k.slen = lx->p - start;
		return k;
	}
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].s);

		if ((size_t)(lx->end - lx->p) >= n && !memcmp(lx->p, ops[i].s, n)) {
			lx->p += n;
			k = make(lx, ops[i].t, start);
			if (k.t == T_LPAREN || k.t == T_LBRACKET) {	/* a predicate's f(a, b) or @m[a, b] */
				lx->paren++;
			} else if (k.t == T_RPAREN || k.t == T_RBRACKET) {
				lx->paren -= lx->paren > 0;
				if (lx->in_attr && !lx->paren && !lx->depth)	/* struct s {...} __attribute__((packed)) BEGIN */
					lx->after_spec = lx->in_attr = false;
			} else if (k.t == T_LBRACE) {
				lx->depth++;
			} else if (k.t == T_RBRACE && lx->depth > 0) {
				if (--lx->depth == 0)
					lx->after_spec = false;
			} else if (k.t == T_SEMI && lx->depth == 0) {
				lx->after_spec = false;
			} else if (k.t == T_COMMA && lx->depth == 0 && !lx->paren && lx->after_spec) {
				/* "BEGIN, END": another attach point follows */
				const char *q = lx->p;

				while (q < lx->end && isspace((unsigned char)*q))
					q++;
				if (q < lx->end && (isalpha((unsigned char)*q) || *q == '_'))
					lx->after_spec = false;
			}
			return k;
		}
	}
	lx->p++;
	k = make(lx, T_ERROR, start);
	if (isprint((unsigned char)c))
		lang__error(lx->prog, k.loc, "unexpected character '%c'", c);
	else
		lang__error(lx->prog, k.loc, "unexpected byte 0x%02x", (unsigned char)c);
	return k;
}
