// SPDX-License-Identifier: GPL-2.0
/*
 * getopt.c - named parameters: getopt("name"[, default[, "description"]])
 * declares an option of the program (a flag without a default or with
 * true/false, else an integer or a string, by the default's type); the values
 * come after -- on the command line (-- --aa=20 --bb) and become constants of
 * the program, as positional parameters do. -- --help lists the options.
 */
#include "lang/check_int.h"
#include "lang/comptime.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_FLAG, OPT_INT, OPT_STR };

struct optdecl {
	const char *name;
	int kind;
	long long ival;		/* the default, then the value given */
	const char *sval;
	const char *desc;
	struct loc loc;
	struct optdecl *next;
};

static bool is_bool_ident(const struct node *n)
{
	return n->kind == N_IDENT && (!strcmp(n->s, "true") || !strcmp(n->s, "false"));
}

static struct optdecl *find(struct program *p, const char *name)
{
	for (struct optdecl *d = p->optdecls; d; d = d->next)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

/* a getopt() call's declaration, from its literals; -1 after lang__error */
static int declare(struct program *p, struct node *call, struct optdecl *out)
{
	struct node *name = call->args, *def = name ? name->next : NULL, *desc = def ? def->next : NULL;

	memset(out, 0, sizeof(*out));
	if (name->kind != N_STR) {
		lang__error(p, name->loc, "getopt() takes the option's name as a string literal");
		return -1;
	}
	if (!name->slen || strspn(name->s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != name->slen ||
	    name->s[0] == '-' || !strcmp(name->s, "help")) {
		lang__error(p, name->loc, "'%s' cannot be an option's name (letters, digits, '_' and '-'; not 'help')", name->s);
		return -1;
	}
	out->name = name->s;
	out->loc = call->loc;
	if (!def || is_bool_ident(def)) {
		out->kind = OPT_FLAG;
		out->ival = def && def->s[0] == 't';
	} else if (def->kind == N_INT) {
		out->kind = OPT_INT;
		out->ival = def->i;
	} else if (def->kind == N_STR) {
		out->kind = OPT_STR;
		out->sval = def->s;
	} else {
		lang__error(p, def->loc, "getopt()'s default is an integer, string or boolean (true, false) literal");
		return -1;
	}
	if (desc && desc->kind != N_STR) {
		lang__error(p, desc->loc, "getopt()'s description is a string literal");
		return -1;
	}
	out->desc = desc ? desc->s : NULL;
	return 0;
}

static int walk(struct program *p, struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_CALL && n->s && !strcmp(n->s, "getopt") && n->args) {
			struct optdecl d, *old;
			int nargs = 0;

			for (struct node *a = n->args; a; a = a->next)
				nargs++;
			if (nargs <= 3) {	/* else the type checker says how many it takes */
				if (declare(p, n, &d))
					return -1;
				old = find(p, d.name);
				if (old && (old->kind != d.kind || old->ival != d.ival ||
					    (d.kind == OPT_STR && strcmp(old->sval, d.sval)))) {
					lang__error(p, n->loc, "option '%s' is declared again with another default or type (its "
						    "first getopt() is on line %d)", d.name, old->loc.line);
					return -1;
				}
				if (!old) {
					struct optdecl *nd = arena__alloc(p->arena, sizeof(*nd)), **t = &p->optdecls;

					*nd = d;
					while (*t)
						t = &(*t)->next;
					*t = nd;
				} else if (!old->desc) {
					old->desc = d.desc;
				}
			}
		}
		if (walk(p, n->l) || walk(p, n->r) || walk(p, n->x) || walk(p, n->args))
			return -1;
	}
	return 0;
}

/* a command-line mistake: one line, no caret */
static int cmdline_error(struct program *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!p->err)
		p->err = strdup(msg);
	p->nerr++;
	return -EINVAL;
}

static const char *known_list(struct program *p, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (struct optdecl *d = p->optdecls; d && n + 1 < len; d = d->next)
		n += snprintf(buf + n, len - n, "%s--%s", n ? ", " : "", d->name);
	return buf;
}

