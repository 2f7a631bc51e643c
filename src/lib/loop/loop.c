// SPDX-License-Identifier: GPL-2.0
/*
 * loop.c - poll a signalfd, timerfds, the caller's descriptors and a libbpf
 * ring buffer in one loop; see loop.h. Signals arrive as data, never as
 * handlers, so whatever ends the loop, the caller goes on to read its maps,
 * print, and undo what it changed in the kernel.
 */
#include "lib/loop/loop.h"
#include "lib/proc/workload.h"
#include "lib/util.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static __thread int thread_stop_sig;	/* loop__thread_stop_signal()'s, 0: SIGINT, SIGTERM, SIGHUP */

void loop__thread_stop_signal(int signo)
{
	thread_stop_sig = signo;
}

int loop__init(struct loop *l)
{
	memset(l, 0, sizeof(*l));
	l->sfd = l->dfd = l->tfd = l->gfd = l->out_fd = -1;
	if (getenv("SONDE_TEST_LOOP_RECORD_US"))	/* a reader slower than the traced code */
		l->rb_test_us = (unsigned)strtoul(getenv("SONDE_TEST_LOOP_RECORD_US"), NULL, 10);
	sigemptyset(&l->mask);
	if (thread_stop_sig) {
		sigaddset(&l->mask, thread_stop_sig);
	} else {
		sigaddset(&l->mask, SIGINT);
		sigaddset(&l->mask, SIGTERM);
		sigaddset(&l->mask, SIGHUP);
	}
	sigaddset(&l->mask, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &l->mask, &l->old_mask))
		return -errno;
	l->sfd = signalfd(-1, &l->mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (l->sfd < 0) {
		int err = -errno;

		sigprocmask(SIG_SETMASK, &l->old_mask, NULL);
		return err;
	}
	return 0;
}

int loop__add_signal(struct loop *l, int signo, loop_fn fn, void *ctx)
{
	sigset_t one;

	sigemptyset(&one);
	sigaddset(&one, signo);
	if (sigprocmask(SIG_BLOCK, &one, NULL))
		return -errno;
	sigaddset(&l->mask, signo);
	if (signalfd(l->sfd, &l->mask, 0) < 0)
		return -errno;
	l->on_signal = fn;
	l->sig_ctx = ctx;
	return 0;
}

static int arm(int *fd, long long ns, bool periodic)
{
	if (*fd < 0)
		*fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (*fd < 0)
		return -errno;
	return util__timer_arm(*fd, ns, periodic);
}

int loop__set_duration(struct loop *l, double seconds)
{
	return arm(&l->dfd, (long long)(seconds * 1e9), false);
}

int loop__set_tick(struct loop *l, int ms, loop_fn fn, void *ctx)
{
	l->tick = fn;
	l->tick_ctx = ctx;
	return arm(&l->tfd, ms * 1000000LL, true);
}

