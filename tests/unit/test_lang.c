// SPDX-License-Identifier: GPL-2.0
/* test_lang.c - the probe language: lexer, parser, checker, code generator, output formatting */
#include "unit.h"

#include "lang/gen.h"
#include "lang/lang.h"
#include "lang/output.h"
#include "lang/provider.h"
#include "ui/hist.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct program *parse(const char *src)
{
	struct program *p = lang__new("t.bt", src, strlen(src));

	lang__parse(p);
	return p;
}

/* parse, expand (BEGIN/END only), check */
static struct program *compile(const char *src)
{
	struct program *p = parse(src);

	if (!p->err && !lang__expand_macros(p) && !provider__expand_all(p, -1))
		lang__check(p);
	return p;
}

TEST(lang_lexer_reads_attach_points_as_text)
{
	struct program *p = lang__new("t", "uprobe:/usr/lib/libc.so.6:malloc /arg0 > 8/ { }", 47);
	struct lexer lx;
	struct token t;

	lexer__init(&lx, p);
	t = lexer__next(&lx);
	CHECK_INT(t.t, T_PROBE);
	CHECK_STR(t.s, "uprobe:/usr/lib/libc.so.6:malloc");
	CHECK_INT(lexer__next(&lx).t, T_SLASH);
	t = lexer__next(&lx);
	CHECK_INT(t.t, T_IDENT);
	CHECK_STR(t.s, "arg0");
	CHECK_INT(lexer__next(&lx).t, T_GT);
	t = lexer__next(&lx);
	CHECK_INT(t.t, T_INT);
	CHECK_INT(t.i, 8);
	CHECK_INT(lexer__next(&lx).t, T_SLASH);
	CHECK_INT(lexer__next(&lx).t, T_LBRACE);
	lang__free(p);
}

TEST(lang_lexer_numbers_and_strings)
{
	struct program *p = lang__new("t", "BEGIN { 0x1f 0b101 1_000 017 1e3 \"a\\tb\\x41\\101\" }", 47);
	struct lexer lx;
	long long want[] = { 31, 5, 1000, 15, 1000 };

	lexer__init(&lx, p);
	CHECK_INT(lexer__next(&lx).t, T_PROBE);
	CHECK_INT(lexer__next(&lx).t, T_LBRACE);
	for (int i = 0; i < 5; i++) {
		struct token t = lexer__next(&lx);

		CHECK_INT(t.t, T_INT);
		CHECK_INT(t.i, want[i]);
	}
	struct token s = lexer__next(&lx);

	CHECK_INT(s.t, T_STR);
	CHECK_STR(s.s, "a\tbAA");
	lang__free(p);
}

TEST(lang_parser_probes_predicates_and_lists)
{
	struct program *p = parse("BEGIN, END { @x = 1; } t:sched:sched_switch /pid == 1 && (cpu / 2) == 0/ { @[comm] = count() }");

	CHECK(!p->err);
	CHECK_INT(p->nprobes, 2);
	CHECK_STR(p->probes->aps->prov, "BEGIN");
	CHECK_STR(p->probes->aps->next->prov, "END");
	struct probe *t = p->probes->next;

	CHECK_STR(t->aps->prov, "tracepoint");
	CHECK_STR(t->aps->a, "sched");
	CHECK_STR(t->aps->b, "sched_switch");
	CHECK(t->pred && t->pred->kind == N_BINOP && t->pred->op == T_LAND);
	CHECK(t->body->args->kind == N_ASSIGN);
	lang__free(p);
}

TEST(lang_parser_precedence)
{
	struct program *p = parse("BEGIN { $x = 1 + 2 * 3 << 1; }");
	struct node *rhs;

	CHECK(!p->err);
	rhs = p->probes->body->args->r;
	/* (1 + (2 * 3)) << 1 */
	CHECK_INT(rhs->op, T_SHL);
	CHECK_INT(rhs->l->op, T_PLUS);
	CHECK_INT(rhs->l->r->op, T_STAR);
	lang__free(p);
}

