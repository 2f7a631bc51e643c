// SPDX-License-Identifier: GPL-2.0
/*
 * top.c - `sonde top`: the hottest functions right now, refreshed in the terminal
 * (perf top). Samples with perf_event_open ring buffers (src/lib/event/sampler.c),
 * symbolizes live processes from /proc/PID/maps, and groups as sonde report does.
 */
#include "sonde.h"
#include "opt.h"
#include "lib/event/event.h"
#include "lib/profile/hist.h"
#include "lib/perfdata/perfdata.h"
#include "lib/event/sampler.h"
#include "lib/loop/loop.h"
#include "lib/profile/session.h"
#include "lib/symbol/symbol.h"
#include "lib/proc/target.h"
#include "ui/report_print.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static const char *const top_usage[] = {
	"sonde top [<options>]",
	NULL,
};

#define MAX_TRACKED 65536
#define TOP_MAX_STACK 127

struct top {
	struct evlist evl;
	char zoom_comm[32], zoom_dso[256];	/* the interactive zoom, empty when off */
	bool zero;
	struct sampler smp;
	struct symbolizer *sym;
	struct hist *h;
	struct hist_opts ho;
	bool hide_kernel, hide_user, callchain;
	struct session_filter filter;	/* --comms */
	struct perfdata_attr attr;	/* the event's, for decoding its records */
	pid_t *loaded;			/* processes whose maps were read */
	size_t nloaded;
	struct session_frame frames[TOP_MAX_STACK + 1];
	uint64_t samples, kernel_samples, lost, interval_samples;
	int err;
};

static bool maps_loaded(struct top *t, pid_t pid)
{
	for (size_t i = 0; i < t->nloaded; i++)
		if (t->loaded[i] == pid)
			return true;
	if (t->nloaded < MAX_TRACKED) {
		t->loaded[t->nloaded++] = pid;
		symbolizer__load_proc_maps(t->sym, pid);
	}
	return false;
}

static int on_record(const struct perfdata_event *ev, void *ctx)
{
	struct top *t = ctx;
	struct session_sample ss = { 0 };
	bool kernel = session__kernel_sample(ev->misc);
	char comm[32];

	if (ev->type == PERF_RECORD_LOST)
		t->lost += ev->lost.lost;
	if (ev->type != PERF_RECORD_SAMPLE)
		return 0;
	t->samples++;
	t->interval_samples++;
	t->kernel_samples += kernel;
	if ((kernel && t->hide_kernel) || (!kernel && t->hide_user))
		return 0;
	if (!kernel)
		maps_loaded(t, (pid_t)ev->sample.pid);
	target__comm(ev->sample.tid, comm, sizeof(comm));
	if (!session_filter__match(&t->filter, comm, ev->sample.pid, ev->sample.tid))
		return 0;
	ss.ev = ev;
	ss.s = &ev->sample;
	ss.comm = comm;
	ss.kernel = kernel;
	ss.frames = t->frames;
	ss.nr_frames = session__resolve_stack(t->sym, 0, &ev->attr->attr, &ev->sample, kernel,
					      t->callchain ? TOP_MAX_STACK : 0, t->frames,
					      TOP_MAX_STACK + 1, NULL, NULL);
	return (t->err = hist__add(t->h, &ss));
}

/* a record cut short ends the batch, as the kernel never writes one */
static int on_records(void *ctx, const void *recs, size_t len)
{
	struct top *t = ctx;
	int rc = perfdata__parse_records(&t->attr, recs, len, on_record, t);

	return rc == -EBADMSG ? 0 : rc;
}

static void show(struct top *t, struct report_print *pr, bool tty, double secs, const char *what)
{
	struct top_screen scr = {
		.rate = secs > 0 ? t->interval_samples / secs : 0,
		.kernel_pct = t->samples ? 100.0 * t->kernel_samples / t->samples : 0,
		.lost = t->lost, .event = t->evl.ev[0].name, .target = what, .tty = tty, .zero = t->zero,
	};

	hist__sort(t->h);
	pr->only_comm = t->zoom_comm[0] ? t->zoom_comm : NULL;
	pr->only_dso = t->zoom_dso[0] ? t->zoom_dso : NULL;
	report_print__top(pr, t->h, &scr);
	t->interval_samples = 0;
}

