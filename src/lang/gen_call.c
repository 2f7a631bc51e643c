// SPDX-License-Identifier: GPL-2.0
/*
 * gen_call.c - code for the language's functions: the ones with a value
 * (kaddr, strncmp, ...), the statements (printf, exit, delete, ...) and the
 * aggregations (count, sum, hist, lhist, ...), which update per-CPU maps.
 */
#include "lang/gen_int.h"
#include "lang/gen_task.h"
#include "lang/skboutput.h"
#include "lang/provider_iter.h"
#include "lang/ktypes.h"

#include "lang/provider.h"
#include <bpf/btf.h>

#include <errno.h>
#include <signal.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

long long g_kaddr(const char *sym)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], t;
	unsigned long long a;
	long long r = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &t, name) == 3 && !strcmp(name, sym)) {
			r = (long long)a;
			break;
		}
	fclose(f);
	return r;
}

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

/*
 * CLOCK_TAI - CLOCK_BOOTTIME, read between two boot-time readings (the "triple
 * vdso sandwich"): nsecs(sw_tai) for kernels without bpf_ktime_get_tai_ns
 */
static int64_t sw_tai_offset(void)
{
	int64_t best = 0, width = INT64_MAX;

	for (int i = 0; i < 5; i++) {	/* the narrowest of five: a preempted one is wide */
		struct timespec b1, tai, b2;

		clock_gettime(CLOCK_BOOTTIME, &b1);
		clock_gettime(CLOCK_TAI, &tai);
		clock_gettime(CLOCK_BOOTTIME, &b2);
		if (ts_ns(&b2) - ts_ns(&b1) < width) {
			width = ts_ns(&b2) - ts_ns(&b1);
			best = ts_ns(&tai) - (ts_ns(&b1) + ts_ns(&b2)) / 2;
		}
	}
	return best;
}

