// SPDX-License-Identifier: GPL-2.0
/*
 * profile.c - the profiles `sonde serve` answers with: CPU samples from the
 * sampler record and top use (lib/event/sampler.c), stacks resolved by the
 * session's resolver, folded into a stack tree and written by lib/export's
 * pprof writer and lib/flame's SVG renderer; off-CPU time from lib/bpf's
 * offcpu engine. See serve.h.
 */
#include "lib/serve/serve.h"
#include "lib/bpf/bpf_offcpu.h"
#include "lib/bpf/offcpu_maps.h"
#include "lib/event/event.h"
#include "lib/event/sampler.h"
#include "lib/export/export.h"
#include "lib/flame/flamegraph.h"
#include "lib/flame/folded.h"
#include "lib/perfdata/perfdata.h"
#include "lib/profile/session.h"
#include "lib/symbol/symbol.h"
#include "lib/proc/target.h"
#include "lib/util.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROF_MAX_STACK 127
#define PROF_MAX_PIDS 65536

struct serve_symcache {
	struct symbolizer *sym;
	pid_t *loaded;		/* processes whose maps are known */
	size_t nloaded;
};

struct cpu_prof {
	struct serve_symcache *sc;	/* the caller's, or this window's own */
	struct symbolizer *sym;		/* sc->sym */
	struct folded *f;
	struct perfdata_attr attr;
	struct session_frame frames[PROF_MAX_STACK + 1];
	const char *names[PROF_MAX_STACK + 1];
	size_t lens[PROF_MAX_STACK + 1];
	uint64_t samples;
};

static double now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}


void serve_profile__free(struct serve_profile *p)
{
	free(p->pprof.data);
	free(p->svg.data);
	memset(p, 0, sizeof(*p));
}

struct serve_symcache *serve_symcache__new(void)
{
	struct serve_symcache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->sym = symbolizer__new(0);
	c->loaded = calloc(PROF_MAX_PIDS, sizeof(pid_t));
	if (!c->sym || !c->loaded) {
		serve_symcache__free(c);
		return NULL;
	}
	return c;
}

void serve_symcache__free(struct serve_symcache *c)
{
	if (!c)
		return;
	symbolizer__free(c->sym);
	free(c->loaded);
	free(c);
}

/* remember pid as known; false when it was already */
static bool mark_loaded(struct cpu_prof *c, pid_t pid)
{
	struct serve_symcache *sc = c->sc;

	for (size_t i = 0; i < sc->nloaded; i++)
		if (sc->loaded[i] == pid)
			return false;
	if (sc->nloaded >= PROF_MAX_PIDS)
		return false;
	sc->loaded[sc->nloaded++] = pid;
	return true;
}

/* a process that exited: its maps go (its pid may come back as another) */
static void forget(struct cpu_prof *c, pid_t pid)
{
	struct serve_symcache *sc = c->sc;

	for (size_t i = 0; i < sc->nloaded; i++)
		if (sc->loaded[i] == pid) {
			sc->loaded[i] = sc->loaded[--sc->nloaded];
			symbolizer__exit(c->sym, pid);
			return;
		}
}

/* the maps of a process that ran before the window, read once from /proc */
static void load_maps(struct cpu_prof *c, pid_t pid)
{
	if (mark_loaded(c, pid))
		symbolizer__load_proc_maps(c->sym, pid);
}

static int on_record(const struct perfdata_event *ev, void *ctx)
{
	struct cpu_prof *c = ctx;
	bool kernel = session__kernel_sample(ev->misc);
	int n;

	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		/* a process that maps files while the window runs: its maps from the kernel, as a recording's */
		load_maps(c, (pid_t)ev->mmap.pid);
		symbolizer__add_mmap(c->sym, (pid_t)ev->mmap.pid, ev->mmap.start, ev->mmap.len, ev->mmap.pgoff,
				     ev->mmap.filename, ev->mmap.build_id, ev->mmap.build_id_size);
		return 0;
	case PERF_RECORD_COMM:
		if (ev->comm.exec)
			symbolizer__exec(c->sym, (pid_t)ev->comm.pid);
		return 0;
	case PERF_RECORD_FORK:
		if (ev->task.pid != ev->task.ppid) {
			load_maps(c, (pid_t)ev->task.ppid);
			mark_loaded(c, (pid_t)ev->task.pid);
			symbolizer__fork(c->sym, (pid_t)ev->task.ppid, (pid_t)ev->task.pid);
		}
		return 0;
	case PERF_RECORD_EXIT:
		if (ev->task.pid == ev->task.tid)
			forget(c, (pid_t)ev->task.pid);
		return 0;
	case PERF_RECORD_SAMPLE:
		break;
	default:
		return 0;
	}
	if (!ev->sample.pid)
		return 0;	/* the idle task: the CPU had nothing to run (Parca Agent leaves it out too) */
	c->samples++;
	if (!kernel || ev->sample.pid)
		load_maps(c, (pid_t)ev->sample.pid);
	n = session__resolve_stack(c->sym, 0, &ev->attr->attr, &ev->sample, kernel, PROF_MAX_STACK,
				   c->frames, PROF_MAX_STACK + 1, NULL, NULL);
	for (int i = 0; i < n; i++) {
		const char *name = c->frames[n - 1 - i].sym.sym;

		c->names[i] = name ? name : "[unknown]";
		c->lens[i] = strlen(c->names[i]);
	}
	return n > 0 ? folded__add_frames(c->f, c->names, c->lens, n, 1, 0) : 0;
}