/* the first entry shown: what c and d zoom into */
static const struct hist_entry *top_entry(const struct top *t)
{
	for (size_t i = 0; i < hist__nr_entries(t->h); i++) {
		const struct hist_entry *e = hist__entry(t->h, i);

		if ((!t->zoom_comm[0] || !strcmp(e->comm, t->zoom_comm)) &&
		    (!t->zoom_dso[0] || !strcmp(e->dso, t->zoom_dso)))
			return e;
	}
	return NULL;
}

/* one key of the interactive view; returns true to quit */
static bool key(struct top *t, int c)
{
	const struct hist_entry *e = top_entry(t);

	switch (c) {
	case 'q':
	case 'Q':
	case 3:		/* Ctrl-C in raw mode */
		return true;
	case 'c':
		if (t->zoom_comm[0])
			t->zoom_comm[0] = 0;
		else if (e)
			snprintf(t->zoom_comm, sizeof(t->zoom_comm), "%s", e->comm);
		break;
	case 'd':
		if (t->zoom_dso[0])
			t->zoom_dso[0] = 0;
		else if (e)
			snprintf(t->zoom_dso, sizeof(t->zoom_dso), "%s", e->dso);
		break;
	case 'z':
		t->zero = !t->zero;
		break;
	case 'K':
		t->hide_kernel = !t->hide_kernel;
		break;
	case 'U':
		t->hide_user = !t->hide_user;
		break;
	default:
		break;
	}
	return false;
}

static struct termios saved_tio;
static bool tio_saved;

static void restore_terminal(void)
{
	if (tio_saved)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
	tio_saved = false;
}

/* keys without Enter, no echo; restored on every way out (atexit too) */
static void raw_terminal(void)
{
	struct termios tio;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_tio))
		return;
	tio = saved_tio;
	tio.c_lflag &= ~(ICANON | ECHO);
	tio.c_cc[VMIN] = 0;
	tio.c_cc[VTIME] = 0;
	if (!tcsetattr(STDIN_FILENO, TCSANOW, &tio)) {
		tio_saved = true;
		atexit(restore_terminal);
	}
}

/* what the loop's callbacks need to refresh the screen */
struct top_view {
	struct top *t;
	struct report_print *pr;
	bool tty;
	const char *what;
	struct timespec t0;
};

static void refresh(struct top_view *v, bool zero)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	show(v->t, v->pr, v->tty, (t1.tv_sec - v->t0.tv_sec) + (t1.tv_nsec - v->t0.tv_nsec) / 1e9, v->what);
	v->t0 = t1;
	if (zero && v->t->zero) {
		hist__free(v->t->h);
		v->t->h = hist__new(&v->t->ho);
	}
}

/* the buffers passed their watermark */
static int top_drain(void *ctx, int fd, short revents)
{
	struct top_view *v = ctx;

	(void)fd;
	(void)revents;
	int rc = sampler__drain(&v->t->smp, on_records, v->t);

	return rc > 0 ? -EIO : rc;
}

/* every -d seconds */
static int top_tick(void *ctx, int fd, short revents)
{
	struct top_view *v = ctx;
	int rc = top_drain(v, fd, revents);

	if (rc)
		return rc;
	refresh(v, true);
	return v->t->h ? 0 : -ENOMEM;
}

/* keys on the terminal: 1 ends */
static int top_keys(void *ctx, int fd, short revents)
{
	struct top_view *v = ctx;
	char keys[16];
	ssize_t nk = read(fd, keys, sizeof(keys));

	(void)revents;
	for (ssize_t k = 0; k < nk; k++)
		if (key(v->t, (unsigned char)keys[k]))
			return 1;
	if (nk > 0)
		refresh(v, false);
	return 0;
}

/* the entries a terminal of $LINES rows has room for (20 when unknown) */
static size_t screen_entries(void)
{
	const char *lines = getenv("LINES");

	return lines && atoi(lines) > 8 ? (size_t)atoi(lines) - 6 : 20;
}

