// SPDX-License-Identifier: GPL-2.0
/*
 * test_collapse_bpftrace.c - bpftrace's printed maps folded as
 * stackcollapse-bpftrace.pl folds them (issue 13): key shapes, offsets,
 * several maps, broken entries, and telling bpftrace's output from the rest.
 */
#include "unit.h"
#include "lib/profile/collapse.h"

#include <errno.h>
#include <stdlib.h>

struct out {
	char *text;		/* folded output, sorted */
	struct collapse_stats st;
	int rc;
	unsigned long warns, first_line;
	char first_why[256];
};

static void warn(unsigned long line, const char *why, void *arg)
{
	struct out *o = arg;

	if (!o->warns++) {
		o->first_line = line;
		snprintf(o->first_why, sizeof(o->first_why), "%s", why);
	}
}

static struct out fold_with(const char *text, const struct collapse_opts *opts)
{
	struct out o = { 0 };
	struct folded *f = folded__new(0);
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	size_t n;
	FILE *w = open_memstream(&o.text, &n);

	o.rc = collapse__bpftrace(f, in, opts, FOLDED_AFTER, warn, &o, &o.st);
	folded__finish(f);
	folded__write(f, w, 0);
	fclose(w);
	fclose(in);
	folded__free(f);
	return o;
}

static struct out fold(const char *text)
{
	struct collapse_opts opts = { 0 };

	return fold_with(text, &opts);
}

static const char ustack_map[] =
	"Attaching 2 probes...\n"
	"\n\n"
	"@[\n"
	"    func_c+20\n"
	"    func_b+9\n"
	"    main+30\n"
	"]: 123\n"
	"@[\n"
	"    func_c+24\n"
	"    func_b+9\n"
	"    main+30\n"
	"]: 7\n"
	"@[\n"
	"    func_b+12\n"
	"    main+30\n"
	"]: 5\n";

TEST(bt_ustack_root_first_offsets_stripped)
{
	struct out o = fold(ustack_map);

	CHECK_INT(o.rc, 0);
	CHECK_STR(o.text, "main;func_b 5\nmain;func_b;func_c 130\n");
	CHECK_STR(o.st.event, "@");
	CHECK_INT(o.st.kept, 3);
	CHECK_INT(o.warns, 0);
	free(o.text);
}

TEST(bt_offsets_kept_as_the_script_prints)
{
	struct collapse_opts opts = { .offsets = true };
	struct out o = fold_with(ustack_map, &opts);

	CHECK_STR(o.text, "main+30;func_b+12 5\nmain+30;func_b+9;func_c+20 123\nmain+30;func_b+9;func_c+24 7\n");
	free(o.text);
}

TEST(bt_comm_and_pid_keys_come_first)
{
	struct out o = fold("@c[bash, \n    readline+4\n    main+1\n]: 3\n"
			    "@c[sh, \n    main+1\n]: 2\n");

	CHECK_STR(o.text, "bash;main;readline 3\nsh;main 2\n");
	CHECK_STR(o.st.event, "@c");
	free(o.text);
	/* a scalar after the stack ends the key: ", 16466]: 1" */
	o = fold("@u[\n    chain_c+46\n    chain_b+9\n, 16466]: 4\n");
	CHECK_STR(o.text, "16466;chain_b;chain_c 4\n");
	free(o.text);
	/* several scalars, then a stack */
	o = fold("@[sh, 12, \n    main+1\n]: 2\n");
	CHECK_STR(o.text, "sh;12;main 2\n");
	free(o.text);
}

TEST(bt_kstack_ustack_one_stack_user_first)
{
	struct out o = fold("@ku[\n"
			    "    perf_syscall_enter+397\n"
			    "    do_syscall_64+506\n"
			    "    entry_SYSCALL_64_after_hwframe+118\n"
			    ", \n"
			    "    write+23\n"
			    "    main+9\n"
			    "]: 2000\n");

	CHECK_STR(o.text, "main;write;entry_SYSCALL_64_after_hwframe;do_syscall_64;perf_syscall_enter 2000\n");
	free(o.text);
	/* an empty kstack (user space) prints as nothing: "@ku[, " */
	o = fold("@ku[, \n    chain_c+46\n    main+117\n]: 1\n");
	CHECK_STR(o.text, "main;chain_c 1\n");
	free(o.text);
	/* @[kstack, comm] with an empty kstack is one line, as the script takes it */
	o = fold("@[, symchain]: 5\n");
	CHECK_STR(o.text, "symchain 5\n");
	free(o.text);
}

