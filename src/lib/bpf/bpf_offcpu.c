// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_offcpu.c - the user side of offcpu.bpf.c: open -> set rodata -> load ->
 * attach -> (the command polls) -> detach -> read the maps -> destroy.
 */
#include "lib/bpf/bpf_offcpu.h"
#include "lib/bpf/bpf_util.h"
#include "lib/proc/target.h"
#include "lib/symbol/symbol.h"
#include "lib/symbol/unwind.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "offcpu.skel.h"

/* --call-graph dwarf: blocked time by unwound stack, aggregated here */
struct dw_agg {
	struct offcpu_key key;
	bool oncpu;		/* --wall: on-CPU samples */
	uint64_t ns, count;
	int nips;
	uint64_t *ips;
	uint64_t hash;
	struct dw_agg *next;
};
#define DW_BUCKETS 4096

/* a thread's block whose copy came (OFFCPU_DWARF_START): its end adds to the stack's entry */
struct dw_pending {
	pid_t tid;
	struct dw_agg *a;	/* NULL: none pending */
	struct dw_pending *next;
};
#define UCFI_SIZE (OFFCPU_UCFI_BUCKETS * sizeof(struct offcpu_ucfi_bucket))

struct offcpu {
	struct offcpu_bpf *skel;
	struct symbolizer *sym;
	void (*before_unwind)(void *ctx, pid_t tgid);
	void *before_unwind_ctx;
	void (*refresh_maps)(void *ctx, pid_t tgid);
	bool dwarf;
	struct offcpu_ucfi_bucket *ucfi;	/* dwarf: the rule cache, mapped (NULL: SONDE_TEST_OFFCPU_NOWALK) */
	unsigned ucfi_turn;		/* which entry of a full bucket the next rule replaces */
	struct dw_agg **dw;		/* DW_BUCKETS chains */
	struct dw_pending **pend;	/* DW_BUCKETS chains: the stacks of blocks started, by tid */
	uint64_t dw_failed;		/* stacks the unwinder could not walk */
	enum bpf_hook hook;
	int wall_hz;
	int *pfds;			/* --wall: one cpu-clock event per CPU */
	struct bpf_link **plinks;
	int nr_cpus;
	int *cpus;
};

/* -u/-k: where task_struct keeps its flags (PF_KTHREAD), from the kernel's BTF */
static int set_task_flags_off(struct offcpu_bpf *skel, char *err, size_t errlen)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int id = btf ? btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT) : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "flags")) {
			skel->rodata->task_flags_off = btf_member_bit_offset(t, i) / 8;
			btf__free(btf);
			return 0;
		}
	btf__free(btf);
	snprintf(err, errlen, "user or kernel threads only: the kernel's BTF (/sys/kernel/btf/vmlinux) "
		 "does not say where a task's flags are");
	return -ENOENT;
}

static int set_tp_offsets(struct offcpu_bpf *skel, char *err, size_t errlen)
{
	int off, size;

	if (bpf_tp__field("sched", "sched_switch", "prev_state", &off, &size) ||
	    (size != 4 && size != 8)) {
		snprintf(err, errlen, "cannot read the layout of tracepoint 'sched:sched_switch' "
			 "(prev_state) from tracefs");
		return -ENOENT;
	}
	skel->rodata->tp_prev_state_off = off;
	skel->rodata->tp_prev_state_size = size;
	if (bpf_tp__field("sched", "sched_switch", "next_pid", &off, &size) || size != 4) {
		snprintf(err, errlen, "cannot read the layout of tracepoint 'sched:sched_switch' (next_pid)");
		return -ENOENT;
	}
	skel->rodata->tp_next_pid_off = off;
	if (bpf_tp__field("sched", "sched_process_fork", "child_pid", &off, &size) || size != 4) {
		snprintf(err, errlen, "cannot read the layout of tracepoint 'sched:sched_process_fork' (child_pid)");
		return -ENOENT;
	}
	skel->rodata->tp_child_pid_off = off;
	return 0;
}

