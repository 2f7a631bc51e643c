// SPDX-License-Identifier: GPL-2.0
/*
 * tool.c - the BCC tools as programs of sonde's own language:
 *   sonde tools                       each tool, what it shows, whether it runs here
 *   sonde tool NAME [options]         run one with BCC's options (so do `sonde NAME`
 *                                     and a symlink NAME -> sonde)
 *   sonde tool NAME --source          its program
 * Each tool is src/tools/NAME.bt, embedded at build time (build/gen/tools.h).
 * Its leading comment declares its command line, which this file parses the
 * way BCC's argparse does; src/tools/README.md says how to write one.
 */
#include "sonde.h"
#include "opt.h"
#include "cmd/probe.h"
#include "cmd/tool_gen.h"
#include "lang/lang.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tool_src {
	const char *name;
	const char *text;
};

#include "tools.h"	/* static const struct tool_src tool_srcs[], NULL-terminated */

#define TOOL_MAX_OPTS 32
#define TOOL_NAMED (TOOL_MAX_OPTS * 2 + 8)	/* options given, an alias's, the event args' text */

/* "// opt: -T --timestamp            include timestamp on output" */
struct tool_opt {
	char letter;		/* 0: long only */
	char name[32];		/* the long option, and the getopt() name in the program */
	char metavar[16];	/* "" for a flag */
	const char *help;	/* up to the end of the line */
	int helplen;
};

/* "// arg: interval=99999999          output interval, in seconds" */
struct tool_arg {
	char name[32];
	char def[32];
	bool required;		/* no default: "// arg: pattern:event ..." */
	bool event;		/* ":event": BCC's event pattern, made an attach point (tool__event_spec) */
	bool function;		/* ":function": one that must be a function; its return probe is $(nargs+1) */
	bool many;		/* "probe...": the last one, given once or more (BCC's nargs="+") */
	const char *help;
	int helplen;
};

struct tool {
	const char *name;	/* what the user typed: the tool, or one of its aliases */
	const struct tool_src *src;
	const char *about;
	int aboutlen;
	const char *alias_opts;	/* "// alias: ext4slower --fs=ext4": the options the alias implies */
	int alias_optslen;
	struct tool_opt opts[TOOL_MAX_OPTS];
	int nopts;
	struct tool_arg args[4];
	int nargs;
	const char *try_args;	/* "// try: c:getpid": the arguments sonde tools tries it with */
	int try_len;
	const char *examples[16];
	int exlen[16];
	int nexamples;
	bool generated;		/* "// generated:": the program is composed from the arguments (tool_gen.h) */
};

static const char *line_end(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? e : p + strlen(p);
}

/* up to 2+ spaces: the word, then the help after the spaces */
static const char *split_help(const char *p, const char *end, char *word, size_t wlen, const char **help, int *helplen)
{
	const char *w = p;

	while (p < end && !(p[0] == ' ' && (p + 1 >= end || p[1] == ' ')))
		p++;
	snprintf(word, wlen, "%.*s", (int)(p - w), w);
	while (p < end && *p == ' ')
		p++;
	*help = p;
	*helplen = (int)(end - p);
	return p;
}

static void parse_opt(struct tool *t, const char *p, const char *end)
{
	struct tool_opt *o = &t->opts[t->nopts];
	char spec[96], *eq;

	if (t->nopts >= TOOL_MAX_OPTS)
		return;
	split_help(p, end, spec, sizeof(spec), &o->help, &o->helplen);
	char *s = spec;

	if (s[0] == '-' && s[1] != '-') {	/* "-T --timestamp" or "-T" */
		o->letter = s[1];
		s += 2;
		while (*s == ' ')
			s++;
	}
	if (!strncmp(s, "--", 2))
		s += 2;
	if ((eq = strchr(s, '='))) {
		*eq = 0;
		snprintf(o->metavar, sizeof(o->metavar), "%s", eq + 1);
	}
	snprintf(o->name, sizeof(o->name), "%s", s);
	t->nopts++;
}

