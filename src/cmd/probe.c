// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - `sonde probe`: bpftrace's language compiled straight to BPF.
 *   sonde probe -e 'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }'
 *   sonde probe script.bt [params]    sonde probe -l 'tracepoint:sched:*'
 */
#include "sonde.h"
#include "opt.h"
#include "lib/bpf/bpf_util.h"
#include "cmd/probe.h"
#include "lang/comptime.h"
#include "lang/lang.h"
#include "lang/provider.h"
#include "lang/runtime.h"
#include "lang/testbench.h"
#include "lib/loop/loop.h"
#include "lib/proc/target.h"
#include "lib/proc/workload.h"
#include "lib/util.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const probe_usage[] = {
	"sonde probe [<options>] -e 'PROGRAM' [<params>...]",
	"sonde probe [<options>] FILE.bt [<params>...]",
	"sonde probe -l ['PATTERN']",
	"sonde probe [-x BINARY] --add 'FUNC ARG...' | --del EVENT | --list | --funcs | --vars FUNC",
	"sonde probe [<options>] FILE.bt [<params>...] -- [--NAME[=VALUE]...] [<params>...]",
	NULL,
};

static void print_name(const char *name, void *ctx)
{
	(*(int *)ctx)++;
	if (!verbose || (strncmp(name, "struct ", 7) && strncmp(name, "union ", 6)))	/* -lv 'struct x': its definition */
		printf("%s\n", name);
	if (verbose)	/* -lv: the arguments, as bpftrace -lv lists them */
		provider__describe(name, stdout);
}

static int start_child(void *ctx)
{
	return workload__start(ctx);
}

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* -l with a program: what each of its attach points matches (interval:ms:100 -> interval:ms:) */
static int list_program(const char *expr, const char *file, int *n)
{
	char *src = NULL;
	size_t len = 0;
	int rc = 0;

	if (expr)
		src = strdup(expr), len = strlen(expr);
	else if ((rc = util__read_file(file, 0, &src, &len))) {
		error("cannot read '%s': %s", file, strerror(-rc));
		return 1;
	}
	struct program *prog = src ? lang__new(expr ? "stdin" : file, src, len) : NULL;

	if (!prog || lang__parse(prog)) {
		if (prog && prog->err)
			fprintf(stderr, "%s\n", prog->err);
		rc = 1;
	}
	for (struct probe *pr = rc ? NULL : prog->probes; pr; pr = pr->next)
		for (struct attach *ap = pr->aps; ap; ap = ap->next) {
			const char *rest = strchr(ap->text, ':');
			char *pat = NULL;
			bool counted = !strcmp(ap->prov, "interval") || !strcmp(ap->prov, "profile") ||
				       !strcmp(ap->prov, "software") || !strcmp(ap->prov, "hardware");

			if (counted && ap->a)
				rc = asprintf(&pat, "%s:%s:*", ap->prov, ap->a) < 0;
			else
				rc = asprintf(&pat, "%s%s", ap->prov, rest ? rest : "") < 0;
			if (!rc)
				provider__list(pat, print_name, n);
			free(pat);
		}
	lang__free(prog);
	free(src);
	return rc;
}

