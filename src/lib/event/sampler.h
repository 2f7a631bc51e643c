/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sampler.h - sampling with perf_event_open: the events of an evlist opened on a
 * target (a started command, processes, threads, or CPUs) with one mmap'd ring
 * buffer per CPU that every event on that CPU writes into, drained record by
 * record exactly as the kernel wrote them.
 * The sampler owns its fds, buffers and id arrays; sampler__close() frees them.
 */
#ifndef SONDE_SAMPLER_H
#define SONDE_SAMPLER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/event/event.h"
#include "lib/proc/target.h"

enum callgraph_mode {
	CALLGRAPH_NONE,
	CALLGRAPH_FP,		/* kernel-walked frame pointers: PERF_SAMPLE_CALLCHAIN */
	CALLGRAPH_DWARF,	/* user registers + a copy of the user stack, unwound later */
	CALLGRAPH_LBR,		/* the CPU's last branch record call stack (Intel) */
};

struct sampler_config {
	uint64_t freq;			/* samples per second, when period is 0 */
	uint64_t period;		/* one sample every period events (-c) */
	enum callgraph_mode callgraph;
	uint32_t stack_size;		/* DWARF: bytes of user stack per sample */
	unsigned mmap_pages;		/* data pages per CPU buffer (a power of two) */
	bool no_inherit;		/* do not follow children (-t) */
	bool monotonic;			/* times in CLOCK_MONOTONIC (use_clockid), as user space reads it */
};

#define SAMPLER_DEFAULT_FREQ 99

/*
 * -F's value for every command: samples per second, 1 up to
 * kernel.perf_event_max_sample_rate, or "max" for that rate. 0 or -EINVAL
 * (-ENOENT when "max" cannot be read), with one line in err.
 */
int sampler__parse_freq(const char *s, uint64_t *hz, char *err, size_t errlen);
#define SAMPLER_DEFAULT_STACK 8192
#define SAMPLER_MAX_STACK 65528

struct sampler_buf {
	int cpu;
	int fd;				/* the fd the buffer is mapped from */
	void *base;			/* the metadata page, then the data pages */
	size_t data_size;
};

struct sampler {
	struct evlist *evl;
	int nr_cpus, nr_threads;
	int *cpus;			/* CPU of each buffer */
	pid_t *threads;			/* -1 for system-wide */
	int *fd;			/* [(ev * nr_cpus + cpu) * nr_threads + thread], -1 if not open */
	struct sampler_buf *bufs;	/* one per CPU */
	uint64_t **ids;			/* per event: the kernel's ids of its fds */
	size_t *nr_ids;
	uint8_t *bounce;		/* for a record that wraps around a buffer's end */
	bool user_only_fallback;	/* kernel sampling was refused: :u used */
	unsigned shrunk_pages;		/* non-zero: a buffer got only this many pages (locked memory limit) */
	uint64_t bytes;			/* drained so far */
};

/*
 * Fill the sampling fields of every event's attr (period or frequency, sample
 * type, call graphs, tracking of mmap/comm/fork on the first event) for target t.
 * Tracepoints sample every hit (period 1) and carry their raw record.
 */
void sampler__config_attrs(struct evlist *evl, const struct target *t, const struct sampler_config *cfg);

/*
 * Open every event on t, disabled (a started command's enable on its exec), and
 * map the buffers. Returns 0 or -errno with one line for the user in err (what
 * failed, why, which sysctl or capability would help).
 */
int sampler__open(struct sampler *s, struct evlist *evl, const struct target *t,
		  const struct sampler_config *cfg, char *err, size_t errlen);
int sampler__enable(struct sampler *s);
int sampler__disable(struct sampler *s);

/* pollfds for the buffers (POLLIN when one passes its watermark); returns how many */
int sampler__pollfds(const struct sampler *s, struct pollfd *pf, int max);

/*
 * Hand every record written since the last drain to fn, in each buffer's order
 * (several records per call when they are contiguous), then free the space.
 * Returns 0, or the first non-zero value fn returned.
 */
int sampler__drain(struct sampler *s, int (*fn)(void *ctx, const void *recs, size_t len), void *ctx);

void sampler__close(struct sampler *s);

#endif
