/* SPDX-License-Identifier: GPL-2.0 */
/*
 * provider.h - probe types as a table of hooks (ply's shape): each provider
 * expands an attach point into instances (wildcards, lists), says which BPF
 * program type runs there and what the builtins read from its context, and
 * attaches a loaded program. Instances live in the program's arena; the file
 * descriptors they open are closed by provider__detach().
 */
#ifndef SONDE_LANG_PROVIDER_H
#define SONDE_LANG_PROVIDER_H

#include "lang/lang.h"

#include <stdio.h>
#include <sys/types.h>

struct usdt_probe;
struct ring_buffer;
struct watch;

struct tp_field {
	const char *name;
	int off, size;
	bool sign;
	bool array;		/* char comm[16] */
	bool data_loc;		/* __data_loc char[] */
	bool ptr;		/* const char * */
	const char *ctype;	/* the C type as the format writes it: "const struct __kernel_timespec * " */
};

struct ap_inst {
	const struct provider *prov;
	struct attach *ap;
	const char *name;	/* the full probe name the `probe` builtin gives */
	const char *group, *event;	/* tracepoint */
	const char *path, *sym;	/* uprobe, kprobe */
	uint64_t offset;	/* uprobe: file offset; kprobe: +off */
	long long n;		/* profile/interval: hz or period; software/hardware: period */
	int unit;		/* profile/interval: 0 hz, else ns per unit */
	uint64_t config;	/* software/hardware event */
	struct tp_field *fields;
	int nfields;
	int prog_type;		/* enum bpf_prog_type (the provider's, or raw for syscalls) */
	int sc_nr;		/* syscalls:sys_enter_X/sys_exit_X run as raw tracepoints: X's number; else -1 */
	bool sc_exit;
	bool dispatched;	/* reached through a tail call from one program for many syscalls */
	int attach_btf_id;	/* fentry/fexit: the kernel function's BTF id; tp_btf: btf_trace_EVENT's */
	bool tp_btf;		/* rawtracepoint: loaded as tp_btf, its members read by loads (gen_btf.c) */
	bool tp_btf_refused;	/* the verifier refused that: generated again as a raw tracepoint */
	const struct usdt_probe *usdt;	/* usdt: this location's arguments and semaphore (lib/symbol/usdt.h) */
	bool globbed;		/* uprobe: one of the functions a wildcard matched */
	bool skipped;		/* globbed, and the kernel cannot probe it (ENOTSUPP): left out, said once */
	/* run time */
	int prog_fd;
	int *fds;
	int nfds;
	struct ap_inst *next;
	struct watch *watch;	/* watchpoint/asyncwatchpoint (provider_watch.c) */
};

struct attach_ctx {
	pid_t pid;		/* -p / -c: uprobes only fire in it; -1 for all */
	int *cpus;
	int ncpus;
	struct ring_buffer *rb;	/* the runtime's ring buffer (libbpf): providers may add their own to it */
};

struct provider {
	const char *name;
	int prog_type;		/* enum bpf_prog_type */
	bool has_args;		/* arg0..N */
	bool has_retval;
	bool has_fields;	/* args->f */
	/* fill p->inst for every attach point; 0 or -errno with a message through lang__error */
	int (*expand)(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail);
	/* attach inst->prog_fd; 0 or -errno with err filled */
	int (*attach)(struct ap_inst *inst, const struct attach_ctx *ctx, char *err, size_t errlen);
};

const struct provider *provider__find(const char *name);
/* "BEGIN, END, tracepoint, ...": every provider's name, in the table's order, into buf (cut to len) */
void provider__names(char *buf, size_t len);
/* expand every probe's attach points; 0 or -EINVAL with prog->err */
int provider__expand_all(struct program *prog, pid_t target_pid);
const struct tp_field *provider__field(const struct ap_inst *in, const char *name);
void provider__detach(struct ap_inst *inst);
/* the pt_regs offset of argN / the return value (x86-64), or -1 */
int provider__arg_offset(int n);
int provider__retval_offset(void);

/* -lv: what a probe gives (a tracepoint's fields, a kernel function's parameters), indented */
void provider__describe(const char *name, FILE *out);

