// SPDX-License-Identifier: GPL-2.0
/*
 * conf.c - ltrace's prototype files (-F): each line "TYPE NAME(TYPE, ...);"
 * becomes a signature of proto.h's letters. Comments (';' or '#' to the end
 * of the line) and blank lines are skipped; ltrace's typedefs and lenses
 * beyond the plain types are not read (such a line is an error, as ltrace
 * reports it, and the file stops there).
 */
#include "lib/ltrace/conf.h"
#include "lib/ltrace/proto.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct conf_row {
	char *name;
	char sig[2 + 2 * LT_MAX_ARGS + 2];
};

static struct conf_row *rows;
static int nrows;

static const struct {
	const char *type;
	char letter;
} types[] = {
	{ "void", 'v' }, { "int", 'i' }, { "uint", 'u' }, { "long", 'l' }, { "ulong", 'L' }, { "char", 'c' },
	{ "string", 's' }, { "addr", 'p' }, { "file", 'p' }, { "octal", 'o' }, { "hex", 'x' },
	{ "format", 'f' }, { "bool", 'i' }, { "short", 'i' }, { "ushort", 'u' }, { "array", 'p' },
	{ "struct", 'p' }, { "enum", 'i' },
};

/* the letter of the type at *s (moving *s past it, with a "[...]" or "(...)" after it); 0 when unknown */
static char type_of(const char **s)
{
	const char *p = *s;
	size_t n = 0;

	while (isspace((unsigned char)*p))
		p++;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (strlen(types[i].type) != n || strncmp(types[i].type, p, n))
			continue;
		p += n;
		while (isspace((unsigned char)*p))
			p++;
		/* string[arg1], array(char, 4), struct(int, int): what is inside says nothing more here */
		if (*p == '[' || *p == '(') {
			char close = *p == '[' ? ']' : ')';
			int depth = 0;

			for (; *p; p++) {
				if (*p == '[' || *p == '(')
					depth++;
				else if ((*p == ']' || *p == ')') && --depth == 0 && *p == close)
					break;
			}
			if (!*p)
				return 0;
			p++;
		}
		while (isspace((unsigned char)*p) || *p == '*')
			p++;
		*s = p;
		return types[i].letter;
	}
	return 0;
}

int lt_conf__parse_line(const char *line, char *name, size_t namelen, char *sig, size_t siglen)
{
	const char *s = line;
	size_t n = 0, k = 0;
	char ret;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == ';' || *s == '#')
		return 1;
	if (siglen < 2 + 2 * LT_MAX_ARGS || !(ret = type_of(&s)) || ret == 'f')
		return -EINVAL;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	if (!n || n >= namelen)
		return -EINVAL;
	memcpy(name, s, n);
	name[n] = 0;
	s += n;
	while (isspace((unsigned char)*s))
		s++;
	if (*s++ != '(')
		return -EINVAL;
	sig[k++] = ret;
	sig[k++] = '(';
	while (isspace((unsigned char)*s))
		s++;
	if (!strncmp(s, "void", 4) && (s[4] == ')' || isspace((unsigned char)s[4])))
		s += 4;
	while (isspace((unsigned char)*s))
		s++;
	while (*s && *s != ')') {
		char a = type_of(&s);

		if (!a || a == 'v' || k >= 2 + LT_MAX_ARGS)
			return -EINVAL;
		sig[k++] = a;
		while (isspace((unsigned char)*s))
			s++;
		if (*s == ',')
			s++;
		else if (*s != ')')
			return -EINVAL;
	}
	if (*s != ')')
		return -EINVAL;
	sig[k++] = ')';
	sig[k] = 0;
	return 0;
}

int lt_conf__load(const char *path, int *line)
{
	FILE *f = fopen(path, "r");
	char buf[1024], name[128], sig[2 + 2 * LT_MAX_ARGS + 2];
	int rc = 0, nr = 0;

	*line = 0;
	if (!f)
		return -errno;
	while (!rc && fgets(buf, sizeof(buf), f)) {
		struct conf_row *n;
		struct lt_proto p;
		int r;

		nr++;
		if ((r = lt_conf__parse_line(buf, name, sizeof(name), sig, sizeof(sig))) == 1)
			continue;
		if (r || lt_proto__parse(sig, &p)) {
			*line = nr;
			rc = -EINVAL;
		} else if (!(n = realloc(rows, (nrows + 1) * sizeof(*n))) || !(n[nrows].name = strdup(name))) {
			if (n)
				rows = n;
			rc = -ENOMEM;
		} else {
			rows = n;
			memcpy(n[nrows++].sig, sig, sizeof(sig));
		}
	}
	fclose(f);
	return rc;
}

const char *lt_conf__lookup(const char *name)
{
	/* the last line for a name wins, as a later definition in ltrace's files */
	for (int i = nrows - 1; i >= 0; i--)
		if (!strcmp(rows[i].name, name))
			return rows[i].sig;
	return NULL;
}

void lt_conf__free(void)
{
	for (int i = 0; i < nrows; i++)
		free(rows[i].name);
	free(rows);
	rows = NULL;
	nrows = 0;
}