static void parse_arg(struct tool *t, const char *p, const char *end)
{
	struct tool_arg *a = &t->args[t->nargs];
	char spec[96], *eq;

	if (t->nargs >= 4)
		return;
	split_help(p, end, spec, sizeof(spec), &a->help, &a->helplen);
	if ((eq = strchr(spec, '='))) {
		*eq = 0;
		snprintf(a->def, sizeof(a->def), "%s", eq + 1);
	} else {
		a->required = true;
	}
	if ((eq = strstr(spec, ":event")) || (eq = strstr(spec, ":function"))) {
		a->function = eq[1] == 'f';
		*eq = 0;
		a->event = true;
	}
	if ((eq = strstr(spec, "...")) && !eq[3]) {
		*eq = 0;
		a->many = true;
	}
	snprintf(a->name, sizeof(a->name), "%s", spec);
	t->nargs++;
}

/* the leading comment's "// key: value" lines */
static void parse_header(struct tool *t)
{
	for (const char *p = t->src->text; *p; ) {
		const char *end = line_end(p), *v;

		if (strncmp(p, "//", 2))
			break;
		if (!strncmp(p, "// tool: ", 9) && (v = strstr(p, " - ")) && v < end) {
			t->about = v + 3;
			t->aboutlen = (int)(end - t->about);
		} else if (!strncmp(p, "// opt: ", 8)) {
			parse_opt(t, p + 8, end);
		} else if (!strncmp(p, "// arg: ", 8)) {
			parse_arg(t, p + 8, end);
		} else if (!strncmp(p, "// generated:", 13)) {
			t->generated = true;
		} else if (!strncmp(p, "// try: ", 8)) {
			t->try_args = p + 8;
			t->try_len = (int)(end - p - 8);
		} else if (!strncmp(p, "// example: ", 12) && t->nexamples < 16) {
			t->examples[t->nexamples] = p + 12;
			t->exlen[t->nexamples++] = (int)(end - p - 12);
		}
		p = *end ? end + 1 : end;
	}
}

/* the alias's line in src, "// alias: NAME OPTIONS", or NULL */
static const char *find_alias(const struct tool_src *s, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = s->text; *p && !strncmp(p, "//", 2); ) {
		const char *end = line_end(p);

		if (!strncmp(p, "// alias: ", 10) && !strncmp(p + 10, name, n) && (p[10 + n] == ' ' || p + 10 + n == end))
			return p + 10 + n;
		p = *end ? end + 1 : end;
	}
	return NULL;
}

/*
 * BCC tools that are sonde commands under BCC's name: offcputime is `sonde
 * offcpu`. BCC's options become the command's; those it lacks are refused.
 */
struct tool_optmap {
	const char *bcc, *sonde;	/* sonde NULL: not there */
	bool value;
};

static const struct tool_optmap offcputime_opts[] = {
	{ "-p", "-p", true }, { "--pid", "-p", true }, { "-t", "-t", true }, { "--tid", "-t", true },
	{ "-m", "-m", true }, { "--min-block-time", "-m", true }, { "-M", "-M", true },
	{ "--max-block-time", "-M", true }, { "--state", "--state", true },
	{ "--stack-storage-size", "--stack-storage-size", true }, { "-U", "-U", false },
	{ "--user-stacks-only", "-U", false }, { "-K", "-K", false }, { "--kernel-stacks-only", "-K", false },
	{ "-d", "-d", false }, { "--delimited", "-d", false }, { "-f", "-f", false }, { "--folded", "-f", false },
	{ "-u", "-u", false }, { "--user-threads-only", "-u", false }, { "-k", "-k", false },
	{ "--kernel-threads-only", "-k", false }, { "--perf-max-stack-depth", NULL, true },
	{ NULL, NULL, false },
};

static const struct tool_cmdalias {
	const char *name, *cmd, *about, *usage;
	int (*fn)(int argc, char **argv);
	const struct tool_optmap *opts;
} tool_cmdaliases[] = {
	{ "offcputime", "offcpu", "summarize off-CPU time by stack trace (sonde offcpu under BCC's name)",
	  "[-p PID | -t TID | -u | -k] [-m MIN_BLOCK_TIME] [-M MAX_BLOCK_TIME] [--state STATE] [-U | -K] [-d] [-f] "
	  "[--stack-storage-size N] [duration]", cmd_offcpu, offcputime_opts },
	{ NULL, NULL, NULL, NULL, NULL, NULL },
};

