// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_dat.c - `sonde ftrace report -i trace.dat`: a trace-cmd file (version
 * 6; trace-cmd's own or `sonde ftrace record`'s) printed as `trace-cmd report`
 * prints it (lib/tracefs/tracedat.h). `sonde ftrace record` itself is ftrace.c's
 * trace with its pages going to the file instead of trace_pipe's text.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/util.h"
#include "lib/tracefs/tracedat.h"
#include "cmd/ftrace_dat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const report_usage[] = {
	"sonde ftrace report [-i trace.dat]",
	NULL,
};

static int put_line(const char *s, void *arg)
{
	(void)arg;
	if (puts(s) < 0)
		return -errno;
	return 0;
}

int ftrace_dat__report(int argc, char **argv)
{
	const char *input = "trace.dat";
	const struct opt opts[] = {
		OPT_STRING('i', "input", &input, "FILE", "the trace.dat to read (default: trace.dat)"),
		OPT_VERBOSE(),
		OPT_END(),
	};
	char *buf = NULL, err[512] = "";
	size_t len = 0;
	int rc;

	argc = opt__parse(argc, argv, opts, report_usage, 0);
	if (argc > 0)
		opt__usage_error(report_usage, opts, "unexpected argument '%s'", argv[0]);
	rc = util__read_file(input, (size_t)1 << 34, &buf, &len);
	if (rc) {
		error("cannot read '%s': %s", input, strerror(-rc));
		return 1;
	}
	rc = tracedat__report((const unsigned char *)buf, len, put_line, NULL, err, sizeof(err));
	free(buf);
	if (rc == -EPIPE)
		return 1;
	if (rc) {
		error("%s: %s", input, err[0] ? err : strerror(-rc));
		return 1;
	}
	if (fflush(stdout)) {
		error("cannot write the report: %s", strerror(errno));
		return 1;
	}
	return 0;
}
