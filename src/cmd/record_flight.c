// SPDX-License-Identifier: GPL-2.0
/*
 * record_flight.c - `sonde record --flight`: keep the last window of records
 * in memory and dump it on each trigger (see record_flight.h).
 *
 * `sonde record --dump PID` sends the recorder a SIGUSR2 by sigqueue(3) with
 * FLIGHT_DUMP_MAGIC as its value: the permission is kill(2)'s (the same user,
 * or CAP_KILL), nothing is created on disk that a crash could leave behind or
 * that would need a private directory, and the recorder learns the sender's
 * pid from the siginfo to name the dump's trigger. --dump first checks from
 * /proc/PID/cmdline that PID is a flight recorder, so that no other process
 * gets a SIGUSR2 (whose default action ends it).
 */
#include "sonde.h"
#include "cmd/record_flight.h"
#include "lib/bpf/bpf_flight.h"
#include "lib/record/flight_dump.h"
#include "lib/record/flight_ring.h"
#include "lib/proc/target.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct watch_ctx {
	struct flight_rec *f;
	int i;
};

struct flight_rec {
	struct flight_rec_opts o;
	struct flight_ring *ring;
	struct sampler *s;
	const struct evlist *evl;
	const struct target *t;
	struct loop *l;
	struct sampler_config cfg;
	struct flight_watch *watch[FLIGHT_MAX_TRIGGERS];
	struct watch_ctx wctx[FLIGHT_MAX_TRIGGERS];
	struct pct_window pw[FLIGHT_MAX_TRIGGERS];
	uint64_t last_push[FLIGHT_MAX_TRIGGERS];
	uint64_t cum[FLIGHT_NBUCKETS];
	uint64_t start_ns, last_cond_dump;
	bool cond_dumped, tty;
	int ctl_fd;
	bool ctl_made;
	char ctl_path[4096], ack_path[4096];
	char line[256];
	size_t line_len;
	unsigned dumps, failed, held;	/* dumps written, failed, conditions held off */
	uint64_t last_status;
};

int flight_rec__take(void *ctx, const void *recs, size_t len)
{
	struct flight_rec *f = ctx;

	return flight_ring__add(f->ring, recs, len, util__now_ns());
}

