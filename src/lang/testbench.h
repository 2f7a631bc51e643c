/* SPDX-License-Identifier: GPL-2.0 */
/*
 * testbench.h - the probes sonde runs itself rather than the kernel: test:NAME
 * (--test), bench:NAME (--bench) and self:signal:SIGUSR1 (when sonde gets the
 * signal), and what happens to probes that do not exist or cannot attach
 * (config missing_probes = error, warn or ignore). The instances belong to the
 * program's arena; nothing here keeps memory of its own.
 */
#ifndef SONDE_LANG_TESTBENCH_H
#define SONDE_LANG_TESTBENCH_H

#include "lang/lang.h"

#include <stdio.h>

struct ck;
struct gen;
struct ap_inst;
struct attach;
struct ring_buffer;

/* `return EXPR;`: EXPR is an integer, the test's verdict in test: probes (check.c); 0 or -1 */
int testbench__check_return(struct ck *c, struct node *s);
/* in a test: probe, return EXPR ends the program with EXPR (gen.c): its slot, its store, r0 at the end */
void testbench__gen_prologue(struct gen *g);
void testbench__gen_return(struct gen *g, struct node *s);
void testbench__gen_epilogue(struct gen *g);

/* keep the probes prog->mode runs: test: and bench: only in their mode, and only them there; 0 or -EINVAL */
int testbench__select(struct program *p);

/* --probe-filter: keep the attach points whose names p->probe_filter (an extended regex) finds, and BEGIN and END; 0 or -EINVAL */
int testbench__filter(struct program *p);

/* the providers (provider.c's table) */
int testbench__expand_self(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail);
int testbench__expand_test(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail);

/* what the runtime lends the test and bench runs: its ring buffer, where records print, its exit flag */
struct tb_io {
	struct ring_buffer *rb;
	FILE **out;
	bool *exiting;
	int *errors;	/* errorf()s so far */
	bool json;	/* -f json: each benchmark's result as a json line */
};
/* --test / --bench on loaded programs: 0 (and prog->exit_code 1 when a test failed, else 0) or -errno with err */
int testbench__run(struct program *p, struct tb_io *io, char *err, size_t errlen);

/* self:signal:SIGUSR1: does the program have one; run them (their records are read as usual) */
bool testbench__wants_sigusr1(struct program *p);
void testbench__fire_sigusr1(struct program *p);

/*
 * missing_probes: an attach point that expanded to nothing with -ENOENT (ap),
 * or a probe left with no attach point (pr): true when it is skipped (with a
 * warning for "warn"), false when it stays an error.
 */
bool testbench__skip_missing(struct program *p, struct attach *ap, struct probe *pr);
/* an instance that failed to attach with err: 0 when skipped (missing_probes warn or ignore), else rc */
int testbench__attach_failed(struct program *p, struct ap_inst *in, int rc, const char *err);

#endif
