// SPDX-License-Identifier: GPL-2.0
/*
 * check_str.c - the type rules of upstream's string functions: strlen, strcap,
 * strstr, memcmp, globmatch, assert_str, default_str_length, assert,
 * syscall_name and username. "String-like" is upstream's: a string, an array
 * of chars (a tracepoint's char[16], a kernel type's char[]) or a pointer to
 * chars (int8 *, a tracepoint's char * field).
 */
#include "lang/check_int.h"
#include "lang/ktypes.h"
#include "lang/provider.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a tracepoint's char * field (the format says so; sonde types it as an integer) */
static bool tp_char_ptr(struct ck *c, struct node *a)
{
	const struct tp_field *f;

	if (a->kind != N_FIELD || !a->l || a->l->ty.kind != TY_CTX || !c->in)
		return false;
	f = provider__field(c->in, a->s);
	return f && f->ptr && f->ctype && strstr(f->ctype, "char") && !strstr(f->ctype, "**");
}

/*
 * 1 a string (or a char array, read as one), 2 a pointer to chars, 0 (and an
 * error) anything else: upstream's assert_str
 */
static int str_like(struct ck *c, struct node *a)
{
	char b[64];

	if (a->ty.kind == TY_STR)
		return 1;
	if (a->ty.kind == TY_INT && a->ty.ptr) {
		if (a->ty.ptr->kind == TY_INT && a->ty.ptr->bits == 8 && !a->ty.ptr->ptr)
			return 2;
		lang__error(c->prog, a->loc, "string-like pointers must point to a char-like type (this is %s)",
			    type__str(&a->ty, b, sizeof(b)));
		return 0;
	}
	if (a->ty.kind == TY_INT && tp_char_ptr(c, a))
		return 2;
	if (a->ty.kind == TY_STRUCT || a->ty.kind == TY_ARRAY) {
		int elem = 0, cnt = 0;

		if (a->ty.kind == TY_STRUCT && a->ty.btf_id > 0 && !ktypes__array(c->prog, a->ty.btf_id, &elem, &cnt) &&
		    ktypes__size(c->prog, elem) == 1)
			return 1;
		if (a->ty.kind == TY_STRUCT && ktypes__array(c->prog, a->ty.btf_id, &elem, &cnt)) {
			lang__error(c->prog, a->loc, "string-like values must be either strings, arrays or pointers (this is %s)",
				    type__str(&a->ty, b, sizeof(b)));
			return 0;
		}
		lang__error(c->prog, a->loc, "string-like arrays must contain a char-like type (this is %s)",
			    type__str(&a->ty, b, sizeof(b)));
		return 0;
	}
	lang__error(c->prog, a->loc, "string-like values must be either strings, arrays or pointers (this is %s)",
		    type__str(&a->ty, b, sizeof(b)));
	return 0;
}

/* upstream's strcap(): a string's or an array's capacity, 0 for a pointer (its length, known at run time) */
int ck_str_cap(struct ck *c, struct node *a)
{
	int arr;

	if (a->kind == N_STR)
		return (int)a->slen + 1;
	if (a->kind == N_CALL && a->op == F_STR && a->args->ty.kind != TY_STR) {	/* str(p[, n]): before rounding */
		long long v = c->prog->cfg.max_strlen;

		if (a->args->next && ck_is_const_int(a->args->next, &v) && v + 1 < c->prog->cfg.max_strlen)
			return (int)v + 1;
		return c->prog->cfg.max_strlen;
	}
	if (a->ty.kind == TY_STRUCT)
		return ck_array_size(c, a);
	if (a->ty.kind != TY_STR)
		return 0;
	arr = ck_array_size(c, a);
	return arr ? arr : a->ty.size;
}

/* bytes a value takes in memcmp(): a string's or an array's capacity, an integer's 8 */
static int mem_size(struct ck *c, struct node *a)
{
	char b[64];

	if (a->ty.kind == TY_INT && !a->ty.ptr)
		return 8;
	if (a->ty.kind == TY_STR || a->ty.kind == TY_ARRAY || a->ty.kind == TY_BUF || a->ty.kind == TY_MACADDR ||
	    a->ty.kind == TY_TUPLE) {
		int n = a->ty.kind == TY_STR ? ck_str_cap(c, a) : a->ty.kind == TY_ARRAY ? type__array_bytes(&a->ty) : a->ty.size;

		return n > a->ty.size && a->kind != N_STR ? a->ty.size : n;
	}
	lang__error(c->prog, a->loc, "memcmp() compares the bytes of values: strings, arrays, tuples or integers "
		    "(this is %s)", type__str(&a->ty, b, sizeof(b)));
	return -1;
}

