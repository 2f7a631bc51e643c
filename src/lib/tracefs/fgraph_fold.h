/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fgraph_fold.h - the function_graph tracer's lines made folded stacks
 * ("vfs_read;rw_verify_area NS"), each frame counted by its own nanoseconds,
 * for `sonde ftrace -G --folded` and `sonde flame`. The caller owns the folder.
 */
#ifndef SONDE_FGRAPH_FOLD_H
#define SONDE_FGRAPH_FOLD_H

#include <stdio.h>

struct fgraph_fold;

struct fgraph_fold *fgraph_fold__new(void);
/* one line of function_graph's text; 0 or -ENOMEM (what is not a call is skipped) */
int fgraph_fold__line(struct fgraph_fold *f, const char *line);
/* the folded stacks, sorted, one "a;b;c NS" line each; 0 or -EIO */
int fgraph_fold__write(struct fgraph_fold *f, FILE *out);
void fgraph_fold__free(struct fgraph_fold *f);

#endif