static const struct tool_cmdalias *find_cmdalias(const char *name)
{
	for (const struct tool_cmdalias *a = tool_cmdaliases; a->name; a++)
		if (!strcmp(a->name, name))
			return a;
	return NULL;
}

/* argv with BCC's options as the command's: -p 42, --pid=42, -p42; [duration] is --duration */
static int run_cmdalias(const struct tool_cmdalias *al, int argc, char **argv)
{
	char **av = calloc(2 * argc + 4, sizeof(*av));
	int n = 0, rc;
	bool dur = false;

	if (!av)
		return 1;
	av[n++] = (char *)al->cmd;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct tool_optmap *m = NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf("usage: %s [-h] %s\n\n%s\n\nsee 'sonde %s --help' for all of its options\n", al->name, al->usage,
			       al->about, al->cmd);
			free(av);
			return 0;
		}
		for (const struct tool_optmap *o = al->opts; o->bcc && !m; o++) {
			size_t l = strlen(o->bcc);

			if (!strncmp(a, o->bcc, l) && (!a[l] || (a[l] == '=' && a[1] == '-') ||
						       (o->value && a[1] != '-' && l == 2)))
				m = o;
		}
		if (m && !m->sonde) {
			error("%s: '%s' is not in 'sonde %s'", al->name, m->bcc, al->cmd);
			free(av);
			return 129;
		}
		if (m) {
			size_t l = strlen(m->bcc);
			const char *val = !m->value ? NULL : a[l] ? a + l + (a[l] == '=') : i + 1 < argc ? argv[++i] : NULL;

			if (m->value && !val) {
				error("%s: option '%s' needs a value; see '%s --help'", al->name, m->bcc, al->name);
				free(av);
				return 129;
			}
			av[n++] = (char *)m->sonde;
			if (val)
				av[n++] = (char *)val;
		} else if (a[0] != '-' && !dur) {
			av[n++] = (char *)"--duration";
			av[n++] = (char *)a;
			dur = true;
		} else {
			error("%s: unknown option '%s'; see '%s --help'", al->name, a, al->name);
			free(av);
			return 129;
		}
	}
	rc = al->fn(n, av);
	free(av);
	return rc;
}

static bool tool__load(struct tool *t, const char *name)
{
	memset(t, 0, sizeof(*t));
	for (const struct tool_src *s = tool_srcs; s->name; s++) {
		const char *al = NULL;

		if (strcmp(s->name, name) && !(al = find_alias(s, name)))
			continue;
		t->name = name;
		t->src = s;
		if (al) {
			while (*al == ' ')
				al++;
			t->alias_opts = al;
			t->alias_optslen = (int)(line_end(al) - al);
		}
		parse_header(t);
		return true;
	}
	return false;
}

/* tools that are commands of their own (src/cmd/), run by the same names and symlinks */
static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *about;
	const char *try_argv[4];	/* what sonde tools runs to try it */
} command_tools[] = {
	/* its default, the kernel's allocations, for a second: not -c true, whose malloc a
	   stripped static true (busybox's) does not name */
	{ "memleak", cmd_memleak, "outstanding memory allocations by stack: leaks (sonde memleak)",
	  { "memleak", "1", "1", NULL } },
};

static int (*find_cmd_tool(const char *name))(int, char **)
{
	for (size_t i = 0; i < sizeof(command_tools) / sizeof(command_tools[0]); i++)
		if (!strcmp(command_tools[i].name, name))
			return command_tools[i].fn;
	return NULL;
}

bool tool__exists(const char *name)
{
	struct tool t;

	return find_cmdalias(name) || find_cmd_tool(name) || tool__load(&t, name);
}

