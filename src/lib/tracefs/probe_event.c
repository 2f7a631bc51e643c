// SPDX-License-Identifier: GPL-2.0
/*
 * probe_event.c - dynamic trace events (kprobe_events, uprobe_events): the
 * spec perf probe takes, the line the kernel takes, adding, deleting, listing.
 *
 * The kernel's interface (Documentation/trace/kprobetrace.rst, uprobetracer.rst):
 * "p[:GROUP/EVENT] SYMBOL[+OFF] ARGS" and "r[:GROUP/EVENT] SYMBOL ARGS" for
 * kprobes, "p:GROUP/EVENT PATH:0xOFFSET ARGS" (or r:) for uprobes, appended to
 * the file; "-:GROUP/EVENT" deletes one (EBUSY while it is enabled somewhere).
 * The new event appears as events/GROUP/EVENT like any tracepoint.
 */
#include "lib/tracefs/probe_event.h"
#include "lib/tracefs/tracefs.h"

#include <bpf/btf.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ERR(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); } while (0)

static bool is_ident(const char *s, size_t n)
{
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* the field name perf would give: NAME= given, else the last identifier of the expression */
static void arg_name(struct pev_arg *a, int pos)
{
	const char *e = a->expr, *last = NULL;
	size_t n = 0;

	if (!strcmp(e, "$retval")) {
		snprintf(a->name, sizeof(a->name), "retval");
		return;
	}
	if (!strncmp(e, "$arg", 4) && isdigit((unsigned char)e[4])) {
		snprintf(a->name, sizeof(a->name), "%s", e + 1);
		return;
	}
	for (const char *p = e; *p;) {
		size_t l = 0;

		while (isalnum((unsigned char)p[l]) || p[l] == '_')
			l++;
		if (l && is_ident(p, l))
			last = p, n = l;
		p += l ? l : 1;
	}
	if (last && (isalpha((unsigned char)e[0]) || e[0] == '_'))
		snprintf(a->name, sizeof(a->name), "%.*s", (int)n, last);
	else
		snprintf(a->name, sizeof(a->name), "arg%d", pos);
}

int pev__parse(const char *spec, const char *binary, struct pev *pe, char *err, size_t errlen)
{
	char *copy = strdup(spec), *save, *w, *eq, *plus, *pct;
	int rc = -EINVAL;

	memset(pe, 0, sizeof(*pe));
	if (!copy)
		return -ENOMEM;
	snprintf(pe->group, sizeof(pe->group), "%s", PEV_GROUP);
	if (binary)
		snprintf(pe->binary, sizeof(pe->binary), "%s", binary);
	w = strtok_r(copy, " \t", &save);
	if (!w) {
		ERR("an empty probe: give FUNC [ARG...]");
		goto out;
	}
	/* [[GROUP:]EVENT=]FUNC */
	if ((eq = strchr(w, '='))) {
		char *colon = memchr(w, ':', eq - w), *ev = colon ? colon + 1 : w;

		*eq = 0;
		if (colon) {
			*colon = 0;
			if (!is_ident(w, strlen(w))) {
				ERR("bad group '%s' in '%s': letters, digits and _", w, spec);
				goto out;
			}
			snprintf(pe->group, sizeof(pe->group), "%s", w);
		}
		if (!is_ident(ev, strlen(ev)) || strlen(ev) >= sizeof(pe->event)) {
			ERR("bad event name '%s' in '%s': letters, digits and _", ev, spec);
			goto out;
		}
		snprintf(pe->event, sizeof(pe->event), "%s", ev);
		w = eq + 1;
	}
	pe->line = -1;
	if ((pct = strchr(w, ':'))) {	/* FUNC:N, a line as --line numbers it */
		char *end;

		*pct = 0;
		pe->line = (int)strtol(pct + 1, &end, 10);
		if (*end || end == pct + 1 || pe->line < 0 || !binary) {
			ERR(binary ? "bad line '%s' in '%s': FUNC:N, N as --line numbers it" :
			    "'%s' in '%s': kernel lines need the kernel's DWARF, which BTF does not carry", pct + 1, spec);
			goto out;
		}
	}
	if ((pct = strchr(w, '%'))) {
		if (strcmp(pct, "%return")) {
			ERR("bad probe point '%s': FUNC, FUNC+OFFSET or FUNC%%return", w);
			goto out;
		}
		*pct = 0;
		pe->ret = true;
	}
	if ((plus = strchr(w, '+'))) {
		char *end;

		*plus = 0;
		errno = 0;
		pe->off = strtoull(plus + 1, &end, 0);
		if (errno || *end || end == plus + 1) {
			ERR("bad offset '%s' in '%s'", plus + 1, spec);
			goto out;
		}
		if ((pe->ret || pe->line >= 0) && pe->off) {
			ERR("'%s': %%return takes no offset (a return probe is on the function's entry)", spec);
			goto out;
		}
	}
	if (!*w || strlen(w) >= sizeof(pe->func) || strpbrk(w, "@:/ ")) {
		ERR("bad function '%s' in '%s' (FUNC@SRC and SRC:LINE are not supported)", w, spec);
		goto out;
	}
	snprintf(pe->func, sizeof(pe->func), "%s", w);
	while ((w = strtok_r(NULL, " \t", &save))) {
		struct pev_arg *a = &pe->args[pe->nargs];
		char *colon, *ex = w;

		if (pe->nargs == PEV_MAX_ARGS) {
			ERR("too many arguments in '%s': at most %d", spec, PEV_MAX_ARGS);
			goto out;
		}
		memset(a, 0, sizeof(*a));
		/* NAME=EXPR; "+8(%si)" and "p->x" hold no '=' of their own */
		if ((eq = strchr(w, '=')) && is_ident(w, eq - w)) {
			snprintf(a->name, sizeof(a->name), "%.*s", (int)(eq - w), w);
			ex = eq + 1;
		}
		/* EXPR:TYPE: the last ':' (never part of an expression) */
		if ((colon = strrchr(ex, ':'))) {
			*colon = 0;
			if (!colon[1] || strlen(colon + 1) >= sizeof(a->type)) {
				ERR("bad type in argument '%s'", w);
				goto out;
			}
			snprintf(a->type, sizeof(a->type), "%s", colon + 1);
		}
		if (!*ex || strlen(ex) >= sizeof(a->expr)) {
			ERR("bad argument '%s' in '%s'", w, spec);
			goto out;
		}
		snprintf(a->expr, sizeof(a->expr), "%s", ex);
		if (!a->name[0])
			arg_name(a, pe->nargs + 1);
		if (!strcmp(a->expr, "$retval") && !pe->ret) {
			ERR("'$retval' needs a return probe: %s%%return", pe->func);
			goto out;
		}
		for (int i = 0; i < pe->nargs; i++)	/* two fields of one name: the second gets _N */
			if (!strcmp(pe->args[i].name, a->name)) {
				size_t l = strlen(a->name);

				snprintf(a->name + (l > 56 ? 56 : l), sizeof(a->name) - (l > 56 ? 56 : l), "_%d", pe->nargs);
			}
		pe->nargs++;
	}
	rc = 0;
out:
	free(copy);
	return rc;
}

int pev__resolve(struct pev *pe, char *err, size_t errlen)
{
	int rc;

	if (pe->binary[0]) {
		unsigned long long vaddr, foff;

		rc = pev__elf_func(pe->binary, pe->func, &vaddr, &foff);
		if (rc) {
			ERR("cannot probe '%s' in %s: %s", pe->func, pe->binary,
			    rc == -ENOENT ? "no such function in its symbol tables" :
			    rc == -ENOEXEC ? "not an ELF executable or library" : strerror(-rc));
			return rc;
		}
		pe->foff = foff + pe->off;
		if (pe->line >= 0) {
			unsigned long long a;

			if ((rc = pev__line_addr(pe->binary, pe->func, pe->line, &a))) {
				ERR("no code at line %d of %s (sonde probe -x %s --line %s shows where a probe can go)",
				    pe->line, pe->func, pe->binary, pe->func);
				return rc;
			}
			pe->foff = foff + (a - vaddr);
		}
	}
	for (int i = 0; i < pe->nargs && pe->line >= 0; i++)
		if (strchr("%+-@", pe->args[i].expr[0]) == NULL) {
			ERR("argument '%s': at a line, give registers or memory (%%di, +8(%%si)); names are read at the "
			    "function's entry only", pe->args[i].expr);
			return -EINVAL;
		}
	for (int i = 0; i < pe->nargs; i++)
		if ((rc = pev__fetch(pe, &pe->args[i], err, errlen)))
			return rc;
	return 0;
}

int pev__line(const struct pev *pe, char *buf, size_t len)
{
	size_t n;

	if (pe->binary[0])
		n = snprintf(buf, len, "%c:%s/%s %s:0x%llx", pe->ret ? 'r' : 'p', pe->group, pe->event, pe->binary,
			     pe->foff);
	else if (pe->off)
		n = snprintf(buf, len, "p:%s/%s %s+%llu", pe->group, pe->event, pe->func, pe->off);
	else
		n = snprintf(buf, len, "%c:%s/%s %s", pe->ret ? 'r' : 'p', pe->group, pe->event, pe->func);
	for (int i = 0; i < pe->nargs && n < len; i++)
		n += snprintf(buf + n, len - n, " %s=%s", pe->args[i].name, pe->args[i].fetch);
	return n < len ? 0 : -ENAMETOOLONG;
}

static bool event_exists(const char *group, const char *event)
{
	const char *root = tracefs__dir();
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events/%s/%s", root ? root : "", group, event);
	return !stat(path, &st);
}

/* append line to ROOT/file; 0 or -errno */
static int append(const char *file, const char *line)
{
	const char *root = tracefs__dir();
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (!root)
		return -ENODEV;
	snprintf(path, sizeof(path), "%s/%s", root, file);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, line, strlen(line));
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	return 0;
}

