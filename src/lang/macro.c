// SPDX-License-Identifier: GPL-2.0
/*
 * macro.c - bpftrace's macros, expanded on the AST between parsing and type
 * checking. "macro name($v, @m, e) { body }": a call "name($x, @y, 1 + 2)"
 * (or a bare "name" when there are no parameters) becomes a copy of the body,
 * a block expression, in which $v is the caller's $x, @m the caller's @y, and
 * every e a copy of the expression 1 + 2 (a variable or a map given for e is
 * read, never changed). The body's own variables are renamed for each call
 * so that they never meet the caller's; a map the body names without taking
 * it as a parameter is an error, as is a macro calling itself. Every node of
 * an expansion remembers it (loc.exp), so that an error in a body also says
 * where the macro was called from. The same walk settles two shapes of the
 * whole program: a type given as typeof(T) (settle_type), and an aggregation
 * that ends a block assigned to a map (agg_block).
 */
#include "lang/builtins/builtins.h"
#include "lang/lang.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64		/* macros calling macros */
#define MAX_NODES 200000	/* nodes copied by all expansions together */

struct mx {
	struct program *prog;
	const struct macrodef *m;	/* NULL: the program's own code, changed in place */
	struct node **args;		/* the call's arguments, by parameter */
	struct mx *outer;
	int exp;			/* this expansion's index + 1 */
	int depth;
	int *serial;			/* expansions so far */
	long *nodes;			/* nodes copied so far */
};

static bool failed(struct mx *x)
{
	return x->prog->err != NULL;
}