/* where the call ends in the source (its ')'), for the messages "file:line:col-end" of assert() and errorf() */
static int call_end_col(struct ck *c, struct node *n)
{
	const char *s = c->prog->src, *e = s + c->prog->srclen, *p = s;
	int line = 1, depth = 0;
	bool quote = false;

	while (p < e && line < n->loc.line)
		if (*p++ == '\n')
			line++;
	p += n->loc.col - 1;
	for (const char *q = p; q < e && *q != '\n'; q++) {
		if (quote) {
			if (*q == '\\' && q + 1 < e)
				q++;
			else if (*q == '"')
				quote = false;
			continue;
		}
		if (*q == '"')
			quote = true;
		else if (*q == '(')
			depth++;
		else if (*q == ')' && --depth == 0)
			return n->loc.col + (int)(q - p) + 1;
	}
	return n->loc.col + n->loc.len;
}

/* "file:line:col-end: WHAT: " + fmt + "\n", the format of a message that names its call's place in the
 * source (assert(), errorf(), warnf()); a '%' in the file name is doubled so that it prints as itself */
/* text as printf format text: each '%' doubled */
static void put_fmt_text(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputs(s[i] == '%' ? "%%" : (char[]){ s[i], 0 }, f);
}

const char *ck_located_fmt(struct ck *c, struct node *n, const char *what, const char *fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	put_fmt_text(f, c->prog->file, strlen(c->prog->file));
	fprintf(f, ":%d:%d-%d: %s: %s\n", n->loc.line, n->loc.col, call_end_col(c, n), what, fmt);
	/* in a macro: each call it was expanded from, with its line, as upstream prints them */
	for (int k = n->loc.exp; k > 0 && k <= c->prog->nexps; k = c->prog->exps[k - 1].call.exp) {
		struct node call = { .loc = c->prog->exps[k - 1].call };
		const char *line = c->prog->src, *end = line + c->prog->srclen, *eol;
		int end_col = call_end_col(c, &call);

		for (int l = 1; l < call.loc.line && line < end; l++)
			line = (eol = memchr(line, '\n', end - line)) ? eol + 1 : end;
		eol = memchr(line, '\n', end - line);
		put_fmt_text(f, c->prog->file, strlen(c->prog->file));
		fprintf(f, ":%d:%d-%d: %s: expanded from\n", call.loc.line, call.loc.col, end_col, what);
		put_fmt_text(f, line, (eol ? eol : end) - line);
		fprintf(f, "\n%*s", call.loc.col - 1, "");
		for (int i = call.loc.col; i < end_col; i++)
			fputc('~', f);
		fputc('\n', f);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	const char *r = arena__strndup(c->prog->arena, buf, len);

	free(buf);
	return r;
}

/* assert(cond, msg): a record with the message, made into "file:l:c-e: ERROR: assert failed: msg" */
static int assert_site(struct ck *c, struct node *n, struct node *msg)
{
	struct fmtsite *s;

	if (n->id > 0)
		return 0;
	s = arena__alloc(c->prog->arena, sizeof(*s));
	s->kind = REC_ASSERT;
	s->fmt = ck_located_fmt(c, n, "ERROR", "assert failed: %s");
	if (!s->fmt)
		return -1;
	s->nargs = 1;
	s->loc = n->loc;
	s->args = arena__alloc(c->prog->arena, 2 * sizeof(struct type));
	s->args[0] = msg->ty;
	s->size = 8 + round8(msg->ty.size);
	n->id = lang__add_site(c->prog, s) + 1;
	return n->id > 0 ? 0 : -1;
}

/* the scratch value gen_str.c's loops work in: state, then the two strings */
static void need_scratch(struct ck *c, int a, int b)
{
	int need = 88 + round8(a) + round8(b);

	if (need > c->prog->strs_scratch)
		c->prog->strs_scratch = need;
}

struct type ck_str_fn(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	(void)assign_to;
	struct type none = ty_kind(TY_NONE, 0);
	struct node *a0 = n->args, *a1 = a0 ? a0->next : NULL;
	char b[64];
	long long v;
	int k0, k1;

	for (struct node *a = a0; a; a = a->next) {
		ck_expr(c, a);
		if (c->prog->err)
			return none;
		if (a->ty.kind == TY_VOID || a->ty.kind == TY_CTX) {
			lang__error(c->prog, a->loc, "this cannot be an argument of %s()", n->s);
			return none;
		}
	}
	switch (f->id) {
	case F_ASSERT_STR:
		if (!str_like(c, a0))
			return none;
		return n->ty = ty_kind(TY_VOID, 0);
	case F_DEFAULT_STR_LENGTH:	/* sizeof(str((int8 *)0)) */
		n->kind = N_INT;
		n->i = c->prog->cfg.max_strlen;
		return n->ty = ty_int(false, 64);
	case F_STRLEN:
		if (!str_like(c, a0))
			return none;
		return n->ty = ty_int(false, 64);
	case F_STRCAP:
		if (!(k0 = str_like(c, a0)))
			return none;
		if (k0 == 1) {	/* known now */
			n->kind = N_INT;
			n->i = ck_str_cap(c, a0);
			n->args = NULL;
		}
		return n->ty = ty_int(true, 64);
	case F_STRSTR: case F_GLOBMATCH:
		if (!(k0 = str_like(c, a0)) || !(k1 = str_like(c, a1)))
			return none;
		need_scratch(c, k0 == 2 ? c->prog->cfg.max_strlen : ck_str_cap(c, a0),
			     k1 == 2 ? c->prog->cfg.max_strlen : ck_str_cap(c, a1));
		return n->ty = f->id == F_STRSTR ? ty_int(true, 64) : ty_int(false, 64);
	case F_MEMCMP: {
		struct node *cnt = a1->next;
		int s0 = mem_size(c, a0), s1 = s0 < 0 ? -1 : mem_size(c, a1);

		if (s0 < 0 || s1 < 0)
			return none;
		if (cnt->ty.kind != TY_INT || cnt->ty.ptr) {
			lang__error(c->prog, cnt->loc, "the count of memcmp() is an integer (this is %s)",
				    type__str(&cnt->ty, b, sizeof(b)));
			return none;
		}
		if (ck_is_const_int(cnt, &v) && (v < 0 || v > (s0 < s1 ? s0 : s1))) {
			lang__error(c->prog, cnt->loc, "memcmp() of %lld bytes reads past its %s argument (%d bytes)", v,
				    s0 < s1 ? "first" : "second", s0 < s1 ? s0 : s1);
			return none;
		}
		return n->ty = ty_int(true, 64);
	}
	case F_ASSERT:
		if (a0->ty.kind != TY_INT) {
			lang__error(c->prog, a0->loc, "the condition of assert() is an integer or a bool (this is %s)",
				    type__str(&a0->ty, b, sizeof(b)));
			return none;
		}
		if (a1->ty.kind != TY_STR) {
			lang__error(c->prog, a1->loc, "the message of assert() is a string (this is %s)",
				    type__str(&a1->ty, b, sizeof(b)));
			return none;
		}
		if (assert_site(c, n, a1))
			return none;
		return n->ty = ty_kind(TY_VOID, 0);
	case F_SYSCALL_NAME:
		if (a0->ty.kind != TY_INT || a0->ty.ptr) {
			lang__error(c->prog, a0->loc, "syscall_name() takes a system call number (this is %s)",
				    type__str(&a0->ty, b, sizeof(b)));
			return none;
		}
		c->prog->need_scnames = true;
		return n->ty = ty_str(32);
	case F_USERNAME:
		return n->ty = ty_kind(TY_USERNAME, 8);
	default:
		break;
	}
	return none;
}

/* username, default_str_length: functions called without ( ), as upstream allows; n becomes the call */
bool ck_str_ident(struct node *n)
{
	const struct builtin *f = builtin__func(n->s);

	if (!f || (f->id != F_USERNAME && f->id != F_DEFAULT_STR_LENGTH))
		return false;
	n->kind = N_CALL;
	n->i = 0;
	n->args = NULL;
	return true;
}

/*
 * strcontains(h, n) whose needle is not a literal (upstream's definition:
 * strstr(h, n) >= 0): n becomes that comparison. A literal needle keeps
 * builtins/strings.c's unrolled search.
 */
struct type ck_str_contains(struct ck *c, struct node *n)
{
	struct node *call = arena__alloc(c->prog->arena, sizeof(*call));
	struct node *zero = arena__alloc(c->prog->arena, sizeof(*zero));

	*call = *n;
	call->s = "strstr";
	call->next = NULL;
	call->id = 0;
	zero->kind = N_INT;
	zero->loc = n->loc;
	n->kind = N_BINOP;
	n->op = T_GE;
	n->l = call;
	n->r = zero;
	n->args = NULL;
	n->i = 0;
	return ck_expr(c, n);
}
