// SPDX-License-Identifier: GPL-2.0
/*
 * proto.c - prototypes and ltrace's text of values.
 *
 * The table gives the C library's common functions their types, written for
 * sonde from the C declarations; a pointer is shown as a string where the
 * function reads or returns text (getenv, strchr), as an address where it
 * returns memory (malloc, strcpy's destination), the way ltrace shows them,
 * so that the two print the same line. The syscalls are those -S shows.
 */
#include "lib/ltrace/conf.h"
#include "lib/ltrace/proto.h"
#include "lib/symbol/debugfile.h"
#include "lib/symbol/elfsym.h"

#include <ctype.h>
#include <signal.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct proto_row {
	const char *name, *sig;
};

/* sorted by name (bsearch) */
static const struct proto_row table[] = {
	{ "SYS_access", "i(so)" }, { "SYS_brk", "p(p)" }, { "SYS_chdir", "i(s)" }, { "SYS_chmod", "i(so)" },
	{ "SYS_close", "i(i)" }, { "SYS_dup", "i(i)" }, { "SYS_dup2", "i(ii)" }, { "SYS_execve", "i(spp)" },
	{ "SYS_exit", "v(i)" }, { "SYS_exit_group", "v(i)" }, { "SYS_fstat", "i(ip)" },
	{ "SYS_getpid", "i()" }, { "SYS_kill", "i(ig)" }, { "SYS_lseek", "l(ili)" }, { "SYS_lstat", "i(sp)" },
	{ "SYS_mkdir", "i(so)" }, { "SYS_mprotect", "i(pii)" }, { "SYS_munmap", "i(pL)" },
	{ "SYS_open", "i(sio)" }, { "SYS_read", "l(ipL)" }, { "SYS_rename", "i(ss)" }, { "SYS_rmdir", "i(s)" },
	{ "SYS_stat", "i(sp)" }, { "SYS_umask", "o(o)" }, { "SYS_unlink", "i(s)" }, { "SYS_write", "l(ib3L)" },
	{ "__dcgettext", "s(ssi)" }, { "_exit", "v(i)" }, { "abort", "v()" }, { "abs", "i(i)" },
	{ "access", "i(si)" }, { "alarm", "u(u)" }, { "atexit", "i(p)" }, { "atof", "?(s)" },
	{ "atoi", "i(s)" }, { "atol", "l(s)" }, { "basename", "s(s)" }, { "bindtextdomain", "s(ss)" },
	{ "bzero", "v(pL)" }, { "calloc", "p(LL)" }, { "chdir", "i(s)" }, { "chmod", "i(so)" },
	{ "close", "i(i)" }, { "closedir", "i(p)" }, { "dcgettext", "s(ssi)" }, { "dlclose", "i(p)" },
	{ "dlerror", "s()" }, { "dlopen", "p(si)" }, { "dlsym", "p(ps)" }, { "dup2", "i(ii)" },
	{ "exit", "v(i)" }, { "fclose", "i(p)" }, { "feof", "i(p)" }, { "ferror", "i(p)" },
	{ "fflush", "i(p)" }, { "fgetc", "c(p)" }, { "fgets", "p(pip)" }, { "fileno", "i(p)" },
	{ "fopen", "p(ss)" }, { "fopen64", "p(ss)" }, { "fork", "i()" }, { "fprintf", "i(pf)" },
	{ "fputc", "i(cp)" }, { "fputs", "i(sp)" }, { "fread", "L(pLLp)" }, { "free", "v(p)" },
	{ "fwrite", "L(pLLp)" }, { "getcwd", "s(pL)" }, { "getenv", "s(s)" }, { "geteuid", "i()" },
	{ "getgid", "i()" }, { "getpid", "i()" }, { "getppid", "i()" }, { "getuid", "i()" },
	{ "isatty", "i(i)" }, { "kill", "i(ig)" }, { "labs", "l(l)" }, { "lseek", "l(ili)" },
	{ "malloc", "p(L)" }, { "memchr", "p(pcL)" }, { "memcmp", "i(ppL)" }, { "memcpy", "p(pb3L)" },
	{ "memmove", "p(pb3L)" }, { "memset", "p(pcl)" }, { "mkdir", "i(so)" }, { "open", "i(sio)" },
	{ "open64", "i(sio)" }, { "opendir", "p(s)" }, { "perror", "v(s)" }, { "printf", "i(f)" },
	{ "putchar", "i(c)" }, { "puts", "i(s)" }, { "qsort", "v(pLLp)" }, { "raise", "i(g)" },
	{ "random", "i()" }, { "read", "l(ipL)" }, { "readdir", "p(p)" }, { "realloc", "p(pL)" },
	{ "remove", "i(s)" }, { "rename", "i(ss)" }, { "rmdir", "i(s)" }, { "setenv", "i(ssi)" },
	{ "setlocale", "s(ks)" }, { "setvbuf", "i(ppiL)" }, { "signal", "p(gp)" }, { "sleep", "u(u)" },
	{ "snprintf", "i(pLf)" }, { "sprintf", "i(pf)" }, { "srandom", "v(u)" }, { "stpcpy", "p(ps)" },
	{ "strcasecmp", "i(ss)" }, { "strcat", "s(ss)" }, { "strchr", "s(sc)" }, { "strcmp", "i(ss)" },
	{ "strcoll", "i(ss)" }, { "strcpy", "p(ps)" }, { "strcspn", "L(ss)" }, { "strdup", "p(s)" },
	{ "strerror", "s(i)" }, { "strlen", "L(s)" }, { "strncmp", "i(ssL)" }, { "strndup", "p(sL)" },
	{ "strrchr", "s(sc)" }, { "strspn", "L(ss)" }, { "strstr", "s(ss)" }, { "strtok", "s(ss)" },
	{ "strtol", "l(spi)" }, { "strtoul", "L(spi)" }, { "system", "i(s)" }, { "textdomain", "s(s)" },
	{ "time", "l(p)" }, { "tolower", "c(c)" }, { "toupper", "c(c)" }, { "umask", "o(o)" },
	{ "unlink", "i(s)" }, { "unsetenv", "v(s)" }, { "usleep", "v(u)" }, { "waitpid", "i(ipi)" },
	{ "write", "l(ib3L)" },
};