/* write the window to a new file; a failure is said and the recording goes on */
static void dump(struct flight_rec *f, const char *why)
{
	struct flight_window win;
	char path[4096], err[512], note[512], lost[64] = "";
	struct flight_dump d = {
		.path = path, .evl = f->evl, .s = f->s, .t = f->t,
		.dwarf = f->cfg.callgraph == CALLGRAPH_DWARF, .zlevel = f->o.zlevel,
		.ring_bytes = (size_t)f->cfg.mmap_pages * sysconf(_SC_PAGESIZE),
		.argc = f->o.argc, .argv = f->o.argv, .note = note,
	};
	uint64_t from;
	int rc;

	/* what the kernel buffers hold now belongs to the window too */
	if ((rc = sampler__drain(f->s, flight_rec__take, f)))
		debug(1, "flight: draining before the dump: %s", strerror(-rc));
	d.now_ns = util__now_ns();
	if (f->tty)
		fprintf(stderr, "\r\033[K");
	if ((rc = flight__dump_path(f->o.prefix, time(NULL), path, sizeof(path)))) {
		error("cannot name a dump after '%s': %s", f->o.prefix, strerror(-rc));
		f->failed++;
		return;
	}
	/* perf report --header shows the command line with quotes escaped: none in the note */
	snprintf(note, sizeof(note), "# trigger: %s", why);
	for (char *q = note; (q = strchr(q, '\'')); )
		memmove(q, q + 1, strlen(q));
	if (flight__dump(f->ring, &d, &win, err, sizeof(err))) {
		error("%s", err);
		f->failed++;
		return;
	}
	f->dumps++;
	from = win.from_ns > f->start_ns ? win.from_ns : f->start_ns;
	if (win.lost)
		snprintf(lost, sizeof(lost), ", %llu lost", (unsigned long long)win.lost);
	fprintf(stderr, "sonde record: dumped %.1f s (%llu samples%s) to %s: trigger %s\n",
		(d.now_ns - from) / 1e9, (unsigned long long)win.samples, lost, path, why);
	if (f->ack_path[0]) {
		int afd = open(f->ack_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

		if (afd >= 0) {
			if (write(afd, "ack\n", 4) != 4)
				debug(1, "flight: cannot write the ack: %s", strerror(errno));
			close(afd);
		}
	}
}

/* the conditions dump at most once per --holdoff; the others are counted */
static bool holdoff_passed(struct flight_rec *f, uint64_t now, const char *what)
{
	if (!f->cond_dumped || now - f->last_cond_dump >= f->o.holdoff_ns)
		return true;
	f->held++;
	debug(1, "flight: %s held off: the last dump was %.1f s ago", what, (now - f->last_cond_dump) / 1e9);
	return false;
}

static void cond_dump(struct flight_rec *f, const char *why)
{
	f->cond_dumped = true;
	f->last_cond_dump = util__now_ns();
	dump(f, why);
}

/* a syscall slower than a syscall:NAME trigger's threshold */
static int on_slow(void *ctx, void *data, size_t size)
{
	struct watch_ctx *w = ctx;
	struct flight_rec *f = w->f;
	const struct trigger *t = &f->o.trig[w->i];
	const struct flight_slow *ev = data;
	char why[512], took[32], comm[sizeof(ev->comm) + 1];

	if (size < sizeof(*ev) || !trigger__exceeds(t, ev->dur) || !holdoff_passed(f, util__now_ns(), t->text))
		return 0;
	memcpy(comm, ev->comm, sizeof(ev->comm));
	comm[sizeof(ev->comm)] = 0;
	trigger__fmt_ns(ev->dur, took, sizeof(took));
	snprintf(why, sizeof(why), "'%s' (%s took %s, pid %u '%s')", t->text, t->syscall, took, ev->pid, comm);
	cond_dump(f, why);
	return 0;
}

/* once a second: a slot of each percentile trigger's window, and its check */
static void check_pct(struct flight_rec *f, int i, uint64_t now)
{
	const struct trigger *t = &f->o.trig[i];
	uint64_t v, n;
	char why[512], val[32];
	int rc;

	if (now - f->last_push[i] < 1000000000ULL)
		return;
	f->last_push[i] = now;
	if ((rc = flight_watch__hist(f->watch[i], f->cum))) {
		debug(1, "flight: cannot read the histogram of '%s': %s", t->text, strerror(-rc));
		return;
	}
	pct_window__push(&f->pw[i], f->cum);
	if (pct_window__value(&f->pw[i], t->pct, &v, &n) || n < t->min_calls || !trigger__exceeds(t, v))
		return;
	debug(1, "flight: '%s': %llu ns over %llu calls", t->text, (unsigned long long)v, (unsigned long long)n);
	if (!holdoff_passed(f, now, t->text))
		return;
	trigger__fmt_ns(v, val, sizeof(val));
	snprintf(why, sizeof(why), "'%s' (p%g of %s was %s over %llu calls in %u s)", t->text, t->pct, t->syscall,
		 val, (unsigned long long)n, f->pw[i].filled);
	cond_dump(f, why);
}

static int on_usr2(void *ctx, int signo, short revents)
{
	struct flight_rec *f = ctx;
	char why[128];

	(void)signo;
	(void)revents;
	if (f->l->sig_code == SI_QUEUE && f->l->sig_value == FLIGHT_DUMP_MAGIC)
		snprintf(why, sizeof(why), "'sonde record --dump' (from pid %d)", (int)f->l->sig_pid);
	else if (f->l->sig_pid)
		snprintf(why, sizeof(why), "SIGUSR2 (from pid %d)", (int)f->l->sig_pid);
	else
		snprintf(why, sizeof(why), "SIGUSR2");
	dump(f, why);
	return 0;
}

/* lines on the control FIFO: each non-empty one dumps, naming itself */
static int on_control(void *ctx, int fd, short revents)
{
	struct flight_rec *f = ctx;
	char buf[512];
	ssize_t n;

	(void)revents;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			char why[400];

			if (buf[i] != '\n') {
				if (f->line_len < sizeof(f->line) - 1)
					f->line[f->line_len++] = buf[i];
				continue;
			}
			while (f->line_len && (f->line[f->line_len - 1] == ' ' || f->line[f->line_len - 1] == '\r'))
				f->line_len--;
			f->line[f->line_len] = 0;
			if (f->line_len) {
				snprintf(why, sizeof(why), "control fifo ('%s')", f->line);
				dump(f, why);
			}
			f->line_len = 0;
		}
	}
	return 0;
}