int pev__add(struct pev *pe, char *err, size_t errlen)
{
	const char *file = pe->binary[0] ? "uprobe_events" : "kprobe_events";
	char line[PEV_MAX_ARGS * 400 + PATH_MAX], base[64];
	int rc;

	if (!tracefs__dir()) {
		ERR("tracefs is not mounted and could not be mounted at /sys/kernel/tracing");
		return -ENODEV;
	}
	if (!pe->event[0]) {	/* FUNC, FUNC__return; then _1, _2... as perf names them */
		size_t j = 0;

		for (const char *c = pe->func; *c && j < 40; c++)
			base[j++] = isalnum((unsigned char)*c) ? *c : '_';
		base[j] = 0;
		if (pe->ret)
			snprintf(base + j, sizeof(base) - j, "__return");
		else if (pe->line >= 0)
			snprintf(base + j, sizeof(base) - j, "_L%d", pe->line);
		snprintf(pe->event, sizeof(pe->event), "%s", base);
		for (int i = 1; event_exists(pe->group, pe->event) && i < 100; i++)
			snprintf(pe->event, sizeof(pe->event), "%s_%d", base, i);
	}
	if (event_exists(pe->group, pe->event)) {
		ERR("event %s:%s exists already (sonde probe --del %s:%s removes it)", pe->group, pe->event, pe->group,
		    pe->event);
		return -EEXIST;
	}
	if ((rc = pev__line(pe, line, sizeof(line)))) {
		ERR("probe '%s': the definition is too long", pe->func);
		return rc;
	}
	rc = append(file, line);
	if (rc == -ENOENT)
		ERR("cannot add %s:%s: this kernel has no %s (CONFIG_%s_EVENTS is off)", pe->group, pe->event, file,
		    pe->binary[0] ? "UPROBE" : "KPROBE");
	else if (rc)
		ERR("cannot add %s:%s: the kernel refused '%s' in %s: %s%s", pe->group, pe->event, line, file,
		    strerror(-rc), rc == -EACCES || rc == -EPERM ? " (tracing needs root)" :
		    rc == -EILSEQ ? " (the offset is not at an instruction's start)" :
		    rc == -ENOENT || rc == -EINVAL ? " (its error_log says why)" : "");
	return rc;
}

