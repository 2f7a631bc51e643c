/* SPDX-License-Identifier: GPL-2.0 */
/*
 * loop.h - the one event loop of every live command: descriptors to poll
 * (perf mmap buffers, a libbpf ring buffer, trace_pipe, stdin), SIGINT,
 * SIGTERM and SIGHUP taken as data through a signalfd, the exit of a started
 * command, a duration, a periodic tick and the close of the output pipe.
 *
 * The loop owns its descriptors, the libbpf ring_buffer that
 * loop__add_ringbuf() creates and its copy of the sources; loop__fini() frees
 * them, ends and reaps a started command that still runs, and restores the
 * signal mask. The fds added with loop__add_fd() stay the caller's.
 *
 * A started command is ended the same way by every command (see
 * loop__set_child): when the loop is asked to stop (a signal, the duration,
 * a callback) the command gets the signal sonde got (SIGTERM for the others),
 * the loop goes on reading its events until it exits, and it is killed if it
 * has not after LOOP_GRACE_MS or at a second signal. A process attached with
 * -p is never signalled: it is not the loop's.
 */
#ifndef SONDE_LOOP_H
#define SONDE_LOOP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

struct ring_buffer;

/* how long a started command has to exit after it was asked to, before SIGKILL */
#define LOOP_GRACE_MS 2000
/*
 * Ring-buffer records are read for at most LOOP_SLICE_MS at a time, so that a
 * flood the reader cannot keep up with (a slow callback, a busy machine
 * traced with -a) never keeps the loop from its signals, duration and tick;
 * loop__drain, after the detach, reads for at most LOOP_DRAIN_MS.
 */
#define LOOP_SLICE_MS 50
#define LOOP_DRAIN_MS 2000

enum loop_end {
	LOOP_SIGNAL,	/* SIGINT, SIGTERM or SIGHUP (in ->signo) */
	LOOP_CHILD,	/* the started command exited by itself (its wait status in ->child_status) */
	LOOP_DURATION,	/* the duration passed */
	LOOP_STOP,	/* a callback asked to stop (returned 1) */
	LOOP_OUTPUT,	/* the reader of the watched output went away */
	LOOP_ERROR,	/* poll or a callback failed (-errno in ->err) */
};

/* a descriptor is ready (revents), or the tick fired (fd -1): 0 goes on, 1 stops, -errno fails */
typedef int (*loop_fn)(void *ctx, int fd, short revents);
/* a ring-buffer record: 0 goes on, a negative value fails the loop */
typedef int (*loop_rb_fn)(void *ctx, void *data, size_t size);

struct loop_src {
	int fd;
	short events;
	loop_fn fn;
	void *ctx;
};

struct loop {
	int sfd, dfd, tfd, gfd;		/* signalfd, duration, tick, the child's grace timer */
	sigset_t mask, old_mask;
	struct loop_src *src;
	int nr_src;
	struct ring_buffer *rb;
	struct loop_rb **rbs;		/* each ring's callback, behind the one that keeps the time */
	int nr_rbs;
	unsigned long long rb_until;	/* CLOCK_MONOTONIC ns: reading stops after this record */
	bool rb_skip;			/* records are counted, not read (loop__drain past its time) */
	size_t rb_skipped;
	unsigned rb_test_us;		/* SONDE_TEST_LOOP_RECORD_US: each record takes that much longer (tests) */
	loop_fn tick;
	void *tick_ctx;
	loop_fn on_signal;		/* the extra signals of loop__add_signal */
	void *sig_ctx;
	pid_t sig_pid;			/* while on_signal runs: who sent it, */
	int sig_code, sig_value;	/* its si_code (SI_QUEUE...) and sigqueue value */
	int out_fd;			/* watched for POLLERR: -1 for none */
	pid_t child;			/* the started command, while it runs */
	bool child_reaped;
	int child_status;		/* its wait status once reaped */
	struct rusage child_ru;		/* and its resource usage */
	int kill_sent;			/* the signal the command was last sent, 0 for none */
	int signo;			/* the stop signal sonde got, 0 for none */
	int err;
	bool stopping;			/* asked to stop, waiting for the command to exit */
	enum loop_end why;
};

/* block SIGINT, SIGTERM, SIGHUP and SIGCHLD and take them through a signalfd; 0 or -errno */
int loop__init(struct loop *l);
/*
 * the loops this thread makes from now on stop on signo alone, not on
 * SIGINT, SIGTERM or SIGHUP, which stay the process' other threads' (sonde
 * serve's probe programs, each in a thread its server stops with
 * pthread_kill); 0: those three again. The thread keeps signo blocked.
 */
void loop__thread_stop_signal(int signo);
/* also take signo (e.g. SIGUSR1) through the signalfd: fn(ctx, signo, 0) runs when it comes */
int loop__add_signal(struct loop *l, int signo, loop_fn fn, void *ctx);
/* stop after `seconds` (> 0) from now; 0 or -errno */
int loop__set_duration(struct loop *l, double seconds);
/* call fn(ctx, -1, 0) every `ms` milliseconds; 0 or -errno */
int loop__set_tick(struct loop *l, int ms, loop_fn fn, void *ctx);
/* call fn(ctx, fd, revents) when fd is ready for `events`; 0 or -errno */
int loop__add_fd(struct loop *l, int fd, short events, loop_fn fn, void *ctx);
/* consume BPF_MAP_TYPE_RINGBUF `map_fd` with fn (one libbpf ring_buffer for all); 0 or -errno */
int loop__add_ringbuf(struct loop *l, int map_fd, loop_rb_fn fn, void *ctx);
/* stop when the reader of pipe `fd` (stdout) goes away; SIGPIPE is ignored from here */
void loop__watch_output(struct loop *l, int fd);
/* the started command (0 for none): the loop reaps it, and ends it when it stops first */
void loop__set_child(struct loop *l, pid_t child);

/* run until one of the ends above; the ring buffer is read (one slice) before it returns */
enum loop_end loop__run(struct loop *l);
/* read what the ring buffer holds, for at most LOOP_SLICE_MS (a tick's reading while attached) */
void loop__consume(struct loop *l);
/*
 * after the detach, before reading results: read what the ring buffer holds,
 * for at most LOOP_DRAIN_MS; records left then are counted, not read, and
 * their number returned (for the caller's warning)
 */
size_t loop__drain(struct loop *l);
/*
 * sonde's exit status for how the loop ended (README "Exit status"): the
 * command's status where one was started and was not ended on schedule
 * (a signal it got from us or from the terminal counts as its own), 0 for a
 * stop, 1 for an error or a closed output
 */
int loop__exit_code(const struct loop *l, enum loop_end end);
void loop__fini(struct loop *l);

#endif
