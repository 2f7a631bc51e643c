// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_loop.c - poll a signalfd, timers and libbpf ring buffers in one loop.
 * Signals arrive as data, never as handlers, so whatever ends the loop, the
 * caller goes on to read its maps, print and destroy its skeleton.
 */
#include "lib/bpf/bpf_loop.h"
#include "lib/util.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int bpf_loop__init(struct bpf_loop *l)
{
	sigset_t mask;

	memset(l, 0, sizeof(*l));
	l->sfd = l->tfd = l->kfd = -1;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &mask, &l->old_mask))
		return -errno;
	l->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (l->sfd < 0) {
		int err = -errno;

		sigprocmask(SIG_SETMASK, &l->old_mask, NULL);
		return err;
	}
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

int bpf_loop__set_duration(struct bpf_loop *l, double seconds)
{
	return arm(&l->tfd, (long long)(seconds * 1e9), false);
}

void bpf_loop__set_child(struct bpf_loop *l, pid_t child)
{
	l->child = child;
}

int bpf_loop__set_tick(struct bpf_loop *l, int ms, bpf_loop_tick_fn fn, void *ctx)
{
	l->tick = fn;
	l->tick_ctx = ctx;
	return arm(&l->kfd, ms * 1000000LL, true);
}

int bpf_loop__add_ringbuf(struct bpf_loop *l, int map_fd, bpf_loop_rb_fn fn, void *ctx)
{
	int rc;

	if (!l->rb) {
		l->rb = ring_buffer__new(map_fd, (ring_buffer_sample_fn)fn, ctx, NULL);
		rc = l->rb ? 0 : -errno;
	} else {
		rc = ring_buffer__add(l->rb, map_fd, (ring_buffer_sample_fn)fn, ctx);
	}
	return rc < 0 ? rc : 0;
}

/* reap the child if it ended; true when it did */
static bool child_ended(struct bpf_loop *l)
{
	int st;
	pid_t r;

	if (!l->child)
		return false;
	while ((r = waitpid(l->child, &st, WNOHANG)) < 0 && errno == EINTR)
		;
	if (r == l->child) {
		l->child_status = st;
		return true;
	}
	return false;
}

enum bpf_loop_end bpf_loop__run(struct bpf_loop *l)
{
	enum bpf_loop_end end;

	for (;;) {
		struct pollfd pf[4] = {
			{ l->sfd, POLLIN, 0 }, { l->tfd, POLLIN, 0 }, { l->kfd, POLLIN, 0 },
			{ l->rb ? ring_buffer__epoll_fd(l->rb) : -1, POLLIN, 0 },
		};
		uint64_t ticks;

		if (child_ended(l)) {
			end = BPF_LOOP_CHILD;
			break;
		}
		if (poll(pf, 4, -1) < 0) {
			if (errno == EINTR)
				continue;
			l->err = -errno;
			end = BPF_LOOP_ERROR;
			break;
		}
		if (pf[3].revents) {
			int rc = ring_buffer__consume(l->rb);

			if (rc < 0 && rc != -EINTR) {
				l->err = rc;
				end = BPF_LOOP_ERROR;
				break;
			}
		}
		if (pf[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			bool stop = false;

			while (read(l->sfd, &si, sizeof(si)) == sizeof(si))
				if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM) {
					l->signo = si.ssi_signo;
					stop = true;
				}
			if (stop) {
				end = BPF_LOOP_SIGNAL;
				break;
			}
		}
		if ((pf[1].revents & POLLIN) && read(l->tfd, &ticks, sizeof(ticks)) > 0) {
			end = BPF_LOOP_DURATION;
			break;
		}
		if ((pf[2].revents & POLLIN) && read(l->kfd, &ticks, sizeof(ticks)) > 0 &&
		    l->tick && l->tick(l->tick_ctx) == 1) {
			end = BPF_LOOP_TICK;
			break;
		}
	}
	if (l->rb)
		ring_buffer__consume(l->rb);
	return end;
}

void bpf_loop__drain(struct bpf_loop *l)
{
	if (l->rb)
		ring_buffer__consume(l->rb);
}

void bpf_loop__fini(struct bpf_loop *l)
{
	ring_buffer__free(l->rb);
	l->rb = NULL;
	if (l->sfd >= 0)
		close(l->sfd);
	if (l->tfd >= 0)
		close(l->tfd);
	if (l->kfd >= 0)
		close(l->kfd);
	l->sfd = l->tfd = l->kfd = -1;
	sigprocmask(SIG_SETMASK, &l->old_mask, NULL);
}
