/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gen.h - the code generator: one probe instance's AST to an array of
 * struct bpf_insn, with the places where map file descriptors go. The caller
 * owns the returned code and frees it with bpf_code__free().
 */
#ifndef SONDE_LANG_GEN_H
#define SONDE_LANG_GEN_H

#include "lang/lang.h"
#include "lang/provider.h"

#include <linux/bpf.h>
#include <stdio.h>
#include <sys/types.h>

/* map references other than the program's own maps (which are >= 0) */
enum { MAPREF_RINGBUF = -1, MAPREF_KSTACK = -2, MAPREF_USTACK = -3, MAPREF_LOST = -4, MAPREF_PIDS = -5, MAPREF_JOIN = -6 };
/* the variables shared by for loops and the code around them: a per-CPU array, one value per attach point */
enum { MAPREF_VARS = -7 };
/* globmatch/strstr: their strings and state, for bpf_loop's callback (a per-CPU array, one value per attach point) */
enum { MAPREF_STRS = -8 };
/* syscall_name(): the names by number, 24 bytes each ("" where none), a read-only array (runtime.c) */
enum { MAPREF_SCNAMES = -10, SCNAME_LEN = 24 };
/* exit(): one u64 of an array, set by exit(); every probe but END returns at once once it is set */
enum { MAPREF_EXIT = -11 };
/* skboutput(): the perf event array bpf_skb_output writes to (output_pcap.c) */
enum { MAPREF_SKB = -9 };
/* iter probes' printf formats: a frozen read-only array (provider_iter.c) */
enum { MAPREF_ITERFMT = -20 };	/* far from the others' numbers */
/* join(): up to JOIN_ARGS strings of JOIN_LEN bytes after the 8-byte header, built in a per-CPU map */
enum { JOIN_ARGS = 16, JOIN_LEN = 64 };

struct gen_env {
	uint64_t start_ns;	/* CLOCK_MONOTONIC at start, for `elapsed` */
	pid_t cpid;		/* the -c child, for `cpid` */
	int ncpus;
	int possible_cpus;	/* per-CPU maps have a value for each (0: ncpus) */
	int rawtp_skip;		/* frames a raw tracepoint's kstack leaves out: the program and the
				 * kernel's glue before the tracepoint's caller (runtime.c) */
};

struct bpf_reloc {
	int insn;		/* the first half of an LD_IMM64 */
	int map;		/* mapinfo index or MAPREF_* */
};

struct bpf_code {
	struct bpf_insn *insns;
	int n, cap;
	struct bpf_reloc *rel;
	int nrel;
	int stack;		/* bytes of BPF stack used */
	int *subs;		/* where each subprogram (for-loop callback) starts, after the main one */
	int nsubs;
	int vars_size;		/* bytes of MAPREF_VARS's value this program uses (key: its attach point's number) */
};

/* 0 or -EINVAL with prog->err (pointing at the source) */
int gen__probe(struct program *prog, struct probe *pr, struct ap_inst *in, const struct gen_env *env,
	       struct bpf_code *out);
void bpf_code__free(struct bpf_code *c);
/* a readable listing of the instructions (-v) */
void bpf_code__dump(const struct bpf_code *c, FILE *f);

#endif
