// SPDX-License-Identifier: GPL-2.0
/*
 * gen_call.c - a call of a builtin function, handed to its row's hooks
 * (builtins.h: the code of each function is in src/lang/builtins/), and
 * what the hooks share: records to user space (g_send(), g_site_record()),
 * the aggregations' updates of their per-CPU maps (gen_agg()) and their
 * buckets, fixed-size arrays, kernel symbols, signal names.
 */
#include "lang/gen_int.h"
#include "lib/bpf/bpf_util.h"
#include "lang/ktypes.h"

#include "lang/provider.h"
#include <bpf/btf.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int g_kaddr(const char *sym, uint64_t *addr)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], t;
	unsigned long long a;
	int r = -ENOENT;

	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &t, name) == 3 && !strcmp(name, sym)) {
			*addr = a;
			r = 0;
			break;
		}
	fclose(f);
	return r;
}

/* ---- the dispatch to the rows' hooks (builtins.h) ---- */
void gen_call_int(struct gen *g, struct node *n)
{
	const struct builtin *b = builtin__of(n);

	if (b && b->gen_int)
		b->gen_int(g, n);
	else
		g_unsupported(g, n, "this function as a value");
}

/* the bytes of a fixed-size array the type checker accepted (ntop, buf): tracepoint or BTF; else 0 */
int g_array_size(struct gen *g, struct node *a)
{
	const struct tp_field *f;
	int elem, cnt;

	if (a->ty.kind == TY_ARRAY)
		return type__array_bytes(&a->ty);
	if ((a->ty.kind == TY_STRUCT || (a->ty.kind == TY_STR && a->ty.btf_id > 0)) &&
	    !ktypes__array(g->prog, a->ty.btf_id, &elem, &cnt))
		return ktypes__size(g->prog, a->ty.btf_id) > 0 ? ktypes__size(g->prog, a->ty.btf_id) : 0;
	if (a->kind != N_FIELD || a->l->ty.kind != TY_CTX)
		return 0;
	f = g_field_of(g, a);
	return f && f->array ? f->size : 0;
}

/*
 * [fp+off] = n bytes read from where r0 points (a kernel type's array: its
 * value is its address); bpf_probe_read and bpf_probe_read_str read user or
 * kernel memory (x86-64's split address space)
 */
void g_read_r0(struct gen *g, int helper, int off, int n)
{
	g_emit(g, MOV_REG(R3, R0));
	g_fp_addr(g, R1, off);
	g_emit(g, MOV_IMM(R2, n));
	g_emit(g, CALL(helper));
	g_hcheck(g);
}

/* values user space formats: buf, ntop, strftime, cgroup_path into [fp+off], size bytes */
static void gen_call_value1(struct gen *g, struct node *n, int off, int size);

void gen_call_value(struct gen *g, struct node *n, int off, int size)
{
	G_KLOC(g, n->loc, g->prog->cfg.helper_check ? g_kloc_call_end(g, n->loc) : 0, gen_call_value1(g, n, off, size));
}

static void gen_call_value1(struct gen *g, struct node *n, int off, int size)
{
	const struct builtin *b = builtin__of(n);

	if (g->fail)
		return;
	g_zero(g, off, size);
	if (b && b->gen_value)
		b->gen_value(g, n, off, size);
	else
		g_unsupported(g, n, "this function as a value");
}

/* r1 = floor(log2(r0)) for r0 > 0, by binary search over the bits (r0, r2 clobbered) */
static void g_ilog2(struct gen *g)
{
	g_emit(g, MOV_IMM(R1, 0));
	for (int s = 32; s >= 1; s /= 2) {
		g_emit(g, MOV_REG(R2, R0));
		g_emit(g, ALU_IMM(BPF_RSH, R2, s));
		g_emit(g, JMP_IMM(BPF_JEQ, R2, 0, 2));
		g_emit(g, MOV_REG(R0, R2));
		g_emit(g, ALU_IMM(BPF_ADD, R1, s));
	}
}

/*
 * r0 = the bucket of r0 in a hist(n, k): <0 -> 0; v < 2^k -> v + 1; else, with
 * m = floor(log2 v), ((m - k + 1) << k) + the k bits after v's top bit + 1:
 * each power of two split in 2^k equal parts (the labels' inverse, output.c).
 */
