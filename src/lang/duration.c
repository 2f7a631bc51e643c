// SPDX-License-Identifier: GPL-2.0
/*
 * duration.c - the duration suffixes of integer literals (100ms, 5us, 1s, 2h,
 * 1d: nanoseconds) and of interval/profile probe counts (interval:1s).
 */
#include "lang/lang.h"

#include <ctype.h>
#include <string.h>

static const struct { const char *s; unsigned long long ns; } units[] = {
	/* longest first: "ms" before "m" */
	{ "ns", 1ULL }, { "us", 1000ULL }, { "ms", 1000000ULL }, { "s", 1000000000ULL },
	{ "m", 60ULL * 1000000000ULL }, { "h", 3600ULL * 1000000000ULL }, { "d", 86400ULL * 1000000000ULL },
};

int lang__duration_suffix(const char *p, const char *end, unsigned long long *ns)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i].s);

		if ((size_t)(end - p) < n || memcmp(p, units[i].s, n))
			continue;
		if (p + n < end && (isalnum((unsigned char)p[n]) || p[n] == '_'))
			continue;	/* "1sec", "5min": not a duration */
		*ns = units[i].ns;
		return (int)n;
	}
	return 0;
}
