// SPDX-License-Identifier: GPL-2.0
/*
 * Everyone working on sonde reads HACKING.md first (conventions, tests, how to commit).
 * main.c - sonde's hub: the command table, help, and the runner that prepares
 * what a command needs, calls it, and checks its output reached its destination.
 * How to add a command: see the comment at the top of sonde.h.
 */
#include "sonde.h"
#include "lib/tracefs/tracefs.h"
#include "lib/util.h"
#include "opt.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

/* in the order of an investigation: the checklist, counters, profiles, tracing */
const struct cmd sonde_cmds[] = {
	{ "use", cmd_use, "utilization, saturation and errors of every resource (the USE checklist)", 0 },
	{ "stat", cmd_stat, "count events for a command, processes or the whole system", RUN_TRACEFS },
	{ "list", cmd_list, "list the events this machine can count or trace", RUN_TRACEFS | RUN_MEMLOCK },
	{ "record", cmd_record, "sample stacks into a perf.data file (perf record)", RUN_MEMLOCK | RUN_TRACEFS },
	{ "report", cmd_report, "the hottest functions of a recording, with call graphs", 0 },
	{ "script", cmd_script, "the samples of a recording as perf script text", 0 },
	{ "collapse", cmd_collapse, "folded stacks from a recording or perf script text (stackcollapse)", 0 },
	{ "flame", cmd_flame, "flame graphs (SVG) from folded stacks; speedscope and pprof exports", 0 },
	{ "top", cmd_top, "the hottest functions right now, refreshed live (perf top)", RUN_MEMLOCK },
	{ "offcpu", cmd_offcpu, "time blocked off CPU, by stack (BCC's offcputime), and wall-clock profiles", RUN_MEMLOCK | RUN_TRACEFS },
	{ "lock", cmd_lock, "lock contention by caller, thread or lock: kernel locks, futexes, pthread mutexes", RUN_MEMLOCK | RUN_TRACEFS },
	{ "memleak", cmd_memleak, "allocations still outstanding, by stack (BCC's memleak): a process or the kernel", RUN_MEMLOCK | RUN_TRACEFS },
	{ "ltrace", cmd_ltrace, "library calls as ltrace prints them, from uprobes: the program never stops", RUN_MEMLOCK | RUN_TRACEFS },
	{ "trace", cmd_trace, "syscalls as strace prints them, at a fraction of strace's cost (BPF)", RUN_MEMLOCK | RUN_TRACEFS },
	{ "probe", cmd_probe, "the bpftrace language compiled straight to BPF: probes, maps, histograms", RUN_MEMLOCK | RUN_TRACEFS },
	{ "tools", cmd_tools, "the BCC tools (execsnoop, biolatency...): which run here", RUN_MEMLOCK | RUN_TRACEFS },
	{ "tool", cmd_tool, "run one BCC tool with its options: sonde tool NAME, sonde NAME, or NAME", RUN_MEMLOCK | RUN_TRACEFS },
	{ "sched", cmd_sched, "scheduler latency: perf sched record, latency and timehist", RUN_MEMLOCK | RUN_TRACEFS },
	{ "ftrace", cmd_ftrace, "trace kernel events and functions through a private tracefs instance", RUN_TRACEFS },
	{ "version", cmd_version, "the version, the commit it was built from, the features compiled in", 0 },
	{ "serve", cmd_serve, "the agent Prometheus and pprof scrapers read: /metrics, /debug/pprof/", RUN_MEMLOCK | RUN_TRACEFS },
	{ "addr2sym", cmd_addr2sym, "addresses to functions, inlined frames and source lines (addr2line)", RUN_HIDDEN },
	{ NULL, NULL, NULL, 0 },
};

/* a tool run by its own name: argv[0] is the tool */
static const struct cmd tool_cmd = { "tool", tool__run, "", RUN_MEMLOCK | RUN_TRACEFS };

static void raise_memlock(void)
{
	struct rlimit r = { RLIM_INFINITY, RLIM_INFINITY };

	if (setrlimit(RLIMIT_MEMLOCK, &r))
		debug(1, "cannot raise RLIMIT_MEMLOCK: %s", strerror(errno));
}

