// SPDX-License-Identifier: GPL-2.0
/*
 * net.c - the builtins on network addresses: ntop(), pton(), macaddr():
 * their bytes, which user space formats (skboutput(), which writes packets
 * to pcap files, is skboutput.c).
 */
#include "lang/check_int.h"
#include "lang/gen_int.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

/* ntop([af, ]addr): an integer or an array of 4 or 16 bytes */
static struct type check_ntop(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args, *a1 = a0->next;
	struct node *addr = a1 ? a1 : a0;
	int arr = ck_array_size(c, addr);
	char b[64];

	(void)f;
	(void)assign_to;
	if (a1 && a0->ty.kind != TY_INT) {
		lang__error(c->prog, a0->loc, "ntop(af, addr) takes the address family as an integer (AF_INET is 2, "
			    "AF_INET6 is 10)");
		return ty_kind(TY_NONE, 0);
	}
	if (addr->ty.kind != TY_INT && !(arr == 4 || arr == 16)) {
		if (addr->ty.kind == TY_STR)
			lang__error(c->prog, addr->loc, "ntop() takes an integer or an array of 4 or 16 bytes "
				    "(a tracepoint's or a kernel type's); this is a value of type %s", type__str(&addr->ty, b, sizeof(b)));
		else
			lang__error(c->prog, addr->loc, "ntop() takes an integer or an array of 4 or 16 bytes (this is a value of type %s)",
				    type__str(&addr->ty, b, sizeof(b)));
		return ty_kind(TY_NONE, 0);
	}
	return n->ty = ty_kind(TY_INET, 24);
}

/* [u64 family][16 address bytes] */
static void gen_ntop(struct gen *g, struct node *n, int off, int size)
{
	struct node *a0 = n->args;
	struct node *addr = a0->next ? a0->next : a0;
	int arr = g_array_size(g, addr);

	(void)size;
	if (a0->next) {
		gen_int(g, a0);
		g_emit(g, STX(BPF_DW, FP, R0, off));
	} else {
		g_emit(g, ST(BPF_DW, FP, off, arr == 16 ? AF_INET6 : AF_INET));
	}
	if (arr && addr->ty.kind == TY_STRUCT) {
		gen_int(g, addr);
		g_read_r0(g, BPF_FUNC_probe_read, off + 8, arr);
	} else if (addr->ty.kind == TY_ARRAY) {
		gen_to(g, addr, off + 8, &addr->ty);
	} else if (arr) {
		gen_str(g, addr, off + 8, g_round8(arr));
	} else {
		gen_int(g, addr);
		g_emit(g, STX(BPF_W, FP, R0, off + 8));
	}
}

/* pton("addr"): the address's bytes, known when compiling: uint8[4] or uint8[16] */
static struct type check_pton(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;
	unsigned char bytes[16];
	bool v6 = a0->kind == N_STR && strchr(a0->s, ':');

	(void)f;
	(void)assign_to;
	if (a0->kind != N_STR || inet_pton(v6 ? AF_INET6 : AF_INET, a0->s, bytes) != 1) {
		lang__error(c->prog, a0->loc, "pton() takes an IPv4 or IPv6 address literal (\"127.0.0.1\", \"::1\")");
		return ty_kind(TY_NONE, 0);
	}
	n->x = arena__alloc(c->prog->arena, sizeof(*n->x));
	n->x->kind = N_STR;
	n->x->s = arena__strndup(c->prog->arena, (const char *)bytes, v6 ? 16 : 4);
	n->x->slen = v6 ? 16 : 4;
	n->ty = ty_kind(TY_ARRAY, v6 ? 16 : 8);
	n->ty.ntup = v6 ? 16 : 4;
	n->ty.bits = 8;
	return n->ty;
}

/* the bytes, 8 at a time */
static void gen_pton(struct gen *g, struct node *n, int off, int size)
{
	(void)size;
	for (int i = 0; i < (int)n->x->slen; i += 8) {
		uint64_t v = 0;

		memcpy(&v, n->x->s + i, (int)n->x->slen - i < 8 ? (size_t)((int)n->x->slen - i) : 8);
		g_ld_imm64(g, R1, v);
		g_emit(g, STX(BPF_DW, FP, R1, off + i));
	}
}

/* macaddr(): an array of 6 bytes, or a pointer to 6 bytes (an integer is an address, as in bpftrace) */
static struct type check_macaddr(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args;
	int arr = ck_array_size(c, a0);

	(void)f;
	(void)assign_to;
	if (arr ? arr != 6 : a0->ty.kind != TY_INT) {
		char b[64];

		lang__error(c->prog, a0->loc, "macaddr() takes an array of 6 bytes or a pointer to them (this is %s%s)",
			    arr ? "an array of another size" : "a value of type ", arr ? "" : type__str(&a0->ty, b, sizeof(b)));
		return ty_kind(TY_NONE, 0);
	}
	return n->ty = ty_kind(TY_MACADDR, 8);
}

/* the 6 bytes, from an array or through a pointer */
static void gen_macaddr(struct gen *g, struct node *n, int off, int size)
{
	struct node *a0 = n->args;
	int arr = g_array_size(g, a0);

	(void)size;
	if (arr && a0->ty.kind != TY_STRUCT && a0->ty.kind != TY_INT) {
		gen_str(g, a0, off, 8);	/* a tracepoint's or a kernel type's char array */
		return;
	}
	gen_int(g, a0);	/* an array's address, or the pointer */
	g_read_r0(g, BPF_FUNC_probe_read, off, 6);
}

const struct builtin builtins_net[] = {
	{ "ntop", F_NTOP, 1, 2, 0, .check = check_ntop, .gen_value = gen_ntop },
	{ "pton", F_PTON, 1, 1, 0, .check = check_pton, .gen_value = gen_pton },
	{ "macaddr", F_MACADDR, 1, 1, 0, .check = check_macaddr, .gen_value = gen_macaddr },
	{ NULL },
};
