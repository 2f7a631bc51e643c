// SPDX-License-Identifier: GPL-2.0
/*
 * skboutput.c - skboutput(path, skb, length, offset): its row, its type
 * rules and its code (the family of packets; the pcap side: output_pcap.c).
 *
 * The kernel's bpf_skb_output(skb, map, flags, meta, meta_size) appends one
 * record to a BPF_MAP_TYPE_PERF_EVENT_ARRAY: meta_size bytes of meta, then
 * flags >> 32 bytes of the packet copied from skb->data (paged data
 * included). It is offered only to BPF_PROG_TYPE_TRACING programs (fentry,
 * fexit here), takes the skb only as a pointer the verifier knows from BTF
 * (an argument as the trampoline passes it, not one read from memory), and
 * returns -EFAULT when asked for more bytes than skb->len. So the code reads
 * skb->len first and copies min(offset + length, skb->len, SKB_CAP_MAX)
 * bytes; user space (output_pcap.c) drops the first `offset` of them, as
 * bpftrace does (offset 14 leaves out an Ethernet header), and writes the
 * rest as a raw IP packet, its original length being skb->len - offset.
 */
#include "lang/check_int.h"
#include "lang/gen_int.h"
#include "lang/ktypes.h"
#include "lang/provider.h"
#include "lang/skboutput.h"

#include <errno.h>
#include <string.h>

static struct type fail(struct ck *c, struct loc loc, const char *msg)
{
	lang__error(c->prog, loc, "%s", msg);
	return ty_kind(TY_NONE, 0);
}

/* an skb the verifier still knows as a kernel pointer: args.NAME, retval, a variable, or a cast of these */
static bool from_trampoline(const struct node *n)
{
	while (n->kind == N_CAST)
		n = n->l;
	return (n->kind == N_FIELD && n->l && n->l->ty.kind == TY_CTX) || n->kind == N_VAR || n->kind == N_IDENT;
}

static struct type check_skboutput(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	(void)f;
	(void)assign_to;
	struct node *path = n->args, *skb = path->next, *len = skb->next, *off = len->next;
	long long o;
	char b[64];
	int moff, bitoff, bits, tid;

	if (c->in && strcmp(c->in->prov->name, "fentry") && strcmp(c->in->prov->name, "fexit")) {
		lang__error(c->prog, n->loc, "skboutput() works only in fentry and fexit probes (kfunc, kretfunc): "
			    "the kernel gives bpf_skb_output to tracing programs only, not to %s probes", c->in->prov->name);
		return ty_kind(TY_NONE, 0);
	}
	if (path->kind != N_STR || !path->slen || memchr(path->s, 0, path->slen))
		return fail(c, path->loc, "the first argument of skboutput() is the pcap file's path, a string literal");
	for (struct node *a = skb; a; a = a->next)
		if (ck_expr(c, a).kind == TY_NONE || c->prog->err)
			return ty_kind(TY_NONE, 0);
	if (skb->ty.kind != TY_INT || !skb->ty.ptr || skb->ty.ptr->kind != TY_STRUCT ||
	    strcmp(ktypes__name(c->prog, skb->ty.ptr->btf_id, b, sizeof(b)), "struct sk_buff")) {
		if (!(skb->ty.kind == TY_INT && skb->ty.ptr && skb->ty.ptr->kind == TY_STRUCT))
			type__str(&skb->ty, b, sizeof(b));
		lang__error(c->prog, skb->loc, "skboutput() takes a pointer to a struct sk_buff (such as args.skb), "
			    "not a value of type %s%s", b, skb->ty.kind == TY_INT && skb->ty.ptr && skb->ty.ptr->kind == TY_STRUCT ? " *" : "");
		return ty_kind(TY_NONE, 0);
	}
	if (skb->ty.user)
		return fail(c, skb->loc, "skboutput() takes a kernel struct sk_buff, not one in user memory");
	if (!from_trampoline(skb))
		return fail(c, skb->loc, "skboutput() needs the skb as the kernel passed it (args.NAME, retval, or a "
			    "variable set from them): bpf_skb_output refuses a pointer read from memory");
	if (!type__is_int(&len->ty) || len->ty.ptr)
		return fail(c, len->loc, "the length of skboutput() is an integer: how many bytes of the packet to write");
	if (!ck_is_const_int(off, &o) || o < 0 || o > SKB_CAP_MAX) {
		lang__error(c->prog, off->loc, "the offset of skboutput() is a constant from 0 to %d: the bytes "
			    "left out at the start of the packet (14 for an Ethernet header)", SKB_CAP_MAX);
		return ty_kind(TY_NONE, 0);
	}
	if (ktypes__member(c->prog, skb->ty.ptr->btf_id, "len", &moff, &bitoff, &bits, &tid) || bits)
		return fail(c, skb->loc, "the kernel's struct sk_buff has no member 'len' (BTF)");
	n->off = moff;
	if (!n->id) {
		struct fmtsite *s = arena__alloc(c->prog->arena, sizeof(*s));

		s->kind = REC_SKBOUTPUT;
		s->fmt = arena__strndup(c->prog->arena, path->s, path->slen);
		s->top = o;
		s->loc = n->loc;
		n->id = lang__add_site(c->prog, s) + 1;
	}
	return n->ty = ty_int(true, 64);
}