static void usage(const struct tool *t, FILE *f)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "usage: %s [-h]", t->name);

	for (int i = 0; i < t->nopts; i++) {
		const struct tool_opt *o = &t->opts[i];

		if (o->letter)
			n += snprintf(line + n, sizeof(line) - n, " [-%c%s%s]", o->letter, o->metavar[0] ? " " : "", o->metavar);
		else
			n += snprintf(line + n, sizeof(line) - n, " [--%s%s%s]", o->name, o->metavar[0] ? " " : "", o->metavar);
		if (n >= (int)sizeof(line))
			n = sizeof(line) - 1;
	}
	for (int i = 0; i < t->nargs && n < (int)sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - n, t->args[i].required ? " %s%s%s%s" : " [%s]%s%s%s", t->args[i].name,
			      t->args[i].many ? " [" : "", t->args[i].many ? t->args[i].name : "", t->args[i].many ? " ...]" : "");
	fprintf(f, "%s\n", line);
}

static void help(const struct tool *t)
{
	usage(t, stdout);
	printf("\n%.*s\n", t->aboutlen, t->about);
	if (t->nargs) {
		printf("\npositional arguments:\n");
		for (int i = 0; i < t->nargs; i++)
			printf("  %-22s%.*s\n", t->args[i].name, t->args[i].helplen, t->args[i].help);
	}
	printf("\noptions:\n  %-22s%s\n", "-h, --help", "show this help message and exit");
	for (int i = 0; i < t->nopts; i++) {
		const struct tool_opt *o = &t->opts[i];
		char left[96];

		if (o->letter)
			snprintf(left, sizeof(left), "-%c%s%s, --%s%s%s", o->letter, o->metavar[0] ? " " : "", o->metavar, o->name,
				 o->metavar[0] ? " " : "", o->metavar);
		else
			snprintf(left, sizeof(left), "--%s%s%s", o->name, o->metavar[0] ? " " : "", o->metavar);
		if (strlen(left) >= 22)
			printf("  %s\n  %-22s%.*s\n", left, "", o->helplen, o->help);
		else
			printf("  %-22s%.*s\n", left, o->helplen, o->help);
	}
	printf("  %-22s%s\n", "--source", "print the tool's program (sonde's language) and exit");
	if (t->nexamples) {
		printf("\nexamples:\n");
		for (int i = 0; i < t->nexamples; i++)
			printf("    %.*s\n", t->exlen[i], t->examples[i]);
	}
}

static int usage_error(const struct tool *t, const char *fmt, const char *what)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, what);
	usage(t, stderr);
	error("%s; see '%s --help'", msg, t->name);
	return 129;
}

/*
 * BCC's event pattern (funccount, funclatency, stackcount, trace) as an attach point:
 *   t:CAT:EVENT -> tracepoint:CAT:EVENT     u:LIB:PROBE -> usdt:LIB:PROBE
 *   [p:]LIB:FUNC, /path:FUNC -> uprobe      [p::]FUNC -> kprobe:FUNC
 * LIB is "c" for libc, "pthread" for libpthread, or a path. 0, or -1 when it is not one.
 */
int tool__event_spec(const char *pat, char *out, size_t len)
{
	char type = 0, lib[256] = "";
	const char *rest = pat, *colon;

	if (!pat[0] || strchr(pat, ' '))
		return -1;
	if (pat[0] && pat[1] == ':' && strchr("ptu", pat[0])) {	/* t:..., u:..., p:... */
		type = pat[0];
		rest = pat + 2;
	}
	if (type == 't') {
		if (!strchr(rest, ':'))
			return -1;
		snprintf(out, len, "tracepoint:%s", rest);
		return 0;
	}
	colon = strrchr(rest, ':');
	if (!colon) {			/* FUNC: a kernel function */
		if (type == 'u')
			return -1;
		snprintf(out, len, "kprobe:%s", rest);
		return 0;
	}
	snprintf(lib, sizeof(lib), "%.*s", (int)(colon - rest), rest);
	if (!lib[0] && type != 'u') {	/* p::FUNC */
		snprintf(out, len, "kprobe:%s", colon + 1);
		return 0;
	}
	if (!colon[1] || !lib[0])
		return -1;
	if (!strchr(lib, '/') && strncmp(lib, "lib", 3)) {	/* "c" is libc, as BCC names it */
		memmove(lib + 3, lib, strlen(lib) + 1 < sizeof(lib) - 3 ? strlen(lib) + 1 : sizeof(lib) - 4);
		memcpy(lib, "lib", 3);
	}
	snprintf(out, len, "%s:%s:%s", type == 'u' ? "usdt" : "uprobe", lib, colon + 1);
	return 0;
}

