// SPDX-License-Identifier: GPL-2.0
/*
 * opt.c - the option parser behind every command; see opt.h.
 *
 * Hand-written instead of getopt_long because it also renders the help from the
 * same table, accepts unique prefixes and --no- forms, and reports errors in
 * sonde's one-line style instead of getopt's.
 */
#include "opt.h"
#include "sonde.h"
#include "lib/event/sampler.h"
#include "lib/proc/target.h"
#include "lib/proc/workload.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static bool takes_arg(const struct opt *o)
{
	switch (o->type) {
	case OPTT_BOOL:
	case OPTT_COUNT:
		return false;
	case OPTT_CALLBACK:
		return !(o->flags & OPTF_NOARG);
	default:
		return true;
	}
}

bool opt_dump;

/* the rows of `sonde help --dump-options`: kind, short, long, argument, help */
static void dump(const char *const usage[], const struct opt *opts)
{
	for (int i = 0; usage && usage[i]; i++)
		printf("usage\t%s\n", usage[i]);
	for (const struct opt *o = opts; o->type != OPTT_END; o++) {
		const char *kind = !takes_arg(o) ? (o->type == OPTT_BOOL ? "bool" : "flag") :
				   (o->flags & OPTF_OPTARG) ? "optarg" : "arg";
		char sh[3] = { '-', (char)o->short_name, 0 };

		if (o->type == OPTT_GROUP)
			printf("group\t%s\n", o->help);
		else if (!(o->flags & OPTF_HIDDEN))
			printf("option\t%s\t%s\t%s%s\t%s\t%s\n", kind, o->short_name ? sh : "",
			       o->long_name ? "--" : "", o->long_name ? o->long_name : "",
			       !takes_arg(o) ? "" : o->argh ? o->argh : "n", o->help ? o->help : "");
	}
}

void opt__usage(const char *const usage[], const struct opt *opts, bool to_stderr)
{
	FILE *f = to_stderr ? stderr : stdout;

	if (opt_dump && !to_stderr) {
		dump(usage, opts);
		return;
	}
	for (int i = 0; usage && usage[i]; i++)
		fprintf(f, "%s%s\n", i ? "   or: " : "usage: ", usage[i]);
	fputc('\n', f);
	for (const struct opt *o = opts; o->type != OPTT_END; o++) {
		char left[96];
		int n = 0;

		if (o->type == OPTT_GROUP) {
			fprintf(f, "\n%s\n", o->help);
			continue;
		}
		if (o->flags & OPTF_HIDDEN)
			continue;
		n += snprintf(left + n, sizeof(left) - n, "    ");
		if (o->short_name)
			n += snprintf(left + n, sizeof(left) - n, "-%c", o->short_name);
		if (o->short_name && o->long_name)
			n += snprintf(left + n, sizeof(left) - n, ", ");
		if (o->long_name)
			n += snprintf(left + n, sizeof(left) - n, "--%s", o->long_name);
		if (takes_arg(o))
			snprintf(left + n, sizeof(left) - n, (o->flags & OPTF_OPTARG) ? "[=<%s>]" : " <%s>",
				 o->argh ? o->argh : "n");
		if (strlen(left) > 26)
			fprintf(f, "%s\n%27s%s\n", left, "", o->help ? o->help : "");
		else
			fprintf(f, "%-26s %s\n", left, o->help ? o->help : "");
	}
	fputc('\n', f);
}

/* after the one line that says what is wrong: where to read more, as git does */
void opt__see_help(const char *const usage[])
{
	const char *u = usage && usage[0] ? usage[0] : "sonde", *cmd = u;
	size_t len;

	if (!strncmp(u, "sonde ", 6))
		cmd = u + 6;
	len = strcspn(cmd, " ");
	if (cmd == u || !len)
		fprintf(stderr, "see 'sonde --help'\n");
	else
		fprintf(stderr, "see 'sonde %.*s --help'\n", (int)len, cmd);
	exit(129);
}

