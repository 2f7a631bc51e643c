/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmlinux_fallback.h - used as vmlinux.h when the build machine has no
 * /sys/kernel/btf/vmlinux to generate one from (CONFIG_DEBUG_INFO_BTF=n, or a
 * container without sysfs). It holds only what sonde's BPF programs use: the
 * UAPI headers, and the kernel structs they read, marked preserve_access_index
 * so that libbpf relocates the field offsets (CO-RE) against the running
 * kernel's BTF when that kernel has one. A kernel without BTF cannot run the
 * tp_btf programs anyway; there sonde loads the classic-tracepoint forms, which
 * read no kernel struct. Add a field here when a program starts to use it.
 * Types only: nothing here is code or data to own.
 */
#ifndef SONDE_VMLINUX_FALLBACK_H
#define SONDE_VMLINUX_FALLBACK_H

#include <stdbool.h>
#include <linux/types.h>
#include <linux/bpf.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef int pid_t;

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)
#endif

struct mm_struct {
	unsigned long task_size;
};

struct task_struct {
	unsigned int __state;
	int pid;
	int tgid;
	char comm[16];
	struct mm_struct *mm;
	int exit_code;
};

/* x86-64, with the kernel's field names (the UAPI header says rdi, rsi...) */
struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

/* the context of perf_event programs (linux/bpf_perf_event.h, without the UAPI pt_regs) */
typedef struct pt_regs bpf_user_pt_regs_t;
struct bpf_perf_event_data {
	bpf_user_pt_regs_t regs;
	__u64 sample_period;
	__u64 addr;
};

#endif
