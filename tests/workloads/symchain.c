// SPDX-License-Identifier: GPL-2.0
/*
 * symchain - a known call chain for the symbolizer and unwinder tests:
 * main -> chain_a -> chain_b -> chain_c, and chain_c spins in spin_inline(),
 * which is always inlined. Prints "ADDRESS NAME" for each function, then
 * "ready", then spins for SECONDS (default 1; 0: until killed).
 *
 * The tests also compile this file themselves: -O2 -fomit-frame-pointer (for
 * DWARF unwinding), as a PIE or not, stripped with a .gnu_debuglink or a
 * build-id debug file or MiniDebugInfo, and as a shared library (with
 * -Dmain=symchain_main) called from a small PIE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;
static double deadline;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline __attribute__((always_inline)) unsigned long spin_inline(unsigned long x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005UL + (x >> 7); /* SPIN_LINE */
	return x;
}

/* noipa: no inlining, cloning or tail calls across these, so the chain stays as written */
__attribute__((noipa)) void chain_c(void)
{
	unsigned long x = 1;

	while (!deadline || now() < deadline)
		x = spin_inline(x);
	sink = x;
}

__attribute__((noipa)) void chain_b(void)
{
	chain_c();
	sink++;
}

__attribute__((noipa)) void chain_a(void)
{
	chain_b();
	sink++;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1;

	printf("%p chain_a\n%p chain_b\n%p chain_c\n%p main\nready\n", (void *)chain_a, (void *)chain_b,
	       (void *)chain_c, (void *)main);
	fflush(stdout);
	deadline = seconds > 0 ? now() + seconds : 0;
	chain_a();
	return 0;
}