static int row_cmp(const void *k, const void *r)
{
	return strcmp(k, ((const struct proto_row *)r)->name);
}

const char *lt_proto__lookup(const char *name)
{
	const char *conf = lt_conf__lookup(name);
	const struct proto_row *r = bsearch(name, table, sizeof(table) / sizeof(table[0]), sizeof(table[0]), row_cmp);

	if (conf)
		return conf;
	return r ? r->sig : NULL;
}

int lt_proto__parse(const char *sig, struct lt_proto *p)
{
	static const char letters[] = "vilLcsbpoxf?ukg";
	const char *s = sig;

	memset(p, 0, sizeof(*p));
	if (!*s || !strchr(letters, *s) || *s == 'b' || *s == 'f' || s[1] != '(')
		return -EINVAL;
	p->ret = *s;
	for (s += 2; *s && *s != ')'; s++) {
		if (p->nargs == LT_MAX_ARGS || !strchr(letters, *s) || *s == 'v')
			return -EINVAL;
		if (*s == 'b') {
			if (s[1] < '1' || s[1] > '6')
				return -EINVAL;
			p->lenarg[p->nargs] = s[1] - '1';
			s++;
			p->arg[p->nargs++] = 'b';
			continue;
		}
		p->arg[p->nargs++] = *s;
		if (*s == 'f' && s[1] != ')')	/* the varargs come last */
			return -EINVAL;
	}
	return *s == ')' && !s[1] ? 0 : -EINVAL;
}

void lt_proto__default(struct lt_proto *p)
{
	memset(p, 0, sizeof(*p));
	p->ret = '?';
	p->nargs = 4;
	memset(p->arg, '?', 4);
	p->guess = true;
}

