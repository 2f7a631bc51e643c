// SPDX-License-Identifier: GPL-2.0
/*
 * folded.c - the folded-stack parser and stack tree (see folded.h).
 *
 * Names are interned once (an arena of bytes and an open-addressing table of
 * ids); nodes live in blocks of 2 MiB, numbered in order of creation. An only
 * child is found as its parent's node->child; the children of a parent with
 * two or more through a second table keyed by (parent, name). A node is
 * always created after its parent, so inclusive totals are one backward pass
 * over the nodes, with no recursion, however deep the stacks.
 *
 * What the cost of a large input is made of (issue #21, bench/flame.sh):
 * fresh memory (page faults and clearing pages), then one cache miss per
 * lookup in a table larger than the caches. Hence 32-byte nodes with integer
 * counts, huge pages for the blocks, a chain of new nodes made without a
 * lookup, and 8-byte slots in the table.
 */
#include "lib/flame/folded.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA_CHUNK (1u << 20)

struct name {
	const char *s;
	uint32_t len;
	uint32_t hash;
};

/*
 * Slots are placed by a hash of the whole path (the names from the root),
 * known before any lookup: all of a stack's slots are prefetched at once
 * instead of waiting for one cache miss after another. A slot is 8 bytes, the
 * node and its path hash: a new node (most of a large tree's lookups) is found
 * missing in the slots alone, and only a slot whose hash matches has its node
 * read to compare (parent, name). Half the 16 bytes of a slot that held the
 * key: the table, the largest thing after the nodes, is as many fresh pages
 * fewer (page faults and clearing were a third of the time).
 */
struct child_slot {
	uint32_t node, hash;
};

struct arena_chunk {
	struct arena_chunk *prev;
	size_t used, size;
	char data[];
};

struct folded {
	unsigned flags;
	struct folded_node **blocks;		/* node id -> blocks[id >> BLOCK_SHIFT] */
	uint32_t nr_blocks, cap_blocks;
	uint32_t nr_nodes, cap_nodes;		/* cap_nodes: of the arrays beside the nodes */
	folded_count *before_self, *before_total;	/* NULL until a before count arrives */
	/* the after counts once one is not an integer under 2^64 (folded.h): NULL until then */
	folded_count *frac_self, *frac_total;
	folded_count sum[2];		/* what parsed lines added to each slot: kept under 2^64 */
	uint32_t *last_child;			/* flame charts: the tail of each child list */
	uint64_t *multi;			/* bit per node: it has two children or more */
	struct child_slot *child_tab;		/* (parent, name) -> node */
	uint32_t child_mask, nr_slots;
	struct name *names;
	uint32_t nr_names, cap_names;
	uint32_t *name_tab;			/* bytes -> name id */
	uint32_t name_mask;
	struct arena_chunk *arena;
	bool diff;
	bool totals_done;		/* int_total holds sums of a folded__finish() */
	/* the previous stack's nodes: sorted input shares prefixes with the line before */
	uint32_t *path, *ids;
	uint64_t *phash;
	size_t path_len, path_cap;
	/* parser scratch */
	const char **fr;
	size_t *fl;
	size_t fr_cap;
	char *hexbuf;
	size_t hexcap;
};

/* a word-at-a-time hash: names are hashed once per frame of every input line */
static uint32_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = len * 0x9e3779b97f4a7c15ULL, w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, len);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	return (uint32_t)h;
}

/* the path hash of a child: its parent's path hash mixed with its name */
static inline uint64_t hash_path(uint64_t parent, uint32_t name)
{
	uint64_t h = (parent ^ name) * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 29);
}

#define PATH_SEED 0x243f6a8885a308d3ULL

/*
 * The child table is probed at random, one slot per new node: in 4 KiB pages
 * nearly every probe of a table of millions of nodes is also a TLB miss, and
 * every page a fault. Transparent huge pages, where the system leaves them to
 * madvise, take one fault and one TLB entry per 2 MiB (-13% CPU time on 4.3M
 * nodes). Only the whole 2 MiB pages inside the block; a hint, no harm without.
 */
#define HUGE_PAGE ((uintptr_t)2 << 20)

static void want_huge_pages(void *p, size_t len)
{
	uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t e = ((uintptr_t)p + len) & ~(HUGE_PAGE - 1);

	if (len >= 2 * HUGE_PAGE && e > a)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
}

/*
 * Nodes are written one after another, millions of them: in blocks of 2 MiB
 * (65,536 nodes) that never move, each a huge page where the system gives one,
 * the tree takes one page fault per block instead of one per 4 KiB, and
 * memory is what the nodes use (a growing array would be copied or remapped
 * at each doubling). The first block stays in small pages: a small tree
 * touches only what it uses.
 */
#define BLOCK_SHIFT 16
#define BLOCK_NODES ((uint32_t)1 << BLOCK_SHIFT)

static inline struct folded_node *node_at(const struct folded *f, uint32_t id)
{
	return &f->blocks[id >> BLOCK_SHIFT][id & (BLOCK_NODES - 1)];
}

#define BLOCK_BYTES (sizeof(struct folded_node) * BLOCK_NODES)

/* a block aligned to 2 MiB, mapped for itself: posix_memalign() would map
   twice the size to align it (address space that ulimit -v counts) */
