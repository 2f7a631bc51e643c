/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load.h - loading a program's BPF programs into the kernel so that the
 * verifier, which can take seconds on long loops, neither hides that it is
 * slow nor keeps SIGINT and SIGTERM waiting: between loader__start() and
 * loader__stop() those signals interrupt the load (the kernel stops verifying
 * when a signal is pending, and libbpf is not let retry it), and after
 * LOADER_SLOW_MS (or $SONDE_VERIFIER_SLOW_MS) sonde says the verifier is busy. The loader is the caller's,
 * freed by loader__stop(); the file descriptors loaded are the caller's.
 */
#ifndef SONDE_LANG_LOAD_H
#define SONDE_LANG_LOAD_H

#include <bpf/bpf.h>
#include <stdbool.h>
#include <stddef.h>

enum { LOADER_SLOW_MS = 2000 };

struct loader;

/* catch SIGINT and SIGTERM (unblocked) and start the clock; quiet: no message when slow. NULL on ENOMEM */
struct loader *loader__start(bool quiet);
/* what is being verified, for the message (the string must live until the next call or loader__stop()) */
void loader__what(struct loader *l, const char *name);
/*
 * bpf_prog_load(), retried on EAGAIN as libbpf does unless a signal came: a
 * file descriptor, -EINTR when SIGINT or SIGTERM came (nothing loaded), or
 * -errno. opts->attempts is overwritten.
 */
int loader__prog(struct loader *l, enum bpf_prog_type type, const char *name, const char *license,
		 const struct bpf_insn *insns, size_t n, struct bpf_prog_load_opts *opts);
/* the signal that came (SIGINT, SIGTERM) or 0; the handlers and mask as they were before loader__start() */
int loader__stop(struct loader *l);

#endif
