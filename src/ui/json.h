/* SPDX-License-Identifier: GPL-2.0 */
/* json.h - writing JSON strings for every --json output; it writes to the caller's FILE and returns nothing to own */
#ifndef SONDE_JSON_H
#define SONDE_JSON_H

#include <stdio.h>

/* s as a JSON string, quotes included ("" for NULL), as util__json_str writes it */
void json__str(FILE *f, const char *s);

#endif
