/* SPDX-License-Identifier: GPL-2.0 */
/*
 * provider_iter.h - iter:task, iter:task_file, iter:task_vma probes (BPF
 * iterators, provider_iter.c). Instances live in the program's arena; the
 * map of printf formats is owned by the attached instance (closed at detach).
 */
#ifndef SONDE_LANG_PROVIDER_ITER_H
#define SONDE_LANG_PROVIDER_ITER_H

#include "lang/provider.h"

#include <stdio.h>

struct gen;
struct ring_buffer;

int iter__expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail);
int iter__attach(struct ap_inst *inst, const struct attach_ctx *ctx, char *err, size_t errlen);
/* after every probe attached: read the iterator to its end into o's output (or pin it); 1, 0 (no iter probe), -errno */
struct out;
int iter__drive(struct program *prog, struct ring_buffer *rb, struct out *o, char *err, size_t errlen);
/* the type of `ctx` in an iter probe (TY_NONE after an error) */
struct type iter__ctx(struct program *p, struct ap_inst *in, struct node *n);
/* code: return when the iterated object is NULL (the last call); printf through bpf_seq_printf (true: done) */
void iter__prologue(struct gen *g);
bool iter__printf(struct gen *g, struct node *n);
/* ctx.member in an iter probe, read from the context itself into r0 (false: not one) */
bool iter__ctx_field(struct gen *g, struct node *n);
/* the read-only map of the formats printf used (MAPREF_ITERFMT), made on first use; -1 if none */
int iter__fmt_fd(void);
void iter__list(const char *pat, void (*cb)(const char *name, void *ctx), void *ctx);
void iter__describe(const char *name, FILE *out);

#endif
