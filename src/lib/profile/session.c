// SPDX-License-Identifier: GPL-2.0
/* session.c - a recording read back with its symbols; see session.h */
#include "lib/profile/session.h"
#include "lib/symbol/unwind.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STACK_DEFAULT 127
/* frames of one address: its inline chain and the function (perf has no limit; the symbolizer 32) */
#define MAX_INLINE 32

struct comm_slot {
	uint32_t tid;
	bool used;
	char comm[16];
};

/*
 * The stacks already resolved: samples of one process with the same addresses
 * (most are: a profile repeats its hot paths) take the frames resolved the first
 * time, until a record changes what the addresses mean (an mmap, an exec, a fork,
 * a BPF program), when the cache starts over.
 */
struct stack_slot {
	uint64_t hash;
	struct stack_entry *e;	/* NULL: empty */
};

struct stack_entry {
	uint32_t id, pid;
	int attr_idx;
	bool kernel, truncated;
	int nr_frames;
	uint64_t nips;
	struct session_frame self;
	struct session_frame *frames;	/* nr_frames of them, after ips */
	uint64_t ips[];			/* the key: the callchain, or the sample ip */
};

#define STACK_CACHE_BYTES (16u << 20)	/* start over past this much */

/* the entries are cut from util__huge_block()s, all let go together */
struct stack_block {
	struct stack_block *next;
	size_t used;			/* bytes of the block, this header included */
};

struct session {
	struct perfdata_reader *r;
	struct stack_slot *stacks;
	size_t nstacks, stacks_cap, stack_bytes;
	struct stack_block *stack_blocks;	/* the newest first */
	size_t stack_blocks_made;
	uint32_t next_stack_id;
	struct symbolizer *sym;
	struct session_opts o;
	struct comm_slot *comms;	/* open addressing, power-of-two size */
	size_t comm_cap, comm_used;
	struct session_frame *frames;
	struct session_frame self;	/* the sample's own function (session_sample.self) */
	int frames_cap;
	uint64_t *ips;			/* scratch for unwinding */
	unsigned long bad;
	char first_error[256];
	char unknown_comm[16];
};

static struct comm_slot *comm_find(struct session *s, uint32_t tid, bool create)
{
	size_t mask = s->comm_cap - 1, i = (tid * 2654435761u) & mask;

	while (s->comms[i].used) {
		if (s->comms[i].tid == tid)
			return &s->comms[i];
		i = (i + 1) & mask;
	}
	if (!create)
		return NULL;
	if ((s->comm_used + 1) * 2 > s->comm_cap) {
		struct comm_slot *old = s->comms;
		size_t oldcap = s->comm_cap;
		struct comm_slot *nc = calloc(oldcap * 2, sizeof(*nc));

		if (!nc)
			return NULL;
		s->comms = nc;
		s->comm_cap = oldcap * 2;
		s->comm_used = 0;
		for (size_t k = 0; k < oldcap; k++)
			if (old[k].used) {
				struct comm_slot *d = comm_find(s, old[k].tid, true);

				memcpy(d->comm, old[k].comm, sizeof(d->comm));
			}
		free(old);
		return comm_find(s, tid, true);
	}
	s->comms[i].used = true;
	s->comms[i].tid = tid;
	s->comms[i].comm[0] = 0;
	s->comm_used++;
	return &s->comms[i];
}

static void comm_set(struct session *s, uint32_t tid, const char *comm)
{
	struct comm_slot *c;
	char copy[sizeof(c->comm)];

	/* comm may be another thread's slot (a fork), which a growing table moves */
	snprintf(copy, sizeof(copy), "%s", comm);
	c = comm_find(s, tid, true);
	if (c)
		memcpy(c->comm, copy, sizeof(copy));
}

const char *session__comm(struct session *s, uint32_t tid)
{
	struct comm_slot *c = comm_find(s, tid, false);

	return c ? c->comm : "";
}

