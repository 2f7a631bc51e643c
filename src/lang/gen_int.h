/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gen_int.h - what the code generator's files share (gen.c: expressions and
 * statements; gen_call.c: calls, handed to their rows in src/lang/builtins/,
 * and aggregations). For src/lang/gen*.c and the builtins' family files only. Conventions: r6 holds the context, every integer
 * expression leaves its value in r0, values wider than 8 bytes live in stack
 * slots handed out by g_slot() and released by resetting g->sp. The
 * instructions go to g->c, which gen__probe()'s caller owns (gen.h); nothing
 * else returned is the caller's to free.
 */
#ifndef SONDE_LANG_GEN_INT_H
#define SONDE_LANG_GEN_INT_H

#include "lang/builtins/builtins.h"
#include "lang/gen.h"

#include <stdbool.h>
#include <stdint.h>

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define ALU_REG(op, d, s) INSN(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define ALU_IMM(op, d, i) INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define MOV_REG(d, s) ALU_REG(BPF_MOV, d, s)
#define MOV_IMM(d, i) ALU_IMM(BPF_MOV, d, i)
#define LDX(sz, d, s, o) INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define STX(sz, d, s, o) INSN(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define ST(sz, d, o, i) INSN(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
#define JMP_IMM(op, d, i, o) INSN(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define JMP_REG(op, d, s, o) INSN(BPF_JMP | (op) | BPF_X, d, s, o, 0)
#define JA(o) INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define CALL(f) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define XADD(d, s, o) INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)

enum { R0, R1, R2, R3, R4, R5, R6, R7, R8, R9, FP };
#define STACK_MAX 512

struct loopctx {
	int *brk, nbrk;
	int *cont, ncont;
	struct loopctx *outer;
};

struct gen {
	struct program *prog;
	struct probe *pr;
	struct ap_inst *in;
	const struct gen_env *env;
	struct bpf_code *c;
	int sp, maxsp;
	int *ret, nret;
	struct loopctx *loop;
	bool fail;
	/* a for-over-map body is a callback (gen_loop.c); variables used both in and
	 * around one live in a per-CPU map value, reached through r9 (g_vbase()) */
	bool cb;		/* generating a callback: r8 points to the context's slot in the main frame */
	int ctxslot;		/* that slot's offset in the main frame */
	int vars_size;		/* bytes of shared variables: r9 points to them (a per-CPU map value) */
	struct gsubs *subs;	/* the callbacks of this program, shared by all their gens */
	int retslot;		/* a test: probe's return value (testbench.c), or 0 */
	struct loc kloc;	/* -k: the source range a failing helper's warning names (helpcheck.c) */
	int kend;		/* its end column (exclusive), 0: none */
};

int g_emit(struct gen *g, struct bpf_insn i);
void g_ld_imm64(struct gen *g, int reg, uint64_t v);
void g_ld_map(struct gen *g, int reg, int map);
void g_patch(struct gen *g, int at);
void g_push_fix(struct gen *g, int **arr, int *n, int at);
void g_cond_false(struct gen *g, struct node *c, int **fix, int *nfix);
int g_round8(int n);
int g_keep(const struct gen *g);
int g_slot(struct gen *g, int n, struct loc loc);
void g_zero(struct gen *g, int off, int n);
void g_fp_addr(struct gen *g, int reg, int off);
void g_copy(struct gen *g, int doff, int src, int soff, int n);
void g_unsupported(struct gen *g, struct node *n, const char *what);
void g_stackid(struct gen *g, bool user);
int g_kstack_skip(struct gen *g);	/* kernel frames a kstack leaves out: a raw tracepoint's glue */
void gen_bvar(struct gen *g, struct node *n);
void g_extend(struct gen *g, int bits, bool sign);
const struct tp_field *g_field_of(struct gen *g, struct node *n);
int gen_key(struct gen *g, struct node *mapn);
void g_lookup(struct gen *g, int map, int keyoff);
void g_update(struct gen *g, int map, int keyoff, int valoff, int flags);
void gen_map_read(struct gen *g, struct node *n);
void g_str_equal(struct gen *g, int a, int b, int n);
void gen_str_cmp(struct gen *g, struct node *l, struct node *r, int limit, bool eq_is_one);
void gen_binop(struct gen *g, struct node *n);
int g_tuple_base(struct gen *g, struct node *t);
int g_tuple_off(const struct type *t, int idx);
void g_sc_regs_read(struct gen *g, int off, int slot_off);
void g_sc_field(struct gen *g, struct node *n, const struct tp_field *f);
void gen_field_int(struct gen *g, struct node *n);
void gen_int(struct gen *g, struct node *n);
void g_int_or(struct gen *g, struct node *n, int32_t dflt);	/* r0 = n's value, dflt without n */
void g_str_literal(struct gen *g, const char *s, size_t len, int off, int size);
void gen_str(struct gen *g, struct node *n, int off, int size);
void g_new_pid(struct gen *g, int pidoff);
void gen_to(struct gen *g, struct node *n, int off, const struct type *dt);
void g_map_store(struct gen *g, struct node *mapn, struct node *val);
void g_map_rmw(struct gen *g, struct node *mapn, int op, struct node *rhs, long long delta, bool post);
void g_inc_target(struct gen *g, struct node *n, bool post);
void gen_block(struct gen *g, struct node *b);
void g_var_store(struct gen *g, struct var *v, struct node *val);
void g_loop_end(struct gen *g, struct loopctx *l, int cont_target);
void gen_stmt(struct gen *g, struct node *s);
/* the address /proc/kallsyms gives sym (a kernel address is above 2^63: not a signed number); 0 or -ENOENT */
int g_kaddr(const char *sym, uint64_t *addr);
/* a call: its row's gen_int, gen_value (into [fp+off], zeroed first) or gen_stmt (builtins.h) */
void gen_call_int(struct gen *g, struct node *n);
void gen_call_value(struct gen *g, struct node *n, int off, int size);
int g_array_size(struct gen *g, struct node *a);	/* a fixed-size array's bytes (tracepoint, BTF, pton), or 0 */
/*
 * [fp+off] = n bytes from where r0 points, read by helper: BPF_FUNC_probe_read,
 * or BPF_FUNC_probe_read_str for a string (at most n bytes with its NUL); -k
 * checks the call
 */
void g_read_r0(struct gen *g, int helper, int off, int n);
void g_first_arg(struct gen *g, struct node *n);	/* r0 = the call's first argument (builtins/strings.c) */
void g_log2k_bucket(struct gen *g, int k);
void g_log2_bucket(struct gen *g);
void g_lin_bucket(struct gen *g, const struct mapinfo *m);
void gen_agg(struct gen *g, struct node *mapn, struct node *call);
void g_send(struct gen *g, int buf, int size);
void g_rec_kind(struct gen *g, int base, int off, int kind);
void g_record(struct gen *g, struct node *call, int kind, int arg);
void g_site_record(struct gen *g, struct node *call, struct node *args);
int g_signo(struct node *a);
void gen_call_stmt(struct gen *g, struct node *n);
void gen_usdt_arg(struct gen *g, struct node *n);
/* gen_loop.c */
int g_inst_key(const struct gen *g);
int g_vbase(const struct gen *g, const struct var *v);
int g_voff(const struct gen *g, const struct var *v);
void g_shared_vars(struct gen *g);
void g_copy_regs(struct gen *g, int dreg, int doff, int sreg, int soff, int n);
int g_tuple_src(struct gen *g, struct node *t, int *reg);
/* the type t's bytes are laid out as: a variable's final type (its strings grown by later assignments) */
const struct type *g_src_type(const struct node *t);
void gen_for_map(struct gen *g, struct node *s);
/* for ($i : a..b) whose bounds are known at run time: bpf_loop() over a callback (5.17+) */
void gen_for_range(struct gen *g, struct node *s);
void g_tuple_key(struct gen *g, struct node *mapn, int off);
int g_subs_link(struct gen *g);
int g_subs_init(struct gen *g);
int g_subs_add(struct gen *g, struct bpf_code *code, struct loc loc);	/* a callback: its index */
/* a new, empty callback in *out: its index, or -1 (g->fail) */
int g_subs_new(struct gen *g, struct loc loc, struct bpf_code **out);
void g_ld_func(struct gen *g, int reg, int target);	/* reg = the address of callback target */
/* gen_str.c: strlen() ... username */
void gen_str_int(struct gen *g, struct node *n);
void gen_str_index(struct gen *g, struct node *n);	/* $s[i] */
void gen_str_value(struct gen *g, struct node *n, int off, int size);	/* syscall_name() */
void gen_str_stmt(struct gen *g, struct node *n);	/* assert(), assert_str() */
void g_percpu_value(struct gen *g, const struct mapinfo *m, struct loc loc);	/* r0 = over all CPUs, key at r7 */
/* gen_map.c: find(), len() of a stack, tseries(), stack values' depth */
void gen_find(struct gen *g, struct node *n);
void gen_stack_len(struct gen *g, struct node *n);
void gen_tseries(struct gen *g, struct node *mapn, struct node *call);
void g_stack_depth_tag(struct gen *g, bool user);
void gen_delete_all(struct gen *g, struct node *mapn);	/* delete(@h[k]) of hist, lhist, tseries maps */

/* tuple.c: (int8[8])x into [fp+off]; r0 = (uint64)$a; r0 = $a[N] of an integer array */
void gen_array_cast(struct gen *g, struct node *n, int off, int size);
void gen_array_to_int(struct gen *g, struct node *n);
void gen_array_elem(struct gen *g, struct node *n);
void gen_tuple_compare(struct gen *g, struct node *n, bool ne);
/* helpcheck.c: -k and -kk; g_hcheck() follows a helper's CALL (r0 kept), the others set g->kloc */
void g_hcheck(struct gen *g);
int g_kloc_call_end(struct gen *g, struct loc at);	/* the column after the call's ')' */
int g_kloc_stmt_end(struct gen *g, struct loc at);	/* the column after the statement (before ';') */
#define G_KLOC(g, at, end, body) do { \
	struct loc ol_ = (g)->kloc; int oe_ = (g)->kend; \
	if ((g)->prog->cfg.helper_check) { (g)->kloc = (at); (g)->kend = (end); } \
	body; \
	(g)->kloc = ol_; (g)->kend = oe_; \
} while (0)

/* kernel types (gen_btf.c) */
bool gen_btf__handles(const struct node *n);
void gen_btf__int(struct gen *g, struct node *n);
void gen_btf__str(struct gen *g, struct node *n, int off, int size);
void gen_btf__ctx_arg(struct gen *g, struct node *n);
/* a raw tracepoint with BTF: load it as tp_btf, read members by direct loads (sets in->attach_btf_id) */
bool gen_btf__tp_btf(struct program *prog, struct ap_inst *in);
void gen_btf__scale(struct gen *g, const struct type *ptr, int reg);
void g_block_stmts(struct gen *g, struct node *b);
int g_field_index(const struct type *t, const char *name);
void g_map_len(struct gen *g, struct node *n);
/* addr.c: r0 = &x; gen_btf.c: r0 = the address of a member, element or pointee in memory */
void gen_addrof(struct gen *g, struct node *n);
void gen_btf__addr(struct gen *g, struct node *n);

#endif