static void *map_block(void)
{
	size_t len = BLOCK_BYTES + HUGE_PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a, end;

	if (p == MAP_FAILED)
		return NULL;
	a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	end = (uintptr_t)p + len;
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	if (end > a + BLOCK_BYTES)
		munmap((void *)(a + BLOCK_BYTES), end - (a + BLOCK_BYTES));
	return (void *)a;
}

static int add_block(struct folded *f)
{
	void *p;

	if (f->nr_blocks == f->cap_blocks) {
		uint32_t cap = f->cap_blocks ? f->cap_blocks * 2 : 16;
		struct folded_node **b = realloc(f->blocks, sizeof(*b) * cap);

		if (!b)
			return -ENOMEM;
		f->blocks = b;
		f->cap_blocks = cap;
	}
	if (!(p = map_block()))
		return -ENOMEM;
	if (f->nr_blocks)
		(void)madvise(p, BLOCK_BYTES, MADV_HUGEPAGE);
	f->blocks[f->nr_blocks++] = p;
	return 0;
}

static char *arena_copy(struct folded *f, const char *s, size_t len)
{
	struct arena_chunk *c = f->arena;
	char *p;

	if (!c || c->size - c->used < len + 1) {
		size_t size = len + 1 > ARENA_CHUNK ? len + 1 : ARENA_CHUNK;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->prev = f->arena;
		c->used = 0;
		c->size = size;
		f->arena = c;
	}
	p = c->data + c->used;
	memcpy(p, s, len);
	p[len] = 0;
	c->used += len + 1;
	return p;
}

static int grow_table(uint32_t **tab, uint32_t *mask, uint32_t count,
		      uint32_t (*hash_of)(struct folded *, uint32_t), struct folded *f)
{
	uint32_t size = *mask + 1, nsize, nmask, *nt;

	if (*tab && (uint64_t)count * 2 < size)
		return 0;
	nsize = *tab ? size * 2 : 1024;
	nmask = nsize - 1;
	nt = malloc(sizeof(*nt) * nsize);
	if (!nt)
		return -ENOMEM;
	memset(nt, 0xff, sizeof(*nt) * nsize);
	if (*tab) {
		for (uint32_t i = 0; i < size; i++) {
			uint32_t id = (*tab)[i], h;

			if (id == FOLDED_NONE)
				continue;
			for (h = hash_of(f, id) & nmask; nt[h] != FOLDED_NONE; h = (h + 1) & nmask)
				;
			nt[h] = id;
		}
		free(*tab);
	}
	*tab = nt;
	*mask = nmask;
	return 0;
}

static uint32_t name_hash_of(struct folded *f, uint32_t id)
{
	return f->names[id].hash;
}

static int grow_children(struct folded *f)
{
	uint32_t size = f->child_mask + 1, nsize, nmask;
	struct child_slot *nt;

	/* up to 3/4 full: a probe of eight slots is one cache line */
	if (f->child_tab && (uint64_t)f->nr_slots * 4 < (uint64_t)size * 3)
		return 0;
	nsize = f->child_tab ? size * 2 : 1024;
	if (nsize < size)
		return -EOVERFLOW;
	nmask = nsize - 1;
	/* node 0 (the root) is nobody's child: a zeroed slot is empty, and a
	   large calloc gets the kernel's zeroed pages without a pass over them */
	if (!(nt = calloc(nsize, sizeof(*nt))))
		return -ENOMEM;
	want_huge_pages(nt, sizeof(*nt) * nsize);
	for (uint32_t i = 0; f->child_tab && i < size; i++) {
		struct child_slot *e = &f->child_tab[i];
		uint32_t h;

		if (!e->node)
			continue;
		for (h = e->hash & nmask; nt[h].node; h = (h + 1) & nmask)
			;
		nt[h] = *e;
	}
	free(f->child_tab);
	f->child_tab = nt;
	f->child_mask = nmask;
	return 0;
}

static int intern(struct folded *f, const char *s, size_t len, uint32_t *out)
{
	uint32_t h = hash_bytes(s, len), i;

	if (len > UINT32_MAX - 1)
		return -EOVERFLOW;
	for (i = h & f->name_mask; f->name_tab[i] != FOLDED_NONE; i = (i + 1) & f->name_mask) {
		struct name *n = &f->names[f->name_tab[i]];

		if (n->hash == h && n->len == len && !memcmp(n->s, s, len)) {
			*out = f->name_tab[i];
			return 0;
		}
	}
	if (f->nr_names == f->cap_names) {
		uint32_t cap = f->cap_names ? f->cap_names * 2 : 256;
		struct name *nn = realloc(f->names, sizeof(*nn) * cap);

		if (!nn)
			return -ENOMEM;
		f->names = nn;
		f->cap_names = cap;
	}
	char *copy = arena_copy(f, s, len);

	if (!copy)
		return -ENOMEM;
	f->names[f->nr_names] = (struct name){ copy, (uint32_t)len, h };
	f->name_tab[i] = f->nr_names;
	*out = f->nr_names++;
	if (grow_table(&f->name_tab, &f->name_mask, f->nr_names, name_hash_of, f))
		return -ENOMEM;
	return 0;
}

