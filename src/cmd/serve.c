// SPDX-License-Identifier: GPL-2.0
/*
 * serve.c - `sonde serve`: the agent Prometheus and pprof scrapers read
 * (node_exporter, ebpf_exporter, Go's net/http/pprof). The engine is
 * src/lib/serve/ (serve.h); this file reads the options and the config,
 * starts the server and waits for SIGTERM or Ctrl-C. docs/serve.md.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/serve/serve.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

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
	const struct opt opts[] = {
		OPT_STRING('l', "listen", &listen, "HOST:PORT", "the address to serve on (default 127.0.0.1:9977; :PORT for every address)"),
		OPT_STRING('c', "config", &config, "FILE", "the YAML config: events to count, limits (docs/serve.md)"),
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
		opt__usage_error(serve_usage, opts, "--listen '%s': not HOST:PORT (127.0.0.1:9977)", listen);
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
	rc = serve__start(&s, &c, listen, &web, err, sizeof(err));
	tls = web.cert_pem != NULL;
	serve_web__free(&web);
	if (rc) {
		error("%s", err);
		serve_config__free(&c);
		return 1;
	}
	printf("sonde serve: listening on http%s://%s:%u/\n", tls ? "s" : "",
	       serve__parse_listen(listen ? listen : c.listen ? c.listen : SERVE_DEFAULT_LISTEN, host, sizeof(host), &port) ||
	       !host[0] ? "0.0.0.0" : host, serve__port(s));
	fflush(stdout);
	serve_config__free(&c);
	sigwait(&set, &sig);
	debug(1, "%s: stopping", strsignal(sig));
	serve__stop(s);
	return 0;
}