TEST(lang_parser_both_spellings)
{
	struct program *p = parse("begin { for ($i : 0..3) { } } end { } kfunc:vfs_read { } fentry:vfs_read { }");

	CHECK(!p->err);
	CHECK_STR(p->probes->aps->prov, "BEGIN");
	CHECK_STR(p->probes->next->aps->prov, "END");
	CHECK_STR(p->probes->next->next->aps->prov, "fentry");
	CHECK_STR(p->probes->next->next->next->aps->prov, "fentry");
	CHECK_INT(p->probes->body->args->kind, N_FOR_RANGE);
	lang__free(p);
}

TEST(lang_error_has_file_line_col_and_caret)
{
	struct program *p = parse("BEGIN {\n  @x = (1 + ;\n}");

	CHECK(p->err);
	CHECK_STR(p->err, "t.bt:2:13: error: syntax error: unexpected ';', expecting an expression\n"
			  "  @x = (1 + ;\n"
			  "            ^");
	lang__free(p);
}

TEST(lang_check_map_types_and_layout)
{
	struct program *p = compile("BEGIN { @c[comm, 1] = count(); @h = hist(5); @s[\"a\"] = \"b\"; @l = lhist(3, 0, 100, 10); }");
	struct mapinfo *m;

	CHECK(!p->err);
	CHECK_INT(p->nmaps, 4);
	m = p->maps;
	CHECK_STR(m->name, "@c");
	CHECK_INT(m->agg, AGG_COUNT);
	CHECK_INT(m->key_size, 16 + 8);
	CHECK(m->percpu);
	m = m->next;
	CHECK_INT(m->agg, AGG_HIST);
	CHECK_INT(m->key_size, 8);	/* no key: just the bucket */
	m = m->next;
	CHECK_INT(m->agg, AGG_NONE);
	CHECK_INT(m->val.kind, TY_STR);
	m = m->next;
	CHECK_INT(m->lmin, 0);
	CHECK_INT(m->lmax, 100);
	CHECK_INT(m->lstep, 10);
	lang__free(p);
}

