// SPDX-License-Identifier: GPL-2.0
/* fuzz_event.c - the -e event-list parser must reject garbage with an error, never crash */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/event/event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[256];
	struct evlist l = { 0 };

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (evlist__parse(&l, s, err, sizeof(err)) < 0 && !err[0])
		abort();	/* every rejection says why */
	evlist__free(&l);
	free(s);
	return 0;
}
