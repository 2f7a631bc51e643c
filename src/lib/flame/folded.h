/* SPDX-License-Identifier: GPL-2.0 */
/*
 * folded.h - folded stacks ("root;frame;leaf COUNT", stackcollapse-perf.pl's
 * format) merged into a stack tree.
 *
 * The tree holds one node per distinct stack prefix, so memory grows with the
 * number of distinct stacks, never with the input size: several inputs are
 * streamed into one tree line by line. Each node keeps two counts, "after"
 * (the only one of a plain profile) and "before" (differential profiles:
 * difffolded.pl's "stack COUNT1 COUNT2" lines, or two inputs read into the two
 * slots). The same tree writes folded text back, sorted the way
 * stackcollapse-perf.pl sorts it, which is how `sonde collapse` prints.
 *
 * Ownership: the struct folded owns every node and every name; pointers
 * returned by folded__name() live until folded__free().
 */
#ifndef SONDE_FOLDED_H
#define SONDE_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum folded_flags {
	FOLDED_REVERSE    = 1 << 0,	/* reverse each stack: the leaf becomes the root */
	FOLDED_FLAMECHART = 1 << 1,	/* keep input order; merge only with the last sibling */
	FOLDED_STRIP_HEX  = 1 << 2,	/* 0x1234abcd -> 0x... (difffolded.pl -s) */
};

/* which count a plain "stack COUNT" line adds to */
enum folded_slot {
	FOLDED_AFTER  = 0,	/* the profile itself, or the "after" side of a diff */
	FOLDED_BEFORE = 1,	/* the "before" side of a diff */
};

#define FOLDED_NONE UINT32_MAX

/*
 * A count: sample counts, periods or weights, maybe fractional (flamegraph.pl
 * takes "1.5"). long double holds every integer up to 2^64-1 exactly (x86's
 * 64-bit significand, a 113-bit one elsewhere); the parser refuses lines that
 * would take a side's sum past 2^64-1.
 */
typedef long double folded_count;
#define FOLDED_COUNT_MAX 18446744073709551615.0L

/*
 * A node is 32 bytes: its "after" counts are kept as integers while every
 * count added is one (the common case: samples, periods, bytes), and move to
 * arrays of folded_count beside the nodes when a fraction, a negative count
 * or a sum past 2^64-1 arrives. Read them with folded__self() and
 * folded__subtotal(), which give the same values either way.
 */
struct folded_node {
	uint32_t name;		/* folded__name(f, name) */
	uint32_t parent;	/* FOLDED_NONE for the root */
	uint32_t child;		/* first child, FOLDED_NONE if none */
	uint32_t next;		/* next sibling, FOLDED_NONE if none */
	uint64_t int_self, int_total;	/* folded.c's own: read folded__self(), folded__subtotal() */
};

struct folded;

struct folded *folded__new(unsigned flags);
void folded__free(struct folded *f);

/*
 * Add one stack of nframes frames, root first (frames[i] is lens[i] bytes, no
 * NUL needed), with a count for the after slot and one for the before slot.
 * Returns 0 or -ENOMEM. Stacks may be added after folded__finish(); call it
 * again before reading the tree.
 */
int folded__add_frames(struct folded *f, const char *const *frames, const size_t *lens,
		       size_t nframes, folded_count after, folded_count before);
/*
 * The stack the last folded__add_frames added, as a handle: folded__add_at(f, it, after) adds
 * to it again without its frames. Valid until folded__finish(); UINT32_MAX when there is none
 * or the tree keeps input order (FOLDED_FLAMECHART: the same frames later are another node).
 */
uint32_t folded__last_stack(const struct folded *f);
int folded__add_at(struct folded *f, uint32_t stack, folded_count after);
/* the same with "a;b;c" (len bytes); empty frames are kept as they are */
int folded__add_stack(struct folded *f, const char *stack, size_t len, folded_count after, folded_count before);

/*
 * Parse one folded line (no newline needed): "stack COUNT" adds COUNT to slot,
 * "stack COUNT1 COUNT2" adds COUNT1 to before and COUNT2 to after. Returns 0,
 * 1 when the line was skipped (*why then says why, a static string; empty and
 * comment "# " lines are skipped with *why NULL), or -ENOMEM.
 */
int folded__parse_line(struct folded *f, const char *line, size_t len,
		       enum folded_slot slot, const char **why);

/*
 * The stack of a folded line without its count ("a;b;c", len bytes) and its
 * count, from a text input that is not folded text (bpftrace's maps): checked
 * and added as folded__parse_line adds a line (FOLDED_STRIP_HEX, empty frames,
 * a slot's sum kept under 2^64). Returns 0, 1 with *why set, or -ENOMEM.
 */
int folded__add_text(struct folded *f, const char *stack, size_t len, folded_count count,
		     enum folded_slot slot, const char **why);

/* called for each skipped line: the command prints it */
typedef void (*folded_warn_fn)(void *arg, const char *src, unsigned long lineno, const char *why);

/*
 * Stream every line of in into the tree (src names the input in warnings).
 * Returns the number of lines skipped as malformed, or -errno (-ENOMEM, a read
 * error, -EILSEQ for binary input, -EFBIG for a line over UTIL_MAX_LINE:
 * util__text_error() words them). Memory grows with the distinct stacks only.
 */
long folded__read(struct folded *f, FILE *in, const char *src, enum folded_slot slot,
		  folded_warn_fn warn, void *arg);

/*
 * difffolded.pl -n: scale the before counts so both sides have the after
 * side's total (each stack's before count truncated to an integer, as
 * difffolded.pl does). Call before folded__finish().
 */
void folded__normalize(struct folded *f);

/*
 * Compute inclusive totals and order siblings (by name, or input order for
 * flame charts). Returns 0 or -ENOMEM.
 */
int folded__finish(struct folded *f);

/* reading the finished tree: node 0 is the root (no name, every stack under it) */
const struct folded_node *folded__node(const struct folded *f, uint32_t id);
uint32_t folded__nr_nodes(const struct folded *f);
const char *folded__name(const struct folded *f, uint32_t name, size_t *len);
uint32_t folded__nr_names(const struct folded *f);
bool folded__is_diff(const struct folded *f);	/* any before count was added */
/* the after counts of a node: this stack alone, and with its descendants */
folded_count folded__self(const struct folded *f, uint32_t id);
folded_count folded__subtotal(const struct folded *f, uint32_t id);
/* the before counts of a node (0 unless differential) */
folded_count folded__before_self(const struct folded *f, uint32_t id);
folded_count folded__before_total(const struct folded *f, uint32_t id);
folded_count folded__total(const struct folded *f);		/* after total */
folded_count folded__total_before(const struct folded *f);
size_t folded__nr_stacks(const struct folded *f);	/* nodes with a non-zero count */

enum folded_write_flags {
	FOLDED_WRITE_DIFF = 1 << 0,	/* "stack BEFORE AFTER", difffolded.pl's form */
};

/*
 * Write one line per distinct stack, sorted by plain byte comparison of the
 * stack text as stackcollapse-perf.pl sorts its output. Returns 0 or -errno.
 */
int folded__write(struct folded *f, FILE *out, unsigned flags);

/* format a count as folded text does: integers exactly, without a fraction; else
   up to 9 decimals, trailing zeros dropped (0.5, 1.25) */
void folded__format_count(char *buf, size_t len, folded_count v);

#endif
