// SPDX-License-Identifier: GPL-2.0
/* test_hist.c - the report's grouping: srcline's forms and perf's addr2line give-up, the order of ties */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/symbol/elfsym.h"
#include "lib/profile/hist.h"
#include "lib/symbol/symbol.h"
#include "unit.h"

#define LOAD 0x555500000000ULL	/* where the PIE is "mapped": the frames' absolute addresses */

struct fixture {
	struct symbolizer *sym;
	struct perfdata_attr attr;
	struct perfdata_event ev;
	struct perfdata_sample s;
	struct session_frame user;	/* in_user+8 of the kernthenuser workload: a line of its own */
	struct session_frame kern;	/* do_thing+5 in the kernel (no lines) */
	struct session_frame nosym;	/* in libfoo.so, no symbol, file not readable */
	struct session_frame nomap;	/* in no mapping */
	char line[64];			/* "kernthenuser.c:N", user's line */
};

static int find_in_user(const char *name, const GElf_Sym *s, void *ctx)
{
	if (strcmp(name, "in_user"))
		return 0;
	*(uint64_t *)ctx = s->st_value;
	return 1;
}

static bool fixture__init(struct fixture *fx)
{
	char path[4200];
	uint64_t vaddr = 0;
	struct sym_frame f;
	Elf *e;
	int fd;

	memset(fx, 0, sizeof(*fx));
	unit__workload("kernthenuser", path, sizeof(path));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e)
		elfsym__each(e, find_in_user, &vaddr);
	elf_end(e);
	close(fd);
	fx->sym = symbolizer__new(0);
	if (!vaddr || !fx->sym || symbolizer__resolve_file(fx->sym, path, vaddr + 8, &f, 1) != 1)
		return false;
	fx->user = (struct session_frame){ .ip = LOAD + vaddr + 8, .sym = f };
	{
		const char *file;
		int line;

		if (symbolizer__srcline_in(fx->sym, &f, vaddr + 8, &file, &line) || line < 1 ||
		    strcmp(strrchr(file, '/'), "/kernthenuser.c"))
			return false;
		snprintf(fx->line, sizeof(fx->line), "kernthenuser.c:%d", line);
		/* no line at the absolute address */
		if (symbolizer__srcline_in(fx->sym, &f, LOAD + vaddr + 8, &file, &line) != -ENOENT)
			return false;
	}
	fx->kern = (struct session_frame){ .ip = 0xffffffff81000105ULL, .kernel = true,
		.sym = { .sym = "do_thing", .offset = 5, .dso = "[kernel.kallsyms]", .dso_addr = 0xffffffff81000105ULL } };
	fx->nosym = (struct session_frame){ .ip = 0x7f0000001a2bULL, .sym = { .dso = "/usr/lib/libfoo.so", .dso_addr = 0x1a2b } };
	fx->nomap = (struct session_frame){ .ip = 0x1234 };
	fx->attr.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	fx->ev.attr = &fx->attr;
	fx->s.pid = fx->s.tid = 42;
	fx->s.period = 1000;
	return true;
}

/* one sample whose stack is frames (leaf first) */
static int add(struct fixture *fx, struct hist *h, const struct session_frame *const *frames, int n)
{
	struct session_frame fr[8];
	struct session_sample smp = { .ev = &fx->ev, .s = &fx->s, .comm = "prog", .frames = fr, .nr_frames = n };

	for (int i = 0; i < n; i++)
		fr[i] = *frames[i];
	return hist__add(h, &smp);
}

static const struct hist_entry *entry(struct hist *h, const char *srcline)
{
	for (size_t i = 0; i < hist__nr_entries(h); i++)
		if (!strcmp(hist__entry(h, i)->srcline, srcline))
			return hist__entry(h, i);
	return NULL;
}

