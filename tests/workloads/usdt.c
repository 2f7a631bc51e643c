// SPDX-License-Identifier: GPL-2.0
/*
 * usdt.c - USDT (<sys/sdt.h>) probes with known arguments, for sonde probe's
 * usdt: tests. usage: usdt [ROUNDS [WAIT_MS]]: prints its pid, sleeps WAIT_MS
 * (time to attach with -p), then for i = 1..ROUNDS fires
 *   sonde_test:start                     (no argument)
 *   sonde_test:one     i                 (int, in a register)
 *   sonde_test:three   -i (signed char), 60000 + i (unsigned short),
 *                      -1000000000000 * i (long long)
 *   sonde_test:mem     i * 7 (int, read from memory), 5 (constant), &counter
 *   sonde_test:guarded i * 100 (only while its semaphore is nonzero)
 *   sonde_test:twice   i, then i + 1000 from the stack (two locations, one probe)
 *   sonde_test:global  counter (1 + 2 + .. + i: a global, read %rip-relative)
 *   sonde_test:indexed tab[i] = 10 * i, loc[i & 3], stab[i] (arrays: base + index * scale)
 * and prints how many times the semaphore was seen nonzero.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

/* a semaphore for one probe only: the kernel (or a tracer) increments it while the probe is traced */
__extension__ unsigned short sonde_test_guarded_semaphore __attribute__((unused, section(".probes")));

long long counter;
int tab[8] = { 0, 10, 20, 30, 40, 50, 60, 70 };
short stab[8] = { -100, -200, -300, -400, -500, -600, -700, -800 };

__attribute__((noinline)) static void fire_start(void)
{
	STAP_PROBE(sonde_test, start);
}

__attribute__((noinline)) static void fire_one(int i)
{
	STAP_PROBE1(sonde_test, one, i);
}

__attribute__((noinline)) static void fire_three(int i)
{
	signed char c = (signed char)-i;
	unsigned short s = (unsigned short)(60000 + i);
	long long l = -1000000000000LL * i;

	STAP_PROBE3(sonde_test, three, c, s, l);
}

__attribute__((noinline)) static void fire_mem(int i)
{
	volatile int v = i * 7;

	counter += i;
	STAP_PROBE3(sonde_test, mem, v, 5, &counter);
}

__attribute__((noinline)) static void fire_indexed(long i)
{
	int loc[4] = { -1, -2, -3, -4 };

	__asm__ volatile("" ::: "memory");
	STAP_PROBE3(sonde_test, indexed, tab[i & 7], loc[i & 3], stab[i & 7]);
}

__attribute__((noinline)) static void fire_global(void)
{
	STAP_PROBE1(sonde_test, global, counter);
}

/* the semaphore-guarded form (as dtrace -G makes): the note names the semaphore's address */
#undef _SDT_SEMAPHORE
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR p##_##n##_semaphore)
__attribute__((noinline)) static int fire_guarded(int i)
{
	if (!sonde_test_guarded_semaphore)
		return 0;
	STAP_PROBE1(sonde_test, guarded, i * 100);
	return 1;
}
#undef _SDT_SEMAPHORE
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR 0)

__attribute__((noinline)) static void fire_twice(int i)
{
	volatile long w = i + 1000L;

	STAP_PROBE1(sonde_test, twice, i);
	if (i > 0)
		STAP_PROBE1(sonde_test, twice, w);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	int wait_ms = argc > 2 ? atoi(argv[2]) : 0;
	int seen = 0;

	printf("pid %d\n", getpid());
	fflush(stdout);
	if (wait_ms > 0) {
		struct timespec ts = { wait_ms / 1000, (wait_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	for (int i = 1; i <= rounds; i++) {
		fire_start();
		fire_one(i);
		fire_three(i);
		fire_mem(i);
		seen += fire_guarded(i);
		fire_twice(i);
		fire_global();
		fire_indexed(i);
	}
	printf("semaphore seen nonzero %d of %d times\n", seen, rounds);
	return 0;
}
