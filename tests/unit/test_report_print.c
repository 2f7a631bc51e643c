// SPDX-License-Identifier: GPL-2.0
/* test_report_print.c - report's and top's table of entries */
#include <stdio.h>
#include <stdlib.h>

#include "lib/profile/hist.h"
#include "ui/report_print.h"
#include "unit.h"

/*
 * A symbol longer than the 2 KiB line buffer (libLLVM's demangled C++ names
 * reach 4 KiB, and top samples clang while it runs): the column is sized from
 * what the buffer holds. "[k] " and 2054 bytes: the " (inlined)" check once
 * read its 10 last bytes from snprintf's untruncated length, starting at the
 * first byte past the buffer (ASan: a 1-byte stack-buffer-overflow read).
 */
TEST(report_print_symbol_longer_than_the_buffer)
{
	struct hist_opts o = { 0 };
	struct perfdata_attr attr = { 0 };
	struct perfdata_event ev = { .attr = &attr };
	struct perfdata_sample s = { .pid = 42, .tid = 42, .period = 1 };
	struct session_frame fr = { .ip = 0xffffffff81000105ULL, .kernel = true,
		.sym = { .dso = "[kernel.kallsyms]", .dso_addr = 0xffffffff81000105ULL } };
	struct session_sample smp = { .ev = &ev, .s = &s, .comm = "clang", .frames = &fr, .nr_frames = 1 };
	struct report_print pr = { .quiet = true };
	char *sym = malloc(2055), *out = NULL;
	const char *bad;
	size_t len = 0;
	struct hist *h;

	CHECK(sym);
	memset(sym, 'a', 2054);
	sym[2054] = 0;
	fr.sym.sym = sym;
	attr.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
	CHECK_INT(hist__parse_sort(&o, "dso,sym", &bad), 0);
	h = hist__new(&o);
	CHECK(h);
	CHECK_INT(hist__add(h, &smp), 0);
	hist__sort(h);
	pr.out = open_memstream(&out, &len);
	CHECK(pr.out);
	report_print__entries(&pr, h);
	fclose(pr.out);
	CHECK(strstr(out, "100.00%  [kernel.kallsyms]  [k] aaaa"));
	free(out);
	hist__free(h);
	free(sym);
}
