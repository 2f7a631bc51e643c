/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.h - a recording read back with its symbols: walks a perf.data file in
 * time order, keeps the processes' names and memory maps as the recording saw
 * them, and hands each sample over with its stack resolved (kernel callchain,
 * user callchain or DWARF-unwound user stack, inlined frames if asked).
 * Used by report, script, collapse and flame -i.
 *
 * The session owns everything it hands out; a sample and its frames are valid
 * only during the callback.
 */
#ifndef SONDE_SESSION_H
#define SONDE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/perfdata/perfdata.h"
#include "lib/symbol/symbol.h"

struct session;

struct session_frame {
	uint64_t ip;
	bool kernel;
	struct sym_frame sym;	/* sym.sym NULL when unresolved */
	const char *elf_sym;	/* the symbol's name where sym.sym is DWARF's (SYM_INLINE_UNWOUND), else NULL */
	bool unwound;		/* a user frame unwound with DWARF from the sample's stack copy */
};

struct session_sample {
	const struct perfdata_event *ev;	/* ev->sample has the raw fields */
	const struct perfdata_sample *s;
	const char *comm;			/* the thread's name at that time */
	const char *event_name;			/* "cpu-clock", "sched:sched_switch" */
	int attr_idx;
	bool kernel;				/* the sample ip is in the kernel */
	struct session_frame *frames;		/* leaf first; frames[0] is the sample ip */
	const struct session_frame *self;	/* the sample ip's function, named by its symbol (no inlined
						   frame: what perf's sample entries and lines name); NULL:
						   frames[0] */
	int nr_frames;
	bool truncated;				/* more frames than the session keeps */
	bool filtered;				/* the filter refused it (handed over only with
						   keep_filtered): no frames, count it in totals only */
	/*
	 * the same number for samples whose frames are the same: of one process, the same
	 * event, the same addresses, read with the same maps (never reused in a walk);
	 * 0: not known (a DWARF-unwound stack, or not from session__walk)
	 */
	uint32_t stack_id;
};

/*
 * Which samples a command looks at, as perf's --comms, --pid, --tid and
 * perf script's -S take them: comma lists, names matched exactly ("sh" is
 * not "bash"), ids as numbers. NULL lets every sample through.
 */
struct session_filter {
	const char *comms, *pids, *tids;
	const char *syms;	/* the function of the sample's ip (an unresolved one never matches) */
};

/* the sample of thread tid (of process pid), named comm, passes f's comms, pids and tids */
bool session_filter__match(const struct session_filter *f, const char *comm, uint32_t pid, uint32_t tid);
/* a sample in function sym (NULL: unresolved) passes f's syms */
bool session_filter__match_sym(const struct session_filter *f, const char *sym);

struct session_opts {
	struct session_filter filter;	/* samples that fail it are not handed over (its lists are the
					   caller's, read until session__free) */
	bool keep_filtered;		/* hand them over too, marked filtered (perf report's totals) */
	unsigned sym_flags;	/* SYM_INLINE, SYM_SRCLINE */
	bool no_callchain;	/* only the sample ip */
	int max_stack;		/* 0: the default (127, perf's) */
	const char *symfs;	/* look for the recorded files under this directory first */
	const char *kallsyms;	/* the recorded machine's /proc/kallsyms, copied */
};

/*
 * perf's short name of a frame's DSO: its base name, "[kernel.kallsyms]" and other
 * "[...]" names as they are, "[JIT] tid PID" for a JIT's /tmp/perf-PID.map (written into
 * buf, of len bytes), "[unknown]" for none
 */
const char *session__dso_short_name(const char *dso, char *buf, size_t len);

/* open path and prepare its symbols; -errno with one line in err */
int session__open(struct session **out, const char *path, const struct session_opts *o,
		  char *err, size_t errlen);
void session__free(struct session *s);

typedef int (*session_sample_fn)(const struct session_sample *smp, void *arg);
/* non-sample records too (MMAP, COMM, FORK, EXIT, LOST...), after the session took them in */
typedef int (*session_event_fn)(const struct perfdata_event *ev, void *arg);

/*
 * Walk every record; on_sample for each sample that passes the filter, on_event (may be NULL) for the
 * rest. A callback returning non-zero stops the walk and that value is
 * returned. Records that do not parse are counted (session__bad_records) and
 * skipped. Returns 0 at the end, or -errno.
 */
int session__walk(struct session *s, session_sample_fn on_sample, session_event_fn on_event, void *arg);

struct perfdata_reader *session__reader(struct session *s);
struct symbolizer *session__symbolizer(struct session *s);
unsigned long session__bad_records(const struct session *s);
/* the first message about a bad record, or NULL */
const char *session__first_error(const struct session *s);
/* a thread's name as known now ("" if unknown) */
const char *session__comm(struct session *s, uint32_t tid);

/*
 * Resolve one sample's stack with sym, as session__walk does (for live
 * commands that read ring buffers themselves): the kernel callchain, the user
 * callchain or, with a user stack copy and ips[] scratch room for max_stack
 * addresses, the DWARF-unwound user stack. max_stack 0: the sample ip only.
 * Writes at most cap frames, leaf first; returns how many.
 */
int session__resolve_stack(struct symbolizer *sym, unsigned sym_flags, const struct perf_event_attr *attr,
			   const struct perfdata_sample *s, bool kernel, int max_stack,
			   struct session_frame *frames, int cap, uint64_t *ips, bool *truncated);
/* the sample was taken in the kernel (its header's misc) */
bool session__kernel_sample(uint16_t misc);

#endif