void opt__usage_error(const char *const usage[], const struct opt *opts,
		      const char *fmt, ...)
{
	va_list ap;

	(void)opts;
	fputs("sonde: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	opt__see_help(usage);
}

/* how the option a callback runs for was typed ("-d", "--delay"), for its messages */
static const char *cb_spelled;

int opt__seconds(const struct opt *o, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = arg ? strtod(arg, &end) : -1;
	if (!arg || errno || end == arg || *end || !(v >= 0) || v > 1e9) {
		error("option '%s' takes %s, 0 or more, not '%s'", cb_spelled ? cb_spelled : o->long_name,
		      o->argh && !strcmp(o->argh, "MS") ? "milliseconds" : "seconds", arg ? arg : "");
		return -1;
	}
	*(double *)o->value = v;
	return 0;
}

long opt__call_graph(const char *cg, long dflt, long max)
{
	char *end;
	long size = dflt;

	if (!strcmp(cg, "fp"))
		return 0;
	if (strncmp(cg, "dwarf", 5) || (cg[5] && cg[5] != ','))
		return -1;
	if (cg[5]) {
		size = strtol(cg + 6, &end, 0);
		if (*end || end == cg + 6 || size < 256 || size > max)
			return -1;
	}
	return size;
}

int opt__freq(const struct opt *o, const char *arg)
{
	char err[256];

	if (!arg || sampler__parse_freq(arg, o->value, err, sizeof(err))) {
		error("%s", arg ? err : "-F needs a frequency");
		return -1;
	}
	return 0;
}

void opt__check_ids(const char *const usage[], const char *list, bool threads)
{
	char err[256];

	if (list && target__check_ids(list, threads, err, sizeof(err)))
		opt__usage_error(usage, NULL, "%s", err);
}

void opt__check_one_pid(const char *const usage[], const char *pid)
{
	opt__check_ids(usage, pid, false);
	if (pid && strchr(pid, ','))
		opt__usage_error(usage, NULL, "-p takes one process id, not '%s'", pid);
}

int opt__target(struct target *t, const struct target_opts *to, const char *const usage[])
{
	char err[256];
	int rc = target__setup(t, to, err, sizeof(err));

	if (!rc)
		return 0;
	error("%s", err);
	if (rc == -EINVAL)
		opt__see_help(usage);
	return -1;
}

int opt__parse_target(int argc, char **argv, const struct opt *opts, const char *const usage[], unsigned flags,
		      struct target_opts *to, struct target *t)
{
	argc = opt__parse(argc, argv, opts, usage, flags);
	to->have_cmd = argc > 0;
	if (opt__target(t, to, usage)) {
		target__free(t);
		return -1;
	}
	return argc;
}

int opt__start_command(struct workload *w, char *const argv[])
{
	int rc = workload__start(w);

	if (!rc)
		return 0;
	error("cannot run '%s': %s", argv[0], strerror(-rc));
	if (rc == -ENOENT && !strchr(argv[0], '/'))	/* a path names itself */
		hint("is '%s' in PATH? give its path otherwise", argv[0]);
	while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
		;
	return workload__exec_code(rc);
}

static void store(const char *const usage[], const struct opt *all,
		  const struct opt *o, const char *arg, bool negated, const char *spelled)
{
	char *end;

	errno = 0;
	switch (o->type) {
	case OPTT_BOOL:
		*(bool *)o->value = !negated;
		return;
	case OPTT_COUNT:
		*(int *)o->value = negated ? 0 : *(int *)o->value + 1;
		return;
	case OPTT_INT: {
		long v = strtol(arg, &end, 0);

		if (end == arg || *end)
			opt__usage_error(usage, all, "option '%s' expects a number, not '%s'", spelled, arg);
		if (errno || v < -2147483647L || v > 2147483647L)
			opt__usage_error(usage, all, "option '%s': %s is out of range (at most %d)", spelled, arg,
					 2147483647);
		*(int *)o->value = (int)v;
		return;
	}
	case OPTT_UINT64: {
		unsigned long long v = strtoull(arg, &end, 0);

		if (end == arg || *end || arg[0] == '-')
			opt__usage_error(usage, all, "option '%s' expects a positive number, not '%s'", spelled, arg);
		if (errno)
			opt__usage_error(usage, all, "option '%s': %s is out of range", spelled, arg);
		*(unsigned long long *)o->value = v;
		return;
	}
	case OPTT_DOUBLE: {
		double v = strtod(arg, &end);

		if (errno || end == arg || *end)
			opt__usage_error(usage, all, "option '%s' expects a number, not '%s'", spelled, arg);
		*(double *)o->value = v;
		return;
	}
	case OPTT_STRING:
		*(const char **)o->value = arg;
		return;
	case OPTT_CALLBACK:
		cb_spelled = spelled;
		if (o->cb(o, negated ? NULL : arg) < 0)
			opt__see_help(usage);	/* the callback said what was wrong */
		return;
	default:
		return;
	}
}

static const struct opt *find_long(const char *const usage[], const struct opt *opts,
				   const char *name, size_t len, bool *negated)
{
	const struct opt *match = NULL;
	int nmatch = 0;

	*negated = false;
	for (int pass = 0; pass < 2; pass++) {
		const char *n = name;
		size_t l = len;

		if (pass == 1) {
			if (len <= 3 || strncmp(name, "no-", 3))
				break;
			n += 3;
			l -= 3;
		}
		for (const struct opt *o = opts; o->type != OPTT_END; o++) {
			if (!o->long_name)
				continue;
			if (strlen(o->long_name) == l && !strncmp(o->long_name, n, l)) {
				*negated = pass == 1;
				return o;
			}
		}
		for (const struct opt *o = opts; o->type != OPTT_END; o++) {
			if (o->long_name && !strncmp(o->long_name, n, l)) {
				if (match != o)
					nmatch++;
				match = o;
				*negated = pass == 1;
			}
		}
		if (nmatch)
			break;
	}
	if (nmatch > 1)
		opt__usage_error(usage, opts, "option '--%.*s' is ambiguous", (int)len, name);
	if (match && *negated && match->type != OPTT_BOOL && match->type != OPTT_COUNT &&
	    !(match->type == OPTT_CALLBACK && (match->flags & OPTF_NOARG)))
		opt__usage_error(usage, opts, "option '--%.*s' cannot be negated", (int)len, name);
	return match;
}

int opt__parse(int argc, char **argv, const struct opt *opts,
	       const char *const usage[], unsigned flags)
{
	int out = 0;
	int i;

	for (i = 1; i < argc; i++) {
		char *a = argv[i];

		if (!strcmp(a, "--")) {
			if (flags & OPT_KEEP_DASHDASH)
				argv[out++] = a;
			i++;
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (flags & OPT_STOP_AT_NON_OPTION)
				break;
			argv[out++] = a;
			continue;
		}
		if (a[1] == '-') {
			char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			bool neg;
			const struct opt *o;
			char long_spelled[128];

			if (len == 4 && !strncmp(name, "help", 4)) {
				opt__usage(usage, opts, false);
				exit(0);
			}
			o = find_long(usage, opts, name, len, &neg);
			if (!o)
				opt__usage_error(usage, opts, "unknown option '--%.*s'", (int)len, name);
			snprintf(long_spelled, sizeof(long_spelled), "--%s%s", neg ? "no-" : "", o->long_name);
			if (takes_arg(o) && !neg) {
				const char *arg = eq ? eq + 1 : NULL;

				if (!arg && !(o->flags & OPTF_OPTARG)) {
					if (i + 1 >= argc)
						opt__usage_error(usage, opts, "option '--%s' needs a value", o->long_name);
					arg = argv[++i];
				}
				store(usage, opts, o, arg, false, long_spelled);
			} else {
				if (eq)
					opt__usage_error(usage, opts, "option '--%s' takes no value", o->long_name);
				store(usage, opts, o, NULL, neg, long_spelled);
			}
			continue;
		}
		for (char *c = a + 1; *c; c++) {
			const struct opt *o = NULL;
			char spelled[3] = { '-', *c, 0 };

			if (*c == 'h') {
				bool claimed = false;

				for (const struct opt *p = opts; p->type != OPTT_END; p++)
					claimed |= p->short_name == 'h';
				if (!claimed) {
					opt__usage(usage, opts, false);
					exit(0);
				}
			}
			for (const struct opt *p = opts; p->type != OPTT_END; p++)
				if (p->short_name == *c)
					o = p;
			if (!o)
				opt__usage_error(usage, opts, "unknown switch '%c'", *c);
			if (takes_arg(o)) {
				const char *arg = c[1] ? c + 1 : NULL;

				if (!arg && !(o->flags & OPTF_OPTARG)) {
					if (i + 1 >= argc)
						opt__usage_error(usage, opts, "switch '%c' needs a value", *c);
					arg = argv[++i];
				}
				store(usage, opts, o, arg, false, spelled);
				break;
			}
			store(usage, opts, o, NULL, false, spelled);
		}
	}
	while (i < argc)
		argv[out++] = argv[i++];
	argv[out] = NULL;
	return out;
}