static void gen_skboutput(struct gen *g, struct node *n)
{
	struct node *skb = n->args->next, *len = skb->next, *off = len->next;
	int mark = g->sp, meta = g_slot(g, sizeof(struct skb_meta), n->loc), ps = g_slot(g, 8, n->loc);

	/* the skb pointer stays on the stack: a full 8-byte spill keeps the verifier's BTF type */
	gen_int(g, skb);
	g_emit(g, STX(BPF_DW, FP, R0, ps));
	/* cap = min(length, SKB_CAP_MAX) + offset, in meta.cap for now */
	gen_int(g, len);
	g_emit(g, JMP_IMM(BPF_JLE, R0, SKB_CAP_MAX, 1));
	g_emit(g, MOV_IMM(R0, SKB_CAP_MAX));
	g_emit(g, ALU_IMM(BPF_ADD, R0, (int)off->i));
	g_emit(g, STX(BPF_W, FP, R0, meta + 4));
	/* NULL: bpf_skb_output would read skb->len through it */
	g_emit(g, LDX(BPF_DW, R1, FP, ps));
	int nul = g_emit(g, JMP_IMM(BPF_JEQ, R1, 0, 0));

	/* meta.len = skb->len */
	g_emit(g, ST(BPF_W, FP, meta + 8, 0));
	g_fp_addr(g, R1, meta + 8);
	g_emit(g, MOV_IMM(R2, 4));
	g_emit(g, LDX(BPF_DW, R3, FP, ps));
	g_emit(g, ALU_IMM(BPF_ADD, R3, n->off));
	g_emit(g, CALL(BPF_FUNC_probe_read_kernel));
	/* cap = min(cap, skb->len, SKB_CAP_MAX): more than skb->len is -EFAULT */
	g_emit(g, LDX(BPF_W, R0, FP, meta + 4));
	g_emit(g, LDX(BPF_W, R1, FP, meta + 8));
	g_emit(g, JMP_REG(BPF_JLE, R0, R1, 1));
	g_emit(g, MOV_REG(R0, R1));
	g_emit(g, JMP_IMM(BPF_JLE, R0, SKB_CAP_MAX, 1));
	g_emit(g, MOV_IMM(R0, SKB_CAP_MAX));
	g_emit(g, STX(BPF_W, FP, R0, meta + 4));
	g_emit(g, ST(BPF_W, FP, meta, n->id - 1));
	g_emit(g, ST(BPF_W, FP, meta + 12, 0));
	g_emit(g, CALL(BPF_FUNC_ktime_get_boot_ns));
	g_emit(g, STX(BPF_DW, FP, R0, meta + 16));
	/* flags: the bytes to copy in the upper 32 bits, BPF_F_CURRENT_CPU in the lower */
	g_emit(g, LDX(BPF_W, R3, FP, meta + 4));
	g_emit(g, ALU_IMM(BPF_LSH, R3, 32));
	g_ld_imm64(g, R4, BPF_F_CURRENT_CPU);
	g_emit(g, ALU_REG(BPF_OR, R3, R4));
	g_emit(g, LDX(BPF_DW, R1, FP, ps));
	g_ld_map(g, R2, MAPREF_SKB);
	g_fp_addr(g, R4, meta);
	g_emit(g, MOV_IMM(R5, sizeof(struct skb_meta)));
	g_emit(g, CALL(BPF_FUNC_skb_output));
	/* no room in this CPU's ring: counted in the lost map (key 2), the value kept */
	int room = g_emit(g, JMP_IMM(BPF_JNE, R0, -ENOSPC, 0));
	int k = g_slot(g, 8, n->loc);

	g_emit(g, ST(BPF_DW, FP, k, 2));
	g_lookup(g, MAPREF_LOST, k);
	g_emit(g, JMP_IMM(BPF_JEQ, R0, 0, 2));
	g_emit(g, MOV_IMM(R1, 1));
	g_emit(g, XADD(R0, R1, 0));
	g_emit(g, MOV_IMM(R0, -ENOSPC));
	g_patch(g, room);
	int done = g_emit(g, JA(0));

	g_patch(g, nul);
	g_emit(g, MOV_IMM(R0, -EFAULT));
	g_patch(g, done);
	g->sp = mark;
}

const struct builtin builtins_packets[] = {
	{ "skboutput", F_SKBOUTPUT, 4, 4, BF_OWN_ARGS, .check = check_skboutput, .gen_int = gen_skboutput },
	{ NULL },
};
