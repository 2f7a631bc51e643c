// SPDX-License-Identifier: GPL-2.0
/* fuzz_perfscript.c - perf script text must be parsed or skipped, never crash or hang */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/perfdata/perfscript.h"

static int on_sample(const struct ps_sample *s, void *arg)
{
	size_t *n = arg;

	/* touch every field the parser hands out */
	*n += strlen(s->comm) + strlen(s->pid) + strlen(s->tid) + strlen(s->event) + strlen(s->period);
	for (size_t i = 0; i < s->nr_frames; i++)
		*n += strlen(s->frames[i].addr) + strlen(s->frames[i].func) + strlen(s->frames[i].dso);
	return 0;
}

static void on_warn(unsigned long line, const char *why, void *arg)
{
	(void)line;
	(void)why;
	(void)arg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	size_t n = 0;

	if (!f)
		return 0;
	perfscript__read(f, on_sample, on_warn, &n);
	fclose(f);
	return 0;
}
