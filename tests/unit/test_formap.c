// SPDX-License-Identifier: GPL-2.0
/* test_formap.c - for ($kv : @map): $kv's type, which variables are shared, the callback's layout */
#include "unit.h"

#include "lang/gen.h"
#include "lang/lang.h"
#include "lang/provider.h"

#include <string.h>

static struct program *compile(const char *src)
{
	struct program *p = lang__new("t.bt", src, strlen(src));

	if (!lang__parse(p) && !provider__expand_all(p, -1))
		lang__check(p);
	return p;
}

static struct var *var_named(struct probe *pr, const char *name)
{
	for (struct var *v = pr->vars; v; v = v->next)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

TEST(formap_kv_is_key_value_and_a_tuple_key_for_several_keys)
{
	struct program *p = compile("BEGIN { @m[1, \"ab\"] = \"x\"; @c[3] = count(); "
				    "for ($kv : @m) { print($kv.0.1); } for ($e : @c) { print($e.1); } }");
	char b[128];

	CHECK(p->err == NULL);
	struct var *kv = var_named(p->probes, "$kv"), *e = var_named(p->probes, "$e");

	CHECK(kv != NULL && e != NULL);
	CHECK_STR(type__str(&kv->ty, b, sizeof(b)), "((int64,string[8]),string[8])");
	CHECK_INT(kv->ty.size, 8 + 8 + 8);
	CHECK_INT(kv->ty.tup[0].ntup, 2);
	/* an aggregation gives its number */
	CHECK_STR(type__str(&e->ty, b, sizeof(b)), "(int64,int64)");
	CHECK(kv->loopvar && kv->gone && kv->home == 1 && e->home == 2);
	lang__free(p);
}

TEST(formap_shared_variables_are_those_used_in_and_around_a_body)
{
	struct program *p = compile("BEGIN { @m[1] = 2; $out = 0; $only_main = 1; $ro = 5; "
				    "for ($kv : @m) { $out += $kv.1; $inner = 3; for ($j : @m) { $x = $kv.0 + $ro; } } "
				    "$only_main++; }");

	CHECK(p->err == NULL);
	struct probe *pr = p->probes;

	CHECK(var_named(pr, "$out")->shared);		/* main and the body */
	CHECK(!var_named(pr, "$only_main")->shared && !var_named(pr, "$only_main")->xread);
	CHECK(!var_named(pr, "$ro")->shared);		/* only read in the bodies: stays on the stack */
	CHECK(var_named(pr, "$ro")->xread);
	CHECK(!var_named(pr, "$inner")->shared);	/* the body's own */
	CHECK(var_named(pr, "$kv")->shared);		/* read by the nested loop */
	CHECK(!var_named(pr, "$j")->shared);
	CHECK(!var_named(pr, "$x")->shared);
	lang__free(p);
}

TEST(formap_callbacks_follow_the_main_program)
{
	struct program *p = compile("BEGIN { @m[1] = 2; $n = 0; for ($kv : @m) { $n++; "
				    "for ($j : @m) { if ($j.0 == 1) { break; } } } print($n); }");
	struct gen_env env = { .start_ns = 1, .ncpus = 2, .possible_cpus = 2 };
	struct bpf_code c;
	int funcs = 0, calls = 0;

	CHECK(p->err == NULL);
	CHECK_INT(gen__probe(p, p->probes, p->probes->inst, &env, &c), 0);
	CHECK_INT(c.nsubs, 2);
	CHECK(c.vars_size == 8);	/* $n; $kv is read by no nested loop */
	for (int i = 0; i + 1 < c.n; i++) {
		struct bpf_insn *in = &c.insns[i];

		if (in->code == (BPF_JMP | BPF_CALL) && in->imm == BPF_FUNC_for_each_map_elem)
			calls++;
		if (in->code == (BPF_LD | BPF_DW | BPF_IMM) && in->src_reg == BPF_PSEUDO_FUNC) {
			int target = i + in->imm + 1;

			CHECK(target == c.subs[0] || target == c.subs[1]);
			CHECK(target > i);
			funcs++;
		}
	}
	CHECK_INT(funcs, 2);
	CHECK_INT(calls, 2);
	/* every function ends with an exit just before the next one starts */
	CHECK_INT(c.insns[c.subs[0] - 1].code, BPF_JMP | BPF_EXIT);
	CHECK_INT(c.insns[c.subs[1] - 1].code, BPF_JMP | BPF_EXIT);
	CHECK_INT(c.insns[c.n - 1].code, BPF_JMP | BPF_EXIT);
	bpf_code__free(&c);
	lang__free(p);
}

TEST(formap_programs_without_for_loops_have_no_subprograms)
{
	struct program *p = compile("BEGIN { @m[1] = 2; $a = 1; for ($i : 0..3) { $a++; } }");
	struct gen_env env = { .start_ns = 1, .ncpus = 2 };
	struct bpf_code c;

	CHECK(p->err == NULL);
	CHECK_INT(gen__probe(p, p->probes, p->probes->inst, &env, &c), 0);
	CHECK_INT(c.nsubs, 0);
	CHECK_INT(c.vars_size, 0);
	bpf_code__free(&c);
	lang__free(p);
}