TEST(hist_srcline_forms)
{
	struct hist_opts o = { 0 };
	const char *bad;
	struct fixture fx;
	struct hist *h;
	char want[64];

	CHECK(fixture__init(&fx));
	CHECK_INT(hist__parse_sort(&o, "srcline,cpu", &bad), 0);
	o.lines = fx.sym;
	h = hist__new(&o);
	CHECK(h);
	CHECK_INT(add(&fx, h, (const struct session_frame *[]){ &fx.user }, 1), 0);
	CHECK_INT(add(&fx, h, (const struct session_frame *[]){ &fx.kern }, 1), 0);
	CHECK_INT(add(&fx, h, (const struct session_frame *[]){ &fx.nosym }, 1), 0);
	CHECK_INT(add(&fx, h, (const struct session_frame *[]){ &fx.nomap }, 1), 0);
	hist__sort(h);
	CHECK_INT(hist__nr_entries(h), 4);
	/* equal periods: in srcline order, ascending */
	CHECK_STR(hist__entry(h, 0)->srcline, "??:0");
	CHECK_STR(hist__entry(h, 1)->srcline, "do_thing+5");
	CHECK_STR(hist__entry(h, 2)->srcline, fx.line);
	CHECK_STR(hist__entry(h, 3)->srcline, "libfoo.so[1a2b]");
	CHECK_INT(hist__entry(h, 0)->cpu, -1);	/* the samples have no CPU */
	hist__free(h);

	/* inclusive entries take the absolute address: no line there, the symbol and that offset */
	o.children = true;
	h = hist__new(&o);
	CHECK(h);
	CHECK_INT(add(&fx, h, (const struct session_frame *[]){ &fx.user, &fx.nomap }, 2), 0);
	hist__sort(h);
	snprintf(want, sizeof(want), "in_user+%llu", (unsigned long long)(fx.user.ip - (fx.user.sym.dso_addr - 8)));
	CHECK(entry(h, want) && entry(h, want)->self == 0 && entry(h, want)->children == 1000);
	CHECK(entry(h, fx.line) && entry(h, fx.line)->self == 1000);
	CHECK(entry(h, "??:0") && entry(h, "??:0")->children == 1000);
	CHECK_INT(hist__nr_entries(h), 3);
	hist__free(h);
	symbolizer__free(fx.sym);
}

TEST(hist_srcline_gives_up_as_perf)
{
	const struct session_frame *chain[2];
	struct hist_opts o = { .children = true };
	const char *bad;
	struct fixture fx;
	struct hist *h;

	CHECK(fixture__init(&fx));
	CHECK_INT(hist__parse_sort(&o, "srcline", &bad), 0);
	o.lines = fx.sym;
	/*
	 * 61 samples in the kernel under in_user: two failed questions each for its absolute
	 * address, 122 in all, one short of perf's limit: the program keeps its lines
	 */
	h = hist__new(&o);
	CHECK(h);
	chain[0] = &fx.kern;
	chain[1] = &fx.user;
	for (int i = 0; i < 61; i++)
		CHECK_INT(add(&fx, h, chain, 2), 0);
	CHECK_INT(add(&fx, h, (const struct session_frame *[]){ &fx.user }, 1), 0);
	CHECK(entry(h, fx.line));
	hist__free(h);
	/* one more such sample and perf gives up on the file: its own samples are "in_user+8" */
	h = hist__new(&o);
	CHECK(h);
	for (int i = 0; i < 62; i++)
		CHECK_INT(add(&fx, h, chain, 2), 0);
	CHECK_INT(add(&fx, h, (const struct session_frame *[]){ &fx.user }, 1), 0);
	CHECK(!entry(h, fx.line));
	CHECK(entry(h, "in_user+8") && entry(h, "in_user+8")->self == 1000);
	hist__free(h);
	/* a line found first: failures after it never count */
	h = hist__new(&o);
	CHECK(h);
	CHECK_INT(add(&fx, h, (const struct session_frame *[]){ &fx.user }, 1), 0);
	for (int i = 0; i < 200; i++)
		CHECK_INT(add(&fx, h, chain, 2), 0);
	CHECK_INT(add(&fx, h, (const struct session_frame *[]){ &fx.user }, 1), 0);
	CHECK(entry(h, fx.line) && entry(h, fx.line)->self == 2000);
	hist__free(h);
	symbolizer__free(fx.sym);
}

/*
 * call-graph siblings of equal period come in perf's order whatever order the samples came
 * in: a frame in a file (the DSO made first comes last) before one in no mapping, and in one
 * DSO the greater symbol address first
 */
