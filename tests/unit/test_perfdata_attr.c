// SPDX-License-Identifier: GPL-2.0
/*
 * test_perfdata_attr.c - the exact perf_event_attr `sonde record` asks for, per
 * option (perf's attr tests do the same): checked without opening anything, so
 * the PMU paths (lbr) are covered on machines without one.
 */
#include "unit.h"
#include "lib/event/event.h"
#include "lib/event/sampler.h"

#include <string.h>

static void setup(struct evlist *l, const char *events, struct target *t, struct sampler_config *c)
{
	char err[256];

	memset(l, 0, sizeof(*l));
	memset(t, 0, sizeof(*t));
	memset(c, 0, sizeof(*c));
	evlist__parse(l, events, err, sizeof(err));
	c->freq = 99;
	c->mmap_pages = 256;
}

TEST(record_attr_default_command)
{
	struct evlist l;
	struct target t;
	struct sampler_config c;

	setup(&l, "cpu-clock", &t, &c);
	CHECK_INT(l.nr, 1);
	t.child = 1234;
	sampler__config_attrs(&l, &t, &c);
	const struct perf_event_attr *a = &l.ev[0].attr;
	CHECK_INT(a->sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD);
	CHECK(a->freq && a->sample_freq == 99);
	CHECK(a->disabled && a->enable_on_exec && a->inherit);
	CHECK(a->mmap && a->mmap2 && a->comm && a->comm_exec && a->task && a->sample_id_all);
	CHECK(!a->mmap_data);
	evlist__free(&l);
}

TEST(record_attr_callgraphs)
{
	struct evlist l;
	struct target t;
	struct sampler_config c;
	const struct perf_event_attr *a;

	setup(&l, "cpu-clock", &t, &c);
	c.callgraph = CALLGRAPH_FP;
	sampler__config_attrs(&l, &t, &c);
	a = &l.ev[0].attr;
	CHECK(a->sample_type & PERF_SAMPLE_CALLCHAIN);
	CHECK(!(a->sample_type & PERF_SAMPLE_STACK_USER));
	evlist__free(&l);

	setup(&l, "cpu-clock", &t, &c);
	c.callgraph = CALLGRAPH_DWARF;
	c.stack_size = 4096;
	sampler__config_attrs(&l, &t, &c);
	a = &l.ev[0].attr;
	CHECK((a->sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) ==
	      (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER));
	CHECK_INT(a->sample_stack_user, 4096);
#if defined(__x86_64__)
	CHECK_INT(a->sample_regs_user, 0xff0fff);	/* perf's mask: all but the segment registers */
#endif
	CHECK(a->exclude_callchain_user && a->mmap_data);
	evlist__free(&l);

	setup(&l, "cycles", &t, &c);
	c.callgraph = CALLGRAPH_LBR;
	sampler__config_attrs(&l, &t, &c);
	a = &l.ev[0].attr;
	CHECK(a->sample_type & PERF_SAMPLE_BRANCH_STACK);
	CHECK(a->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK);
	CHECK(a->branch_sample_type & PERF_SAMPLE_BRANCH_USER);
	CHECK(a->exclude_callchain_user);
	evlist__free(&l);
}

TEST(record_attr_period_system_wide_tracepoints)
{
	struct evlist l;
	struct target t;
	struct sampler_config c;
	const struct perf_event_attr *a;

	setup(&l, "cpu-clock", &t, &c);
	c.period = 100000;
	t.system_wide = true;
	sampler__config_attrs(&l, &t, &c);
	a = &l.ev[0].attr;
	CHECK(!a->freq && a->sample_period == 100000);
	CHECK(a->sample_type & PERF_SAMPLE_CPU);
	CHECK(!a->inherit && !a->enable_on_exec);
	evlist__free(&l);

	/* two events, one a tracepoint: ids to tell them apart, tracking once, every hit sampled */
	setup(&l, "cpu-clock,sched:sched_switch", &t, &c);
	if (l.nr != 2) {	/* no tracefs here */
		evlist__free(&l);
		return;
	}
	t.child = 1;
	sampler__config_attrs(&l, &t, &c);
	for (int e = 0; e < 2; e++) {
		a = &l.ev[e].attr;
		CHECK(a->sample_type & PERF_SAMPLE_IDENTIFIER);
		CHECK(a->sample_type & PERF_SAMPLE_CPU);	/* the same sample_id layout for both */
		CHECK_INT(a->read_format, PERF_FORMAT_ID);
		CHECK_INT(a->mmap, e == 0);
		CHECK_INT(a->task, e == 0);
	}
	a = &l.ev[1].attr;
	CHECK(!a->freq && a->sample_period == 1);
	CHECK(a->sample_type & PERF_SAMPLE_RAW);
	CHECK(!(l.ev[0].attr.sample_type & PERF_SAMPLE_RAW));
	evlist__free(&l);
}
