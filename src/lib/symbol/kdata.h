/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdata.h - what /proc/kallsyms says beyond function names: the kernel's data
 * symbols (to name a global lock by its address) and the text sections that
 * hold lock and scheduler code (to find the caller of a contended lock, as
 * perf lock contention does). A kdata owns its names; kdata__free frees them.
 */
#ifndef SONDE_KDATA_H
#define SONDE_KDATA_H

#include <stdbool.h>
#include <stdint.h>

struct kdata;

/* load path (/proc/kallsyms); 0 or -errno (-EPERM when kptr_restrict hides the addresses) */
int kdata__load(struct kdata **out, const char *path);
void kdata__free(struct kdata *k);
/* the data symbol (d, D, b, B, r, R) addr lies in, with *off the offset into it; NULL when none */
const char *kdata__name(const struct kdata *k, uint64_t addr, uint64_t *off);
/* whether kallsyms lists data symbols at all (CONFIG_KALLSYMS_ALL) */
bool kdata__has_data(const struct kdata *k);
/* addr is in __lock_text or __sched_text: spinlock, mutex and rwsem internals */
bool kdata__lock_text(const struct kdata *k, uint64_t addr);

#endif