/* "p:GROUP/EVENT LOC ARGS" -> group, event, the rest; false for what is not a definition */
static bool split_def(char *line, char **group, char **event, char **rest)
{
	char *c = strchr(line, ':'), *slash, *sp;

	if (!c || !(slash = strchr(c, '/')) || !(sp = strchr(slash, ' ')))
		return false;
	*slash = 0;
	*sp = 0;
	*group = c + 1;
	*event = slash + 1;
	*rest = sp + 1;
	return true;
}

static FILE *open_defs(const char *file)
{
	const char *root = tracefs__dir();
	char path[PATH_MAX];

	if (!root)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", root, file);
	return fopen(path, "re");
}

int pev__del(const char *pattern, void (*cb)(const char *ev, void *arg), void *arg, char *err, size_t errlen)
{
	static const char *const files[] = { "kprobe_events", "uprobe_events" };
	const char *colon = strchr(pattern, ':');
	char gpat[128], epat[128], line[PATH_MAX + 4096];
	int n = 0, rc = 0;

	/* a bare EVENT is sonde's group's: other groups (a running sonde's sonde_PID) only when named */
	snprintf(gpat, sizeof(gpat), "%.*s", colon ? (int)(colon - pattern) : (int)strlen(PEV_GROUP),
		 colon ? pattern : PEV_GROUP);
	snprintf(epat, sizeof(epat), "%s", colon ? colon + 1 : pattern);
	for (int f = 0; f < 2 && !rc; f++) {
		char **del = NULL;
		int nd = 0;
		FILE *in = open_defs(files[f]);

		while (in && fgets(line, sizeof(line), in)) {
			char *g, *e, *rest, **nv;

			if (!split_def(line, &g, &e, &rest) || fnmatch(gpat, g, 0) || fnmatch(epat, e, 0))
				continue;
			nv = realloc(del, (nd + 1) * sizeof(*nv));
			if (!nv || asprintf(&nv[nd], "%s:%s", g, e) < 0)
				break;
			del = nv;
			nd++;
		}
		if (in)
			fclose(in);
		for (int i = 0; i < nd; i++) {
			char cmd[300];

			if (!rc) {
				snprintf(cmd, sizeof(cmd), "-:%s", del[i]);
				*strchr(cmd + 2, ':') = '/';
				rc = append(files[f], cmd);
				if (rc)
					ERR("cannot delete %s: %s%s", del[i], strerror(-rc),
					    rc == -EBUSY ? " (it is enabled: a tracer or perf uses it)" : "");
				else if (n++, cb)
					cb(del[i], arg);
			}
			free(del[i]);
		}
		free(del);
	}
	if (rc)
		return rc;
	if (!n)
		ERR("no probe event matches '%s' (sonde probe --list shows them)", pattern);
	return n ? n : -ENOENT;
}

