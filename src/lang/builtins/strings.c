// SPDX-License-Identifier: GPL-2.0
/*
 * strings.c - the builtins on strings and bytes: str, buf, path, strncmp,
 * strcontains, strerror, signal_name, and upstream's string functions (strlen, strcap,
 * strstr, memcmp, globmatch, assert, assert_str, default_str_length,
 * syscall_name, username), whose rules and code are in check_str.c and
 * gen_str.c (their loops are long).
 */
#include "lang/check_int.h"
#include "lang/gen_int.h"
#include "lang/ktypes.h"

#include <stdlib.h>
#include <string.h>

/* str(p[, n]): a string read from a pointer, or a string cut at n */
static struct type check_str(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;
	long long v;

	(void)f;
	(void)assign_to;
	if (a0->ty.kind != TY_INT && a0->ty.kind != TY_STR) {
		char b[64];

		lang__error(c->prog, a0->loc, "str() takes an integer or a pointer, not a %s", type__str(&a0->ty, b, sizeof(b)));
		return ty_kind(TY_NONE, 0);
	}
	if (a0->next) {
		if (!ck_is_const_int(a0->next, &v) || v < 1) {
			lang__error(c->prog, a0->next->loc, "the length of str() must be a positive constant here");
			return ty_kind(TY_NONE, 0);
		}
		if (v > c->prog->cfg.max_strlen)
			v = c->prog->cfg.max_strlen;
		return n->ty = ty_str((int)v + 1 > c->prog->cfg.max_strlen ? c->prog->cfg.max_strlen : (int)v + 1);
	}
	return n->ty = a0->ty.kind == TY_STR ? a0->ty : ty_str(c->prog->cfg.max_strlen);
}

static void gen_str_call(struct gen *g, struct node *n, int off, int size)
{
	struct node *a = n->args;
	int len = n->ty.size < size ? n->ty.size : size;

	if (len > g->prog->cfg.max_strlen)	/* the type's size is 8-aligned, the string is not */
		len = g->prog->cfg.max_strlen;
	if (a->next && a->next->i + 1 < len)
		len = (int)a->next->i + 1;
	if (a->ty.kind == TY_STR) {
		gen_str(g, a, off, size);
		if (len < size) {	/* str(s, n): cut at n */
			g_emit(g, ST(BPF_B, FP, off + len - 1, 0));
			for (int i = len; i < size; i++)
				g_emit(g, ST(BPF_B, FP, off + i, 0));
		}
		return;
	}
	g_zero(g, off, size);
	gen_int(g, a);
	g_read_r0(g, BPF_FUNC_probe_read_str, off, len);
}

/* buf(p, len) or buf(array): [u64 length][bytes] */
static struct type check_buf(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args, *a1 = a0->next;
	int max = c->prog->cfg.max_strlen, arr = ck_array_size(c, a0);
	long long len = max;
	char b[64];

	(void)f;
	(void)assign_to;
	if (a0->ty.kind != TY_INT && a0->ty.kind != TY_STR && !arr) {
		lang__error(c->prog, a0->loc, "buf() takes a pointer or an array (this is a value of type %s)", type__str(&a0->ty, b, sizeof(b)));
		return ty_kind(TY_NONE, 0);
	}
	if (!a1 && !arr) {
		lang__error(c->prog, n->loc, "buf() takes a length unless its argument is a fixed-size array "
			    "(a tracepoint's array field, a kernel type's array)");
		return ty_kind(TY_NONE, 0);
	}
	if (a1 && a1->ty.kind != TY_INT) {
		lang__error(c->prog, a1->loc, "the length of buf() is an integer");
		return ty_kind(TY_NONE, 0);
	}
	if (a1 && ck_is_const_int(a1, &len) && len < 0) {
		lang__error(c->prog, a1->loc, "the length of buf() cannot be negative");
		return ty_kind(TY_NONE, 0);
	}
	if (!a1)
		len = arr;
	if (len > max) {
		if (a1 && a1->kind == N_INT && c->final)
			lang__warn(c->prog, n->loc, "buf() length is too long and will be shortened to %d bytes "
				   "(config = { max_strlen = N } changes it)", max);
		len = max;
	}
	return n->ty = ty_kind(TY_BUF, 8 + round8((int)len));
}

