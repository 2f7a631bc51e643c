// SPDX-License-Identifier: GPL-2.0
/*
 * ulock.c - functions a wildcard uprobe matches, one of which the kernel cannot
 * probe: ul_locked starts with a lock-prefixed instruction, which uprobes refuse
 * (ENOTSUPP), while ul_plain1 and ul_plain2 are ordinary.
 * usage: ulock N [MS]   after MS milliseconds (0), calls each of the three N times,
 * then exits 0 (a process already running when a uprobe is registered in its
 * mapping: the kernel refuses ul_locked's there and then).
 */
#include <stdlib.h>
#include <unistd.h>

void ul_locked(int *p);
__asm__(".text\n.globl ul_locked\n.type ul_locked, @function\n"
	"ul_locked:\n\tlock incl (%rdi)\n\tret\n.size ul_locked, .-ul_locked\n");

volatile int sink;

__attribute__((noinline)) void ul_plain1(void)
{
	sink++;
}

__attribute__((noinline)) void ul_plain2(void)
{
	sink--;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	int x = 0;

	if (argc > 2)
		usleep(atol(argv[2]) * 1000);

	for (long i = 0; i < n; i++) {
		ul_locked(&x);
		ul_plain1();
		ul_plain2();
	}
	return x == n ? 0 : 1;
}
