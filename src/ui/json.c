// SPDX-License-Identifier: GPL-2.0
/* json.c - JSON string escaping; see json.h */
#include "ui/json.h"
#include "lib/util.h"

#include <string.h>

void json__str(FILE *f, const char *s)
{
	util__json_str(f, s ? s : "", s ? strlen(s) : 0, false);
}
