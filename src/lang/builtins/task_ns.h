/* SPDX-License-Identifier: GPL-2.0 */
/*
 * task_ns.h - pid/tid in a pid namespace, comm(pid), percpu_kaddr() and
 * socket_cookie(): their type rules and code (task_ns.c), which their rows
 * in task.c point to, and plain pid/tid in a pid namespace (gen.c).
 * Nothing returned is owned by the caller.
 */
#ifndef SONDE_LANG_BUILTINS_TASK_NS_H
#define SONDE_LANG_BUILTINS_TASK_NS_H

#include "lang/builtins/builtins.h"
#include "lang/lang.h"

struct ck;
struct gen;

/* the type of pid(ns), tid(ns), comm(pid), percpu_kaddr(), socket_cookie() (TY_NONE after an error) */
struct type cktask__call(struct ck *c, struct node *n, const struct builtin *f, struct node *assign_to);
/* r0 = their integer value */
void gentask__int(struct gen *g, struct node *n);
/* comm(pid)'s string at fp+off */
void gentask__comm(struct gen *g, struct node *n, int off, int size);
/* plain pid/tid when sonde runs in a pid namespace other than the initial one: code emitted, true */
bool gentask__ns_pid(struct gen *g, struct node *n, bool tid);

#endif