TEST(lang_check_errors)
{
	static const struct { const char *src, *msg; } cases[] = {
		{ "BEGIN { @x = 1; @x = \"s\"; }", "'@x' is assigned string[8] here but int64 elsewhere" },
		{ "BEGIN { printf(\"%d\\n\"); }", "the format has 1 verb but 0 arguments follow" },
		{ "BEGIN { $a = $b; }", "variable '$b' is used before it is assigned" },
		{ "BEGIN { hist(1); }", "hist() is an aggregation" },
		{ "BEGIN { nosuch(1); }", "unknown function 'nosuch'" },
		{ "BEGIN { arg0 }", "'arg0' is not available in BEGIN probes" },
		{ "BEGIN { signal(9); }", "signal() changes the system: it needs --unsafe" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct program *p = compile(cases[i].src);

		CHECK(p->err);
		if (!strstr(p->err, cases[i].msg)) {
			unit__fail(__FILE__, __LINE__, "'%s' gave '%s'", cases[i].src, p->err);
			lang__free(p);
			return;
		}
		lang__free(p);
	}
}

TEST(lang_codegen_ends_in_exit_and_references_maps)
{
	struct program *p = compile("BEGIN { @c = count(); printf(\"%d %s\\n\", pid, comm); exit(); }");
	struct gen_env env = { .start_ns = 1, .cpid = 0, .ncpus = 1 };
	struct bpf_code c;
	bool ringbuf = false, map0 = false;

	CHECK(!p->err);
	CHECK_INT(gen__probe(p, p->probes, p->probes->inst, &env, &c), 0);
	CHECK(c.n > 10);
	CHECK_INT(c.insns[0].code, BPF_ALU64 | BPF_MOV | BPF_X);	/* r6 = ctx */
	CHECK_INT(c.insns[c.n - 1].code, BPF_JMP | BPF_EXIT);
	for (int i = 0; i < c.nrel; i++) {
		CHECK_INT(c.insns[c.rel[i].insn].src_reg, BPF_PSEUDO_MAP_FD);
		ringbuf |= c.rel[i].map == MAPREF_RINGBUF;
		map0 |= c.rel[i].map == 0;
	}
	CHECK(ringbuf && map0);
	CHECK(c.stack > 0 && c.stack <= 512);
	bpf_code__free(&c);
	lang__free(p);
}

TEST(lang_codegen_stack_limit_is_an_error)
{
	struct program *p = compile("BEGIN { printf(\"%s %s %s %s %s %s %s %s\\n\", str(1), str(2), str(3), str(4), "
				    "str(5), str(6), str(7), str(8)); }");

	/* eight 64-byte strings do not fit in what the record may take */
	CHECK(p->err && strstr(p->err, "bytes"));
	lang__free(p);
}

TEST(lang_output_hist_labels)
{
	char b[64];

	hist__bt_label(&(struct hist_bt){ 0 }, 0, b, sizeof(b));
	CHECK_STR(b, "(..., 0)");
	hist__bt_label(&(struct hist_bt){ 0 }, 1, b, sizeof(b));
	CHECK_STR(b, "[0]");
	hist__bt_label(&(struct hist_bt){ 0 }, 2, b, sizeof(b));
	CHECK_STR(b, "[1]");
	hist__bt_label(&(struct hist_bt){ 0 }, 3, b, sizeof(b));
	CHECK_STR(b, "[2, 4)");
	hist__bt_label(&(struct hist_bt){ 0 }, 11, b, sizeof(b));
	CHECK_STR(b, "[512, 1K)");
	hist__bt_label(&(struct hist_bt){ 0 }, 22, b, sizeof(b));
	CHECK_STR(b, "[1M, 2M)");
	hist__bt_label(&(struct hist_bt){ .linear = true, .min = 0, .max = 100, .step = 10 }, 0, b, sizeof(b));
	CHECK_STR(b, "(..., 0)");
	hist__bt_label(&(struct hist_bt){ .linear = true, .min = 0, .max = 100, .step = 10 }, 3, b, sizeof(b));
	CHECK_STR(b, "[20, 30)");
	hist__bt_label(&(struct hist_bt){ .linear = true, .min = 0, .max = 100, .step = 10 }, 11, b, sizeof(b));
	CHECK_STR(b, "[100, ...)");
	hist__bt_label(&(struct hist_bt){ .linear = true, .min = 0, .max = 4096, .step = 1024 }, 2, b, sizeof(b));
	CHECK_STR(b, "[1K, 2K)");
	hist__bt_bar(b, sizeof(b), 1, 2);
	CHECK_INT(strspn(b, "@"), 26);
	CHECK_INT(strlen(b), 52);
}

TEST(lang_output_printf_like_bpftrace)
{
	struct program *p = compile("BEGIN { printf(\"%d|%u|%ld|%5s|%-3d|%x\\n\", -1, -1, -1, \"ab\", 7, 255); }");
	uint8_t rec[8 + 8 * 3 + 8 + 8 + 8];
	char *s;
	struct out o = { .prog = p };

	CHECK(!p->err && p->nsites == 1);
	CHECK_INT(p->sites[0]->size, 8 + 8 + 8 + 8 + 8 + 8 + 8);
	memset(rec, 0, sizeof(rec));
	for (int i = 0; i < 3; i++)
		*(int64_t *)(rec + 8 + 8 * i) = -1;
	memcpy(rec + 32, "ab", 3);
	*(int64_t *)(rec + 40) = 7;
	*(int64_t *)(rec + 48) = 255;
	s = out__format(&o, p->sites[0], rec, sizeof(rec) + 8);
	CHECK_STR(s, "-1|4294967295|-1|   ab|7  |ff\n");
	free(s);
	lang__free(p);
}

TEST(lang_uprobe_symbol_offset)
{
	char path[512];
	uint64_t off = 0;

	/* this test binary is a PIE with a main */
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	CHECK(n > 0);
	path[n] = 0;
	CHECK_INT(provider__elf_sym_offset(path, "main", &off), 0);
	CHECK(off > 0);
	CHECK_INT(provider__elf_sym_offset(path, "no_such_symbol_here", &off), -2);
	CHECK_INT(provider__resolve_path("libc", path, sizeof(path)), 0);
	CHECK(strstr(path, "libc.so"));
}

TEST(lang_macro_expansion_renames_and_remembers_the_call)
{
	struct program *p = compile("macro inc($x, y) { let $t = y; $x += $t; $x }\n"
				    "BEGIN { $a = 1; $b = inc($a, 2); }");
	struct node *s, *b;

	CHECK(!p->err);
	s = p->probes->body->args->next;	/* $b = inc($a, 2) */
	CHECK_INT(s->kind, N_ASSIGN);
	b = s->r;
	CHECK_INT(b->kind, N_BLOCKEXPR);
	CHECK_STR(b->s, "inc");
	CHECK_INT(b->loc.line, 2);
	CHECK_INT(b->loc.exp, 0);		/* the block is where the call is */
	CHECK_INT(p->nexps, 1);
	CHECK_INT(b->args->kind, N_LET);
	CHECK_STR(b->args->s, "$$inc_1_t");	/* the body's own variable, renamed */
	CHECK_INT(b->args->loc.exp, 1);
	CHECK_INT(b->args->r->kind, N_INT);	/* y: a copy of the argument 2 */
	CHECK_INT(b->args->next->l->kind, N_VAR);
	CHECK_STR(b->args->next->l->s, "$a");	/* $x: the caller's variable */
	CHECK_STR(b->x->s, "$a");
	lang__free(p);

	p = compile("macro m() { m() }\nBEGIN { m(); }");
	CHECK(p->err && strstr(p->err, "t.bt:1:13: error: macro 'm' calls itself (m > m)"));
	CHECK(strstr(p->err, "\nt.bt:2:9: note: in macro 'm', called here\nBEGIN { m(); }\n        ^"));
	lang__free(p);
}

TEST(lang_records_are_typed_by_their_names)
{
	struct program *p = compile("BEGIN { $r = (a=1, b=\"x\"); $r = (b=\"yy\", a=2); @m[$r.a] = $r.b; }");
	struct var *v;

	CHECK(!p->err);
	v = p->probes->vars;
	CHECK_STR(v->name, "$r");
	CHECK_INT(v->ty.kind, TY_TUPLE);
	CHECK_INT(v->ty.ntup, 2);
	CHECK_STR(v->ty.names[0], "a");
	CHECK_STR(v->ty.names[1], "b");
	lang__free(p);
	p = compile("BEGIN { $r = (a=1); $r = (1,); }");
	CHECK(p->err && strstr(p->err, "'$r' is (a=int64) and cannot be assigned (int64)"));
	lang__free(p);
}

/* the "unknown probe type" message lists provider.c's table; each name in it is one the parser takes */
TEST(lang_known_probe_types_are_the_providers)
{
	char known[512], *save = NULL;
	int n = 0;

	provider__names(known, sizeof(known));
	for (char *name = strtok_r(known, ", ", &save); name; name = strtok_r(NULL, ", ", &save), n++) {
		const char *canon = lang__provider_name(name, strlen(name));

		CHECK(canon != NULL);
		CHECK_STR(canon ? canon : "", name);
		CHECK(provider__find(name) != NULL);
	}
	CHECK_INT(n, 21);
	provider__names(known, sizeof(known));
	CHECK(strstr(known, "self, test, bench") != NULL);
}