TEST(hist_callchain_ties_as_perf)
{
	struct session_frame user2;
	struct hist_opts o = { .callchain = true };
	const char *bad;
	struct fixture fx;

	CHECK(fixture__init(&fx));
	CHECK_INT(hist__parse_sort(&o, "sym", &bad), 0);
	user2 = fx.user;
	user2.ip -= 0x100;
	user2.sym.dso_addr -= 0x100;
	user2.sym.sym = "before_in_user";
	for (int order = 0; order < 2; order++) {
		const struct session_frame *callers[3] = { &fx.nomap, &fx.user, &user2 };
		struct hist *h = hist__new(&o);
		const struct cc_node *c;

		CHECK(h);
		for (int i = 0; i < 3; i++) {
			const struct session_frame *caller = callers[order ? 2 - i : i];

			CHECK_INT(add(&fx, h, (const struct session_frame *[]){ &fx.kern, caller }, 2), 0);
		}
		hist__sort(h);
		CHECK_INT(hist__nr_entries(h), 1);
		c = hist__entry(h, 0)->cc;
		CHECK(c && !c->next && c->hits == 3000);
		c = c->child;
		CHECK(c && c->name && !strcmp(c->name, "in_user"));
		c = c ? c->next : NULL;
		CHECK(c && c->name && !strcmp(c->name, "before_in_user"));
		c = c ? c->next : NULL;
		CHECK(c && !c->name && c->key == 0x1234 && !c->next);
		hist__free(h);
	}
	symbolizer__free(fx.sym);
}

static bool same_graph(const struct cc_node *a, const struct cc_node *b)
{
	for (; a && b; a = a->next, b = b->next)
		if ((a->name ? !b->name || strcmp(a->name, b->name) : !!b->name) || a->key != b->key ||
		    a->hits != b->hits || hist__cc_self(a) != hist__cc_self(b) || !same_graph(a->child, b->child))
			return false;
	return !a && !b;
}

/*
 * samples of a stack seen before (session_sample.stack_id) wait and are added once with their
 * sum: the entries, their order and their graphs are those of adding each sample, whatever the
 * order of the stacks, the threads and the samples of no known stack among them
 */
TEST(hist_stacks_as_samples)
{
	struct hist_opts o = { .children = true, .callchain = true };
	const char *bad;
	struct fixture fx;
	struct hist *h[2];
	/* which stack, of which thread; stack 0 is one of no id */
	static const int seq[][2] = { { 1, 42 }, { 2, 42 }, { 1, 42 }, { 3, 43 }, { 0, 42 }, { 2, 42 },
				      { 4, 42 }, { 1, 43 }, { 3, 43 }, { 1, 42 }, { 5, 42 }, { 2, 43 } };

	CHECK(fixture__init(&fx));
	CHECK_INT(hist__parse_sort(&o, "tid,dso,sym", &bad), 0);
	const struct session_frame *stacks[][3] = {
		{ &fx.kern, &fx.user, &fx.nomap }, { &fx.kern, &fx.user, &fx.nomap },
		{ &fx.user, &fx.nosym, &fx.user }, { &fx.nosym, &fx.kern, &fx.user },
		{ &fx.nomap, &fx.user, &fx.kern }, { &fx.user, &fx.user, &fx.user },
	};
	for (int k = 0; k < 2; k++) {
		CHECK(h[k] = hist__new(&o));
		for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
			struct session_frame fr[3];
			struct session_sample smp = { .ev = &fx.ev, .s = &fx.s, .comm = "prog", .frames = fr,
						      .nr_frames = 3, .stack_id = k ? 0 : seq[i][0] };

			for (int j = 0; j < 3; j++)
				fr[j] = *stacks[seq[i][0]][j];
			fx.s.tid = seq[i][1];
			fx.s.period = 1000 + 10 * (i % 3);
			CHECK_INT(hist__add(h[k], &smp), 0);
		}
		/* then more stacks than wait at once (50k numbers, the same frames): added midway too */
		for (int i = 0; i < 50000; i++) {
			struct session_frame fr[3];
			struct session_sample smp = { .ev = &fx.ev, .s = &fx.s, .comm = "prog", .frames = fr,
						      .nr_frames = 3, .stack_id = k ? 0 : 100 + i };

			for (int j = 0; j < 3; j++)
				fr[j] = *stacks[i % 6][j];
			fx.s.tid = 42 + i % 5;
			fx.s.period = 1000 + i % 7;
			CHECK_INT(hist__add(h[k], &smp), 0);
		}
		hist__sort(h[k]);
	}
	CHECK(hist__nr_entries(h[0]) > 6);
	CHECK_INT(hist__nr_entries(h[0]), hist__nr_entries(h[1]));
	for (size_t i = 0; i < hist__nr_entries(h[0]) && i < hist__nr_entries(h[1]); i++) {
		const struct hist_entry *a = hist__entry(h[0], i), *b = hist__entry(h[1], i);

		CHECK_STR(a->dso, b->dso);
		CHECK_STR(a->sym ? a->sym : "-", b->sym ? b->sym : "-");
		CHECK(a->tid == b->tid && a->addr == b->addr && a->level == b->level);
		CHECK(a->self == b->self && a->children == b->children && a->nr_self == b->nr_self &&
		      a->nr_children == b->nr_children && a->max_depth == b->max_depth);
		CHECK(same_graph(a->cc, b->cc));
	}
	CHECK_INT(hist__total_period(h[0]), hist__total_period(h[1]));
	CHECK_INT(hist__nr_samples(h[0]), hist__nr_samples(h[1]));
	hist__free(h[0]);
	hist__free(h[1]);
	symbolizer__free(fx.sym);
}

