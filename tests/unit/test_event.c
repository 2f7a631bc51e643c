// SPDX-License-Identifier: GPL-2.0
/*
 * test_event.c - the perf_event_attr built for each event name (perf's attr
 * tests in spirit): checks the hardware paths this PMU-less machine cannot run.
 */
#include "unit.h"
#include "lib/event/event.h"

static struct evlist parse_ok(const char *spec, int *rc)
{
	struct evlist l = { 0 };
	char err[256] = "";

	*rc = evlist__parse(&l, spec, err, sizeof(err));
	if (*rc)
		printf("   (parse '%s': %s)\n", spec, err);
	return l;
}

static const struct {
	const char *name;
	unsigned type;
	unsigned long long config;
} attr_cases[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	/* cache events: cache | op << 8 | result << 16 (include/uapi/linux/perf_event.h) */
	{ "L1-dcache-loads", PERF_TYPE_HW_CACHE, 0x00000 },
	{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000 },
	{ "L1-dcache-stores", PERF_TYPE_HW_CACHE, 0x00100 },
	{ "L1-dcache-store-misses", PERF_TYPE_HW_CACHE, 0x10100 },
	{ "L1-dcache-prefetches", PERF_TYPE_HW_CACHE, 0x00200 },
	{ "L1-icache-load-misses", PERF_TYPE_HW_CACHE, 0x10001 },
	{ "LLC-loads", PERF_TYPE_HW_CACHE, 0x00002 },
	{ "LLC-load-misses", PERF_TYPE_HW_CACHE, 0x10002 },
	{ "LLC-store-misses", PERF_TYPE_HW_CACHE, 0x10102 },
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, 0x10003 },
	{ "iTLB-load-misses", PERF_TYPE_HW_CACHE, 0x10004 },
	{ "branch-loads", PERF_TYPE_HW_CACHE, 0x00005 },
	{ "branch-load-misses", PERF_TYPE_HW_CACHE, 0x10005 },
	{ "node-loads", PERF_TYPE_HW_CACHE, 0x00006 },
	{ "node-load-misses", PERF_TYPE_HW_CACHE, 0x10006 },
	{ "r01c4", PERF_TYPE_RAW, 0x1c4 },
	{ "r412e", PERF_TYPE_RAW, 0x412e },
};

TEST(event_attr_for_every_name)
{
	for (size_t i = 0; i < sizeof(attr_cases) / sizeof(attr_cases[0]); i++) {
		int rc;
		struct evlist l = parse_ok(attr_cases[i].name, &rc);

		CHECK_INT(rc, 0);
		CHECK_INT(l.nr, 1);
		CHECK_STR(l.ev[0].name, attr_cases[i].name);
		if (l.ev[0].attr.type != attr_cases[i].type || l.ev[0].attr.config != attr_cases[i].config) {
			unit__fail(__FILE__, __LINE__, "%s: type %u config %#llx, expected %u %#llx",
				   attr_cases[i].name, l.ev[0].attr.type, (unsigned long long)l.ev[0].attr.config,
				   attr_cases[i].type, attr_cases[i].config);
			evlist__free(&l);
			return;
		}
		CHECK_INT(l.ev[0].attr.exclude_kernel, 0);
		CHECK_INT(l.ev[0].attr.exclude_user, 0);
		evlist__free(&l);
	}
}

TEST(event_modifiers)
{
	int rc;
	struct evlist l = parse_ok("cycles:u,instructions:k,branches:uk,task-clock:ppp,cycles:H", &rc);

	CHECK_INT(rc, 0);
	CHECK_INT(l.nr, 5);
	CHECK_STR(l.ev[0].name, "cycles:u");
	CHECK_INT(l.ev[0].attr.exclude_user, 0);
	CHECK_INT(l.ev[0].attr.exclude_kernel, 1);
	CHECK_INT(l.ev[0].attr.exclude_hv, 1);
	CHECK_INT(l.ev[1].attr.exclude_user, 1);
	CHECK_INT(l.ev[1].attr.exclude_kernel, 0);
	CHECK_INT(l.ev[2].attr.exclude_user, 0);
	CHECK_INT(l.ev[2].attr.exclude_kernel, 0);
	CHECK_INT(l.ev[3].attr.precise_ip, 3);
	CHECK_INT(l.ev[4].attr.exclude_guest, 1);
	evlist__free(&l);
}

