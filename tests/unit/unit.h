/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unit.h - the unit-test harness: TEST(name) { CHECK(...); } in any
 * tests/unit/test_NAME.c file registers itself; build/unit-tests runs them all and
 * prints "ok - name" or "FAIL - name: file:line: what", then a count line.
 * `build/unit-tests PATTERN` runs the tests whose name contains PATTERN.
 */
#ifndef SONDE_UNIT_H
#define SONDE_UNIT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
	struct unit_test *next;
};

void unit__register(struct unit_test *t);
void unit__fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* the directory of the built workloads, for tests that need a real ELF */
const char *unit__build_dir(void);
/* the path of built workload NAME: this build's, else the plain build's (the ASan build has none) */
void unit__workload(const char *name, char *path, size_t size);
/*
 * A uprobe at offset of path in every process (perf's uprobe PMU, pid -1), as
 * another tracer attaches one: its fd (close it to detach), -1 without root
 */
int unit__uprobe_everywhere(const char *path, uint64_t offset);

#define TEST(name)                                                          \
	static void test_##name(void);                                      \
	static struct unit_test unit_##name = { #name, test_##name, NULL }; \
	__attribute__((constructor)) static void reg_##name(void)           \
	{                                                                   \
		unit__register(&unit_##name);                               \
	}                                                                   \
	static void test_##name(void)

#define CHECK(c) do { if (!(c)) { unit__fail(__FILE__, __LINE__, "%s", #c); return; } } while (0)
#define CHECK_INT(a, b) do { long long _a = (a), _b = (b); if (_a != _b) { \
	unit__fail(__FILE__, __LINE__, "%s == %lld, expected %lld", #a, _a, _b); return; } } while (0)
#define CHECK_STR(a, b) do { const char *_a = (a), *_b = (b); \
	if (!_a || !_b || strcmp(_a, _b)) { \
	unit__fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #a, _a ? _a : "(null)", _b ? _b : "(null)"); return; } } while (0)

#endif