/*
 * A graph level of thousands of siblings (a kernel function's callers, system-wide):
 * the node index grows past several sizes, finds every node again instead of making
 * a twin, also after hist__sort moved the entry (top adds after each sort)
 */
TEST(hist_wide_graph)
{
	struct hist_opts o = { .callchain = true };
	const char *bad;
	struct fixture fx;
	struct hist *h;
	enum { WIDE = 3000 };

	CHECK(fixture__init(&fx));
	CHECK_INT(hist__parse_sort(&o, "sym", &bad), 0);
	CHECK(h = hist__new(&o));
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < WIDE; i++) {
			struct session_frame caller = fx.nomap;

			caller.ip = 0x100000 + 16 * (uint64_t)i;
			CHECK_INT(add(&fx, h, (const struct session_frame *[]){ &fx.kern, &caller }, 2), 0);
		}
		/* another entry, heavier: do_thing's moves to the second place when sorted */
		for (int i = 0; i < 2 * WIDE; i++)
			CHECK_INT(add(&fx, h, (const struct session_frame *[]){ &fx.user, &fx.nomap }, 2), 0);
		if (round)
			hist__sort(h);
	}
	hist__sort(h);
	CHECK_INT(hist__nr_entries(h), 2);
	const struct hist_entry *e = hist__entry(h, 1);
	const struct cc_node *c;
	size_t n = 0;
	bool each = true;

	CHECK_STR(e->sym ? e->sym : "-", "do_thing");
	c = e->cc;
	CHECK(c && !c->next && c->hits == 3 * WIDE * fx.s.period);
	for (c = c ? c->child : NULL; c; c = c->next, n++)
		each &= !c->name && c->hits == 3 * fx.s.period && !c->child;
	CHECK_INT(n, WIDE);
	CHECK(each);
	c = hist__entry(h, 0)->cc;
	CHECK(c && !c->next && c->child && !c->child->next && c->child->hits == 6 * WIDE * fx.s.period);
	hist__free(h);
	symbolizer__free(fx.sym);
}

/* perf's --comms, --pid, --tid: exact names, ids as numbers */
TEST(session_filter)
{
	struct session_filter none = { 0 }, sh = { .comms = "sh" }, two = { .comms = "bash,sh", .pids = "12,34" },
			      tid = { .tids = "7" };

	CHECK(session_filter__match(&none, "bash", 1, 1));
	CHECK(session_filter__match(&sh, "sh", 1, 1));
	CHECK(!session_filter__match(&sh, "bash", 1, 1));
	CHECK(!session_filter__match(&sh, "s", 1, 1));
	CHECK(!session_filter__match(&sh, "", 1, 1));
	CHECK(session_filter__match(&two, "bash", 34, 35));
	CHECK(session_filter__match(&two, "sh", 12, 12));
	CHECK(!session_filter__match(&two, "sh", 1, 12));
	CHECK(!session_filter__match(&two, "ba", 12, 12));
	CHECK(session_filter__match(&tid, "x", 1, 7));
	CHECK(!session_filter__match(&tid, "x", 7, 70));
	tid.syms = "main,hot_loop";
	CHECK(session_filter__match_sym(&tid, "hot_loop"));
	CHECK(!session_filter__match_sym(&tid, "hot"));
	CHECK(!session_filter__match_sym(&tid, NULL));
	CHECK(session_filter__match_sym(&none, NULL));
}

