/* SPDX-License-Identifier: GPL-2.0 */
/*
 * serve_int.h - what the parts of lib/serve share and nothing else uses:
 * the YAML loader, /metrics' state (the counters of the config's events, the last /proc
 * snapshot) and the server's own counters it reports.
 * struct metrics owns its counters and snapshot (metrics__free).
 */
#ifndef SONDE_SERVE_INT_H
#define SONDE_SERVE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/serve/serve.h"

#include <yaml.h>

/* text as one YAML document (libyaml's loader) into doc, which the caller deletes; 0 or -errno with err */
int serve__yaml_load(yaml_document_t *doc, const char *text, size_t len, char *err, size_t errlen);

/* the server's own figures, shown in /metrics */
struct serve_stats {
	uint64_t requests, profiles, shared, refused, bad_requests;
};

struct metrics;

/* open the config's events (system-wide) and take the first snapshot; 0 or -errno with err */
int metrics__new(struct metrics **out, const struct serve_config *c, char *err, size_t errlen);
/* the exposition text (OpenMetrics' when openmetrics) into out; 0 or -ENOMEM. Thread-safe. */
int metrics__render(struct metrics *m, const struct serve_stats *st, bool openmetrics, struct serve_buf *out);
void metrics__free(struct metrics *m);

#endif