int offcpu__new(struct offcpu **out, const struct offcpu_opts *o, char *err, size_t errlen)
{
	static const enum bpf_hook prefs[] = { BPF_HOOK_TP_BTF, BPF_HOOK_TRACEPOINT };
	struct offcpu *oc;
	struct offcpu_bpf *skel;
	int rc, hook;
	const char *why = NULL;

	*out = NULL;
	if ((why = bpf_probe__privilege())) {
		snprintf(err, errlen, "cannot trace off-CPU time: %s", why);
		return -EPERM;
	}
	if (o->dwarf_size > 0 && (o->force_tracepoint || !bpf_probe__tp_btf("sched_switch", &why))) {
		snprintf(err, errlen, "--call-graph dwarf needs the tp_btf sched_switch hook: %s",
			 o->force_tracepoint ? "--tracepoint asks for the classic tracepoint" : why);
		return -ENOTSUP;
	}
	hook = bpf_hook__choose(prefs + o->force_tracepoint, 2 - o->force_tracepoint, "sched", "sched_switch");
	if (hook < 0) {
		bpf_probe__tracepoint("sched", "sched_switch", &why);
		snprintf(err, errlen, "cannot trace 'sched:sched_switch': %s", why ? why : "no usable hook");
		return -ENOTSUP;
	}
	oc = calloc(1, sizeof(*oc));
	if (!oc)
		return -ENOMEM;
	oc->hook = hook;
	oc->wall_hz = o->wall_hz;
	oc->sym = o->sym;
	oc->before_unwind = o->before_unwind;
	oc->before_unwind_ctx = o->before_unwind_ctx;
	oc->refresh_maps = o->refresh_maps;
	oc->dwarf = o->dwarf_size > 0;
	if (oc->dwarf && (!(oc->dw = calloc(DW_BUCKETS, sizeof(*oc->dw))) ||
			  !(oc->pend = calloc(DW_BUCKETS, sizeof(*oc->pend))))) {
		rc = -ENOMEM;
		goto fail;
	}
	skel = oc->skel = offcpu_bpf__open();
	if (!skel) {
		rc = -errno;
		snprintf(err, errlen, "cannot open the BPF object: %s", bpfutil__strerror(rc));
		goto fail;
	}
	skel->rodata->filter_mode = o->filter;
	skel->rodata->follow_forks = o->follow;
	skel->rodata->user_only = o->user_only;
	skel->rodata->kern_only = o->kern_only;
	skel->rodata->thread_kind = o->threads;
	if (o->threads && (rc = set_task_flags_off(skel, err, errlen)))
		goto fail;
	skel->rodata->state_filter = o->state;
	skel->rodata->min_ns = o->min_ns;
	skel->rodata->max_ns = o->max_ns ? o->max_ns : ~0ULL;
	skel->rodata->self_tgid = getpid();
	/* fault injection for the tests: a switch-in the tracepoint did not report */
	if (getenv("SONDE_TEST_OFFCPU_HIDE_IN"))
		skel->rodata->test_hide_in = strtoul(getenv("SONDE_TEST_OFFCPU_HIDE_IN"), NULL, 0);
	if (o->max_stacks > 0) {
		bpf_map__set_max_entries(skel->maps.stacks, o->max_stacks);
		bpf_map__set_max_entries(skel->maps.info, o->max_stacks);
		bpf_map__set_max_entries(skel->maps.oncpu, o->max_stacks);
	}
	if (oc->dwarf) {
		skel->rodata->dwarf_size = o->dwarf_size > OFFCPU_DWARF_STACK ? OFFCPU_DWARF_STACK : o->dwarf_size;
		/* tests: SONDE_TEST_OFFCPU_RINGBUF=4096 fills it at once (power of 2, pages) */
		bpf_map__set_max_entries(skel->maps.devents, getenv("SONDE_TEST_OFFCPU_RINGBUF") ?
					 strtoul(getenv("SONDE_TEST_OFFCPU_RINGBUF"), NULL, 0) : 32 << 20);
		if (o->max_stacks > 0)
			bpf_map__set_max_entries(skel->maps.ustacks, o->max_stacks);
	} else {	/* no walk in the kernel: the smallest maps */
		bpf_map__set_max_entries(skel->maps.ucfi, 1);
		bpf_map__set_max_entries(skel->maps.ustacks, 1);
	}
	if (hook == BPF_HOOK_TP_BTF) {
		bpf_program__set_autoload(skel->progs.offcpu_switch_tp, false);
		bpf_program__set_autoload(skel->progs.offcpu_fork_tp, false);
	} else {
		bpf_program__set_autoload(skel->progs.offcpu_switch_btf, false);
		bpf_program__set_autoload(skel->progs.offcpu_fork_btf, false);
		rc = set_tp_offsets(skel, err, errlen);
		if (rc)
			goto fail;
	}
	if (o->filter != OFFCPU_TGID || !o->follow) {
		bpf_program__set_autoload(skel->progs.offcpu_fork_btf, false);
		bpf_program__set_autoload(skel->progs.offcpu_fork_tp, false);
	}
	if (o->wall_hz <= 0)
		bpf_program__set_autoload(skel->progs.offcpu_oncpu, false);
	rc = offcpu_bpf__load(skel);
	if (rc) {
		snprintf(err, errlen, "cannot load the off-CPU BPF programs (%s): %s",
			 bpf_hook__name(hook), bpfutil__strerror(rc));
		goto fail;
	}
	rc = bpf_targets__add(bpf_map__fd(skel->maps.targets), o->targets, o->nr_targets);
	if (rc) {
		snprintf(err, errlen, "cannot fill the target map: %s", strerror(-rc));
		goto fail;
	}
	/* tests: SONDE_TEST_OFFCPU_NOWALK=1 leaves the rule cache empty: every stack is copied and unwound here */
	if (oc->dwarf && !getenv("SONDE_TEST_OFFCPU_NOWALK")) {
		void *m = mmap(NULL, UCFI_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(skel->maps.ucfi), 0);

		if (m == MAP_FAILED) {
			rc = -errno;
			snprintf(err, errlen, "cannot map the cache of unwinding rules: %s", strerror(-rc));
			goto fail;
		}
		oc->ucfi = m;
	}
	*out = oc;
	return 0;
fail:
	offcpu__free(oc);
	return rc;
}

