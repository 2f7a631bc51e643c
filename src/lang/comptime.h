/* SPDX-License-Identifier: GPL-2.0 */
/*
 * comptime.h - what the probe language settles while compiling: named
 * parameters (getopt(), getopt.c), fail(), kfunc_exist(), kfunc_allowed()
 * and the branches of an if whose condition is a constant (comptime.c).
 * Everything they make lives in the program's arena.
 */
#ifndef SONDE_LANG_COMPTIME_H
#define SONDE_LANG_COMPTIME_H

#include "lang/lang.h"

#include <stdio.h>

struct builtin;
struct ck;

/*
 * Between the macros and the type checker: collect the program's getopt()
 * declarations, print them to `help` when --help was given after -- (*helped
 * is then set), else read every named parameter against them. 0, or -EINVAL
 * with prog->err (one line for a command-line mistake, a caret for a source one).
 */
int getopt__prepare(struct program *p, FILE *help, bool *helped);

/* the builtin functions settled here, and their type checking (n becomes a constant) */
struct type comptime__call(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to);
struct type getopt__check(struct ck *c, struct node *n);

/* config().KEY (or __builtin_config.KEY), n its N_FIELD: n becomes KEY's value, typed; false when n is
 * not one (an unknown KEY is an error, n->ty TY_NONE) */
bool comptime__config(struct ck *c, struct node *n);
/* n's value when it is an integer known now (literals and operators on them) */
bool comptime__int(const struct node *n, long long *v);
/* an if whose condition is known: s becomes the block of the branch taken (true), else false */
bool comptime__fold_if(struct program *p, struct node *s);

#endif