static int ensure_before(struct folded *f)
{
	if (f->before_self)
		return 0;
	f->before_self = calloc(f->cap_nodes, sizeof(folded_count));
	f->before_total = calloc(f->cap_nodes, sizeof(folded_count));
	if (!f->before_self || !f->before_total)
		return -ENOMEM;
	f->diff = true;
	return 0;
}

/* move the after counts from the nodes' integers to arrays of folded_count, exactly */
static int go_fractional(struct folded *f)
{
	if (f->frac_self)
		return 0;
	f->frac_self = malloc(sizeof(folded_count) * f->cap_nodes);
	f->frac_total = malloc(sizeof(folded_count) * f->cap_nodes);
	if (!f->frac_self || !f->frac_total) {
		free(f->frac_self);
		free(f->frac_total);
		f->frac_self = f->frac_total = NULL;
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < f->nr_nodes; i++) {
		f->frac_self[i] = node_at(f, i)->int_self;
		f->frac_total[i] = node_at(f, i)->int_total;
	}
	return 0;
}

/* add v to a node's own after count: as an integer while it stays one */
static int add_self(struct folded *f, uint32_t id, folded_count v)
{
	int rc;

	if (!f->frac_self) {
		uint64_t u, sum;

		if (v >= 0 && v <= FOLDED_COUNT_MAX && (folded_count)(u = (uint64_t)v) == v &&
		    !__builtin_add_overflow(node_at(f, id)->int_self, u, &sum)) {
			node_at(f, id)->int_self = sum;
			return 0;
		}
		if ((rc = go_fractional(f)))
			return rc;
	}
	f->frac_self[id] += v;
	return 0;
}

/* a pair of count arrays (self, total) grown to cap entries; -ENOMEM leaves both usable */
static int grow_counts(folded_count **self, folded_count **total, uint32_t cap)
{
	void *p;

	if (!(p = realloc(*self, sizeof(folded_count) * cap)))
		return -ENOMEM;
	*self = p;
	if (!(p = realloc(*total, sizeof(folded_count) * cap)))
		return -ENOMEM;
	*total = p;
	return 0;
}

static int new_node(struct folded *f, uint32_t parent, uint32_t name, uint32_t *out)
{
	uint32_t id = f->nr_nodes;

	if (id == FOLDED_NONE)
		return -EOVERFLOW;
	if (id >> BLOCK_SHIFT == f->nr_blocks) {
		int rc = add_block(f);

		if (rc)
			return rc;
	}
	if (f->nr_nodes == f->cap_nodes) {
		uint32_t cap = f->cap_nodes * 2;
		void *p;

		if (cap < f->cap_nodes)
			cap = FOLDED_NONE;
		if ((f->frac_self && grow_counts(&f->frac_self, &f->frac_total, cap)) ||
		    (f->before_self && grow_counts(&f->before_self, &f->before_total, cap)))
			return -ENOMEM;
		if (!(p = realloc(f->multi, sizeof(uint64_t) * (cap / 64 + 1))))
			return -ENOMEM;
		f->multi = p;
		memset(f->multi + f->cap_nodes / 64 + 1, 0, sizeof(uint64_t) * (cap / 64 - f->cap_nodes / 64));
		if (f->last_child) {
			if (!(p = realloc(f->last_child, sizeof(uint32_t) * cap)))
				return -ENOMEM;
			f->last_child = p;
		}
		f->cap_nodes = cap;
	}
	*node_at(f, id) = (struct folded_node){ name, parent, FOLDED_NONE, FOLDED_NONE, 0, 0 };
	if (f->before_self)
		f->before_self[id] = f->before_total[id] = 0;
	if (f->frac_self)
		f->frac_self[id] = f->frac_total[id] = 0;
	if (f->last_child) {
		f->last_child[id] = FOLDED_NONE;
		/* append: a flame chart keeps input order */
		if (f->last_child[parent] == FOLDED_NONE)
			node_at(f, parent)->child = id;
		else
			node_at(f, f->last_child[parent])->next = id;
		f->last_child[parent] = id;
	} else {
		if (node_at(f, parent)->child != FOLDED_NONE)
			f->multi[parent / 64] |= 1ULL << (parent % 64);
		node_at(f, id)->next = node_at(f, parent)->child;
		node_at(f, parent)->child = id;
	}
	f->nr_nodes++;
	*out = id;
	return 0;
}

static bool is_multi(const struct folded *f, uint32_t id)
{
	return f->multi[id / 64] & (1ULL << (id % 64));
}

static void put_slot(struct folded *f, uint32_t node, uint32_t hash)
{
	uint32_t i;

	for (i = hash & f->child_mask; f->child_tab[i].node; i = (i + 1) & f->child_mask)
		;
	f->child_tab[i] = (struct child_slot){ node, hash };
	f->nr_slots++;
}

/*
 * The child of parent named name, made if missing. hash is the child's path
 * hash, parent_hash its parent's. A parent with one child or none keeps them
 * out of the table: its child is node->child, and a new subtree is a chain of
 * such nodes, made without a lookup. The table holds the children of parents
 * with two or more, all of them from the second on.
 */
