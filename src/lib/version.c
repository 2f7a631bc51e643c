// SPDX-License-Identifier: GPL-2.0
/*
 * version.c - what `sonde --version` and `sonde version --features` say: the
 * commit the binary was built from (build/gen/commit.h, written by the
 * Makefile from git or, in a tarball, from the file COMMIT) and the
 * capabilities compiled in, with the versions of the libraries behind them
 * (serve's are opened with dlopen when serve runs: here too, to tell).
 */
#include "lib/version.h"
#include "lib/serve/serve.h"
#include "commit.h"

#include <bpf/libbpf_version.h>
#include <elfutils/version.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>

#ifndef SONDE_BPF_SKELS
#define SONDE_BPF_SKELS ""
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

static struct version_feature features[] = {
	{ "zstd", true, "compressed perf.data (record -z, and perf's) with libzstd " ZSTD_VERSION_STRING },
	{ "dwarf-unwind", true, "--call-graph dwarf: user stacks unwound by elfutils libdw 0."
	  STR(_ELFUTILS_VERSION) },
	{ "bpf-skeletons", true, "BPF programs embedded, loaded by libbpf " STR(LIBBPF_MAJOR_VERSION) "."
	  STR(LIBBPF_MINOR_VERSION) ": " SONDE_BPF_SKELS },
	{ "probe-language", true, "bpftrace's language compiled to BPF in the binary (no LLVM)" },
	{ "bcc-tools", true, "the BCC tools embedded as programs ('sonde tools')" },
	{ "serve", false, NULL },	/* these two: filled by version__features */
	{ "tls", false, NULL },
	{ NULL, false, NULL },
};


const char *version__commit(void)
{
	return SONDE_COMMIT;
}

/*
 * serve's libraries are opened when serve starts (lib/serve/dynlib.c), so
 * whether serve and TLS work is known only by opening them: they are yes
 * when they load here, and no with the library missing and its package.
 */
static void serve_features(struct version_feature *serve, struct version_feature *tls)
{
	static char swhat[384], twhat[384];
	char err[300];

	serve->what = swhat;
	tls->what = twhat;
	serve->present = tls->present = false;
	if (serve__libs_load(SERVE_LIB_HTTP | SERVE_LIB_YAML, err, sizeof(err))) {
		snprintf(swhat, sizeof(swhat), "'sonde serve': %s", err);
		snprintf(twhat, sizeof(twhat), "'sonde serve --web-config': no serve");
		return;
	}
	serve->present = true;
	snprintf(swhat, sizeof(swhat), "'sonde serve': HTTP by libmicrohttpd %s, its config by libyaml %s (opened by serve)",
		 serve__http_version(), serve__yaml_version());
	if (!serve__http_tls())
		snprintf(twhat, sizeof(twhat), "'sonde serve --web-config': this libmicrohttpd was built without TLS");
	else if (serve__libs_load(SERVE_LIB_CRYPT, err, sizeof(err)))
		snprintf(twhat, sizeof(twhat), "'sonde serve --web-config': %s", err);
	else
		tls->present = true;
	if (tls->present)
		snprintf(twhat, sizeof(twhat), "'sonde serve --web-config': TLS by libmicrohttpd with gnutls, "
			 "bcrypt by crypt(3)");
}

const struct version_feature *version__features(void)
{
	struct version_feature *serve = NULL, *tls = NULL;

	for (struct version_feature *f = features; f->name; f++) {
		if (!strcmp(f->name, "serve"))
			serve = f;
		else if (!strcmp(f->name, "tls"))
			tls = f;
	}
	serve_features(serve, tls);
	return features;
}