/* open the event on tg and make the symbolizer and the hist; -1 when it failed (said) */
static int top_open(struct top *t, const struct target *tg, struct sampler_config *cfg)
{
	char err[512];

	cfg->callgraph = t->callchain ? CALLGRAPH_FP : CALLGRAPH_NONE;
	cfg->mmap_pages = 64;
	sampler__config_attrs(&t->evl, tg, cfg);
	if (sampler__open(&t->smp, &t->evl, tg, cfg, err, sizeof(err))) {
		error("%s", err);
		return -1;
	}
	t->attr.attr = t->evl.ev[0].attr;
	t->sym = symbolizer__new(0);
	t->ho.lines = t->sym;
	t->h = hist__new(&t->ho);
	t->loaded = calloc(MAX_TRACKED, sizeof(pid_t));
	if (!t->sym || !t->h || !t->loaded) {
		error("out of memory");
		return -1;
	}
	return 0;
}

/* the loop reads every sampler fd, redraws every delay seconds, ends after duration (0: never) */
static int watch_samples(struct loop *loop, struct top_view *view, double delay, double duration)
{
	struct pollfd pf[256];
	int npf = sampler__pollfds(&view->t->smp, pf, 256), rc = 0;

	for (int i = 0; i < npf && !rc; i++)
		rc = loop__add_fd(loop, pf[i].fd, pf[i].events, top_drain, view);
	if (!rc)
		rc = loop__set_tick(loop, (int)(delay * 1000), top_tick, view);
	if (!rc && duration > 0)
		rc = loop__set_duration(loop, duration);
	return rc;
}

/* the options that do not live in struct top or the printer */
struct top_opts {
	const char *event, *sort;
	struct target_opts to;
	struct sampler_config cfg;
	double delay, duration;
	int entries;
	bool stdio_, batch;
};

/* the options into o, t and pr, checked (a usage error exits 129), the targets into tg; -1 when a pid is gone (said) */
static int parse_options(struct top_opts *o, struct top *t, struct report_print *pr, struct target *tg,
			 int argc, char **argv)
{
	const struct opt opts[] = {
		OPT_STRING('e', "event", &o->event, "EVENT", "the event to sample (default cpu-clock, cycles where there is a PMU)"),
		OPT_FREQ(&o->cfg.freq, "samples per second per CPU (default 999); 'max' for kernel.perf_event_max_sample_rate"),
		OPT_UINT64('c', "count", &o->cfg.period, "N", "a sample every N events instead"),
		OPT_BOOL('g', NULL, &t->callchain, "with call graphs: children (inclusive) percentages"),
		OPT_TARGET(&o->to),
		OPT_SECONDS('d', "delay", &o->delay, "refresh every S seconds, at least 0.05 (default 2; perf top's -d)"),
		OPT_INT('E', "entries", &o->entries, "N", "show the N hottest (default: what fits)"),
		OPT_STRING('s', "sort", &o->sort, "KEYS", "group by comm,pid,tid,dso,sym,cpu,srcline (default dso,sym)"),
		OPT_BOOL('K', "hide-kernel-symbols", &t->hide_kernel, "leave kernel samples out"),
		OPT_BOOL('U', "hide-user-symbols", &t->hide_user, "leave user samples out"),
		OPT_BOOL('z', "zero", &t->zero, "start each refresh from zero"),
		OPT_STRING(0, "comms", &t->filter.comms, "COMMS", "only these commands (comma list)"),
		OPT_DOUBLE(0, "percent-limit", &pr->percent_limit, "PCT", "hide entries below PCT percent"),
		OPT_BOOL(0, "stdio", &o->stdio_, "print each refresh below the last instead of redrawing"),
		OPT_BOOL(0, "batch", &o->batch, "plain text snapshots, no keys (with --duration), as top -b"),
		OPT_DURATION(&o->duration),
		OPT_VERBOSE(),
		OPT_END(),
	};
	const char *bad;

	argc = opt__parse_target(argc, argv, opts, top_usage, 0, &o->to, tg);
	if (argc < 0)
		return -1;
	if (argc)
		opt__usage_error(top_usage, opts, "unexpected argument '%s'", argv[0]);
	if (o->delay < 0.05)
		opt__usage_error(top_usage, opts, "-d %g: the refresh delay must be at least 0.05 s", o->delay);
	if (o->entries < 0)
		opt__usage_error(top_usage, opts, "-E %d: the number of entries cannot be negative", o->entries);
	if (hist__parse_sort(&t->ho, o->sort, &bad))
		opt__usage_error(top_usage, opts, "unknown sort key '%s' (comm, pid, tid, dso, sym, cpu, srcline)", bad);
	t->ho.children = t->callchain;
	pr->top = o->entries ? (size_t)o->entries : 0;
	if (o->batch)
		o->stdio_ = true;
	return 0;
}