void gen_call_int(struct gen *g, struct node *n)
{
	struct node *a0 = n->args;

	switch (n->op) {
	case F_NSECS: {	/* boot, monotonic, tai, sw_tai */
		static const int helpers[] = { BPF_FUNC_ktime_get_boot_ns, BPF_FUNC_ktime_get_ns, BPF_FUNC_ktime_get_tai_ns,
					       BPF_FUNC_ktime_get_boot_ns };

		g_emit(g, CALL(helpers[n->id]));
		if (n->id == 3) {	/* sw_tai: boot time plus TAI's offset from it, as user space sees them now */
			g_ld_imm64(g, R1, (uint64_t)sw_tai_offset());
			g_emit(g, ALU_REG(BPF_ADD, R0, R1));
		}
		return;
	}
	case F_KADDR: {
		long long a = g_kaddr(a0->s);

		if (a < 0 && !g->fail) {
			lang__error(g->prog, a0->loc, "no kernel symbol '%s' in /proc/kallsyms (data symbols need "
				    "CONFIG_KALLSYMS_ALL)", a0->s);
			g->fail = true;
		}
		g_ld_imm64(g, R0, (uint64_t)a);
		return;
	}
	case F_KSYM:
		gen_int(g, a0);
		return;
	case F_DELETE: {	/* as a value: whether the key was there (map_delete_elem gave 0) */
		struct mapinfo *m = a0->map;
		int mark = g->sp, key;

		if (m->agg == AGG_HIST || m->agg == AGG_LHIST || m->agg == AGG_TSERIES) {
			if (!g->fail)
				lang__error(g->prog, n->loc, "delete() of a %s map removes every bucket of the key and gives "
					    "no value: call it as a statement", m->agg == AGG_TSERIES ? "tseries" : "histogram");
			g->fail = true;
			return;
		}
		key = gen_key(g, a0);
		g_ld_map(g, R1, m->index);
		g_fp_addr(g, R2, key);
		g_emit(g, CALL(BPF_FUNC_map_delete_elem));	/* its value is used: no -k warning */
		g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 2));
		g_emit(g, MOV_IMM(R0, 0));
		g_emit(g, JA(1));
		g_emit(g, MOV_IMM(R0, 1));
		g->sp = mark;
		return;
	}
	case F_STRNCMP:
		gen_str_cmp(g, a0, a0->next, (int)a0->next->next->i, false);
		return;
	case F_STRCONTAINS: {
		int mark = g->sp, h = g_slot(g, a0->ty.size, a0->loc);
		const char *needle = a0->next->s;
		int nl = (int)a0->next->slen;
		int *found = NULL, nfound = 0, *ends = NULL, nends = 0;

		gen_to(g, a0, h, &a0->ty);
		for (int i = 0; i + nl <= a0->ty.size; i++) {
			int *miss = NULL, nmiss = 0;

			for (int k = 0; k < nl; k++) {
				g_emit(g, LDX(BPF_B, R1, FP, h + i + k));
				if (k == 0)
					g_push_fix(g, &ends, &nends, g_emit(g, JMP_IMM(BPF_JEQ, R1, 0, 0)));
				g_push_fix(g, &miss, &nmiss, g_emit(g, JMP_IMM(BPF_JNE, R1, (unsigned char)needle[k], 0)));
			}
			g_push_fix(g, &found, &nfound, g_emit(g, JA(0)));
			for (int k = 0; k < nmiss; k++)
				g_patch(g, miss[k]);
			free(miss);
		}
		for (int k = 0; k < nends; k++)
			g_patch(g, ends[k]);
		g_emit(g, MOV_IMM(R0, nl == 0));
		int done = g_emit(g, JA(0));

		for (int k = 0; k < nfound; k++)
			g_patch(g, found[k]);
		g_emit(g, MOV_IMM(R0, 1));
		g_patch(g, done);
		free(found);
		free(ends);
		g->sp = mark;
		return;
	}
	case F_BSWAP: {
		int bits = n->ty.bits ? n->ty.bits : 64;

		gen_int(g, a0);
		g_emit(g, INSN(BPF_ALU | BPF_END | BPF_TO_BE, R0, 0, 0, bits < 16 ? 16 : bits));
		if (bits == 8)
			g_emit(g, ALU_IMM(BPF_RSH, R0, 8));
		return;
	}
	case F_REG: {
		static const struct { const char *n; int off; } regs[] = {
			{ "r15", 0 }, { "r14", 8 }, { "r13", 16 }, { "r12", 24 }, { "bp", 32 }, { "rbp", 32 },
			{ "bx", 40 }, { "rbx", 40 }, { "r11", 48 }, { "r10", 56 }, { "r9", 64 }, { "r8", 72 },
			{ "ax", 80 }, { "rax", 80 }, { "cx", 88 }, { "rcx", 88 }, { "dx", 96 }, { "rdx", 96 },
			{ "si", 104 }, { "rsi", 104 }, { "di", 112 }, { "rdi", 112 }, { "orig_ax", 120 },
			{ "ip", 128 }, { "rip", 128 }, { "cs", 136 }, { "flags", 144 }, { "sp", 152 },
			{ "rsp", 152 }, { "ss", 160 },
		};
		for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
			if (!strcmp(regs[i].n, a0->s)) {
				g_emit(g, LDX(BPF_DW, R0, R6, regs[i].off));
				return;
			}
		if (!g->fail)
			lang__error(g->prog, a0->loc, "unknown register '%s'", a0->s);
		g->fail = true;
		return;
	}
	case F_KSTACK:
		g_stackid(g, false);
		return;
	case F_STRERROR: case F_KPTR: case F_UPTR:
		gen_int(g, a0);
		return;
	case F_UADDR: {
		uint64_t addr = 0, size;

		if (!g->in->path || provider__elf_symbol(g->in->path, a0->s, &addr, &size)) {
			if (!g->fail)
				lang__error(g->prog, a0->loc, "no function or object '%s' in the probed binary", a0->s);
			g->fail = true;
			return;
		}
		g_ld_imm64(g, R0, addr);
		return;
	}
	case F_HAS_KEY: {
		int mark = g->sp, key = gen_key(g, a0);

		g_lookup(g, a0->map->index, key);
		g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 1));
		g_emit(g, MOV_IMM(R0, 1));
		g->sp = mark;
		return;
	}
	case F_FIND:
		gen_find(g, n);
		return;
	case F_LEN:
		if (n->id) {	/* of a stack (check_map.c) */
			gen_stack_len(g, n);
			return;
		}
		g_map_len(g, n);
		return;
	case F_PID_NS: case F_TID_NS: case F_PERCPU_KADDR: case F_SOCKET_COOKIE:
		gentask__int(g, n);
		return;
	case F_SKBOUTPUT:
		genskb__call(g, n);
		return;
	default:
		if (n->op >= F_STRLEN && n->op <= F_USERNAME) {
			gen_str_int(g, n);
			return;
		}
		g_unsupported(g, n, "this function as a value");
	}
}

