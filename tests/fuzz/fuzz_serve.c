// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_serve.c - what `sonde serve` reads from outside: its YAML config (its
 * events, limits and probes: name, program or file, label names) and
 * the values of a request's query (?seconds=, ?pid=) and its --listen and
 * --continuous values. Each must be refused with an error line or taken
 * within its bounds, never crash. The input: config text, then after a NUL
 * byte the query values and option values, separated by '&'.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/serve/serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t clen = nul ? (size_t)(nul - data) : size;
	struct serve_config c;
	struct serve_query q;
	char err[512], *rest, *parts[4] = { NULL, NULL, NULL, NULL }, host[256];
	uint16_t port;
	double secs;
	int n = 0;

	err[0] = 0;
	if (serve_config__parse(&c, (const char *)data, clen, err, sizeof(err))) {
		if (!err[0])
			abort();	/* every rejection says why */
	} else {
		if (c.nr_events > SERVE_MAX_EVENTS || c.freq > 1000 || (c.continuous && c.continuous < 1))
			abort();
		for (int i = 0; i < c.nr_events; i++)
			if (!c.events[i].name || !*c.events[i].name)
				abort();
		if (c.nr_probes > SERVE_MAX_PROBES)
			abort();
		for (int i = 0; i < c.nr_probes; i++) {	/* a name, and a program or a file */
			const struct serve_probe *p = &c.probes[i];
			struct serve_probe copy;

			if (!p->name || !*p->name || !p->program == !p->file || p->nr_labels > SERVE_MAX_LABELED)
				abort();
			for (int l = 0; l < p->nr_labels; l++)
				if (!p->labels[l].map || p->labels[l].n > SERVE_MAX_KEY_PARTS)
					abort();
			if (!serve_probe__copy(&copy, p)) {
				if (strcmp(copy.name, p->name) || copy.nr_labels != p->nr_labels)
					abort();
				serve_probe__free(&copy);
			}
		}
		serve_config__free(&c);
	}
	if (!nul)
		return 0;
	rest = strndup((const char *)nul + 1, size - clen - 1);
	if (!rest)
		return 0;
	for (char *p = rest, *tok; n < 4 && (tok = strsep(&p, "&"));)
		parts[n++] = tok;
	err[0] = 0;
	if (serve_query__parse(&q, parts[0], parts[1], err, sizeof(err))) {
		if (!err[0])
			abort();
	} else if (q.seconds < 1 || q.seconds > SERVE_MAX_SECONDS || q.pid < 0) {
		abort();
	}
	if (parts[2] && !serve__parse_listen(parts[2], host, sizeof(host), &port) && strlen(host) >= sizeof(host))
		abort();
	if (parts[3] && !serve__parse_duration(parts[3], &secs) && (secs < 0 || secs > 86400))
		abort();
	free(rest);
	return 0;
}
