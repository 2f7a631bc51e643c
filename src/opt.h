/* SPDX-License-Identifier: GPL-2.0 */
/*
 * opt.h - one option parser for every command (the shape of git's parse-options).
 *
 * A command describes its options in a table ending with OPT_END(); opt__parse()
 * fills the variables, prints the help for -h/--help (and exits 0), and for an
 * unknown or malformed option prints one error line and the usage, then exits 129
 * as git does. Long options may be abbreviated to any unique prefix; boolean long
 * options also take a --no- prefix. Nothing it returns needs freeing: the
 * remaining arguments are pointers into argv.
 */
#ifndef SONDE_OPT_H
#define SONDE_OPT_H

#include <stdbool.h>

enum opt_type {
	OPTT_END,
	OPTT_GROUP,	/* a heading in the help text */
	OPTT_BOOL,	/* bool *; --no-X clears it */
	OPTT_COUNT,	/* int *; each use adds one (-vv) */
	OPTT_INT,	/* int * */
	OPTT_UINT64,	/* unsigned long long * */
	OPTT_DOUBLE,	/* double * */
	OPTT_STRING,	/* const char ** (the last use wins) */
	OPTT_CALLBACK,	/* cb(opt, arg) for each use; arg NULL when it takes none */
};

enum opt_flags {
	OPTF_NOARG  = 1 << 0,	/* OPTT_CALLBACK that takes no argument */
	OPTF_HIDDEN = 1 << 1,	/* accepted but not shown in the help */
	OPTF_OPTARG = 1 << 2,	/* OPTT_CALLBACK whose value is optional: only --x=V or -xV give one */
};

struct opt;
typedef int (*opt_cb)(const struct opt *o, const char *arg);

struct opt {
	enum opt_type type;
	int short_name;
	const char *long_name;
	void *value;
	const char *argh;	/* the argument's name in the help: "MS" */
	const char *help;
	opt_cb cb;
	unsigned flags;
};

#define OPT_END()                 { .type = OPTT_END }
#define OPT_GROUP(h)              { .type = OPTT_GROUP, .help = (h) }
#define OPT_BOOL(s, l, v, h)      { OPTT_BOOL, (s), (l), (v), NULL, (h), NULL, 0 }
#define OPT_COUNT(s, l, v, h)     { OPTT_COUNT, (s), (l), (v), NULL, (h), NULL, 0 }
#define OPT_INT(s, l, v, a, h)    { OPTT_INT, (s), (l), (v), (a), (h), NULL, 0 }
#define OPT_UINT64(s, l, v, a, h) { OPTT_UINT64, (s), (l), (v), (a), (h), NULL, 0 }
#define OPT_DOUBLE(s, l, v, a, h) { OPTT_DOUBLE, (s), (l), (v), (a), (h), NULL, 0 }
#define OPT_STRING(s, l, v, a, h) { OPTT_STRING, (s), (l), (v), (a), (h), NULL, 0 }
#define OPT_CALLBACK(s, l, v, a, h, f) { OPTT_CALLBACK, (s), (l), (v), (a), (h), (f), 0 }
#define OPT_CALLBACK_NOARG(s, l, v, h, f) { OPTT_CALLBACK, (s), (l), (v), NULL, (h), (f), OPTF_NOARG }
#define OPT_CALLBACK_OPTARG(s, l, v, a, h, f) { OPTT_CALLBACK, (s), (l), (v), (a), (h), (f), OPTF_OPTARG }
#define OPT_VERBOSE()             OPT_COUNT('v', "verbose", &verbose, "say more (repeat for more)")

enum opt_parse_flags {
	OPT_STOP_AT_NON_OPTION = 1 << 0,	/* `sonde stat ls -l`: -l belongs to ls */
	OPT_KEEP_DASHDASH      = 1 << 1,
};

/*
 * Parse argv[1..argc-1] (argv[0] is the command's name). Returns the number of
 * arguments left, moved to argv[0..]; exits on --help (0) or on a bad option (129).
 */
int opt__parse(int argc, char **argv, const struct opt *opts,
	       const char *const usage[], unsigned flags);

/* print the usage and option table (to stdout for --help, stderr on errors) */
void opt__usage(const char *const usage[], const struct opt *opts, bool to_stderr);

/* print one error line with the usage, exit 129 */
void opt__usage_error(const char *const usage[], const struct opt *opts,
		      const char *fmt, ...) __attribute__((noreturn, format(printf, 3, 4)));

#endif