/* r0 = the length of buf(p, len) known at run time, at most max (unsigned: -3 is max, as in bpftrace) */
static void g_clamp_len(struct gen *g, int max)
{
	g_emit(g, JMP_IMM(BPF_JLE, R0, max, 1));
	g_emit(g, MOV_IMM(R0, max));
}

/* the bytes of a fixed-size array the type checker accepted (ntop, buf): tracepoint or BTF; else 0 */
static int g_array_size(struct gen *g, struct node *a)
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

/* [fp+off] = n bytes read from where r0 points (a kernel type's array: its value is its address) */
static void g_read_at_r0(struct gen *g, int off, int n)
{
	g_emit(g, MOV_REG(R3, R0));
	g_fp_addr(g, R1, off);
	g_emit(g, MOV_IMM(R2, n));
	g_emit(g, CALL(BPF_FUNC_probe_read));
	g_hcheck(g);
}

/* buf(): [u64 length][bytes]; the bytes after the length are zeros */
static void gen_buf(struct gen *g, struct node *n, int off)
{
	struct node *a0 = n->args, *a1 = a0->next;
	int room = n->ty.size - 8, arr = g_array_size(g, a0);
	long long len = a1 && a1->kind == N_INT ? a1->i : arr;

	if (room > g->prog->cfg.max_strlen)	/* the type's size is 8-aligned, max_strlen is not */
		room = g->prog->cfg.max_strlen;

	if (len > room)
		len = room;
	if (a1 && a1->kind != N_INT) {	/* the length known at run time */
		gen_int(g, a1);
		g_clamp_len(g, room);
		g_emit(g, STX(BPF_DW, FP, R0, off));
	} else {
		g_emit(g, ST(BPF_DW, FP, off, (int)len));
	}
	if (a0->ty.kind == TY_STR) {
		gen_str(g, a0, off + 8, room);
		for (int i = a1 && a1->kind != N_INT ? room : (int)len; i < room; i++)
			g_emit(g, ST(BPF_B, FP, off + 8 + i, 0));
		return;
	}
	gen_int(g, a0);
	g_emit(g, MOV_REG(R3, R0));
	g_fp_addr(g, R1, off + 8);
	if (a1 && a1->kind != N_INT) {
		g_emit(g, LDX(BPF_DW, R2, FP, off));
		g_emit(g, JMP_IMM(BPF_JLE, R2, room, 1));	/* the verifier wants the bound where the call is */
		g_emit(g, MOV_IMM(R2, room));
	} else {
		g_emit(g, MOV_IMM(R2, (int)len));
	}
	/* bpf_probe_read reads user or kernel memory (x86-64's split address space); zeros on failure */
	g_emit(g, CALL(BPF_FUNC_probe_read));
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
	struct node *a0 = n->args;

	if (g->fail)
		return;
	g_zero(g, off, size);
	switch (n->op) {
	case F_PTON:	/* the bytes, 8 at a time */
		for (int i = 0; i < (int)n->x->slen; i += 8) {
			uint64_t v = 0;

			memcpy(&v, n->x->s + i, (int)n->x->slen - i < 8 ? (size_t)((int)n->x->slen - i) : 8);
			g_ld_imm64(g, R1, v);
			g_emit(g, STX(BPF_DW, FP, R1, off + i));
		}
		return;
	case F_MACADDR: {	/* the 6 bytes, from an array or through a pointer */
		int arr = g_array_size(g, a0);

		if (arr && a0->ty.kind != TY_STRUCT && a0->ty.kind != TY_INT) {
			gen_str(g, a0, off, 8);	/* a tracepoint's or a kernel type's char array */
			return;
		}
		gen_int(g, a0);	/* an array's address, or the pointer */
		g_read_at_r0(g, off, 6);
		return;
	}
	case F_BUF:
		gen_buf(g, n, off);
		return;
	case F_NTOP: {	/* [u64 family][16 address bytes] */
		struct node *addr = a0->next ? a0->next : a0;
		int arr = g_array_size(g, addr);

		if (a0->next) {
			gen_int(g, a0);
			g_emit(g, STX(BPF_DW, FP, R0, off));
		} else {
			g_emit(g, ST(BPF_DW, FP, off, arr == 16 ? AF_INET6 : AF_INET));
		}
		if (arr && addr->ty.kind == TY_STRUCT) {
			gen_int(g, addr);
			g_read_at_r0(g, off + 8, arr);
		} else if (addr->ty.kind == TY_ARRAY) {
			gen_to(g, addr, off + 8, &addr->ty);
		} else if (arr) {
			gen_str(g, addr, off + 8, g_round8(arr));
		} else {
			gen_int(g, addr);
			g_emit(g, STX(BPF_W, FP, R0, off + 8));
		}
		return;
	}
	case F_STRFTIME:	/* [u64 format's site][u64 nsecs] */
		gen_int(g, a0->next);
		g_emit(g, STX(BPF_DW, FP, R0, off + 8));
		g_emit(g, ST(BPF_DW, FP, off, n->id - 1));
		return;
	case F_CGROUP_PATH:	/* [u64 cgroup id][u64 filter's site] */
		gen_int(g, a0);
		g_emit(g, STX(BPF_DW, FP, R0, off));
		g_emit(g, ST(BPF_DW, FP, off + 8, n->id - 1));
		return;
	default:
		g_unsupported(g, n, "this function as a value");
	}
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
		struct btf *btf = btf__load_vmlinux_btf();

		id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;
		if (id < 0)
			id = -1;
		btf__free(btf);
	}
	return id;
}

