// SPDX-License-Identifier: GPL-2.0
/* test_tool.c - BCC's event patterns (funccount, funclatency) as sonde attach points */
#include "unit.h"

#include "sonde.h"

#include <string.h>

static const char *spec(const char *pat)
{
	static char out[300];

	return tool__event_spec(pat, out, sizeof(out)) ? NULL : out;
}

TEST(tool_event_spec_reads_bcc_patterns)
{
	CHECK_STR(spec("vfs_*"), "kprobe:vfs_*");
	CHECK_STR(spec("p::do_sys_open"), "kprobe:do_sys_open");
	CHECK_STR(spec("t:sched:sched_switch"), "tracepoint:sched:sched_switch");
	CHECK_STR(spec("c:malloc"), "uprobe:libc:malloc");
	CHECK_STR(spec("p:c:mall*"), "uprobe:libc:mall*");
	CHECK_STR(spec("pthread:pthread_create"), "uprobe:libpthread:pthread_create");
	CHECK_STR(spec("libssl:SSL_read"), "uprobe:libssl:SSL_read");
	CHECK_STR(spec("/usr/bin/bash:readline"), "uprobe:/usr/bin/bash:readline");
	CHECK_STR(spec("u:pthread:mutex_entry"), "usdt:libpthread:mutex_entry");
	CHECK(spec("") == NULL);
	CHECK(spec("t:nocolon") == NULL);
	CHECK(spec("u:nolib") == NULL);
	CHECK(spec("c:") == NULL);
	CHECK(spec("a b") == NULL);
}
