// SPDX-License-Identifier: GPL-2.0
/*
 * task.c - the builtins about tasks, cgroups and the kernel: pcomm(),
 * ppid(), cgroupid(), cgroup_path(), signal(), signal_thread(), override(),
 * kptr(), uptr(), bswap(), and pid(ns), tid(ns), comm(pid), percpu_kaddr()
 * and socket_cookie(), whose rules and code are in task_ns.c (kfuncs and
 * BTF variables).
 */
#include "lang/check_int.h"
#include "lang/gen_int.h"
#include "lang/builtins/task_ns.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>

/*
 * pcomm / pcomm(task): task->group_leader->comm; ppid / ppid(task):
 * task->real_parent->tgid (task defaults to curtask). n is rewritten into those
 * member reads and checked as such.
 */
struct type ck_task_field(struct ck *c, struct node *n, struct node *task, bool comm)
{
	struct node *t = task, *mid = arena__alloc(c->prog->arena, sizeof(*mid));
	struct node *top = arena__alloc(c->prog->arena, sizeof(*top));

	if (!t) {
		t = arena__alloc(c->prog->arena, sizeof(*t));
		t->kind = N_IDENT;
		t->s = "curtask";
		t->loc = n->loc;
	}
	mid->kind = N_FIELD;
	mid->arrow = true;
	mid->l = t;
	mid->s = comm ? "group_leader" : "real_parent";
	mid->loc = n->loc;
	top->kind = N_FIELD;
	top->arrow = true;
	top->l = mid;
	top->s = comm ? "comm" : "tgid";
	top->loc = n->loc;
	top->next = n->next;
	*n = *top;
	return ck_expr(c, n);
}

static struct type check_task_field(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	(void)assign_to;
	return ck_task_field(c, n, n->args, f->id == F_PCOMM);
}

/* the id of the cgroup v2 directory at path (its inode's file handle); 0 or -1 with errno */
static int cgroup_id(const char *path, long long *id)
{
	/* cgroupfs's file handle is the cgroup id, which bpf_get_current_cgroup_id() gives */
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + 64];
	} h;
	int mount_id;

	h.fh.handle_bytes = 64;
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		return -1;
	if (h.fh.handle_bytes != sizeof(uint64_t)) {
		errno = ENOTSUP;
		return -1;
	}
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

/* cgroupid("path"): known now */
static struct type check_cgroupid(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;
	long long id;

	(void)f;
	(void)assign_to;
	if (a0->kind != N_STR) {
		lang__error(c->prog, a0->loc, "cgroupid() takes a path literal");
		return ty_kind(TY_NONE, 0);
	}
	if (cgroup_id(a0->s, &id)) {
		lang__error(c->prog, a0->loc, errno == ENOTSUP ? "'%s' is not a cgroup v2 directory (cgroupid() gives the ids "
			    "of the unified hierarchy, which 'cgroup' reads)" : "cannot find the cgroup '%s': %s", a0->s,
			    strerror(errno));
		return ty_kind(TY_NONE, 0);
	}
	n->kind = N_INT;
	n->i = id;
	return n->ty = ty_int(false, 64);
}

/* cgroup_path(id[, "filter"]): the id and the filter's site, which user space resolves */
static struct type check_cgroup_path(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args, *a1 = a0->next;
	char b[64];

	(void)f;
	(void)assign_to;
	if (a0->ty.kind != TY_INT) {
		lang__error(c->prog, a0->loc, "cgroup_path() takes a cgroup id (an integer such as cgroup), not a value of type %s",
			    type__str(&a0->ty, b, sizeof(b)));
		return ty_kind(TY_NONE, 0);
	}
	if (a1 && a1->kind != N_STR) {
		lang__error(c->prog, a1->loc, "the filter of cgroup_path() is a string literal (hierarchy names, "
			    "with * wildcards)");
		return ty_kind(TY_NONE, 0);
	}
	if (ck_aux_site(c, n, a1 ? a1->s : "*"))
		return ty_kind(TY_NONE, 0);
	return n->ty = ty_kind(TY_CGPATH, 16);
}

/* [u64 cgroup id][u64 filter's site] */
static void gen_cgroup_path(struct gen *g, struct node *n, int off, int size)
{
	(void)size;
	gen_int(g, n->args);
	g_emit(g, STX(BPF_DW, FP, R0, off));
	g_emit(g, ST(BPF_DW, FP, off + 8, n->id - 1));
}

static struct type check_signal(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;

	(void)f;
	(void)assign_to;
	if (a0->kind != N_STR && a0->kind != N_INT) {
		lang__error(c->prog, a0->loc, "%s() takes a signal name or number", n->s);
		return ty_kind(TY_NONE, 0);
	}
	return n->ty = ty_kind(TY_VOID, 0);
}