static int child_of(struct folded *f, uint32_t parent, uint32_t name, uint64_t hash,
		    uint64_t parent_hash, uint32_t *out)
{
	uint32_t i;
	int rc;

	if (f->flags & FOLDED_FLAMECHART) {
		uint32_t last = f->last_child[parent];

		if (last != FOLDED_NONE && node_at(f, last)->name == name) {
			*out = last;
			return 0;
		}
		return new_node(f, parent, name, out);
	}
	if (!is_multi(f, parent)) {
		uint32_t only = node_at(f, parent)->child;

		if (only == FOLDED_NONE)
			return new_node(f, parent, name, out);
		if (node_at(f, only)->name == name) {
			*out = only;
			return 0;
		}
		/* the second child: both go to the table */
		if ((rc = new_node(f, parent, name, out)))
			return rc;
		put_slot(f, only, (uint32_t)hash_path(parent_hash, node_at(f, only)->name));
		put_slot(f, *out, (uint32_t)hash);
		return grow_children(f);
	}
	for (i = (uint32_t)hash & f->child_mask; f->child_tab[i].node;
	     i = (i + 1) & f->child_mask) {
		const struct child_slot *e = &f->child_tab[i];

		if (e->hash == (uint32_t)hash) {
			const struct folded_node *n = node_at(f, e->node);

			if (n->parent == parent && n->name == name) {
				*out = e->node;
				return 0;
			}
		}
	}
	if ((rc = new_node(f, parent, name, out)))
		return rc;
	f->child_tab[i] = (struct child_slot){ *out, (uint32_t)hash };
	f->nr_slots++;
	return grow_children(f);
}

struct folded *folded__new(unsigned flags)
{
	struct folded *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->flags = flags;
	f->cap_nodes = 1024;
	if (flags & FOLDED_FLAMECHART)
		f->last_child = malloc(sizeof(uint32_t) * f->cap_nodes);
	f->multi = calloc(f->cap_nodes / 64 + 1, sizeof(uint64_t));
	if (add_block(f) || !f->multi || ((flags & FOLDED_FLAMECHART) && !f->last_child) ||
	    grow_table(&f->name_tab, &f->name_mask, 0, name_hash_of, f) ||
	    grow_children(f)) {
		folded__free(f);
		return NULL;
	}
	*node_at(f, 0) = (struct folded_node){ FOLDED_NONE, FOLDED_NONE, FOLDED_NONE, FOLDED_NONE, 0, 0 };
	if (f->last_child)
		f->last_child[0] = FOLDED_NONE;
	f->nr_nodes = 1;
	return f;
}

void folded__free(struct folded *f)
{
	if (!f)
		return;
	while (f->arena) {
		struct arena_chunk *p = f->arena->prev;

		free(f->arena);
		f->arena = p;
	}
	for (uint32_t i = 0; i < f->nr_blocks; i++)
		munmap(f->blocks[i], BLOCK_BYTES);
	free(f->blocks);
	free(f->before_self);
	free(f->before_total);
	free(f->frac_self);
	free(f->frac_total);
	free(f->last_child);
	free(f->multi);
	free(f->child_tab);
	free(f->names);
	free(f->name_tab);
	free(f->fr);
	free(f->fl);
	free(f->path);
	free(f->ids);
	free(f->phash);
	free(f->hexbuf);
	free(f);
}

uint32_t folded__last_stack(const struct folded *f)
{
	return f->path_len && !(f->flags & FOLDED_FLAMECHART) ? f->path[f->path_len - 1] : UINT32_MAX;
}

int folded__add_at(struct folded *f, uint32_t stack, folded_count after)
{
	return add_self(f, stack, after);
}

int folded__add_frames(struct folded *f, const char *const *frames, const size_t *lens,
		       size_t nframes, folded_count after, folded_count before)
{
	uint32_t cur = 0;
	size_t k = 0, k0;
	uint64_t h;
	int rc;

	if (before != 0 && (rc = ensure_before(f)))
		return rc;
	if (nframes > f->path_cap) {
		size_t cap = nframes + 64;
		uint32_t *p = realloc(f->path, sizeof(*p) * cap), *ids;
		uint64_t *ph;

		if (p)
			f->path = p;
		ids = realloc(f->ids, sizeof(*ids) * cap);
		if (ids)
			f->ids = ids;
		ph = realloc(f->phash, sizeof(*ph) * cap);
		if (ph)
			f->phash = ph;
		if (!p || !ids || !ph)
			return -ENOMEM;
		f->path_cap = cap;
	}
	/* frames equal to the previous stack's reuse its nodes: no hashing */
	for (; k < nframes && k < f->path_len; k++) {
		size_t i = (f->flags & FOLDED_REVERSE) ? nframes - 1 - k : k;
		const struct name *n = &f->names[node_at(f, f->path[k])->name];

		if (n->len != lens[i] || memcmp(n->s, frames[i], lens[i]))
			break;
		cur = f->path[k];
	}
	k0 = k;
	f->path_len = 0;	/* until the new path is complete */
	for (; k < nframes; k++) {
		size_t i = (f->flags & FOLDED_REVERSE) ? nframes - 1 - k : k;

		if ((rc = intern(f, frames[i], lens[i], &f->ids[k])))
			return rc;
	}
	h = k0 ? f->phash[k0 - 1] : PATH_SEED;
	for (k = k0; k < nframes; k++) {
		h = hash_path(h, f->ids[k]);
		f->phash[k] = h;
		if (!(f->flags & FOLDED_FLAMECHART))
			__builtin_prefetch(&f->child_tab[(uint32_t)h & f->child_mask]);
	}
	for (k = k0; k < nframes; k++) {
		if ((rc = child_of(f, cur, f->ids[k], f->phash[k], k ? f->phash[k - 1] : PATH_SEED, &cur)))
			return rc;
		f->path[k] = cur;
	}
	f->path_len = nframes;
	if ((rc = add_self(f, cur, after)))
		return rc;
	if (f->before_self)
		f->before_self[cur] += before;
	return 0;
}

