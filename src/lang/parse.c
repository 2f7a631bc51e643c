// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c - recursive-descent parser of the probe language into an AST in the
 * program's arena: probes with attach points, predicates and blocks; C-like
 * expressions with bpftrace's maps, variables, tuples and casts; both the 0.17
 * and the current spellings (BEGIN/begin, args->f/args.f, while and for).
 */
#include "lang/enumfmt.h"
#include "lang/lang.h"
#include "lang/provider.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	struct program *prog;
	struct token *toks;
	int n, pos;
	struct macro *macros;
	bool in_pred;	/* a '/' outside parentheses ends the predicate */
	int nest;
	int depth;	/* expressions, prefix operators and statements being parsed inside each other */
};

struct macro {
	const char *name;
	struct macro *next;
};

static struct token *peek(struct parser *ps, int k)
{
	int i = ps->pos + k;

	return &ps->toks[i < ps->n ? i : ps->n - 1];
}
#define TOK(ps) (peek(ps, 0)->t)

static struct token *advance(struct parser *ps)
{
	struct token *t = peek(ps, 0);

	if (ps->pos < ps->n - 1)
		ps->pos++;
	return t;
}

static const char *tok_name(enum tok t)
{
	static const char *names[] = {
		[T_EOF] = "end of input", [T_INT] = "integer", [T_STR] = "string", [T_IDENT] = "identifier",
		[T_VAR] = "variable", [T_MAP] = "map", [T_POS] = "positional parameter", [T_NPOS] = "'$#'",
		[T_PROBE] = "attach point", [T_LBRACE] = "'{'", [T_RBRACE] = "'}'", [T_LPAREN] = "'('",
		[T_RPAREN] = "')'", [T_LBRACKET] = "'['", [T_RBRACKET] = "']'", [T_SEMI] = "';'",
		[T_COMMA] = "','", [T_COLON] = "':'", [T_DOT] = "'.'", [T_ARROW] = "'->'", [T_QUESTION] = "'?'",
		[T_DOTDOT] = "'..'", [T_ASSIGN] = "'='", [T_SLASH] = "'/'",
	};
	if (t < sizeof(names) / sizeof(names[0]) && names[t])
		return names[t];
	return "operator";
}

static void unexpected(struct parser *ps, const char *wanted)
{
	struct token *t = peek(ps, 0);

	if (t->t == T_ERROR)
		return;		/* the lexer said it */
	if (t->t == T_EOF)
		lang__error(ps->prog, t->loc, "syntax error: unexpected end of input, expecting %s", wanted);
	else if (tok_name(t->t)[0] == '\'')
		lang__error(ps->prog, t->loc, "syntax error: unexpected %s, expecting %s", tok_name(t->t), wanted);
	else
		lang__error(ps->prog, t->loc, "syntax error: unexpected %s '%.*s', expecting %s", tok_name(t->t),
			    t->loc.len > 40 ? 40 : t->loc.len, t->at, wanted);
}

static bool expect(struct parser *ps, enum tok t, const char *wanted)
{
	if (TOK(ps) == t) {
		advance(ps);
		return true;
	}
	unexpected(ps, wanted);
	return false;
}

static bool failed(struct parser *ps)
{
	return ps->prog->err != NULL;
}

static struct node *mk(struct parser *ps, enum nk kind, struct loc loc)
{
	struct node *n = arena__alloc(ps->prog->arena, sizeof(*n));

	n->kind = kind;
	n->loc = loc;
	return n;
}

static struct loc span(struct loc a, struct loc b)
{
	if (b.line == a.line && b.col >= a.col)
		a.len = b.col + b.len - a.col;
	return a;
}

static struct node *expr(struct parser *ps);
static struct node *block(struct parser *ps);

/*
 * The parser recurses once per level of nesting (parentheses, arguments,
 * prefix operators and casts, statements in blocks), and so do the passes after it: a bound keeps a
 * hostile or generated program from overflowing the stack (it fits in 256 KB).
 * A chain of binary operators is parsed in a loop and bounded by lang__depth().
 */
static bool enter(struct parser *ps)
{
	if (++ps->depth <= LANG_MAX_NEST)
		return true;
	if (!failed(ps))
		lang__error(ps->prog, peek(ps, 0)->loc, "nested more than %d levels deep (parentheses, blocks, "
			    "prefix operators)", LANG_MAX_NEST);
	return false;
}

#define NESTED(ps, call) ({ struct node *r_ = enter(ps) ? (call) : NULL; (ps)->depth--; r_; })
static struct node *block_expr(struct parser *ps);
static struct node *if_expr(struct parser *ps, struct token *t);
static struct node *if_value(struct parser *ps, struct node *s);
static bool if_has_value(struct node *s);
static struct node *record(struct parser *ps, struct token *open);

/* (a, b, c) argument lists; n receives the count */
static struct node *arglist(struct parser *ps, enum tok close, int *count)
{
	struct node *head = NULL, **tail = &head;
	int n = 0;

	ps->nest++;
	while (TOK(ps) != close && !failed(ps)) {
		struct node *a = expr(ps);

		if (!a)
			return NULL;
		*tail = a;
		tail = &a->next;
		n++;
		if (TOK(ps) != T_COMMA)
			break;
		advance(ps);
	}
	ps->nest--;
	if (!expect(ps, close, close == T_RPAREN ? "',' or ')'" : "',' or ']'"))
		return NULL;
	if (count)
		*count = n;
	return head;
}

static bool is_type_name(const char *s)
{
	static const char *names[] = {
		"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "int", "char",
		"short", "long", "unsigned", "signed", "bool", "void", "struct", "union", "enum",
		"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "size_t", "pid_t", NULL,
	};
	for (int i = 0; names[i]; i++)
		if (!strcmp(s, names[i]))
			return true;
	return false;
}

/*
 * at '(' : "(name)" followed by an operand, or "(name *)": a cast to a type the
 * kernel's BTF may name (a typedef: uint64_t, pid_t), checked later; else 0
 */
static int typedef_cast_len(struct parser *ps)
{
	int k = 2;
	enum tok after;

	if (peek(ps, 1)->t != T_IDENT)
		return 0;
	while (peek(ps, k)->t == T_STAR)
		k++;
	if (peek(ps, k)->t != T_RPAREN)
		return 0;
	after = peek(ps, k + 1)->t;
	return k > 2 || after == T_IDENT || after == T_VAR || after == T_INT || after == T_MAP || after == T_POS ||
	       after == T_LPAREN ? k : 0;
}

/* at '(' : is this a cast "(type *)"? returns the number of tokens of the type, or 0 */
static int cast_len(struct parser *ps)
{
	int k = 1, words = 0;

	while (peek(ps, k)->t == T_IDENT && is_type_name(peek(ps, k)->s)) {
		const char *s = peek(ps, k)->s;

		k++;
		words++;
		if (!strcmp(s, "struct") || !strcmp(s, "union") || !strcmp(s, "enum")) {
			if (peek(ps, k)->t != T_IDENT)
				return 0;
			k++;
		}
	}
	if (!words)
		return typedef_cast_len(ps);	/* (uint64_t)x, (pid_t *)p */
	while (peek(ps, k)->t == T_STAR)
		k++;
	/* "int64[4]" and "uint8[]" array casts */
	if (peek(ps, k)->t == T_LBRACKET && peek(ps, k + 1)->t == T_INT && peek(ps, k + 2)->t == T_RBRACKET)
		k += 3;
	else if (peek(ps, k)->t == T_LBRACKET && peek(ps, k + 1)->t == T_RBRACKET)
		k += 2;
	return peek(ps, k)->t == T_RPAREN ? k : 0;
}