static void gen_signal(struct gen *g, struct node *n)
{
	int s = g_signo(n->args);

	if (s <= 0 || s >= 64) {
		if (!g->fail)
			lang__error(g->prog, n->args->loc, "unknown signal");
		g->fail = true;
		return;
	}
	g_emit(g, MOV_IMM(R1, s));
	g_emit(g, CALL(n->op == F_SIGNAL ? BPF_FUNC_send_signal : BPF_FUNC_send_signal_thread));
	g_hcheck(g);
}

static struct type check_override(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	(void)f;
	(void)assign_to;
	if (!c->in || strcmp(c->in->prov->name, "kprobe")) {
		lang__error(c->prog, n->loc, "override() is only available in kprobes");
		return ty_kind(TY_NONE, 0);
	}
	if (n->args->ty.kind != TY_INT) {
		lang__error(c->prog, n->args->loc, "override() takes an integer (the return value to force)");
		return ty_kind(TY_NONE, 0);
	}
	return n->ty = ty_kind(TY_VOID, 0);
}

/* needs CONFIG_BPF_KPROBE_OVERRIDE and a function on the error-injection list */
static void gen_override(struct gen *g, struct node *n)
{
	gen_int(g, n->args);
	g_emit(g, MOV_REG(R2, R0));
	g_emit(g, MOV_REG(R1, R6));
	g_emit(g, CALL(BPF_FUNC_override_return));
}

/* kptr(p), uptr(p): p, read from kernel or user memory when dereferenced */
static struct type check_kuptr(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;
	char b[64];

	(void)assign_to;
	if (a0->ty.kind != TY_INT) {
		lang__error(c->prog, a0->loc, "%s() takes an address (an integer), not a value of type %s", n->s,
			    type__str(&a0->ty, b, sizeof(b)));
		return ty_kind(TY_NONE, 0);
	}
	n->ty = a0->ty;
	n->ty.user = n->ty.ptr && f->id == F_UPTR;	/* which memory a dereference reads */
	return n->ty;
}

static struct type check_bswap(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;

	(void)f;
	(void)assign_to;
	if (a0->ty.kind != TY_INT) {
		lang__error(c->prog, a0->loc, "bswap() takes an integer");
		return ty_kind(TY_NONE, 0);
	}
	return n->ty = ty_int(false, a0->ty.bits ? a0->ty.bits : 64);
}

static void gen_bswap(struct gen *g, struct node *n)
{
	int bits = n->ty.bits ? n->ty.bits : 64;

	gen_int(g, n->args);
	g_emit(g, INSN(BPF_ALU | BPF_END | BPF_TO_BE, R0, 0, 0, bits < 16 ? 16 : bits));
	if (bits == 8)
		g_emit(g, ALU_IMM(BPF_RSH, R0, 8));
}

const struct builtin builtins_task[] = {
	{ "pcomm", F_PCOMM, 0, 1, BF_OWN_ARGS | BF_NOARG_VAR, .check = check_task_field },
	{ "ppid", F_PPID, 0, 1, BF_OWN_ARGS | BF_NOARG_VAR, .check = check_task_field },
	{ "cgroupid", F_CGROUPID, 1, 1, 0, .check = check_cgroupid },
	{ "cgroup_path", F_CGROUP_PATH, 1, 2, 0, .check = check_cgroup_path, .gen_value = gen_cgroup_path },
	{ "signal", F_SIGNAL, 1, 1, BF_STMT | BF_UNSAFE | BF_OWN_ARGS, .check = check_signal, .gen_stmt = gen_signal },
	{ "signal_thread", F_SIGNAL_THREAD, 1, 1, BF_STMT | BF_UNSAFE | BF_OWN_ARGS, .check = check_signal,
	  .gen_stmt = gen_signal },
	{ "override", F_OVERRIDE, 1, 1, BF_STMT | BF_UNSAFE, .check = check_override, .gen_stmt = gen_override },
	{ "kptr", F_KPTR, 1, 1, 0, .check = check_kuptr, .gen_int = g_first_arg },
	{ "uptr", F_UPTR, 1, 1, 0, .check = check_kuptr, .gen_int = g_first_arg },
	{ "bswap", F_BSWAP, 1, 1, 0, .check = check_bswap, .gen_int = gen_bswap },
	/* task_ns.c */
	{ "pid", F_PID_NS, 0, 1, BF_OWN_ARGS | BF_NOARG_VAR, .check = cktask__call, .gen_int = gentask__int },
	{ "tid", F_TID_NS, 0, 1, BF_OWN_ARGS | BF_NOARG_VAR, .check = cktask__call, .gen_int = gentask__int },
	{ "comm", F_COMM, 0, 1, BF_OWN_ARGS | BF_NOARG_VAR, .check = cktask__call, .gen_str = gentask__comm },
	{ "percpu_kaddr", F_PERCPU_KADDR, 1, 2, BF_OWN_ARGS, .check = cktask__call, .gen_int = gentask__int },
	{ "socket_cookie", F_SOCKET_COOKIE, 1, 1, BF_OWN_ARGS, .check = cktask__call, .gen_int = gentask__int },
	{ NULL },
};