int session__open(struct session **out, const char *path, const struct session_opts *o,
		  char *err, size_t errlen)
{
	struct session *s = calloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	if (o)
		s->o = *o;
	if (s->o.max_stack <= 0)
		s->o.max_stack = MAX_STACK_DEFAULT;
	rc = perfdata_reader__open(&s->r, path, err, errlen);
	if (rc) {
		free(s);
		return rc;
	}
	if (s->o.sym_flags & SYM_INLINE_UNWOUND) {	/* no DWARF call graph: no inline chains to look up */
		int nattr = 0;
		const struct perfdata_attr *at = perfdata_reader__attrs(s->r, &nattr);
		bool dwarf = false;

		for (int i = 0; i < nattr; i++)
			dwarf |= !!(at[i].attr.sample_type & PERF_SAMPLE_STACK_USER);
		if (!dwarf)
			s->o.sym_flags &= ~SYM_INLINE_UNWOUND;
	}
	s->sym = symbolizer__new(s->o.sym_flags);
	if (s->sym) {
		const struct perfdata_features *f = perfdata_reader__features(s->r);

		if (s->o.symfs && (rc = symbolizer__set_root(s->sym, s->o.symfs))) {
			snprintf(err, errlen, "cannot use '%s' as the symbol root: %s", s->o.symfs, strerror(-rc));
			session__free(s);
			return rc;
		}
		if (s->o.kallsyms && (rc = symbolizer__set_kallsyms(s->sym, s->o.kallsyms))) {
			snprintf(err, errlen, "cannot read kernel symbols from '%s': %s", s->o.kallsyms, strerror(-rc));
			session__free(s);
			return rc;
		}
		/* the header's build ids: a file rebuilt since the recording gives no names, not wrong ones */
		for (size_t i = 0; i < f->nr_build_ids; i++)
			if (f->build_ids[i].filename)
				symbolizer__add_build_id(s->sym, f->build_ids[i].filename, f->build_ids[i].id,
							 f->build_ids[i].size);
	}
	s->next_stack_id = 1;
	s->comm_cap = 1024;
	s->comms = calloc(s->comm_cap, sizeof(*s->comms));
	s->frames_cap = (s->o.max_stack + 1) * (s->o.sym_flags & (SYM_INLINE | SYM_INLINE_UNWOUND) ? MAX_INLINE : 1) + 8;
	s->frames = calloc(s->frames_cap, sizeof(*s->frames));
	s->ips = calloc(s->o.max_stack + 1, sizeof(*s->ips));
	if (!s->sym || !s->comms || !s->frames || !s->ips) {
		session__free(s);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

static void stacks_clear(struct session *s)
{
	while (s->stack_blocks) {
		struct stack_block *next = s->stack_blocks->next;

		util__huge_free(s->stack_blocks);
		s->stack_blocks = next;
	}
	free(s->stacks);
	s->stacks = NULL;
	s->nstacks = s->stacks_cap = s->stack_bytes = 0;
}

void session__free(struct session *s)
{
	if (!s)
		return;
	stacks_clear(s);
	perfdata_reader__free(s->r);
	symbolizer__free(s->sym);
	free(s->comms);
	free(s->frames);
	free(s->ips);
	free(s);
}

struct perfdata_reader *session__reader(struct session *s) { return s->r; }
struct symbolizer *session__symbolizer(struct session *s) { return s->sym; }
unsigned long session__bad_records(const struct session *s) { return s->bad; }
const char *session__first_error(const struct session *s) { return s->first_error[0] ? s->first_error : NULL; }

struct stack_ctx {
	struct symbolizer *sym;
	unsigned sym_flags;
	struct session_frame *frames;
	int cap, n;
	bool truncated;
};

/*
 * add the frames of one address (its inline chain first); false when full. With
 * SYM_INLINE_UNWOUND only a frame unwound with DWARF gets its chain, and its
 * function is named after DWARF where that is another name than the symbol's,
 * as an inlined frame: perf 6.1 asks addr2line about those frames only and so
 * prints "__libc_start_main_impl (inlined)" for __libc_start_main.
 */
static bool push_ip(struct stack_ctx *c, uint32_t pid, uint64_t ip, bool kernel, bool unwound)
{
	struct sym_frame tmp[MAX_INLINE];
	bool chain = (c->sym_flags & SYM_INLINE) || (unwound && (c->sym_flags & SYM_INLINE_UNWOUND));
	int n, room = c->cap - c->n;

	if (room <= 0) {
		c->truncated = true;
		return false;
	}
	n = symbolizer__resolve(c->sym, (pid_t)pid, ip, kernel, tmp,
				(c->sym_flags & (SYM_INLINE | SYM_INLINE_UNWOUND)) ? MAX_INLINE : 1);
	if (n < 1) {
		memset(tmp, 0, sizeof(tmp[0]));
		n = 1;
	}
	if (!chain && n > 1) {	/* the function's own frame only, at the line of the address */
		const char *file = tmp[0].srcfile;
		int line = tmp[0].srcline;

		tmp[0] = tmp[n - 1];
		tmp[0].srcfile = file;
		tmp[0].srcline = line;
		n = 1;
	}
	const char *elf_sym = NULL;

	if (chain && unwound && (c->sym_flags & SYM_INLINE_UNWOUND) && tmp[n - 1].dwname) {
		elf_sym = tmp[n - 1].sym;
		tmp[n - 1].sym = tmp[n - 1].dwname;
		tmp[n - 1].inlined = true;
	}
	if (n > room) {
		n = room;
		c->truncated = true;
	}
	/* perf's name for code in anonymous memory: the map a JIT would write, /tmp/perf-PID.map */
	if (!kernel && tmp[n - 1].dso && !tmp[n - 1].sym &&
	    (!strcmp(tmp[n - 1].dso, "//anon") || !strncmp(tmp[n - 1].dso, "/dev/zero", 9) ||
	     !strncmp(tmp[n - 1].dso, "/anon_hugepage", 14))) {
		char buf[48];

		snprintf(buf, sizeof(buf), "/tmp/perf-%u.map", pid);
		tmp[n - 1].dso = symbolizer__intern(c->sym, buf) ?: tmp[n - 1].dso;
	}
	for (int i = 0; i < n; i++) {
		struct session_frame *f = &c->frames[c->n++];

		f->ip = ip;
		f->kernel = kernel;
		f->sym = tmp[i];
		f->elf_sym = i == n - 1 ? elf_sym : NULL;
		f->unwound = unwound;
	}
	return true;
}

const char *session__dso_short_name(const char *dso, char *buf, size_t len)
{
	const char *slash;
	int pid;

	if (!dso)
		return "[unknown]";
	if (dso[0] == '[')
		return dso;
	if (!strncmp(dso, "/tmp/perf-", 10) && sscanf(dso, "/tmp/perf-%d.map", &pid) == 1) {	/* per sample: no sscanf */
		snprintf(buf, len, "[JIT] tid %d", pid);
		return buf;
	}
	slash = strrchr(dso, '/');
	return slash ? slash + 1 : dso;
}

bool session__kernel_sample(uint16_t misc)
{
	uint16_t mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
}

int session__resolve_stack(struct symbolizer *sym, unsigned sym_flags, const struct perf_event_attr *a,
			   const struct perfdata_sample *ps, bool kernel, int max_stack,
			   struct session_frame *frames, int cap, uint64_t *ips, bool *truncated)
{
	struct stack_ctx c = { sym, sym_flags, frames, cap, 0, false };
	bool dwarf = ps->user_abi && ps->user_stack && ps->user_stack_size &&
		     (a->sample_type & PERF_SAMPLE_STACK_USER) && ips;
	bool have_user = false;
	int depth = 0;

	if (max_stack <= 0 || !(a->sample_type & PERF_SAMPLE_CALLCHAIN) || !ps->nr_callchain) {
		push_ip(&c, ps->pid, ps->ip, kernel, false);
		if (!dwarf || kernel || max_stack <= 0)
			goto out;
		c.n = 0;	/* the unwinder gives the ip again */
	} else {
		bool k = kernel;

		for (uint64_t i = 0; i < ps->nr_callchain && depth < max_stack; i++) {
			uint64_t ip = ps->callchain[i];

			if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
				k = ip == (uint64_t)PERF_CONTEXT_KERNEL || ip == (uint64_t)PERF_CONTEXT_GUEST_KERNEL;
				if (ip == (uint64_t)PERF_CONTEXT_USER && dwarf)
					break;	/* the user part comes from unwinding */
				continue;
			}
			if (!k)
				have_user = true;
			if (!push_ip(&c, ps->pid, ip, k, false))
				goto out;
			depth++;
		}
		if (!dwarf || have_user)
			goto out;
	}
	/* --call-graph dwarf: unwind the user stack copy with the sampled registers */
	{
		int n = unwind__user(sym, (pid_t)ps->pid, ps->user_regs, ps->user_regs_mask,
				     ps->user_stack, ps->user_stack_size, ips, max_stack - depth);

		if (n <= 0 && !c.n) {
			push_ip(&c, ps->pid, ps->ip, kernel, false);
			goto out;
		}
		/* callers at their return address - 1, in the call, as perf's libdw unwinder gives them */
		for (int i = 0; i < n; i++)
			if (!push_ip(&c, ps->pid, i ? ips[i] - 1 : ips[i], false, true))
				break;
	}
out:
	if (truncated)
		*truncated = c.truncated;
	return c.n;
}

static uint64_t stack_hash(uint32_t pid, int attr_idx, bool kernel, const uint64_t *ips, uint64_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	uint64_t h = ((uint64_t)pid << 32 | (uint32_t)attr_idx) * 2 + kernel;

	/* the multiplications do not wait for each other: one rotation and xor per address */
	for (uint64_t i = 0; i < n; i++)
		h = ((h << 27) | (h >> 37)) ^ (ips[i] * k);
	h = (h ^ n ^ (h >> 31)) * k;
	return (h ^ (h >> 29)) | 1;
}

/* the slot of the stack of smp, its entry when known; NULL: no room (then it is not cached) */
static struct stack_slot *stack_slot(struct session *s, const struct session_sample *smp, const uint64_t *ips,
				     uint64_t n, uint64_t hv)
{
	size_t mask, i;

	if ((s->nstacks + 1) * 2 > s->stacks_cap) {
		size_t nc = s->stacks_cap ? s->stacks_cap * 2 : 1024;
		struct stack_slot *t = calloc(nc, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t k = 0; k < s->stacks_cap; k++) {
			size_t j;

			if (!s->stacks[k].e)
				continue;
			for (j = s->stacks[k].hash & (nc - 1); t[j].e; j = (j + 1) & (nc - 1))
				;
			t[j] = s->stacks[k];
		}
		free(s->stacks);
		s->stacks = t;
		s->stacks_cap = nc;
	}
	mask = s->stacks_cap - 1;
	for (i = hv & mask; s->stacks[i].e; i = (i + 1) & mask) {
		const struct stack_entry *e = s->stacks[i].e;

		if (s->stacks[i].hash == hv && e->pid == smp->s->pid && e->attr_idx == smp->attr_idx &&
		    e->kernel == smp->kernel && e->nips == n && !memcmp(e->ips, ips, n * sizeof(*ips)))
			break;
	}
	return &s->stacks[i];
}

/* keep the frames just resolved for smp in slot; quietly not when out of memory */
static void stack_keep(struct session *s, struct stack_slot *slot, const struct session_sample *smp,
		       const uint64_t *ips, uint64_t n, uint64_t hv)
{
	size_t bytes = sizeof(struct stack_entry) + n * sizeof(*ips) + smp->nr_frames * sizeof(*smp->frames);
	struct stack_block *b = s->stack_blocks;
	struct stack_entry *e;

	if (!s->next_stack_id)	/* 0 is "not known": after 4 billion stacks, no more ids */
		return;
	bytes = (bytes + 7) & ~(size_t)7;
	if (bytes > UTIL_HUGE - sizeof(*b))	/* thousands of frames: not kept */
		return;
	if (!b || b->used + bytes > UTIL_HUGE) {
		if (!(b = util__huge_block(++s->stack_blocks_made)))
			return;
		b->next = s->stack_blocks;
		b->used = sizeof(*b);
		s->stack_blocks = b;
	}
	e = (struct stack_entry *)((char *)b + b->used);
	b->used += bytes;
	e->id = s->next_stack_id++;
	e->pid = smp->s->pid;
	e->attr_idx = smp->attr_idx;
	e->kernel = smp->kernel;
	e->truncated = smp->truncated;
	e->nr_frames = smp->nr_frames;
	e->nips = n;
	e->self = *smp->self;
	memcpy(e->ips, ips, n * sizeof(*ips));
	e->frames = (struct session_frame *)(e->ips + n);
	memcpy(e->frames, smp->frames, smp->nr_frames * sizeof(*smp->frames));
	slot->hash = hv;
	slot->e = e;
	s->nstacks++;
	s->stack_bytes += bytes;
}

static void build_stack(struct session *s, struct session_sample *smp)
{
	const struct perfdata_sample *ps = smp->s;
	const struct perf_event_attr *a = &smp->ev->attr->attr;
	struct stack_slot *slot = NULL;
	const uint64_t *ips = &ps->ip;
	uint64_t n = 1, hv = 0;
	int k = 0;

	/* a stack copy unwound with DWARF differs every time: not cached */
	if (!(ps->user_abi && ps->user_stack && ps->user_stack_size && (a->sample_type & PERF_SAMPLE_STACK_USER))) {
		if (!s->o.no_callchain && (a->sample_type & PERF_SAMPLE_CALLCHAIN) && ps->nr_callchain) {
			ips = ps->callchain;
			n = ps->nr_callchain;
		}
		if (s->stack_bytes > STACK_CACHE_BYTES)
			stacks_clear(s);
		hv = stack_hash(ps->pid, smp->attr_idx, smp->kernel, ips, n);
		slot = stack_slot(s, smp, ips, n, hv);
		if (slot && slot->e) {
			smp->frames = slot->e->frames;
			smp->nr_frames = slot->e->nr_frames;
			smp->truncated = slot->e->truncated;
			smp->self = &slot->e->self;
			smp->stack_id = slot->e->id;
			return;
		}
	}

	smp->frames = s->frames;
	smp->nr_frames = session__resolve_stack(s->sym, s->o.sym_flags, &smp->ev->attr->attr, smp->s, smp->kernel,
						s->o.no_callchain ? 0 : s->o.max_stack, s->frames, s->frames_cap,
						s->ips, &smp->truncated);
	/* the sample ip's own function: the last frame of its inline chain, by its symbol's name */
	while (k + 1 < smp->nr_frames && s->frames[k].sym.inlined && s->frames[k + 1].ip == s->frames[0].ip)
		k++;
	s->self = smp->nr_frames > 0 ? s->frames[k] : (struct session_frame){ 0 };
	if (s->self.elf_sym) {
		s->self.sym.sym = s->self.elf_sym;
		s->self.sym.inlined = false;
		s->self.elf_sym = NULL;
	}
	/* but the line of the address itself (the innermost inlined call's), asked as for no list */
	if (k) {
		s->self.sym.srcfile = s->frames[0].sym.srcfile;
		s->self.sym.srcline = s->frames[0].sym.srcline;
	}
	s->self.unwound = false;
	smp->self = &s->self;
	if (slot) {
		stack_keep(s, slot, smp, ips, n, hv);
		if (slot->e)
			smp->stack_id = slot->e->id;
	}
}

bool session_filter__match(const struct session_filter *f, const char *comm, uint32_t pid, uint32_t tid)
{
	return (!f->comms || util__list_has(f->comms, comm)) && (!f->pids || util__list_has_num(f->pids, pid)) &&
	       (!f->tids || util__list_has_num(f->tids, tid));
}

bool session_filter__match_sym(const struct session_filter *f, const char *sym)
{
	return !f->syms || (sym && util__list_has(f->syms, sym));
}

static void note_error(struct session *s, const char *msg)
{
	s->bad++;
	if (!s->first_error[0] && msg)
		snprintf(s->first_error, sizeof(s->first_error), "%s", msg);
}

int session__walk(struct session *s, session_sample_fn on_sample, session_event_fn on_event, void *arg)
{
	struct perfdata_event ev;
	int rc;

	perfdata_reader__rewind(s->r);
	stacks_clear(s);
	while ((rc = perfdata_reader__next(s->r, &ev)) != 0) {
		if (rc < 0) {
			if (rc != -EBADMSG)
				return rc;
			note_error(s, perfdata_reader__error(s->r));
			continue;
		}
		/* what the addresses of a process mean changes: resolve stacks again */
		if (s->nstacks && (ev.type == PERF_RECORD_MMAP || ev.type == PERF_RECORD_MMAP2 ||
				   ev.type == PERF_RECORD_KSYMBOL || ev.type == PERF_RECORD_FORK ||
				   (ev.type == PERF_RECORD_COMM && ev.comm.exec)))
			stacks_clear(s);
		switch (ev.type) {
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			symbolizer__add_mmap(s->sym, (pid_t)ev.mmap.pid, ev.mmap.start, ev.mmap.len, ev.mmap.pgoff,
					     ev.mmap.filename, ev.mmap.build_id, ev.mmap.build_id_size);
			break;
		case PERF_RECORD_KSYMBOL:
			symbolizer__add_ksymbol(s->sym, ev.ksymbol.addr, ev.ksymbol.len, ev.ksymbol.name);
			break;
		case PERF_RECORD_COMM:
			/*
			 * An exec keeps the old maps, as perf keeps them: the new image's
			 * mmaps replace what they overlap. A sample taken later in the
			 * exec (loading the new image) still has the old image's user
			 * stack, perf names it (libc's execve) and so does sonde
			 */
			comm_set(s, ev.comm.tid, ev.comm.comm);
			break;
		case PERF_RECORD_FORK: {
			const char *pc = session__comm(s, ev.task.ptid);

			if (*pc)
				comm_set(s, ev.task.tid, pc);
			if (ev.task.pid != ev.task.ppid)
				symbolizer__fork(s->sym, (pid_t)ev.task.ppid, (pid_t)ev.task.pid);
			break;
		}
		default:
			break;
		}
		if (ev.type == PERF_RECORD_SAMPLE) {
			struct session_sample smp = { 0 };

			smp.ev = &ev;
			smp.s = &ev.sample;
			smp.attr_idx = ev.attr_idx;
			smp.event_name = ev.attr && ev.attr->name ? ev.attr->name : "";
			smp.comm = session__comm(s, ev.sample.tid);
			if (!*smp.comm && ev.sample.tid == 0) {
				smp.comm = "swapper";	/* the idle task, as perf names it */
			} else if (!*smp.comm) {
				/* perf's name for a thread it never saw a COMM of */
				snprintf(s->unknown_comm, sizeof(s->unknown_comm), ":%u", ev.sample.tid);
				smp.comm = s->unknown_comm;
			}
			smp.kernel = session__kernel_sample(ev.misc);
			if (!session_filter__match(&s->o.filter, smp.comm, ev.sample.pid, ev.sample.tid)) {
				smp.filtered = true;
			} else {
				build_stack(s, &smp);
				if (s->o.filter.syms) {
					const struct session_frame *self = smp.self ? smp.self :
									   smp.nr_frames ? smp.frames : NULL;

					smp.filtered = !session_filter__match_sym(&s->o.filter,
										   self ? self->sym.sym : NULL);
				}
			}
			if (smp.filtered && !s->o.keep_filtered)
				continue;
			if (smp.filtered) {
				smp.frames = NULL;
				smp.nr_frames = 0;
				smp.self = NULL;
			}
			rc = on_sample ? on_sample(&smp, arg) : 0;
		} else {
			rc = on_event ? on_event(&ev, arg) : 0;
		}
		if (rc)
			return rc;
	}
	return 0;
}
