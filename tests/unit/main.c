// SPDX-License-Identifier: GPL-2.0
/* main.c - runs every registered unit test; see unit.h */
#include "unit.h"

#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct unit_test *head, **tail = &head;
static int failed_now;
static char build_dir[4096];

void unit__register(struct unit_test *t)
{
	*tail = t;
	tail = &t->next;
}

void unit__fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (!failed_now)
		printf("FAIL - ");
	failed_now = 1;
	printf("%s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

const char *unit__build_dir(void)
{
	return build_dir;
}

void unit__workload(const char *name, char *path, size_t size)
{
	snprintf(path, size, "%s/workloads/%s", build_dir, name);
	if (access(path, R_OK))
		snprintf(path, size, "%s/../build/workloads/%s", build_dir, name);
}

int unit__uprobe_everywhere(const char *path, uint64_t offset)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	int type = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	if (type < 0)
		return -1;
	a.type = type;
	a.config1 = (uint64_t)(uintptr_t)path;
	a.config2 = offset;
	/* every process (pid -1) needs a CPU: the breakpoint goes into every mapping anyway */
	return (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
}

int main(int argc, char **argv)
{
	int pass = 0, fail = 0;
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = 0;
		*strrchr(self, '/') = 0;
		snprintf(build_dir, sizeof(build_dir), "%s", self);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (struct unit_test *t = head; t; t = t->next) {
		if (argc > 1 && !strstr(t->name, argv[1]))
			continue;
		failed_now = 0;
		t->fn();
		if (failed_now) {
			printf("   in %s\n", t->name);
			fail++;
		} else {
			printf("ok - %s\n", t->name);
			pass++;
		}
	}
	printf("unit: %d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