static const struct cmd *find_cmd(const char *name)
{
	for (const struct cmd *c = sonde_cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: sonde [-v] [--version] [--help] <command> [<args>]\n\n"
		   "sonde: tracing and profiling for Linux in one binary\n\n"
		   "commands:\n");
	for (const struct cmd *c = sonde_cmds; c->name; c++)
		if (!(c->flags & RUN_HIDDEN))
			fprintf(f, "   %-10s %s\n", c->name, c->help);
	fprintf(f, "\n'sonde help <command>' or 'sonde <command> --help' tells more about a command.\n");
}

static int unknown_cmd(const char *name)
{
	int best = 99;

	error("'%s' is not a sonde command; see 'sonde --help'", name);
	for (const struct cmd *c = sonde_cmds; c->name; c++) {
		int d = util__edit_distance(name, c->name, false);

		if (d < best)
			best = d;
	}
	if (best <= 2 || (best <= 3 && strlen(name) > 5)) {
		fprintf(stderr, "\nthe most similar command%s:\n", "");
		for (const struct cmd *c = sonde_cmds; c->name; c++)
			if (util__edit_distance(name, c->name, false) == best)
				fprintf(stderr, "\t%s\n", c->name);
	}
	return 1;
}

/*
 * `sonde help --dump-options [CMD [SUB...]]`, for scripts/gen-*.sh: without a
 * command the command table ("command" rows: name, hidden or listed, help);
 * with one, its --help as opt__usage() dumps it (opt_dump, opt.h)
 */
static int dump_options(int n, char **args)
{
	const struct cmd *c;
	char *hargv[8];

	if (!n) {
		for (c = sonde_cmds; c->name; c++)
			printf("command\t%s\t%s\t%s\n", c->name, c->flags & RUN_HIDDEN ? "hidden" : "listed", c->help);
		return 0;
	}
	c = find_cmd(args[0]);
	if (!c || n > 6)
		return unknown_cmd(args[0]);
	for (int k = 0; k < n; k++)
		hargv[k] = args[k];
	hargv[n] = (char *)"--help";
	hargv[n + 1] = NULL;
	opt_dump = true;
	return c->fn(n + 1, hargv);
}

/* a pipe or socket whose reader closed (`| head`): not worth a message */
static bool reader_gone(int fd)
{
	struct pollfd p = { fd, POLLOUT, 0 };
	struct stat st;

	if (fstat(fd, &st) || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return false;
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

static int run(const struct cmd *c, int argc, char **argv)
{
	int rc;

	if (c->flags & RUN_MEMLOCK)
		raise_memlock();
	if (c->flags & RUN_TRACEFS)
		tracefs__mount();	/* the command reports it if it ends up needing it */
	rc = c->fn(argc, argv);

	/* a full disk or a closed pipe must not look like success */
	if (fflush(stdout)) {
		if (errno != EPIPE)
			error("cannot write the output: %s", strerror(errno));
		return rc ? rc : 1;
	}
	if (ferror(stdout)) {
		/* an earlier write failed and stdio kept no errno: do not name a stale one */
		if (!reader_gone(fileno(stdout)))
			error("cannot write the output: an earlier write to it failed");
		return rc ? rc : 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	int i = 1;
	const char *self = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	if (strcmp(self, "sonde") && tool__exists(self))	/* a symlink named after a tool */
		return run(&tool_cmd, argc, argv);

	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			char *vargv[] = { (char *)"version", NULL };

			return cmd_version(1, vargv);
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			verbose++;
		} else if (!strncmp(a, "-vv", 3) && strspn(a + 1, "v") == strlen(a + 1)) {
			verbose += strlen(a + 1);
		} else {
			error("unknown option '%s'; see 'sonde --help'", a);
			return 129;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[i], "help")) {
		if (i + 1 < argc && !strcmp(argv[i + 1], "--dump-options"))
			return dump_options(argc - i - 2, argv + i + 2);
		if (i + 1 >= argc) {
			usage(stdout);
			return 0;
		}
		c = find_cmd(argv[i + 1]);
		if (!c)
			return unknown_cmd(argv[i + 1]);
		char *hargv[] = { (char *)c->name, (char *)"--help", NULL };
		return c->fn(2, hargv);
	}
	c = find_cmd(argv[i]);
	if (!c && tool__exists(argv[i]))	/* sonde execsnoop: as sonde tool execsnoop */
		return run(&tool_cmd, argc - i, argv + i);
	if (!c)
		return unknown_cmd(argv[i]);
	return run(c, argc - i, argv + i);
}
