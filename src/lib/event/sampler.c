// SPDX-License-Identifier: GPL-2.0
/*
 * sampler.c - perf_event_open sampling into mmap'd ring buffers.
 *
 * Every event is opened once per (CPU, thread) pair: per-CPU is what inherited
 * events need (the kernel refuses to mmap an inherited event with cpu == -1) and
 * it keeps one buffer per CPU. The first fd on a CPU owns the buffer; the others
 * redirect their output to it (PERF_EVENT_IOC_SET_OUTPUT). Reading follows the
 * ring buffer protocol of include/uapi/linux/perf_event.h: load data_head with
 * acquire, copy the records, store data_tail with release.
 */
#include "lib/event/sampler.h"
#include "lib/util.h"

#include <asm/perf_regs.h>
#include <errno.h>
#include <pthread.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* x86-64 user registers for DWARF unwinding: all but the segment registers */
#if defined(__x86_64__)
#define SAMPLE_REGS_USER (((1ULL << PERF_REG_X86_64_MAX) - 1) & \
			  ~((1ULL << PERF_REG_X86_DS) | (1ULL << PERF_REG_X86_ES) | \
			    (1ULL << PERF_REG_X86_FS) | (1ULL << PERF_REG_X86_GS)))
#elif defined(__aarch64__)
#define SAMPLE_REGS_USER ((1ULL << PERF_REG_ARM64_MAX) - 1)
#else
#define SAMPLE_REGS_USER 0
#endif

static long sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group, unsigned long fl)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, fl);
}

static int read_int_file(const char *path, int dflt)
{
	int v;

	return util__read_int(path, &v) ? dflt : v;
}

void sampler__config_attrs(struct evlist *evl, const struct target *t, const struct sampler_config *cfg)
{
	bool any_tp = false, cpu = t->system_wide;
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;

	for (int e = 0; e < evl->nr; e++)
		any_tp |= evl->ev[e].kind == EVK_TRACEPOINT;
	if (any_tp || cpu)
		st |= PERF_SAMPLE_CPU;
	if (evl->nr > 1)
		st |= PERF_SAMPLE_IDENTIFIER;
	if (cfg->callgraph != CALLGRAPH_NONE)
		st |= PERF_SAMPLE_CALLCHAIN;
	if (cfg->callgraph == CALLGRAPH_DWARF)
		st |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	if (cfg->callgraph == CALLGRAPH_LBR)
		st |= PERF_SAMPLE_BRANCH_STACK;

	for (int e = 0; e < evl->nr; e++) {
		struct event *ev = &evl->ev[e];
		struct perf_event_attr *a = &ev->attr;

		a->size = sizeof(*a);
		a->sample_type = st;
		if (ev->kind == EVK_TRACEPOINT) {
			a->sample_type |= PERF_SAMPLE_RAW;
			a->freq = 0;
			a->sample_period = cfg->period ? cfg->period : 1;
		} else if (cfg->period) {
			a->freq = 0;
			a->sample_period = cfg->period;
		} else {
			a->freq = 1;
			a->sample_freq = cfg->freq ? cfg->freq : SAMPLER_DEFAULT_FREQ;
		}
		a->read_format = evl->nr > 1 ? PERF_FORMAT_ID : 0;
		a->disabled = 1;
		a->inherit = !cfg->no_inherit && !t->system_wide;
		a->enable_on_exec = t->child != 0 && !t->system_wide;
		a->sample_id_all = 1;
		a->exclude_guest = 1;
		if (cfg->monotonic) {
			a->use_clockid = 1;
			a->clockid = CLOCK_MONOTONIC;
		}
		/* wake the reader when a buffer is a quarter full */
		a->watermark = 1;
		a->wakeup_watermark = (cfg->mmap_pages ? cfg->mmap_pages : 256) * (uint32_t)sysconf(_SC_PAGESIZE) / 4;
		/* side-band records once, on the first event */
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = e == 0;
		a->ksymbol = e == 0;	/* BPF programs loaded while recording (5.1+; dropped if refused) */
		if (cfg->callgraph == CALLGRAPH_DWARF) {
			a->exclude_callchain_user = 1;	/* the user part comes from the stack copy */
			a->mmap_data = e == 0;		/* unwinders read .eh_frame from read-only maps */
			a->sample_regs_user = SAMPLE_REGS_USER;
			a->sample_stack_user = cfg->stack_size ? cfg->stack_size : SAMPLER_DEFAULT_STACK;
		}
		if (cfg->callgraph == CALLGRAPH_LBR) {
			a->exclude_callchain_user = 1;
			a->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
						PERF_SAMPLE_BRANCH_NO_CYCLES | PERF_SAMPLE_BRANCH_NO_FLAGS |
						PERF_SAMPLE_BRANCH_HW_INDEX;
		}
	}
}

