// SPDX-License-Identifier: GPL-2.0
/*
 * probes.bpf.c - BPF programs of each kernel-function attach type, all on
 * do_sys_openat2 (every open(2) goes through it), for t0100-vm-kernel: bpftool
 * and the attach helper load them to show the VM's kernel takes them. Each
 * program counts its hits in slot N of "hits", N being its place in this file.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

static __always_inline void hit(__u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(&hits, &slot);

	if (v)
		__sync_fetch_and_add(v, 1);
}

SEC("kprobe/do_sys_openat2")
int on_kprobe(void *ctx) { hit(0); return 0; }

SEC("kretprobe/do_sys_openat2")
int on_kretprobe(void *ctx) { hit(1); return 0; }

SEC("fentry/do_sys_openat2")
int on_fentry(void *ctx) { hit(2); return 0; }

SEC("fexit/do_sys_openat2")
int on_fexit(void *ctx) { hit(3); return 0; }

char LICENSE[] SEC("license") = "GPL";
