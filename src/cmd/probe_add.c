// SPDX-License-Identifier: GPL-2.0
/*
 * probe_add.c - `sonde probe --add/--del/--list/--funcs/--vars`: perf probe's
 * dynamic events (lib/tracefs/probe_event.h), made once and then counted or
 * recorded by any tool as the tracepoint sonde_probes:NAME.
 *   sonde probe --add 'vfs_read count file->f_path.dentry->d_name.name:string'
 *   sonde probe -x ./prog --add 'take name:string p->x'   sonde probe --add 'libc:malloc bytes'
 */
#include "sonde.h"
#include "opt.h"
#include "cmd/probe.h"
#include "lang/provider.h"
#include "lib/tracefs/probe_event.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const pev_usage[] = {
	"sonde probe [-x BINARY] --add '[[GROUP:]EVENT=]FUNC[+OFF|%return] [NAME=]ARG[:TYPE]...'",
	"sonde probe --add 'LIBRARY:FUNC ARG...'",
	"sonde probe --del '[GROUP:]EVENT'    sonde probe --list",
	"sonde probe [-x BINARY] --funcs [PATTERN]    sonde probe [-x BINARY] --vars FUNC    sonde probe -x BINARY --line FUNC",
	NULL,
};

struct pev_opts {
	const char **add, **del;
	int nadd, ndel;
	const char *binary, *vars, *line;
	bool list, funcs, quiet, dry_run;
};

static int push(const char ***v, int *n, const char *arg)
{
	const char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	*v = nv;
	nv[(*n)++] = arg;
	return 0;
}

static int opt_add(const struct opt *opt, const char *arg)
{
	struct pev_opts *o = opt->value;

	return push(&o->add, &o->nadd, arg);
}

static int opt_del(const struct opt *opt, const char *arg)
{
	struct pev_opts *o = opt->value;

	return push(&o->del, &o->ndel, arg);
}

/* the options that make `sonde probe` perf probe's rather than bpftrace's */
bool probe_events__wanted(int argc, char **argv)
{
	static const char *const mine[] = { "-a", "--add", "-d", "--del", "-F", "--funcs", "-V", "--vars", "-L", "--line",
					    "-x", "--exec", NULL };

	if (argc == 2 && !strcmp(argv[1], "--list"))	/* --list alone: the dynamic events; -l PATTERN is bpftrace's */
		return true;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		for (int j = 0; mine[j]; j++) {
			size_t l = strlen(mine[j]);

			if (!strncmp(argv[i], mine[j], l) && (!argv[i][l] || argv[i][l] == '=' || mine[j][1] != '-'))
				return true;
		}
	return false;
}

static void say_line(const char *line, void *arg)
{
	const char *want = arg;

	if (!want) {
		printf("%s\n", line);
		return;
	}
	/* "  GROUP:EVENT  (on ...": the one just added */
	size_t l = strlen(want);

	if (!strncmp(line + 2, want, l) && line[2 + l] == ' ')
		printf("%s\n", line);
}

static void say_del(const char *ev, void *arg)
{
	if (!*(bool *)arg)
		printf("Removed event: %s\n", ev);
}

static void say_fn(const char *fn, void *arg)
{
	(void)arg;
	printf("%s\n", fn);
}

/* the path of BINARY (a path, a command in PATH, or a library's short name: libc) */
static int find_binary(const char *name, char *path, size_t len)
{
	if (provider__resolve_path(name, path, len)) {
		error("cannot find '%s': not a file, a command in PATH or a library's name", name);
		return -1;
	}
	return 0;
}

static int add_one(const struct pev_opts *o, const char *spec)
{
	char bin[4096] = "", err[600], *copy = strdup(spec), *func, *colon, *eq, *sp;
	const char *binary = NULL;
	struct pev pe;
	int rc = 1;

	if (!copy)
		return 1;
	/* LIBRARY:FUNC in the first word, after EVENT= when there is one */
	sp = copy + strcspn(copy, " \t");
	eq = memchr(copy, '=', sp - copy);
	func = eq ? eq + 1 : copy;
	colon = o->binary ? NULL : memchr(func, ':', sp - func);	/* with -x, FUNC:LINE */
	if (colon) {
		*colon = 0;
		if (find_binary(func, bin, sizeof(bin)))
			goto out;
		memmove(func, colon + 1, strlen(colon + 1) + 1);
		binary = bin;
	} else if (o->binary) {
		if (find_binary(o->binary, bin, sizeof(bin)))
			goto out;
		binary = bin;
	}
	if (pev__parse(copy, binary, &pe, err, sizeof(err)) || pev__resolve(&pe, err, sizeof(err))) {
		error("%s", err);
		goto out;
	}
	if (o->dry_run) {	/* what would be written to kprobe_events or uprobe_events */
		char line[PEV_MAX_ARGS * 400 + 4096];

		if (!pe.event[0])
			snprintf(pe.event, sizeof(pe.event), "%s%s", pe.func, pe.ret ? "__return" : "");
		if (!pev__line(&pe, line, sizeof(line)))
			printf("%s\n", line);
		rc = 0;
		goto out;
	}
	if (pev__add(&pe, err, sizeof(err))) {
		error("%s", err);
		goto out;
	}
	if (!o->quiet) {
		char name[160];

		snprintf(name, sizeof(name), "%s:%s", pe.group, pe.event);
		printf("Added new event:\n");
		pev__list(say_line, name);
		printf("\nYou can now use it in sonde's tools (and perf's), such as:\n\n\tsonde stat -e %s -- CMD\n\n", name);
	}
	rc = 0;
out:
	free(copy);
	return rc;
}

