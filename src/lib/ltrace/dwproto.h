/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwproto.h - prototypes from DWARF, for the functions the built-in table
 * does not know: the parameters' and the return value's types in
 * lib/ltrace/proto.h's letters, for many functions in one pass over an
 * object's DWARF (its own, or its separate debug file: Debian's -dbgsym and
 * libc6-dbg, a .gnu_debuglink). The caller owns the arrays it passes.
 */
#ifndef SONDE_LTRACE_DWPROTO_H
#define SONDE_LTRACE_DWPROTO_H

#include <stdbool.h>

#include "lib/ltrace/proto.h"

/*
 * For each of names[0..n) the object at path defines in its DWARF, its
 * prototype into protos[i] and found[i] = true. The number found, or
 * -ENODATA when there is no DWARF (in the file or a debug file of it).
 */
int lt_dwarf__protos(const char *path, const char *const *names, int n, struct lt_proto *protos, bool *found);

#endif