int offcpu__add_targets(struct offcpu *oc, const pid_t *pids, int n)
{
	return bpf_targets__add(bpf_map__fd(oc->skel->maps.targets), pids, n);
}

int offcpu__dwarf_fd(const struct offcpu *oc)
{
	return oc->dwarf ? bpf_map__fd(oc->skel->maps.devents) : -1;
}

static uint64_t dw_hash(const struct offcpu_key *k, const uint64_t *ips, int n)
{
	uint64_t h = 1469598103934665603ULL;
	const uint8_t *p = (const uint8_t *)k;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	for (int i = 0; i < n; i++)
		h = (h ^ ips[i]) * 1099511628211ULL;
	return h;
}

/* add ns (count blocks or samples) to the unwound stack ips[n] of k; NULL when out of memory */
static struct dw_agg *dw_add(struct offcpu *oc, const struct offcpu_key *k, bool oncpu, const uint64_t *ips,
			     int n, uint64_t ns, uint64_t count)
{
	uint64_t h = dw_hash(k, ips, n) ^ oncpu;
	struct dw_agg *a;

	for (a = oc->dw[h % DW_BUCKETS]; a; a = a->next)
		if (a->hash == h && a->nips == n && a->oncpu == oncpu && !memcmp(&a->key, k, sizeof(*k)) &&
		    (!n || !memcmp(a->ips, ips, n * sizeof(*ips))))
			break;
	if (!a) {
		a = calloc(1, sizeof(*a));
		if (!a || (n && !(a->ips = malloc(n * sizeof(*ips))))) {
			free(a);
			return NULL;
		}
		a->key = *k;
		a->oncpu = oncpu;
		a->nips = n;
		if (n)	/* a kernel thread has no user frames */
			memcpy(a->ips, ips, n * sizeof(*ips));
		a->hash = h;
		a->next = oc->dw[h % DW_BUCKETS];
		oc->dw[h % DW_BUCKETS] = a;
	}
	a->ns += ns;
	a->count += count;
	return a;
}