/* at '(' : the k - 1 tokens after it are a type (cast_len() said so): into n's s, ptr and i (array elements, -1 for "[]") */
static int type_tokens(struct parser *ps, struct node *n, int k)
{
	struct token *ty = peek(ps, 1);
	int ptr = 0;

	n->s = ty->s;
	if (!strcmp(ty->s, "struct") || !strcmp(ty->s, "union") || !strcmp(ty->s, "enum"))
		n->s = arena__strndup(ps->prog->arena, ty->at, peek(ps, 2)->at + peek(ps, 2)->loc.len - ty->at);
	else if (peek(ps, 2)->t == T_IDENT)	/* "unsigned int" */
		n->s = arena__strndup(ps->prog->arena, ty->at, peek(ps, 2)->at + peek(ps, 2)->loc.len - ty->at);
	for (int i = 1; i < k; i++) {
		ptr += peek(ps, i)->t == T_STAR;
		if (peek(ps, i)->t == T_LBRACKET)
			n->i = peek(ps, i + 1)->t == T_INT ? peek(ps, i + 1)->i : -1;
	}
	if (!n->i && peek(ps, k - 1)->t == T_RBRACKET) {
		lang__error(ps->prog, peek(ps, k - 2)->loc, "an array has at least one element");
		return -1;
	}
	n->ptr = ptr;
	return 0;
}

/* at the '(' of typeof(EXPR) or sizeof(EXPR): the expression in n->l, then the ')' */
static struct node *paren_operand(struct parser *ps, struct node *n)
{
	advance(ps);
	n->l = expr(ps);
	if (!n->l || !expect(ps, T_RPAREN, "')'"))
		return NULL;
	return n;
}

/*
 * at '(' after typeof: typeof(uint64 *), typeof(struct x), typeof(size_t *) are types; anything
 * else, typeof(size_t) included, is an expression (a lone name is a type when nothing else has it:
 * check.c, macro.c)
 */
static struct node *typeof_expr(struct parser *ps, struct token *t)
{
	int k = cast_len(ps);
	struct node *n = mk(ps, N_TYPE, t->loc);

	if (!k && peek(ps, 1)->t == T_IDENT && peek(ps, 2)->t == T_STAR) {	/* typeof(size_t *) */
		k = 2;
		while (peek(ps, k)->t == T_STAR)
			k++;
		if (peek(ps, k)->t != T_RPAREN)
			k = 0;
	}
	if (k) {
		if (type_tokens(ps, n, k))
			return NULL;
		ps->pos += k + 1;
		return n;
	}
	return paren_operand(ps, n);
}

static struct node *primary(struct parser *ps)
{
	struct token *t = peek(ps, 0);
	struct node *n;

	switch (t->t) {
	case T_INT:
		advance(ps);
		n = mk(ps, N_INT, t->loc);
		n->i = t->i;
		return n;
	case T_STR:
		advance(ps);
		n = mk(ps, N_STR, t->loc);
		n->s = t->s;
		n->slen = t->slen;
		/* "a" "b" concatenate as in C */
		while (TOK(ps) == T_STR) {
			struct token *u = advance(ps);
			char *s = arena__alloc(ps->prog->arena, n->slen + u->slen + 1);

			memcpy(s, n->s, n->slen);
			memcpy(s + n->slen, u->s, u->slen);
			n->s = s;
			n->slen += u->slen;
		}
		return n;
	case T_POS:
		advance(ps);
		n = mk(ps, N_POS, t->loc);
		n->i = t->i;
		return n;
	case T_NPOS:
		advance(ps);
		return mk(ps, N_NPOS, t->loc);
	case T_VAR:
		advance(ps);
		n = mk(ps, N_VAR, t->loc);
		n->s = t->s;
		return n;
	case T_MAP:
		advance(ps);
		n = mk(ps, N_MAP, t->loc);
		n->s = t->s;
		n->i = -1;	/* no key */
		if (TOK(ps) == T_LBRACKET) {
			int cnt = 0;

			advance(ps);
			n->args = arglist(ps, T_RBRACKET, &cnt);
			if (failed(ps))
				return NULL;
			if (!cnt) {
				lang__error(ps->prog, t->loc, "a map key cannot be empty: write '%s' or '%s[KEY]'", t->s, t->s);
				return NULL;
			}
			n->i = cnt;
			/* @m[(k1, k2)] is @m[k1, k2]: a map's keys are a tuple */
			if (cnt == 1 && n->args->kind == N_TUPLE && !n->args->x && n->args->i > 0) {
				n->i = n->args->i;
				n->args = n->args->args;
			}
		}
		return n;
	case T_IDENT:
		advance(ps);
		if (!strcmp(t->s, "if"))	/* upstream's if (c) { a } else { b } as a value */
			return if_expr(ps, t);
		if ((!strcmp(t->s, "offsetof") || !strcmp(t->s, "has_field")) && TOK(ps) == T_LPAREN) {
			/*
			 * offsetof(struct x, a.b): an N_SIZEOF whose op says offsetof (1), the
			 * members in r; has_field(struct x, a.b) is op 2: does the type have it
			 */
			char path[256] = "";
			const char *ty0;

			n = mk(ps, N_SIZEOF, t->loc);
			n->op = t->s[0] == 'o' ? 1 : 2;
			advance(ps);
			ty0 = peek(ps, 0)->at;
			while (TOK(ps) == T_IDENT && peek(ps, 1)->t == T_IDENT)
				advance(ps);
			if (TOK(ps) != T_IDENT) {
				unexpected(ps, "a type");
				return NULL;
			}
			n->s = arena__strndup(ps->prog->arena, ty0, peek(ps, 0)->at + peek(ps, 0)->loc.len - ty0);
			advance(ps);
			if (!expect(ps, T_COMMA, "','"))
				return NULL;
			do {
				if (TOK(ps) == T_DOT)
					advance(ps);
				if (TOK(ps) != T_IDENT) {
					unexpected(ps, "a member's name");
					return NULL;
				}
				if (strlen(path) + strlen(peek(ps, 0)->s) + 2 < sizeof(path)) {
					if (path[0])
						strcat(path, ".");
					strcat(path, peek(ps, 0)->s);
				}
				advance(ps);
			} while (TOK(ps) == T_DOT);
			if (!expect(ps, T_RPAREN, "')'"))
				return NULL;
			n->r = mk(ps, N_STR, t->loc);
			n->r->s = arena__strndup(ps->prog->arena, path, strlen(path));
			n->r->slen = strlen(path);
			return n;
		}
		if (!strcmp(t->s, "typeof") && TOK(ps) == T_LPAREN)
			return typeof_expr(ps, t);
		if (!strcmp(t->s, "sizeof") && TOK(ps) == T_LPAREN) {
			int k = cast_len(ps);

			n = mk(ps, N_SIZEOF, t->loc);
			if (k) {
				struct token *ty = peek(ps, 1);

				n->s = ty->s;
				if (!strcmp(ty->s, "struct") || !strcmp(ty->s, "union"))
					n->s = arena__strndup(ps->prog->arena, ty->at, peek(ps, 2)->at + peek(ps, 2)->loc.len - ty->at);
				n->ptr = peek(ps, k - 1)->t == T_STAR;
				if (peek(ps, k - 1)->t == T_RBRACKET) {	/* sizeof(uint8[4]): n->i elements */
					if (peek(ps, k - 2)->t != T_INT || !peek(ps, k - 2)->i) {
						lang__error(ps->prog, peek(ps, k - 1)->loc, "sizeof() of an array type needs "
							    "its number of elements, as in 'sizeof(uint8[4])'");
						return NULL;
					}
					n->i = peek(ps, k - 2)->i;
					n->ptr = peek(ps, k - 4)->t == T_STAR;
				}
				ps->pos += k + 1;
				return n;
			}
			return paren_operand(ps, n);
		}
		if (TOK(ps) == T_LPAREN) {
			int cnt = 0;

			advance(ps);
			n = mk(ps, N_CALL, t->loc);
			n->s = t->s;
			n->args = arglist(ps, T_RPAREN, &cnt);
			n->i = cnt;
			return failed(ps) ? NULL : n;
		}
		n = mk(ps, N_IDENT, t->loc);
		n->s = t->s;
		return n;
	case T_LBRACE:
		return block_expr(ps);
	case T_LPAREN: {
		int k = cast_len(ps);

		if (peek(ps, 1)->t == T_IDENT && peek(ps, 2)->t == T_ASSIGN)
			return record(ps, t);
		if (peek(ps, 1)->t == T_RPAREN) {	/* () is the empty tuple */
			n = mk(ps, N_TUPLE, t->loc);
			n->loc = span(t->loc, peek(ps, 1)->loc);
			ps->pos += 2;
			return n;
		}

		if (k) {
			n = mk(ps, N_CAST, t->loc);
			if (type_tokens(ps, n, k))
				return NULL;
			ps->pos += k + 1;
			n->l = NULL;
			return n;	/* the operand is parsed by unary() */
		}
		advance(ps);
		ps->nest++;
		n = expr(ps);
		ps->nest--;
		if (!n)
			return NULL;
		ps->nest++;
		if (TOK(ps) == T_COMMA) {
			struct node *tup = mk(ps, N_TUPLE, t->loc), **tail = &n->next;
			int cnt = 1;

			tup->args = n;
			while (TOK(ps) == T_COMMA) {
				advance(ps);
				if (TOK(ps) == T_RPAREN)
					break;
				struct node *e = expr(ps);

				if (!e)
					return NULL;
				*tail = e;
				tail = &e->next;
				cnt++;
			}
			tup->i = cnt;
			n = tup;
		}
		ps->nest--;
		if (!expect(ps, T_RPAREN, "')'"))
			return NULL;
		return n;
	}
	default:
		unexpected(ps, "an expression");
		return NULL;
	}
}