TEST(bt_perf_and_raw_stacks)
{
	struct collapse_opts opts = { .offsets = true };
	const char *perf = "@a[\n"
			   "\t564d468231d2 chain_c+49 (/srv/symchain)\n"
			   "\t564d4682321a chain_b+9 (/srv/symchain)\n"
			   "\t7f3e1c02724a [unknown] ([unknown])\n"
			   "]: 23\n";
	struct out o = fold(perf);

	CHECK_STR(o.text, "[unknown];chain_b;chain_c 23\n");
	free(o.text);
	o = fold_with(perf, &opts);
	CHECK_STR(o.text, "7f3e1c02724a [unknown] ([unknown]);564d4682321a chain_b+9 (/srv/symchain);"
			  "564d468231d2 chain_c+49 (/srv/symchain) 23\n");
	free(o.text);
	/* ustack(raw): addresses, not indented */
	o = fold("@b[\n564d468231d2\n564d4682321a\n]: 76\n");
	CHECK_STR(o.text, "564d4682321a;564d468231d2 76\n");
	free(o.text);
	/* C++ names keep their arguments; hex offsets go too; a ';' cannot split a frame */
	o = fold("@[\n    ns::f(int, long)+0x1c\n    operator+\n    a;b+3\n]: 1\n");
	CHECK_STR(o.text, "a:b;operator+;ns::f(int, long) 1\n");
	free(o.text);
}

TEST(bt_several_maps_first_or_chosen)
{
	const char *text = "Attaching 3 probes...\n"
			   "@bytes[bash]: 100\n"
			   "@k[\n    schedule+4\n]: 2\n"
			   "@u[\n    main+1\n]: 3\n"
			   "@k[\n    schedule+8\n    io+2\n]: 1\n"
			   "@total: 9\n";
	struct collapse_opts opts = { .map = "@u" };
	struct out o = fold(text);

	CHECK_STR(o.text, "io;schedule 1\nschedule 2\n");
	CHECK_STR(o.st.event, "@k");
	CHECK(o.st.other_events);
	CHECK_STR(o.st.other, "@u");
	free(o.text);
	o = fold_with(text, &opts);
	CHECK_STR(o.text, "main 3\n");
	CHECK_INT(o.st.kept, 1);
	free(o.text);
	/* only maps without a stack: nothing, no warning */
	o = fold("@bytes[bash]: 100\n@[1, 2]: 3\n");
	CHECK_STR(o.text, "");
	CHECK_STR(o.st.event, "");
	CHECK_INT(o.warns, 0);
	free(o.text);
}

