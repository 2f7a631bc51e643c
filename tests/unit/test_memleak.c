// SPDX-License-Identifier: GPL-2.0
/* test_memleak.c - memleak's table of unwound stacks (--call-graph dwarf) */
#include "unit.h"
#include "lib/bpf/memleak_stacks.h"

#include <errno.h>

TEST(memleak_stacks_dedup_by_frames)
{
	struct memleak_stacks *t = memleak_stacks__new();
	const uint64_t a[] = { 0x10, 0x20, 0x30 }, b[] = { 0x10, 0x20 }, *ips;
	int n;

	CHECK(t);
	CHECK_INT(memleak_stacks__add(t, 1, a, 3), 0);
	CHECK_INT(memleak_stacks__add(t, 2, b, 2), 0);	/* a prefix is another stack */
	CHECK_INT(memleak_stacks__add(t, 3, a, 3), 0);
	CHECK_INT(memleak_stacks__add(t, 100000, a, 3), 0);	/* the index grows */
	CHECK_INT(memleak_stacks__nr(t), 2);
	CHECK_INT(memleak_stacks__of(t, 1), memleak_stacks__of(t, 3));
	CHECK_INT(memleak_stacks__of(t, 1), memleak_stacks__of(t, 100000));
	CHECK(memleak_stacks__of(t, 2) != memleak_stacks__of(t, 1));
	CHECK_INT(memleak_stacks__of(t, 4), -1);		/* never added (its record was lost) */
	CHECK_INT(memleak_stacks__of(t, 1u << 30), -1);
	ips = memleak_stacks__ips(t, memleak_stacks__of(t, 2), &n);
	CHECK_INT(n, 2);
	CHECK(ips[0] == 0x10 && ips[1] == 0x20);
	CHECK_INT(memleak_stacks__add(t, 0, a, 3), -EINVAL);	/* 0 is no sequence number */
	memleak_stacks__free(t);
}

TEST(memleak_stacks_many_distinct)
{
	struct memleak_stacks *t = memleak_stacks__new();
	uint64_t ips[2];
	int n;

	for (uint32_t i = 1; i <= 10000; i++) {
		ips[0] = i % 5000;
		ips[1] = 7;
		CHECK_INT(memleak_stacks__add(t, i, ips, 2), 0);
	}
	CHECK_INT(memleak_stacks__nr(t), 5000);
	CHECK_INT(memleak_stacks__of(t, 1), memleak_stacks__of(t, 5001));
	CHECK(memleak_stacks__ips(t, memleak_stacks__of(t, 4999), &n)[0] == 4999);
	memleak_stacks__free(t);
}