static struct node *postfix(struct parser *ps)
{
	struct node *n = primary(ps);

	/* "(type)" still waits for its operand (unary() parses it): a ".f" or
	 * "[i]" here belongs to that operand, not to the cast */
	if (n && n->kind == N_CAST && !n->l)
		return n;
	while (n && !failed(ps)) {
		struct token *t = peek(ps, 0);

		if (t->t == T_DOT || t->t == T_ARROW) {
			struct node *f = mk(ps, N_FIELD, t->loc);

			advance(ps);
			f->arrow = t->t == T_ARROW;
			f->l = n;
			if (TOK(ps) == T_INT && !f->arrow) {
				f->i = peek(ps, 0)->i;
				f->s = NULL;
				f->loc = span(n->loc, peek(ps, 0)->loc);
				advance(ps);
			} else if (TOK(ps) == T_IDENT) {
				f->s = peek(ps, 0)->s;
				f->i = -1;
				f->loc = peek(ps, 0)->loc;
				advance(ps);
			} else {
				unexpected(ps, "a field name");
				return NULL;
			}
			n = f;
		} else if (t->t == T_LBRACKET && (n->kind != N_MAP || n->i > 0)) {	/* $t[1], @m[k][1] */
			struct node *x = mk(ps, N_INDEX, t->loc);

			advance(ps);
			x->l = n;
			x->r = expr(ps);
			if (!x->r || !expect(ps, T_RBRACKET, "']'"))
				return NULL;
			n = x;
		} else if (t->t == T_INC || t->t == T_DEC) {
			struct node *x = mk(ps, N_POSTINC, t->loc);

			advance(ps);
			x->op = t->t;
			x->l = n;
			n = x;
		} else {
			break;
		}
	}
	return n;
}

static struct node *unary(struct parser *ps)
{
	struct token *t = peek(ps, 0);

	if (t->t == T_MINUS || t->t == T_NOT || t->t == T_BNOT || t->t == T_STAR || t->t == T_BAND ||
	    t->t == T_PLUS) {
		struct node *n = mk(ps, N_UNOP, t->loc);

		advance(ps);
		n->op = t->t;
		n->l = NESTED(ps, unary(ps));
		if (!n->l)
			return NULL;
		if (t->t == T_PLUS)
			return n->l;
		/* fold -INT so that lhist(x, -10, 10, 1) has constants */
		if (t->t == T_MINUS && n->l->kind == N_INT) {
			n->l->i = -n->l->i;
			n->l->loc = span(t->loc, n->l->loc);
			return n->l;
		}
		return n;
	}
	if (t->t == T_INC || t->t == T_DEC) {
		struct node *n = mk(ps, N_PREINC, t->loc);

		advance(ps);
		n->op = t->t;
		n->l = NESTED(ps, unary(ps));
		return n->l ? n : NULL;
	}
	struct node *n = postfix(ps);

	if (n && n->kind == N_CAST && !n->l) {
		n->l = NESTED(ps, unary(ps));
		if (!n->l)
			return NULL;
	}
	return n;
}

static int precedence(enum tok t)
{
	switch (t) {
	case T_LOR: return 1;
	case T_LAND: return 2;
	case T_BOR: return 3;
	case T_BXOR: return 4;
	case T_BAND: return 5;
	case T_EQ: case T_NE: return 6;
	case T_LT: case T_LE: case T_GT: case T_GE: return 7;
	case T_SHL: case T_SHR: return 8;
	case T_PLUS: case T_MINUS: return 9;
	case T_STAR: case T_SLASH: case T_PERCENT: return 10;
	default: return 0;
	}
}

static struct node *binary(struct parser *ps, int minprec)
{
	struct node *l = unary(ps);

	while (l && !failed(ps)) {
		struct token *t = peek(ps, 0);
		int p = precedence(t->t);

		if (!p || p < minprec)
			break;
		if (t->t == T_SLASH && ps->in_pred && !ps->nest)
			break;
		advance(ps);
		struct node *r = binary(ps, p + 1);

		if (!r)
			return NULL;
		struct node *n = mk(ps, N_BINOP, t->loc);

		n->op = t->t;
		n->l = l;
		n->r = r;
		l = n;
	}
	return l;
}

static struct node *expr1(struct parser *ps);

static struct node *expr(struct parser *ps)
{
	return NESTED(ps, expr1(ps));
}

static struct node *expr1(struct parser *ps)
{
	struct node *c = binary(ps, 1);

	if (c && TOK(ps) == T_QUESTION) {
		struct node *n = mk(ps, N_TERNARY, peek(ps, 0)->loc);

		advance(ps);
		n->l = c;
		if (TOK(ps) == T_COLON && (c->kind == N_VAR || c->kind == N_MAP || c->kind == N_INT ||
					   c->kind == N_POS || c->kind == N_FIELD)) {
			n->r = c;	/* upstream's a ?: b, a ? a : b (a read twice: no side effects) */
		} else if (TOK(ps) == T_COLON) {
			unexpected(ps, "an expression (before ?:, only a variable, map, constant or field: it is read twice)");
			return NULL;
		} else {
			n->r = expr(ps);
		}
		if (!n->r || !expect(ps, T_COLON, "':'"))
			return NULL;
		n->x = expr(ps);
		return n->x ? n : NULL;
	}
	return c;
}

static bool is_assign(enum tok t)
{
	return t == T_ASSIGN || (t >= T_ADD_ASSIGN && t <= T_SHR_ASSIGN);
}

