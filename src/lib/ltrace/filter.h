/* SPDX-License-Identifier: GPL-2.0 */
/*
 * filter.h - ltrace's filter expressions (-e): a chain of rules
 * `[+-!]symbol@library`, each symbol and library a whole-name glob or a
 * /regular expression/, library MAIN the main executable, a library pattern
 * starting with '/' matched against the path. A symbol is traced when the
 * last rule that matches it is a '+' one ('-' and '!' take it out); a chain
 * that starts with '-' starts from everything. The library of a rule is the
 * object whose PLT makes the call (ltrace's meaning: "-e malloc-@libc.so*"
 * is malloc, except the calls libc makes). A chain owns its rules.
 */
#ifndef SONDE_LTRACE_FILTER_H
#define SONDE_LTRACE_FILTER_H

#include <stdbool.h>
#include <stddef.h>

struct lt_filter;

/* parse expr and append its rules to *f (NULL: a new chain); 0, or -EINVAL with the reason in err */
int lt_filter__parse(struct lt_filter **f, const char *expr, char *err, size_t errlen);
/*
 * Whether symbol `sym` of the object with SONAME `soname` at `path` (main: the
 * main executable) is traced; a NULL chain traces @MAIN, ltrace's default.
 */
bool lt_filter__match(const struct lt_filter *f, const char *sym, const char *soname, const char *path, bool main);
/* whether any rule can match an object other than the main executable */
bool lt_filter__libraries(const struct lt_filter *f);
void lt_filter__free(struct lt_filter *f);

#endif
