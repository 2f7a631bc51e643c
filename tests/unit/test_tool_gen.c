// SPDX-License-Identifier: GPL-2.0
/* test_tool_gen.c - BCC's trace and argdist specifiers as programs of sonde's language */
#include "unit.h"

#include "cmd/tool_gen.h"

#include <stdlib.h>
#include <string.h>

static char err[512];

/* trace's program for one probe and the options, or NULL */
static char *trace(const char *probe, const char *opt1)
{
	char *pos[] = { (char *)probe };
	const char *named[] = { opt1 };

	err[0] = 0;
	return tool_gen__trace(1, pos, named, opt1 ? 1 : 0, err, sizeof(err));
}

static char *argdist(const char *spec)
{
	const char *named[] = { spec };

	err[0] = 0;
	return tool_gen__argdist(named, 1, err, sizeof(err));
}

#define HAS(src, s) do { if (!(src) || !strstr((src), (s))) { \
	unit__fail(__FILE__, __LINE__, "no '%s' in:\n%s", (s), (src) ? (src) : err); free(src); return; } } while (0)

TEST(tool_gen_trace_probes)
{
	char *s = trace("p:c:write (arg1 == 1) \"writing %d bytes\", arg3", "pid=42");

	HAS(s, "\nuprobe:libc:write\n/pid == 42 && (arg0 == 1)/\n");
	HAS(s, "%-7d %-7d %-15s %-16s writing %d bytes\\n\",\n\t       pid, tid, comm, \"write\", (int32)(arg2));");
	HAS(s, "\"PID\", \"TID\", \"COMM\", \"FUNC\", \"-\");");
	free(s);
	s = trace("r:c:malloc (retval) \"ret=%lx %llu %-5hd\", retval, $tgid, $pid", "include-self");
	HAS(s, "\nuretprobe:libc:malloc\n/(retval)/\n");
	HAS(s, "ret=%lx %lu %-5d\\n\"");
	HAS(s, "(uint64)(retval), (uint64)(pid), (int16)(tid));");
	free(s);
	s = trace("t:sched:sched_switch \"%s %K\", args->next_comm, $task->mm", "max-events=3");
	HAS(s, "\ntracepoint:sched:sched_switch\n");
	HAS(s, "\"sched_switch\", str(args->next_comm, 80), ksym(curtask->mm));");
	HAS(s, "if (@events >= 3) { return; }");
	HAS(s, "if (@events == 3) { exit(); }");
	free(s);
	s = trace("do_sys_open", "time");	/* no format: the header's last column is empty */
	HAS(s, "\nkprobe:do_sys_open\n");
	HAS(s, "\"TIME\", \"PID\", \"TID\", \"COMM\", \"FUNC\", \"\");");
	HAS(s, "strftime(\"%H:%M:%S\", nsecs),\n\t       pid, tid, comm, \"do_sys_open\");");
	free(s);
	s = trace("p:/bin/x:f(const char *name, struct point *p, u32 n) (STRCMP(\"a\", name) && p->x > n) \"%s\", name",
		  NULL);
	HAS(s, "\nuprobe:/bin/x:f\n");
	HAS(s, "((str(((uint64)arg0)) == \"a\") && ((struct point *)arg1)->x > ((uint32)arg2))");
	HAS(s, "str(((uint64)arg0), 80)");
	free(s);
}

TEST(tool_gen_trace_errors)
{
	CHECK(!trace("c:write \"%d\"", NULL));
	CHECK(strstr(err, "1 specifiers and 0 arguments"));
	CHECK(!trace("c:write \"%q\", arg1", NULL));
	CHECK(strstr(err, "unrecognized format specifier"));
	CHECK(!trace("c:write (arg1 == 1", NULL));
	CHECK(strstr(err, "unmatched end of predicate"));
	CHECK(!trace("x:c:write", NULL));
	CHECK(strstr(err, "probe type must be"));
	CHECK(!trace("t:sched:sched_switch \"%d\", arg1", NULL));
	CHECK(strstr(err, "args->NAME"));
	CHECK(!trace("c:write \"%d\", $nope", NULL));
	CHECK(strstr(err, "unknown '$nope'"));
}