static bool ident_is(struct parser *ps, const char *s)
{
	return TOK(ps) == T_IDENT && !strcmp(peek(ps, 0)->s, s);
}

static bool ident_is_at(struct parser *ps, int k, const char *s)
{
	return peek(ps, k)->t == T_IDENT && !strcmp(peek(ps, k)->s, s);
}


/* "while (EXPR) BLOCK" and "unroll (EXPR) BLOCK": the keyword is the current token */
static struct node *paren_block(struct parser *ps, struct token *t, enum nk kind)
{
	struct node *n;

	advance(ps);
	n = mk(ps, kind, t->loc);
	if (!expect(ps, T_LPAREN, kind == N_WHILE ? "'(' after while" : "'(' after unroll"))
		return NULL;
	n->l = expr(ps);
	if (!n->l || !expect(ps, T_RPAREN, "')'"))
		return NULL;
	n->r = block(ps);
	return n->r ? n : NULL;
}

static struct node *statement1(struct parser *ps, bool *needs_semi);

static struct node *statement(struct parser *ps, bool *needs_semi)
{
	return NESTED(ps, statement1(ps, needs_semi));
}

static struct node *statement1(struct parser *ps, bool *needs_semi)
{
	struct token *t = peek(ps, 0);
	struct node *n;

	*needs_semi = true;
	if (t->t == T_LBRACE) {
		*needs_semi = false;
		return block(ps);
	}
	if (t->t == T_IDENT) {
		if (!strcmp(t->s, "if")) {
			advance(ps);
			n = mk(ps, N_IF, t->loc);
			if (TOK(ps) != T_LPAREN) {	/* upstream's `if COND {` */
				n->l = expr(ps);
				if (!n->l)
					return NULL;
			} else {
				advance(ps);
				n->l = expr(ps);
				if (!n->l || !expect(ps, T_RPAREN, "')'"))
					return NULL;
			}
			n->r = block(ps);
			if (!n->r)
				return NULL;
			if (ident_is(ps, "else")) {
				advance(ps);
				if (ident_is(ps, "if")) {
					bool dummy;
					struct node *b = mk(ps, N_BLOCK, peek(ps, 0)->loc);

					b->args = statement(ps, &dummy);
					if (!b->args)
						return NULL;
					n->x = b;
				} else {
					n->x = block(ps);
					if (!n->x)
						return NULL;
				}
			}
			*needs_semi = false;
			return n;
		}
		if (!strcmp(t->s, "while") || !strcmp(t->s, "unroll")) {
			*needs_semi = false;
			return paren_block(ps, t, t->s[0] == 'w' ? N_WHILE : N_UNROLL);
		}
		if (!strcmp(t->s, "for")) {
			advance(ps);
			bool paren = TOK(ps) == T_LPAREN;	/* upstream's `for $kv : @m {` has none */

			if (paren)
				advance(ps);
			if (TOK(ps) != T_VAR) {
				unexpected(ps, "a variable ('for ($i : 0..10)' or 'for ($kv : @map)')");
				return NULL;
			}
			struct token *v = advance(ps);

			if (!expect(ps, T_COLON, "':'"))
				return NULL;
			if (TOK(ps) == T_MAP && (paren ? peek(ps, 1)->t == T_RPAREN : peek(ps, 1)->t == T_LBRACE ||
						 (peek(ps, 1)->t == T_IDENT && !strcmp(peek(ps, 1)->s, "sort")))) {
				n = mk(ps, N_FOR_MAP, t->loc);
				n->l = primary(ps);
			} else {
				n = mk(ps, N_FOR_RANGE, t->loc);
				n->l = expr(ps);
				if (!n->l || !expect(ps, T_DOTDOT, "'..'"))
					return NULL;
				n->x = expr(ps);
				if (!n->x)
					return NULL;
			}
			n->s = v->s;
			n->i = v->loc.col;
			n->off = v->loc.line;	/* the variable's line, for messages */
			if (!n->l || (paren && !expect(ps, T_RPAREN, "')'")))
				return NULL;
			/* for ($kv : @m) sort(KEY[, LIMIT]) { }: its rows in KEY's order (sortloop.c) */
			if (n->kind == N_FOR_MAP && TOK(ps) == T_IDENT && !strcmp(peek(ps, 0)->s, "sort") &&
			    peek(ps, 1)->t == T_LPAREN) {
				n->x = primary(ps);
				if (!n->x)
					return NULL;
			}
			n->r = block(ps);
			*needs_semi = false;
			return n->r ? n : NULL;
		}
		if (!strcmp(t->s, "return") || !strcmp(t->s, "break") || !strcmp(t->s, "continue")) {
			advance(ps);
			n = mk(ps, t->s[0] == 'r' ? N_RETURN : t->s[0] == 'b' ? N_BREAK : N_CONTINUE, t->loc);
			if (n->kind == N_RETURN && TOK(ps) != T_SEMI && TOK(ps) != T_RBRACE) {
				n->l = expr(ps);
				if (!n->l)
					return NULL;
			}
			return n;
		}
		if (!strcmp(t->s, "let")) {
			advance(ps);
			if (TOK(ps) != T_VAR) {
				unexpected(ps, "a variable after let");
				return NULL;
			}
			struct token *v = advance(ps);

			n = mk(ps, N_LET, v->loc);
			n->s = v->s;
			if (TOK(ps) == T_COLON && ident_is_at(ps, 1, "typeof") && peek(ps, 2)->t == T_LPAREN) {
				/* let $x: typeof(expr): the type of an expression, not evaluated; or typeof(T) */
				ps->pos += 2;
				n->x = typeof_expr(ps, peek(ps, -1));
				if (!n->x)
					return NULL;
			} else if (TOK(ps) == T_COLON) {	/* let $x: uint8 = 1 */
				advance(ps);
				while (TOK(ps) == T_IDENT || TOK(ps) == T_STAR || TOK(ps) == T_LBRACKET ||
				       TOK(ps) == T_RBRACKET || TOK(ps) == T_INT) {
					if (TOK(ps) == T_IDENT && !n->x) {
						n->x = mk(ps, N_CAST, peek(ps, 0)->loc);
						n->x->s = peek(ps, 0)->s;
					}
					advance(ps);
				}
			}
			if (TOK(ps) == T_ASSIGN) {
				advance(ps);
				n->r = expr(ps);
				if (!n->r)
					return NULL;
			}
			return n;
		}
	}
	n = expr(ps);
	if (!n)
		return NULL;
	if (is_assign(TOK(ps))) {
		struct token *op = advance(ps);
		struct node *a = mk(ps, N_ASSIGN, op->loc);

		a->op = op->t;
		a->l = n;
		a->r = expr(ps);
		if (!a->r)
			return NULL;
		if (n->kind == N_IDENT && !strcmp(n->s, "_") && a->op == T_ASSIGN) {
			/* _ = EXPR: the value is discarded on purpose */
			struct node *s = mk(ps, N_EXPR, a->r->loc);

			s->l = a->r;
			return s;
		}
		if (n->kind != N_MAP && n->kind != N_VAR && n->kind != N_FIELD) {
			lang__error(ps->prog, n->loc, "cannot assign to this expression: only maps, variables and fields can be");
			return NULL;
		}
		return a;
	}
	struct node *s = mk(ps, N_EXPR, n->loc);

	s->l = n;
	return s;
}

/*
 * Statements up to the '}' that closes `open` (not consumed): into *head; *last
 * is the last one and *semi says whether a ';' followed it. 0, or -1 after an error.
 */