/* leave the rule of frame pc (exact: the interrupted IP) in the cache the BPF walk reads */
static void ucfi_put(struct offcpu *oc, uint64_t pc, uint32_t tag, const struct unwind_rule *r)
{
	struct offcpu_ucfi_bucket *b;
	struct offcpu_ucfi *e = NULL;
	uint32_t rule = OFFCPU_UCFI_VALID;
	uint64_t v;

	if (r->cfa_off < -(1 << (OFFCPU_UCFI_OFF_BITS - 1)) || r->cfa_off >= 1 << (OFFCPU_UCFI_OFF_BITS - 1) ||
	    (r->bp_saved && (r->bp_off % 8 || r->bp_off / 8 < -128 || r->bp_off / 8 > 127)))
		return;		/* not in the cache's form: such a frame keeps being copied */
	rule |= (uint32_t)r->cfa_off & ((1U << OFFCPU_UCFI_OFF_BITS) - 1);
	rule |= (r->cfa_bp ? OFFCPU_UCFI_BP : 0) | (r->end ? OFFCPU_UCFI_END : 0);
	if (r->bp_saved)
		rule |= OFFCPU_UCFI_BPSAVED | (uint32_t)(uint8_t)(int8_t)(r->bp_off / 8) << 24;
	v = (uint64_t)rule << 32 | tag;
	b = &oc->ucfi[offcpu_ucfi__bucket(pc, tag)];
	for (int i = 0; i < 2 && !e; i++)
		if (b->e[i].pc == pc && (uint32_t)b->e[i].rule == tag)
			e = &b->e[i];
	if (e && e->rule == v)
		return;
	if (!e)
		e = !b->e[0].pc ? &b->e[0] : !b->e[1].pc ? &b->e[1] : &b->e[oc->ucfi_turn++ & 1];
	/* pc, rule, pc: a reader that sees the same pc twice saw its rule (offcpu.h) */
	__atomic_store_n(&e->pc, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&e->rule, v, __ATOMIC_RELEASE);
	__atomic_store_n(&e->pc, pc, __ATOMIC_RELEASE);
}

/* the rules of the frames just unwound for process tgid (tag), so that the kernel walks them next time */
static void ucfi_learn(struct offcpu *oc, pid_t tgid, uint32_t tag, const uint64_t *ips, int n)
{
	struct unwind_rule r;

	for (int i = 0; i < n; i++)
		if (!unwind__rule(oc->sym, tgid, ips[i], i == 0, &r))
			ucfi_put(oc, ips[i] | (i == 0 ? OFFCPU_UCFI_FRAME0 : 0), tag, &r);
}

/* the rule cached for pc in the process tagged tag, 0 when none */
static uint32_t ucfi_get(const struct offcpu *oc, uint64_t pc, uint32_t tag)
{
	const struct offcpu_ucfi_bucket *b = &oc->ucfi[offcpu_ucfi__bucket(pc, tag)];

	for (int i = 0; i < 2; i++)
		if (b->e[i].pc == pc && (uint32_t)b->e[i].rule == tag)
			return b->e[i].rule >> 32;
	return 0;
}

/* the word at addr of a stack copy that starts at sp */
static bool copy_word(const struct offcpu_dwarf *d, size_t size, uint64_t addr, uint64_t *w)
{
	uint64_t sp = d->regs[7];

	if (addr < sp || addr - sp > size || size - (addr - sp) < sizeof(*w))
		return false;
	memcpy(w, d->stack + (addr - sp), sizeof(*w));
	return true;
}

/*
 * Walk a copied stack with the cached rules, as the BPF program walks a live
 * one: the frames, or 0 where a rule is missing (then libdw unwinds it, and
 * its rules are learned). A stack seen before costs no DWARF unwinding.
 */