/* --control fifo:CTL[,ACK] or CTL: a FIFO made (and removed at the end) when it does not exist */
static int open_control(struct flight_rec *f)
{
	const char *spec = f->o.control, *comma;
	struct stat st;

	if (!strncmp(spec, "fifo:", 5))
		spec += 5;
	comma = strchr(spec, ',');
	snprintf(f->ctl_path, sizeof(f->ctl_path), "%.*s", comma ? (int)(comma - spec) : (int)strlen(spec), spec);
	if (comma)
		snprintf(f->ack_path, sizeof(f->ack_path), "%s", comma + 1);
	if (lstat(f->ctl_path, &st)) {
		if (errno != ENOENT || mkfifo(f->ctl_path, 0600)) {
			error("cannot make the control FIFO '%s': %s", f->ctl_path, strerror(errno));
			return -1;
		}
		f->ctl_made = true;
	} else if (!S_ISFIFO(st.st_mode)) {
		error("--control '%s': not a FIFO (make one with mkfifo, or name a path that does not exist)",
		      f->ctl_path);
		return -1;
	}
	/* read-write: the FIFO always has a writer, so a writer that closes is no hangup */
	f->ctl_fd = open(f->ctl_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (f->ctl_fd < 0) {
		error("cannot open the control FIFO '%s': %s", f->ctl_path, strerror(errno));
		return -1;
	}
	return loop__add_fd(f->l, f->ctl_fd, POLLIN, on_control, f) ? -1 : 0;
}

/* the pids the watchers filter on, from the target */
static int start_watch(struct flight_rec *f, int i)
{
	const struct trigger *t = &f->o.trig[i];
	const struct target *tg = f->t;
	struct flight_watch_opts wo = {
		.syscall = t->syscall, .hist = t->kind == TRIGGER_PCT, .all = tg->system_wide,
		.follow = !f->cfg.no_inherit,
	};
	char err[512];
	pid_t child = tg->child;
	int rc;

	if (t->kind == TRIGGER_SYSCALL)	/* the kernel sends calls above min_ns */
		wo.min_ns = t->threshold_ns > 0 && t->or_equal ? t->threshold_ns - 1 : t->threshold_ns;
	if (tg->child) {
		wo.targets = &child;
		wo.nr_targets = 1;
	} else if (tg->nr_pids) {
		wo.targets = tg->pids;
		wo.nr_targets = tg->nr_pids;
	} else if (tg->nr_tids) {
		wo.targets = tg->tids;
		wo.nr_targets = tg->nr_tids;
		wo.by_tid = true;
	}
	if ((rc = flight_watch__open(&f->watch[i], &wo, err, sizeof(err)))) {
		error("--trigger '%s': %s", t->text, err);
		return -1;
	}
	if (t->kind == TRIGGER_PCT) {
		if (pct_window__init(&f->pw[i], t->window_s)) {
			error("--trigger '%s': %s", t->text, strerror(ENOMEM));
			return -1;
		}
		f->last_push[i] = util__now_ns();
		return 0;
	}
	f->wctx[i] = (struct watch_ctx){ f, i };
	if ((rc = loop__add_ringbuf(f->l, flight_watch__ringbuf_fd(f->watch[i]), on_slow, &f->wctx[i]))) {
		error("--trigger '%s': cannot poll its ring buffer: %s", t->text, strerror(-rc));
		return -1;
	}
	return 0;
}

/* the dumps will be written next to prefix: say now, not at the first spike, when they cannot */
static int dump_dir_check(const char *prefix)
{
	const char *slash = strrchr(prefix, '/');
	char dir[4096];

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - prefix) + 1 : 1, slash ? prefix : ".");
	if (access(dir, W_OK | X_OK)) {
		error("cannot write dumps to '%s': %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

int flight_rec__start(struct flight_rec **out, const struct flight_rec_opts *o, struct sampler *s,
		      const struct evlist *evl, const struct target *t, struct loop *l,
		      const struct sampler_config *cfg)
{
	struct flight_rec *f = calloc(1, sizeof(*f));
	int rc;

	*out = f;
	if (!f) {
		error("cannot start the flight recorder: %s", strerror(ENOMEM));
		return -1;
	}
	f->o = *o;
	f->s = s;
	f->evl = evl;
	f->t = t;
	f->l = l;
	f->cfg = *cfg;
	f->ctl_fd = -1;
	f->tty = isatty(2) && !o->quiet;
	f->start_ns = util__now_ns();
	if ((rc = flight_ring__new(&f->ring, o->window_ns, o->cap, &evl->ev[0].attr))) {
		error("cannot start the flight recorder: %s", strerror(-rc));
		return -1;
	}
	if (dump_dir_check(o->prefix))
		return -1;
	if (loop__add_signal(l, SIGUSR2, on_usr2, f)) {
		error("cannot take SIGUSR2: %s", strerror(errno));
		return -1;
	}
	if (o->control && open_control(f))
		return -1;
	for (int i = 0; i < o->nr_trig; i++)
		if (start_watch(f, i))
			return -1;
	if (!o->quiet)
		fprintf(stderr, "sonde record: flight recorder on: the last %g s (at most %zu MB) in memory; "
			"dump with 'kill -USR2 %d' or 'sonde record --dump %d'%s%s%s\n", o->window_ns / 1e9,
			o->cap >> 20, (int)getpid(), (int)getpid(), o->control ? " or a line to '" : "",
			o->control ? f->ctl_path : "", o->control ? "'" : "");
	return 0;
}

int flight_rec__tick(struct flight_rec *f, bool tty)
{
	uint64_t now = util__now_ns();

	flight_ring__expire(f->ring, now);
	for (int i = 0; i < f->o.nr_trig; i++)
		if (f->o.trig[i].kind == TRIGGER_PCT)
			check_pct(f, i, now);
	if (tty && f->tty && now - f->last_status >= 250000000ULL) {
		struct flight_ring_stats st;

		flight_ring__stats(f->ring, &st);
		fprintf(stderr, "\r\033[Ksonde record: flight: %llu samples held (%.1f MB), %u dumps, %llu lost "
			"(Ctrl-C to stop)", (unsigned long long)st.samples, st.bytes / 1e6, f->dumps,
			(unsigned long long)st.lost);
		f->last_status = now;
	}
	return 0;
}

int flight_rec__end(struct flight_rec *f, const struct loop *l, enum loop_end end)
{
	struct flight_ring_stats st;
	uint64_t dropped = 0;

	if (f->tty)
		fprintf(stderr, "\r\033[K");
	if (f->o.dump_on_exit) {
		char why[64];

		if (end == LOOP_SIGNAL)
			snprintf(why, sizeof(why), "exit (SIG%s)", sigabbrev_np(l->signo) ? sigabbrev_np(l->signo) : "?");
		else
			snprintf(why, sizeof(why), "exit (%s)", end == LOOP_CHILD ? "the command ended" :
				 end == LOOP_DURATION ? "--duration" : "the targets ended");
		dump(f, why);
	}
	flight_ring__stats(f->ring, &st);
	for (int i = 0; i < f->o.nr_trig; i++)
		if (f->watch[i])
			dropped += flight_watch__dropped(f->watch[i]);
	if (!f->o.quiet) {
		char held[64] = "";

		if (f->held)
			snprintf(held, sizeof(held), " (%u more trigger%s within --holdoff)", f->held, f->held == 1 ? "" : "s");
		fprintf(stderr, "[ sonde record: flight recorder: %u dump%s%s, %llu samples seen, %llu lost ]\n",
			f->dumps, f->dumps == 1 ? "" : "s", held, (unsigned long long)st.seen, (unsigned long long)st.lost);
	}
	if (st.lost)
		warning("lost %llu samples in %llu overflows: the buffers filled faster than sonde read them; "
			"raise -m or lower -F", (unsigned long long)st.lost, (unsigned long long)st.lost_records);
	if (st.cut)
		warning("the size cap (%zu MB) cut %llu samples out of the window: raise --flight-size or lower -F",
			f->o.cap >> 20, (unsigned long long)st.cut);
	if (st.side_dropped)
		warning("%llu memory-map and task records were dropped past their cap (%zu MB): some samples "
			"may lack symbols", (unsigned long long)st.side_dropped, f->o.cap / 8 >> 20);
	if (dropped)
		warning("%llu slow calls were not seen by the triggers (their ring buffer was full)",
			(unsigned long long)dropped);
	return f->failed ? -1 : 0;
}

void flight_rec__free(struct flight_rec *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->o.nr_trig; i++) {
		flight_watch__free(f->watch[i]);
		pct_window__free(&f->pw[i]);
	}
	if (f->ctl_fd >= 0)
		close(f->ctl_fd);
	if (f->ctl_made)
		unlink(f->ctl_path);
	flight_ring__free(f->ring);
	free(f);
}

/* is pid a `sonde record --flight`, from its command line */
static bool is_flight_recorder(pid_t pid)
{
	char path[64], *buf = NULL, *base;
	size_t len = 0;
	bool rec = false, fl = false;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (util__read_file(path, 1 << 20, &buf, &len) || !len) {
		free(buf);
		return false;
	}
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	for (size_t off = strlen(buf) + 1; off < len; off += strlen(buf + off) + 1) {
		rec |= !strcmp(buf + off, "record");
		fl |= rec && !strncmp(buf + off, "--fl", 4);
	}
	rec &= strstr(base, "sonde") != NULL;
	free(buf);
	return rec && fl;
}

/* does pid take SIGUSR2 through its signalfd yet (blocked): a recorder still starting would die of it */
static bool takes_usr2(pid_t pid)
{
	char v[32];

	if (target__status_field(pid, "SigBlk", v, sizeof(v)))
		return false;
	return strtoull(v, NULL, 16) & (1ULL << (SIGUSR2 - 1));
}

int flight_rec__send_dump(const char *arg)
{
	union sigval v = { .sival_int = FLIGHT_DUMP_MAGIC };
	char *end;
	long pid = strtol(arg, &end, 10);

	if (!*arg || *end || pid <= 0 || pid > 0x7fffffff) {
		error("--dump '%s': expected the pid of a flight recorder", arg);
		return 129;
	}
	if (kill((pid_t)pid, 0) && errno == ESRCH) {
		error("--dump %ld: no such process", pid);
		return 1;
	}
	if (!is_flight_recorder((pid_t)pid)) {
		error("--dump %ld: that process is not a flight recorder ('sonde record --flight')", pid);
		return 1;
	}
	if (!takes_usr2((pid_t)pid)) {
		error("--dump %ld: that flight recorder is still starting; try again when it says it is on", pid);
		return 1;
	}
	if (sigqueue((pid_t)pid, SIGUSR2, v)) {
		error("cannot signal process %ld: %s%s", pid, strerror(errno),
		      errno == EPERM ? " (run as its user, or as root)" : "");
		return 1;
	}
	fprintf(stderr, "sonde record: asked process %ld to dump (its stderr names the file)\n", pid);
	return 0;
}