static int stmt_list(struct parser *ps, struct token *open, struct node **head, struct node **last, bool *semi)
{
	struct node **tail = head;

	*last = NULL;
	*semi = true;
	while (TOK(ps) != T_RBRACE && !failed(ps)) {
		bool needs_semi;

		if (TOK(ps) == T_SEMI) {
			advance(ps);
			*semi = true;
			continue;
		}
		if (TOK(ps) == T_EOF) {
			lang__error(ps->prog, open->loc, "syntax error: this '{' is never closed");
			return -1;
		}
		struct node *s = statement(ps, &needs_semi);

		if (!s)
			return -1;
		*tail = s;
		tail = &s->next;
		*last = s;
		*semi = needs_semi;	/* if (c) { } else { }: no ';' after it (a block's value, if_value) */
		if (needs_semi && TOK(ps) == T_RBRACE)
			*semi = false;
		else if (needs_semi && !expect(ps, T_SEMI, "';'"))
			return -1;
	}
	return failed(ps) ? -1 : 0;
}

static struct node *block(struct parser *ps)
{
	struct token *open = peek(ps, 0);
	struct node *b, *head = NULL, *last;
	bool semi;

	if (!expect(ps, T_LBRACE, "'{'"))
		return NULL;
	b = mk(ps, N_BLOCK, open->loc);
	if (stmt_list(ps, open, &head, &last, &semi) || !expect(ps, T_RBRACE, "'}'"))
		return NULL;
	b->args = head;
	return b;
}

/* "provider:a:b:c" into its fields */
static struct attach *attach_point(struct parser *ps, struct token *t)
{
	struct attach *ap = arena__alloc(ps->prog->arena, sizeof(*ap));
	const char *s = t->s;
	const char *colon = strchr(s, ':');
	size_t plen = colon ? (size_t)(colon - s) : strlen(s);

	ap->text = s;
	ap->loc = t->loc;
	ap->prov = lang__provider_name(s, plen);
	if (!ap->prov) {
		struct loc l = t->loc;
		char known[512];

		l.len = plen;
		provider__names(known, sizeof(known));
		lang__error(ps->prog, l, "unknown probe type '%.*s' (known: %s)", (int)plen, s, known);
		return NULL;
	}
	const char *f[3] = { NULL, NULL, NULL };
	const char *p = colon ? colon + 1 : NULL;

	for (int i = 0; i < 3 && p; i++) {
		const char *e = strchr(p, ':');

		if (*p == '"') {	/* "quoted": taken as it is, without its quotes */
			const char *q = strchr(p + 1, '"');

			if (q) {
				f[i] = arena__strndup(ps->prog->arena, p + 1, q - p - 1);
				p = q[1] == ':' ? q + 2 : NULL;
				continue;
			}
		}

		if (i == 2 || !e) {
			f[i] = arena__strndup(ps->prog->arena, p, strlen(p));
			break;
		}
		f[i] = arena__strndup(ps->prog->arena, p, e - p);
		p = e + 1;
	}
	ap->a = f[0];
	ap->b = f[1];
	ap->c = f[2];
	return ap;
}

static int skip_braces(struct parser *ps)
{
	int depth = 0;

	do {
		if (TOK(ps) == T_EOF) {
			unexpected(ps, "'}'");
			return -1;
		}
		if (TOK(ps) == T_LBRACE)
			depth++;
		else if (TOK(ps) == T_RBRACE)
			depth--;
		advance(ps);
	} while (depth > 0);
	return 0;
}

static void add_cstruct(struct parser *ps, struct cstruct *cs)
{
	struct cstruct **st = &ps->prog->cstructs;

	while (*st)
		st = &(*st)->next;
	*st = cs;
}

/*
 * A struct's or union's body, from its '{' to its '}': TYPE DECL[, DECL]...; ...
 * with DECL: '*'... NAME ['[' N ']'] [':' BITS]. A member's type may be a struct
 * or union defined there (struct { ... } a;): it becomes a struct of its own,
 * added before the one that holds it, named as C names it or, when it has no
 * name, OUTER__anon_LINE_COL. NULL after an error.
 */
static struct cstruct *c_struct_body(struct parser *ps, const char *name, bool is_union, struct loc loc)
{
	struct cstruct *cs = arena__alloc(ps->prog->arena, sizeof(*cs));
	struct cfield **tail = &cs->fields;

	cs->is_union = is_union;
	cs->name = name;
	cs->loc = loc;
	advance(ps);	/* { */
	while (TOK(ps) != T_RBRACE && !failed(ps)) {
		char type[128] = "";
		struct token *t, *kw = peek(ps, 0);
		struct cstruct *inner = NULL;

		/* the type: words up to the declarator ("unsigned long", "struct x", "const char") */
		while (TOK(ps) == T_IDENT && !(peek(ps, 1)->t != T_IDENT && peek(ps, 1)->t != T_STAR && type[0] &&
					       strcmp(type, "struct") && strcmp(type, "union") && strcmp(type, "enum"))) {
			t = advance(ps);
			if (!strcmp(t->s, "const") || !strcmp(t->s, "volatile"))
				continue;
			if (strlen(type) + strlen(t->s) + 2 < sizeof(type)) {
				if (type[0])
					strcat(type, " ");
				strcat(type, t->s);
			}
		}
		if (TOK(ps) == T_LBRACE && (!strncmp(type, "struct", 6) || !strncmp(type, "union", 5))) {
			/* struct [NAME] { ... } member; */
			const char *iname = type;
			char anon[160];

			if (!strcmp(type, "struct") || !strcmp(type, "union")) {	/* an identifier BTF takes */
				const char *outer = strchr(name, ' ');

				snprintf(anon, sizeof(anon), "%s %s__anon_%d_%d", type, outer ? outer + 1 : name,
					 kw->loc.line, kw->loc.col);
				iname = anon;
			}
			inner = c_struct_body(ps, arena__strndup(ps->prog->arena, iname, strlen(iname)), type[0] == 'u',
					      kw->loc);
			if (!inner)
				return NULL;
			add_cstruct(ps, inner);
			snprintf(type, sizeof(type), "%s", inner->name);
			if (TOK(ps) == T_SEMI) {
				lang__error(ps->prog, kw->loc, "a struct or union member without a name is not supported: "
					    "name it (struct { ... } name;)");
				return NULL;
			}
		}
		if (!type[0] || TOK(ps) == T_LBRACE) {
			unexpected(ps, "a member's type");
			return NULL;
		}
		do {
			struct cfield *f = arena__alloc(ps->prog->arena, sizeof(*f));

			if (TOK(ps) == T_COMMA)
				advance(ps);
			f->type = arena__strndup(ps->prog->arena, type, strlen(type));
			f->nelem = -1;
			while (TOK(ps) == T_STAR) {
				advance(ps);
				f->ptr++;
			}
			while (TOK(ps) == T_IDENT && (!strcmp(peek(ps, 0)->s, "const") || !strcmp(peek(ps, 0)->s, "volatile")))
				advance(ps);
			if (TOK(ps) != T_IDENT) {
				unexpected(ps, "a member's name");
				return NULL;
			}
			t = advance(ps);
			f->name = t->s;
			f->loc = t->loc;
			if (TOK(ps) == T_LBRACKET) {
				advance(ps);
				if (TOK(ps) != T_INT || peek(ps, 0)->i < 0 || peek(ps, 0)->i > 65536) {
					unexpected(ps, "an array size");
					return NULL;
				}
				f->nelem = (int)advance(ps)->i;
				if (!expect(ps, T_RBRACKET, "']'"))
					return NULL;
			}
			if (TOK(ps) == T_COLON) {
				advance(ps);
				if (TOK(ps) != T_INT || peek(ps, 0)->i <= 0 || peek(ps, 0)->i > 64) {
					unexpected(ps, "a bitfield's width");
					return NULL;
				}
				f->bits = (int)advance(ps)->i;
			}
			*tail = f;
			tail = &f->next;
		} while (TOK(ps) == T_COMMA);
		if (TOK(ps) != T_RBRACE && !expect(ps, T_SEMI, "';'"))	/* the last member's ';' may be left out */
			return NULL;
	}
	if (!expect(ps, T_RBRACE, "'}'"))
		return NULL;
	return cs;
}