/* the named option "NAME" or "NAME=VALUE" for the program: kept in the arena of the caller */
struct tool_params {
	const char *named[TOOL_NAMED];
	int nnamed;
	char *pos[12];		/* $1.. */
	int npos;
	char store[TOOL_NAMED + 8][300];	/* named ones, then the args' attach points and returns */
};

static void add_named(struct tool_params *tp, const struct tool_opt *o, const char *val)
{
	char *s = tp->store[tp->nnamed];

	if (val)
		snprintf(s, sizeof(tp->store[0]), "%s=%s", o->name, val);
	else
		snprintf(s, sizeof(tp->store[0]), "%s", o->name);
	tp->named[tp->nnamed++] = s;
}

static const struct tool_opt *find_long(const struct tool *t, const char *name, size_t n)
{
	for (int i = 0; i < t->nopts; i++)
		if (strlen(t->opts[i].name) == n && !strncmp(t->opts[i].name, name, n))
			return &t->opts[i];
	return NULL;
}

/* argparse: -6 is an option, not a negative number, where some option is a digit (-4, -6) */
static bool has_digit_opts(const struct tool *t)
{
	for (int i = 0; i < t->nopts; i++)
		if (t->opts[i].letter >= '0' && t->opts[i].letter <= '9')
			return true;
	return false;
}

/*
 * argv as argparse reads it: -x flags (grouped: -Tm), -p PID or -pPID,
 * --name, --name=VALUE or --name VALUE, positional arguments anywhere.
 * 0, -1 when -h or --source was handled, or a usage error's exit status.
 */
static int parse_argv(const struct tool *t, int argc, char **argv, struct tool_params *tp, bool *source)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct tool_opt *o = NULL;
		const char *val = NULL;

		if (tp->nnamed >= TOOL_MAX_OPTS * 2)
			return usage_error(t, "too many options%s", "");
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			help(t);
			return -1;
		}
		if (!strcmp(a, "--source") || !strcmp(a, "--ebpf")) {
			*source = true;
			continue;
		}
		if (!strncmp(a, "--", 2) && a[2]) {
			const char *eq = strchr(a + 2, '=');

			o = find_long(t, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
			if (!o)
				return usage_error(t, "unknown option '%s'", a);
			if (o->metavar[0]) {
				val = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
				if (!val)
					return usage_error(t, "option '%s' needs a value", a);
			} else if (eq) {
				return usage_error(t, "option '%s' takes no value", a);
			}
			add_named(tp, o, val);
			continue;
		}
		if (a[0] == '-' && a[1] && (!(a[1] >= '0' && a[1] <= '9') || has_digit_opts(t))) {
			for (const char *c = a + 1; *c; c++) {
				o = NULL;
				for (int k = 0; k < t->nopts && !o; k++)
					if (t->opts[k].letter == *c)
						o = &t->opts[k];
				if (!o) {
					char bad[3] = { '-', *c, 0 };

					return usage_error(t, "unknown option '%s'", bad);
				}
				if (!o->metavar[0]) {
					add_named(tp, o, NULL);
					continue;
				}
				val = c[1] ? c + 1 : i + 1 < argc ? argv[++i] : NULL;
				if (!val) {
					char bad[3] = { '-', *c, 0 };

					return usage_error(t, "option '%s' needs a value", bad);
				}
				add_named(tp, o, val);
				break;
			}
			continue;
		}
		if (tp->npos >= t->nargs && !(t->nargs && t->args[t->nargs - 1].many && tp->npos < 8))
			return usage_error(t, "unexpected argument '%s'", a);
		tp->pos[tp->npos++] = argv[i];
	}
	for (int i = tp->npos; i < t->nargs; i++) {	/* the defaults of those not given */
		if (t->args[i].required)
			return usage_error(t, "the argument '%s' is required", t->args[i].name);
		tp->pos[tp->npos++] = (char *)t->args[i].def;
	}
	for (int i = 0; i < t->nargs; i++) {	/* BCC's event patterns: attach points, and the text as given */
		char *spec = tp->store[TOOL_NAMED + i];

		if (!t->args[i].event)
			continue;
		if (tool__event_spec(tp->pos[i], spec, sizeof(tp->store[0])))
			return usage_error(t, "cannot read the event pattern '%s'", tp->pos[i]);
		if (t->args[i].function) {	/* and its return: kretprobe:, uretprobe: */
			char *ret = tp->store[TOOL_NAMED + 4 + i];

			if (strncmp(spec, "kprobe:", 7) && strncmp(spec, "uprobe:", 7))
				return usage_error(t, "'%s' is not a function (a kernel function, or LIB:FUNC)", tp->pos[i]);
			memcpy(ret, spec, 1);	/* k or u, then "retprobe:" and what follows "probe:" */
			memcpy(ret + 1, "ret", 3);
			memcpy(ret + 4, spec + 1, strlen(spec + 1) + 1 < sizeof(tp->store[0]) - 4 ? strlen(spec + 1) + 1 :
			       sizeof(tp->store[0]) - 5);
			ret[sizeof(tp->store[0]) - 1] = 0;
			tp->pos[tp->npos++] = ret;
		}
		char given[sizeof(tp->store[0])];	/* pos[i] is argv's or the header's, never store's */

		snprintf(given, sizeof(given), "%s=%s", t->args[i].name, tp->pos[i]);
		memcpy(tp->store[tp->nnamed], given, sizeof(given));
		tp->named[tp->nnamed] = tp->store[tp->nnamed];
		tp->nnamed++;
		tp->pos[i] = spec;
	}
	return 0;
}

