/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memleak_stacks.h - the stacks `sonde memleak --call-graph dwarf` unwinds in
 * user space: each allocation's sequence number (its stack_id in the kernel's
 * map) leads to one of the distinct stacks, kept once each. The table owns
 * every stack; a pointer from memleak_stacks__ips lives until __free.
 */
#ifndef SONDE_MEMLEAK_STACKS_H
#define SONDE_MEMLEAK_STACKS_H

#include <stdint.h>

struct memleak_stacks;

struct memleak_stacks *memleak_stacks__new(void);
void memleak_stacks__free(struct memleak_stacks *t);
/* allocation seq (> 0) has the stack ips[0..n) (innermost first); 0 or -errno */
int memleak_stacks__add(struct memleak_stacks *t, uint32_t seq, const uint64_t *ips, int n);
/* the index of seq's stack, or -1 when seq was not added */
int memleak_stacks__of(const struct memleak_stacks *t, uint32_t seq);
/* the frames of stack idx, *n of them */
const uint64_t *memleak_stacks__ips(const struct memleak_stacks *t, int idx, int *n);
/* the distinct stacks */
int memleak_stacks__nr(const struct memleak_stacks *t);

#endif
