// SPDX-License-Identifier: GPL-2.0
/*
 * mapread.c - a probe program kept running while its maps are read: what
 * `sonde serve` exports in /metrics (lang.h, "live").
 *
 * The program runs as `sonde probe` runs it, through runtime__run, in a
 * thread of its own: that thread's event loop reads its ring buffer (printf
 * and the like, counted here and thrown away) and stops on SIGUSR2 alone
 * (loop__thread_stop_signal: SIGINT and SIGTERM are the server's main
 * thread's). live__stop() sends the thread a SIGUSR2 of its own
 * (pthread_kill), so the run ends as a Ctrl-C ends `sonde probe`: probes
 * detached, maps closed. The run's output stream is a cookie FILE: the line
 * runtime__run writes once every probe is attached (notify_attached) tells
 * live__start to return, and is when the maps' descriptors are duplicated,
 * so that reading them never races with the run closing its own.
 */
#include "lang/lang.h"
#include "lang/comptime.h"
#include "lang/output.h"
#include "lang/provider.h"
#include "lang/runtime.h"
#include "lang/testbench.h"
#include "ui/hist.h"
#include "lib/loop/loop.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOTIFY_LINE "__BPFTRACE_NOTIFY_PROBES_ATTACHED"
#define STOP_SIGNAL SIGUSR2

struct live {
	struct program *prog;
	char *src;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;	/* the fields below, and one reader of the maps at a time */
	pthread_cond_t cond;
	bool attached, ended;
	int rc;			/* the run's */
	char err[1024];
	int *fds;		/* the maps' descriptors (dup'd), in prog->maps order; -1: none */
	int nfds;
	uint64_t lines;
	char line[64];		/* the start of the line being written */
	size_t linelen;
	FILE *out;
	int ncpus;
};

/* the maps' descriptors, ours from now on (called in the run's thread, lock held) */
static void keep_fds(struct live *l)
{
	int n = 0, i = 0;

	for (struct mapinfo *m = l->prog->maps; m; m = m->next)
		n++;
	l->fds = calloc(n ? n : 1, sizeof(int));
	if (!l->fds)
		return;
	for (struct mapinfo *m = l->prog->maps; m; m = m->next)
		l->fds[i++] = m->fd >= 0 ? dup(m->fd) : -1;
	l->nfds = n;
}

static ssize_t out_write(void *cookie, const char *buf, size_t size)
{
	struct live *l = cookie;

	pthread_mutex_lock(&l->lock);
	for (size_t i = 0; i < size; i++) {
		if (buf[i] != '\n') {
			if (l->linelen < sizeof(l->line) - 1)
				l->line[l->linelen++] = buf[i];
			continue;
		}
		l->line[l->linelen] = 0;
		if (!l->attached && !strcmp(l->line, NOTIFY_LINE)) {
			keep_fds(l);
			l->attached = true;
			pthread_cond_broadcast(&l->cond);
		} else {
			l->lines++;
		}
		l->linelen = 0;
	}
	pthread_mutex_unlock(&l->lock);
	return (ssize_t)size;
}