TEST(event_groups)
{
	int rc;
	struct evlist l = parse_ok("{cycles,instructions}:u,page-faults,{task-clock,cs}", &rc);

	CHECK_INT(rc, 0);
	CHECK_INT(l.nr, 5);
	CHECK_INT(l.ev[0].leader, 0);
	CHECK_INT(l.ev[1].leader, 0);
	CHECK_STR(l.ev[1].name, "instructions:u");
	CHECK_INT(l.ev[1].attr.exclude_kernel, 1);
	CHECK_INT(l.ev[2].leader, -1);
	CHECK_INT(l.ev[3].leader, 3);
	CHECK_INT(l.ev[4].leader, 3);
	evlist__free(&l);
}

TEST(event_clock_units)
{
	int rc;
	struct evlist l = parse_ok("task-clock,cpu-clock,page-faults", &rc);

	CHECK_INT(rc, 0);
	CHECK_STR(l.ev[0].unit, "msec");
	CHECK_STR(l.ev[1].unit, "msec");
	CHECK_STR(l.ev[2].unit, "");
	CHECK(l.ev[0].scale < 1e-5 && l.ev[0].scale > 1e-7);
	evlist__free(&l);
}

TEST(event_default_set_is_perfs)
{
	struct evlist l = { 0 };
	static const char *const want[] = { "task-clock", "context-switches", "cpu-migrations", "page-faults",
					    "cycles", "instructions", "branches", "branch-misses" };

	CHECK_INT(evlist__add_default(&l, false), 0);
	CHECK_INT(l.nr, 8);
	for (int i = 0; i < 8; i++)
		CHECK_STR(l.ev[i].name, want[i]);
	evlist__free(&l);
	CHECK_INT(evlist__add_default(&l, true), 0);
	CHECK_STR(l.ev[0].name, "cpu-clock");
	evlist__free(&l);
}

static void expect_error(const char *spec, const char *needle)
{
	struct evlist l = { 0 };
	char err[256] = "";
	int rc = evlist__parse(&l, spec, err, sizeof(err));

	if (rc == 0 || !strstr(err, needle))
		unit__fail(__FILE__, __LINE__, "'%s': rc %d, error '%s', expected it to contain '%s'", spec, rc, err, needle);
	evlist__free(&l);
}

TEST(event_errors_say_what_and_suggest)
{
	expect_error("task-clok", "did you mean 'task-clock'");
	expect_error("cylces", "did you mean 'cycles'");
	expect_error("L1-dcache-load-mises", "did you mean 'L1-dcache-load-misses'");
	expect_error("zzzzzzzzzzzz", "unknown event 'zzzzzzzzzzzz'");
	expect_error("cycles,,page-faults", "empty event name");
	expect_error("cycles,", "empty event name");
	expect_error("", "empty");
	expect_error("{cycles,instructions", "'{' without '}'");
	expect_error("cycles}", "'}' without '{'");
	expect_error("cycles:q", "unknown modifier");
	expect_error("L1-icache-stores", "unknown event");
	expect_error("nosuchgroup_xyz:nosuchevent", "unknown tracepoint");
	expect_error("sched:", "tracepoint name is missing");
	expect_error("nosuchpmu/config=1/", "no PMU named 'nosuchpmu'");
	expect_error("../../etc:passwd", "event '../../etc:passwd'");
	expect_error("..:..", "unknown tracepoint");
	expect_error("cycles:", "modifier is missing");
}
