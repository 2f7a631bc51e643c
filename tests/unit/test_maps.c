// SPDX-License-Identifier: GPL-2.0
/* test_maps.c - lib/proc/maps.h: lines of /proc/PID/maps, and this process's own */
#include "unit.h"
#include "lib/proc/maps.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

TEST(maps_parse_line)
{
	char l1[] = "55d0c8a00000-55d0c8a21000 r-xp 00002000 fd:01 1835290                    /usr/bin/my prog (deleted)\n";
	char l2[] = "7ffd1c5e4000-7ffd1c5e6000 r-xp 00000000 00:00 0                          [vdso]";
	char l3[] = "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n";
	char l4[] = "7f0000000000-7f0000001000 rw-p 00000000 00:00\n";
	struct proc_map m;

	CHECK_INT(proc_maps__parse_line(l1, &m), 0);
	CHECK(m.start == 0x55d0c8a00000ULL && m.end == 0x55d0c8a21000ULL);
	CHECK_INT(m.pgoff, 0x2000);
	CHECK_INT(m.maj, 0xfd);
	CHECK_INT(m.min, 1);
	CHECK_INT(m.ino, 1835290);
	CHECK_STR(m.perms, "r-xp");
	CHECK(proc_map__exec(&m));
	CHECK_STR(m.name, "/usr/bin/my prog (deleted)");
	CHECK_INT(proc_maps__parse_line(l2, &m), 0);
	CHECK_STR(m.name, "[vdso]");
	CHECK_INT(proc_maps__parse_line(l3, &m), 0);
	CHECK_STR(m.name, "");
	CHECK(!proc_map__exec(&m));
	CHECK_INT(proc_maps__parse_line(l4, &m), -EINVAL);
}

/* this function's own address lies in an executable mapping of this binary */
TEST(maps_self)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uint64_t here = (uint64_t)(uintptr_t)&test_maps_self;
	struct proc_maps *it = proc_maps__open(0);
	const struct proc_map *m;
	int found = 0, vdso = 0;

	CHECK(n > 0 && it);
	exe[n] = 0;
	while ((m = proc_maps__next(it))) {
		if (here >= m->start && here < m->end && proc_map__exec(m) && !strcmp(m->name, exe))
			found++;
		vdso += !strcmp(m->name, "[vdso]");
	}
	proc_maps__close(it);
	CHECK_INT(found, 1);
	CHECK_INT(vdso, 1);
	CHECK(!proc_maps__open(-1) && errno == ENOENT);
}

/* the C library this process maps: its own path, and through /proc/PID/root for a pid */
TEST(maps_find_libc)
{
	char own[PATH_MAX], via[PATH_MAX], want[PATH_MAX + 64];
	const char *base;

	CHECK_INT(proc_maps__find_libc(0, own, sizeof(own)), 0);
	base = strrchr(own, '/');
	CHECK(base && (!strncmp(base + 1, "libc.so", 7) || !strncmp(base + 1, "libc-", 5)));
	CHECK_INT(proc_maps__find_libc(getpid(), via, sizeof(via)), 0);
	snprintf(want, sizeof(want), "/proc/%d/root%s", (int)getpid(), own);
	CHECK_STR(via, want);
	CHECK(proc_maps__find_libc(-1, via, sizeof(via)) < 0);
}

/* a file this process maps (its binary), one it does not, one that is not there */
TEST(maps_maps_file)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	CHECK(n > 0);
	exe[n] = 0;
	CHECK_INT(proc_maps__maps_file(getpid(), exe), 1);
	CHECK_INT(proc_maps__maps_file(getpid(), "/proc/self/status"), 0);
	CHECK_INT(proc_maps__maps_file(getpid(), "/nonexistent-test-maps"), -ENOENT);
}
