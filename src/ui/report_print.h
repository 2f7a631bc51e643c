/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_print.h - perf report --stdio's text, and JSON, from a hist (nothing is
 * computed here). The renderers only read the hist and the reader, which stay
 * the caller's, and return nothing to own.
 */
#ifndef SONDE_REPORT_PRINT_H
#define SONDE_REPORT_PRINT_H

#include <stdio.h>

#include "lib/perfdata/perfdata.h"
#include "lib/profile/hist.h"

struct report_print {
	FILE *out;
	double percent_limit;	/* entries below this share of the total are not shown */
	double graph_min;	/* call graph branches below this share are not shown (perf: 0.5) */
	size_t top;		/* at most this many entries; 0 = all */
	bool show_nr;		/* -n: a Samples column */
	bool graph;		/* print the call graph under each entry */
	bool quiet;		/* no header */
	const char *only_comm;	/* show only entries of this command (top's zoom) */
	const char *elided_comm;	/* the one command every entry has, its column left out ("# comm: X") */
	const char *only_dso;	/* show only entries of this DSO */
};

/* the "# Samples: 651  of event 'cpu-clock'" block; first is true for the first event */
void report_print__header(const struct report_print *p, const struct hist *h, const char *event,
			  unsigned long long lost, bool first);
void report_print__entries(const struct report_print *p, const struct hist *h);
/* one event as a JSON object (no newline) */
void report_print__json(const struct report_print *p, const struct hist *h, const char *event,
			unsigned long long lost);
/* perf report --header's block: host, kernel, CPUs, command line, events, build ids of r */
void report_print__file_header(const struct report_print *p, struct perfdata_reader *r);
/*
 * Every event's hist (hists[i] of attrs[i]; an event without samples is left
 * out when there are several) as text, each with its header, then the tip
 * naming input; or, with json, one JSON document
 */
void report_print__events(const struct report_print *p, struct hist *const *hists, const struct perfdata_attr *attrs,
			  int nr, unsigned long long lost, bool json, const char *input);

/* perf top's screen above the entries */
struct top_screen {
	double rate;			/* samples per second since the last screen */
	double kernel_pct;		/* of the samples so far, in the kernel */
	unsigned long long lost;
	const char *event, *target;	/* "cpu-clock", "all, 2 CPUs" */
	bool tty;			/* redraw the terminal, show the keys */
	bool zero;			/* z is on */
};
/* the PerfTop line, the zoom (p->only_comm, p->only_dso), the entries of h, the keys */
void report_print__top(const struct report_print *p, const struct hist *h, const struct top_screen *s);

#endif