/* an alias's options ("--fs=ext4"), before the user's */
static int alias_params(const struct tool *t, struct tool_params *tp)
{
	char buf[256], *save, *argv[16] = { (char *)t->name };
	int argc = 1;
	bool source = false;

	if (!t->alias_opts)
		return 0;
	snprintf(buf, sizeof(buf), "%.*s", t->alias_optslen, t->alias_opts);
	for (char *w = strtok_r(buf, " ", &save); w && argc < 15; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	struct tool_params tmp = { .nnamed = 0 };
	int rc = parse_argv(t, argc, argv, &tmp, &source);

	if (rc)
		return rc;
	for (int i = 0; i < tmp.nnamed; i++) {
		snprintf(tp->store[tp->nnamed], sizeof(tp->store[0]), "%s", tmp.store[i]);
		tp->named[tp->nnamed] = tp->store[tp->nnamed];
		tp->nnamed++;
	}
	return 0;
}

/* the tool's program: its source, or (generated) the one composed from its arguments, into *gen to free */
static const char *tool_program(const struct tool *t, struct tool_params *tp, char **gen, char *why, size_t whylen)
{
	*gen = NULL;
	if (!t->generated)
		return t->src->text;
	*gen = tool_gen__program(t->src->name, tp->npos, tp->pos, tp->named, tp->nnamed, why, whylen);
	return *gen;
}

static int run_tool(const struct tool *t, int argc, char **argv)
{
	struct tool_params *tp = calloc(1, sizeof(*tp));
	bool source = false;
	int rc;

	if (!tp)
		return 1;
	rc = alias_params(t, tp);
	if (!rc)
		rc = parse_argv(t, argc, argv, tp, &source);
	if (rc) {
		free(tp);
		return rc < 0 ? 0 : rc;
	}
	char why[512], *gen;
	const char *src = tool_program(t, tp, &gen, why, sizeof(why));

	if (!src) {
		error("%s", why);
		free(tp);
		return 1;
	}
	if (source) {
		fputs(src, stdout);
		free(gen);
		free(tp);
		return 0;
	}
	char file[64];

	snprintf(file, sizeof(file), "%s.bt", t->src->name);
	struct probe_job job = {
		.file = file, .src = src, .len = strlen(src),
		.argc = tp->npos, .argv = tp->pos, .named = tp->named, .nnamed = t->generated ? 0 : tp->nnamed,
		.quiet = true, .mode = MODE_RUN,
	};

	setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
	rc = probe__run(&job);
	free(gen);
	free(tp);
	if (job.interrupted) {
		signal(job.interrupted, SIG_DFL);
		raise(job.interrupted);
	}
	return rc;
}

/* sonde tool NAME ..., sonde NAME ..., NAME ... (a symlink): argv[0] is the tool's name */
int tool__run(int argc, char **argv)
{
	struct tool t;
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	if (find_cmdalias(name))
		return run_cmdalias(find_cmdalias(name), argc, argv);
	if (find_cmd_tool(name))
		return find_cmd_tool(name)(argc, argv);
	if (!tool__load(&t, name)) {
		error("'%s' is not a sonde tool; 'sonde tools' lists them", name);
		return 1;
	}
	return run_tool(&t, argc, argv);
}

static const char *const tool_usage[] = {
	"sonde tool NAME [<the tool's options>]",
	"sonde tool NAME --help | --source",
	NULL,
};

int cmd_tool(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		FILE *f = argc < 2 ? stderr : stdout;

		fprintf(f, "usage: %s\n   or: %s\n\nruns one of the BCC tools that 'sonde tools' lists; "
			"each takes BCC's options (NAME --help)\n", tool_usage[0], tool_usage[1]);
		return argc < 2 ? 129 : 0;
	}
	return tool__run(argc - 1, argv + 1);
}

