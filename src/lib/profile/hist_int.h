/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist_int.h - the inside of a hist (hist.h), shared by hist.c (entries, call
 * graphs, srcline, sorting) and hist_frames.c (the hist's strings, what it takes
 * of a frame, the stacks that wait to be added).
 */
#ifndef SONDE_HIST_INT_H
#define SONDE_HIST_INT_H

#include "lib/profile/hist.h"
#include "lib/util.h"

/*
 * perf 6.1 asks addr2line for the line of an address each time it compares a
 * new entry's srcline, and gives up on a DSO (srcline.c's A2L_FAIL_LIMIT) when
 * its first 123 answers were all failures: later addresses of that DSO are then
 * shown as "sym+offset" even where the DSO has lines. Inclusive entries look up
 * absolute addresses, which always fail in a PIE, so this happens to programs
 * that appear in many call chains before a sample lands in them: keep the same
 * count so the entries are perf's.
 */
#define A2L_FAIL_LIMIT 123

struct a2l_state {
	const struct dso *object;
	int fails;		/* 1 until a line is found, then 0 for good */
	bool off;		/* gave up on this DSO */
};

struct line_slot {		/* one looked-up address of a DSO */
	const struct dso *object;	/* NULL: empty slot */
	uint64_t vaddr;
	const char *fileline;	/* interned "demo.c:39", or NULL when the DSO has no line there */
	int state;		/* index into a2l */
};

/*
 * perf 6.1 computes an entry's srcline only when it compares it with another
 * entry equal in the keys before srcline, and sizes the column with the
 * srclines known by then: an entry alone with its prefix (one sample of its
 * symbol with --sort sym,srcline) is left out of the width and its text cut
 * to it. How many times entries of each prefix were inserted or compared:
 */
struct prefix_count {
	uint64_t hash;		/* of the keys before srcline; 0: empty slot */
	uint32_t n;
};

/* a string of the frames' (the symbolizer's, stable while the hist lives) -> the hist's copy */
struct canon_slot {
	const char *p;		/* NULL: empty */
	int kind;		/* CANON_* */
	const char *s;
};

enum { CANON_SYM, CANON_INLINED, CANON_DSO };

/* what the hist takes of a frame, its strings the hist's own interned copies (one pointer each) */
struct hframe {
	const char *name;	/* the symbol (call graph nodes), NULL when unresolved */
	const char *sym;	/* the entry's: name, or "name (inlined)" */
	const char *dso;	/* perf's short name of the DSO */
	uint64_t ip, dso_addr;
	uint64_t key;		/* cc_node.key */
	unsigned dso_rank;	/* cc_node.dso_rank */
	bool kernel, inlined, has_dso;
};

/* what the entries of a sample take from it besides its frames */
struct sample_info {
	const char *comm;	/* interned */
	uint32_t pid, tid;
	int32_t cpu;
};

/*
 * Samples of one stack and one thread are added once, with the sum of their periods, when the
 * hist is sorted (or POOL_MAX frames wait): most samples repeat a stack seen before. A stack is
 * what the entries and graphs take of its frames: the session's stacks (session_sample.stack_id)
 * that differ only in addresses inside the same functions are one. They are added in the order
 * their first samples came, which makes the same entries and graphs in the same order as adding
 * each sample (an entry or node made by a stack is made by its first sample, whose addresses the
 * stack keeps). Not with srcline, whose lookups perf counts per sample.
 */
#define POOL_MAX (1u << 17)	/* frames waiting (7 MB): past this, the stacks are added */

/* a session's stack of one thread: its waiting stack */
struct stack_alias {
	uint32_t stack_id;	/* 0: empty */
	uint32_t st;		/* index into hist.stacks */
};

struct hstack {
	uint64_t hash;		/* of its thread and what is taken of its frames (see same_frame) */
	int nf;
	struct sample_info si;
	uint64_t period, count;
	size_t first;		/* its nf frames and then its own in the pool */
};

/* call graph nodes come from chunks, each a util__huge_block() */
#define CC_CHUNK (UTIL_HUGE / sizeof(struct cc_node) - 1)
struct cc_chunk {
	struct cc_chunk *next;
	size_t used;
	struct cc_node n[CC_CHUNK];
};
_Static_assert(sizeof(struct cc_node) == 64 && sizeof(struct cc_chunk) <= UTIL_HUGE, "a node a cache line");

struct hist {
	struct hist_opts o;
	struct canon_slot *canon;
	size_t ncanon, canon_cap;
	struct hframe *hf;	/* the frames of the sample being added */
	size_t hf_cap;
	struct hstack *stacks;	/* waiting to be added, in order */
	size_t nstacks, stacks_cap;
	size_t *stack_index;	/* open addressing over stacks, by their hash */
	size_t stack_index_cap;
	struct stack_alias *aliases;	/* open addressing: a session's stack (and thread) -> its stack */
	size_t naliases, alias_cap;
	struct hframe *pool;	/* the waiting stacks' frames */
	size_t npool, pool_cap;
	struct cc_chunk *chunks;
	size_t nchunks;			/* made so far */
	struct cc_node **cc_index;	/* chained hash of the call graph nodes, see cc_find */
	size_t cc_count, cc_index_cap;
	const char *unknown_dso;	/* "[unknown]", interned */
	const char *last_comm;		/* the last sample's, interned */
	struct hist_entry *e;
	size_t n, cap;
	size_t *index;		/* open addressing over e, by key hash */
	size_t index_cap;
	char **strs;		/* interned strings */
	size_t nstrs, strs_cap;
	size_t *str_index;
	size_t str_index_cap;
	struct line_slot *lines;	/* HK_SRCLINE: answers per (DSO, address) */
	size_t nlines, lines_cap;
	struct a2l_state *a2l;
	size_t na2l;
	int srcline_pos;	/* HK_SRCLINE's place among the keys, -1 if not one */
	struct prefix_count *prefixes;	/* see srcline_sized */
	size_t nprefixes, prefixes_cap;
	uint64_t total, samples;
};

static inline uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	return h;
}

/* one word more into a hash of words (interned strings hash by their address) */
static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/* the hist's copy of s (one per string: equal strings are one pointer); NULL for NULL or no memory */
const char *hist__intern(struct hist *h, const char *s);
/* perf's short name of a DSO (see session__dso_short_name), interned */
const char *hist__short_dso(struct hist *h, const char *dso);
/* what the hist takes of frame f; -ENOMEM */
int hist__frame(struct hist *h, const struct session_frame *f, struct hframe *o);
/* the waiting stack of the session's stack stack_id and si, or NULL */
struct hstack *hist__stack_find(struct hist *h, uint32_t stack_id, const struct sample_info *si);
/*
 * the waiting stack of frames hf (nf) and self and si, made (its frames copied, period and
 * count 0) when no stack waits with the same; stack_id (not 0) is found by hist__stack_find
 * from then on. NULL: no memory
 */
struct hstack *hist__stack_get(struct hist *h, uint32_t stack_id, const struct sample_info *si,
			       const struct hframe *hf, int nf, const struct hframe *self);
/* no stack waits any more */
void hist__stacks_forget(struct hist *h);

#endif