/* a record cut short ends the batch, as the kernel never writes one */
static int on_records(void *ctx, const void *recs, size_t len)
{
	struct cpu_prof *c = ctx;
	int rc = perfdata__parse_records(&c->attr, recs, len, on_record, c);

	return rc == -EBADMSG ? 0 : rc;
}

/* wait until the window ends or *stop, draining the buffers as they fill */
static int sample_window(struct sampler *smp, struct cpu_prof *c, unsigned seconds, volatile bool *stop)
{
	struct pollfd pf[256];
	int npf = sampler__pollfds(smp, pf, 256), rc = 0;
	double end = util__now_s() + seconds;

	while (!rc && !(stop && *stop)) {
		double left = end - util__now_s();

		if (left <= 0)
			break;
		poll(pf, npf, left > 0.1 ? 100 : (int)(left * 1000) + 1);
		rc = sampler__drain(smp, on_records, c);
	}
	return rc > 0 ? -EIO : rc;
}

/* the finished tree as pprof and as an SVG flame graph */
static int write_outputs(struct folded *f, const char *type, const char *unit, const char *title,
			 struct serve_profile *out, char *err, size_t errlen)
{
	struct flame_opts fo;
	struct flame_result res;
	FILE *m;
	int rc = folded__finish(f);

	if (rc)
		return rc;
	if (!(m = open_memstream(&out->pprof.data, &out->pprof.len)))
		return -ENOMEM;
	rc = export__pprof(f, m, type, unit, err, errlen);
	if (fclose(m) && !rc)
		rc = -ENOMEM;
	if (rc)
		return rc;
	flame_opts__init(&fo);
	fo.title = title;
	fo.countname = !strcmp(unit, "count") ? "samples" : unit;
	if (!(m = open_memstream(&out->svg.data, &out->svg.len)))
		return -ENOMEM;
	rc = flame__render(f, &fo, m, &res, err, errlen);
	if (fclose(m) && !rc)
		rc = -ENOMEM;
	return rc;
}

static int cpu_profile(const struct serve_query *q, unsigned freq, struct serve_symcache *cache,
		       volatile bool *stop, struct serve_profile *out, char *err, size_t errlen)
{
	struct evlist evl = { 0 };
	struct target tg = { 0 };
	char pidbuf[16];
	struct target_opts to = { .accept = TARGET_PID | TARGET_ALL, .verb = "sample" };
	struct sampler_config cfg = { .freq = freq ? freq : SAMPLER_DEFAULT_FREQ, .callgraph = CALLGRAPH_FP,
				      .mmap_pages = 64 };
	struct sampler smp = { 0 };
	struct cpu_prof *c = calloc(1, sizeof(*c));
	bool opened = false;
	int rc;

	if (!c)
		return -ENOMEM;
	if (q->pid) {
		snprintf(pidbuf, sizeof(pidbuf), "%d", (int)q->pid);
		to.pids = pidbuf;
	} else {
		to.all = true;
	}
	c->sc = cache ? cache : serve_symcache__new();
	c->sym = c->sc ? c->sc->sym : NULL;
	c->f = folded__new(0);
	rc = c->sc && c->f ? 0 : -ENOMEM;
	if (!rc)
		rc = evlist__parse(&evl, "cpu-clock", err, errlen);
	if (!rc)
		rc = target__setup(&tg, &to, err, errlen);
	if (!rc) {
		sampler__config_attrs(&evl, &tg, &cfg);
		rc = sampler__open(&smp, &evl, &tg, &cfg, err, errlen);
		opened = !rc;
	}
	if (!rc) {
		c->attr.attr = evl.ev[0].attr;
		out->start = now_real();
		rc = sampler__enable(&smp);
	}
	if (!rc)
		rc = sample_window(&smp, c, q->seconds, stop);
	if (opened) {
		sampler__disable(&smp);
		if (!rc)
			rc = sampler__drain(&smp, on_records, c) > 0 ? -EIO : 0;
		sampler__close(&smp);
	}
	out->end = now_real();
	out->samples = c->samples;
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (rc == -EIO)
		snprintf(err, errlen, "cannot read the samples");
	if (!rc)
		rc = write_outputs(c->f, "samples", "count", "CPU", out, err, errlen);
	target__free(&tg);
	evlist__free(&evl);
	if (c->sc != cache)
		serve_symcache__free(c->sc);
	folded__free(c->f);
	free(c);
	return rc;
}

