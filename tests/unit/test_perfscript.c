// SPDX-License-Identifier: GPL-2.0
/* test_perfscript.c - the perf script text parser on the header shapes perf prints */
#include "unit.h"
#include "lib/perfdata/perfscript.h"

#include <stdlib.h>

struct got {
	char comm[64], pid[16], tid[16], event[64], period[32], f0[64], d0[64];
	size_t frames, samples;
	unsigned long warns;
};

static int take(const struct ps_sample *s, void *arg)
{
	struct got *g = arg;

	if (!g->samples++) {
		snprintf(g->comm, sizeof(g->comm), "%s", s->comm);
		snprintf(g->pid, sizeof(g->pid), "%s", s->pid);
		snprintf(g->tid, sizeof(g->tid), "%s", s->tid);
		snprintf(g->event, sizeof(g->event), "%s", s->event);
		snprintf(g->period, sizeof(g->period), "%s", s->period);
		g->frames = s->nr_frames;
		if (s->nr_frames) {
			snprintf(g->f0, sizeof(g->f0), "%s", s->frames[0].func);
			snprintf(g->d0, sizeof(g->d0), "%s", s->frames[0].dso);
		}
	}
	return 0;
}

static void warn(unsigned long line, const char *why, void *arg)
{
	(void)line;
	(void)why;
	((struct got *)arg)->warns++;
}

static struct got parse(const char *text)
{
	struct got g = { 0 };
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	perfscript__read(f, take, warn, &g);
	fclose(f);
	return g;
}

TEST(perfscript_default_header)
{
	struct got g = parse("demo 27346  1093.270987:    1001001 cpu-clock:ppp: \n"
			     "\t            11e2 spin+0x29 (/srv/app/demo)\n"
			     "\t           2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n");

	CHECK_INT(g.samples, 1);
	CHECK_STR(g.comm, "demo");
	CHECK_STR(g.pid, "?");
	CHECK_STR(g.tid, "27346");
	CHECK_STR(g.event, "cpu-clock:ppp");
	CHECK_STR(g.period, "1001001");
	CHECK_INT(g.frames, 2);
	CHECK_STR(g.f0, "spin+0x29");
	CHECK_STR(g.d0, "/srv/app/demo");
	CHECK_INT(g.warns, 0);
}

TEST(perfscript_comm_with_spaces_pid_tid_cpu)
{
	struct got g = parse("V8 WorkerThread 24636/25607 [000] 94564.109216: 100 cycles:\n"
			     "\tffffffff8103ce3b native_safe_halt ([kernel.kallsyms])\n");

	CHECK_STR(g.comm, "V8 WorkerThread");
	CHECK_STR(g.pid, "24636");
	CHECK_STR(g.tid, "25607");
	CHECK_STR(g.event, "cycles");
	CHECK_STR(g.period, "100");
	CHECK_STR(g.d0, "[kernel.kallsyms]");
}

TEST(perfscript_samples_without_blank_lines_and_garbage)
{
	struct got g = parse("a 1 1.0: 5 ev:\n\t1 f (d)\nb 2 2.0: 5 ev:\n\t2 g (e)\nnot a header\n\tbad frame\n");

	CHECK_INT(g.samples, 2);
	CHECK_INT(g.warns, 2);
}

TEST(perfscript_old_layouts_and_perl_frames)
{
	/* no time: no event; frames unindented; a function with spaces and parentheses; none at all */
	struct got g = parse("java 19983 cycles:\n"
			     "7f01 ns::f(int, char) const (/opt/lib x.so) trailing\n"
			     "\t7f02  (/lib/libc.so.6)\n\n");

	CHECK_INT(g.samples, 1);
	CHECK_STR(g.pid, "?");
	CHECK_STR(g.tid, "19983");
	CHECK_STR(g.event, "");
	CHECK_STR(g.period, "");
	CHECK_INT(g.frames, 2);
	CHECK_STR(g.f0, "ns::f(int, char) const");
	CHECK_STR(g.d0, "/opt/lib x.so");
	CHECK_INT(g.warns, 0);
	g = parse("\t7f02  (/lib/libc.so.6)\n");
	CHECK_INT(g.warns, 1);	/* a frame before any header */
}

static int count_ended(const struct ps_sample *s, void *arg)
{
	*(int *)arg += s->ended ? 1 : 100;
	return 0;
}

TEST(perfscript_sample_cut_at_the_end_is_marked)
{
	const char *text = "a 1 1.0: 5 ev:\n\t1 f (d)\n\nb 2 2.0: 5 ev:\n\t2 g (e)\n";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int n = 0;

	perfscript__read(f, count_ended, NULL, &n);
	fclose(f);
	CHECK_INT(n, 101);
}