void g_log2k_bucket(struct gen *g, int k)
{
	g_emit(g, JMP_IMM(BPF_JSGE, R0, 0, 2));
	g_emit(g, MOV_IMM(R0, 0));
	int d1 = g_emit(g, JA(0));

	g_emit(g, JMP_IMM(BPF_JGE, R0, 1 << k, 2));
	g_emit(g, ALU_IMM(BPF_ADD, R0, 1));
	int d2 = g_emit(g, JA(0));

	g_emit(g, MOV_REG(R4, R0));	/* v */
	g_ilog2(g);	/* r1 = m */
	g_emit(g, ALU_IMM(BPF_SUB, R1, k));	/* m - k: the sub-bucket bits start there */
	g_emit(g, ALU_REG(BPF_RSH, R4, R1));
	g_emit(g, ALU_IMM(BPF_AND, R4, (1 << k) - 1));
	g_emit(g, ALU_IMM(BPF_ADD, R1, 1));
	g_emit(g, ALU_IMM(BPF_LSH, R1, k));
	g_emit(g, MOV_REG(R0, R1));
	g_emit(g, ALU_REG(BPF_ADD, R0, R4));
	g_emit(g, ALU_IMM(BPF_ADD, R0, 1));
	g_patch(g, d1);
	g_patch(g, d2);
}

/*
 * len(@m): the kernel keeps a per-CPU count of a hash map's elements, which its
 * bpf_map_sum_elem_count() kfunc (Linux 6.6) adds up: called by BTF id
 */
static int kfunc_id(const char *name)
{
	static int id = -2;

	if (id == -2) {
		struct btf *btf = bpf_util__vmlinux_btf();	/* shared: not freed */

		id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;
		if (id < 0)
			id = -1;
	}
	return id;
}

/*
 * Before 6.6 (Debian 12's 6.1 among them), len(@m) counts the elements with
 * bpf_for_each_map_elem (5.13), which returns how many it visited: a callback
 * that only goes on. O(elements), where the kfunc is O(CPUs): syscount and
 * biolatency ask it once an interval.
 */
static void g_map_len_walk(struct gen *g, struct node *n)
{
	struct bpf_code *code, *here = g->c;
	int sub;

	if (g_subs_init(g) || (sub = g_subs_new(g, n->loc, &code)) < 0)
		return;
	g->c = code;
	g_emit(g, MOV_IMM(R0, 0));	/* 0: the next element */
	g_emit(g, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	g->c = here;
	g_ld_map(g, R1, n->args->map->index);
	g_ld_func(g, R2, sub);
	g_emit(g, MOV_IMM(R3, 0));
	g_emit(g, MOV_IMM(R4, 0));
	g_emit(g, CALL(BPF_FUNC_for_each_map_elem));
}

/*
 * Whether len() may call the kfunc: its BTF id costs a parse of the kernel's BTF
 * (5-10 ms of a tool's start-up) unless something parsed it already. A probe that
 * runs rarely (BEGIN, END, interval: syscount's and biolatency's summaries) walks
 * the map instead, at a cost nobody sees.
 */
static bool len_kfunc_worth(const struct gen *g)
{
	const char *prov = g->in && g->in->ap ? g->in->ap->prov : NULL;

	if (bpf_util__vmlinux_btf_loaded())
		return true;
	return !prov || (strcmp(prov, "BEGIN") && strcmp(prov, "END") && strcmp(prov, "interval"));
}

void g_map_len(struct gen *g, struct node *n)
{
	int id = len_kfunc_worth(g) ? kfunc_id("bpf_map_sum_elem_count") : -1;

	if (id < 0) {
		g_map_len_walk(g, n);
		return;
	}
	g_ld_map(g, R1, n->args->map->index);
	g_emit(g, INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, id));
}

