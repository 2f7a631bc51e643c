/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ustack_copy.h - BPF side of --call-graph dwarf (offcpu, memleak): copy the
 * user stack from sp up, as much of the asked size as can be read. The top
 * of a thread's stack may be closer than the whole copy, and a read that
 * crosses it fails whole, so smaller copies are tried in turn. Returns the
 * bytes copied into dst (which holds at least 8192), 0 when none could be.
 */
#ifndef SONDE_BPF_USTACK_COPY_H
#define SONDE_BPF_USTACK_COPY_H

static __always_inline __u32 ustack_copy(__u8 *dst, __u64 sp, __u32 size)
{
	if (size >= 8192 && !bpf_probe_read_user(dst, 8192, (void *)sp))
		return 8192;
	if (size >= 4096 && !bpf_probe_read_user(dst, 4096, (void *)sp))
		return 4096;
	if (size >= 2048 && !bpf_probe_read_user(dst, 2048, (void *)sp))
		return 2048;
	if (!bpf_probe_read_user(dst, 1024, (void *)sp))
		return 1024;
	if (!bpf_probe_read_user(dst, 256, (void *)sp))
		return 256;
	return 0;
}

#endif