enum { TOOL_YES, TOOL_PART, TOOL_NO };

/* can the tool load and attach here, with its default options? why says what cannot */
static int probe_tool(const struct tool *t, char *why, size_t whylen)
{
	struct tool_params *tp = calloc(1, sizeof(*tp));
	bool source = false;
	char file[64];
	int rc, fd, saved;

	if (!tp)
		return -ENOMEM;
	char tryb[256], *save, *argv[16] = { (char *)t->name };
	int argc = 1;

	snprintf(tryb, sizeof(tryb), "%.*s", t->try_len, t->try_args ? t->try_args : "");
	for (char *w = strtok_r(tryb, " ", &save); w && argc < 15; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	alias_params(t, tp);
	if (parse_argv(t, argc, argv, tp, &source)) {
		free(tp);
		snprintf(why, whylen, "its header's try: line does not parse");
		return TOOL_NO;
	}
	char *gen;
	const char *src = tool_program(t, tp, &gen, why, whylen);

	if (!src) {
		free(tp);
		return TOOL_NO;
	}
	snprintf(file, sizeof(file), "%s.bt", t->src->name);
	struct probe_job job = {
		.file = file, .src = src, .len = strlen(src),
		.argc = tp->npos, .argv = tp->pos, .named = tp->named, .nnamed = t->generated ? 0 : tp->nnamed,
		.quiet = true, .probe_only = true, .no_warnings = true, .mode = MODE_RUN, .why = why, .whylen = whylen,
	};

	why[0] = 0;
	fflush(stdout);
	saved = dup(1);	/* what a program prints while it is only tried goes nowhere */
	fd = open("/dev/null", O_WRONLY);
	if (fd >= 0 && saved >= 0)
		dup2(fd, 1);
	rc = probe__run(&job);
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, 1);
		close(saved);
	}
	if (fd >= 0)
		close(fd);
	free(gen);
	free(tp);
	return rc ? TOOL_NO : job.skipped ? TOOL_PART : TOOL_YES;
}

/* every tool's name and its aliases' */
static void print_names(void)
{
	for (size_t i = 0; i < sizeof(command_tools) / sizeof(command_tools[0]); i++)
		printf("%s\n", command_tools[i].name);
	for (const struct tool_src *s = tool_srcs; s->name; s++) {
		printf("%s\n", s->name);
		for (const char *p = s->text; *p && !strncmp(p, "//", 2); ) {
			const char *end = line_end(p);

			if (!strncmp(p, "// alias: ", 10))
				printf("%.*s\n", (int)strcspn(p + 10, " \n"), p + 10);
			p = *end ? end + 1 : end;
		}
	}
}

/* the first error a try wrote to f ("sonde: ..." but not a warning's), into why */
static void first_error(FILE *f, char *why, size_t whylen)
{
	char line[1024];

	why[0] = 0;
	if (!f)
		return;
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "sonde: ", 7) || !strncmp(line, "sonde: warning: ", 16))
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(why, whylen, "%s", line + 7);
		return;
	}
}

