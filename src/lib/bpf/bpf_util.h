/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_util.h - what every BPF-based command shares: libbpf's log routed through
 * sonde's -v levels, kernel feature probes made by real loads (never by asking
 * bpftool), reading stack maps and per-CPU counters, and the set of target
 * pids/tgids a program filters on. Nothing returned here needs freeing.
 */
#ifndef SONDE_BPF_UTIL_H
#define SONDE_BPF_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Route libbpf's messages to stderr by sonde's verbosity: warnings from -v,
 * info from -vv, debug (verifier logs included) from -vvv. Below that libbpf
 * is silent and the command says what failed in its own words.
 */
void bpfutil__setup_log(int verbosity);
/* silence libbpf for a while (feature probes expect failures); nests */
void bpfutil__quiet(bool on);

/* the ways a BPF program can hook a kernel event, best first where it matters */
enum bpf_hook {
	BPF_HOOK_TP_BTF,	/* SEC("tp_btf/NAME"): typed raw tracepoint, needs kernel BTF */
	BPF_HOOK_RAW_TP,	/* SEC("raw_tp/NAME") */
	BPF_HOOK_TRACEPOINT,	/* SEC("tracepoint/GROUP/NAME"): perf-event tracepoint, no BTF needed */
	BPF_HOOK_FENTRY,	/* SEC("fentry/FUNC") */
	BPF_HOOK_KPROBE,	/* SEC("kprobe/FUNC") */
};
const char *bpf_hook__name(enum bpf_hook h);

/*
 * Feature probes. Each loads (and where it matters attaches) a two-instruction
 * program and says whether the kernel took it; answers are cached. On error
 * *why (when not NULL) gets a static reason fit for a message.
 */
bool bpf_probe__tp_btf(const char *tp, const char **why);		/* "sched_switch" */
bool bpf_probe__raw_tp(const char *tp, const char **why);
bool bpf_probe__tracepoint(const char *group, const char *name, const char **why);
bool bpf_probe__fentry(const char *func, const char **why);	/* kernel function */
bool bpf_probe__kprobe(const char *func, const char **why);	/* kprobe PMU or kprobe_events, and the symbol */
bool bpf_probe__prog_type(int prog_type, const char **why);	/* enum bpf_prog_type */
bool bpf_probe__helper(int prog_type, int helper_id);		/* enum bpf_func_id */
/*
 * the kernel's BTF, parsed once for the whole process (10-20 ms here) and
 * shared: the probe language's types and these probes use the same one.
 * NULL when the kernel has none. Never free it; split it to add types.
 */
struct btf *bpf_util__vmlinux_btf(void);
/* that BTF if something parsed it already, else NULL (and nothing is parsed) */
struct btf *bpf_util__vmlinux_btf_loaded(void);
struct btf;
bool bpf_probe__btf(void);						/* /sys/kernel/btf/vmlinux loads */
/* NULL when this process may load tracing programs (root, CAP_BPF + CAP_PERFMON); else why not */
const char *bpf_probe__privilege(void);
/* uprobe_multi links (Linux 6.6): off when SONDE_NO_UPROBE_MULTI is set in the environment */
bool bpf_probe__uprobe_multi(const char **why);
/* kprobe_multi links (Linux 5.18), or with session kprobe_session ones (6.10), where kprobes work */
bool bpf_probe__kprobe_multi(bool session, const char **why);

/*
 * uprobe_multi links, which Debian 12's headers and libbpf predate: a KPROBE
 * program loaded with expected_attach_type BPF_UPROBE_MULTI attaches to
 * PATH+offset (a uretprobe when ret) by a link, firing only in process pid when
 * it is > 0. Closing a link unregisters without the perf-event path's event_mutex,
 * so many close in parallel (a perf uprobe's close waits ~0.1 s, one at a time).
 * The link's fd, or -errno.
 */
/*
 * The first max (<= 8) kernel frames bpf_get_stack() returns in a program on
 * raw tracepoint sys_enter, which this call fires once: frame 0 is the program,
 * then the kernel's glue (bpf_trace_runN, and __bpf_trace_sys_enter unless the
 * compiler made it a jump) before the code that hit the tracepoint. The number
 * of frames, or -errno.
 */
int bpf_rawtp__sample_stack(uint64_t *ips, int max);

#define BPF_UPROBE_MULTI 48	/* enum bpf_attach_type: BPF_TRACE_UPROBE_MULTI */
int bpf_uprobe_multi__attach(int prog_fd, const char *path, uint64_t offset, bool ret, pid_t pid);
/* the same at cnt offsets in one link, cookies[i] (or none when NULL) the BPF cookie of offs[i] */
int bpf_uprobe_multi__attach_n(int prog_fd, const char *path, const uint64_t *offs, const uint64_t *cookies, int cnt,
			       bool ret, pid_t pid);

/*
 * The first hook of `prefs` (n of them, best first) the kernel accepts for
 * tracepoint GROUP:NAME (for fentry/kprobe, NAME is the kernel function);
 * -ENOTSUP when none.
 */
int bpf_hook__choose(const enum bpf_hook *prefs, int n, const char *group, const char *name);

/* read stack `id` of a BPF_MAP_TYPE_STACK_TRACE map: frames into ips, innermost first; count or -errno */
int bpf_stack__read(int map_fd, int32_t id, uint64_t *ips, int max);

/* the sum over CPUs of key `key` of a BPF_MAP_TYPE_PERCPU_ARRAY of u64; 0 on any error */
uint64_t bpf_percpu__sum(int map_fd, uint32_t key);

/* put each of pids[0..n) in a hash map of u32 -> u8 (the targets set); 0 or -errno */
int bpf_targets__add(int map_fd, const pid_t *pids, int n);

/*
 * Where field `field` of tracepoint GROUP:NAME lies in its record (from the
 * tracefs format file), for classic-tracepoint programs that take the offsets
 * through rodata; 0 or -errno (-ENOENT: no such tracepoint or field).
 */
int bpf_tp__field(const char *group, const char *name, const char *field, int *offset, int *size);

/* a message for a load or attach failure of BPF: names the sysctl or capability when it is one */
const char *bpfutil__strerror(int err);

#endif