/* r0 = the log2 bucket of r0 (bpftrace's: <0 -> 0, 0 -> 1, [2^k, 2^k+1) -> k + 2) */
void g_log2_bucket(struct gen *g)
{
	g_emit(g, JMP_IMM(BPF_JSGE, R0, 0, 2));
	g_emit(g, MOV_IMM(R0, 0));
	int d1 = g_emit(g, JA(0));

	g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 2));
	g_emit(g, MOV_IMM(R0, 1));
	int d2 = g_emit(g, JA(0));

	g_ilog2(g);
	g_emit(g, MOV_REG(R0, R1));
	g_emit(g, ALU_IMM(BPF_ADD, R0, 2));
	g_patch(g, d1);
	g_patch(g, d2);
}

void g_lin_bucket(struct gen *g, const struct mapinfo *m)
{
	long long nb = (m->lmax - m->lmin) / m->lstep;

	g_ld_imm64(g, R1, (uint64_t)m->lmin);
	g_emit(g, JMP_REG(BPF_JSGE, R0, R1, 2));
	g_emit(g, MOV_IMM(R0, 0));
	int d1 = g_emit(g, JA(0));

	g_ld_imm64(g, R1, (uint64_t)m->lmax);
	g_emit(g, JMP_REG(BPF_JSLT, R0, R1, 2));
	g_ld_imm64(g, R0, (uint64_t)nb + 1);
	int d2 = g_emit(g, JA(0));

	g_ld_imm64(g, R1, (uint64_t)m->lmin);
	g_emit(g, ALU_REG(BPF_SUB, R0, R1));
	g_ld_imm64(g, R1, (uint64_t)m->lstep);
	g_emit(g, ALU_REG(BPF_DIV, R0, R1));
	g_emit(g, ALU_IMM(BPF_ADD, R0, 1));
	g_patch(g, d1);
	g_patch(g, d2);
}

/*
 * --percentiles: a hist/lhist map keeps each key's exact largest value in one
 * more per-CPU entry, bucket HIST_MAX_BUCKET, as v ^ 2^63 so that unsigned
 * order is signed order and 0 (the other CPUs' slots) means "none" (output.c)
 */
static void gen_hist_max(struct gen *g, const struct mapinfo *m, int key, int raw)
{
	g_ld_imm64(g, R1, HIST_MAX_BUCKET);
	g_emit(g, STX(BPF_DW, FP, R1, key + (int)m->key_size - 8));
	g_emit(g, LDX(BPF_DW, R1, FP, raw));
	g_ld_imm64(g, R2, 1ULL << 63);
	g_emit(g, ALU_REG(BPF_XOR, R1, R2));
	g_emit(g, STX(BPF_DW, FP, R1, raw));
	g_lookup(g, m->index, key);
	int have = g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 0));

	g_update(g, m->index, key, raw, BPF_NOEXIST);
	int done = g_emit(g, JA(0));

	g_patch(g, have);
	g_emit(g, LDX(BPF_DW, R1, FP, raw));
	g_emit(g, LDX(BPF_DW, R2, R0, 0));
	g_emit(g, JMP_REG(BPF_JGE, R2, R1, 1));
	g_emit(g, STX(BPF_DW, R0, R1, 0));
	g_patch(g, done);
}