/*
 * The event on the targets, the symbolizer and the hist; what the header
 * calls the targets into what. -1 when one failed (said).
 */
static int open_events(struct top *t, struct top_opts *o, struct target *tg, char *what, size_t len)
{
	char err[512];

	if (evlist__parse(&t->evl, o->event ? o->event : "cpu-clock", err, sizeof(err))) {
		error("%s", err);
		return -1;
	}
	if (t->evl.nr != 1) {
		error("sonde top samples one event at a time ('%s' names %d)", o->event, t->evl.nr);
		return -1;
	}
	if (o->to.pids || o->to.tids)
		snprintf(what, len, "%s %s", o->to.pids ? "pid" : "tid", o->to.pids ? o->to.pids : o->to.tids);
	else
		snprintf(what, len, "all, %d CPU%s", tg->nr_cpus, tg->nr_cpus > 1 ? "s" : "");
	return top_open(t, tg, &o->cfg);
}

/* sample and redraw until the duration, q or a signal, then the last screen; the exit status */
static int top_run(struct top_view *view, struct loop *loop)
{
	int rc;

	sampler__enable(&view->t->smp);
	if (view->tty) {
		/* a frame reaches the terminal in one write: a line-buffered frame is seen half drawn */
		static char frame[1 << 16];

		setvbuf(stdout, frame, _IOFBF, sizeof(frame));
		raw_terminal();
	}
	if (tio_saved && (rc = loop__add_fd(loop, STDIN_FILENO, POLLIN, top_keys, view)))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &view->t0);
	if (loop__run(loop) == LOOP_ERROR) {
		error("cannot keep the samples: %s", strerror(view->t->err ? -view->t->err : -loop->err));
		return 1;
	}
	top_drain(view, -1, 0);
	refresh(view, false);	/* the last screen */
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top t = { 0 };
	struct top_opts o = { .sort = "dso,sym", .to = { .default_all = true }, .cfg = { .freq = 999 }, .delay = 2.0 };
	struct report_print pr = { .out = stdout };
	struct target tg = { 0 };
	char what[64];
	struct loop loop;
	struct top_view view = { .t = &t, .pr = &pr, .what = what };
	int rc = 1;
	bool loop_ready = false;

	if (parse_options(&o, &t, &pr, &tg, argc, argv))
		goto out;
	view.tty = isatty(1) && !o.stdio_;
	if (!o.entries && view.tty)
		pr.top = screen_entries();
	pr.quiet = true;
	if (open_events(&t, &o, &tg, what, sizeof(what)))
		goto out;
	rc = loop__init(&loop);
	loop_ready = !rc;
	if (!rc)
		rc = watch_samples(&loop, &view, o.delay, o.duration);
	if (rc) {
		error("cannot set up the event loop: %s", strerror(-rc));
		rc = 1;
		goto out;
	}
	rc = top_run(&view, &loop);
out:
	restore_terminal();
	if (loop_ready)
		loop__fini(&loop);
	sampler__close(&t.smp);
	hist__free(t.h);
	symbolizer__free(t.sym);
	free(t.loaded);
	target__free(&tg);
	evlist__free(&t.evl);
	return rc;
}