static int *fdp(struct sampler *s, int ev, int cpu, int thr)
{
	return &s->fd[((size_t)ev * s->nr_cpus + cpu) * s->nr_threads + thr];
}

static bool have_lbr(void)
{
	return !access("/sys/bus/event_source/devices/cpu/caps/branches", F_OK) ||
	       !access("/sys/bus/event_source/devices/cpu_core/caps/branches", F_OK);
}

static int open_error(struct sampler *s, struct event *ev, const struct sampler_config *cfg,
		      int e, pid_t pid, int cpu, char *err, size_t errlen)
{
	const char *n = ev->name;

	if (cfg->callgraph == CALLGRAPH_LBR && (e == EOPNOTSUPP || e == EINVAL || e == ENOENT)) {
		if (!have_lbr())
			snprintf(err, errlen, "cannot sample '%s' with --call-graph lbr: no last branch record on this "
				 "machine (LBR call stacks need an Intel CPU's PMU%s); use --call-graph fp or dwarf", n,
				 access("/sys/bus/event_source/devices/cpu", F_OK) ? "; this one has no hardware PMU" : "");
		else
			snprintf(err, errlen, "cannot sample '%s' with --call-graph lbr: %s (LBR call stacks need a "
				 "hardware event such as cycles)", n, strerror(e));
		return -EOPNOTSUPP;
	}
	if (e == EACCES || e == EPERM) {
		snprintf(err, errlen, "cannot sample '%s': permission denied (kernel.perf_event_paranoid=%d); run as "
			 "root, grant CAP_PERFMON, or lower /proc/sys/kernel/perf_event_paranoid", n,
			 read_int_file("/proc/sys/kernel/perf_event_paranoid", 2));
	} else if (e == ESRCH) {
		snprintf(err, errlen, "cannot sample '%s': the process %d is gone", n, (int)pid);
	} else if (e == EMFILE || e == ENFILE) {
		snprintf(err, errlen, "cannot sample '%s': too many open files (%d events x %d CPUs x %d threads); "
			 "raise 'ulimit -n'", n, s->evl->nr, s->nr_cpus, s->nr_threads);
	} else if (e == EINVAL && ev->attr.freq &&
		   ev->attr.sample_freq > (uint64_t)read_int_file("/proc/sys/kernel/perf_event_max_sample_rate", 100000)) {
		snprintf(err, errlen, "cannot sample '%s' at %llu Hz: above kernel.perf_event_max_sample_rate (%d); "
			 "lower -F", n, (unsigned long long)ev->attr.sample_freq,
			 read_int_file("/proc/sys/kernel/perf_event_max_sample_rate", 100000));
	} else if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV) {
		snprintf(err, errlen, "cannot sample '%s': not supported by this machine%s", n,
			 ev->kind == EVK_HARDWARE || ev->kind == EVK_CACHE ?
			 " (no hardware PMU here: use cpu-clock)" : "");
	} else if (e == EINVAL && cfg->callgraph == CALLGRAPH_DWARF) {
		snprintf(err, errlen, "cannot sample '%s' with --call-graph dwarf: the kernel refused the user stack "
			 "copy (%s); try a smaller size", n, strerror(e));
	} else {
		snprintf(err, errlen, "cannot sample '%s' on CPU %d: %s", n, cpu, strerror(e));
	}
	return -e;
}