static void *run(void *arg)
{
	struct live *l = arg;
	char err[1024] = "";
	struct run_opts ro = { .out = l->out, .quiet = true, .notify_attached = true, .begin_last = true };
	sigset_t stop;
	int rc;

	/* blocked from the start: a stop that comes before the loop is there waits for it */
	sigemptyset(&stop);
	sigaddset(&stop, STOP_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	loop__thread_stop_signal(STOP_SIGNAL);
	rc = runtime__run(l->prog, &ro, err, sizeof(err));

	fflush(l->out);
	pthread_mutex_lock(&l->lock);
	l->rc = rc;
	if (rc && !l->err[0])
		snprintf(l->err, sizeof(l->err), "%s", l->prog->err ? l->prog->err : err);
	l->ended = true;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/* the first line of msg (the compiler's: "NAME:1:5-10: ERROR: what") */
static void one_line(char *err, size_t errlen, const char *msg)
{
	size_t n = strcspn(msg, "\n");

	snprintf(err, errlen, "%.*s", (int)n, msg);
}

static int compile(struct program *p)
{
	int rc = lang__parse(p);

	if (!rc)
		rc = lang__expand_macros(p);
	if (!rc)
		rc = provider__expand_all(p, 0);
	if (!rc)
		rc = testbench__select(p);
	if (!rc)
		rc = lang__check(p);
	return rc;
}

int live__start(struct live **out, const char *name, const char *src, size_t len, char *err, size_t errlen)
{
	struct live *l = calloc(1, sizeof(*l));
	cookie_io_functions_t io = { .write = out_write };
	int rc;

	if (!l || !(l->src = malloc(len + 1))) {
		free(l);
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	memcpy(l->src, src, len);
	l->src[len] = 0;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cond, NULL);
	l->ncpus = libbpf_num_possible_cpus();
	if (l->ncpus < 1)
		l->ncpus = 1;
	l->prog = lang__new(name, l->src, len);
	if (!l->prog) {
		live__stop(l);
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	if (compile(l->prog)) {
		one_line(err, errlen, l->prog->err ? l->prog->err : "cannot compile the program");
		live__stop(l);
		return -EINVAL;
	}
	if (l->prog->warn && !l->prog->no_warnings)
		fputs(l->prog->warn, stderr);
	l->prog->cfg.no_print_maps = true;	/* what it printed at the end would go nowhere */
	l->out = fopencookie(l, "w", io);
	if (!l->out) {
		live__stop(l);
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	setvbuf(l->out, NULL, _IONBF, 0);
	if ((rc = -pthread_create(&l->thread, NULL, run, l))) {
		live__stop(l);
		snprintf(err, errlen, "%s: cannot start a thread: %s", name, strerror(-rc));
		return rc;
	}
	l->started = true;
	pthread_mutex_lock(&l->lock);
	while (!l->attached && !l->ended)
		pthread_cond_wait(&l->cond, &l->lock);
	rc = l->attached ? 0 : l->rc ? l->rc : -ECANCELED;
	if (rc)
		one_line(err, errlen, l->err[0] ? l->err : "the program ended before its probes were attached");
	pthread_mutex_unlock(&l->lock);
	if (rc) {
		live__stop(l);
		return rc;
	}
	*out = l;
	return 0;
}

bool live__ended(struct live *l)
{
	bool e;

	pthread_mutex_lock(&l->lock);
	e = l->ended;
	pthread_mutex_unlock(&l->lock);
	return e;
}

uint64_t live__output_lines(struct live *l)
{
	uint64_t n;

	pthread_mutex_lock(&l->lock);
	n = l->lines;
	pthread_mutex_unlock(&l->lock);
	return n;
}

void live__stop(struct live *l)
{
	if (!l)
		return;
	if (l->started) {
		pthread_kill(l->thread, STOP_SIGNAL);	/* its loop's signalfd takes it: the run ends */
		pthread_join(l->thread, NULL);
	}
	if (l->out)
		fclose(l->out);
	for (int i = 0; i < l->nfds; i++)
		if (l->fds[i] >= 0)
			close(l->fds[i]);
	free(l->fds);
	if (l->prog)
		lang__free(l->prog);
	free(l->src);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->cond);
	free(l);
}

/* ---- reading the maps ---- */

static bool served(const struct mapinfo *m)
{
	switch (m->agg) {
	case AGG_COUNT: case AGG_SUM: case AGG_AVG: case AGG_MIN: case AGG_MAX: case AGG_HIST: case AGG_LHIST:
		return true;
	case AGG_NONE:
		return m->val.kind == TY_INT && !m->val.ptr;
	default:
		return false;
	}
}

/* one key's entry, gathered over the map's keys (hist/lhist: one map key per bucket) */
struct gathered {
	uint8_t *key;
	char **parts;		/* the key's parts as text (emit()) */
	int64_t v, count;
	bool set;
	uint64_t *counts;
};

struct reader {
	struct live *l;
	struct mapinfo *m;
	int fd;
	size_t keylen;		/* the user's key, without a hist bucket */
	int nb;
	struct gathered *g;
	int n, cap;
};

static struct gathered *find(struct reader *r, const uint8_t *key)
{
	for (int i = 0; i < r->n; i++)
		if (!memcmp(r->g[i].key, key, r->keylen))
			return &r->g[i];
	if (r->n == r->cap) {
		int cap = r->cap ? 2 * r->cap : 64;
		struct gathered *ng = realloc(r->g, cap * sizeof(*ng));

		if (!ng)
			return NULL;
		r->g = ng;
		r->cap = cap;
	}
	struct gathered *g = &r->g[r->n];

	memset(g, 0, sizeof(*g));
	g->key = malloc(r->keylen ? r->keylen : 1);
	g->counts = r->nb ? calloc(r->nb, sizeof(uint64_t)) : NULL;
	if (!g->key || (r->nb && !g->counts)) {
		free(g->key);
		free(g->counts);
		return NULL;
	}
	memcpy(g->key, key, r->keylen);
	r->n++;
	return g;
}

/* fold one map element's per-CPU values into its key's entry */
static void fold(struct reader *r, struct gathered *g, const uint8_t *key, const uint8_t *val)
{
	struct mapinfo *m = r->m;
	int ncpu = m->percpu ? r->l->ncpus : 1;

	for (int c = 0; c < ncpu; c++) {
		const int64_t *v = (const int64_t *)(val + (size_t)c * m->value_size);

		switch (m->agg) {
		case AGG_NONE:
			g->v = v[0];
			g->set = true;
			return;
		case AGG_COUNT: case AGG_SUM:
			g->v += v[0];
			break;
		case AGG_AVG:
			g->count += v[0];
			g->v += v[1];
			break;
		case AGG_MIN: case AGG_MAX:
			if (!v[1])	/* that CPU never set it */
				break;
			if (!g->set || (m->agg == AGG_MIN ? v[0] < g->v : v[0] > g->v))
				g->v = v[0];
			g->set = true;
			break;
		case AGG_HIST: case AGG_LHIST: {
			uint64_t b = *(const uint64_t *)(key + m->key_size - 8);

			if (b < (uint64_t)r->nb)	/* not --percentiles' max */
				g->counts[b] += (uint64_t)v[0];
			break;
		}
		default:
			return;
		}
	}
}

static int read_map(struct reader *r)
{
	struct mapinfo *m = r->m;
	int ncpu = m->percpu ? r->l->ncpus : 1;
	uint8_t *key = calloc(1, m->key_size), *next = calloc(1, m->key_size);
	uint8_t *val = calloc(ncpu, m->value_size);
	bool first = true;
	int rc = 0;

	if (!key || !next || !val)
		rc = -ENOMEM;
	for (uint32_t n = 0; !rc && n < m->max_entries && !bpf_map_get_next_key(r->fd, first ? NULL : key, next); n++) {
		struct gathered *g;

		first = false;
		memcpy(key, next, m->key_size);
		if (bpf_map_lookup_elem(r->fd, key, val))
			continue;
		if (!(g = find(r, key)))
			rc = -ENOMEM;
		else
			fold(r, g, key, val);
	}
	free(key);
	free(next);
	free(val);
	return rc;
}

/* key parts in order: as integers when both are, else as text */
static int cmp_parts(const void *a, const void *b, void *arg)
{
	const struct gathered *x = a, *y = b;
	int n = *(const int *)arg;

	for (int k = 0; k < n; k++) {
		const char *p = x->parts[k] ? x->parts[k] : "", *q = y->parts[k] ? y->parts[k] : "";
		char *pe, *qe;
		long long u = strtoll(p, &pe, 10), v = strtoll(q, &qe, 10);
		int c;

		if (*p && *q && !*pe && !*qe && u != v)
			return u < v ? -1 : 1;
		if ((c = strcmp(p, q)))
			return c;
	}
	return 0;
}

/* every key's entry to fn, in the order of its parts (the label limit keeps the first ones) */
static int emit(struct reader *r, live_fn fn, void *ctx, long long *le, bool unbounded)
{
	struct mapinfo *m = r->m;
	struct out o = { .prog = r->l->prog, .ncpus = r->l->ncpus, .kstack_fd = -1, .ustack_fd = -1 };
	int nparts = m->nkeys > 0 ? m->nkeys : 0, rc = 0;
	size_t plen;

	for (int i = 0; i < r->n && !rc; i++) {
		struct gathered *g = &r->g[i];

		if (!nparts)
			break;
		if (!(g->parts = calloc(nparts, sizeof(char *))))
			rc = -ENOMEM;
		for (int k = 0; k < nparts && !rc; k++) {
			FILE *f = open_memstream(&g->parts[k], &plen);

			if (!f) {
				rc = -ENOMEM;
				break;
			}
			out__key_part(&o, f, m, g->key, k);
			if (fclose(f))
				rc = -ENOMEM;
		}
	}
	free(o.pids);
	if (!rc && nparts)
		qsort_r(r->g, r->n, sizeof(*r->g), cmp_parts, &nparts);
	for (int i = 0; i < r->n && !rc; i++) {
		struct gathered *g = &r->g[i];
		struct live_entry e = { .map = m->name, .agg = m->agg, .nparts = nparts, .parts = g->parts,
					.nb = r->nb, .counts = g->counts, .le = le, .last_unbounded = unbounded };

		if ((m->agg == AGG_MIN || m->agg == AGG_MAX) && !g->set)
			continue;
		e.value = m->agg == AGG_AVG ? (g->count ? (double)(g->v / g->count) : 0) :
			  m->agg == AGG_NONE && !m->val.sign ? (double)(uint64_t)g->v : (double)g->v;
		rc = fn(ctx, &e);
	}
	return rc;
}

int live__each(struct live *l, live_fn fn, void *ctx)
{
	int rc = 0, i = 0;

	pthread_mutex_lock(&l->lock);
	for (struct mapinfo *m = l->prog->maps; m && !rc; m = m->next, i++) {
		struct hist_bt h = { .linear = m->agg == AGG_LHIST, .k = m->hist_k, .min = m->lmin, .max = m->lmax,
				     .step = m->lstep };
		struct reader r = { .l = l, .m = m, .fd = i < l->nfds ? l->fds[i] : -1 };
		long long *le = NULL, lo, hi;
		bool unbounded = false;

		if (r.fd < 0 || !served(m))
			continue;
		if (m->agg == AGG_HIST || m->agg == AGG_LHIST) {
			r.nb = hist__bt_nr_buckets(&h);
			if (r.nb <= 0 || !(le = calloc(r.nb, sizeof(*le)))) {
				rc = r.nb <= 0 ? 0 : -ENOMEM;
				continue;
			}
			for (int b = 0; b < r.nb; b++) {
				unsigned has = hist__bt_range(&h, b, &lo, &hi);

				le[b] = hi;
				/* the last: [max, ...) of lhist, [2^63, ...) of hist (its bound wraps) */
				if (b == r.nb - 1 && (!(has & HIST_BT_MAX) || (b > 0 && hi <= le[b - 1])))
					unbounded = true;
			}
		}
		r.keylen = m->key_size - (r.nb ? 8 : 0);
		rc = read_map(&r);
		if (!rc)
			rc = emit(&r, fn, ctx, le, unbounded);
		for (int k = 0; k < r.n; k++) {
			for (int p = 0; r.g[k].parts && p < m->nkeys; p++)
				free(r.g[k].parts[p]);
			free(r.g[k].parts);
			free(r.g[k].key);
			free(r.g[k].counts);
		}
		free(r.g);
		free(le);
	}
	pthread_mutex_unlock(&l->lock);
	return rc;
}