static int ucfi_walk(const struct offcpu *oc, const struct offcpu_dwarf *d, size_t size, uint64_t *ips)
{
	uint64_t pc = d->regs[8] | OFFCPU_UCFI_FRAME0, sp = d->regs[7], bp = d->regs[6];

	for (int i = 0; i < OFFCPU_MAX_DEPTH; i++) {
		uint32_t rule = ucfi_get(oc, pc, d->tag);
		int32_t off = (int32_t)(rule << (32 - OFFCPU_UCFI_OFF_BITS)) >> (32 - OFFCPU_UCFI_OFF_BITS);
		uint64_t cfa, ra;

		if (!rule)
			return 0;
		pc &= ~OFFCPU_UCFI_FRAME0;
		ips[i] = pc;
		if (rule & OFFCPU_UCFI_END)
			return i + 1;
		cfa = (rule & OFFCPU_UCFI_BP ? bp : sp) + off;
		if (!copy_word(d, size, cfa - 8, &ra) ||
		    ((rule & OFFCPU_UCFI_BPSAVED) && !copy_word(d, size, cfa + (int64_t)(int8_t)(rule >> 24) * 8, &bp)))
			return 0;
		if (!ra)
			return i + 1;
		sp = cfa;
		pc = ra;
	}
	return OFFCPU_MAX_DEPTH;
}

/* the pending block of tid, made when missing (NULL: out of memory) */
static struct dw_pending *pending(struct offcpu *oc, pid_t tid)
{
	struct dw_pending **head = &oc->pend[(uint32_t)tid % DW_BUCKETS], *q;

	for (q = *head; q; q = q->next)
		if (q->tid == tid)
			return q;
	q = calloc(1, sizeof(*q));
	if (q) {
		q->tid = tid;
		q->next = *head;
		*head = q;
	}
	return q;
}

int offcpu__dwarf_event(void *ctx, void *data, size_t size)
{
	struct offcpu *oc = ctx;
	const struct offcpu_dwarf *d = data;
	uint64_t ips[OFFCPU_MAX_DEPTH];
	struct offcpu_key k;
	struct unwind_rule r;
	struct dw_pending *q;
	struct dw_agg *a;
	size_t got;
	bool oncpu;
	int n = 0;

	if (size == sizeof(struct offcpu_dwarf_end)) {	/* a block ends: its stack came at its start */
		const struct offcpu_dwarf_end *e = data;

		q = pending(oc, e->tid);
		if (q && q->a) {
			q->a->ns += e->ns;
			q->a->count++;
			q->a = NULL;
		}
		return 0;
	}
	if (size < offsetof(struct offcpu_dwarf, stack))
		return 0;
	got = size - offsetof(struct offcpu_dwarf, stack);
	if (got > d->stack_size)
		got = d->stack_size;
	k = d->key;
	k.user_stack_id = -1;
	oncpu = d->flags & OFFCPU_DWARF_ONCPU;
	if (d->regs[8]) {	/* IP: a user task */
		k.user_stack_id = 0;
		if (oc->ucfi && (n = ucfi_walk(oc, d, got, ips)) > 0)
			goto add;
		if (oc->before_unwind)
			oc->before_unwind(oc->before_unwind_ctx, k.tgid);
		n = unwind__user(oc->sym, k.tgid, (const uint64_t *)d->regs, UNWIND_REGS_MASK, d->stack, got,
				 ips, OFFCPU_MAX_DEPTH);
		/*
		 * A copy comes as the block starts: the maps of a process that has
		 * just exec'ed may not have been read yet (they were when it came at
		 * the block's end). Read them again, once, when the stack did not
		 * unwind or its IP is in no module known (the unwinder then walks
		 * frame pointers, and skips callers).
		 */
		if ((n <= 0 || unwind__rule(oc->sym, k.tgid, ips[0], true, &r) == -ESRCH) && oc->refresh_maps) {
			oc->refresh_maps(oc->before_unwind_ctx, k.tgid);
			n = unwind__user(oc->sym, k.tgid, (const uint64_t *)d->regs, UNWIND_REGS_MASK, d->stack,
					 got, ips, OFFCPU_MAX_DEPTH);
		}
		if (n <= 0) {
			oc->dw_failed++;
			ips[0] = d->regs[8];	/* at least where it blocked */
			n = 1;
		} else if (oc->ucfi && !oncpu) {
			ucfi_learn(oc, k.tgid, d->tag, ips, n);
		}
	}
add:
	if (oncpu)	/* a sample stands for one period */
		return dw_add(oc, &k, true, ips, n, 1000000000ULL / oc->wall_hz, 1) ? 0 : -ENOMEM;
	/* a block's start: an entry that counts nothing until the block's end comes */
	a = dw_add(oc, &k, false, ips, n, 0, 0);
	q = pending(oc, k.pid);
	if (!a || !q)
		return -ENOMEM;
	q->a = a;
	return 0;
}