void gen_agg(struct gen *g, struct node *mapn, struct node *call)
{
	struct mapinfo *m = mapn->map;

	if (m->agg == AGG_TSERIES) {
		gen_tseries(g, mapn, call);
		return;
	}
	int mark = g->sp;
	int key = gen_key(g, mapn);
	int v = g_slot(g, 8, call->loc), init = g_slot(g, 16, call->loc);
	bool hmax = (g->prog->cfg.percentiles || m->keep_max) && (m->agg == AGG_HIST || m->agg == AGG_LHIST);
	int raw = hmax ? g_slot(g, 8, call->loc) : 0;

	g_int_or(g, call->args, 1);
	g_emit(g, STX(BPF_DW, FP, R0, v));
	if (hmax)
		g_emit(g, STX(BPF_DW, FP, R0, raw));
	if (m->agg == AGG_HIST || m->agg == AGG_LHIST) {
		if (m->agg == AGG_HIST && m->hist_k)
			g_log2k_bucket(g, m->hist_k);
		else if (m->agg == AGG_HIST)
			g_log2_bucket(g);
		else
			g_lin_bucket(g, m);
		g_emit(g, STX(BPF_DW, FP, R0, key + (int)m->key_size - 8));
		g_emit(g, ST(BPF_DW, FP, v, 1));
	}
	/* what a new entry starts with */
	switch (m->agg) {
	case AGG_AVG: case AGG_STATS:
		g_emit(g, ST(BPF_DW, FP, init, 1));
		g_emit(g, LDX(BPF_DW, R1, FP, v));
		g_emit(g, STX(BPF_DW, FP, R1, init + 8));
		break;
	case AGG_MIN: case AGG_MAX:
		g_emit(g, LDX(BPF_DW, R1, FP, v));
		g_emit(g, STX(BPF_DW, FP, R1, init));
		g_emit(g, ST(BPF_DW, FP, init + 8, 1));
		break;
	default:
		g_emit(g, LDX(BPF_DW, R1, FP, v));
		g_emit(g, STX(BPF_DW, FP, R1, init));
		break;
	}
	g_lookup(g, m->index, key);
	int have = g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 0));

	g_update(g, m->index, key, init, BPF_NOEXIST);
	int done1 = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

	g_lookup(g, m->index, key);	/* another CPU created it first */
	int done2 = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

	g_patch(g, have);
	g_emit(g, LDX(BPF_DW, R1, FP, v));
	switch (m->agg) {
	case AGG_AVG: case AGG_STATS:	/* per CPU, as below */
		g_emit(g, LDX(BPF_DW, R2, R0, 0));
		g_emit(g, ALU_IMM(BPF_ADD, R2, 1));
		g_emit(g, STX(BPF_DW, R0, R2, 0));
		g_emit(g, LDX(BPF_DW, R2, R0, 8));
		g_emit(g, ALU_REG(BPF_ADD, R2, R1));
		g_emit(g, STX(BPF_DW, R0, R2, 8));
		break;
	case AGG_MIN: case AGG_MAX:
		g_emit(g, LDX(BPF_DW, R2, R0, 8));
		g_emit(g, JMP_IMM(BPF_JEQ, R2, 0, 2));
		g_emit(g, LDX(BPF_DW, R2, R0, 0));
		g_emit(g, JMP_REG(m->agg == AGG_MIN ? BPF_JSGE : BPF_JSLE, R1, R2, 2));
		g_emit(g, STX(BPF_DW, R0, R1, 0));
		g_emit(g, ST(BPF_DW, R0, 8, 1));
		break;
	default:
		if (m->percpu) {	/* no other CPU writes this value: no locked add (as bpftrace) */
			g_emit(g, LDX(BPF_DW, R2, R0, 0));
			g_emit(g, ALU_REG(BPF_ADD, R2, R1));
			g_emit(g, STX(BPF_DW, R0, R2, 0));
		} else {
			g_emit(g, XADD(R0, R1, 0));
		}
		break;
	}
	g_patch(g, done1);
	g_patch(g, done2);
	if (hmax)
		gen_hist_max(g, m, key, raw);
	g->sp = mark;
}

/* ---- records to user space ---- */
void g_send(struct gen *g, int buf, int size)
{
	g_ld_map(g, R1, MAPREF_RINGBUF);
	g_fp_addr(g, R2, buf);
	g_emit(g, MOV_IMM(R3, size));
	g_emit(g, MOV_IMM(R4, 0));
	g_emit(g, CALL(BPF_FUNC_ringbuf_output));
	/* a full ring buffer loses the record: count it (a per-CPU array, key 0) */
	int ok = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));
	int k = g_slot(g, 8, g->pr->loc);

	g_emit(g, ST(BPF_DW, FP, k, 0));
	g_lookup(g, MAPREF_LOST, k);
	g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 2));
	g_emit(g, MOV_IMM(R1, 1));
	g_emit(g, XADD(R0, R1, 0));
	g->sp -= 8;
	g_patch(g, ok);
}

/* whether a printf's or time()'s format may leave its line open (output_lines.c) */
static bool partial_lines(const struct program *p)
{
	for (int i = 0; i < p->nsites; i++) {
		const struct fmtsite *s = p->sites[i];
		size_t n = (s->kind == REC_PRINTF || s->kind == REC_TIME) && s->fmt ? strlen(s->fmt) : 0;

		if (n && s->fmt[n - 1] != '\n')
			return true;
	}
	return false;
}