/* every probe whose name matches the fnmatch pattern (NULL: all), for -l */
int provider__list(const char *pat, void (*cb)(const char *name, void *ctx), void *ctx);

/* ELF: the file offset of symbol `sym` in `path` for a uprobe; 0 or -errno */
int provider__elf_sym_offset(const char *path, const char *sym, uint64_t *offset);
/* whether instance in (a uprobe or uretprobe) is loaded and attached as a uprobe_multi link */
bool provider__uprobe_multi(const struct ap_inst *in);
/* ELF: the symbol table value and size of a function or object `sym` in `path` (uaddr); 0 or -errno */
int provider__elf_symbol(const char *path, const char *sym, uint64_t *value, uint64_t *size);
/* the full path of a binary or library named on an attach point; 0 or -ENOENT */
int provider__resolve_path(const char *name, char *out, size_t len);

/* uprobe/uretprobe (provider_uprobe.c) */
int uprobe__expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail);
int uprobe__attach(struct ap_inst *in, const struct attach_ctx *ctx, char *err, size_t errlen);
/* the functions of binary `path` whose "uprobe:SHOWN:NAME" (uretprobe: when pat says so) match fpat, for -l */
void uprobe__list_funcs(const char *path, const char *shown, const char *fpat, const char *pat,
			void (*cb)(const char *, void *), void *ctx);

/* a kprobe or uprobe through its dynamic PMU (config1/config2 as the PMU's format says); 0 or -errno with err */
int provider__dyn_attach(struct ap_inst *in, const char *pmu, bool ret, uint64_t config1, uint64_t config2,
			 pid_t pid, char *err, size_t errlen);
/* strerror(e), with what the kernel's ENOTSUPP (524) means for a probe */
const char *provider__attach_strerror(int e);

/* for providers outside provider.c: a new instance at *tail; an fd to close at detach */
struct ap_inst *provider__new_inst(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail,
				   const char *name);
int provider__add_fd(struct ap_inst *in, int fd);

/*
 * The functions ftrace can patch (kprobes and trampolines can attach to), as
 * "\nname\nname\n...\n" (free() it); NULL when available_filter_functions
 * cannot be read (errno set).
 */
char *provider__traceable(void);

/* fentry/fexit (provider_fentry.c): BPF trampolines on kernel functions, typed by BTF */
int fentry__expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail);
int fentry__attach(struct ap_inst *inst, const struct attach_ctx *ctx, char *err, size_t errlen);
/* the traceable kernel functions whose "fentry:NAME" (or fexit:) matches pat */
void fentry__list(const char *pat, void (*cb)(const char *name, void *ctx), void *ctx);
void fentry__describe(const char *name, FILE *out);
void fentry__describe_rawtp(const char *event, FILE *out);	/* -lv rawtracepoint:EVENT */
int fentry__find_type(const char *name);	/* -l 'struct NAME' */
void fentry__describe_type(const char *name, FILE *out);

/* open a perf event running in's program (pid -1: every process, then on cpu); 0 or -errno with err */
int provider__attach_perf(struct ap_inst *in, void *perf_event_attr, pid_t pid, int cpu, char *err, size_t errlen);
/* the -p PID given to provider__expand_all or set for -l (0: none) */
pid_t provider__target_pid(void);
void provider__set_target_pid(pid_t pid);

/* usdt (provider_usdt.c) */
int provider__usdt_expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail);
int provider__usdt_attach(struct ap_inst *in, const struct attach_ctx *ctx, char *err, size_t errlen);
/* the usdt probes of the file a "usdt:BINARY:..." pattern names, for -l */
void provider__usdt_list(const char *pat, void (*cb)(const char *name, void *ctx), void *ctx);

/* watchpoint/asyncwatchpoint (provider_watch.c): hardware breakpoints */
int watch__expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail);
int watch__attach(struct ap_inst *in, const struct attach_ctx *ctx, char *err, size_t errlen);
void watch__detach(struct ap_inst *in);
/* unwatch(addr): close the breakpoints on addr */
void watch__unwatch(struct program *prog, uint64_t addr);
/* -c CMD: FUNC+argN without a binary is in CMD's */
void watch__set_cmd(const char *cmd);

#endif
