// SPDX-License-Identifier: GPL-2.0
/*
 * test_framepointer.c - elf__frame_pointers on files whose build is known: the
 * demo (-fno-omit-frame-pointer), symchain built -O2 -fomit-frame-pointer, the
 * system's libc (Debian builds it without), and files it cannot judge.
 */
#include "test_symbol_util.h"
#include "lib/symbol/framepointer.h"

#include <errno.h>

TEST(framepointer_known_builds)
{
	char demo[4200], *dir = st_tmpdir();

	snprintf(demo, sizeof(demo), "%s/build/examples/demo", st_root());
	CHECK_INT(elf__frame_pointers(demo), 1);
	CHECK(dir != NULL);
	if (!dir)
		return;
	CHECK_INT(st_build(dir, "nofp", "nofp"), 0);
	snprintf(demo, sizeof(demo), "%s/nofp", dir);
	CHECK_INT(elf__frame_pointers(demo), 0);
	st_sh("gcc -O2 -fno-omit-frame-pointer -o %s/fp %s/tests/workloads/symchain.c", dir, st_root());
	snprintf(demo, sizeof(demo), "%s/fp", dir);
	CHECK_INT(elf__frame_pointers(demo), 1);
	st_rmdir(dir);
}

TEST(framepointer_libc_and_errors)
{
	/* Debian's libc is built with frame pointers omitted: the reason offcpu unwinds with DWARF */
	if (!access("/etc/debian_version", R_OK) && !access("/lib/x86_64-linux-gnu/libc.so.6", R_OK))
		CHECK_INT(elf__frame_pointers("/lib/x86_64-linux-gnu/libc.so.6"), 0);
	CHECK_INT(elf__frame_pointers("/nonexistent/file"), -ENOENT);
	CHECK_INT(elf__frame_pointers("/etc/hostname"), -ENOENT);	/* no function to look at */
}