char lt_proto__ctype(const char *t)
{
	static const struct { const char *c; char l; } types[] = {
		{ "char*", 's' }, { "const char*", 's' }, { "int", 'i' }, { "unsigned int", 'u' },
		{ "long", 'l' }, { "long int", 'l' }, { "long long", 'l' }, { "ssize_t", 'l' },
		{ "unsigned long", 'L' }, { "long unsigned int", 'L' }, { "size_t", 'L' }, { "char", 'c' },
		{ "short", 'i' }, { "unsigned short", 'u' }, { "_Bool", 'u' }, { "bool", 'u' },
		{ "pid_t", 'i' }, { "uid_t", 'u' }, { "off_t", 'l' }, { "uint64_t", 'L' }, { "int64_t", 'l' },
		{ "uint32_t", 'u' }, { "int32_t", 'i' }, { "void", 'v' },
	};
	size_t n = strlen(t);

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(t, types[i].c))
			return types[i].l;
	return n && t[n - 1] == '*' ? 'p' : '?';
}

static void put_char(struct sbuf *o, int c)
{
	static const char esc[] = "\a\b\t\n\v\f\r\\";
	static const char *const name[] = { "\\a", "\\b", "\\t", "\\n", "\\v", "\\f", "\\r", "\\\\" };
	const char *e;

	if (c == -1)
		sbuf__printf(o, "EOF");
	else if (c == 0)
		sbuf__printf(o, "\\0");
	else if ((e = strchr(esc, c)))
		sbuf__printf(o, "%s", name[e - esc]);
	else if (isprint(c))
		sbuf__printf(o, "%c", c);
	else
		sbuf__printf(o, "\\%03o", c & 0xff);
}

static void put_string(struct sbuf *o, const struct lt_val *v, int strmax, bool counted)
{
	int n = counted ? v->len : v->len - 1;	/* characters (a string's read ends with its NUL) */
	bool more = v->truncated;

	if (!counted) {
		int l = strnlen(v->str, n > 0 ? n : 0);

		n = l;
	}
	if (n > strmax) {
		n = strmax;
		more = true;
	}
	sbuf__printf(o, "\"");
	for (int i = 0; i < n; i++)
		put_char(o, (unsigned char)v->str[i]);
	sbuf__printf(o, "\"%s", more ? "..." : "");
}

static const char *const lc_names[] = {
	"CTYPE", "NUMERIC", "TIME", "COLLATE", "MONETARY", "MESSAGES", "ALL", "PAPER", "NAME", "ADDRESS",
	"TELEPHONE", "MEASUREMENT", "IDENTIFICATION",
};

/* ltrace's guess for a value it knows nothing of: small numbers in decimal, the rest in hex */
static void put_guess(struct sbuf *o, uint64_t v)
{
	int64_t l = (int64_t)v;

	if (l >= -10000 && l <= 10000)
		sbuf__printf(o, "%lld", (long long)l);
	else
		sbuf__printf(o, "%#llx", (unsigned long long)v);
}

