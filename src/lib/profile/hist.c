// SPDX-License-Identifier: GPL-2.0
/* hist.c - grouping samples the way perf report does; see hist.h */
#include "lib/profile/hist_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/symbol/symbol.h"

int hist__parse_sort(struct hist_opts *o, const char *spec, const char **bad)
{
	static const char *const names[HK_MAX] = { "comm", "pid", "tid", "dso", "sym", "cpu", "srcline" };
	static char badbuf[64];
	const char *p = spec;

	o->nr_keys = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		int k;

		for (k = 0; k < HK_MAX; k++)
			if (strlen(names[k]) == len && !strncmp(p, names[k], len))
				break;
		if (k == HK_MAX || o->nr_keys == HK_MAX) {
			snprintf(badbuf, sizeof(badbuf), "%.*s", (int)(len < 60 ? len : 60), p);
			*bad = badbuf;
			return -EINVAL;
		}
		o->keys[o->nr_keys++] = k;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!o->nr_keys) {
		*bad = "";
		return -EINVAL;
	}
	return 0;
}

struct hist *hist__new(const struct hist_opts *o)
{
	struct hist *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->o = *o;
	h->srcline_pos = -1;
	for (int i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == HK_SRCLINE)
			h->srcline_pos = i;
	return h;
}

void hist__free(struct hist *h)
{
	if (!h)
		return;
	while (h->chunks) {
		struct cc_chunk *next = h->chunks->next;

		util__huge_free(h->chunks);
		h->chunks = next;
	}
	free(h->cc_index);
	free(h->canon);
	free(h->hf);
	util__free_mapped(h->stacks, h->stacks_cap, sizeof(*h->stacks));
	free(h->stack_index);
	free(h->aliases);
	util__free_mapped(h->pool, h->pool_cap, sizeof(*h->pool));
	for (size_t i = 0; i < h->nstrs; i++)
		free(h->strs[i]);
	free(h->strs);
	free(h->str_index);
	free(h->lines);
	free(h->a2l);
	free(h->prefixes);
	free(h->e);
	free(h->index);
	free(h);
}


/* the answers of HK_SRCLINE, cached per (DSO, address): the DWARF lookup is done once */
static int grow_lines(struct hist *h)
{
	size_t nc = h->lines_cap ? h->lines_cap * 2 : 256;
	struct line_slot *n = calloc(nc, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < h->lines_cap; i++) {
		struct line_slot *o = &h->lines[i];
		size_t j;

		if (!o->object)
			continue;
		for (j = hash_bytes(hash_bytes(1469598103934665603ULL, &o->object, sizeof(o->object)),
				    &o->vaddr, sizeof(o->vaddr)) & (nc - 1); n[j].object; j = (j + 1) & (nc - 1))
			;
		n[j] = *o;
	}
	free(h->lines);
	h->lines = n;
	h->lines_cap = nc;
	return 0;
}

