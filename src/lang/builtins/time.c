// SPDX-License-Identifier: GPL-2.0
/*
 * time.c - the builtins on time: nsecs(clock) and strftime(fmt, ns), whose
 * value user space formats with the format's site (time(), which prints
 * the wall clock, is an output: output.c).
 */
#include "lang/check_int.h"
#include "lang/gen_int.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

/* nsecs(boot | monotonic | tai | sw_tai) */
static struct type check_nsecs(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	static const char *modes[] = { "boot", "monotonic", "tai", "sw_tai" };
	struct node *a0 = n->args;

	(void)f;
	(void)assign_to;
	for (n->id = 0; n->id < 4 && (a0->kind != N_IDENT || strcmp(a0->s, modes[n->id])); n->id++)
		;
	if (n->id == 4) {
		lang__error(c->prog, a0->loc, "nsecs() takes a clock: boot, monotonic, tai or sw_tai");
		return ty_kind(TY_NONE, 0);
	}
	return n->ty = ty_int(false, 64);
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

static void gen_nsecs(struct gen *g, struct node *n)
{
	static const int helpers[] = { BPF_FUNC_ktime_get_boot_ns, BPF_FUNC_ktime_get_ns, BPF_FUNC_ktime_get_tai_ns,
				       BPF_FUNC_ktime_get_boot_ns };

	g_emit(g, CALL(helpers[n->id]));
	if (n->id == 3) {	/* sw_tai: boot time plus TAI's offset from it, as user space sees them now */
		g_ld_imm64(g, R1, (uint64_t)sw_tai_offset());
		g_emit(g, ALU_REG(BPF_ADD, R0, R1));
	}
}

static struct type check_strftime(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to)
{
	struct node *a0 = n->args, *a1 = a0->next;
	char b[64];

	(void)f;
	(void)assign_to;
	if (a0->kind != N_STR) {
		lang__error(c->prog, a0->loc, "the first argument of strftime() is a format string literal");
		return ty_kind(TY_NONE, 0);
	}
	if (a1->ty.kind != TY_INT) {
		lang__error(c->prog, a1->loc, "strftime() takes nanoseconds since boot (an integer such as nsecs), "
			    "not a value of type %s", type__str(&a1->ty, b, sizeof(b)));
		return ty_kind(TY_NONE, 0);
	}
	if (ck_aux_site(c, n, a0->s))
		return ty_kind(TY_NONE, 0);
	return n->ty = ty_kind(TY_TIMESTAMP, 16);
}

/* [u64 format's site][u64 nsecs] */
static void gen_strftime(struct gen *g, struct node *n, int off, int size)
{
	(void)size;
	gen_int(g, n->args->next);
	g_emit(g, STX(BPF_DW, FP, R0, off + 8));
	g_emit(g, ST(BPF_DW, FP, off, n->id - 1));
}

const struct builtin builtins_time[] = {
	{ "nsecs", F_NSECS, 0, 1, BF_OWN_ARGS | BF_NOARG_VAR, .check = check_nsecs, .gen_int = gen_nsecs },
	{ "strftime", F_STRFTIME, 2, 2, 0, .check = check_strftime, .gen_value = gen_strftime },
	{ NULL },
};