/* __attribute__((packed)), __attribute__((aligned(N))), ... after a struct's body */
static bool c_struct_attrs(struct parser *ps, struct cstruct *cs)
{
	while (TOK(ps) == T_IDENT && !strcmp(peek(ps, 0)->s, "__attribute__")) {
		advance(ps);
		if (!expect(ps, T_LPAREN, "'('") || !expect(ps, T_LPAREN, "'('"))
			return false;
		do {
			if (TOK(ps) == T_COMMA)
				advance(ps);
			struct token *a = peek(ps, 0);

			if (a->t != T_IDENT) {
				unexpected(ps, "an attribute");
				return false;
			}
			advance(ps);
			if (!strcmp(a->s, "packed") || !strcmp(a->s, "__packed__")) {
				cs->packed = true;
			} else if (!strcmp(a->s, "aligned") || !strcmp(a->s, "__aligned__")) {
				if (!expect(ps, T_LPAREN, "'('"))
					return false;
				struct token *n = peek(ps, 0);

				if (n->t != T_INT || n->i <= 0 || n->i > 4096 || (n->i & (n->i - 1))) {
					unexpected(ps, "an alignment (a power of 2)");
					return false;
				}
				advance(ps);
				if ((int)n->i > cs->aligned)
					cs->aligned = (int)n->i;
				if (!expect(ps, T_RPAREN, "')'"))
					return false;
			} else {
				lang__error(ps->prog, a->loc, "unknown attribute '%s' (known: packed, aligned(N))", a->s);
				return false;
			}
		} while (TOK(ps) == T_COMMA);
		if (!expect(ps, T_RPAREN, "')'") || !expect(ps, T_RPAREN, "')'"))
			return false;
	}
	return true;
}

/*
 * struct NAME { ... };  The layout is computed later, against the kernel's BTF
 * (ktypes.c).
 */
static void c_struct(struct parser *ps)
{
	struct token *kw = advance(ps), *nm = advance(ps);
	char name[300];

	/* "struct NAME" as written; a NAME from a macro's text is not beside its keyword: joined by a space */
	if (nm->at > kw->at && nm->at - kw->at < 64)
		snprintf(name, sizeof(name), "%.*s", (int)(nm->at + nm->loc.len - kw->at), kw->at);
	else
		snprintf(name, sizeof(name), "%s %s", kw->s ? kw->s : "struct", nm->s ? nm->s : "");
	struct cstruct *cs = c_struct_body(ps, arena__strndup(ps->prog->arena, name, strlen(name)),
					   !strcmp(kw->s, "union"), nm->loc);

	if (!cs || !c_struct_attrs(ps, cs))
		return;
	while (TOK(ps) == T_SEMI)
		advance(ps);
	add_cstruct(ps, cs);
}

/*
 * One config key (config = { key = value } or BPFTRACE_KEY in the environment):
 * NULL when set, else why not. num is the value when it is a number.
 */
const char *lang__config(struct program *prog, const char *key, const char *val, bool isnum, long long num)
{
	static const char *no_effect[] = { "cpp_demangle", "lazy_symbolication", "cache_user_symbols", "log_size",
					   "max_bpf_progs", "max_probes", "on_stack_limit",
					   "show_debug_info", "max_type_res_iterations",
					   "debug_output", "verify_llvm_ir", "kernel_build", "kernel_source", NULL };

	if (!strncasecmp(key, "BPFTRACE_", 9))
		key += 9;
	if (!strcasecmp(key, "max_strlen") || !strcasecmp(key, "strlen")) {
		if (!isnum || num < 1 || num > 200)
			return "max_strlen must be between 1 and 200 (the BPF stack is 512 bytes)";
		prog->cfg.max_strlen = (int)num;
	} else if (!strcasecmp(key, "stack_depth") || !strcasecmp(key, "max_stack_depth")) {
		if (!isnum)
			return "stack_depth is a number";
		prog->cfg.stack_depth = num < 1 ? 1 : num > 127 ? 127 : (int)num;
	} else if (!strcasecmp(key, "max_map_keys") || !strcasecmp(key, "map_keys_max")) {	/* 0.17: BPFTRACE_MAP_KEYS_MAX */
		if (!isnum)
			return "max_map_keys is a number";
		prog->cfg.max_map_keys = num < 1 ? 1 : (int)num;
	} else if (!strcasecmp(key, "stack_mode")) {
		if (!strcmp(val, "bpftrace"))
			prog->cfg.stack_mode = STACK_BPFTRACE;
		else if (!strcmp(val, "perf"))
			prog->cfg.stack_mode = STACK_PERF;
		else if (!strcmp(val, "raw"))
			prog->cfg.stack_mode = STACK_RAW;
		else
			return "stack_mode is bpftrace, perf or raw";
	} else if (!strcasecmp(key, "print_maps_on_exit")) {
		bool on = isnum ? num != 0 : !strcmp(val, "true") || !strcmp(val, "1");

		if (!isnum && strcmp(val, "true") && strcmp(val, "false") && strcmp(val, "1") && strcmp(val, "0"))
			return "print_maps_on_exit is true or false";
		prog->cfg.no_print_maps = !on;
	} else if (!strcasecmp(key, "percentiles")) {	/* sonde's own: as probe --percentiles */
		if (!isnum && strcmp(val, "true") && strcmp(val, "false") && strcmp(val, "1") && strcmp(val, "0"))
			return "percentiles is true or false";
		prog->cfg.percentiles = isnum ? num != 0 : !strcmp(val, "true") || !strcmp(val, "1");
	} else if (!strcasecmp(key, "str_trunc_trailer")) {	/* upstream's default is "..": 0.17 has none */
		if (isnum && *val == 0)
			return "str_trunc_trailer is a string";
		prog->cfg.trunc_trailer = arena__strndup(prog->arena, val, strlen(val));
	} else if (!strcasecmp(key, "max_cat_bytes") || !strcasecmp(key, "cat_bytes_max")) {	/* 0.17: BPFTRACE_CAT_BYTES_MAX */
		if (!isnum || num < 1 || num > (1 << 30))
			return "max_cat_bytes is a number of bytes from 1";
		prog->cfg.max_cat_bytes = (int)num;
	} else if (!strcasecmp(key, "perf_rb_pages")) {	/* the output ring buffer; skboutput()'s perf buffer, per CPU */
		if (!isnum || num < 1 || num > 4096)
			return "perf_rb_pages is a number of pages from 1 to 4096";
		prog->cfg.perf_rb_pages = (int)num;
	} else if (!strcasecmp(key, "dummy_ts_map")) {	/* bpftrace's own tests' clock: BPFTRACE_DUMMY_TS_MAP=@ts */
		if (isnum || val[0] != '@')
			return "dummy_ts_map names a map: @ts";
		prog->cfg.dummy_ts_map = arena__strndup(prog->arena, val, strlen(val));
	} else if (!strcasecmp(key, "unstable_tseries")) {
		return lang__config_tseries(prog, isnum ? "" : val);
	} else if (!strcasecmp(key, "license")) {
		static const char *ok[] = { "GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL", "Dual MIT/GPL",
					    "Dual MPL/GPL", NULL };
		int i;

		for (i = 0; ok[i] && strcmp(ok[i], val); i++)
			;
		if (!ok[i])
			return "license is one of GPL, GPL v2, GPL and additional rights, Dual BSD/GPL, Dual MIT/GPL, Dual MPL/GPL";
		prog->cfg.license = ok[i];
	} else if (!strcasecmp(key, "unstable_addr")) {	/* addr.c */
		if (!strcmp(val, "error") || !strcmp(val, "warn") || !strcmp(val, "enable"))
			prog->cfg.unstable_addr = val[0] == 'e' && val[1] == 'r' ? UNSTABLE_ERROR : val[0] == 'w' ? UNSTABLE_WARN :
						  UNSTABLE_ENABLE;
		else
			return "unstable_addr is error, warn or enable";
	} else if (!strcasecmp(key, "missing_probes")) {	/* testbench.c */
		if (!strcmp(val, "error") || !strcmp(val, "warn") || !strcmp(val, "ignore"))
			prog->cfg.missing_probes = val[0] == 'e' ? MISSING_ERROR : val[0] == 'w' ? MISSING_WARN : MISSING_IGNORE;
		else
			return "missing_probes is error, warn or ignore";
	} else {
		for (int i = 0; no_effect[i]; i++)
			if (!strcasecmp(key, no_effect[i]))
				return NULL;	/* bpftrace's, with nothing to change in sonde */
		return "unknown config key";
	}
	return NULL;
}

