/* SPDX-License-Identifier: GPL-2.0 */
/*
 * opt.h - one option parser for every command (the shape of git's parse-options).
 *
 * A command describes its options in a table ending with OPT_END(); opt__parse()
 * fills the variables, prints the help for -h/--help (and exits 0), and for an
 * unknown or malformed option prints one error line and "see 'sonde CMD --help'",
 * then exits 129 as git does. Long options may be abbreviated to any unique prefix; boolean long
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

/*
 * Options with one meaning in every command, declared here once:
 *   -p/-t/-a/-C fill a struct target_opts (lib/proc/target.h), checked by
 *   opt__parse_target() or opt__target(); with a command too, the targets
 *   are observed while it runs;
 *   --duration S stops after S seconds (a command sonde started gets SIGTERM);
 *   -F HZ samples per second: a positive number or 'max' (the kernel's
 *   kernel.perf_event_max_sample_rate), never above that.
 */
#define OPT_TARGET_PID(to) OPT_STRING('p', "pid", &(to)->pids, "PID", \
	"observe these processes, every thread (comma list); with a command, while it runs")
#define OPT_TARGET_TID(to) OPT_STRING('t', "tid", &(to)->tids, "TID", "observe these threads only (comma list)")
#define OPT_TARGET_ALL(to) OPT_BOOL('a', "all-cpus", &(to)->all, "observe the whole system, every CPU")
#define OPT_TARGET_CPU(to) OPT_STRING('C', "cpu", &(to)->cpus, "CPUS", \
	"observe the whole system on these CPUs only: 0-3,6")
#define OPT_TARGET(to) OPT_TARGET_PID(to), OPT_TARGET_TID(to), OPT_TARGET_ALL(to), OPT_TARGET_CPU(to)
#define OPT_DURATION(v) OPT_CALLBACK(0, "duration", (v), "S", \
	"stop after S seconds (a command sonde started gets SIGTERM)", opt__seconds)
#define OPT_SECONDS(s, l, v, h) OPT_CALLBACK((s), (l), (v), "S", (h), opt__seconds)
#define OPT_FREQ(v, h) OPT_CALLBACK('F', "freq", (v), "HZ", (h), opt__freq)

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

/*
 * Set by `sonde help --dump-options CMD [SUB]`: --help then prints the usage and
 * the table as tab-separated rows ("usage", "group", "option" rows) for
 * scripts/gen-man.sh and scripts/gen-completion.sh, so pages and completions
 * come from the same tables as the help and cannot drift.
 */
extern bool opt_dump;

/* print the usage and option table (to stdout for --help, stderr on errors) */
void opt__usage(const char *const usage[], const struct opt *opts, bool to_stderr);

/* print one error line and "see 'sonde CMD --help'", exit 129 */
void opt__usage_error(const char *const usage[], const struct opt *opts,
		      const char *fmt, ...) __attribute__((noreturn, format(printf, 3, 4)));

/* after an error line already printed: "see 'sonde CMD --help'", exit 129 */
void opt__see_help(const char *const usage[]) __attribute__((noreturn));

/* callbacks behind OPT_SECONDS (double *: 0 or more, finite; milliseconds when argh is "MS") and OPT_FREQ (uint64_t *) */
int opt__seconds(const struct opt *o, const char *arg);
int opt__freq(const struct opt *o, const char *arg);

/* --call-graph fp | dwarf[,SIZE] of offcpu and memleak: the bytes of stack to copy (0: frame pointers,
 * dflt for a bare "dwarf", SIZE from 256 to max), -1 when it is none of these */
long opt__call_graph(const char *cg, long dflt, long max);

/* a --pid/--tid filter's list ("12,34"): a malformed one exits 129 with the -p wording */
void opt__check_ids(const char *const usage[], const char *list, bool threads);
/* a -p that takes one process (probe's and addr2sym's as bpftrace's, ltrace's, memleak's): a malformed id
 * exits 129 with the -p wording, a list with "-p takes one process id, not '1,2'" */
void opt__check_one_pid(const char *const usage[], const char *pid);

struct target;
struct target_opts;
/*
 * target__setup() of to into t, for a command with this usage: a usage error
 * (bad list, -p with -a...) exits 129; a pid that does not exist prints one
 * line and returns -1 (the command exits 1); 0 when t is ready.
 */
int opt__target(struct target *t, const struct target_opts *to, const char *const usage[]);

/*
 * The options of a command that observes targets, in one call: opt__parse(),
 * the arguments left taken as the command to run (to->have_cmd), then
 * opt__target() of to (filled by OPT_TARGET and its parts) into t. Returns how
 * many arguments are left (the command, moved to argv[0..]); a usage error
 * exits 129 (one line, as every command words it); a pid or tid that does not
 * exist prints one line and returns -1 with t freed (the command exits 1).
 */
int opt__parse_target(int argc, char **argv, const struct opt *opts, const char *const usage[], unsigned flags,
		      struct target_opts *to, struct target *t);

struct workload;
/*
 * workload__start() for the command of `-- CMD`, as every command says it:
 * 0 when it runs; when exec failed, one line (and a hint when a bare name is
 * not in PATH), the child reaped, and the shell's status for it (127 when not
 * found, else 126). argv is the command's, for the message.
 */
int opt__start_command(struct workload *w, char *const argv[]);

#endif