static int build_threads(struct sampler *s, const struct target *t)
{
	int n = t->system_wide ? 1 : t->child ? 1 : t->nr_tids;

	s->threads = calloc(n ? n : 1, sizeof(pid_t));
	if (!s->threads)
		return -ENOMEM;
	if (t->system_wide)
		s->threads[0] = -1;
	else if (t->child)
		s->threads[0] = t->child;
	else
		memcpy(s->threads, t->tids, n * sizeof(pid_t));
	s->nr_threads = n;
	return n ? 0 : -ESRCH;
}

static int build_cpus(struct sampler *s, const struct target *t)
{
	int *cpus = NULL, n = 0, rc;

	if (t->nr_cpus) {
		cpus = malloc(t->nr_cpus * sizeof(int));
		if (!cpus)
			return -ENOMEM;
		memcpy(cpus, t->cpus, t->nr_cpus * sizeof(int));
		n = t->nr_cpus;
	} else if ((rc = target__online_cpus(&cpus, &n))) {
		return rc;
	}
	s->cpus = cpus;
	s->nr_cpus = n;
	return n ? 0 : -ENODEV;
}

int sampler__open(struct sampler *s, struct evlist *evl, const struct target *t,
		  const struct sampler_config *cfg, char *err, size_t errlen)
{
	size_t page = sysconf(_SC_PAGESIZE);
	unsigned pages = cfg->mmap_pages ? cfg->mmap_pages : 256;
	int rc;

	memset(s, 0, sizeof(*s));
	s->evl = evl;
	if (pages & (pages - 1)) {
		snprintf(err, errlen, "the buffer size must be a power of two pages, not %u", pages);
		return -EINVAL;
	}
	rc = build_threads(s, t);
	if (!rc)
		rc = build_cpus(s, t);
	if (rc) {
		snprintf(err, errlen, rc == -ESRCH ? "no threads to sample" : "cannot list the online CPUs: %s",
			 strerror(-rc));
		sampler__close(s);
		return rc;
	}
	s->fd = malloc(sizeof(int) * evl->nr * s->nr_cpus * s->nr_threads);
	s->bufs = calloc(s->nr_cpus, sizeof(*s->bufs));
	s->ids = calloc(evl->nr, sizeof(*s->ids));
	s->nr_ids = calloc(evl->nr, sizeof(*s->nr_ids));
	s->bounce = malloc(65536);
	if (!s->fd || !s->bufs || !s->ids || !s->nr_ids || !s->bounce) {
		sampler__close(s);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < evl->nr * s->nr_cpus * s->nr_threads; i++)
		s->fd[i] = -1;
	for (int c = 0; c < s->nr_cpus; c++) {
		s->bufs[c].fd = -1;
		s->bufs[c].cpu = s->cpus[c];
	}

	for (int e = 0; e < evl->nr; e++) {
		struct event *ev = &evl->ev[e];

		s->ids[e] = calloc((size_t)s->nr_cpus * s->nr_threads, sizeof(uint64_t));
		if (!s->ids[e]) {
			sampler__close(s);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		for (int c = 0; c < s->nr_cpus; c++) {
			for (int th = 0; th < s->nr_threads; th++) {
				int fd;
				uint64_t id;
retry:
				fd = sys_perf_event_open(&ev->attr, s->threads[th], s->cpus[c], -1, PERF_FLAG_FD_CLOEXEC);
				if (fd < 0) {
					int en = errno;

					if (en == EINVAL && ev->attr.ksymbol) {
						ev->attr.ksymbol = 0;	/* a kernel older than 5.1 */
						goto retry;
					}
					if ((en == EACCES || en == EPERM) && !ev->attr.exclude_kernel && !t->system_wide) {
						/* perf's fallback: user space only where the kernel is refused */
						ev->attr.exclude_kernel = 1;
						ev->attr.exclude_hv = 1;
						ev->attr.exclude_callchain_kernel = 1;
						s->user_only_fallback = true;
						goto retry;
					}
					if (en == ESRCH && !t->child && !t->system_wide && s->nr_threads > 1)
						continue;	/* a thread ended between listing and opening */
					rc = open_error(s, ev, cfg, en, s->threads[th], s->cpus[c], err, errlen);
					sampler__close(s);
					return rc;
				}
				*fdp(s, e, c, th) = fd;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0)
					s->ids[e][s->nr_ids[e]++] = id;
				if (s->bufs[c].fd < 0) {
					unsigned p = pages;
					size_t len = (p + 1) * page;
					void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

					/* over the locked-memory allowance: smaller buffers lose more, but work */
					while (m == MAP_FAILED && errno == EPERM && p > 8) {
						p /= 2;
						len = (p + 1) * page;
						m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
						s->shrunk_pages = p;
					}
					if (m == MAP_FAILED) {
						int en = errno;

						snprintf(err, errlen, "cannot map a %zu KiB sampling buffer for CPU %d: %s%s",
							 len / 1024, s->cpus[c], strerror(en),
							 en == EPERM || en == ENOMEM ?
							 " (locked memory limit: raise 'ulimit -l' or kernel.perf_event_mlock_kb, "
							 "or use smaller -m)" : "");
						sampler__close(s);
						return -en;
					}
					s->bufs[c].fd = fd;
					s->bufs[c].base = m;
					s->bufs[c].data_size = p * page;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->bufs[c].fd)) {
					int en = errno;

					snprintf(err, errlen, "cannot share the CPU %d buffer between events: %s",
						 s->cpus[c], strerror(en));
					sampler__close(s);
					return -en;
				}
			}
		}
	}
	for (int c = 0; c < s->nr_cpus; c++)
		if (s->bufs[c].fd >= 0)
			return 0;
	snprintf(err, errlen, "no threads to sample: they all ended");
	sampler__close(s);
	return -ESRCH;
}

