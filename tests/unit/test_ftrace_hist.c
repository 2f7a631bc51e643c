// SPDX-License-Identifier: GPL-2.0
/*
 * test_ftrace_hist.c - lib/tracefs/hist.h: the hist trigger spec as the kernel
 * reads it, and the hist file's text as the kernel (6.1, in the test VM) writes
 * it: each kind of key's width, .log2 buckets merged, the sort, the totals.
 */
#include "unit.h"
#include "lib/tracefs/hist.h"
#include "lib/tracefs/ftrace.h"

#include <errno.h>
#include <unistd.h>

#include <stdlib.h>
#include <string.h>

static char *print(const struct hist_spec *h, struct hist_entry *e, size_t n, uint64_t hits,
		   const struct hist_names *nm)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out || hist__print(h, e, n, hits, 0, nm, out))
		abort();
	fclose(out);
	return buf;
}

TEST(hist_spec_parse)
{
	struct hist_spec h;
	char err[256], info[512];

	CHECK_INT(hist_spec__parse("hist:key=common_pid.execname,count:values=count,hitcount:sort=count.descending"
				   ":size=100 if fd == 1", &h, err, sizeof(err)), 0);
	CHECK_INT(h.nkeys, 2);
	CHECK_INT(h.keys[0].mods, HIST_EXECNAME);
	CHECK_INT(h.nvals, 1);
	CHECK_INT(h.sort[0].idx, 1);
	CHECK(h.sort[0].descending);
	CHECK_INT(h.size, 128);
	CHECK_STR(h.filter, "fd == 1");
	hist_spec__info(&h, info, sizeof(info));
	CHECK_STR(info, "hist:keys=common_pid.execname,count:vals=hitcount,count:sort=count.descending:size=128 if fd == 1");
	CHECK_INT(hist_spec__parse("keys=a:sort=a", &h, err, sizeof(err)), 0);
	CHECK_INT(h.sort[0].idx, -1);
	CHECK_INT(hist_spec__parse("vals=a", &h, err, sizeof(err)), -1);
	CHECK_STR(err, "hist: no keys= (keys=FIELD[.MOD],...)");
	CHECK_INT(hist_spec__parse("keys=a.execname", &h, err, sizeof(err)), -1);
	CHECK_INT(hist_spec__parse("keys=a:vals=b.log2", &h, err, sizeof(err)), -1);
	CHECK_INT(hist_spec__parse("keys=a:sort=b", &h, err, sizeof(err)), -1);
	CHECK_INT(hist_spec__parse("keys=a:size=0", &h, err, sizeof(err)), -1);
	CHECK_INT(hist_spec__parse("keys=a:bogus=1", &h, err, sizeof(err)), -1);
	CHECK_INT(hist_spec__parse("keys=a if ", &h, err, sizeof(err)), -1);
}

static const char *sc(uint64_t nr, void *arg)
{
	(void)arg;
	return nr == 110 ? "sys_getppid" : NULL;
}

static void sym(uint64_t addr, bool off, char *buf, size_t len, void *arg)
{
	(void)arg;
	snprintf(buf, len, off ? "kmalloc_trace+0x%llx" : "kmalloc_trace", (unsigned long long)(addr & 0xf));
}

TEST(hist_print_kernel_text)
{
	struct hist_spec h;
	char err[256], *s;
	struct hist_entry e[3] = {
		{ .key = { 179, 1 }, .comm = "syscalls", .hits = 300, .vals = { 300 } },
		{ .key = { 180, 1 }, .comm = "syscalls", .hits = 7, .vals = { 7 } },
	};
	struct hist_names nm = { sym, sc, NULL };

	CHECK_INT(hist_spec__parse("keys=common_pid.execname,count:vals=count", &h, err, sizeof(err)), 0);
	s = print(&h, e, 2, 307, &nm);
	/* the VM kernel's own text for this spec (tests/vm/t0814), pids aside */
	CHECK_STR(s, "# event histogram\n#\n"
		  "# trigger info: hist:keys=common_pid.execname,count:vals=hitcount,count:sort=hitcount:size=2048 [active]\n"
		  "#\n\n"
		  "{ common_pid: syscalls        [       180], count:          1 } hitcount:          7  count:          7\n"
		  "{ common_pid: syscalls        [       179], count:          1 } hitcount:        300  count:        300\n"
		  "\nTotals:\n    Hits: 307\n    Entries: 2\n    Dropped: 0\n");
	free(s);

	/* .log2: 100 and 128 are one bucket (2^7), 1000 the next but two (2^10) */
	struct hist_entry l[3] = {
		{ .key = { 100 }, .hits = 5, .vals = { 500 } },
		{ .key = { 1000 }, .hits = 3, .vals = { 3000 } },
		{ .key = { 128 }, .hits = 1, .vals = { 128 } },
	};
	CHECK_INT(hist_spec__parse("keys=count.log2:vals=count.hex:sort=count.descending", &h, err, sizeof(err)), 0);
	s = print(&h, l, 3, 9, &nm);
	CHECK(strstr(s, "\n{ count: ~ 2^10 } hitcount:          3  count:        bb8\n"
		     "{ count: ~ 2^7  } hitcount:          6  count:        274\n\nTotals:\n    Hits: 9\n    Entries: 2\n"));
	free(s);

	struct hist_entry y[1] = { { .key = { 110, 0xffffffff81234567ULL, 0x2a }, .hits = 50 } };
	CHECK_INT(hist_spec__parse("keys=id.syscall,call_site.sym,ptr.hex", &h, err, sizeof(err)), 0);
	s = print(&h, y, 1, 50, &nm);
	CHECK(strstr(s, "\n{ id: sys_getppid                   [110], call_site: [ffffffff81234567] kmalloc_trace"
		     "                                , ptr: 2a } hitcount:         50\n"));
	free(s);

	char name[] = "/bin/true";
	struct hist_entry t[1] = { { .str = { name }, .hits = 2 } };
	CHECK_INT(hist_spec__parse("keys=filename", &h, err, sizeof(err)), 0);
	s = print(&h, t, 1, 2, NULL);
	CHECK(strstr(s, "\n{ filename: /bin/true                                          } hitcount:          2\n"));
	free(s);
}

