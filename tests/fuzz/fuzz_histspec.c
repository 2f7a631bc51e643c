// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_histspec.c - `sonde ftrace --hist`'s spec parser must reject garbage
 * with an error line, never crash; what it takes, printed as the kernel's
 * trigger info, must read back the same; and the hist text of a few entries
 * must be written without a fault whatever the spec.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tracefs/hist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[256], info[1024], info2[1024], str[] = "str";
	struct hist_spec h, again;
	struct hist_entry e[3];
	FILE *null;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	err[0] = 0;
	if (hist_spec__parse(s, &h, err, sizeof(err))) {
		if (!err[0])
			abort();	/* every rejection says why */
		free(s);
		return 0;
	}
	hist_spec__info(&h, info, sizeof(info));
	if (strlen(info) < sizeof(info) - 1) {	/* not cut short */
		if (hist_spec__parse(info, &again, err, sizeof(err)))
			abort();
		hist_spec__info(&again, info2, sizeof(info2));
		if (strcmp(info, info2))
			abort();
	}
	memset(e, 0, sizeof(e));
	for (int i = 0; i < 3; i++) {
		e[i].hits = i + 1;
		for (int k = 0; k < HIST_MAX_KEYS; k++)
			e[i].key[k] = (uint64_t)i << (k * 20);
		e[i].str[0] = i == 2 ? str : NULL;
	}
	null = fopen("/dev/null", "w");
	if (null) {
		hist__print(&h, e, 3, 6, 0, NULL, null);
		fclose(null);
	}
	free(s);
	return 0;
}