static int vars(const struct pev_opts *o)
{
	struct pev_var v[32];
	char bin[4096];
	int n;

	if (o->binary && find_binary(o->binary, bin, sizeof(bin)))
		return 1;
	n = pev__vars(o->binary ? bin : NULL, o->vars, v, 32);
	if (n < 0) {
		error("no variables for '%s': %s", o->vars,
		      n == -ENODATA ? (o->binary ? "the binary has no DWARF, nor a debug file" : "the kernel has no BTF") :
		      n == -ENOENT ? "no such function in the debug information" : strerror(-n));
		return 1;
	}
	printf("Available variables at %s\n\t@<%s+0>\n", o->vars, o->vars);
	for (int i = 0; i < n; i++)
		printf("\t\t%s\t%s\n", v[i].type, v[i].name);
	return 0;
}

int probe_events__cmd(int argc, char **argv)
{
	struct pev_opts o = { 0 };
	struct opt opts[] = {
		OPT_CALLBACK('a', "add", &o, "SPEC", "add a probe event: [[GROUP:]EVENT=]FUNC[+OFF|%return] [NAME=]ARG[:TYPE]...", opt_add),
		OPT_CALLBACK('d', "del", &o, "EVENT", "delete the probe events matching [GROUP:]EVENT (globs; GROUP " PEV_GROUP " when not given)", opt_del),
		OPT_BOOL('l', "list", &o.list, "list the kprobe and uprobe events defined now"),
		OPT_BOOL('F', "funcs", &o.funcs, "list the functions (matching the PATTERN argument) of -x or the kernel"),
		OPT_STRING('V', "vars", &o.vars, "FUNC", "the parameters of FUNC that arguments can name"),
		OPT_STRING('L', "line", &o.line, "FUNC", "the source lines of FUNC (of -x), numbered where a probe can go"),
		OPT_STRING('x', "exec", &o.binary, "BINARY", "a user binary or library: uprobe events on its functions"),
		OPT_BOOL('q', "quiet", &o.quiet, "say nothing on success"),
		OPT_BOOL('n', "dry-run", &o.dry_run, "print the definitions --add would write, add nothing"),
		OPT_VERBOSE(),
		OPT_GROUP("ARG: a parameter's name with ->MEMBER and .MEMBER (types from the kernel's BTF or the binary's\n"
			  "DWARF), $retval (with %return), $argN, or kprobetrace's own (%di, +8(%si)). TYPE: u8..u64, s8..s64,\n"
			  "x8..x64, string, ustring. Events stay until --del, in group " PEV_GROUP ", named FUNC."),
		OPT_END(),
	};
	int rc = 0, n;
	char err[600];

	argc = opt__parse(argc, argv, opts, pev_usage, 0);
	if (argc > (o.funcs ? 1 : 0))
		opt__usage_error(pev_usage, opts, "unexpected argument '%s'", argv[o.funcs ? 1 : 0]);
	if (!o.nadd && !o.ndel && !o.list && !o.funcs && !o.vars && !o.line)
		opt__usage_error(pev_usage, opts, "-x names a binary for --add, --funcs or --vars");
	for (int i = 0; i < o.ndel && !rc; i++) {
		n = pev__del(o.del[i], say_del, &o.quiet, err, sizeof(err));
		if (n < 0) {
			error("%s", err);
			rc = 1;
		}
	}
	for (int i = 0; i < o.nadd && !rc; i++)
		rc = add_one(&o, o.add[i]);
	if (!rc && o.list) {
		n = pev__list(say_line, NULL);
		if (n < 0) {
			error("cannot read kprobe_events and uprobe_events: %s", strerror(-n));
			rc = 1;
		}
	}
	if (!rc && o.funcs) {
		char bin[4096];

		if (o.binary && find_binary(o.binary, bin, sizeof(bin)))
			rc = 1;
		else if ((n = pev__funcs(o.binary ? bin : NULL, argc ? argv[0] : NULL, say_fn, NULL)) < 0) {
			error("cannot list the functions of %s: %s", o.binary ? o.binary : "the kernel",
			      n == -ENODATA ? "no BTF" : strerror(-n));
			rc = 1;
		}
	}
	if (!rc && o.vars)
		rc = vars(&o);
	if (!rc && o.line) {
		char bin[4096];

		if (!o.binary) {
			error("--line needs -x BINARY: the kernel's lines need its DWARF, which BTF does not carry");
			rc = 1;
		} else if (find_binary(o.binary, bin, sizeof(bin))) {
			rc = 1;
		} else if ((n = pev__lines(bin, o.line, say_fn, NULL))) {
			error("no source lines for '%s': %s", o.line, n == -ENODATA ? "the binary has no DWARF line table" :
			      n == -ENOENT ? "no such function in the debug information" : strerror(-n));
			rc = 1;
		}
	}
	free(o.add);
	free(o.del);
	return rc;
}
