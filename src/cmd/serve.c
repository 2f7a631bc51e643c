// SPDX-License-Identifier: GPL-2.0
/*
 * serve.c - `sonde serve`: the agent Prometheus and pprof scrapers read
 * (node_exporter, ebpf_exporter, Go's net/http/pprof). The engine is
 * src/lib/serve/ (serve.h); this file reads the options and the config,
 * starts the config's probe programs (src/lang's live__start: each runs in
 * a thread of its own, as `sonde probe` runs it) and the server, whose
 * /metrics reads their maps through live__each, and waits for SIGTERM or
 * Ctrl-C. docs/serve.md.
 */
#include "sonde.h"
#include "opt.h"
#include "lang/lang.h"
#include "lib/serve/serve.h"
#include "lib/util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the config's programs, running */
struct probes {
	struct live *live[SERVE_MAX_PROBES];
	int n;
};

struct each_ctx {
	serve_mentry_fn fn;
	void *fctx;
};

/* a live entry as /metrics takes it: count and sum are counters, hist/lhist histograms, the rest gauges */
static int each_entry(void *ctx, const struct live_entry *le)
{
	struct each_ctx *ec = ctx;
	struct serve_mentry me = {
		.map = le->map, .nparts = le->nparts, .parts = le->parts, .value = le->value, .nb = le->nb,
		.counts = le->counts, .le = le->le, .last_unbounded = le->last_unbounded,
		.type = le->agg == AGG_COUNT || le->agg == AGG_SUM ? SERVE_COUNTER :
			le->agg == AGG_HIST || le->agg == AGG_LHIST ? SERVE_HISTOGRAM : SERVE_GAUGE,
	};

	return ec->fn(ec->fctx, &me);
}

static int probes_each(void *ctx, int probe, serve_mentry_fn fn, void *fctx)
{
	struct probes *ps = ctx;
	struct each_ctx ec = { .fn = fn, .fctx = fctx };

	return probe < ps->n ? live__each(ps->live[probe], each_entry, &ec) : 0;
}

static uint64_t probes_output(void *ctx, int probe)
{
	struct probes *ps = ctx;

	return probe < ps->n ? live__output_lines(ps->live[probe]) : 0;
}

static void probes_stop(struct probes *ps)
{
	for (int i = 0; i < ps->n; i++)
		live__stop(ps->live[i]);
	ps->n = 0;
}

/* compile, load and attach each program of the config; 0, or 1 with the error said */
static int probes_start(struct probes *ps, const struct serve_config *c)
{
	char err[1024];

	for (int i = 0; i < c->nr_probes; i++) {
		const struct serve_probe *p = &c->probes[i];
		char *src = NULL;
		size_t len = 0;
		int rc = 0;

		if (p->file && (rc = util__read_file(p->file, 0, &src, &len))) {
			error("probe '%s': cannot read '%s': %s", p->name, p->file, strerror(-rc));
			probes_stop(ps);
			return 1;
		}
		rc = live__start(&ps->live[i], p->file ? p->file : p->name, p->file ? src : p->program,
				 p->file ? len : strlen(p->program), err, sizeof(err));
		free(src);
		if (rc) {
			error("probe '%s': %s", p->name, err);
			probes_stop(ps);
			return 1;
		}
		ps->n++;
	}
	return 0;
}

/* the name of a probe whose run ended by itself, or NULL */
static const char *probe_ended(const struct probes *ps, const struct serve_config *c)
{
	for (int i = 0; i < ps->n; i++)
		if (live__ended(ps->live[i]))
			return c->probes[i].name;
	return NULL;
}

static const char *const serve_usage[] = {
	"sonde serve [--listen HOST:PORT] [--config FILE] [--continuous DURATION]",
	NULL,
};