static int ioctl_all(struct sampler *s, unsigned long req)
{
	size_t n = (size_t)s->evl->nr * s->nr_cpus * s->nr_threads;

	for (size_t i = 0; i < n; i++)
		if (s->fd[i] >= 0 && ioctl(s->fd[i], req, 0))
			return -errno;
	return 0;
}

int sampler__enable(struct sampler *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_ENABLE);
}

int sampler__disable(struct sampler *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_DISABLE);
}

int sampler__pollfds(const struct sampler *s, struct pollfd *pf, int max)
{
	int n = 0;

	for (int c = 0; c < s->nr_cpus && n < max; c++)
		if (s->bufs[c].fd >= 0)
			pf[n++] = (struct pollfd){ s->bufs[c].fd, POLLIN, 0 };
	return n;
}

static int drain_one(struct sampler *s, struct sampler_buf *b,
		     int (*fn)(void *ctx, const void *recs, size_t len), void *ctx)
{
	struct perf_event_mmap_page *mp = b->base;
	uint8_t *data = (uint8_t *)b->base + sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail, run_start = tail;
	size_t mask = b->data_size - 1;
	int rc = 0;

	while (tail < head) {
		struct perf_event_header h;
		size_t at = tail & mask;

		memcpy(&h, data + at, sizeof(h));	/* headers never straddle: records are 8-aligned */
		if (h.size < sizeof(h) || h.size > head - tail)
			break;	/* cannot happen with a sane kernel; drop the rest */
		if (at + h.size > b->data_size) {
			/* this record wraps: hand over what precedes it, then a copy of it */
			if (tail > run_start && (rc = fn(ctx, data + (run_start & mask), tail - run_start)))
				break;
			memcpy(s->bounce, data + at, b->data_size - at);
			memcpy(s->bounce + (b->data_size - at), data, h.size - (b->data_size - at));
			if ((rc = fn(ctx, s->bounce, h.size)))
				break;
			tail += h.size;
			run_start = tail;
			continue;
		}
		if (tail > run_start && at <= (run_start & mask)) {
			/* the run wrapped exactly at the end: flush it */
			if ((rc = fn(ctx, data + (run_start & mask), tail - run_start)))
				break;
			run_start = tail;
		}
		tail += h.size;
	}
	if (!rc && tail > run_start)
		rc = fn(ctx, data + (run_start & mask), tail - run_start);
	s->bytes += head - mp->data_tail;
	__atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
	return rc;
}