/* append "file:line:col: note: ..." with the source line and a caret to the error */
static void note(struct program *p, struct loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void note(struct program *p, struct loc loc, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	char *first = p->err, *n, *at, *out;
	int nerr = p->nerr;

	if (!first)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->err = NULL;
	lang__error(p, loc, "%s", msg);	/* formats it (and the notes of loc's own expansion) */
	n = p->err;
	p->err = first;
	p->nerr = nerr;
	if (!n)
		return;
	at = strstr(n, ": error: ");
	out = malloc(strlen(first) + strlen(n) + 8);
	if (out && at) {
		sprintf(out, "%s\n%.*s: note: %s", first, (int)(at - n), n, at + 9);
		free(first);
		p->err = out;
	} else {
		free(out);
	}
	free(n);
}

/* "$$inc_3_y", the name a macro's own $y has in its third expansion, is "$y" in messages */
static void unrename(struct program *p, char *msg)
{
	for (char *at = strstr(msg, "$$"); at; at = strstr(at + 1, "$$")) {
		for (int k = 1; k <= p->nexps; k++) {
			char prefix[160];
			int n = snprintf(prefix, sizeof(prefix), "$$%s_%d_", p->exps[k - 1].m->name, k);

			if (n < (int)sizeof(prefix) && !strncmp(at, prefix, n)) {
				memmove(at + 1, at + n, strlen(at + n) + 1);
				break;
			}
		}
	}
}

void macro__explain(struct program *p, struct loc loc, char **msg)
{
	if (loc.exp < 1 || loc.exp > p->nexps || *msg != p->err)
		return;
	const struct expansion *e = &p->exps[loc.exp - 1];

	unrename(p, *msg);

	note(p, e->call, "in macro '%s', called here", e->m->name);
}

static int add_expansion(struct program *p, const struct macrodef *m, struct loc call)
{
	if (p->nexps == p->capexps) {
		int cap = p->capexps ? p->capexps * 2 : 16;
		struct expansion *n = arena__alloc(p->arena, cap * sizeof(*n));

		if (p->nexps)
			memcpy(n, p->exps, p->nexps * sizeof(*n));
		p->exps = n;
		p->capexps = cap;
	}
	p->exps[p->nexps].m = m;
	p->exps[p->nexps].call = call;
	return ++p->nexps;
}

/* how far the arguments are from the macro's parameters: 0 is a match */
static int distance(const struct macrodef *m, struct node *args, int nargs)
{
	int d = 1024 * abs(m->nparams - nargs);
	struct node *p = m->params, *a = args;

	for (; p && a; p = p->next, a = a->next)
		if ((p->kind == N_VAR && a->kind != N_VAR) || (p->kind == N_MAP && (a->kind != N_MAP || a->i >= 0)))
			d++;
	return d;
}

static const struct macrodef *lookup(struct program *p, const char *name, struct node *args, int nargs,
				     const struct macrodef **closest)
{
	int best = -1;

	*closest = NULL;
	for (const struct macrodef *m = p->macros; m; m = m->next) {
		if (strcmp(m->name, name))
			continue;
		int d = distance(m, args, nargs);

		if (!d)
			return m;
		if (best < 0 || d < best) {
			best = d;
			*closest = m;
		}
	}
	return NULL;
}

static struct node *copy(struct mx *x, struct node *n)
{
	struct node *c = arena__alloc(x->prog->arena, sizeof(*c));

	if (++*x->nodes == MAX_NODES)
		lang__error(x->prog, n->loc, "macro expansion is too large (more than %d nodes)", MAX_NODES);
	*c = *n;
	c->next = NULL;
	if (x->m)
		c->loc.exp = x->exp;
	return c;
}

/* a plain deep copy of the caller's argument (its locations stay the caller's) */
static struct node *clone(struct mx *x, struct node *n)
{
	struct node *head = NULL, **tail = &head;

	for (; n && !failed(x); n = n->next) {
		struct node *c = arena__alloc(x->prog->arena, sizeof(*c));

		if (++*x->nodes == MAX_NODES)
			lang__error(x->prog, n->loc, "macro expansion is too large (more than %d nodes)", MAX_NODES);
		*c = *n;
		c->next = NULL;
		c->l = clone(x, n->l);
		c->r = clone(x, n->r);
		c->x = clone(x, n->x);
		c->args = clone(x, n->args);
		*tail = c;
		tail = &c->next;
	}
	return head;
}

static struct node *param(struct mx *x, enum nk kind, const char *name, struct node **arg)
{
	int i = 0;

	if (!x->m)
		return NULL;
	for (struct node *p = x->m->params; p; p = p->next, i++)
		if (p->kind == kind && !strcmp(p->s, name)) {
			*arg = x->args[i];
			return p;
		}
	return NULL;
}

/* is $name given a value somewhere in the macro's body? */
static bool assigned_in(struct node *n, const char *name)
{
	for (; n; n = n->next) {
		if ((n->kind == N_ASSIGN && n->l && n->l->kind == N_VAR && !strcmp(n->l->s, name)) ||
		    ((n->kind == N_LET || n->kind == N_FOR_RANGE || n->kind == N_FOR_MAP) && !strcmp(n->s, name)))
			return true;
		if (assigned_in(n->l, name) || assigned_in(n->r, name) || assigned_in(n->x, name) ||
		    assigned_in(n->args, name))
			return true;
	}
	return false;
}

static const char *rename_var(struct mx *x, const char *name)
{
	size_t len = strlen(x->m->name) + strlen(name) + 24;
	char *s = arena__alloc(x->prog->arena, len);

	snprintf(s, len, "$$%s_%d_%s", x->m->name, x->exp, name + 1);
	return s;
}

static struct node *xf(struct mx *x, struct node *n);

static struct node *xf_list(struct mx *x, struct node *n)
{
	struct node *head = NULL, **tail = &head;

	while (n && !failed(x)) {
		struct node *next = n->next, *c = xf(x, n);

		if (!c)
			break;
		*tail = c;
		tail = &c->next;
		n = next;
	}
	*tail = NULL;
	return head;
}

static struct node *expand(struct mx *x, const struct macrodef *m, struct node *call);

/* "m(...);" as a statement: the body's statements in a block, its value (if any) one more statement */
static void flatten(struct mx *x, struct node *s)
{
	struct node *b = s->l, **tail = &s->args;

	s->kind = N_BLOCK;
	s->l = NULL;
	s->args = b->args;
	while (*tail)
		tail = &(*tail)->next;
	if (b->x) {
		struct node *e = arena__alloc(x->prog->arena, sizeof(*e));

		e->kind = N_EXPR;
		e->loc = b->x->loc;
		e->l = b->x;
		if (e->l->kind == N_BLOCKEXPR)
			flatten(x, e);
		*tail = e;
	}
}

/* a call that matches no definition of the macro: say why, for the closest one */
static void mismatch(struct mx *x, struct node *c, const struct macrodef *m, int nargs)
{
	struct node *p = m->params, *a = c->kind == N_CALL ? c->args : NULL;

	if (nargs != m->nparams) {
		if (c->kind == N_IDENT)
			lang__error(x->prog, c->loc, "macro '%s' takes %d argument%s: call it as '%s(...)'", c->s,
				    m->nparams, m->nparams == 1 ? "" : "s", c->s);
		else
			lang__error(x->prog, c->loc, "macro '%s' takes %d argument%s, not %d", c->s, m->nparams,
				    m->nparams == 1 ? "" : "s", nargs);
		note(x->prog, m->loc, "macro '%s' is defined here", m->name);
		return;
	}
	for (; p && a; p = p->next, a = a->next) {
		if (p->kind == N_VAR && a->kind != N_VAR) {
			lang__error(x->prog, a->loc, "macro '%s' takes a scratch variable for '%s' (it may change it), "
				    "not %s", m->name, p->s, a->kind == N_MAP ? "a map" : "an expression");
			break;
		}
		if (p->kind == N_MAP && (a->kind != N_MAP || a->i >= 0)) {
			lang__error(x->prog, a->loc, "macro '%s' takes a whole map for '%s', not %s", m->name, p->s,
				    a->kind == N_VAR ? "a variable" : a->kind == N_MAP ? "a map element" : "an expression");
			break;
		}
	}
	if (p)
		note(x->prog, p->loc, "macro '%s' declares '%s' here", m->name, p->s);
}

/* a type that arrived as a macro's argument: typeof(typeof(T)) is T; sizeof(T) and sizeof(T[N]) take it */
static void settle_type(struct node *c)
{
	struct node *t = c->l;

	if (c->kind == N_TYPE && t && t->kind == N_TYPE) {
		c->l = t->l;
		c->s = t->s;
		c->ptr = t->ptr;
		c->i = t->i;
		return;
	}
	if (c->kind != N_SIZEOF || !t || c->s)
		return;
	if (t->kind == N_INDEX && t->l && t->l->kind == N_TYPE && !t->l->l && t->r && t->r->kind == N_INT &&
	    t->r->i > 0 && !t->l->i) {	/* sizeof(t[2]): t's array of two */
		c->i = t->r->i;
		t = t->l;
	} else if (t->kind != N_TYPE || t->l) {
		if (t->kind == N_TYPE)	/* sizeof(typeof(e)) is sizeof(e) */
			c->l = t->l;
		return;
	}
	c->s = t->s;
	c->ptr = t->ptr;
	if (!c->i)
		c->i = t->i;
	c->l = NULL;
}

/* @m = { stmts; avg($a) }: an aggregation is only ever assigned, so the block's last value goes to @m there */
static void agg_block(struct mx *x, struct node *c)
{
	struct node *b = c->r, **tail;
	const struct builtin *f;

	if (c->kind != N_ASSIGN || c->op != T_ASSIGN || !c->l || c->l->kind != N_MAP || !b || b->kind != N_BLOCKEXPR ||
	    !b->x || b->x->kind != N_CALL || !(f = builtin__func(b->x->s)) || !(f->flags & BF_AGG))
		return;
	struct node *a = arena__alloc(x->prog->arena, sizeof(*a));

	*a = *c;
	a->r = b->x;
	a->next = NULL;
	c->kind = N_BLOCK;
	c->l = c->r = NULL;
	c->args = b->args;
	for (tail = &c->args; *tail; tail = &(*tail)->next)
		;
	*tail = a;
}

static struct node *xf(struct mx *x, struct node *n)
{
	struct node *c, *arg = NULL;
	struct node *p;

	if (!n || failed(x))
		return NULL;
	/* the parameters */
	if (n->kind == N_IDENT && (p = param(x, N_IDENT, n->s, &arg))) {
		struct node *v = clone(x, arg);

		if (v && (v->kind == N_VAR || v->kind == N_MAP)) {	/* read, not changed */
			struct node *b = copy(x, n);

			b->kind = N_BLOCKEXPR;
			b->loc = v->loc;
			b->s = NULL;
			b->x = v;
			return b;
		}
		return v;
	}
	c = x->m ? copy(x, n) : n;
	if (x->m && c->kind == N_VAR) {
		if (param(x, N_VAR, c->s, &arg))
			c->s = arg->s;
		else if (!assigned_in(x->m->body, c->s)) {
			lang__error(x->prog, c->loc, "macro '%s' reads '%s', which is neither its parameter nor set "
				    "in its body: pass it as an argument", x->m->name, c->s);
			return NULL;
		} else
			c->s = rename_var(x, c->s);
	}
	if (x->m && c->kind == N_MAP) {
		if (param(x, N_MAP, c->s, &arg)) {
			c->s = arg->s;
		} else {
			lang__error(x->prog, c->loc, "macro '%s' uses the map '%s' without taking it as a parameter: "
				    "pass it as an argument", x->m->name, c->s);
			return NULL;
		}
	}
	if (x->m && (c->kind == N_LET || c->kind == N_FOR_RANGE || c->kind == N_FOR_MAP)) {
		if (param(x, N_VAR, c->s, &arg)) {
			if (c->kind == N_LET) {
				lang__error(x->prog, c->loc, "'let %s' hides the parameter '%s' of macro '%s'", c->s,
					    c->s, x->m->name);
				return NULL;
			}
			c->s = arg->s;
		} else {
			c->s = rename_var(x, c->s);
		}
	}
	/* a macro call: its arguments first (they may call macros too) */
	if (c->kind == N_CALL || (c->kind == N_IDENT && !(x->m && param(x, N_IDENT, c->s, &arg)))) {
		const struct macrodef *closest, *m;
		int argn, nargs = c->kind == N_CALL ? (int)c->i : 0;

		if (c->kind == N_CALL)
			c->args = xf_list(x, c->args);
		if (failed(x))
			return NULL;
		m = lookup(x->prog, c->s, c->args, nargs, &closest);
		if (m)
			return expand(x, m, c);
		if (closest && !builtin__func(c->s) && !builtin__var(c->s, &argn)) {	/* cpu() with a macro cpu(x) */
			mismatch(x, c, closest, nargs);
			return NULL;
		}
		return c;
	}
	if (x->m && (c->kind == N_SIZEOF || c->kind == N_CAST) && c->s && param(x, N_IDENT, c->s, &arg) &&
	    arg->kind == N_TYPE && !arg->l) {	/* sizeof(t *), (t *)e with t = typeof(uint8) */
		c->s = arg->s;
		c->ptr += arg->ptr;
		if (!c->i)
			c->i = arg->i;
	}
	c->l = xf(x, c->l);
	c->r = xf(x, c->r);
	if (c->kind == N_TUPLE)	/* a record's names are names, not expressions */
		c->x = x->m ? clone(x, c->x) : c->x;
	else
		c->x = xf(x, c->x);
	c->args = xf_list(x, c->args);
	if (failed(x))
		return NULL;
	if (c->kind == N_EXPR && c->l && c->l->kind == N_BLOCKEXPR)
		flatten(x, c);
	settle_type(c);
	agg_block(x, c);
	return c;
}

static struct node *expand(struct mx *x, const struct macrodef *m, struct node *call)
{
	int nargs = call->kind == N_CALL ? (int)call->i : 0, i = 0;
	struct node **args = arena__alloc(x->prog->arena, (nargs + 1) * sizeof(*args));

	for (struct mx *o = x; o && o->m; o = o->outer)
		if (o->m == m) {
			char chain[512];
			int n = 0;
			struct mx *stack[MAX_DEPTH + 1];
			int k = 0;

			for (struct mx *q = x; q && q->m && k < MAX_DEPTH; q = q->outer)
				stack[k++] = q;
			while (k-- > 0 && n < (int)sizeof(chain) - 80)
				n += snprintf(chain + n, sizeof(chain) - n, "%s > ", stack[k]->m->name);
			snprintf(chain + n, sizeof(chain) - n, "%s", m->name);
			lang__error(x->prog, call->loc, "macro '%s' calls itself (%s): macros cannot be recursive",
				    m->name, chain);
			return NULL;
		}
	if (x->depth >= MAX_DEPTH) {
		lang__error(x->prog, call->loc, "macros call each other more than %d deep", MAX_DEPTH);
		return NULL;
	}
	for (struct node *a = call->kind == N_CALL ? call->args : NULL; a; a = a->next)
		args[i++] = a;
	struct mx in = {
		.prog = x->prog, .m = m, .args = args, .outer = x, .depth = x->depth + 1,
		.serial = x->serial, .nodes = x->nodes,
	};

	in.exp = add_expansion(x->prog, m, call->loc);
	++*x->serial;
	struct node *b = xf(&in, m->body);

	if (!b)
		return NULL;
	b->loc = call->loc;	/* the block is where the call was */
	b->s = m->name;
	return b;
}

int lang__expand_macros(struct program *p)
{
	int serial = 0;
	long nodes = 0;
	struct mx top = { .prog = p, .serial = &serial, .nodes = &nodes };

	if (p->err)
		return -EINVAL;
	/* two definitions that take the same arguments */
	for (const struct macrodef *m = p->macros; m && !p->err; m = m->next)
		for (const struct macrodef *o = p->macros; o != m; o = o->next) {
			const struct macrodef *closest;

			if (!strcmp(o->name, m->name) && lookup(p, m->name, m->params, m->nparams, &closest) == o) {
				lang__error(p, m->loc, "macro '%s' is defined twice with the same parameters", m->name);
				note(p, o->loc, "the first definition is here");
				break;
			}
		}
	for (struct probe *pr = p->probes; pr && !p->err; pr = pr->next) {
		pr->pred = xf(&top, pr->pred);
		if (!p->err)
			pr->body = xf(&top, pr->body);
	}
	if (!p->err)
		lang__depth(p);	/* expansions nest */
	return p->err ? -EINVAL : 0;
}