/*
 * a command-tool tried as the tools are: a moment of it, its output nowhere,
 * its errors kept to say why it cannot run (why); its status
 */
static int try_command(int (*fn)(int, char **), int argc, char **argv, char *why, size_t whylen)
{
	int rc, fd, saved, saved2;
	FILE *errf = tmpfile();

	fflush(stdout);
	fflush(stderr);
	saved = dup(1);
	saved2 = dup(2);
	fd = open("/dev/null", O_WRONLY);
	if (fd >= 0 && saved >= 0 && saved2 >= 0) {
		dup2(fd, 1);
		dup2(errf ? fileno(errf) : fd, 2);
	}
	rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, 1);
		close(saved);
	}
	if (saved2 >= 0) {
		dup2(saved2, 2);
		close(saved2);
	}
	if (fd >= 0)
		close(fd);
	first_error(errf, why, whylen);
	if (errf)
		fclose(errf);
	return rc;
}

static const char *const tools_usage[] = {
	"sonde tools [-q] [--names]",
	NULL,
};

int cmd_tools(int argc, char **argv)
{
	bool quick = false, names = false;
	struct opt opts[] = {
		OPT_BOOL('q', "quick", &quick, "do not try each tool on this kernel (no root needed)"),
		OPT_BOOL(0, "names", &names, "only the names a tool answers to, one a line (make install's symlinks)"),
		OPT_END(),
	};
	int nok = 0, n = 0;

	argc = opt__parse(argc, argv, opts, tools_usage, 0);
	if (argc)
		opt__usage_error(tools_usage, opts, "takes no arguments");
	if (names) {
		print_names();
		return 0;
	}
	if (!quick && geteuid())
		warning("not root: whether each tool runs here is not tried (-q to not ask)");
	quick |= geteuid() != 0;
	for (const struct tool_src *s = tool_srcs; s->name; s++) {
		struct tool t;
		char why[1024], state[8];
		int rc = TOOL_YES;

		tool__load(&t, s->name);
		n++;
		if (!quick) {
			rc = probe_tool(&t, why, sizeof(why));
			if (strchr(why, '\n'))
				*strchr(why, '\n') = 0;
		}
		snprintf(state, sizeof(state), "%s", quick ? "-" : rc == TOOL_YES ? "yes" : rc == TOOL_PART ? "part" : "no");
		nok += !quick && rc != TOOL_NO;
		printf("%-14s %-4s %.*s", s->name, state, t.aboutlen, t.about);
		if (!quick && rc != TOOL_YES)
			printf(" [%s]", why[0] ? why : "cannot run here");
		printf("\n");
	}
	for (const struct tool_cmdalias *a = tool_cmdaliases; a->name; a++) {
		char *av[] = { (char *)a->cmd, (char *)"-a", (char *)"--duration", (char *)"0.01", NULL }, why[512];
		int rc = quick ? 0 : try_command(a->fn, 4, av, why, sizeof(why));

		n++;
		nok += !quick && !rc;
		printf("%-14s %-4s %s", a->name, quick ? "-" : rc ? "no" : "yes", a->about);
		if (!quick && rc)
			printf(" [%s]", why[0] ? why : "cannot run here");
		printf("\n");
	}
	for (size_t i = 0; i < sizeof(command_tools) / sizeof(command_tools[0]); i++) {
		char *av[4], why[512];
		int ac = 0, rc;

		while (ac < 3 && command_tools[i].try_argv[ac])
			av[ac] = (char *)command_tools[i].try_argv[ac], ac++;
		av[ac] = NULL;
		rc = quick ? 0 : try_command(command_tools[i].fn, ac, av, why, sizeof(why));
		n++;
		nok += !quick && !rc;
		printf("%-14s %-4s %s", command_tools[i].name, quick ? "-" : rc ? "no" : "yes", command_tools[i].about);
		if (!quick && rc)
			printf(" [%s]", why[0] ? why : "cannot run here");
		printf("\n");
	}
	if (!quick)
		printf("\n%d of %d tools run on this kernel\n", nok, n);
	return 0;
}
