/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_mmaps.h - follow the memory maps of a started command and its children
 * for a BPF command that symbolizes at the end, when they may have exited: a
 * perf dummy event with mmap/comm/task tracking on the child (inherited, so
 * forks are followed) feeds every PERF_RECORD_MMAP2, exec and fork into the
 * symbolizer. struct bpf_mmaps owns its sampler; the symbolizer stays the caller's.
 */
#ifndef SONDE_BPF_MMAPS_H
#define SONDE_BPF_MMAPS_H

#include <stddef.h>
#include <sys/types.h>

struct symbolizer;
struct bpf_mmaps;

/* track `child` (held before exec by workload__prepare); 0 or -errno with err filled */
int bpf_mmaps__open(struct bpf_mmaps **out, struct symbolizer *s, pid_t child, char *err, size_t errlen);
/*
 * track the processes of t (-p, running already: every thread of each, and their children
 * from now on): their maps made from now on, an exec's among them; what they mapped before
 * is the caller's to read (/proc/PID/maps). t's lists are read only during the call.
 */
struct target;
int bpf_mmaps__open_target(struct bpf_mmaps **out, struct symbolizer *s, const struct target *t,
			   char *err, size_t errlen);
/* hand the records received so far to the symbolizer; 0 or -errno */
int bpf_mmaps__drain(struct bpf_mmaps *m);
/* feed one buffer of perf records (what the drain reads) to the symbolizer: for tests */
int bpf_mmaps__feed(struct symbolizer *s, const void *recs, size_t len);
void bpf_mmaps__close(struct bpf_mmaps *m);

#endif