static int a2l_state(struct hist *h, const struct dso *object)
{
	struct a2l_state *n;

	for (size_t i = 0; i < h->na2l; i++)
		if (h->a2l[i].object == object)
			return (int)i;
	n = realloc(h->a2l, (h->na2l + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	h->a2l = n;
	n[h->na2l] = (struct a2l_state){ .object = object, .fails = 1 };
	return (int)h->na2l++;
}

/* the line of vaddr in the file of frame f, looked up the first time: NULL when out of memory */
static struct line_slot *line_slot(struct hist *h, const struct sym_frame *f, uint64_t vaddr)
{
	const struct dso *object = f->object;
	struct line_slot *ls;
	const char *file;
	size_t j;
	int line = 0, st, rc;

	if ((h->nlines + 1) * 2 > h->lines_cap && grow_lines(h))
		return NULL;
	for (j = hash_bytes(hash_bytes(1469598103934665603ULL, &object, sizeof(object)), &vaddr, sizeof(vaddr)) &
		 (h->lines_cap - 1);
	     h->lines[j].object; j = (j + 1) & (h->lines_cap - 1))
		if (h->lines[j].object == object && h->lines[j].vaddr == vaddr)
			return &h->lines[j];
	st = a2l_state(h, object);
	if (st < 0)
		return NULL;
	ls = &h->lines[j];
	*ls = (struct line_slot){ .object = object, .vaddr = vaddr, .state = st };
	rc = symbolizer__srcline_in(h->o.lines, f, vaddr, &file, &line);
	if (rc == 0) {
		const char *base = strrchr(file, '/');
		char buf[4200];

		snprintf(buf, sizeof(buf), "%s:%u", base ? base + 1 : file, (unsigned)line);
		if (!(ls->fileline = hist__intern(h, buf)))
			return NULL;
	} else if (rc == -ENODATA && !(ls->fileline = hist__intern(h, "??:0"))) {
		/* in the file but no line: addr2line's "??:?", which perf takes for a line, "??:0" */
		return NULL;
	}
	h->nlines++;
	return ls;
}

/* one of perf's addr2line questions about an address: its file:line, or NULL (see A2L_FAIL_LIMIT) */
static const char *ask_line(struct hist *h, const struct line_slot *ls)
{
	struct a2l_state *st = &h->a2l[ls->state];

	if (!st->off && ls->fileline) {
		st->fails = 0;
		return ls->fileline;
	}
	if (st->fails && ++st->fails > A2L_FAIL_LIMIT)
		st->off = true;
	return NULL;
}

/*
 * the srcline of a frame as perf's map__srcline() writes it, at the DSO-relative address
 * (a sample's own entry) or, for raw, at the absolute one (an inclusive entry). *slot is
 * the address's line slot when a line was asked for (NULL otherwise).
 */
static int frame_srcline(struct hist *h, const struct session_frame *f, bool raw, const char **out,
			 const struct line_slot **slot, bool *preset)
{
	const struct sym_frame *sf = &f->sym;
	uint64_t ip = raw ? f->ip : sf->dso_addr;
	char *buf = NULL;
	int n;

	*slot = NULL;
	if (!sf->dso) {		/* in no mapping */
		*out = hist__intern(h, "??:0");
		return *out ? 0 : -ENOMEM;
	}
	/*
	 * an inclusive entry of a DWARF-unwound frame: perf 6.1 took its line from the frame's
	 * inline list (addr2line -i at the DSO-relative address), the line where each inlined
	 * call was made, "??:0" for addr2line's "??:?"; with no list it is asked as any other
	 */
	if (raw && f->unwound && h->o.inline_lines && h->o.lines && sf->object) {
		const char *file = sf->srcfile;
		int line = sf->srcline;

		int rc = file ? 0 : symbolizer__srcline_in(h->o.lines, sf, sf->dso_addr, &file, &line);

		if (rc == 0 || rc == -ENODATA) {
			const char *base = file ? strrchr(file, '/') : NULL;

			if (file)
				n = asprintf(&buf, "%s:%d", base ? base + 1 : file, line);
			else
				n = asprintf(&buf, "??:0");
			if (n < 0)
				return -ENOMEM;
			*out = hist__intern(h, buf);
			free(buf);
			*preset = true;
			return *out ? 0 : -ENOMEM;
		}
	}
	/* perf asks for lines only in files: not "[kernel.kallsyms]", "[vdso]" or a JIT's /tmp/perf-PID.map */
	if (h->o.lines && sf->object && sf->dso[0] != '[' && strncmp(sf->dso, "/tmp/perf-", 10)) {
		const struct line_slot *ls = line_slot(h, sf, ip);

		if (!ls)
			return -ENOMEM;
		*slot = ls;
		if ((*out = ask_line(h, ls)))
			return 0;
	}
	if (sf->sym)
		n = asprintf(&buf, "%s+%" PRIu64, sf->sym, ip - (sf->dso_addr - sf->offset));
	else
		n = asprintf(&buf, "%s[%" PRIx64 "]", hist__short_dso(h, sf->dso), ip);
	if (n < 0)
		return -ENOMEM;
	*out = hist__intern(h, buf);
	free(buf);
	return *out ? 0 : -ENOMEM;
}

/*
 * the entry's key fields for frame hf of a sample; raw: for an inclusive entry (see
 * frame_srcline, which needs the frame f itself)
 */
static int fill_key(struct hist *h, struct hist_entry *k, const struct sample_info *si, const struct hframe *hf,
		    const struct session_frame *f, bool raw, const struct line_slot **slot)
{
	memset(k, 0, sizeof(*k));
	k->comm = si->comm;
	k->pid = si->pid;
	k->tid = si->tid;
	k->cpu = si->cpu;
	k->dso = hf->dso;
	k->sym = hf->sym;
	/* as perf: a sample's own entry is at the DSO-relative address, an inclusive one at the absolute */
	k->addr = hf->has_dso && !raw ? hf->dso_addr : hf->ip;
	k->level = hf->kernel ? 'k' : '.';
	*slot = NULL;
	if (h->srcline_pos >= 0 && f)
		return frame_srcline(h, f, raw, &k->srcline, slot, &k->srcline_preset);
	return 0;
}

/* a hash of the first nkeys sort keys (their strings are interned: hashed by address) */
static uint64_t keys_hash(const struct hist *h, const struct hist_entry *k, int nkeys)
{
	uint64_t hv = 1469598103934665603ULL;

	for (int i = 0; i < nkeys; i++) {
		switch (h->o.keys[i]) {
		case HK_COMM: hv = mix(hv, (uintptr_t)k->comm); break;
		case HK_PID: hv = mix(hv, k->pid); break;
		case HK_TID: hv = mix(hv, k->tid); break;
		case HK_CPU: hv = mix(hv, (uint32_t)k->cpu); break;
		case HK_DSO: hv = mix(hv, (uintptr_t)k->dso); break;
		case HK_SYM:
			hv = mix(hv, (uintptr_t)k->sym);
			hv = mix(hv, k->sym ? (uint64_t)k->level : k->addr);
			break;
		case HK_SRCLINE: hv = mix(hv, (uintptr_t)k->srcline); break;
		default: break;
		}
	}
	return hv;
}

static uint64_t key_hash(const struct hist *h, const struct hist_entry *k)
{
	return keys_hash(h, k, h->o.nr_keys);
}

/* the count of k's prefix (see struct prefix_count); bump: one more; -ENOMEM */
static int prefix_count(struct hist *h, const struct hist_entry *k, bool bump)
{
	uint64_t hv = keys_hash(h, k, h->srcline_pos) | 1;
	size_t j, mask;

	if (bump && (h->nprefixes + 1) * 2 > h->prefixes_cap) {
		size_t nc = h->prefixes_cap ? h->prefixes_cap * 2 : 64;
		struct prefix_count *n = calloc(nc, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < h->prefixes_cap; i++) {
			if (!h->prefixes[i].hash)
				continue;
			for (j = h->prefixes[i].hash & (nc - 1); n[j].hash; j = (j + 1) & (nc - 1))
				;
			n[j] = h->prefixes[i];
		}
		free(h->prefixes);
		h->prefixes = n;
		h->prefixes_cap = nc;
	}
	if (!h->prefixes_cap)
		return 0;
	mask = h->prefixes_cap - 1;
	for (j = hv & mask; h->prefixes[j].hash && h->prefixes[j].hash != hv; j = (j + 1) & mask)
		;
	if (bump) {
		h->nprefixes += !h->prefixes[j].hash;
		h->prefixes[j].hash = hv;
		h->prefixes[j].n++;
	}
	return h->prefixes[j].hash ? (int)(h->prefixes[j].n > INT32_MAX ? INT32_MAX : h->prefixes[j].n) : 0;
}

/* the first nkeys sort keys of a and b are equal (interned strings: equal ones are one pointer) */
static bool keys_eq(const struct hist *h, const struct hist_entry *a, const struct hist_entry *b, int nkeys)
{
	for (int i = 0; i < nkeys; i++) {
		switch (h->o.keys[i]) {
		case HK_COMM: if (a->comm != b->comm) return false; break;
		case HK_PID: if (a->pid != b->pid) return false; break;
		case HK_TID: if (a->tid != b->tid) return false; break;
		case HK_CPU: if (a->cpu != b->cpu) return false; break;
		case HK_DSO: if (a->dso != b->dso) return false; break;
		case HK_SYM:	/* an unnamed address is one entry whatever level it was shown at */
			if (a->sym != b->sym || (a->sym && a->level != b->level))
				return false;
			if (!a->sym && a->addr != b->addr)
				return false;
			break;
		case HK_SRCLINE: if (a->srcline != b->srcline) return false; break;
		default: break;
		}
	}
	return true;
}

static bool key_eq(const struct hist *h, const struct hist_entry *a, const struct hist_entry *b)
{
	return keys_eq(h, a, b, h->o.nr_keys);
}

static int grow_index(struct hist *h)
{
	size_t nc = h->index_cap ? h->index_cap * 2 : 1024;

	while (nc < 2 * (h->n + 1))	/* never full: the probe loop must end */
		nc *= 2;
	size_t *ni = malloc(nc * sizeof(*ni));

	if (!ni)
		return -ENOMEM;
	for (size_t i = 0; i < nc; i++)
		ni[i] = SIZE_MAX;
	for (size_t k = 0; k < h->n; k++) {
		size_t j = key_hash(h, &h->e[k]) & (nc - 1);

		while (ni[j] != SIZE_MAX)
			j = (j + 1) & (nc - 1);
		ni[j] = k;
	}
	free(h->index);
	h->index = ni;
	h->index_cap = nc;
	return 0;
}

static struct hist_entry *find_or_add(struct hist *h, const struct hist_entry *k)
{
	size_t mask, i;

	if ((h->n + 1) * 2 > h->index_cap && grow_index(h))
		return NULL;
	mask = h->index_cap - 1;
	for (i = key_hash(h, k) & mask; h->index[i] != SIZE_MAX; i = (i + 1) & mask)
		if (key_eq(h, &h->e[h->index[i]], k))
			return &h->e[h->index[i]];
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 256;
		struct hist_entry *ne = realloc(h->e, nc * sizeof(*ne));

		if (!ne)
			return NULL;
		h->e = ne;
		h->cap = nc;
	}
	h->e[h->n] = *k;
	h->e[h->n].serial = (uint32_t)h->n;
	h->index[i] = h->n;
	return &h->e[h->n++];
}

_Static_assert(sizeof(struct cc_chunk) <= UTIL_HUGE, "a chunk of nodes fills a huge block");

/* a node of a call graph, zeroed */
static struct cc_node *cc_new(struct hist *h)
{
	struct cc_node *n;

	if (!h->chunks || h->chunks->used == CC_CHUNK) {
		struct cc_chunk *c = util__huge_block(++h->nchunks);

		if (!c)
			return NULL;
		c->next = h->chunks;
		c->used = 0;
		h->chunks = c;
	}
	n = &h->chunks->n[h->chunks->used++];
	memset(n, 0, sizeof(*n));
	return n;
}

/*
 * perf's match_chain with its function key: frames of inlined functions are the
 * same by name (interned), others by DSO and symbol address (ld.so's _start is
 * not the program's), and frames without a symbol by DSO and address
 */
static bool frame_same(const struct cc_node *n, const struct hframe *f)
{
	if (!f->name != !n->name)
		return false;
	if (f->name && (n->inlined || f->inlined))
		return n->name == f->name;
	if (n->dso_rank != f->dso_rank)
		return false;
	return n->name == f->name && n->key == f->key;	/* unnamed: the key is the address */
}

/* the bucket of a child of parent: named frames hash by name alone, as any match has that name */
static size_t cc_slot(const struct hist *h, uintptr_t parent, const struct hframe *f)
{
	uint64_t v = f->name ? (uintptr_t)f->name : mix(f->key, f->dso_rank);

	return mix(mix(0, parent), v) & (h->cc_index_cap - 1);
}

static void cc_link(struct hist *h, struct cc_node *n)
{
	struct hframe f = { .name = n->name, .key = n->key, .dso_rank = n->dso_rank };
	size_t i = cc_slot(h, n->parent, &f);

	n->hnext = h->cc_index[i];
	h->cc_index[i] = n;
}

/*
 * The index doubles as it fills. Nodes go back in the order they were made, each at the
 * head of its chain: a chain holds its matches newest first, as a sibling list does.
 */
static int cc_grow(struct hist *h)
{
	size_t cap = h->cc_index_cap ? h->cc_index_cap * 2 : 1024, nch = 0;
	struct cc_node **idx = calloc(cap, sizeof(*idx));
	struct cc_chunk **order;

	if (!idx)
		return -ENOMEM;
	for (struct cc_chunk *c = h->chunks; c; c = c->next)
		nch++;
	order = malloc((nch ? nch : 1) * sizeof(*order));
	if (!order) {
		free(idx);
		return -ENOMEM;
	}
	nch = 0;
	for (struct cc_chunk *c = h->chunks; c; c = c->next)
		order[nch++] = c;
	free(h->cc_index);
	h->cc_index = idx;
	h->cc_index_cap = cap;
	while (nch--)
		for (size_t j = 0; j < order[nch]->used; j++)
			if (order[nch]->n[j].indexed)
				cc_link(h, &order[nch]->n[j]);
	free(order);
	return 0;
}

/* siblings searched in their list; the children of a wider level go in the index */
#define CC_LIST_MAX 8

/* put n (a new node) in the index */
static int cc_index_node(struct hist *h, struct cc_node *n)
{
	if (h->cc_count + 1 > h->cc_index_cap && cc_grow(h))	/* chains of 1-2 */
		return -ENOMEM;
	cc_link(h, n);
	n->indexed = true;
	h->cc_count++;
	return 0;
}

/* a level that just became wide: its children go in the index, oldest first (newest at the chains' heads) */
static int cc_index_level(struct hist *h, struct cc_node *head)
{
	struct cc_node *v[CC_LIST_MAX + 1];
	int n = 0, rc;

	for (struct cc_node *c = head; c && n <= CC_LIST_MAX; c = c->next)
		v[n++] = c;
	while (n--)
		if ((rc = cc_index_node(h, v[n])))
			return rc;
	return 0;
}

/* the child of parent that is frame f: the newest match, as the sibling list's first */
static struct cc_node *cc_find(const struct hist *h, uintptr_t parent, const struct hframe *f)
{
	if (!h->cc_index_cap)
		return NULL;
	for (struct cc_node *n = h->cc_index[cc_slot(h, parent, f)]; n; n = n->hnext)
		if (n->parent == parent && frame_same(n, f))
			return n;
	return NULL;
}

/* add the path hf[from], hf[from+step], ... (count frames) to the entry's graph */
static int cc_add(struct hist *h, struct hist_entry *e, const struct hframe *hf, int from, int step, int count,
		  uint64_t period)
{
	struct cc_node **level = &e->cc;
	uintptr_t parent = (uintptr_t)e->serial << 1 | 1;

	for (int i = 0, idx = from; i < count; i++, idx += step) {
		const struct hframe *f = &hf[idx];
		struct cc_node *c = NULL, *s = *level;
		int len = 0;

		/* the newest siblings first, in their list; past them a wide level's index */
		for (; s && len < CC_LIST_MAX; s = s->next, len++)
			if (frame_same(s, f)) {
				c = s;
				break;
			}
		if (!c && s)
			c = cc_find(h, parent, f);
		if (!c) {
			c = cc_new(h);
			if (!c)
				return -ENOMEM;
			c->name = f->name;
			c->inlined = f->inlined;
			c->dso_rank = f->dso_rank;
			c->key = f->key;
			c->parent = parent;
			c->next = *level;
			*level = c;
			if (s ? cc_index_node(h, c) : len == CC_LIST_MAX ? cc_index_level(h, c) : 0)
				return -ENOMEM;
		}
		c->hits += period;
		level = &c->child;
		parent = (uintptr_t)c;
	}
	return 0;
}

/*
 * How many times perf 6.1 computes the srcline of an inclusive entry (hist.c's
 * iter_add_next_cumulative_entry): once to compare it with the entries this
 * sample already added, if one of them equals it in the keys before srcline
 * (when sym is a key, perf first skips those of another symbol), and once more
 * to insert it when it is not one of them.
 */
static int srcline_asks(const struct hist *h, const struct hist_entry *key, const size_t *seen,
			const uint64_t *seen_ip, int nseen, uint64_t ip, bool dup)
{
	bool has_sym = false, compared = false;

	for (int i = 0; i < h->o.nr_keys; i++)
		has_sym |= h->o.keys[i] == HK_SYM;
	for (int i = 0; i < nseen && !compared; i++) {
		const struct hist_entry *e = &h->e[seen[i]];

		if (has_sym && (e->sym || key->sym ? e->sym != key->sym : seen_ip[i] != ip))
			continue;
		compared = keys_eq(h, e, key, h->srcline_pos);
	}
	return compared + !dup;
}

/*
 * add count samples of one stack, of period in all: frames hf (nf of them, leaf first) and
 * self, the sample's own function. sf and sf_self are the frames themselves, for srcline
 * (NULL when the stack waited: then srcline is not a key).
 */
static int add_stack(struct hist *h, const struct sample_info *si, const struct hframe *hf, int nf,
		     const struct hframe *self, const struct session_frame *sf, const struct session_frame *sf_self,
		     uint64_t period, uint64_t count)
{
	const struct line_slot *slot;
	struct hist_entry key, *e;
	size_t seen[128];	/* entries already counted for this sample (indices: the array moves) */
	uint64_t seen_ip[128];	/* the address each was added for */
	int nseen = 0, rc;
	char level;

	rc = fill_key(h, &key, si, self, sf_self, false, &slot);
	if (rc)
		return rc;
	if (h->srcline_pos >= 0 && (rc = prefix_count(h, &key, true)) < 0)
		return rc;
	e = find_or_add(h, &key);
	if (!e)
		return -ENOMEM;
	e->self += period;
	e->nr_self += count;
	e->children += period;
	e->nr_children += count;
	if (h->o.callchain) {
		rc = h->o.caller ? cc_add(h, e, hf, nf - 1, -1, nf, period) : cc_add(h, e, hf, 0, 1, nf, period);
		if (rc)
			return rc;
		if (e->max_depth < (uint32_t)nf)
			e->max_depth = nf;
	}
	if (!h->o.children)
		return 0;
	seen[nseen] = e - h->e;
	seen_ip[nseen++] = self->dso_addr;
	level = key.level;
	/*
	 * an inclusive entry for every frame, the sample's own too (its srcline may differ),
	 * in perf's order: root first when the graphs are caller-first
	 */
	for (int n = 0; n < nf; n++) {
		int i = h->o.caller ? nf - 1 - n : n;
		bool dup = false;
		size_t eidx;

		rc = fill_key(h, &key, si, &hf[i], sf ? &sf[i] : NULL, true, &slot);
		if (rc)
			return rc;
		/* perf reuses one addr_location: a frame in no mapping keeps the level of the one before */
		if (hf[i].has_dso)
			level = key.level;
		key.level = level;
		e = find_or_add(h, &key);
		if (!e)
			return -ENOMEM;
		e->srcline_preset |= key.srcline_preset;
		eidx = e - h->e;
		for (int k = 0; k < nseen; k++)
			dup |= seen[k] == eidx;
		if (h->srcline_pos >= 0) {
			int asks = srcline_asks(h, &key, seen, seen_ip, nseen, hf[i].ip, dup);

			for (int k = 0; k < asks; k++) {
				if (k && slot)	/* fill_key asked once */
					ask_line(h, slot);
				if ((rc = prefix_count(h, &key, true)) < 0)
					return rc;
			}
		}
		if (dup)
			continue;	/* recursion: count a frame once per sample */
		if (nseen < 128) {
			seen[nseen] = eidx;
			seen_ip[nseen++] = hf[i].ip;
		}
		e->children += period;
		e->nr_children += count;
		if (h->o.callchain) {
			int depth = h->o.caller ? i + 1 : nf - i;

			rc = h->o.caller ? cc_add(h, e, hf, i, -1, depth, period) : cc_add(h, e, hf, i, 1, depth, period);
			if (rc)
				return rc;
			if (e->max_depth < (uint32_t)depth)
				e->max_depth = depth;
		}
	}
	return 0;
}

/* add the stacks that wait, in order, and forget them */
static int flush_stacks(struct hist *h)
{
	int rc = 0;

	if (!h->nstacks)
		return 0;
	for (size_t i = 0; i < h->nstacks && !rc; i++) {
		const struct hstack *st = &h->stacks[i];

		rc = add_stack(h, &st->si, &h->pool[st->first], st->nf, &h->pool[st->first + st->nf], NULL, NULL,
			       st->period, st->count);
	}
	hist__stacks_forget(h);
	return rc;
}


int hist__add(struct hist *h, const struct session_sample *smp)
{
	const struct perfdata_attr *a = smp->ev->attr;
	/* without PERF_SAMPLE_PERIOD the reader gives the attr's fixed period, as perf */
	uint64_t period = smp->s->period;
	int nf = smp->nr_frames, rc;
	const struct session_frame *self;
	struct hframe self_hf;
	struct sample_info si;
	struct hstack *st;

	if (!period)
		period = 1;
	if (smp->filtered) {	/* a share of the total, as perf report keeps it, in no entry */
		h->total += period;
		h->samples++;
		return 0;
	}
	if (nf < 1)
		return 0;
	self = smp->self ? smp->self : &smp->frames[0];
	h->total += period;
	h->samples++;
	/* most samples are of the command before: no hashing then */
	si.comm = h->last_comm && !strcmp(h->last_comm, smp->comm) ? h->last_comm : hist__intern(h, smp->comm);
	if (!si.comm)
		return -ENOMEM;
	h->last_comm = si.comm;
	si.pid = smp->s->pid;
	si.tid = smp->s->tid;
	/* perf shows -1 when the samples have no CPU */
	si.cpu = a && !(a->attr.sample_type & PERF_SAMPLE_CPU) ? -1 : (int32_t)smp->s->cpu;
	if (smp->stack_id && h->srcline_pos < 0 && (st = hist__stack_find(h, smp->stack_id, &si))) {
		st->period += period;	/* a stack seen before: its frames are not read again */
		st->count++;
		return 0;
	}
	/* every frame's strings made the hist's once: entries and nodes then compare addresses */
	if ((size_t)nf > h->hf_cap) {
		struct hframe *n = realloc(h->hf, nf * sizeof(*n));

		if (!n)
			return -ENOMEM;
		h->hf = n;
		h->hf_cap = nf;
	}
	for (int i = 0; i < nf; i++)
		if ((rc = hist__frame(h, &smp->frames[i], &h->hf[i])))
			return rc;
	if ((rc = hist__frame(h, self, &self_hf)))
		return rc;
	if (!smp->stack_id || h->srcline_pos >= 0) {	/* in the order of the samples: after those waiting */
		if ((rc = flush_stacks(h)))
			return rc;
		return add_stack(h, &si, h->hf, nf, &self_hf, smp->frames, self, period, 1);
	}
	st = hist__stack_get(h, smp->stack_id, &si, h->hf, nf, &self_hf);
	if (!st)
		return -ENOMEM;
	st->period += period;
	st->count++;
	/* a recording of ever new stacks: memory for the graphs, not for them twice */
	return h->npool > POOL_MAX ? flush_stacks(h) : 0;
}

/* perf's order of equal entries: each sort key in turn, ascending; no DSO or symbol last */
static int cmp_null_last(const void *a, const void *b)
{
	return !a - !b;
}

static int cmp_keys(const struct hist *h, const struct hist_entry *x, const struct hist_entry *y)
{
	int c = 0;

	for (int i = 0; i < h->o.nr_keys && !c; i++) {
		switch (h->o.keys[i]) {
		case HK_COMM: c = strcmp(x->comm, y->comm); break;
		case HK_PID: c = (x->pid > y->pid) - (x->pid < y->pid); break;
		case HK_TID: c = (x->tid > y->tid) - (x->tid < y->tid); break;
		case HK_CPU: c = (x->cpu > y->cpu) - (x->cpu < y->cpu); break;
		case HK_DSO: {
			const char *a = strcmp(x->dso, "[unknown]") ? x->dso : NULL;
			const char *b = strcmp(y->dso, "[unknown]") ? y->dso : NULL;

			c = a && b ? strcmp(a, b) : cmp_null_last(a, b);
			break;
		}
		case HK_SYM:
			c = x->sym && y->sym ? strcmp(x->sym, y->sym) : cmp_null_last(x->sym, y->sym);
			break;
		case HK_SRCLINE: c = strcmp(x->srcline, y->srcline); break;
		default: break;
		}
	}
	if (!c)		/* unnamed addresses: perf's entries are in address order */
		c = (x->addr > y->addr) - (x->addr < y->addr);
	return c;
}

static int cmp_entry(const void *a, const void *b, void *arg)
{
	const struct hist_entry *x = a, *y = b;
	const struct hist *h = arg;

	if (h->o.children) {
		if (x->children != y->children)
			return x->children > y->children ? -1 : 1;
		/* perf puts a caller above its callee: of one thread, the deeper graph first (caller-first) */
		if (h->o.callchain && x->pid == y->pid && x->tid == y->tid && x->max_depth != y->max_depth)
			return (x->max_depth > y->max_depth) == h->o.caller ? -1 : 1;
	}
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return cmp_keys(h, x, y);
}

/*
 * whether a comes before b: more hits first; equal ones as perf's callchain.c leaves them, in
 * its tree of children keyed by (DSO, symbol address or ip), walked from the greatest key down;
 * inlined frames are keyed by name there
 */
static bool cc_before(const struct cc_node *a, const struct cc_node *b)
{
	if (a->hits != b->hits)
		return a->hits > b->hits;
	if (a->name && b->name && (a->inlined || b->inlined))
		return strcmp(a->name, b->name) > 0;
	if (a->dso_rank != b->dso_rank)
		return a->dso_rank > b->dso_rank;
	return a->key > b->key;
}

static void cc_sort(struct cc_node **head)
{
	/* insertion sort of a sibling list (lists are short) */
	struct cc_node *sorted = NULL, *n = *head;

	while (n) {
		struct cc_node *next = n->next, **p = &sorted;

		while (*p && !cc_before(n, *p))
			p = &(*p)->next;
		n->next = *p;
		*p = n;
		n = next;
	}
	*head = sorted;
	for (n = sorted; n; n = n->next)
		cc_sort(&n->child);
}

void hist__sort(struct hist *h)
{
	flush_stacks(h);	/* out of memory: the stacks that could not be added are not shown */
	for (size_t i = 0; h->srcline_pos >= 0 && i < h->n; i++)
		h->e[i].srcline_sized = h->e[i].srcline_preset || prefix_count(h, &h->e[i], false) >= 2;
	if (h->n)
		qsort_r(h->e, h->n, sizeof(*h->e), cmp_entry, h);
	/* the index points at old positions: rebuild it so later adds still work */
	free(h->index);
	h->index = NULL;
	h->index_cap = 0;
	grow_index(h);
	for (size_t i = 0; i < h->n; i++)
		cc_sort(&h->e[i].cc);
}

size_t hist__nr_entries(const struct hist *h) { return h->n; }
const struct hist_entry *hist__entry(const struct hist *h, size_t i) { return &h->e[i]; }
uint64_t hist__total_period(const struct hist *h) { return h->total; }
uint64_t hist__nr_samples(const struct hist *h) { return h->samples; }
const struct hist_opts *hist__opts(const struct hist *h) { return &h->o; }

struct session_hists {
	struct hist **hists;
	int nr;
	int err;
};

static int add_to_event(const struct session_sample *smp, void *arg)
{
	struct session_hists *c = arg;
	int rc;

	if (smp->attr_idx < 0 || smp->attr_idx >= c->nr)
		return 0;
	rc = hist__add(c->hists[smp->attr_idx], smp);
	if (rc)
		c->err = rc;
	return rc;
}

int hist__from_session(struct session *s, const struct hist_opts *o, struct hist ***hists, int *nr)
{
	struct session_hists c = { 0 };
	int rc = -ENOMEM;

	perfdata_reader__attrs(session__reader(s), &c.nr);
	c.hists = calloc(c.nr ? c.nr : 1, sizeof(*c.hists));
	if (!c.hists)
		return -ENOMEM;
	for (int i = 0; i < c.nr; i++)
		if (!(c.hists[i] = hist__new(o)))
			goto fail;
	if (session__walk(s, add_to_event, NULL, &c) < 0 || c.err) {
		rc = c.err ? c.err : -EIO;
		goto fail;
	}
	for (int i = 0; i < c.nr; i++) {
		if ((rc = flush_stacks(c.hists[i])))
			goto fail;
		hist__sort(c.hists[i]);
	}
	*hists = c.hists;
	*nr = c.nr;
	return 0;
fail:
	for (int i = 0; i < c.nr; i++)
		hist__free(c.hists[i]);
	free(c.hists);
	return rc;
}