int offcpu__targets_fd(const struct offcpu *oc)
{
	return bpf_map__fd(oc->skel->maps.targets);
}

static int open_wall_events(struct offcpu *oc, char *err, size_t errlen)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(a),
		.sample_period = 1000000000ULL / oc->wall_hz,	/* cpu-clock counts ns: a period is exact time */
	};
	int rc = target__online_cpus(&oc->cpus, &oc->nr_cpus);

	if (rc) {
		snprintf(err, errlen, "cannot list the online CPUs: %s", strerror(-rc));
		return rc;
	}
	oc->pfds = calloc(oc->nr_cpus, sizeof(*oc->pfds));
	oc->plinks = calloc(oc->nr_cpus, sizeof(*oc->plinks));
	if (!oc->pfds || !oc->plinks)
		return -ENOMEM;
	for (int i = 0; i < oc->nr_cpus; i++)
		oc->pfds[i] = -1;
	for (int i = 0; i < oc->nr_cpus; i++) {
		oc->pfds[i] = syscall(SYS_perf_event_open, &a, -1, oc->cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		if (oc->pfds[i] < 0) {
			rc = -errno;
			snprintf(err, errlen, "cannot open 'cpu-clock' on CPU %d for on-CPU samples: %s%s",
				 oc->cpus[i], strerror(-rc),
				 rc == -EACCES || rc == -EPERM ? " (needs root or CAP_PERFMON; kernel.perf_event_paranoid)" : "");
			return rc;
		}
		oc->plinks[i] = bpf_program__attach_perf_event(oc->skel->progs.offcpu_oncpu, oc->pfds[i]);
		if (!oc->plinks[i]) {
			rc = -errno;
			snprintf(err, errlen, "cannot attach the on-CPU sampler on CPU %d: %s",
				 oc->cpus[i], bpfutil__strerror(rc));
			return rc;
		}
	}
	return 0;
}

int offcpu__attach(struct offcpu *oc, char *err, size_t errlen)
{
	int rc = offcpu_bpf__attach(oc->skel);

	if (rc) {
		snprintf(err, errlen, "cannot attach to 'sched:sched_switch' (%s): %s",
			 bpf_hook__name(oc->hook), bpfutil__strerror(rc));
		return rc;
	}
	if (oc->wall_hz > 0)
		return open_wall_events(oc, err, errlen);
	return 0;
}

void offcpu__detach(struct offcpu *oc)
{
	for (int i = 0; oc->plinks && i < oc->nr_cpus; i++) {
		bpf_link__destroy(oc->plinks[i]);
		oc->plinks[i] = NULL;
	}
	for (int i = 0; oc->pfds && i < oc->nr_cpus; i++) {
		if (oc->pfds[i] >= 0)
			close(oc->pfds[i]);
		oc->pfds[i] = -1;
	}
	if (oc->skel)
		offcpu_bpf__detach(oc->skel);
}

const char *offcpu__hook(const struct offcpu *oc)
{
	return bpf_hook__name(oc->hook);
}

