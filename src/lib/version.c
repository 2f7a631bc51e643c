// SPDX-License-Identifier: GPL-2.0
/*
 * version.c - what `sonde --version` and `sonde version --features` say: the
 * commit the binary was built from (build/gen/commit.h, written by the
 * Makefile from git or, in a tarball, from the file COMMIT) and the
 * capabilities compiled in, with the versions of the libraries behind them.
 */
#include "lib/version.h"
#include "commit.h"

#include <bpf/libbpf_version.h>
#include <elfutils/version.h>
#include <zstd.h>

#ifndef SONDE_BPF_SKELS
#define SONDE_BPF_SKELS ""
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

static const struct version_feature features[] = {
	{ "zstd", true, "compressed perf.data (record -z, and perf's) with libzstd " ZSTD_VERSION_STRING },
	{ "dwarf-unwind", true, "--call-graph dwarf: user stacks unwound by elfutils libdw 0."
	  STR(_ELFUTILS_VERSION) },
	{ "bpf-skeletons", true, "BPF programs embedded, loaded by libbpf " STR(LIBBPF_MAJOR_VERSION) "."
	  STR(LIBBPF_MINOR_VERSION) ": " SONDE_BPF_SKELS },
	{ "probe-language", true, "bpftrace's language compiled to BPF in the binary (no LLVM)" },
	{ "bcc-tools", true, "the BCC tools embedded as programs ('sonde tools')" },
	{ "serve", true, "'sonde serve': HTTP by libmicrohttpd, its config by libyaml" },
	{ "tls", true, "'sonde serve --web-config': TLS by libmicrohttpd with gnutls, bcrypt by crypt(3)" },
	{ NULL, false, NULL },
};

const char *version__commit(void)
{
	return SONDE_COMMIT;
}

const struct version_feature *version__features(void)
{
	return features;
}
