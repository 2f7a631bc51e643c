// SPDX-License-Identifier: GPL-2.0
/*
 * load.c - BPF_PROG_LOAD that a signal interrupts and that says when the
 * verifier is slow (see load.h).
 *
 * The kernel's verifier returns -EAGAIN when the loading thread has a signal
 * pending that is neither blocked nor ignored; libbpf retries EAGAIN up to
 * five times, each a verification from the start. So during the loads
 * SIGINT and SIGTERM are unblocked and caught by a handler that only notes
 * them, libbpf gets one attempt, and the retries here stop once a signal
 * came. A watchdog thread (every signal blocked, so that the signals go to
 * the loading thread) prints one message once the loads take LOADER_SLOW_MS.
 */
#include "lang/load.h"
#include "lang/lang.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct loader {
	struct sigaction old_int, old_term;
	sigset_t old_mask;
	pthread_t watchdog;
	bool have_watchdog;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	const char *what;	/* under lock */
	struct timespec start;
	long slow_ms;		/* LOADER_SLOW_MS, or SONDE_VERIFIER_SLOW_MS (tests) */
};

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	caught = sig;
}

static void *watchdog(void *arg)
{
	struct loader *l = arg;
	struct timespec deadline = l->start;

	deadline.tv_sec += l->slow_ms / 1000;
	deadline.tv_nsec += (l->slow_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&l->lock);
	while (!l->done)
		if (pthread_cond_timedwait(&l->cond, &l->lock, &deadline) == ETIMEDOUT)
			break;
	if (!l->done)
		lang__diag(LANG_WARNING, "the kernel's verifier has been checking the program for %g s%s%s%s: long "
			   "loops and many branches are slow to verify (Ctrl-C stops it)", l->slow_ms / 1000.0,
			   l->what ? " (now '" : "", l->what ? l->what : "", l->what ? "')" : "");
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

struct loader *loader__start(bool quiet)
{
	struct loader *l = calloc(1, sizeof(*l));
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART: the load returns */
	sigset_t all, sigs;

	if (!l)
		return NULL;
	/*
	 * how long a verifier takes depends on the machine: a test that must see
	 * the message before the verifier gives up sets a shorter wait
	 */
	l->slow_ms = LOADER_SLOW_MS;
	if (getenv("SONDE_VERIFIER_SLOW_MS")) {
		long ms = strtol(getenv("SONDE_VERIFIER_SLOW_MS"), NULL, 10);

		if (ms > 0 && ms < 3600000)
			l->slow_ms = ms;
	}
	caught = 0;
	pthread_mutex_init(&l->lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&l->cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	clock_gettime(CLOCK_MONOTONIC, &l->start);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &l->old_int);
	sigaction(SIGTERM, &sa, &l->old_term);
	if (l->old_int.sa_handler == SIG_IGN)	/* nohup, a background job: stays ignored */
		sigaction(SIGINT, &l->old_int, NULL);
	if (l->old_term.sa_handler == SIG_IGN)
		sigaction(SIGTERM, &l->old_term, NULL);
	/* the watchdog starts with every signal blocked; then this thread takes SIGINT and SIGTERM */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &l->old_mask);
	if (!quiet)
		l->have_watchdog = !pthread_create(&l->watchdog, NULL, watchdog, l);
	sigs = l->old_mask;
	sigdelset(&sigs, SIGINT);
	sigdelset(&sigs, SIGTERM);
	pthread_sigmask(SIG_SETMASK, &sigs, NULL);
	return l;
}

void loader__what(struct loader *l, const char *name)
{
	pthread_mutex_lock(&l->lock);
	l->what = name;
	pthread_mutex_unlock(&l->lock);
}

int loader__prog(struct loader *l, enum bpf_prog_type type, const char *name, const char *license,
		 const struct bpf_insn *insns, size_t n, struct bpf_prog_load_opts *opts)
{
	int fd = -EAGAIN;

	(void)l;
	opts->attempts = 1;
	for (int tries = 0; tries < 5 && fd == -EAGAIN && !caught; tries++)
		fd = bpf_prog_load(type, name, license, insns, n, opts);
	if (caught) {
		if (fd >= 0)
			close(fd);
		return -EINTR;
	}
	return fd;
}

int loader__stop(struct loader *l)
{
	int sig;

	if (!l)
		return 0;
	if (l->have_watchdog) {
		pthread_mutex_lock(&l->lock);
		l->done = true;
		pthread_cond_signal(&l->cond);
		pthread_mutex_unlock(&l->lock);
		pthread_join(l->watchdog, NULL);
	}
	/* a signal that comes from here on finds the handlers as they were */
	sigset_t sigs;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	sig = caught;
	sigaction(SIGINT, &l->old_int, NULL);
	sigaction(SIGTERM, &l->old_term, NULL);
	pthread_sigmask(SIG_SETMASK, &l->old_mask, NULL);
	pthread_cond_destroy(&l->cond);
	pthread_mutex_destroy(&l->lock);
	free(l);
	return sig;
}