/* ---- latency tracers, in a directory of plain files standing for tracefs ---- */

static void put_file(const char *dir, const char *name, const char *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(s, f);
	fclose(f);
}

static char *get_file(const char *dir, const char *name, char *buf, size_t len)
{
	char path[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		abort();
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

TEST(ftrace_latency_saves_and_restores)
{
	char dir[] = "/tmp/sonde-unit-lat.XXXXXX", err[512], buf[256], *trace = NULL;
	struct ftrace_latency lt;
	unsigned long long max = 0;

	CHECK(mkdtemp(dir));
	put_file(dir, "available_tracers", "blk nop\n");
	put_file(dir, "current_tracer", "nop\n");
	put_file(dir, "tracing_max_latency", "17\n");
	put_file(dir, "tracing_thresh", "5\n");
	put_file(dir, "tracing_on", "1\n");
	put_file(dir, "trace", "# tracer: wakeup_rt\n");
	/* a kernel without it: the CONFIG_ option and what it has, nothing touched */
	CHECK_INT(ftrace__latency_start_at(&lt, dir, false, "wakeup_rt", 0, err, sizeof(err)), -ENODEV);
	CHECK_STR(err, "this kernel has no wakeup_rt tracer (CONFIG_SCHED_TRACER is off; available_tracers: blk nop)");
	CHECK_INT(ftrace__latency_start_at(&lt, dir, false, "function", 0, err, sizeof(err)), -EINVAL);
	put_file(dir, "available_tracers", "wakeup wakeup_rt blk nop\n");
	put_file(dir, "current_tracer", "blk\n");
	CHECK_INT(ftrace__latency_start_at(&lt, dir, false, "wakeup_rt", 0, err, sizeof(err)), -EBUSY);
	CHECK_STR(get_file(dir, "current_tracer", buf, sizeof(buf)), "blk\n");
	put_file(dir, "current_tracer", "nop\n");
	/* started: the tracer on, the max reset, the threshold set */
	CHECK_INT(ftrace__latency_start_at(&lt, dir, false, "wakeup_rt", 100, err, sizeof(err)), 0);
	CHECK_STR(get_file(dir, "current_tracer", buf, sizeof(buf)), "wakeup_rt");
	CHECK_STR(get_file(dir, "tracing_thresh", buf, sizeof(buf)), "100");
	CHECK_STR(get_file(dir, "tracing_max_latency", buf, sizeof(buf)), "0");
	CHECK_STR(get_file(dir, "tracing_on", buf, sizeof(buf)), "1");
	put_file(dir, "tracing_max_latency", "42\n");
	CHECK_INT(ftrace__latency_result(&lt, &max, &trace), 0);
	CHECK_INT(max, 42);
	CHECK_STR(trace, "# tracer: wakeup_rt\n");
	free(trace);
	/* stopped: all four as they were */
	ftrace__latency_stop(&lt);
	ftrace__latency_stop(&lt);
	CHECK_STR(get_file(dir, "current_tracer", buf, sizeof(buf)), "nop");
	CHECK_STR(get_file(dir, "tracing_thresh", buf, sizeof(buf)), "5");
	CHECK_STR(get_file(dir, "tracing_max_latency", buf, sizeof(buf)), "17");
	CHECK_STR(get_file(dir, "tracing_on", buf, sizeof(buf)), "1");
	for (const char *f = "available_tracers\0current_tracer\0tracing_max_latency\0tracing_thresh\0tracing_on\0trace\0";
	     *f; f += strlen(f) + 1) {
		snprintf(buf, sizeof(buf), "%s/%s", dir, f);
		unlink(buf);
	}
	rmdir(dir);
}
