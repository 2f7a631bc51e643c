/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memleak_shm.h - the shared memory between `sonde memleak --preload` and the
 * shim its command runs with (src/preload/memleak_preload.c, LD_PRELOAD): a
 * header, an open-addressing table of the outstanding allocations by address,
 * and a table of the stacks they come from with each stack's outstanding
 * bytes and blocks. The shim writes (under the header's lock when the process
 * has threads), sonde only reads; sonde creates it, zeroed, in a memfd whose
 * pages exist only once touched.
 */
#ifndef SONDE_MEMLEAK_SHM_H
#define SONDE_MEMLEAK_SHM_H

#include <stdint.h>

#define MLSHM_MAGIC 0x6b6c6d73u		/* "smlk" */
#define MLSHM_VERSION 1
#define MLSHM_SLOTS (1u << 21)		/* allocation slots: at most half are used */
#define MLSHM_STACKS (1u << 14)		/* distinct stacks */
#define MLSHM_DEPTH 62			/* frames kept per stack */
#define MLSHM_ENV "SONDE_MEMLEAK_SHM"	/* "SHMFD,SOFD,PRELOAD": the shim's fds, LD_PRELOAD to restore */

enum mlshm_stat {
	MLSHM_STAT_ALLOCS,	/* allocations recorded */
	MLSHM_STAT_FREES,	/* frees of a recorded allocation */
	MLSHM_STAT_FULL,	/* allocations not recorded: the table is full */
	MLSHM_STAT_NOSTACK,	/* allocations not recorded: the stack table is full */
	MLSHM_STAT_NR,
};

struct mlshm_hdr {
	uint32_t magic, version;
	int32_t pid;			/* the process to record in (not its forked children) */
	uint32_t now_ms;		/* sonde's clock, advanced every 100 ms: the allocations' ages */
	uint64_t min_size, max_size;	/* max 0: no limit */
	uint32_t sample_every;		/* record one allocation in N (0, 1: all) */
	uint32_t ready;			/* the shim has mapped the tables */
	uint64_t sampled;		/* allocations in the size range seen (for -s) */
	uint64_t used;			/* slots in use */
	uint32_t lock;			/* taken when the process has threads */
	uint32_t nr_stacks;		/* stacks in use */
	uint64_t stats[MLSHM_STAT_NR];
};

/* one outstanding allocation; addr 0: a free slot */
struct mlshm_alloc {
	uint64_t addr, size;
	uint32_t stack;		/* index in the stack table, + 1 */
	uint32_t ms;		/* now_ms when allocated */
};

/* one stack; nr 0: a free slot */
struct mlshm_stack {
	uint64_t hash;
	uint64_t bytes, count;	/* outstanding */
	uint32_t nr, pad;
	uint64_t ips[MLSHM_DEPTH];	/* innermost first: ips[0] is in the allocator's caller */
};

#define MLSHM_ALLOCS_OFF 4096ul
#define MLSHM_STACKS_OFF (MLSHM_ALLOCS_OFF + (uint64_t)MLSHM_SLOTS * sizeof(struct mlshm_alloc))
#define MLSHM_SIZE (MLSHM_STACKS_OFF + (uint64_t)MLSHM_STACKS * sizeof(struct mlshm_stack))

static inline uint64_t mlshm__hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

#endif