static void help(struct program *p, FILE *f)
{
	if (!p->optdecls) {
		fprintf(f, "%s declares no named options (getopt())\n", p->file);
		return;
	}
	fprintf(f, "options of %s (give them after --, as in: -- --%s%s):\n", p->file, p->optdecls->name,
		p->optdecls->kind == OPT_FLAG ? "" : p->optdecls->kind == OPT_INT ? "=N" : "=TEXT");
	for (struct optdecl *d = p->optdecls; d; d = d->next) {
		char left[128], def[160];

		snprintf(left, sizeof(left), "--%s%s", d->name, d->kind == OPT_FLAG ? "[=BOOL]" : d->kind == OPT_INT ? "=N" : "=TEXT");
		if (d->kind == OPT_FLAG)
			snprintf(def, sizeof(def), "default: %s", d->ival ? "true" : "false");
		else if (d->kind == OPT_INT)
			snprintf(def, sizeof(def), "default: %lld", d->ival);
		else
			snprintf(def, sizeof(def), "default: \"%.140s\"", d->sval);
		fprintf(f, "    %-24s %s%s(%s)\n", left, d->desc ? d->desc : "", d->desc ? " " : "", def);
	}
}

/* one "name[=value]" from the command line */
static int take(struct program *p, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t nl = eq ? (size_t)(eq - arg) : strlen(arg);
	char name[128], list[512];
	struct optdecl *d;

	snprintf(name, sizeof(name), "%.*s", (int)(nl < 100 ? nl : 100), arg);
	d = nl < 100 ? find(p, name) : NULL;
	if (!d)
		return cmdline_error(p, "sonde: unknown program option '--%s' (%s%s; -- --help lists them)", name,
				     p->optdecls ? "the program's options: " : "the program declares no options with getopt()",
				     known_list(p, list, sizeof(list)));
	if (d->kind == OPT_FLAG) {
		if (!eq || !strcmp(eq + 1, "true") || !strcmp(eq + 1, "1"))
			d->ival = 1;
		else if (!strcmp(eq + 1, "false") || !strcmp(eq + 1, "0"))
			d->ival = 0;
		else
			return cmdline_error(p, "sonde: program option '--%s' is true or false (1 or 0), not '%s'", name, eq + 1);
		return 0;
	}
	if (!eq)
		return cmdline_error(p, "sonde: program option '--%s' needs a value: --%s=%s", name, name,
				     d->kind == OPT_INT ? "N" : "TEXT");
	if (d->kind == OPT_STR) {
		d->sval = eq + 1;
		return 0;
	}
	char *end;

	errno = 0;
	long long v = strtoll(eq + 1, &end, 0);

	if (*end && end == eq + 1 && ck_errno_value(eq + 1) > 0) {	/* an errno name is its number: ENOENT, 2 */
		v = ck_errno_value(eq + 1);
		end += strlen(end);
	}
	if (!eq[1] || *end || errno)
		return cmdline_error(p, "sonde: program option '--%s' takes an integer, not '%s'%s", name, eq + 1,
				     errno == ERANGE ? " (out of range)" : "");
	d->ival = v;
	return 0;
}

int getopt__prepare(struct program *p, FILE *helpf, bool *helped)
{
	*helped = false;
	for (struct probe *pr = p->probes; pr; pr = pr->next)
		if (walk(p, pr->pred) || walk(p, pr->body))
			return -EINVAL;
	for (int i = 0; i < p->nnamed; i++)
		if (!strcmp(p->named[i], "help")) {
			help(p, helpf);
			*helped = true;
			return 0;
		}
	for (int i = 0; i < p->nnamed; i++)
		if (take(p, p->named[i]))
			return -EINVAL;
	return 0;
}

struct type getopt__check(struct ck *c, struct node *n)
{
	struct optdecl own, *d;

	if (declare(c->prog, n, &own))
		return ty_kind(TY_NONE, 0);
	d = find(c->prog, own.name);	/* declared and given values (getopt__prepare), else the default */
	if (!d)
		d = &own;
	n->args = NULL;
	if (d->kind == OPT_STR) {
		n->kind = N_STR;
		n->s = d->sval;
		n->slen = strlen(d->sval);
		return ck_expr(c, n);
	}
	n->kind = N_INT;
	n->i = d->ival;
	n->ty = ty_int(d->kind == OPT_INT, 64);
	n->ty.boolean = d->kind == OPT_FLAG;	/* upstream's getopt("flag") is a bool (bool.c) */
	return n->ty;
}