TEST(tool_gen_argdist_specifiers)
{
	char *s = argdist("count=p:c:malloc(size_t size):size_t:size:size==16");

	HAS(s, "\nuprobe:libc:malloc\n{\n\tif (((uint64)arg0)==16) {\n\t\t@c0[(uint64)(((uint64)arg0))] = count();");
	HAS(s, "printf(\"%s\\n\", \"p:c:malloc(size_t size):size_t:size:size==16\");");
	HAS(s, "printf(\"\\t%-10d size = %ld\\n\", $kv.1, $kv.0);");
	HAS(s, "interval:s:1\n{\n\ttime(\"[%H:%M:%S]\\n\");");
	free(s);
	s = argdist("histogram=r::__vfs_read(void *file, void *buf, size_t count):size_t:$entry(count):$latency > 1000");
	HAS(s, "\nkprobe:__vfs_read\n{\n\t@start0[tid] = nsecs;\n\t@entry0_count[tid] = (uint64)arg2;\n}");
	HAS(s, "\nkretprobe:__vfs_read\n/has_key(@start0, tid)/\n");
	HAS(s, "@h0 = hist((uint64)(@entry0_count[tid]));");
	HAS(s, "print_log2_hist(@h0, \"$entry(count)\");");
	free(s);
	s = argdist("count=t:irq:irq_handler_entry():int:args->irq#irqs");
	HAS(s, "@c0[(int32)(args->irq)] = count();");
	HAS(s, "printf(\"%s\\n\", \"irqs\");");
	free(s);
	CHECK(!argdist("count=p:c:malloc"));
	CHECK(strstr(err, "function signature 'malloc' has an invalid format"));
	CHECK(!argdist("histogram=p:c:malloc()"));
	CHECK(strstr(err, "histograms must have expr"));
	CHECK(!argdist("count=p:c:malloc(size_t size):size_t,int:size"));
	CHECK(strstr(err, "mismatched # of exprs and types"));
	CHECK(!argdist("count=p:c:malloc(size_t size):u64:$latency"));
	CHECK(strstr(err, "return probes"));
}

TEST(tool_gen_probe_heads_and_types)
{
	struct bcc_probe p;
	const char *end;
	char cast[64];
	bool str;

	CHECK(!bcc_probe__parse(&p, "r:/bin/x:f+0x10 rest", &end, err, sizeof(err)));
	CHECK_STR(p.attach, "uretprobe:/bin/x:f+0x10");
	CHECK_STR(p.func, "f");
	CHECK_STR(end, " rest");
	CHECK(!bcc_probe__parse(&p, "u:pthread:libpthread:create", &end, err, sizeof(err)));
	CHECK_STR(p.attach, "usdt:libpthread:libpthread:create");
	CHECK_STR(p.func, "libpthread:create");
	CHECK(!bcc_probe__parse(&p, "p::SyS_nanosleep(struct timespec *ts, int  flags)", &end, err, sizeof(err)));
	CHECK_STR(p.attach, "kprobe:SyS_nanosleep");
	CHECK_INT(p.nparams, 2);
	CHECK_STR(p.params[0].cast, "struct timespec *");
	CHECK_STR(p.params[1].name, "flags");
	CHECK_STR(p.params[1].cast, "int32");
	CHECK(bcc_probe__parse(&p, "t:sched:sched_switch(int x)", &end, err, sizeof(err)));
	CHECK(strstr(err, "can't have a function signature"));
	CHECK_STR(bcc_type__cast("const char *", cast, sizeof(cast), &str), "uint64");
	CHECK(str);
	CHECK_STR(bcc_type__cast("unsigned  long", cast, sizeof(cast), &str), "uint64");
	CHECK_STR(bcc_type__cast("u32 *", cast, sizeof(cast), &str), "uint32 *");
	CHECK(!bcc_type__cast("x * y", cast, sizeof(cast), &str));
	CHECK(!bcc_type__cast("size", cast, sizeof(cast), &str));
}