/* one off-CPU stack, root first: kernel stack innermost at the end, as offcputime folds it */
static int add_offcpu(struct folded *f, struct symbolizer *s, const struct offcpu_entry *e)
{
	const char *names[2 * OFFCPU_MAX_DEPTH + 2];
	size_t lens[2 * OFFCPU_MAX_DEPTH + 2], n = 0;
	uint64_t us = e->ns / 1000;

	if (!us || e->oncpu)
		return 0;
	names[n++] = e->key.comm;
	for (int i = e->nr_user - 1; i >= 0 && n < OFFCPU_MAX_DEPTH; i--)
		names[n++] = offcpu__frame_name(s, e->key.tgid, e->user[i], false);
	for (int i = e->nr_kern - 1, skip = offcpu_entry__kern_skip(s, e); i >= skip && n < 2 * OFFCPU_MAX_DEPTH; i--)
		names[n++] = offcpu__frame_name(s, e->key.tgid, e->kern[i], true);
	for (size_t i = 0; i < n; i++)
		lens[i] = strnlen(names[i], i ? 4096 : sizeof(e->key.comm));
	return folded__add_frames(f, names, lens, n, (double)us, 0);
}

static int offcpu_profile(const struct serve_query *q, volatile bool *stop, struct serve_profile *out,
			  char *err, size_t errlen)
{
	struct offcpu_opts oo = { .state = -1 };
	struct offcpu_profile p = { 0 };
	struct offcpu_maps mw;
	struct offcpu *oc = NULL;
	struct symbolizer *sym = symbolizer__new(0);
	struct folded *f = folded__new(0);
	pid_t pid = q->pid;
	double end;
	int rc = sym && f ? 0 : -ENOMEM;

	if (q->pid) {
		oo.filter = OFFCPU_TGID;
		oo.targets = &pid;
		oo.nr_targets = 1;
		oo.follow = true;
	}
	offcpu_maps__init(&mw, sym, NULL);
	if (!rc)
		rc = offcpu__new(&oc, &oo, err, errlen);
	if (!rc)
		rc = offcpu__attach(oc, err, errlen);
	out->start = now_real();
	for (end = util__now_s() + q->seconds; !rc && !(stop && *stop) && util__now_s() < end;) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	out->end = now_real();
	if (oc)
		offcpu__detach(oc);
	if (!rc && (rc = offcpu__read(oc, &p)))
		snprintf(err, errlen, "cannot read the off-CPU maps: %s", strerror(-rc));
	if (!rc) {
		offcpu_maps__load_rest(&mw, &p);
		for (int i = 0; i < p.n && !rc; i++)
			rc = add_offcpu(f, sym, &p.e[i]);
		out->samples = p.stats[OFFCPU_STAT_BLOCKS];
		if (!rc)
			rc = write_outputs(f, "offcpu", "microseconds", "Off-CPU Time", out, err, errlen);
	}
	offcpu_profile__free(&p);
	offcpu__free(oc);
	offcpu_maps__fini(&mw);
	symbolizer__free(sym);
	folded__free(f);
	return rc;
}

int serve__profile(enum serve_kind kind, const struct serve_query *q, unsigned freq, struct serve_symcache *cache,
		   volatile bool *stop, struct serve_profile *out, char *err, size_t errlen)
{
	int rc;

	memset(out, 0, sizeof(*out));
	err[0] = 0;
	rc = kind == SERVE_CPU ? cpu_profile(q, freq, cache, stop, out, err, errlen)
			       : offcpu_profile(q, stop, out, err, errlen);
	if (rc) {
		if (!err[0])
			snprintf(err, errlen, "cannot profile: %s", strerror(-rc));
		serve_profile__free(out);
	}
	return rc;
}