void lt_format__value(struct sbuf *o, char t, const struct lt_val *v, int strmax)
{
	switch (t) {
	case 'v':
		sbuf__printf(o, "<void>");
		break;
	case 'i':
		sbuf__printf(o, "%d", (int)(int32_t)v->v);
		break;
	case 'u':
		sbuf__printf(o, "%u", (unsigned)v->v);
		break;
	case 'l':
		sbuf__printf(o, "%lld", (long long)v->v);
		break;
	case 'L':
		sbuf__printf(o, "%llu", (unsigned long long)v->v);
		break;
	case 'x':
		sbuf__printf(o, "%#x", (unsigned)v->v);
		break;
	case 'o':
		sbuf__printf(o, "0%o", (unsigned)v->v);
		break;
	case 'c':
		sbuf__printf(o, "'");
		put_char(o, (int32_t)v->v == -1 ? -1 : (int)(v->v & 0xff));
		sbuf__printf(o, "'");
		break;
	case 's':
	case 'f':
	case 'b':
		if (!v->v)
			sbuf__printf(o, "nil");
		else if (v->str && v->len > 0)
			put_string(o, v, strmax, t == 'b');
		else if (t == 'b' && v->len == 0 && v->str)
			sbuf__printf(o, "\"\"");
		else
			sbuf__printf(o, "%#llx", (unsigned long long)v->v);
		break;
	case 'p':
		sbuf__printf(o, "%#llx", (unsigned long long)v->v);
		break;
	case 'k':	/* a locale category, by glibc's numbers */
		if ((int)v->v >= 0 && (int)v->v < (int)(sizeof(lc_names) / sizeof(lc_names[0])))
			sbuf__printf(o, "LC_%s", lc_names[(int)v->v]);
		else
			sbuf__printf(o, "%d", (int)v->v);
		break;
	case 'g':	/* a signal number */
		if ((int)v->v > 0 && (int)v->v < 32 && sigabbrev_np((int)v->v))
			sbuf__printf(o, "SIG%s", sigabbrev_np((int)v->v));
		else
			sbuf__printf(o, "%d", (int)v->v);
		break;
	default:
		put_guess(o, v->v);
	}
}

/* the signature letter of a printf conversion at f (after the '%'); *skip the characters it spans */
static char conversion(const char *f, int *skip)
{
	int i = 0, longs = 0;

	while (f[i] && strchr("#0- +'123456789.*", f[i]))
		i++;
	while (f[i] && strchr("hlLqjzt", f[i]))
		longs += f[i] == 'l' || f[i] == 'L' || f[i] == 'q' || f[i] == 'j' || f[i] == 'z', i++;
	*skip = i + (f[i] != 0);
	switch (f[i]) {
	case 'd': case 'i': return longs ? 'l' : 'i';
	case 'u': return longs ? 'L' : 'u';
	case 'x': case 'X': return longs ? 'p' : 'x';
	case 'o': return 'o';
	case 'c': return 'c';
	case 's': return 's';
	case 'p': return 'p';
	case '%': return '%';
	case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A': return 'F';
	default: return 0;
	}
}

void lt_format__args(struct sbuf *o, const struct lt_proto *p, const struct lt_val *args, int strmax)
{
	int i;

	for (i = 0; i < p->nargs && i < LT_MAX_ARGS; i++) {
		struct lt_val v = args[i];

		if (i)
			sbuf__printf(o, ", ");
		if (p->arg[i] == 'f')
			break;
		if (p->arg[i] == 'b' && v.len > 0) {	/* at most as many bytes as the length says */
			uint64_t want = args[p->lenarg[i]].v;

			if (want < (uint64_t)v.len)
				v.len = want;
			v.truncated = v.truncated || want > (uint64_t)v.len;
		}
		lt_format__value(o, p->arg[i], &v, strmax);
	}
	if (i >= p->nargs || i >= LT_MAX_ARGS)
		return;
	/* a format, then the arguments its conversions take, in the registers that are left */
	lt_format__value(o, 's', &args[i], strmax);
	if (!args[i].str || args[i].len <= 0)
		return;
	int next = i + 1;

	for (const char *f = args[i].str; *f && f < args[i].str + args[i].len; f++) {
		int skip;
		char t;

		if (*f != '%')
			continue;
		t = conversion(f + 1, &skip);
		f += skip;
		if (t == '%' || !t)
			continue;
		if (t == 'F') {		/* in a vector register: not captured */
			sbuf__printf(o, ", <float>");
			continue;
		}
		if (next >= LT_MAX_ARGS)
			break;
		sbuf__printf(o, ", ");
		lt_format__value(o, t, &args[next++], strmax);
	}
}

/*
 * Prototypes from DWARF. One walk over the compile units' top-level
 * subprograms serves every name asked for: a large library's DWARF (the C
 * library's debug file is compressed) is read once, not once per function.
 */