int sampler__drain(struct sampler *s, int (*fn)(void *ctx, const void *recs, size_t len), void *ctx)
{
	for (int c = 0; c < s->nr_cpus; c++) {
		int rc;

		if (!s->bufs[c].base)
			continue;
		rc = drain_one(s, &s->bufs[c], fn, ctx);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Releasing a tracepoint event waits for an RCU grace period (0.1-0.25 s here),
 * one after another when closed in a row: 'sched:*' on 2 CPUs took 12.8 s to
 * close, 1.6 s from several threads. (Tracepoints of one kind that share a
 * kernel lock, like the syscalls ones, still wait in turn: ~30 ms each.)
 */
struct closer {
	const int *fds;
	size_t n;
};

static void *close_some(void *arg)
{
	struct closer *c = arg;

	for (size_t i = 0; i < c->n; i++)
		close(c->fds[i]);
	return NULL;
}

static void close_all(int *fds, size_t n)
{
	enum { MAX_THREADS = 32, PER_THREAD_MIN = 2 };
	pthread_t th[MAX_THREADS];
	struct closer cl[MAX_THREADS];
	size_t nt = n / PER_THREAD_MIN, started = 0, done = 0;

	if (nt > MAX_THREADS)
		nt = MAX_THREADS;
	for (size_t t = 0; t < nt; t++) {
		size_t lo = n * t / nt, hi = n * (t + 1) / nt;

		cl[t] = (struct closer){ fds + lo, hi - lo };
		if (pthread_create(&th[t], NULL, close_some, &cl[t]))
			break;
		started++;
		done = hi;
	}
	for (size_t t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	for (size_t i = done; i < n; i++)	/* what no thread took */
		close(fds[i]);
}

void sampler__close(struct sampler *s)
{
	size_t page = sysconf(_SC_PAGESIZE), n = 0;

	if (s->bufs)
		for (int c = 0; c < s->nr_cpus; c++)
			if (s->bufs[c].base)
				munmap(s->bufs[c].base, s->bufs[c].data_size + page);
	if (s->fd && s->evl) {
		size_t total = (size_t)s->evl->nr * s->nr_cpus * s->nr_threads;

		for (size_t i = 0; i < total; i++)
			if (s->fd[i] >= 0)
				s->fd[n++] = s->fd[i];
		close_all(s->fd, n);
	}
	if (s->ids && s->evl)
		for (int e = 0; e < s->evl->nr; e++)
			free(s->ids[e]);
	free(s->ids);
	free(s->nr_ids);
	free(s->fd);
	free(s->bufs);
	free(s->cpus);
	free(s->threads);
	free(s->bounce);
	memset(s, 0, sizeof(*s));
}

int sampler__parse_freq(const char *s, uint64_t *hz, char *err, size_t errlen)
{
	int max = read_int_file("/proc/sys/kernel/perf_event_max_sample_rate", 0);
	unsigned long long v;
	char *end;

	if (!strcmp(s, "max")) {
		if (max <= 0) {
			snprintf(err, errlen, "-F max: cannot read kernel.perf_event_max_sample_rate");
			return -ENOENT;
		}
		*hz = (uint64_t)max;
		return 0;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || !v) {
		snprintf(err, errlen, "invalid frequency '%s': give samples per second, 1 or more, or 'max'", s);
		return -EINVAL;
	}
	if (max > 0 && v > (unsigned long long)max) {
		snprintf(err, errlen, "-F %llu: above kernel.perf_event_max_sample_rate (%d); give at most that, "
			 "or -F max", v, max);
		return -EINVAL;
	}
	*hz = v;
	return 0;
}