static int config_block(struct parser *ps)
{
	if (!expect(ps, T_ASSIGN, "'=' after config") || !expect(ps, T_LBRACE, "'{'"))
		return -1;
	while (TOK(ps) == T_IDENT) {
		struct token *k = advance(ps);

		if (!expect(ps, T_ASSIGN, "'='"))
			return -1;
		struct token *v = advance(ps);
		if (v->t != T_INT && v->t != T_STR && v->t != T_IDENT) {
			lang__error(ps->prog, v->loc, "a config value is a number or a string");
			return -1;
		}
		const char *why = lang__config(ps->prog, k->s, v->t == T_INT ? "" : v->s, v->t == T_INT, v->i);

		if (why && !strcmp(why, "unknown config key")) {
			lang__warn(ps->prog, k->loc, "unknown config key '%s': ignored", k->s);
		} else if (why) {
			lang__error(ps->prog, v->loc, "%s", why);
			return -1;
		}
		if (TOK(ps) == T_SEMI)
			advance(ps);
	}
	return expect(ps, T_RBRACE, "'}' or a config key") ? 0 : -1;
}

static int map_decl(struct parser *ps)
{
	/* let @a = hash(1024); */
	if (TOK(ps) != T_MAP) {
		unexpected(ps, "a map after let");
		return -1;
	}
	advance(ps);
	if (!expect(ps, T_ASSIGN, "'='"))
		return -1;
	if (TOK(ps) != T_IDENT) {
		unexpected(ps, "a map type (hash, lruhash, percpuhash, percpulruhash, percpuarray)");
		return -1;
	}
	struct token *ty = advance(ps);
	static const char *types[] = { "hash", "lruhash", "percpuhash", "percpulruhash", "percpuarray", NULL };
	bool ok = false;

	for (int i = 0; types[i]; i++)
		ok |= !strcmp(ty->s, types[i]);
	if (!ok) {
		lang__error(ps->prog, ty->loc, "unknown map type '%s' (hash, lruhash, percpuhash, percpulruhash, percpuarray)", ty->s);
		return -1;
	}
	if (!expect(ps, T_LPAREN, "'('"))
		return -1;
	if (TOK(ps) == T_INT)
		advance(ps);
	if (!expect(ps, T_RPAREN, "')'"))
		return -1;
	if (TOK(ps) == T_SEMI)
		advance(ps);
	return 0;
}

static int probe(struct parser *ps)
{
	struct probe *pr = arena__alloc(ps->prog->arena, sizeof(*pr));
	struct attach **tail = &pr->aps;

	pr->loc = peek(ps, 0)->loc;
	for (;;) {
		struct token *t = peek(ps, 0);

		if (t->t != T_PROBE) {
			unexpected(ps, "an attach point");
			return -1;
		}
		advance(ps);
		struct attach *ap = attach_point(ps, t);

		if (!ap)
			return -1;
		*tail = ap;
		tail = &ap->next;
		if (TOK(ps) != T_COMMA)
			break;
		advance(ps);
	}
	if (TOK(ps) == T_SLASH) {
		advance(ps);
		ps->in_pred = true;
		ps->nest = 0;
		pr->pred = expr(ps);
		ps->in_pred = false;
		if (!pr->pred || !expect(ps, T_SLASH, "'/' closing the predicate"))
			return -1;
	}
	pr->body = block(ps);
	if (!pr->body)
		return -1;
	pr->index = ps->prog->nprobes++;
	struct probe **pt = &ps->prog->probes;

	while (*pt)
		pt = &(*pt)->next;
	*pt = pr;
	return 0;
}

/* "{ stmt; stmt; expr }": a block whose value is its last statement when that is an
 * expression without a ';' after it */
/* if (c) { a } else { b }, as a value: c ? { a } : { b }; "if" is read */
static struct node *if_expr(struct parser *ps, struct token *t)
{
	struct node *n = mk(ps, N_TERNARY, t->loc);

	n->l = expr(ps);
	if (!n->l || TOK(ps) != T_LBRACE) {
		if (n->l)
			unexpected(ps, "'{'");
		return NULL;
	}
	n->r = block_expr(ps);
	if (!n->r)
		return NULL;
	if (!ident_is(ps, "else")) {
		unexpected(ps, "else (an if that is a value needs one)");
		return NULL;
	}
	advance(ps);
	if (ident_is(ps, "if"))
		n->x = if_expr(ps, advance(ps));
	else if (TOK(ps) == T_LBRACE)
		n->x = block_expr(ps);
	else
		unexpected(ps, "'{' or if after else");
	return n->x ? n : NULL;
}

static struct node *block_expr(struct parser *ps)
{
	struct token *open = peek(ps, 0);
	struct node *b, *head = NULL, *last;
	bool semi;

	if (!expect(ps, T_LBRACE, "'{'"))
		return NULL;
	b = mk(ps, N_BLOCKEXPR, open->loc);
	ps->nest++;
	if (stmt_list(ps, open, &head, &last, &semi))
		return NULL;
	ps->nest--;
	if (!expect(ps, T_RBRACE, "'}'"))
		return NULL;
	b->args = head;
	if (last && !semi && (last->kind == N_EXPR || if_has_value(last))) {	/* the value: out of the statements */
		struct node **pp = &b->args;

		while (*pp != last)
			pp = &(*pp)->next;
		*pp = NULL;
		b->x = last->kind == N_EXPR ? last->l : if_value(ps, last);
	}
	return b;
}

static struct node *last_of(struct node *b)
{
	struct node *last = NULL;

	for (struct node *s = b ? b->args : NULL; s; s = s->next)
		last = s;
	return last;
}

/* does if statement s end in values: if (c) { ..a } else { ..b }, a and b expressions (not calls) */
static bool if_has_value(struct node *s)
{
	struct node *r, *x;

	if (s->kind != N_IF || !s->x)
		return false;
	r = last_of(s->r);
	x = last_of(s->x);
	return r && x && ((r->kind == N_EXPR && r->l->kind != N_CALL) || if_has_value(r)) &&
	       ((x->kind == N_EXPR && x->l->kind != N_CALL) || if_has_value(x));
}