/* the bytes after the length are zeros */
static void gen_buf(struct gen *g, struct node *n, int off, int size)
{
	struct node *a0 = n->args, *a1 = a0->next;
	int room = n->ty.size - 8, arr = g_array_size(g, a0);
	long long len = a1 && a1->kind == N_INT ? a1->i : arr;

	(void)size;
	if (room > g->prog->cfg.max_strlen)	/* the type's size is 8-aligned, max_strlen is not */
		room = g->prog->cfg.max_strlen;
	if (len > room)
		len = room;
	if (a1 && a1->kind != N_INT) {	/* the length known at run time, at most room (unsigned: -3 is room) */
		gen_int(g, a1);
		g_emit(g, JMP_IMM(BPF_JLE, R0, room, 1));
		g_emit(g, MOV_IMM(R0, room));
		g_emit(g, STX(BPF_DW, FP, R0, off));
	} else {
		g_emit(g, ST(BPF_DW, FP, off, (int)len));
	}
	if (a0->kind == N_STR) {	/* a literal's bytes as they are: buf("ok_value", 8) keeps all eight */
		for (int i = 0; i < room; i += 4) {
			uint32_t w = 0;

			for (int k = 0; k < 4 && i + k < room; k++)
				if (i + k < (a1 && a1->kind != N_INT ? room : len) && i + k < (int)a0->slen)
					w |= (uint32_t)(unsigned char)a0->s[i + k] << (8 * k);
			g_emit(g, ST(BPF_W, FP, off + 8 + i, (int32_t)w));
		}
		return;
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

/* path(struct path *[, size]): bpf_d_path(), in fentry and fexit probes on the functions the kernel allows */
static struct type check_path(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;
	char b[64];
	int sz = c->prog->cfg.max_strlen;
	long long v;

	(void)f;
	(void)assign_to;
	if (!c->in || c->in->prov->prog_type != 26 /* BPF_PROG_TYPE_TRACING */) {
		lang__error(c->prog, n->loc, "path() is only available in fentry and fexit probes (the kernel's bpf_d_path)");
		return ty_kind(TY_NONE, 0);
	}
	if (!((a0->ty.kind == TY_STRUCT) || (a0->ty.kind == TY_INT && a0->ty.ptr && a0->ty.ptr->kind == TY_STRUCT)) ||
	    strcmp(ktypes__name(c->prog, a0->ty.kind == TY_STRUCT ? a0->ty.btf_id : a0->ty.ptr->btf_id, b, sizeof(b)),
		   "struct path")) {
		lang__error(c->prog, a0->loc, "path() takes a struct path or a pointer to one (args.file->f_path)");
		return ty_kind(TY_NONE, 0);
	}
	if (a0->next) {
		if (!ck_is_const_int(a0->next, &v) || v < 1) {
			lang__error(c->prog, a0->next->loc, "the size of path() must be a positive constant");
			return ty_kind(TY_NONE, 0);
		}
		if (v < sz)
			sz = (int)v;
	}
	return n->ty = ty_str(sz);
}

/* long bpf_d_path(struct path *path, char *buf, u32 sz) */
static void gen_path(struct gen *g, struct node *n, int off, int size)
{
	g_zero(g, off, size);
	if (n->args->ty.kind == TY_STRUCT)
		gen_btf__int(g, n->args);	/* a struct's value is its address */
	else
		gen_int(g, n->args);
	g_emit(g, MOV_REG(R1, R0));
	g_fp_addr(g, R2, off);
	g_emit(g, MOV_IMM(R3, n->ty.size < size ? n->ty.size : size));
	g_emit(g, CALL(BPF_FUNC_d_path));
}

static struct type check_strncmp(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;
	long long v;

	(void)f;
	(void)assign_to;
	if (a0->ty.kind != TY_STR || a0->next->ty.kind != TY_STR ||
	    !ck_is_const_int(a0->next->next, &v) || v < 0) {
		lang__error(c->prog, n->loc, "strncmp() takes two strings and a constant length");
		return ty_kind(TY_NONE, 0);
	}
	return n->ty = ty_int(false, 64);
}

static void gen_strncmp(struct gen *g, struct node *n)
{
	struct node *a0 = n->args;

	gen_str_cmp(g, a0, a0->next, (int)a0->next->next->i, false);
}

/* strcontains(h, "needle"): unrolled here; a needle known at run time is upstream's strstr(h, n) >= 0 */
static struct type check_strcontains(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;

	(void)f;
	(void)assign_to;
	if (a0->ty.kind != TY_STR || a0->next->kind != N_STR)
		return ck_str_contains(c, n);
	return n->ty = ty_int(false, 64);
}

static void gen_strcontains(struct gen *g, struct node *n)
{
	struct node *a0 = n->args;
	int mark = g->sp, h = g_slot(g, a0->ty.size, a0->loc);
	const char *needle = a0->next->s;
	int nl = (int)a0->next->slen;
	int *found = NULL, nfound = 0, *ends = NULL, nends = 0;

	if (!nl) {	/* every string contains "": no scan (it would leave unreachable jumps) */
		g_emit(g, MOV_IMM(R0, 1));
		g->sp = mark;
		return;
	}
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
	if (nfound) {	/* a needle longer than the haystack is never found: no "found" code (unreachable) */
		int done = g_emit(g, JA(0));

		for (int k = 0; k < nfound; k++)
			g_patch(g, found[k]);
		g_emit(g, MOV_IMM(R0, 1));
		g_patch(g, done);
	}
	free(found);
	free(ends);
	g->sp = mark;
}

static struct type check_strerror(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	char b[64];

	(void)f;
	(void)assign_to;
	if (n->args->ty.kind != TY_INT) {
		lang__error(c->prog, n->args->loc, "strerror() takes an error number, not a value of type %s",
			    type__str(&n->args->ty, b, sizeof(b)));
		return ty_kind(TY_NONE, 0);
	}
	return n->ty = ty_kind(TY_STRERROR, 8);
}

/* a number a builtin names as text (a signal, a disk): KIND from an integer, never a pointer */
static struct type check_number_named(struct ck *c, struct node *n, const char *what, enum ty_kind kind)
{
	char b[64];

	if (n->args->ty.kind != TY_INT || n->args->ty.ptr) {
		lang__error(c->prog, n->args->loc, "%s, not a value of type %s", what,
			    type__str(&n->args->ty, b, sizeof(b)));
		return ty_kind(TY_NONE, 0);
	}
	return n->ty = ty_kind(kind, 8);
}

/* signal_name(n): a signal's description as strsignal() gives it ("Interrupt" for 2) */
static struct type check_signal_name(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	(void)f;
	(void)assign_to;
	return check_number_named(c, n, "signal_name() takes a signal number", TY_SIGNAME);
}

/* disk_name(dev): a block device number as the block tracepoints give it (major << 20 | minor) */
static struct type check_disk_name(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	(void)f;
	(void)assign_to;
	return check_number_named(c, n, "disk_name() takes a device number (args->dev)", TY_DISKNAME);
}

/*
 * meminfo("Cached"[, 1024]): a /proc/meminfo field (in kB, divided by the
 * literal), read when user space prints it (cachestat's BUFFERS_MB and
 * CACHED_MB); printed with %s or %d. The value is its site: the field and
 * the divisor are the site's text and div.
 */
static struct type check_meminfo(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args, *a1 = a0->next;

	(void)f;
	(void)assign_to;
	if (a0->kind != N_STR || (a1 && (a1->kind != N_INT || a1->i <= 0))) {
		lang__error(c->prog, n->loc, "meminfo() takes a /proc/meminfo field's name and a divisor, both literals: "
			    "meminfo(\"Cached\", 1024)");
		return ty_kind(TY_NONE, 0);
	}
	if (ck_aux_site(c, n, a0->s))
		return ty_kind(TY_NONE, 0);
	c->prog->sites[n->id - 1]->div = a1 ? a1->i : 1;
	return n->ty = ty_kind(TY_MEMINFO, 8);
}

static void gen_meminfo(struct gen *g, struct node *n)
{
	g_emit(g, MOV_IMM(R0, n->id - 1));
}

/* strerror(e), kptr(p), uptr(p), ksym(a): the argument's value, which the type marks */
void g_first_arg(struct gen *g, struct node *n)
{
	gen_int(g, n->args);
}

const struct builtin builtins_strings[] = {
	{ "str", F_STR, 1, 2, 0, .check = check_str, .gen_str = gen_str_call },
	{ "buf", F_BUF, 1, 2, 0, .check = check_buf, .gen_value = gen_buf },
	{ "path", F_PATH, 1, 2, 0, .check = check_path, .gen_str = gen_path },
	{ "strncmp", F_STRNCMP, 3, 3, 0, .check = check_strncmp, .gen_int = gen_strncmp },
	{ "strcontains", F_STRCONTAINS, 2, 2, 0, .check = check_strcontains, .gen_int = gen_strcontains },
	{ "strerror", F_STRERROR, 1, 1, 0, .check = check_strerror, .gen_int = g_first_arg },
	{ "signal_name", F_SIGNAL_NAME, 1, 1, 0, .check = check_signal_name, .gen_int = g_first_arg },
	{ "disk_name", F_DISK_NAME, 1, 1, 0, .check = check_disk_name, .gen_int = g_first_arg },
	{ "meminfo", F_MEMINFO, 1, 2, 0, .check = check_meminfo, .gen_int = gen_meminfo },
	/* check_str.c and gen_str.c */
	{ "strlen", F_STRLEN, 1, 1, BF_OWN_ARGS, .check = ck_str_fn, .gen_int = gen_str_int },
	{ "strcap", F_STRCAP, 1, 1, BF_OWN_ARGS, .check = ck_str_fn, .gen_int = gen_str_int },
	{ "strstr", F_STRSTR, 2, 2, BF_OWN_ARGS, .check = ck_str_fn, .gen_int = gen_str_int },
	{ "memcmp", F_MEMCMP, 3, 3, BF_OWN_ARGS, .check = ck_str_fn, .gen_int = gen_str_int },
	{ "globmatch", F_GLOBMATCH, 2, 2, BF_OWN_ARGS | BF_BOOL, .check = ck_str_fn, .gen_int = gen_str_int },
	{ "assert_str", F_ASSERT_STR, 1, 1, BF_STMT | BF_OWN_ARGS, .check = ck_str_fn, .gen_stmt = gen_str_stmt },
	{ "default_str_length", F_DEFAULT_STR_LENGTH, 0, 0, BF_OWN_ARGS, .check = ck_str_fn, .gen_int = gen_str_int },
	{ "assert", F_ASSERT, 2, 2, BF_STMT | BF_OWN_ARGS, .check = ck_str_fn, .gen_stmt = gen_str_stmt },
	{ "syscall_name", F_SYSCALL_NAME, 1, 1, BF_OWN_ARGS, .check = ck_str_fn, .gen_str = gen_str_value },
	{ "username", F_USERNAME, 0, 0, BF_OWN_ARGS, .check = ck_str_fn, .gen_int = gen_str_int },
	{ NULL },
};