static int add_entry(struct offcpu_profile *p, int stacks_fd, const struct offcpu_key *k,
		     bool oncpu, uint64_t ns, uint64_t count)
{
	struct offcpu_entry *e;
	uint64_t ips[OFFCPU_MAX_DEPTH];
	int n;

	if (p->n % 256 == 0) {
		void *ne = realloc(p->e, (p->n + 256) * sizeof(*p->e));

		if (!ne)
			return -ENOMEM;
		p->e = ne;
	}
	e = &p->e[p->n];
	memset(e, 0, sizeof(*e));
	e->key = *k;
	e->oncpu = oncpu;
	e->ns = ns;
	e->count = count;
	n = bpf_stack__read(stacks_fd, k->user_stack_id, ips, OFFCPU_MAX_DEPTH);
	if (n > 0 && (e->user = malloc(n * sizeof(*ips)))) {
		memcpy(e->user, ips, n * sizeof(*ips));
		e->nr_user = n;
	}
	n = bpf_stack__read(stacks_fd, k->kern_stack_id, ips, OFFCPU_MAX_DEPTH);
	if (n > 0 && (e->kern = malloc(n * sizeof(*ips)))) {
		memcpy(e->kern, ips, n * sizeof(*ips));
		e->nr_kern = n;
	}
	p->n++;
	return 0;
}

/* how many times the kernel did not run prog (it was already running on that CPU) */
static uint64_t prog_misses(const struct bpf_program *prog)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(prog);

	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

static int by_time(const void *a, const void *b)
{
	const struct offcpu_entry *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->key.pid < y->key.pid ? -1 : x->key.pid > y->key.pid;
}

int offcpu__read(struct offcpu *oc, struct offcpu_profile *p)
{
	int info_fd = bpf_map__fd(oc->skel->maps.info);
	int oncpu_fd = bpf_map__fd(oc->skel->maps.oncpu);
	int stacks_fd = bpf_map__fd(oc->skel->maps.stacks);
	int stats_fd = bpf_map__fd(oc->skel->maps.stats);
	int ustacks_fd = bpf_map__fd(oc->skel->maps.ustacks);
	struct offcpu_key k, next, *prev = NULL;
	struct offcpu_ustack us;
	uint64_t period = oc->wall_hz > 0 ? 1000000000ULL / oc->wall_hz : 0;
	int rc;

	memset(p, 0, sizeof(*p));
	for (int i = 0; i < OFFCPU_STAT_NR; i++)
		p->stats[i] = bpf_percpu__sum(stats_fd, i);
	p->prog_misses = prog_misses(oc->skel->progs.offcpu_switch_btf) +
			 prog_misses(oc->skel->progs.offcpu_switch_tp) +
			 prog_misses(oc->skel->progs.offcpu_fork_btf) + prog_misses(oc->skel->progs.offcpu_fork_tp);
	while (!bpf_map_get_next_key(info_fd, prev, &next)) {
		struct offcpu_val v;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(info_fd, &k, &v))
			continue;
		if (k.ustack && !bpf_map_lookup_elem(ustacks_fd, &k.ustack, &us)) {
			/* walked in the kernel: with the stacks unwound here, one entry per stack */
			struct offcpu_key w = k;

			w.ustack = 0;
			w.user_stack_id = 0;
			rc = dw_add(oc, &w, false, (const uint64_t *)us.ips, us.n < OFFCPU_MAX_DEPTH ? us.n : OFFCPU_MAX_DEPTH,
				    v.total_ns, v.count) ? 0 : -ENOMEM;
		} else {
			rc = add_entry(p, stacks_fd, &k, false, v.total_ns, v.count);
		}
		if (rc)
			return rc;
	}
	for (int b = 0; oc->dwarf && b < DW_BUCKETS; b++)
		for (struct dw_agg *a = oc->dw[b]; a; a = a->next) {
			struct offcpu_key k = a->key;
			struct offcpu_entry *e;

			if (!a->count)	/* only blocks that never ended (or out of --min/--max-block) */
				continue;
			k.user_stack_id = -1;	/* not a stack-map id: the unwound frames follow */
			rc = add_entry(p, stacks_fd, &k, a->oncpu, a->ns, a->count);
			if (rc)
				return rc;
			e = &p->e[p->n - 1];
			e->key.user_stack_id = a->key.user_stack_id;
			if (a->nips && (e->user = malloc(a->nips * sizeof(*a->ips)))) {
				memcpy(e->user, a->ips, a->nips * sizeof(*a->ips));
				e->nr_user = a->nips;
			}
		}
	p->dwarf_failed = oc->dw_failed;
	prev = NULL;
	while (oc->wall_hz > 0 && !bpf_map_get_next_key(oncpu_fd, prev, &next)) {
		uint64_t samples;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(oncpu_fd, &k, &samples))
			continue;
		rc = add_entry(p, stacks_fd, &k, true, samples * period, samples);
		if (rc)
			return rc;
	}
	if (p->n)
		qsort(p->e, p->n, sizeof(*p->e), by_time);
	return 0;
}

