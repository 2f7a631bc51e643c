// SPDX-License-Identifier: GPL-2.0
/*
 * probe_info.c - `sonde probe --info`: what this machine and this build let
 * the probe language do, in the sections bpftrace's --info prints (System,
 * Build, Kernel helpers, Kernel features, Probe types). Each kernel answer is
 * a feature probe of lib/bpf (a tiny program loaded, a link tried), so the
 * lines say what sonde would get here, not what the headers promise.
 */
#include "cmd/probe.h"
#include "lib/bpf/bpf_util.h"
#include "lib/version.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static const char *yes(bool b)
{
	return b ? "yes" : "no";
}

/* any BTF of a module in /sys/kernel/btf (vmlinux's is the kernel's own) */
static bool module_btf(void)
{
	DIR *d = opendir("/sys/kernel/btf");
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d)))
		found = e->d_name[0] != '.' && strcmp(e->d_name, "vmlinux");
	if (d)
		closedir(d);
	return found;
}

int probe__info(FILE *f)
{
	struct utsname u;
	struct btf *btf;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	fprintf(f, "System\n  OS: %s %s %s\n  Arch: %s\n\n", u.sysname, u.release, u.version, u.machine);
	fprintf(f, "Build\n  version: sonde %s (commit %s)\n  libbpf: %u.%u\n", SONDE_VERSION, version__commit(),
		libbpf_major_version(), libbpf_minor_version());
	for (const struct version_feature *v = version__features(); v->name; v++)
		fprintf(f, "  %s: %s\n", v->name, yes(v->present));
	fprintf(f, "\nKernel helpers\n");
	fprintf(f, "  get_func_ip: %s\n", yes(bpf_probe__helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_func_ip)));
	fprintf(f, "  get_tai_ns: %s\n", yes(bpf_probe__helper(BPF_PROG_TYPE_KPROBE, 208 /* ktime_get_tai_ns */)));
	fprintf(f, "  lookup_percpu_elem: %s\n", yes(bpf_probe__helper(BPF_PROG_TYPE_KPROBE, 195)));
	fprintf(f, "  loop: %s\n", yes(bpf_probe__helper(BPF_PROG_TYPE_KPROBE, 181)));
	btf = bpf_util__vmlinux_btf();
	fprintf(f, "\nKernel features\n  Instruction limit: %d\n  btf: %s\n  module btf: %s\n",
		bpf_probe__helper(BPF_PROG_TYPE_KPROBE, 181) ? 1000000 : 4096, yes(btf), yes(module_btf()));
	fprintf(f, "\nProbe types\n");
	fprintf(f, "  kprobe: %s\n", yes(!access("/sys/kernel/tracing/kprobe_events", F_OK) ||
					  !access("/sys/kernel/debug/tracing/kprobe_events", F_OK)));
	fprintf(f, "  kprobe_multi: %s\n", yes(bpf_probe__kprobe_multi(false, NULL)));
	fprintf(f, "  kprobe_session: %s\n", yes(bpf_probe__kprobe_multi(true, NULL)));
	fprintf(f, "  uprobe_multi: %s\n", yes(bpf_probe__uprobe_multi(NULL)));
	fprintf(f, "  iter: %s\n", yes(btf && btf__find_by_name_kind(btf, "bpf_iter_task", BTF_KIND_FUNC) > 0));
	fprintf(f, "  fentry: %s\n", yes(bpf_probe__fentry("vfs_read", NULL)));
	return 0;
}
