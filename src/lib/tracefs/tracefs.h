/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefs.h - where tracefs is, and the tracepoints it describes.
 * Returned strings are static (tracefs__dir) or owned by the caller (the lists).
 */
#ifndef SONDE_TRACEFS_H
#define SONDE_TRACEFS_H

#include <stdbool.h>

/* the mounted tracefs directory, or NULL */
const char *tracefs__dir(void);

/* mount tracefs at /sys/kernel/tracing when it is not mounted; 0 or -errno */
int tracefs__mount(void);
/* write s to DIR/file, truncating it unless append (O_TRUNC alone clears it when s is ""); 0 or -errno */
int tracefs__put(const char *dir, const char *file, const char *s, bool append);

/* the id of tracepoint GROUP:NAME (for perf_event_attr.config), or -errno */
long long tracefs__event_id(const char *group, const char *name);

/* whether some group of tracefs has an event of this name (a raw tracepoint's, as a rule) */
bool tracefs__event_named(const char *name);

struct tp_name {
	char *group;
	char *name;
};

/*
 * Every tracepoint whose group and name match the fnmatch(3) patterns, sorted
 * by group then name. *out is malloc'd (free with tracefs__free_names); returns
 * the count or -errno.
 */
int tracefs__glob(const char *group_pat, const char *name_pat, struct tp_name **out);
void tracefs__free_names(struct tp_name *names, int n);

#endif