/* block b (if_has_value said it ends in a value) as a block expression */
static struct node *block_value(struct parser *ps, struct node *b)
{
	struct node *last = last_of(b), *n = mk(ps, N_BLOCKEXPR, b->loc), **pp = &n->args;

	for (struct node *s = b->args; s != last; s = s->next) {
		*pp = s;
		pp = &s->next;
	}
	*pp = NULL;
	n->x = last->kind == N_EXPR ? last->l : if_value(ps, last);
	return n;
}

/* a block's last statement `if (c) { ..a } else { ..b }` as its value c ? a : b (upstream's) */
static struct node *if_value(struct parser *ps, struct node *s)
{
	struct node *n = mk(ps, N_TERNARY, s->loc);

	n->l = s->l;
	n->r = block_value(ps, s->r);
	n->x = block_value(ps, s->x);
	return n;
}

/* "(name = expr, ...)": a record (a tuple with named fields); x chains the names' N_IDENT nodes */
static struct node *record(struct parser *ps, struct token *open)
{
	struct node *n = mk(ps, N_TUPLE, open->loc), **tail = &n->args, **ntail = &n->x;
	int cnt = 0;

	advance(ps);
	ps->nest++;
	while (!failed(ps)) {
		if (TOK(ps) != T_IDENT || peek(ps, 1)->t != T_ASSIGN) {
			unexpected(ps, "a field 'name = value'");
			return NULL;
		}
		struct token *name = advance(ps);
		struct node *id = mk(ps, N_IDENT, name->loc);

		id->s = name->s;
		for (struct node *o = n->x; o; o = o->next)
			if (!strcmp(o->s, name->s)) {
				lang__error(ps->prog, name->loc, "the record has two fields named '%s'", name->s);
				return NULL;
			}
		advance(ps);
		struct node *e = expr(ps);

		if (!e)
			return NULL;
		*tail = e;
		tail = &e->next;
		*ntail = id;
		ntail = &id->next;
		cnt++;
		if (TOK(ps) != T_COMMA)
			break;
		advance(ps);
		if (TOK(ps) == T_RPAREN)
			break;
	}
	ps->nest--;
	if (!expect(ps, T_RPAREN, "',' or ')'"))
		return NULL;
	n->i = cnt;
	return n;
}

/* "macro name($var, @map, ident) { body }" */
static int macro_def(struct parser *ps)
{
	struct token *name = advance(ps);
	struct macrodef *m = arena__alloc(ps->prog->arena, sizeof(*m)), **t;
	struct node **tail = &m->params;

	m->name = name->s;
	m->loc = name->loc;
	if (!expect(ps, T_LPAREN, "'(' after the macro's name"))
		return -1;
	while (TOK(ps) != T_RPAREN) {
		struct token *a = peek(ps, 0);
		struct node *p;

		if (a->t != T_VAR && a->t != T_MAP && a->t != T_IDENT) {
			unexpected(ps, "a parameter ($variable, @map or name)");
			return -1;
		}
		advance(ps);
		p = mk(ps, a->t == T_VAR ? N_VAR : a->t == T_MAP ? N_MAP : N_IDENT, a->loc);
		p->s = a->s;
		p->i = -1;
		for (struct node *o = m->params; o; o = o->next)
			if (!strcmp(o->s, p->s)) {
				lang__error(ps->prog, a->loc, "macro '%s' has two parameters named '%s'", m->name, p->s);
				return -1;
			}
		*tail = p;
		tail = &p->next;
		m->nparams++;
		if (TOK(ps) != T_COMMA)
			break;
		advance(ps);
	}
	if (!expect(ps, T_RPAREN, "',' or ')'"))
		return -1;
	if (TOK(ps) != T_LBRACE) {
		unexpected(ps, "'{' starting the macro's body");
		return -1;
	}
	m->body = block_expr(ps);
	if (!m->body)
		return -1;
	for (t = &ps->prog->macros; *t; t = &(*t)->next)
		;
	*t = m;
	return 0;
}

int lang__parse(struct program *prog)
{
	struct lexer lx;
	struct parser ps = { .prog = prog };
	int cap = 256;

	lexer__init(&lx, prog);
	ps.toks = malloc(cap * sizeof(*ps.toks));
	if (!ps.toks)
		return -ENOMEM;
	for (;;) {
		struct token t = lexer__next(&lx);

		if (ps.n == cap) {
			struct token *n = realloc(ps.toks, (cap *= 2) * sizeof(*n));

			if (!n) {
				free(ps.toks);
				return -ENOMEM;
			}
			ps.toks = n;
		}
		ps.toks[ps.n++] = t;
		if (t.t == T_EOF || t.t == T_ERROR)
			break;
	}
	while (TOK(&ps) != T_EOF && !failed(&ps)) {
		struct token *t = peek(&ps, 0);

		if (t->t == T_IDENT && !strcmp(t->s, "config")) {
			advance(&ps);
			config_block(&ps);
		} else if (t->t == T_IDENT && !strcmp(t->s, "let")) {
			advance(&ps);
			map_decl(&ps);
		} else if (t->t == T_IDENT && (!strcmp(t->s, "struct") || !strcmp(t->s, "union")) &&
			   peek(&ps, 1)->t == T_IDENT && peek(&ps, 2)->t == T_LBRACE) {
			c_struct(&ps);
		} else if (t->t == T_IDENT && (!strcmp(t->s, "struct") || !strcmp(t->s, "union") ||
					       !strcmp(t->s, "enum"))) {
			/* C type declarations: kept for casts of user data (not yet typed) */
			if (!strcmp(t->s, "enum") && enumfmt__decl(prog, t->at, t->loc))	/* its enumerators */
				break;
			while (TOK(&ps) != T_LBRACE && TOK(&ps) != T_SEMI && TOK(&ps) != T_EOF)
				advance(&ps);
			if (TOK(&ps) == T_LBRACE && skip_braces(&ps) == 0)
				while (TOK(&ps) == T_SEMI)
					advance(&ps);
			else if (TOK(&ps) == T_SEMI)
				advance(&ps);
		} else if (t->t == T_IDENT && !strcmp(t->s, "macro") && peek(&ps, 1)->t == T_IDENT) {
			advance(&ps);
			macro_def(&ps);
		} else if (t->t == T_IDENT && (!strcmp(t->s, "macro") || !strcmp(t->s, "fn"))) {
			lang__error(prog, t->loc, "%s definitions are not supported by sonde probe yet", t->s);
		} else if (t->t == T_IDENT && !strcmp(t->s, "import")) {
			lang__error(prog, t->loc, "import is not supported by sonde probe yet");
		} else if (t->t == T_SEMI) {
			advance(&ps);
		} else {
			probe(&ps);
		}
	}
	free(ps.toks);
	if (!failed(&ps) && !prog->probes) {
		struct loc l = { .line = 1, .col = 1 };

		lang__error(prog, l, "the program has no probes");
	}
	if (!prog->err)
		lang__depth(prog);	/* before any pass walks the trees */
	return prog->err ? -EINVAL : 0;
}

int lang__config_env(struct program *prog, char **env)
{
	for (char **e = env; e && *e; e++) {
		char key[64], *end;
		const char *eq = strchr(*e, '=');
		long long num;

		if (strncmp(*e, "BPFTRACE_", 9) || !eq || eq - *e >= (long)sizeof(key))
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *e), *e);
		num = strtoll(eq + 1, &end, 0);
		const char *why = lang__config(prog, key, eq + 1, eq[1] && !*end, num);

		if (why && strcmp(why, "unknown config key")) {
			if (!prog->err && asprintf(&prog->err, "sonde: %s=%s: %s", key, eq + 1, why) < 0)
				prog->err = NULL;
			return -EINVAL;
		}
	}
	return 0;
}