int loop__add_fd(struct loop *l, int fd, short events, loop_fn fn, void *ctx)
{
	struct loop_src *s = realloc(l->src, (l->nr_src + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	l->src = s;
	s[l->nr_src++] = (struct loop_src){ fd, events, fn, ctx };
	return 0;
}

/* a ring's own callback; the loop's, rb_record, keeps the time */
struct loop_rb {
	struct loop *l;
	loop_rb_fn fn;
	void *ctx;
};

/* what rb_record returns to end a slice: libbpf stops reading there, this record read */
#define RB_SLICE_END (-ETIME)

static int rb_record(void *ctx, void *data, size_t size)
{
	struct loop_rb *r = ctx;
	struct loop *l = r->l;
	int rc;

	if (l->rb_skip) {
		l->rb_skipped++;
		return 0;
	}
	rc = r->fn(r->ctx, data, size);
	if (l->rb_test_us)
		usleep(l->rb_test_us);
	if (rc < 0)
		return rc == RB_SLICE_END ? -EIO : rc;
	return util__now_ns() >= l->rb_until ? RB_SLICE_END : 0;
}

/* read the rings for at most ms milliseconds: 0 or -errno of a callback */
static int read_rings(struct loop *l, int ms)
{
	int rc;

	if (!l->rb)
		return 0;
	l->rb_until = util__now_ns() + ms * 1000000ULL;
	rc = ring_buffer__consume(l->rb);
	return rc < 0 && rc != -EINTR && rc != RB_SLICE_END ? rc : 0;
}

static int consume_rb(void *ctx, int fd, short revents)
{
	(void)fd;
	(void)revents;
	return read_rings(ctx, LOOP_SLICE_MS);
}

int loop__add_ringbuf(struct loop *l, int map_fd, loop_rb_fn fn, void *ctx)
{
	struct loop_rb *r = malloc(sizeof(*r)), **rbs = r ? realloc(l->rbs, (l->nr_rbs + 1) * sizeof(*rbs)) : NULL;
	int rc;

	if (!rbs) {
		free(r);
		return -ENOMEM;
	}
	l->rbs = rbs;
	*r = (struct loop_rb){ l, fn, ctx };
	if (l->rb) {
		if (ring_buffer__add(l->rb, map_fd, rb_record, r) < 0) {
			rc = -errno;
			free(r);
			return rc;
		}
		rbs[l->nr_rbs++] = r;
		return 0;
	}
	l->rb = ring_buffer__new(map_fd, rb_record, r, NULL);
	if (!l->rb) {
		rc = -errno;
		free(r);
		return rc;
	}
	rbs[l->nr_rbs++] = r;
	rc = loop__add_fd(l, ring_buffer__epoll_fd(l->rb), POLLIN, consume_rb, l);
	if (rc) {
		ring_buffer__free(l->rb);
		l->rb = NULL;
	}
	return rc;
}

void loop__watch_output(struct loop *l, int fd)
{
	signal(SIGPIPE, SIG_IGN);	/* a reader that quits is an end, not a kill */
	l->out_fd = fd;
}

void loop__set_child(struct loop *l, pid_t child)
{
	l->child = child;
	l->child_reaped = false;
	l->kill_sent = 0;
}

/* reap the command if it ended; true when it did */
static bool child_ended(struct loop *l)
{
	int st;
	pid_t r;

	if (!l->child)
		return false;
	while ((r = wait4(l->child, &st, WNOHANG, &l->child_ru)) < 0 && errno == EINTR)
		;
	if (r == l->child || (r < 0 && errno == ECHILD)) {
		l->child_status = r == l->child ? st : 0;
		l->child_reaped = true;
		l->child = 0;
		return true;
	}
	return false;
}

/* send the command `sig`, and give it LOOP_GRACE_MS before the SIGKILL */
static void end_child(struct loop *l, int sig)
{
	if (!l->child || l->kill_sent == SIGKILL)
		return;
	kill(l->child, sig);
	l->kill_sent = sig;
	if (sig != SIGKILL)
		arm(&l->gfd, LOOP_GRACE_MS * 1000000LL, false);
}

/*
 * The loop was asked to stop: at once, or once the command has ended. A
 * second signal while it is ending kills it; other repeated asks change
 * nothing.
 */
static bool stop(struct loop *l, enum loop_end why, int sig)
{
	if (l->stopping) {
		if (why == LOOP_SIGNAL && l->child)
			end_child(l, SIGKILL);
		return !l->child;
	}
	l->stopping = true;
	l->why = why;
	if (!l->child)
		return true;
	end_child(l, sig);
	return false;
}

static bool read_timer(int fd)
{
	uint64_t ticks;

	return fd >= 0 && read(fd, &ticks, sizeof(ticks)) == sizeof(ticks);
}

/* the signals that came; true when the loop ends now */
static bool take_signals(struct loop *l)
{
	struct signalfd_siginfo si;
	bool end = false;

	while (read(l->sfd, &si, sizeof(si)) == sizeof(si)) {
		int sig = si.ssi_signo;

		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || (thread_stop_sig && sig == thread_stop_sig)) {
			if (!l->signo)
				l->signo = sig;
			end |= stop(l, LOOP_SIGNAL, sig);
		} else if (sig != SIGCHLD && l->on_signal) {
			int rc;

			l->sig_pid = (pid_t)si.ssi_pid;
			l->sig_code = si.ssi_code;
			l->sig_value = si.ssi_int;
			rc = l->on_signal(l->sig_ctx, sig, 0);

			if (rc < 0) {
				l->err = rc;
				return true;
			}
			if (rc == 1)
				end |= stop(l, LOOP_STOP, SIGTERM);
		}
	}
	return end;
}

enum loop_end loop__run(struct loop *l)
{
	int n = l->nr_src + 6;
	struct pollfd *pf = calloc(n, sizeof(*pf));

	l->stopping = false;
	l->err = 0;
	if (!pf) {
		l->err = -ENOMEM;
		return LOOP_ERROR;
	}
	for (;;) {
		int i, rc = 0;

		if (child_ended(l)) {
			if (!l->stopping)
				l->why = LOOP_CHILD;
			break;
		}
		pf[0] = (struct pollfd){ l->sfd, POLLIN, 0 };
		pf[1] = (struct pollfd){ l->dfd, POLLIN, 0 };
		pf[2] = (struct pollfd){ l->tfd, POLLIN, 0 };
		pf[3] = (struct pollfd){ l->gfd, POLLIN, 0 };
		/* a pipe's write end says POLLERR when its reader is gone */
		pf[4] = (struct pollfd){ l->stopping ? -1 : l->out_fd, 0, 0 };
		for (i = 0; i < l->nr_src; i++)
			pf[5 + i] = (struct pollfd){ l->src[i].fd, l->src[i].events, 0 };
		if (poll(pf, 5 + l->nr_src, -1) < 0) {
			if (errno == EINTR)
				continue;
			l->err = -errno;
			break;
		}
		for (i = 0; i < l->nr_src && rc == 0; i++) {
			short re = pf[5 + i].revents;

			if (!re)
				continue;
			rc = l->src[i].fn(l->src[i].ctx, l->src[i].fd, re);
			/*
			 * hung up with nothing to read (a perf event whose task exited, a
			 * closed terminal): polled again it would spin; its callback had
			 * its last word
			 */
			if (!rc && !(re & POLLIN) && (re & (POLLHUP | POLLERR | POLLNVAL)))
				l->src[i].fd = -1;
		}
		if (rc < 0) {
			l->err = rc;
			break;
		}
		if (rc == 1 && stop(l, LOOP_STOP, SIGTERM))
			break;
		if ((pf[0].revents & POLLIN) && take_signals(l))
			break;
		if ((pf[1].revents & POLLIN) && read_timer(l->dfd) && stop(l, LOOP_DURATION, SIGTERM))
			break;
		if ((pf[3].revents & POLLIN) && read_timer(l->gfd) && l->child)
			end_child(l, SIGKILL);
		if (pf[4].revents & (POLLERR | POLLHUP) && stop(l, LOOP_OUTPUT, SIGTERM))
			break;
		if ((pf[2].revents & POLLIN) && read_timer(l->tfd) && l->tick) {
			rc = l->tick(l->tick_ctx, -1, 0);
			if (rc < 0) {
				l->err = rc;
				break;
			}
			if (rc == 1 && stop(l, LOOP_STOP, SIGTERM))
				break;
		}
	}
	free(pf);
	read_rings(l, LOOP_SLICE_MS);
	if (l->err)
		return LOOP_ERROR;
	return l->why;
}

void loop__consume(struct loop *l)
{
	read_rings(l, LOOP_SLICE_MS);
}

size_t loop__drain(struct loop *l)
{
	size_t left;

	if (!l->rb)
		return 0;
	l->rb_until = util__now_ns() + LOOP_DRAIN_MS * 1000000ULL;
	if (ring_buffer__consume(l->rb) != RB_SLICE_END)
		return 0;
	l->rb_skip = true;
	l->rb_skipped = 0;
	ring_buffer__consume(l->rb);
	l->rb_skip = false;
	left = l->rb_skipped;
	return left;
}

int loop__exit_code(const struct loop *l, enum loop_end end)
{
	switch (end) {
	case LOOP_ERROR:
	case LOOP_OUTPUT:	/* as the hub's rule for stdout: a closed pipe is not success */
		return 1;
	case LOOP_CHILD:
		return workload__exit_code(l->child_status);
	case LOOP_SIGNAL:
		return l->child_reaped ? workload__exit_code(l->child_status) : 0;
	default:
		return 0;
	}
}

void loop__fini(struct loop *l)
{
	struct signalfd_siginfo si;

	if (l->child && !l->child_reaped) {
		workload__end(l->child, l->kill_sent ? SIGKILL : SIGTERM, LOOP_GRACE_MS, &l->child_status);
		l->child_reaped = true;
		l->child = 0;
	}
	ring_buffer__free(l->rb);
	l->rb = NULL;
	for (int i = 0; i < l->nr_rbs; i++)
		free(l->rbs[i]);
	free(l->rbs);
	l->rbs = NULL;
	l->nr_rbs = 0;
	free(l->src);
	l->src = NULL;
	l->nr_src = 0;
	/* what came after the loop ended asked for what is happening already: an end */
	if (l->sfd >= 0)
		while (read(l->sfd, &si, sizeof(si)) == sizeof(si))
			;
	if (l->sfd >= 0)
		close(l->sfd);
	if (l->dfd >= 0)
		close(l->dfd);
	if (l->tfd >= 0)
		close(l->tfd);
	if (l->gfd >= 0)
		close(l->gfd);
	l->sfd = l->dfd = l->tfd = l->gfd = -1;
	sigprocmask(SIG_SETMASK, &l->old_mask, NULL);
}
