/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace_hist.h - `sonde ftrace --hist` counted by sonde's BPF twin
 * (ftrace_hist.c) and `sonde ftrace --latency` (ftrace_latency.c). Both
 * return an exit status and free what they made: nothing to own.
 */
#ifndef SONDE_CMD_FTRACE_HIST_H
#define SONDE_CMD_FTRACE_HIST_H

#include <stdbool.h>

/* the hist file's text for SPEC on EVENT, counted in BPF; the exit code */
int ftrace_hist__bpf(const char *spec, const char *event, double duration, const char *pid, char *const *argv,
		     int argc, const char *output, bool show_source);

/* the latency tracer's max latency and its trace; the exit code */
int ftrace_latency__run(const char *tracer, double duration, unsigned long thresh_us, char *const *argv, int argc,
			const char *output);

#endif