/* the type a DIE's DW_AT_type names, through typedefs and qualifiers; false for void */
static bool type_of(Dwarf_Die *d, Dwarf_Die *t)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(d, DW_AT_type, &a) || !dwarf_formref_die(&a, t))
		return false;
	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(t);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
			return true;
		if (!dwarf_attr_integrate(t, DW_AT_type, &a) || !dwarf_formref_die(&a, t))
			return false;	/* const void */
	}
	return true;
}

/* the letter of the type of DIE d (a parameter, or a function for its return value) */
static char letter(Dwarf_Die *d)
{
	Dwarf_Die t, p;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	int size;

	if (!type_of(d, &t))
		return 'v';
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type:
		if (type_of(&t, &p) && dwarf_tag(&p) == DW_TAG_base_type && dwarf_bytesize(&p) == 1 &&
		    dwarf_attr_integrate(&p, DW_AT_encoding, &a) && !dwarf_formudata(&a, &enc) &&
		    (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char))
			return 's';
		return 'p';
	case DW_TAG_enumeration_type:
		return 'i';
	case DW_TAG_base_type:
		break;
	default:
		return '?';	/* a struct by value, an array... */
	}
	size = dwarf_bytesize(&t);
	if (dwarf_attr_integrate(&t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	switch (enc) {
	case DW_ATE_signed_char:
	case DW_ATE_unsigned_char:
		return size == 1 ? 'c' : 'i';
	case DW_ATE_boolean:
		return 'u';
	case DW_ATE_signed:
		return size == 8 ? 'l' : 'i';
	case DW_ATE_unsigned:
		return size == 8 ? 'L' : 'u';
	default:
		return '?';	/* floating point: in vector registers, not captured */
	}
}

static void proto_of(Dwarf_Die *f, struct lt_proto *p)
{
	Dwarf_Die c;

	memset(p, 0, sizeof(*p));
	p->ret = letter(f);
	if (dwarf_child(f, &c) != 0)
		return;
	do {
		if (dwarf_tag(&c) == DW_TAG_formal_parameter && p->nargs < LT_MAX_ARGS) {
			char l = letter(&c);

			p->arg[p->nargs++] = l == 'v' ? '?' : l;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static int walk(Dwarf *dw, const char *const *names, int n, struct lt_proto *protos, bool *found)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int nfound = 0;

	while (nfound < n && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0)
			do {
				Dwarf_Attribute a;
				bool decl = false;
				const char *nm;

				if (dwarf_tag(&c) != DW_TAG_subprogram || !(nm = dwarf_diename(&c)))
					continue;
				if (dwarf_attr(&c, DW_AT_declaration, &a))
					dwarf_formflag(&a, &decl);
				if (decl)
					continue;
				for (int i = 0; i < n; i++)
					if (!found[i] && !strcmp(nm, names[i])) {
						proto_of(&c, &protos[i]);
						found[i] = true;
						nfound++;
					}
			} while (dwarf_siblingof(&c, &c) == 0);
		off = next;
	}
	return nfound;
}

static int from_file(const char *path, const char *const *names, int n, struct lt_proto *protos, bool *found)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;

	if (!dw) {
		if (fd >= 0)
			close(fd);
		return -ENODATA;
	}
	rc = walk(dw, names, n, protos, found);
	dwarf_end(dw);
	close(fd);
	return rc;
}

int lt_dwarf__protos(const char *path, const char *const *names, int n, struct lt_proto *protos, bool *found)
{
	char dbg[PATH_MAX];
	int rc = from_file(path, names, n, protos, found), fd;
	Elf *e;

	if (rc > 0)
		return rc;
	/* no DWARF of its own (or none of these functions): its separate debug file */
	if (elfsym__open(path, &fd, &e))
		return rc;
	if (!debugfile__find(e, path, dbg, sizeof(dbg)))
		rc = from_file(dbg, names, n, protos, found);
	elfsym__close(fd, e);
	return rc;
}
