/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_loop.h - the event loop of a BPF-based command: ring buffers, Ctrl-C and
 * SIGTERM (taken through a signalfd, so the command always detaches and prints
 * what it has), the end of a `-- CMD` child, a --duration timer and a periodic
 * tick. The loop owns its descriptors and the libbpf ring_buffer it creates;
 * bpf_loop__fini() frees them and restores the signal mask.
 */
#ifndef SONDE_BPF_LOOP_H
#define SONDE_BPF_LOOP_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct ring_buffer;

enum bpf_loop_end {
	BPF_LOOP_SIGNAL,	/* SIGINT or SIGTERM (in ->signo) */
	BPF_LOOP_CHILD,		/* the child ended (its wait status in ->child_status) */
	BPF_LOOP_DURATION,	/* --duration passed */
	BPF_LOOP_TICK,		/* the tick callback asked to stop (e.g. the targets are gone) */
	BPF_LOOP_ERROR,		/* poll or a ring-buffer callback failed (-errno in ->err) */
};

typedef int (*bpf_loop_rb_fn)(void *ctx, void *data, size_t size);
typedef int (*bpf_loop_tick_fn)(void *ctx);	/* return 1 to end the loop */

struct bpf_loop {
	int sfd, tfd, kfd;
	sigset_t old_mask;
	struct ring_buffer *rb;
	pid_t child;
	int child_status;
	int signo;
	int err;
	bpf_loop_tick_fn tick;
	void *tick_ctx;
};

/* block SIGINT, SIGTERM and SIGCHLD and take them through a signalfd; 0 or -errno */
int bpf_loop__init(struct bpf_loop *l);
/* end the loop after `seconds` (> 0); 0 or -errno */
int bpf_loop__set_duration(struct bpf_loop *l, double seconds);
/* end the loop when this child exits; the loop reaps it */
void bpf_loop__set_child(struct bpf_loop *l, pid_t child);
/* call fn every `ms` milliseconds; 0 or -errno */
int bpf_loop__set_tick(struct bpf_loop *l, int ms, bpf_loop_tick_fn fn, void *ctx);
/* consume BPF_MAP_TYPE_RINGBUF `map_fd` with fn (a negative return ends the loop); 0 or -errno */
int bpf_loop__add_ringbuf(struct bpf_loop *l, int map_fd, bpf_loop_rb_fn fn, void *ctx);
/* run until one of the ends above; the ring buffers are drained before it returns */
enum bpf_loop_end bpf_loop__run(struct bpf_loop *l);
/* consume what the ring buffers hold now (after detaching, before reading results) */
void bpf_loop__drain(struct bpf_loop *l);
void bpf_loop__fini(struct bpf_loop *l);

#endif
