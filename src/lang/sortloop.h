/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sortloop.h - `for ($kv : @m) sort(KEY[, LIMIT]) { ... }` (sortloop.c): the
 * checker's and the generator's hooks, called by check.c and gen_loop.c for
 * a for loop whose node has the clause in s->x. They own nothing.
 */
#ifndef SONDE_LANG_SORTLOOP_H
#define SONDE_LANG_SORTLOOP_H

struct ck;
struct gen;
struct node;

/* the clause's form and LIMIT, in the scope around the loop; 0 or -1 (an error) */
int sortloop__check_limit(struct ck *c, struct node *s);
/* KEY, in the body's scope ($kv known); makes the REC_ROW site; 0 or -1 */
int sortloop__check_key(struct ck *c, struct node *s);
/* REC_ROWS_BEGIN with LIMIT, before the loop's call */
void sortloop__gen_begin(struct gen *g, struct node *s);
/* REC_ROW with KEY, at the start of the body */
void sortloop__gen_row(struct gen *g, struct node *s);
/* REC_ROWS_END, after the loop's call */
void sortloop__gen_end(struct gen *g, struct node *s);

#endif