void g_map_len(struct gen *g, struct node *n)
{
	int id = kfunc_id("bpf_map_sum_elem_count");

	if (id < 0) {
		if (!g->fail)
			lang__error(g->prog, n->loc, "len() needs the kernel function bpf_map_sum_elem_count "
				    "(Linux 6.6 or later, with BTF in /sys/kernel/btf/vmlinux): not found here");
		g->fail = true;
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

	if (call->args)
		gen_int(g, call->args);
	else
		g_emit(g, MOV_IMM(R0, 1));
	g_emit(g, STX(BPF_DW, FP, R0, v));
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
	case AGG_AVG: case AGG_STATS:
		g_emit(g, MOV_IMM(R2, 1));
		g_emit(g, XADD(R0, R2, 0));
		g_emit(g, XADD(R0, R1, 8));
		break;
	case AGG_MIN: case AGG_MAX:
		g_emit(g, LDX(BPF_DW, R2, R0, 8));
		g_emit(g, JMP_IMM(BPF_JEQ, R2, 0, 2));
		g_emit(g, LDX(BPF_DW, R2, R0, 0));
		g_emit(g, JMP_REG(m->agg == AGG_MIN ? BPF_JSGE : BPF_JSLE, R1, R2, 2));
		g_emit(g, STX(BPF_DW, R0, R1, 0));
		g_emit(g, ST(BPF_DW, R0, 8, 1));
		break;
	default:	/* per-CPU value: no other CPU writes it */
		g_emit(g, XADD(R0, R1, 0));
		break;
	}
	g_patch(g, done1);
	g_patch(g, done2);
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

void g_record(struct gen *g, struct node *call, int kind, int arg)
{
	int mark = g->sp, buf = g_slot(g, 8, call->loc);

	g_emit(g, ST(BPF_W, FP, buf, kind));
	g_emit(g, ST(BPF_W, FP, buf + 4, arg));
	g_send(g, buf, 8);
	g->sp = mark;
}

void g_site_record(struct gen *g, struct node *call, struct node *args)
{
	struct fmtsite *s = g->prog->sites[call->id - 1];
	int mark = g->sp, buf = g_slot(g, s->size, call->loc), at = 8, i = 0;

	g_emit(g, ST(BPF_W, FP, buf, s->kind));
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
	struct node *a0 = n->args;

	switch (n->op) {
	case F_PRINTF: case F_CAT: case F_SYSTEM: case F_ERRORF:
		if (n->op == F_PRINTF && iter__printf(g, n))	/* into the iterator's output */
			return;
		g_site_record(g, n, a0->next);
		return;
	case F_PRINT:
		if (a0->kind == N_MAP && a0->i < 0)
			g_record(g, n, REC_PRINT_MAP, n->id - 1);
		else
			g_site_record(g, n, a0);
		return;
	case F_TIME:
		g_record(g, n, REC_TIME, n->id - 1);
		return;
	case F_EXIT: {	/* { REC_EXIT, code } */
		int mark = g->sp, buf = g_slot(g, 8, n->loc);

		if (a0)
			gen_int(g, a0);
		else
			g_emit(g, MOV_IMM(R0, 0));
		g_emit(g, STX(BPF_W, FP, R0, buf + 4));
		g_emit(g, ST(BPF_W, FP, buf, REC_EXIT));
		g_send(g, buf, 8);
		/* marked in the lost map too (key 1): a full ring buffer cannot lose the exit */
		int k = g_slot(g, 8, n->loc);

		g_emit(g, ST(BPF_DW, FP, k, 1));
		g_lookup(g, MAPREF_LOST, k);
		g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 6));
		g_emit(g, LDX(BPF_W, R1, FP, buf + 4));
		g_emit(g, ALU_IMM(BPF_AND, R1, 0xff));
		g_emit(g, MOV_IMM(R2, 1));
		g_emit(g, ALU_IMM(BPF_LSH, R2, 32));
		g_emit(g, ALU_REG(BPF_OR, R1, R2));
		g_emit(g, STX(BPF_DW, R0, R1, 0));
		g->sp = mark;
		return;
	}
	case F_UNWATCH: {	/* { REC_UNWATCH, 0, addr } */
		int mark = g->sp, buf = g_slot(g, 16, n->loc);

		gen_int(g, a0);
		g_emit(g, STX(BPF_DW, FP, R0, buf + 8));
		g_emit(g, ST(BPF_W, FP, buf, REC_UNWATCH));
		g_emit(g, ST(BPF_W, FP, buf + 4, 0));
		g_send(g, buf, 16);
		g->sp = mark;
		return;
	}
	case F_JOIN: {
		/* the record is too big for the stack: build it in a per-CPU map value (r7) */
		int mark = g->sp, arr = g_slot(g, 8, n->loc), k = g_slot(g, 8, n->loc), tmp = g_slot(g, 8, n->loc);
		int *ends = NULL, nends = 0;

		gen_int(g, a0);
		g_emit(g, STX(BPF_DW, FP, R0, arr));
		g_emit(g, ST(BPF_DW, FP, k, 0));
		g_lookup(g, MAPREF_JOIN, k);
		int none = g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 0));

		g_emit(g, MOV_REG(R7, R0));
		g_emit(g, ST(BPF_W, R7, 0, REC_JOIN));
		g_emit(g, ST(BPF_W, R7, 4, n->id - 1));
		for (int i = 0; i < JOIN_ARGS; i++)
			g_emit(g, ST(BPF_B, R7, 8 + JOIN_LEN * i, 0));
		for (int i = 0; i < JOIN_ARGS; i++) {
			g_fp_addr(g, R1, tmp);
			g_emit(g, MOV_IMM(R2, 8));
			g_emit(g, LDX(BPF_DW, R3, FP, arr));
			g_emit(g, ALU_IMM(BPF_ADD, R3, 8 * i));
			g_emit(g, CALL(BPF_FUNC_probe_read));
			g_hcheck(g);
			g_push_fix(g, &ends, &nends, g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 0)));
			g_emit(g, LDX(BPF_DW, R3, FP, tmp));
			g_push_fix(g, &ends, &nends, g_emit(g, JMP_IMM(BPF_JEQ, R3, 0, 0)));
			g_emit(g, MOV_REG(R1, R7));
			g_emit(g, ALU_IMM(BPF_ADD, R1, 8 + JOIN_LEN * i));
			g_emit(g, MOV_IMM(R2, JOIN_LEN));
			g_emit(g, CALL(BPF_FUNC_probe_read_str));
			g_hcheck(g);
		}
		for (int i = 0; i < nends; i++)
			g_patch(g, ends[i]);
		free(ends);
		g_ld_map(g, R1, MAPREF_RINGBUF);
		g_emit(g, MOV_REG(R2, R7));
		g_emit(g, MOV_IMM(R3, 8 + JOIN_LEN * JOIN_ARGS));
		g_emit(g, MOV_IMM(R4, 0));
		g_emit(g, CALL(BPF_FUNC_ringbuf_output));
		g_patch(g, none);
		g->sp = mark;
		return;
	}
	case F_CLEAR: case F_ZERO:
		g_record(g, n, n->op == F_CLEAR ? REC_CLEAR : REC_ZERO, a0->map->index);
		return;
	case F_DELETE: {
		int mark = g->sp, key;

		if (a0->map->agg == AGG_HIST || a0->map->agg == AGG_LHIST || a0->map->agg == AGG_TSERIES) {
			gen_delete_all(g, a0);	/* every bucket or slot of the key */
			return;
		}
		key = gen_key(g, a0);

		g_ld_map(g, R1, a0->map->index);
		g_fp_addr(g, R2, key);
		g_emit(g, CALL(BPF_FUNC_map_delete_elem));
		g_hcheck(g);
		g->sp = mark;
		return;
	}
	case F_SIGNAL: case F_SIGNAL_THREAD: {
		int s = g_signo(a0);

		if (s <= 0 || s >= 64) {
			if (!g->fail)
				lang__error(g->prog, a0->loc, "unknown signal");
			g->fail = true;
			return;
		}
		g_emit(g, MOV_IMM(R1, s));
		g_emit(g, CALL(n->op == F_SIGNAL ? BPF_FUNC_send_signal : BPF_FUNC_send_signal_thread));
		g_hcheck(g);
		return;
	}
	case F_OVERRIDE:	/* needs CONFIG_BPF_KPROBE_OVERRIDE and a function on the error-injection list */
		gen_int(g, a0);
		g_emit(g, MOV_REG(R2, R0));
		g_emit(g, MOV_REG(R1, R6));
		g_emit(g, CALL(BPF_FUNC_override_return));
		return;
	case F_ASSERT: case F_ASSERT_STR:
		gen_str_stmt(g, n);
		return;
	default:
		if (n->ty.kind == TY_INT)
			gen_int(g, n);
		else if (n->ty.kind != TY_VOID) {
			int mark = g->sp, t = g_slot(g, n->ty.size, n->loc);

			gen_to(g, n, t, &n->ty);
			g->sp = mark;
		}
	}
}

/* ---- statements ---- */
