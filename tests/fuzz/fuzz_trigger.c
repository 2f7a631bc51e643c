// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_trigger.c - the flight recorder's --trigger parser must reject garbage
 * with an error line, never crash; what it takes must read back the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/record/trigger.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[256];
	struct trigger t, again;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	err[0] = 0;
	if (trigger__parse(s, &t, err, sizeof(err))) {
		if (!err[0])
			abort();	/* every rejection says why */
	} else {
		/* the normalised text is itself a trigger, the same one */
		if (trigger__parse(t.text, &again, err, sizeof(err)) || again.kind != t.kind ||
		    again.threshold_ns != t.threshold_ns || strcmp(again.syscall, t.syscall) ||
		    again.window_s != t.window_s || again.or_equal != t.or_equal)
			abort();
	}
	free(s);
	return 0;
}
