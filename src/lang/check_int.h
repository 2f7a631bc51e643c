/* SPDX-License-Identifier: GPL-2.0 */
/*
 * check_int.h - what the type checker's files share (check.c: expressions,
 * statements, maps, variables; check_call.c: calls of builtin functions,
 * handed to their rows in src/lang/builtins/, and the record layouts).
 * For src/lang/check*.c and the builtins' family files only.
 * Types, sites and rewritten nodes they make live in the program's arena
 * (freed by lang__free()); nothing returned is the caller's to free.
 */
#ifndef SONDE_LANG_CHECK_INT_H
#define SONDE_LANG_CHECK_INT_H

#include "lang/builtins/builtins.h"
#include "lang/lang.h"

struct ck {
	struct program *prog;
	struct probe *pr;
	struct ap_inst *in;
	bool final;	/* second pass: unknown map types are errors */
	int loops;
	int fn, nfn;	/* the for-over-map body being checked (0: the probe's), how many so far */
	int dead;	/* checking the branch a constant condition drops: fail() stays quiet */
	const struct probe *probe_len_of;	/* the probe whose longest name probe_len is */
	int probe_len;
};

static inline struct type ty_int(bool sign, int bits)
{
	struct type t = { .kind = TY_INT, .size = 8, .sign = sign, .bits = bits };
	return t;
}

static inline struct type ty_str(int size)
{
	struct type t = { .kind = TY_STR, .size = (size + 7) & ~7 };
	return t;
}

static inline struct type ty_kind(enum ty_kind k, int size)
{
	struct type t = { .kind = k, .size = size };
	return t;
}

static inline int round8(int n)
{
	return (n + 7) & ~7;
}

/* check.c */
bool ck_same_kind(const struct type *a, const struct type *b);	/* storable in the same place */
struct mapinfo *ck_map_get(struct ck *c, struct node *n);	/* the map @x names, made on first use */
int ck_map_keys(struct ck *c, struct node *n);			/* type @x[k...]'s keys; 0 or -1 */
int ck_no_struct(struct ck *c, const struct type *t, struct loc loc);	/* -1 (and an error) for a struct */
struct type ck_expr(struct ck *c, struct node *n);		/* an expression's type (TY_NONE after an error) */

/* addr.c: &x */
struct type ck_addr(struct ck *c, struct node *n);

/* check_call.c */
bool ck_is_const_int(struct node *n, long long *v);
int ck_array_size(struct ck *c, struct node *a);	/* bytes of an array value (a tracepoint's, BTF's, pton's), or 0 */
struct type ck_call(struct ck *c, struct node *n, struct node *assign_to);	/* assign_to: @m in @m = agg() */
void ck_builtin_prefix(struct node *n);	/* __builtin_comm is comm */
int ck_call_args(struct ck *c, struct node *n);	/* check a call's arguments as values; 0 or -1 */
/* the record of printf, print, cat, system, time... (call->id = its site + 1); 0 or -1 */
int ck_make_site(struct ck *c, struct node *call, int kind, struct node *fmt, struct node *args, int nargs);
/* a format or filter string user space looks up by the value's site (strftime, cgroup_path); 0 or -1 */
int ck_aux_site(struct ck *c, struct node *call, const char *text);

/* builtins/task.c: pcomm and ppid (the variables and the calls) become task->group_leader->comm, ... */
struct type ck_task_field(struct ck *c, struct node *n, struct node *task, bool comm);

/* tuple.c: $t[1] and $a[1] (n is N_INDEX, a the type of what it indexes); (int8[8])x and (uint32)$a */
struct type ck_index(struct ck *c, struct node *n, const struct type *a);
struct type ck_array_cast(struct ck *c, struct node *n, const struct type *a, int bits, bool sign);
/* sizeof() of a tuple: its elements laid out as a C struct, as bpftrace sizes it (tuple.c) */
int ck_tuple_sizeof(const struct type *t);
struct type ck_tuple_compare(struct ck *c, struct node *n, const struct type *a, const struct type *b);

/* bool.c: which values are bools (upstream's type, printed true/false) */
bool ck_bool_op(const struct type *a, const struct type *b);	/* both operands bools: so is the result */

/* check_str.c */
/* strlen() ... username: a row's check (builtins/strings.c) */
struct type ck_str_fn(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to);
int ck_str_cap(struct ck *c, struct node *a);	/* a string's or char array's capacity (strcap()), 0 for a pointer */
bool ck_str_ident(struct node *n);		/* username, default_str_length without ( ): made calls */
struct type ck_str_contains(struct ck *c, struct node *n);	/* strcontains(h, n) of a needle known at run time */
const char *ck_located_fmt(struct ck *c, struct node *n, const char *what, const char *fmt);	/* in the arena */
/* check_map.c */
struct type ck_find(struct ck *c, struct node *n);	/* find(@m, k, $v) */
struct type ck_tseries(struct ck *c, struct node *n, struct node *assign_to);	/* @m = tseries(...) */
void ck_tseries_layout(struct program *prog, struct mapinfo *m);	/* its BPF map's layout */
struct type ck_stack_len(struct ck *c, struct node *n);	/* len(kstack), len($stack) */
int ck_assign_var(struct ck *c, struct node *var, struct type t, struct loc loc);	/* check.c: $v = a value of type t */
int ck_errno_value(const char *name);	/* check.c: ENOENT's number (libc's names), or -1 */

#endif