/*
 * The first word of a record at base+off: its kind. The text records (printf,
 * join, time, cat, system, print of a value or a map) of a program whose printfs may
 * leave a line open also carry the thread, so
 * that the parts of two lines printed at once on two CPUs are not mixed
 * (output_lines.c). Socket filters (bench probes) cannot ask for it.
 */
void g_rec_kind(struct gen *g, int base, int off, int kind)
{
	bool text = kind == REC_PRINTF || kind == REC_JOIN || kind == REC_TIME || kind == REC_CAT ||
		    kind == REC_SYSTEM || kind == REC_PRINT_VAL || kind == REC_PRINT_MAP;

	if (!text || !g->in ||
	    g->in->prog_type == BPF_PROG_TYPE_SOCKET_FILTER || !partial_lines(g->prog)) {
		g_emit(g, ST(BPF_W, base, off, kind));
		return;
	}
	g_emit(g, CALL(BPF_FUNC_get_current_pid_tgid));
	g_emit(g, ALU_IMM(BPF_LSH, R0, REC_TID_SHIFT));
	g_emit(g, ALU_IMM(BPF_OR, R0, kind));
	g_emit(g, STX(BPF_W, base, R0, off));
}

void g_record(struct gen *g, struct node *call, int kind, int arg)
{
	int mark = g->sp, buf = g_slot(g, 8, call->loc);

	g_rec_kind(g, FP, buf, kind);
	g_emit(g, ST(BPF_W, FP, buf + 4, arg));
	g_send(g, buf, 8);
	g->sp = mark;
}

void g_site_record(struct gen *g, struct node *call, struct node *args)
{
	struct fmtsite *s = g->prog->sites[call->id - 1];
	int mark = g->sp, buf = g_slot(g, s->size, call->loc), at = 8, i = 0;

	g_rec_kind(g, FP, buf, s->kind);
	g_emit(g, ST(BPF_W, FP, buf + 4, call->id - 1));
	for (struct node *a = args; a && i < s->nargs; a = a->next, i++) {
		gen_to(g, a, buf + at, &s->args[i]);
		at += g_round8(s->args[i].size);
	}
	g_send(g, buf, s->size);
	g->sp = mark;
}

int g_signo(struct node *a)
{
	static const struct { const char *n; int s; } sigs[] = {
		{ "SIGHUP", SIGHUP }, { "SIGINT", SIGINT }, { "SIGQUIT", SIGQUIT }, { "SIGILL", SIGILL },
		{ "SIGTRAP", SIGTRAP }, { "SIGABRT", SIGABRT }, { "SIGBUS", SIGBUS }, { "SIGFPE", SIGFPE },
		{ "SIGKILL", SIGKILL }, { "SIGUSR1", SIGUSR1 }, { "SIGSEGV", SIGSEGV }, { "SIGUSR2", SIGUSR2 },
		{ "SIGPIPE", SIGPIPE }, { "SIGALRM", SIGALRM }, { "SIGTERM", SIGTERM }, { "SIGCHLD", SIGCHLD },
		{ "SIGCONT", SIGCONT }, { "SIGSTOP", SIGSTOP }, { "SIGTSTP", SIGTSTP },
	};
	if (a->kind == N_INT)
		return (int)a->i;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!strcmp(a->s, sigs[i].n) || !strcmp(a->s, sigs[i].n + 3))
			return sigs[i].s;
	return -1;
}

void gen_call_stmt(struct gen *g, struct node *n)
{
	const struct builtin *b = builtin__of(n);

	if (b && b->gen_stmt) {
		b->gen_stmt(g, n);
		return;
	}
	if (n->ty.kind == TY_INT) {	/* a value nobody reads */
		gen_int(g, n);
	} else if (n->ty.kind != TY_VOID) {
		int mark = g->sp, t = g_slot(g, n->ty.size, n->loc);

		gen_to(g, n, t, &n->ty);
		g->sp = mark;
	}
}

/* ---- statements ---- */