static int reserve_frames(struct folded *f, size_t n)
{
	if (n <= f->fr_cap)
		return 0;
	size_t cap = f->fr_cap ? f->fr_cap : 64;

	while (cap < n)
		cap *= 2;
	const char **fr = realloc(f->fr, sizeof(*fr) * cap);

	if (!fr)
		return -ENOMEM;
	f->fr = fr;
	size_t *fl = realloc(f->fl, sizeof(*fl) * cap);

	if (!fl)
		return -ENOMEM;
	f->fl = fl;
	f->fr_cap = cap;
	return 0;
}

int folded__add_stack(struct folded *f, const char *stack, size_t len, folded_count after, folded_count before)
{
	size_t n = 0, start = 0;
	int rc;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && stack[i] != ';')
			continue;
		if ((rc = reserve_frames(f, n + 1)))
			return rc;
		f->fr[n] = stack + start;
		f->fl[n++] = i - start;
		start = i + 1;
	}
	return folded__add_frames(f, f->fr, f->fl, len ? n : 0, after, before);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/*
 * The count at the end of s[0..*len): flamegraph.pl's \d+(\.\d*)?, after at
 * least one blank. On success *len is cut to the text before the blanks.
 * Returns 0, or 1 with *why set.
 */
static int take_count(const char *s, size_t *len, folded_count *v, const char **why)
{
	size_t end = *len, p = end, dot = 0;
	char num[64];

	while (p > 0 && !is_space(s[p - 1]))
		p--;
	if (p == 0) {
		*why = "no count after the stack";
		return 1;
	}
	if (p == end) {
		*why = "no count after the stack";
		return 1;
	}
	if (s[p] == '-') {
		*why = "negative count";
		return 1;
	}
	for (size_t i = p; i < end; i++) {
		if (s[i] == '.' && i > p && !dot)
			dot = i;
		else if (!isdigit((unsigned char)s[i])) {
			*why = "the count is not a number";
			return 1;
		}
	}
	if (end - p >= sizeof(num)) {
		*why = "the count is too long";
		return 1;
	}
	memcpy(num, s + p, end - p);
	num[end - p] = 0;
	*v = strtold(num, NULL);
	if (*v > FOLDED_COUNT_MAX) {
		*why = "the count is over 2^64-1";
		return 1;
	}
	while (p > 0 && is_space(s[p - 1]))
		p--;
	*len = p;
	return 0;
}

