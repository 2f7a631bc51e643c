// SPDX-License-Identifier: GPL-2.0
/*
 * dwargs.c - a function whose parameters have known values and DWARF types,
 * for uprobe args.NAME: usage: dwargs N   calls take() N times with the
 * same arguments (a struct pointer whose next member points to another).
 */
#include <stdio.h>
#include <stdlib.h>

struct point {
	int x;
	long y;
	char tag[8];
	struct point *next;
};
typedef unsigned int u32_t;
enum color { RED, GREEN = 5 };

/* noipa: the arguments stay what the C source says (no constant propagation) */
__attribute__((noipa)) long take(const char *name, struct point *p, unsigned short u, signed char c, u32_t t, enum color col)
{
	return (long)name[0] + p->x + u + c + t + col;
}

int main(int argc, char **argv)
{
	static const char hello[] = "hello";
	struct point q = { 3, -4, "qq", NULL }, p = { 7, -9000000000L, "pt", &q };
	long s = 0;
	int n = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < n; i++)
		s += take(hello, &p, 65535, -5, 4000000000u, GREEN);
	printf("%ld\n", s);
	return 0;
}
