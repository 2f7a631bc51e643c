// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_procstat.c - the /proc parsers take text that a container runtime, a
 * FUSE /proc (lxcfs) or a copy given with --proc can make anything: each must
 * accept or reject it, never crash. The first byte picks the parser; then the
 * two snapshots go through the rates and the USE rules.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/proc/procstat.h"
#include "lib/proc/use.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_snap a = { 0 }, b = { 0 };
	struct use_report r;
	char v2[64], mem[64], cpu[64];
	char *s;

	if (!size)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = 0;
	switch (data[0] % 11) {
	case 0: procstat__parse_stat(&b, s); break;
	case 1: procstat__parse_loadavg(&b, s); break;
	case 2: procstat__parse_meminfo(&b, s); break;
	case 3: procstat__parse_vmstat(&b, s); break;
	case 4: procstat__parse_diskstats(&b, s); break;
	case 5: procstat__parse_netdev(&b, s); break;
	case 6: procstat__parse_snmp(&b, s); break;
	case 7: procstat__parse_psi(&b.psi[data[0] % 3], s); break;
	case 8: procstat__parse_filenr(&b, s); break;
	case 9: procstat__parse_cgroup_file(s, v2, mem, cpu, sizeof(v2)); break;
	default:
		/* everything at once, as procstat__read does */
		procstat__parse_stat(&b, s);
		procstat__parse_diskstats(&b, s);
		procstat__parse_netdev(&b, s);
		procstat__parse_meminfo(&b, s);
		break;
	}
	b.have = ~0u;
	b.t = 1;
	if (b.mem_total <= 0)
		b.mem_total = 1;
	procstat__parse_stat(&a, "cpu 1 1 1 1\n");
	a.have = ~0u;
	if (!use__build(&r, &a, &b, NULL, "/nonexistent"))
		use__free(&r);
	procstat__free(&a);
	procstat__free(&b);
	free(s);
	return 0;
}
