/* SPDX-License-Identifier: GPL-2.0 */
/*
 * script_print.h - perf script's text: the samples and side-band records of a
 * session in perf's default format, with perf's -F field selection. Nothing is
 * computed here. The printer owns its per-event tables (script_print__free()
 * releases them); the session and the tracepoint formats stay the caller's.
 */
#ifndef SONDE_SCRIPT_PRINT_H
#define SONDE_SCRIPT_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/perfdata/tracedata.h"
#include "lib/profile/session.h"

struct script_print {
	FILE *out;
	unsigned fields[2];		/* the fields of samples and of tracepoints (bits of script_print.c's enum) */
	bool user_set[2];		/* -F gave them */
	bool ns, hide_callgraph, show_task, show_mmap, show_lost;
	bool inline_;			/* DWARF-unwound frames with their inline lists (perf's --inline) */
	int name_width;
	unsigned *attr_fields;		/* per attr: the fields that apply */
	bool *attr_callchain;		/* per attr: frames one per line */
	struct tracedata *td;		/* tracepoint formats, through libtraceevent */
	struct session *s;
	char trace_buf[4096];
};

/* perf script's default fields, to out */
void script_print__init(struct script_print *p, FILE *out);
/* perf's -F: "comm,tid,ip", "+period", "-cpu", "trace:comm,trace"; -1 with one line in err */
int script_print__parse_fields(struct script_print *p, const char *spec, char *err, size_t errlen);
/* some field asks for source lines (the session must resolve them) */
bool script_print__wants_srcline(const struct script_print *p);
/* which fields each event of s shows; td (may be NULL) formats tracepoints. 0 or -ENOMEM */
int script_print__setup(struct script_print *p, struct session *s, struct tracedata *td);
/* session__walk's callbacks, arg the printer: -EIO when out failed */
int script_print__sample(const struct session_sample *smp, void *arg);
int script_print__event(const struct perfdata_event *ev, void *arg);
void script_print__free(struct script_print *p);

#endif
