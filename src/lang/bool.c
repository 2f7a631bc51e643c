// SPDX-License-Identifier: GPL-2.0
/*
 * bool.c - which values are bools. Upstream bpftrace has a bool type: true
 * and false, comparisons and logical operators give bools, and print(), map
 * keys and values show them as true/false. bpftrace 0.17 has none: true and
 * false are the integers 1 and 0, comparisons give integers, and all of
 * them print as 1/0. sonde keeps 0.17's output for what 0.17 runs, and
 * follows upstream where 0.17 has nothing to say:
 *  - a bool comes from a cast to bool ((bool)x is x != 0: 0.17 refuses the
 *    cast) or from a function 0.17 does not have and upstream gives a bool:
 *    has_key(), find(), globmatch(), kfunc_exist(), kfunc_allowed(), the
 *    is_*() tests, getopt()'s flags, has_cpid and delete() (the rows with
 *    BF_BOOL in src/lang/builtins/, and getopt.c, check.c, builtins/maps.c);
 *  - ==, !=, <, <=, >, >=, &&, || and ! give a bool when every operand is a
 *    bool, else an integer, as in 0.17 (so 1 == 1 and true == true print 1,
 *    has_key(@m, 1) && (bool)$x prints true);
 *  - printf's %d of a bool prints 1 or 0 in both.
 * A bool is a TY_INT with .boolean set: it is held, stored and compared as
 * the integer 0 or 1.
 */
#include "lang/check_int.h"

bool ck_bool_op(const struct type *a, const struct type *b)
{
	return a->kind == TY_INT && a->boolean && b->kind == TY_INT && b->boolean;
}