TEST(bt_broken_entries_are_skipped_with_a_reason)
{
	/* a histogram, stats(), a negative sum: not counts */
	struct out o = fold("@h[\n    main+1\n]: \n[4, 8)   23 |@@@@@|\n\n"
			    "@h[\n    f+1\n    main+1\n]: 5\n");

	CHECK_STR(o.text, "main;f 5\n");
	CHECK_INT(o.st.skipped, 1);
	CHECK_INT(o.first_line, 1);
	CHECK_STR(o.first_why, "@h: the value is not a count (a histogram?)");
	free(o.text);
	o = fold("@s[\n    main+1\n]: count 76, average 5, total 380\n@s[\n    main+1\n]: -5\n");
	CHECK_STR(o.text, "");
	CHECK_INT(o.st.skipped, 2);
	CHECK_STR(o.first_why, "@s: the value is not a count: 'count 76, average 5, total 380'");
	free(o.text);
	/* cut short: at the end, before a new entry, by a blank line */
	o = fold("@[\n    main+1\n]: 2\n@[\n    f+1\n");
	CHECK_STR(o.text, "main 2\n");
	CHECK_STR(o.first_why, "@: the input ends inside the entry");
	CHECK_INT(o.first_line, 4);
	free(o.text);
	o = fold("@[\n    f+1\n@[\n    main+1\n]: 2\n@[\n    g+1\n\n    h+1\n]: 3\n");
	CHECK_STR(o.text, "main 2\n");
	CHECK_INT(o.st.skipped, 2);
	CHECK_STR(o.first_why, "@: the entry has no end (\"]: COUNT\")");
	free(o.text);
	/* counts to 2^64-1, no further */
	o = fold("@[\n    a+1\n]: 18446744073709551615\n@[\n    b+1\n]: 1\n@[\n    c+1\n]: 18446744073709551616\n");
	CHECK_STR(o.text, "a 18446744073709551615\n");
	CHECK_INT(o.st.skipped, 2);
	CHECK_STR(o.first_why, "@: the counts add up to more than 2^64-1");
	free(o.text);
	/* more than 65536 frames: left out, the next entry folded */
	{
		size_t n = 70000 * 8 + 64;
		char *big = malloc(n), *p = big;

		p += sprintf(p, "@[\n");
		for (int i = 0; i < 70000; i++)
			p += sprintf(p, "    f+%d\n", i % 10);
		sprintf(p, "]: 1\n@[\n    main+1\n]: 2\n");
		o = fold(big);
		CHECK_STR(o.text, "main 2\n");
		CHECK_STR(o.first_why, "@: an entry of more than 65536 frames or 16 MiB");
		free(o.text);
		free(big);
	}
	/* binary input */
	{
		static const char bin[] = "@[\n\0]: 1\n";
		struct folded *f = folded__new(0);
		FILE *in = fmemopen((void *)bin, sizeof(bin), "r");
		struct collapse_opts opts = { 0 };
		struct collapse_stats st;

		CHECK_INT(collapse__bpftrace(f, in, &opts, FOLDED_AFTER, NULL, NULL, &st), -EILSEQ);
		fclose(in);
		folded__free(f);
	}
}

TEST(bt_is_bpftrace)
{
#define IS(s, whole) collapse__is_bpftrace(s, strlen(s), whole)
	CHECK(IS("Attaching 1 probe...\n", true));
	CHECK(IS("Attaching 12 probes...\n\n\n@[\n", true));
	CHECK(IS("Tracing... Hit Ctrl-C.\n@[\n    main+1\n]: 1\n", true));
	CHECK(IS("@c[bash, \n", true));
	CHECK(IS("@bytes[bash]: 100\n", true));
	CHECK(!IS("Tracing...\nAttaching 1 probe...\n", true));
	CHECK(!IS("main;f 5\n", true));
	CHECK(!IS("@x;f 5\n", true));
	CHECK(!IS("demo 27346  1093.270987:    1001001 cpu-clock:ppp: \n"
		  "\t            11e2 spin+0x29 (/srv/app/demo)\n", true));
	CHECK(!IS("", true));
	/* a line cut by the end of the head is not judged */
	CHECK(!IS("main;f 5\n@[", false));
	CHECK(IS("main;f 5\n@[", true));
#undef IS
}

TEST(bt_sniff_reads_it_all_again)
{
	size_t n = 200000;
	char *big = malloc(n + 1), *got = NULL;
	FILE *in, *r;
	bool bt = true;
	size_t cap = 0, total = 0;
	ssize_t len;

	for (size_t i = 0; i < n; i++)
		big[i] = i % 10 == 9 ? '\n' : "main;f 5\n"[i % 10];
	big[n] = 0;
	in = fmemopen(big, n, "r");
	CHECK_INT(collapse__sniff(in, &bt, &r), 0);
	CHECK(!bt);
	while ((len = getline(&got, &cap, r)) > 0) {
		CHECK(!memcmp(got, big + total, len));
		total += len;
	}
	CHECK_INT(total, n);
	fclose(r);
	fclose(in);
	in = fmemopen((void *)ustack_map, strlen(ustack_map), "r");
	CHECK_INT(collapse__sniff(in, &bt, &r), 0);
	CHECK(bt);
	fclose(r);
	fclose(in);
	free(got);
	free(big);
}