/* is the last blank-separated word of s[0..len) a count? (the differential form) */
static bool ends_in_count(const char *s, size_t len)
{
	size_t p = len;
	bool dot = false;

	while (p > 0 && !is_space(s[p - 1]))
		p--;
	if (p == 0 || p == len || !isdigit((unsigned char)s[p]))
		return false;
	for (size_t i = p; i < len; i++) {
		if (s[i] == '.' && !dot)
			dot = true;
		else if (!isdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

/* difffolded.pl -s: every 0x<hex> becomes 0x... ("0x1" grows to 5 bytes: at most 2n) */
static int strip_hex(struct folded *f, const char **line, size_t *len)
{
	const char *s = *line;
	size_t n = *len, o = 0;

	if (f->hexcap < 2 * n + 8) {
		char *b = realloc(f->hexbuf, 2 * n + 8);

		if (!b)
			return -ENOMEM;
		f->hexbuf = b;
		f->hexcap = 2 * n + 8;
	}
	for (size_t i = 0; i < n;) {
		if (s[i] == '0' && i + 2 < n && s[i + 1] == 'x' && isxdigit((unsigned char)s[i + 2])) {
			i += 2;
			while (i < n && isxdigit((unsigned char)s[i]))
				i++;
			memcpy(f->hexbuf + o, "0x...", 5);
			o += 5;
			continue;
		}
		f->hexbuf[o++] = s[i++];
	}
	*line = f->hexbuf;
	*len = o;
	return 0;
}

static int add_text(struct folded *f, const char *line, size_t len, folded_count c2, folded_count c1,
		    bool two, enum folded_slot slot, const char **why);

static int parse_line(struct folded *f, const char *line, size_t len, enum folded_slot slot,
		      const char **why, bool nul_free);

int folded__parse_line(struct folded *f, const char *line, size_t len,
		       enum folded_slot slot, const char **why)
{
	return parse_line(f, line, len, slot, why, false);
}

/* nul_free: the caller has searched the line for NUL bytes already */
static int parse_line(struct folded *f, const char *line, size_t len, enum folded_slot slot,
		      const char **why, bool nul_free)
{
	folded_count c2 = 0, c1 = 0;
	bool two = false;

	*why = NULL;
	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	size_t lead = 0;

	while (lead < len && is_space(line[lead]))
		lead++;
	if (lead == len || (len - lead >= 2 && line[lead] == '#' && line[lead + 1] == ' '))
		return 1;	/* blank or a comment */
	if (!nul_free && memchr(line, 0, len)) {
		*why = "NUL byte in the line";
		return 1;
	}
	if (take_count(line, &len, &c2, why))
		return 1;
	if (ends_in_count(line, len)) {
		if (take_count(line, &len, &c1, why))
			return 1;
		two = true;
	}
	return add_text(f, line, len, c2, c1, two, slot, why);
}

int folded__add_text(struct folded *f, const char *stack, size_t len, folded_count count,
		     enum folded_slot slot, const char **why)
{
	*why = NULL;
	if (count > FOLDED_COUNT_MAX) {
		*why = "the count is over 2^64-1";
		return 1;
	}
	return add_text(f, stack, len, count, 0, false, slot, why);
}

/* the stack of a folded line, its count(s) taken: "stack C2" to slot, or "stack C1 C2" */
static int add_text(struct folded *f, const char *line, size_t len, folded_count c2, folded_count c1,
		    bool two, enum folded_slot slot, const char **why)
{
	size_t n = 0, start = 0;
	int rc;

	if (len == 0) {
		*why = "empty stack";
		return 1;
	}
	if ((f->flags & FOLDED_STRIP_HEX) && (rc = strip_hex(f, &line, &len)))
		return rc;
	for (size_t i; start <= len; start = i + 1) {
		const char *semi = memchr(line + start, ';', len - start);

		i = semi ? (size_t)(semi - line) : len;
		if (i == start) {
			*why = "empty frame in the stack";
			return 1;
		}
		if ((rc = reserve_frames(f, n + 1)))
			return rc;
		f->fr[n] = line + start;
		f->fl[n++] = i - start;
	}
	if (two ? f->sum[0] + c2 > FOLDED_COUNT_MAX || f->sum[1] + c1 > FOLDED_COUNT_MAX :
	    f->sum[slot] + c2 > FOLDED_COUNT_MAX) {
		*why = "the counts add up to more than 2^64-1";
		return 1;
	}
	if (two) {
		f->sum[0] += c2;
		f->sum[1] += c1;
	} else {
		f->sum[slot] += c2;
	}
	if (!two)
		return folded__add_frames(f, f->fr, f->fl, n, slot == FOLDED_AFTER ? c2 : 0,
					  slot == FOLDED_BEFORE ? c2 : 0);
	if ((rc = ensure_before(f)))
		return rc;
	return folded__add_frames(f, f->fr, f->fl, n, c2, c1);
}

/*
 * Blocks of the input, not bytes: each block is searched for NUL bytes and
 * line ends with memchr, lines parsed where they lie; a line cut by the end
 * of the block moves to its start (the block grows for a line longer than it,
 * up to UTIL_MAX_LINE). The same contract as util__read_line's loop.
 */
#define READ_BLOCK ((size_t)1 << 20)

long folded__read(struct folded *f, FILE *in, const char *src, enum folded_slot slot,
		  folded_warn_fn warn, void *arg)
{
	size_t cap = READ_BLOCK, have = 0, got;
	char *buf = malloc(cap + 1);
	unsigned long lineno = 0;
	long bad = 0;
	int rc = 0;
	bool eof = false;

	if (!buf)
		return -ENOMEM;
	while (!rc && !eof) {
		size_t scanned = have, pos = 0;

		if (have == cap) {	/* one line fills the block */
			char *nb;

			if (cap >= UTIL_MAX_LINE) {
				rc = -EFBIG;
				break;
			}
			if (!(nb = realloc(buf, 2 * cap + 1))) {
				rc = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		errno = 0;
		got = fread(buf + have, 1, cap - have, in);
		if (got < cap - have) {
			if (ferror(in)) {
				rc = errno ? -errno : -EIO;
				break;
			}
			eof = true;
		}
		if (memchr(buf + have, 0, got)) {
			rc = -EILSEQ;	/* binary data */
			break;
		}
		have += got;
		for (;;) {
			char *nl = memchr(buf + (scanned > pos ? scanned : pos), '\n',
					  have - (scanned > pos ? scanned : pos));
			size_t len;
			const char *why;

			scanned = 0;
			if (!nl) {
				if (!eof || pos == have)
					break;
				len = have - pos;	/* the last line, no newline */
			} else {
				len = (size_t)(nl - buf) + 1 - pos;
			}
			if (len >= UTIL_MAX_LINE) {
				rc = -EFBIG;
				break;
			}
			lineno++;
			rc = parse_line(f, buf + pos, len, slot, &why, true);
			pos += len;
			if (rc < 0)
				break;
			if (rc == 1 && why) {
				bad++;
				if (warn)
					warn(arg, src, lineno, why);
			}
			rc = 0;
		}
		memmove(buf, buf + pos, have - pos);
		have -= pos;
	}
	free(buf);
	return rc ? rc : bad;
}

void folded__normalize(struct folded *f)
{
	folded_count ta = 0, tb = 0;

	if (!f->before_self)
		return;
	for (uint32_t i = 0; i < f->nr_nodes; i++) {
		ta += folded__self(f, i);
		tb += f->before_self[i];
	}
	if (tb == 0)
		return;
	for (uint32_t i = 0; i < f->nr_nodes; i++)
		f->before_self[i] = truncl(f->before_self[i] * ta / tb);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static const struct folded *sort_ctx;

/*
 * flamegraph.pl sorts whole lines, so a frame compares as its name followed by
 * ';' when it has children, by ' ' when the line ends there: "f_1443;..."
 * sorts before "f_144;..." ('3' < ';'). Keys are name << 1 | has children.
 */
static int cmp_keys(const void *a, const void *b)
{
	uint32_t ka = *(const uint32_t *)a, kb = *(const uint32_t *)b;
	const struct name *x = &sort_ctx->names[ka >> 1], *y = &sort_ctx->names[kb >> 1];
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);
	unsigned char cx, cy;

	if (c)
		return c;
	cx = x->len > n ? (unsigned char)x->s[n] : (ka & 1 ? ';' : ' ');
	cy = y->len > n ? (unsigned char)y->s[n] : (kb & 1 ? ';' : ' ');
	if (cx != cy)
		return cx < cy ? -1 : 1;
	return x->len != y->len ? (x->len < y->len ? -1 : 1) : (int)(ka & 1) - (int)(kb & 1);
}

/* order every child list as flamegraph.pl's sorted lines do: one sort of the keys, then by rank */
static int sort_children(struct folded *f)
{
	uint32_t nkeys = f->nr_names * 2;
	uint32_t *order = malloc(sizeof(uint32_t) * (nkeys + 1));
	uint32_t *rank = malloc(sizeof(uint32_t) * (nkeys + 1));
	uint64_t *kids = NULL;
	size_t cap = 0;

	if (!order || !rank)
		goto nomem;
	for (uint32_t i = 0; i < nkeys; i++)
		order[i] = i;
	sort_ctx = f;
	qsort(order, nkeys, sizeof(*order), cmp_keys);
	for (uint32_t i = 0; i < nkeys; i++)
		rank[order[i]] = i;
	for (uint32_t p = 0; p < f->nr_nodes; p++) {
		size_t n = 0;
		uint32_t c = node_at(f, p)->child;

		if (!(f->multi[p / 64] & (1ULL << (p % 64))))
			continue;	/* one child or none: nothing to order, no cache miss */
		for (; c != FOLDED_NONE; c = node_at(f, c)->next) {
			if (util__grow(&kids, &cap, n + 1, sizeof(*kids), 64))
				goto nomem;
			kids[n++] = (uint64_t)rank[node_at(f, c)->name << 1 | (node_at(f, c)->child != FOLDED_NONE)] << 32 | c;
		}
		qsort(kids, n, sizeof(*kids), cmp_u64);
		node_at(f, p)->child = (uint32_t)kids[0];
		for (size_t i = 0; i + 1 < n; i++)
			node_at(f, (uint32_t)kids[i])->next = (uint32_t)kids[i + 1];
		node_at(f, (uint32_t)kids[n - 1])->next = FOLDED_NONE;
	}
	free(order);
	free(rank);
	free(kids);
	return 0;
nomem:
	free(order);
	free(rank);
	free(kids);
	return -ENOMEM;
}

/*
 * The integer inclusive totals, in one backward pass: a node's children come
 * after it, so its total holds theirs when it is reached (new nodes start at
 * 0; only a second finish clears them first). True when a sum would pass
 * 2^64-1: then the long double sums take over, rounding as they always did.
 */
static bool sum_integers(struct folded *f)
{
	struct folded_node *n;

	if (f->totals_done)
		for (uint32_t i = 0; i < f->nr_nodes; i++)
			node_at(f, i)->int_total = 0;
	f->totals_done = true;
	for (uint32_t i = f->nr_nodes - 1; i > 0; i--) {
		n = node_at(f, i);
		if (__builtin_add_overflow(n->int_total, n->int_self, &n->int_total) ||
		    __builtin_add_overflow(node_at(f, n->parent)->int_total, n->int_total,
					   &node_at(f, n->parent)->int_total))
			return true;
	}
	n = node_at(f, 0);
	return __builtin_add_overflow(n->int_total, n->int_self, &n->int_total);
}

int folded__finish(struct folded *f)
{
	int rc = 0;

	if (!(f->flags & FOLDED_FLAMECHART))
		rc = sort_children(f);
	if (!f->frac_self && sum_integers(f) && (rc = go_fractional(f)))
		return rc;
	if (f->frac_self) {
		memcpy(f->frac_total, f->frac_self, sizeof(folded_count) * f->nr_nodes);
		for (uint32_t i = f->nr_nodes - 1; i > 0; i--)
			f->frac_total[node_at(f, i)->parent] += f->frac_total[i];
	}
	if (f->before_self) {
		memcpy(f->before_total, f->before_self, sizeof(folded_count) * f->nr_nodes);
		for (uint32_t i = f->nr_nodes - 1; i > 0; i--)
			f->before_total[node_at(f, i)->parent] += f->before_total[i];
	}
	return rc;
}

const struct folded_node *folded__node(const struct folded *f, uint32_t id)
{
	return node_at(f, id);
}

uint32_t folded__nr_nodes(const struct folded *f)
{
	return f->nr_nodes;
}

const char *folded__name(const struct folded *f, uint32_t name, size_t *len)
{
	if (name >= f->nr_names) {
		if (len)
			*len = 0;
		return "";
	}
	if (len)
		*len = f->names[name].len;
	return f->names[name].s;
}

uint32_t folded__nr_names(const struct folded *f)
{
	return f->nr_names;
}

bool folded__is_diff(const struct folded *f)
{
	return f->diff;
}

folded_count folded__before_self(const struct folded *f, uint32_t id)
{
	return f->before_self ? f->before_self[id] : 0;
}

folded_count folded__before_total(const struct folded *f, uint32_t id)
{
	return f->before_total ? f->before_total[id] : 0;
}

folded_count folded__self(const struct folded *f, uint32_t id)
{
	return f->frac_self ? f->frac_self[id] : (folded_count)node_at(f, id)->int_self;
}

folded_count folded__subtotal(const struct folded *f, uint32_t id)
{
	return f->frac_total ? f->frac_total[id] : (folded_count)node_at(f, id)->int_total;
}

folded_count folded__total(const struct folded *f)
{
	return folded__subtotal(f, 0);
}

folded_count folded__total_before(const struct folded *f)
{
	return f->before_total ? f->before_total[0] : 0;
}

size_t folded__nr_stacks(const struct folded *f)
{
	size_t n = 0;

	for (uint32_t i = 1; i < f->nr_nodes; i++)
		if (folded__self(f, i) != 0 || (f->before_self && f->before_self[i] != 0))
			n++;
	return n;
}

void folded__format_count(char *buf, size_t len, folded_count v)
{
	size_t n;

	/* an integer to 2^64-1 (nearly every count): its digits, as "%.0Lf" writes them */
	if (v >= 0 && v <= FOLDED_COUNT_MAX && !signbit(v) && v == floorl(v) && len >= 21) {
		char digits[24], *d = digits + sizeof(digits);
		uint64_t u = (uint64_t)v;

		*--d = 0;
		do
			*--d = (char)('0' + u % 10);
		while (u /= 10);
		memcpy(buf, d, (size_t)(digits + sizeof(digits) - d));
		return;
	}
	/* never an exponent: the folded format only takes digits and one dot */
	if (v == floorl(v) || !isfinite(v)) {
		snprintf(buf, len, "%.0Lf", v);
		return;
	}
	snprintf(buf, len, "%.9Lf", v);
	n = strlen(buf);
	while (n > 1 && buf[n - 1] == '0')
		buf[--n] = 0;
	if (n > 1 && buf[n - 1] == '.')
		buf[--n] = 0;
}

struct line_ref {
	size_t off, len;
	uint32_t node;
};

static const char *write_buf;

static int cmp_lines(const void *a, const void *b)
{
	const struct line_ref *x = a, *y = b;
	int c = memcmp(write_buf + x->off, write_buf + y->off, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

int folded__write(struct folded *f, FILE *out, unsigned flags)
{
	struct line_ref *lines = NULL;
	size_t nlines = 0, cap = 0, used = 0, bcap = 0;
	char *buf = NULL, num[64];
	uint32_t *path = NULL;
	size_t pcap = 0;
	int rc = -ENOMEM;

	for (uint32_t i = 1; i < f->nr_nodes; i++) {
		size_t depth = 0, need = 0;

		if (folded__self(f, i) == 0 && (!f->before_self || f->before_self[i] == 0))
			continue;
		for (uint32_t p = i; p != 0; p = node_at(f, p)->parent) {
			if (util__grow(&path, &pcap, depth + 1, sizeof(*path), 64))
				goto out;
			path[depth++] = p;
			need += f->names[node_at(f, p)->name].len + 1;
		}
		if (util__grow(&buf, &bcap, used + need, 1, 1 << 16) ||
		    util__grow(&lines, &cap, nlines + 1, sizeof(*lines), 1024))
			goto out;
		lines[nlines] = (struct line_ref){ used, 0, i };
		while (depth > 0) {
			const struct name *n = &f->names[node_at(f, path[--depth])->name];

			memcpy(buf + used, n->s, n->len);
			used += n->len;
			if (depth)
				buf[used++] = ';';
		}
		lines[nlines].len = used - lines[nlines].off;
		nlines++;
	}
	write_buf = buf;
	if (nlines)
		qsort(lines, nlines, sizeof(*lines), cmp_lines);
	for (size_t k = 0; k < nlines; k++) {
		uint32_t id = lines[k].node;

		fwrite(buf + lines[k].off, 1, lines[k].len, out);
		if (flags & FOLDED_WRITE_DIFF) {
			folded__format_count(num, sizeof(num), folded__before_self(f, id));
			fprintf(out, " %s", num);
		}
		folded__format_count(num, sizeof(num), folded__self(f, id));
		fprintf(out, " %s\n", num);
	}
	rc = ferror(out) ? -EIO : 0;
out:
	free(lines);
	free(buf);
	free(path);
	return rc;
}
