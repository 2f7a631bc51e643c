/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memleak_preload.h - `sonde memleak --preload`: the outstanding allocations
 * of a command that runs with sonde's shim (src/preload/memleak_preload.c) in
 * LD_PRELOAD, read from the memory it shares with sonde. No probes: the
 * command is never stopped, which makes this the cheap way for a command
 * sonde starts (a running process, -p, needs the uprobes of bpf_memleak.h).
 * struct memleak_preload owns the memfds and the mapping; the report is the
 * same struct memleak_report as the uprobes', freed by memleak_report__free.
 */
#ifndef SONDE_MEMLEAK_PRELOAD_H
#define SONDE_MEMLEAK_PRELOAD_H

#include "lib/bpf/bpf_memleak.h"

struct memleak_preload;

/* the shim and the zeroed tables, in memfds; the sizes and sampling of o; 0 or -errno */
int memleak_preload__new(struct memleak_preload **out, const struct memleak_opts *o);
/*
 * Put LD_PRELOAD and the shim's variable in this process's environment for a
 * child forked next (workload__prepare), and take them out again (restore):
 * the shim gives the command its own LD_PRELOAD back when it starts.
 */
int memleak_preload__setenv(struct memleak_preload *p);
void memleak_preload__restore_env(struct memleak_preload *p);
/* the process to record in: the child, before it execs */
void memleak_preload__set_pid(struct memleak_preload *p, pid_t pid);
/* advance the clock the allocations' ages are measured by (every tick) */
void memleak_preload__tick(struct memleak_preload *p);
/* whether the command loaded the shim (a static or setuid binary does not) */
bool memleak_preload__ready(const struct memleak_preload *p);
/* as memleak__read; combined: the sums by stack only (no ages, no addresses) */
int memleak_preload__read(struct memleak_preload *p, uint64_t older_ns, bool combined, struct memleak_report *r);
void memleak_preload__free(struct memleak_preload *p);

#endif
