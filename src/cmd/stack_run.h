/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack_run.h - the run that `sonde offcpu` and `sonde lock` share: user stacks of
 * processes that may end before the report (their memory maps are taken as they
 * go, lib/bpf/offcpu_maps.h), of the command sonde starts or of -p/-t/-a, in one
 * event loop. Each command keeps its engine (attach, read, print) between the
 * steps, in this order: init, prepare, (watch_maps), ready, go, loop__run, stopped,
 * free. The run owns the symbolizer (r->mw.sym), the maps and the loop.
 */
#ifndef SONDE_CMD_STACK_RUN_H
#define SONDE_CMD_STACK_RUN_H

#include "lib/bpf/bpf_mmaps.h"
#include "lib/bpf/offcpu_maps.h"
#include "lib/loop/loop.h"
#include "lib/proc/workload.h"

struct stack_run {
	struct workload w;	/* -- CMD: the command; w.pid 0 without one */
	struct offcpu_maps mw;	/* the processes' maps; mw.sym the symbolizer */
	struct bpf_mmaps *mm;	/* the command's memory-map events, or NULL */
	struct loop loop;
	bool looping;		/* loop set up (stack_run__ready) */
};

/* the symbolizer and the maps' keeper; 0, or 1 after an error line */
int stack_run__init(struct stack_run *r);
/* -- CMD: the command made ready, not started; 0, or 1 after an error line */
int stack_run__prepare(struct stack_run *r, char **argv);
/*
 * memory-map events where the kernel gives them, else /proc/PID/maps alone (said with -v): of
 * the command (t NULL), or of -p's running processes t, whose maps /proc gives as well (each
 * tick); with the events, what one maps and exits before a tick (an exec) is still known
 */
struct target;
void stack_run__watch_maps(struct stack_run *r, const struct target *t);
/*
 * After the engine's attach (rc and err its answer): the event loop. 0, or 1 after
 * an error line (the command, if any, is ended).
 */
int stack_run__ready(struct stack_run *r, int rc, const char *err, bool have_cmd);
/* stop after duration (0: none), the command started, the maps taken each 100 ms; 0 or opt__start_command's status */
int stack_run__go(struct stack_run *r, char **argv, double duration);
/* the loop ended (end): a polling error said, the last maps taken */
void stack_run__stopped(struct stack_run *r, enum loop_end end);
void stack_run__free(struct stack_run *r);

#endif