/* "cmd arg1 arg2": bpftrace splits -c on spaces */
static char **split_words(char *s)
{
	int n = 0;
	char **v = calloc(strlen(s) / 2 + 2, sizeof(char *));

	if (!v)
		return NULL;
	for (char *save, *w = strtok_r(s, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		v[n++] = w;
	return v;
}

/* a command's words as given: the first is first (the copy freed with the vector) */
static char **words_as_given(char *first, char *const *argv)
{
	size_t n = 1;
	char **v;

	while (argv[n])
		n++;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	v[0] = first;
	for (size_t i = 1; i < n; i++)
		v[i] = argv[i];
	return v;
}

/* src/lang's messages about no place in the program: through diag.c, as every command's */
static void probe_diag(enum lang_diag kind, const char *msg)
{
	if (kind == LANG_WARNING)
		warning("%s", msg);
	else
		error("%s", msg);
}

/*
 * the program's text: -e's, or the file named first (its name into *file,
 * taken off argv); *src NULL with no -e and no file (a usage error), or when
 * the file cannot be read (said here: returns 1)
 */
static int read_program(const char *expr, int *argc, char ***argv, const char **file, char **src, size_t *len)
{
	int rc;

	*src = NULL;
	if (expr) {
		*src = strdup(expr);
		*len = strlen(expr);
		*file = "stdin";
		return 0;
	}
	if (!*argc)
		return 0;
	*file = (*argv)[0];
	rc = strcmp(*file, "-") ? util__read_file(*file, 0, src, len) : util__read_fd(0, 0, src, len);
	if (rc) {
		error("cannot read '%s': %s", *file, strerror(-rc));
		return 1;
	}
	(*argc)--;
	(*argv)++;
	return 0;
}

/* after --: --NAME[=VALUE] are named parameters, the rest positional ones (opt__parse left them in order) */
static void set_params(struct program *prog, int argc, char **argv, int nmore)
{
	int npos = 0;

	prog->named = calloc(argc + nmore + 1, sizeof(char *));
	for (int i = 0; i < argc; i++) {
		if (prog->named && !strncmp(argv[i], "--", 2) && argv[i][2])
			prog->named[prog->nnamed++] = argv[i] + 2;
		else
			argv[npos++] = argv[i];
	}
	prog->params = (const char **)argv;
	prog->nparams = npos;
}

enum { HELPED = -1000, AGAIN = -1001 };	/* compile(): -- --help printed the program's options; compile again */

/* parse, expand, check: 0, HELPED, or 1 with the error said */
static int compile(struct program *prog, const char *cmd, int pid, bool no_warnings, char *why, size_t whylen)
{
	int rc;

	watch__set_cmd(cmd);	/* watchpoint:FUNC+argN is in the -c command's binary */
	rc = lang__parse(prog);
	if (!rc)	/* BPFTRACE_* variables override the config block, as in bpftrace */
		rc = lang__config_env(prog, environ);
	if (!rc)
		rc = lang__expand_macros(prog);
	if (!rc) {	/* getopt(): the named parameters; -- --help lists them */
		bool helped;

		rc = getopt__prepare(prog, stdout, &helped);
		if (!rc && helped)
			return HELPED;
	}
	if (!rc)
		rc = provider__expand_all(prog, pid);
	if (!rc)	/* test: and bench: probes run with --test and --bench, alone */
		rc = testbench__select(prog);
	if (!rc)
		rc = testbench__filter(prog);
	if (!rc)
		rc = lang__check(prog);
	if (rc && prog->btf_deferred) {	/* said nothing yet: the second time, with the kernel's BTF */
		debug(1, "compiling again with the kernel's BTF: %s", prog->err ? prog->err : "");
		return AGAIN;
	}
	if (prog->warn && !no_warnings)
		fputs(prog->warn, stderr);
	if (rc && why)
		snprintf(why, whylen, "%s", prog->err ? prog->err : "cannot compile the program");
	else if (rc)
		fprintf(stderr, "%s\n", prog->err ? prog->err : "sonde: cannot compile the program");
	if (rc)
		return 1;
	return 0;
}

/* the program of job j; its parameters taken from the one compiled before (prev), when there was one */
static struct program *new_program(struct probe_job *j, struct program *prev)
{
	struct program *prog = lang__new(j->file, j->src, j->len);

	if (!prog)
		return NULL;
	if (prev) {	/* set_params() reordered j->argv: take its result */
		prog->named = prev->named;
		prog->nnamed = prev->nnamed;
		prog->params = prev->params;
		prog->nparams = prev->nparams;
		prev->named = NULL;
	} else {
		set_params(prog, j->argc, j->argv, j->nnamed);
		for (int i = 0; prog->named && i < j->nnamed; i++)
			prog->named[prog->nnamed++] = j->named[i];
	}
	prog->cfg.unsafe = j->unsafe;
	prog->cfg.helper_check = j->kcheck;
	prog->cfg.percentiles = j->percentiles;
	prog->no_warnings = j->no_warnings;
	prog->mode = j->mode;
	prog->probe_filter = j->probe_filter;
	for (int i = 0; i < j->nincludes; i++) {
		char *inc = arena__alloc(prog->arena, strlen(j->includes[i]) + 3);

		sprintf(inc, "<%s>", j->includes[i]);
		pp__include(prog, inc, inc + strlen(inc));
	}
	return prog;
}

/* -c CMD: its words into *cargv (freed by the caller), the command held in w until the probes are attached; 0 or 1 (said) */
static int prepare_command(const struct probe_job *j, struct workload *w, char ***cargv)
{
	char *c = strdup(j->cmd_argv ? j->cmd_argv[0] : j->cmd);
	int rc;

	*cargv = !c ? NULL : j->cmd_argv ? words_as_given(c, j->cmd_argv) : split_words(c);
	if (!*cargv || !(*cargv)[0]) {
		free(c);
		error("-c takes a command");
		return 1;
	}
	if ((rc = workload__prepare(w, *cargv))) {
		error("cannot start '%s': %s", (*cargv)[0], strerror(-rc));
		return 1;
	}
	return 0;
}

/* compile and run one program (sonde probe's, or a tool's: src/cmd/tool.c) */
int probe__run(struct probe_job *j)
{
	const char *cmd = j->cmd;
	int pid = j->pid, rc, interrupted = 0;

	lang__set_diag(probe_diag);
	struct program *prog = new_program(j, NULL);

	if (!prog)
		return 1;

	struct workload w = { .pid = 0, .go_fd = -1, .err_fd = -1 };
	char **cargv = NULL;
	int status = -1;
	char err[8192] = "";

	rc = compile(prog, cmd, pid, j->no_warnings, j->why, j->whylen);
	if (rc == AGAIN) {
		struct program *again = new_program(j, prog);

		if (!again) {
			rc = 1;
			goto out;
		}
		lang__free(prog);
		prog = again;
		bpf_util__vmlinux_btf();	/* parsed now: nothing is left unknown */
		rc = compile(prog, cmd, pid, j->no_warnings, j->why, j->whylen);
	}
	if (rc == HELPED) {
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	if (cmd && !j->dry_run && (rc = prepare_command(j, &w, &cargv)))
		goto out;
	/* bpftrace's runtime tests ask for a line once attached: its own variable, as bpftrace reads it */
	bool notify = getenv("__BPFTRACE_NOTIFY_PROBES_ATTACHED") != NULL;
	struct run_opts ro = {
		.dry_run = j->dry_run,
		.dump = verbose > 0,
		.json = j->json,
		.pid = pid > 0 ? pid : w.pid,
		.cpid = w.pid,
		.start_child = w.pid ? start_child : NULL,
		.child_ctx = &w,
		.child_status = &status,
		.out = stdout,
		.full_buffering = j->full_buffering,
		.interrupted = &interrupted,
		.quiet = j->quiet,
		.begin_last = j->quiet || notify,	/* what BEGIN prints comes after that line */
		.notify_attached = notify,
		.probe_only = j->probe_only,
		.skipped = &j->skipped,
	};
	rc = runtime__run(prog, &ro, err, sizeof(err));
	if (!rc && j->why && j->skipped)
		snprintf(j->why, j->whylen, "%s", err);
	if (rc && j->why) {
		snprintf(j->why, j->whylen, "%s", prog->err ? prog->err : err);
		rc = 1;
	} else if (rc) {
		if (prog->err)
			fprintf(stderr, "%s\n", prog->err);
		else
			error("%s", err);
		if (w.pid && status == -1)
			workload__abort(&w);
		rc = 1;
	} else if (w.pid && status == -1) {
		/* exit() in BEGIN: the command never ran */
		workload__end(w.pid, SIGTERM, LOOP_GRACE_MS, &status);
	}	/* -c: the command's status is not ours, as in bpftrace (README "Exit status") */
out:
	if (cargv) {
		free(cargv[0]);
		free(cargv);
	}
	if (!rc && prog->exit_code)	/* exit(CODE), a failed assert(), --test: a test failed */
		rc = prog->exit_code;
	free(prog->named);
	lang__free(prog);
	j->interrupted = interrupted;
	return rc;
}

/* --include HEADER: one more, in the order given */
struct includes {
	const char **v;
	int n;
};

static int add_include(const struct opt *o, const char *arg)
{
	struct includes *inc = o->value;
	const char **v = realloc(inc->v, (inc->n + 1) * sizeof(*v));

	if (!v)
		return -1;
	inc->v = v;
	inc->v[inc->n++] = arg;
	return 0;
}

/* the options that do not go straight into the probe_job */
struct probe_opts {
	const char *expr, *format, *bufmode, *outfile, *mode;
	struct target_opts to;
	bool list, test, bench, info;
};

/*
 * The options into o, j and inc, checked (a usage error exits 129), and -p's
 * process into j->pid; returns how many words are left (a file, parameters),
 * or -1 when -p's process does not exist (said). With --info, the rest is
 * left unchecked.
 */
static int parse_options(struct probe_opts *o, struct probe_job *j, struct includes *inc, int argc, char **argv)
{
	struct opt opts[] = {
		OPT_STRING('e', "expr", &o->expr, "PROGRAM", "the program to run"),
		OPT_STRING('c', "cmd", &j->cmd, "CMD", "run CMD and trace until it ends (its pid is cpid)"),
		OPT_STRING('p', "pid", &o->to.pids, "PID", "uprobes fire only in PID; the program ends when PID does"),
		OPT_BOOL('l', "list", &o->list, "list the probes matching PATTERN"),
		OPT_STRING('f', "format", &o->format, "FORMAT", "output format: text or json"),
		OPT_STRING('o', "output", &o->outfile, "FILE", "write the output (and system()'s) to FILE"),
		OPT_BOOL('q', "quiet", &j->quiet, "no \"Attaching N probes...\" line"),
		OPT_BOOL(0, "dry-run", &j->dry_run, "compile (with -v: show the bytecode), load nothing"),
		OPT_BOOL(0, "unsafe", &j->unsafe, "allow system() and signal()"),
		OPT_STRING('B', "buffering", &o->bufmode, "MODE", "output buffering: line (default), full or none"),
		OPT_BOOL(0, "no-warnings", &j->no_warnings, "do not print warnings"),
		OPT_BOOL(0, "percentiles", &j->percentiles, "under each hist/lhist: p50 p90 p99 p999 and the exact max"),
		OPT_COUNT('k', NULL, &j->kcheck, "warn when a BPF helper fails (map update/delete, stack, signal); -kk: reads too"),
		OPT_BOOL(0, "test", &o->test, "run the test: probes (only them) and say which pass"),
		OPT_BOOL(0, "bench", &o->bench, "time the bench: probes (only them): average ns per run"),
		OPT_BOOL(0, "info", &o->info, "what this system, this build and the kernel let programs do"),
		OPT_STRING(0, "mode", &o->mode, "MODE", "run (default), test (as --test) or bench (as --bench)"),
		OPT_CALLBACK(0, "include", inc, "HEADER", "as '#include <HEADER>' at the program's start (repeatable)",
			     add_include),
		OPT_STRING(0, "probe-filter", &j->probe_filter, "REGEX", "run only the probes whose names REGEX finds (and BEGIN, END)"),
		OPT_VERBOSE(),
		OPT_GROUP("Parameters: $1, $2... are the positional ones (before or after --); getopt(\"NAME\", default)\n"
			  "reads --NAME=VALUE given after -- (-- --help lists the program's own options).\n"
			  "--test: a test passes when its probe returns 0 and does not call exit(). --bench: each\n"
			  "bench: probe is loaded as a socket filter and run by BPF_PROG_TEST_RUN with a repeat\n"
			  "count; the table shows the kernel's average ns per run (median of 3 runs of ~0.1 s)."),
		OPT_END(),
	};
	const char *mode;
	struct target tg;
	int rc;

	argc = opt__parse(argc, argv, opts, probe_usage, 0);	/* options anywhere, as bpftrace takes them; -- ends them */
	if (strcmp(o->format, "text") && strcmp(o->format, "json"))
		opt__usage_error(probe_usage, opts, "unknown output format '%s' (text or json)", o->format);
	if (o->bufmode && strcmp(o->bufmode, "line") && strcmp(o->bufmode, "full") && strcmp(o->bufmode, "none"))
		opt__usage_error(probe_usage, opts, "-B takes line, full or none, not '%s'", o->bufmode);
	if (o->info)
		return argc;
	mode = o->mode;
	if (mode && strcmp(mode, "run") && strcmp(mode, "test") && strcmp(mode, "bench"))
		opt__usage_error(probe_usage, opts, "--mode takes run, test or bench, not '%s'", mode);
	if (mode && ((o->test && strcmp(mode, "test")) || (o->bench && strcmp(mode, "bench"))))
		opt__usage_error(probe_usage, opts, "--%s and --mode %s do not go together", o->test ? "test" : "bench", mode);
	o->test = o->test || (mode && !strcmp(mode, "test"));
	o->bench = o->bench || (mode && !strcmp(mode, "bench"));
	if (o->test && o->bench)
		opt__usage_error(probe_usage, opts, "--test and --bench do not go together");
	j->mode = o->test ? MODE_TEST : o->bench ? MODE_BENCH : MODE_RUN;
	j->json = !strcmp(o->format, "json");
	j->full_buffering = o->bufmode && !strcmp(o->bufmode, "full");
	if (!o->to.pids)
		return argc;
	/* bpftrace's -p: one process, which must exist */
	opt__check_one_pid(probe_usage, o->to.pids);
	rc = opt__target(&tg, &o->to, probe_usage);
	j->pid = tg.nr_pids ? tg.pids[0] : 0;
	target__free(&tg);
	return rc ? -1 : argc;
}

/* -o FILE and -B's buffering for stdout; -1 when FILE cannot be written (said) */
static int setup_stdout(const struct probe_opts *o)
{
	const char *b = o->bufmode;

	if (o->outfile && !freopen(o->outfile, "w", stdout)) {
		error("cannot write '%s': %s", o->outfile, strerror(errno));
		return -1;
	}
	/* as bpftrace: stdout is line buffered unless -B says otherwise */
	setvbuf(stdout, NULL, b && !strcmp(b, "full") ? _IOFBF : b && !strcmp(b, "none") ? _IONBF : _IOLBF, BUFSIZ);
	return 0;
}

/* -l [PATTERN | FILE.bt | -e PROGRAM]: the probes that match; the exit status */
static int list_probes(const char *expr, int pid, int argc, char **argv)
{
	int n = 0;

	if (argc > 1)
		opt__usage_error(probe_usage, NULL, "-l takes one pattern");
	provider__set_target_pid(pid);	/* -p PID -l 'usdt:*': the files that process maps */
	if (expr || (argc && is_file(argv[0])))	/* -l -e PROGRAM, -l FILE.bt: the program's probes */
		return list_program(expr, argc ? argv[0] : NULL, &n);
	if (argc && strlen(argv[0]) > 3 && !strcmp(argv[0] + strlen(argv[0]) - 3, ".bt"))
		warning("no file '%s': listing the probes it matches as a pattern", argv[0]);
	provider__list(argc ? argv[0] : NULL, print_name, &n);
	return 0;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_opts o = { .format = "text", .to = { .have_cmd = true } };	/* -p alone is enough */
	struct probe_job job = { 0 };
	static struct includes inc;	/* static: still reachable on the early returns */
	const char *file;
	char *src;
	size_t len;
	int rc;

	if (probe_events__wanted(argc, argv))	/* --add, --del, -x...: perf probe's dynamic events */
		return probe_events__cmd(argc, argv);
	argc = parse_options(&o, &job, &inc, argc, argv);
	if (o.info)
		return probe__info(stdout);
	if (argc < 0 || setup_stdout(&o))
		return 1;
	if (o.list)
		return list_probes(o.expr, job.pid, argc, argv);
	if (read_program(o.expr, &argc, &argv, &file, &src, &len))
		return 1;
	if (!src && !o.expr)
		opt__usage_error(probe_usage, NULL, "give a program with -e or a file");
	if (!src)
		return 1;
	job.file = file;
	job.src = src;
	job.len = len;
	job.argc = argc;
	job.argv = argv;
	job.includes = inc.v;
	job.nincludes = inc.n;
	rc = probe__run(&job);
	free(inc.v);
	inc = (struct includes){ 0 };
	free(src);
	if (job.interrupted) {	/* while the kernel verified: end as the signal would have (130, 143) */
		signal(job.interrupted, SIG_DFL);
		raise(job.interrupted);
	}
	return rc;
}