void offcpu_profile__free(struct offcpu_profile *p)
{
	for (int i = 0; i < p->n; i++) {
		free(p->e[i].user);
		free(p->e[i].kern);
	}
	free(p->e);
	memset(p, 0, sizeof(*p));
}

void offcpu__free(struct offcpu *oc)
{
	if (!oc)
		return;
	offcpu__detach(oc);
	offcpu_bpf__destroy(oc->skel);
	free(oc->pfds);
	free(oc->plinks);
	free(oc->cpus);
	for (int b = 0; oc->dw && b < DW_BUCKETS; b++)
		for (struct dw_agg *a = oc->dw[b], *next; a; a = next) {
			next = a->next;
			free(a->ips);
			free(a);
		}
	free(oc->dw);
	for (int b = 0; oc->pend && b < DW_BUCKETS; b++)
		for (struct dw_pending *q = oc->pend[b], *next; q; q = next) {
			next = q->next;
			free(q);
		}
	free(oc->pend);
	if (oc->ucfi)
		munmap(oc->ucfi, UCFI_SIZE);
	free(oc);
}

const char *offcpu__frame_name(struct symbolizer *s, pid_t tgid, uint64_t addr, bool kernel)
{
	struct sym_frame f;

	if (symbolizer__resolve(s, tgid, addr, kernel, &f, 1) >= 1 && f.sym)
		return f.sym;
	return "[unknown]";
}

int offcpu_entry__kern_skip(struct symbolizer *s, const struct offcpu_entry *e)
{
	static const char *const prefixes[] = {
		"bpf_prog_", "bpf_trace_run", "__bpf_trace_", "perf_trace_", "__traceiter_",
		"bpf_overflow_handler",
	};
	static const char *const names[] = {
		"trace_call_bpf", "perf_tp_event", "perf_swevent_hrtimer", "__perf_event_overflow",
	};
	int i = 0;

	for (; i < e->nr_kern; i++) {
		const char *n = offcpu__frame_name(s, e->key.tgid, e->kern[i], true);
		bool tracing = false;

		for (size_t j = 0; j < sizeof(prefixes) / sizeof(prefixes[0]) && !tracing; j++)
			tracing = !strncmp(n, prefixes[j], strlen(prefixes[j]));
		for (size_t j = 0; j < sizeof(names) / sizeof(names[0]) && !tracing; j++)
			tracing = !strcmp(n, names[j]);
		if (!tracing)
			break;
	}
	return i;
}

bool offcpu__stack_missed(int32_t id)
{
	return id < 0 && id != -EFAULT;
}

bool offcpu_profile__fp_gap(struct symbolizer *s, const struct offcpu_profile *p)
{
	for (int i = 0; i < p->n; i++) {
		const struct offcpu_entry *e = &p->e[i];
		struct sym_frame a, b;

		if (e->nr_user < 2)
			continue;
		if (symbolizer__resolve(s, e->key.tgid, e->user[0], false, &a, 1) < 1 ||
		    symbolizer__resolve(s, e->key.tgid, e->user[1], false, &b, 1) < 1)
			continue;
		if (a.dso && b.dso && strcmp(a.dso, b.dso))
			return true;
	}
	return false;
}