/* FUNC[+OFF] in PATH, of a uprobe's "PATH:0xOFF" */
static void uprobe_where(const char *loc, bool ret, char *out, size_t len)
{
	const char *c = strrchr(loc, ':');
	char path[PATH_MAX], sym[256];
	unsigned long long off, delta;

	snprintf(out, len, "%s", loc);
	if (!c || sscanf(c + 1, "0x%llx", &off) != 1)
		return;
	snprintf(path, sizeof(path), "%.*s", (int)(c - loc), loc);
	if (pev__elf_sym_at(path, off, sym, sizeof(sym), &delta))
		return;
	if (delta)
		snprintf(out, len, "%s+%llu in %s", sym, delta, path);
	else
		snprintf(out, len, "%s%s in %s", sym, ret ? "%return" : "", path);
}

int pev__list(void (*cb)(const char *line, void *arg), void *arg)
{
	static const char *const files[] = { "kprobe_events", "uprobe_events" };
	char line[PATH_MAX + 4096], where[PATH_MAX + 300], out[PATH_MAX + 4800], name[200];
	int n = 0;

	if (!tracefs__dir())
		return -ENODEV;
	for (int f = 0; f < 2; f++) {
		FILE *in = open_defs(files[f]);
		char *g, *e, *rest;

		while (in && fgets(line, sizeof(line), in)) {
			bool ret = line[0] == 'r';
			char *args, *nl = strchr(line, '\n');
			size_t o;

			if (nl)
				*nl = 0;
			if (!split_def(line, &g, &e, &rest))
				continue;
			args = strchr(rest, ' ');
			if (args)
				*args++ = 0;
			if (f)
				uprobe_where(rest, ret, where, sizeof(where));
			else
				snprintf(where, sizeof(where), "%s%s", rest, ret ? "%return" : "");
			snprintf(name, sizeof(name), "%s:%s", g, e);
			o = snprintf(out, sizeof(out), "  %-20s (on %s", name, where);
			/* " with NAME NAME": the fields' names */
			for (char *sv, *w = args ? strtok_r(args, " ", &sv) : NULL; w; w = strtok_r(NULL, " ", &sv)) {
				char *eq = strchr(w, '=');

				if (eq)
					*eq = 0;
				o += snprintf(out + o, o < sizeof(out) ? sizeof(out) - o : 0, "%s%s",
					      w == args ? " with " : " ", w);
			}
			if (o < sizeof(out) - 1)
				strcat(out, ")");
			cb(out, arg);
			n++;
		}
		if (in)
			fclose(in);
	}
	return n;
}