int cmd_serve(int argc, char **argv)
{
	const char *listen = NULL, *config = NULL, *cont = NULL, *web_config = NULL;
	struct serve_web web = { 0 };
	uint64_t freq = 0;
	struct serve_config c = { 0 };
	struct server *s = NULL;
	char err[512], host[256];
	uint16_t port;
	sigset_t set;
	int sig = 0, rc;
	bool tls;
	struct probes ps = { .n = 0 };
	const struct timespec tick = { .tv_nsec = 200 * 1000 * 1000 };
	const char *ended = NULL;
	const struct opt opts[] = {
		OPT_STRING('l', "listen", &listen, "HOST:PORT", "the address to serve on (default 127.0.0.1:9977; :PORT for every address)"),
		OPT_STRING('c', "config", &config, "FILE", "the YAML config: events to count, probe programs, limits (docs/serve.md)"),
		OPT_STRING(0, "continuous", &cont, "DURATION", "keep profiling in windows of DURATION (10s) and serve the last at once"),
		OPT_STRING(0, "web-config", &web_config, "FILE", "TLS and basic auth, as Prometheus' exporter-toolkit reads them"),
		OPT_FREQ(&freq, "samples per second per CPU (default 99, 19 with --continuous)"),
		OPT_VERBOSE(),
		OPT_END(),
	};

	argc = opt__parse(argc, argv, opts, serve_usage, 0);
	if (argc)
		opt__usage_error(serve_usage, opts, "unexpected argument '%s'", argv[0]);
	if (listen && serve__parse_listen(listen, host, sizeof(host), &port))
		opt__usage_error(serve_usage, opts, "--listen '%s': not HOST:PORT (127.0.0.1:9977, [::1]:9977)", listen);
	/* libmicrohttpd is opened now, not when sonde starts: missing, it is said before anything runs */
	if (serve__libs_load(SERVE_LIB_HTTP, err, sizeof(err))) {
		error("%s", err);
		return 1;
	}
	if (config && serve_config__load(&c, config, err, sizeof(err))) {
		error("%s", err);
		return 1;
	}
	if (web_config && serve_web__load(&web, web_config, err, sizeof(err))) {
		error("%s", err);
		serve_config__free(&c);
		return 1;
	}
	if (cont && (serve__parse_duration(cont, &c.continuous) || c.continuous < 1)) {
		serve_config__free(&c);
		opt__usage_error(serve_usage, opts, "--continuous '%s': a duration of 1s or more (10s, 1m)", cont);
	}
	if (freq)
		c.freq = freq > 1000 ? 1000 : (unsigned)freq;

	/* every thread the server starts inherits this mask: the signals come to sigwait */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* the programs first: one that does not compile or load is said before anything listens */
	if (probes_start(&ps, &c)) {
		serve_web__free(&web);
		serve_config__free(&c);
		return 1;
	}
	c.src = (struct serve_probe_src){ .each = probes_each, .output_lines = probes_output, .ctx = &ps };
	rc = serve__start(&s, &c, listen, &web, err, sizeof(err));
	tls = web.cert_pem != NULL;
	serve_web__free(&web);
	if (rc) {
		error("%s", err);
		probes_stop(&ps);
		serve_config__free(&c);
		return 1;
	}
	printf("sonde serve: listening on http%s://%s%s%s:%u/\n", tls ? "s" : "",
	       listen && listen[0] == '[' ? "[" : "",
	       serve__parse_listen(listen ? listen : c.listen ? c.listen : SERVE_DEFAULT_LISTEN, host, sizeof(host), &port) ||
	       !host[0] ? "0.0.0.0" : host, listen && listen[0] == '[' ? "]" : "", serve__port(s));
	fflush(stdout);
	/* a probe's run that ends by itself (its exit(), an error) ends the agent: looked at every 200 ms */
	while ((sig = sigtimedwait(&set, NULL, &tick)) < 0 && !(ended = probe_ended(&ps, &c)))
		;
	if (ended)
		warning("probe '%s' ended: stopping", ended);
	else
		debug(1, "%s: stopping", strsignal(sig));
	serve__stop(s);
	probes_stop(&ps);	/* detached: no program or link left */
	serve_config__free(&c);
	return 0;
}
