/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conf.h - ltrace's prototype files (-F FILE, ltrace.conf's syntax: "int
 * atoi(string);"), turned into proto.h's signatures. The prototypes loaded
 * come before the built-in table (lt_proto__lookup). ltrace's types map to
 * the letters it prints the same: int, uint, long, ulong, char, string
 * (string[N] too), addr and file (pointers), octal, hex, format, void, bool,
 * short, ushort; array, struct and enum arguments print as pointers or ints.
 * The loaded prototypes are one table of this module's: the signatures
 * lt_conf__lookup() returns belong to it until lt_conf__free().
 */
#ifndef SONDE_LTRACE_CONF_H
#define SONDE_LTRACE_CONF_H

#include <stddef.h>

/*
 * Load the prototypes of the file at path (they last until lt_conf__free).
 * 0, -errno when it cannot be read, -EINVAL with *line the first line not
 * understood (the lines before it are loaded).
 */
int lt_conf__load(const char *path, int *line);
/* the signature a loaded file gives function name; NULL when none */
const char *lt_conf__lookup(const char *name);
/* the signature of one prototype line into sig (at least 2 + 2 * LT_MAX_ARGS bytes); 0, 1 nothing (a
 * comment or a blank), -EINVAL; name into name */
int lt_conf__parse_line(const char *line, char *name, size_t namelen, char *sig, size_t siglen);
void lt_conf__free(void);

#endif
