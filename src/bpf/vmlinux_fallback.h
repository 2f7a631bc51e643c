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
 */
#ifndef SONDE_VMLINUX_FALLBACK_H
#define SONDE_VMLINUX_FALLBACK_H

#include <stdbool.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>

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

struct task_struct {
	unsigned int __state;
	int pid;
	int tgid;
	char comm[16];
};

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif
