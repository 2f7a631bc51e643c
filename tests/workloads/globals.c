// SPDX-License-Identifier: GPL-2.0
/*
 * globals.c - global objects of 1, 2, 4, 8 and 16 bytes and one function that
 * touches them once, for uaddr() (the probe language) and symbol tests.
 */
#include <stdio.h>

char g_u8 = 1;
short g_u16 = 2;
int g_u32 = 3;
long g_u64 = 4;
char g_arr[16] = "globals";

__attribute__((noinline)) int touch(int n)
{
	g_u8 += n;
	g_u16 += n;
	g_u32 += n;
	g_u64 += n;
	g_arr[0] = (char)('a' + n);
	return g_u32;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", touch(argc));
	return 0;
}
