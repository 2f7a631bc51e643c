// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_ltrace.c - the user side of ltrace.bpf.c: the plans into their maps,
 * the targets, and the probes on the PLT stubs.
 *
 * Where the kernel has uprobe_multi links (Linux 6.6), all the stubs of one
 * object go into one link for their entries and one for their returns, each
 * offset with its cookie: attaching is two system calls per object and
 * detaching is instant. Elsewhere each stub gets two perf-event uprobes with
 * a bpf_cookie, which take ~0.1 s each to close.
 */
#include "lib/bpf/bpf_ltrace.h"
#include "lib/bpf/bpf_util.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>

#include "ltrace.skel.h"

struct ltrace {
	struct ltrace_bpf *skel;
	struct bpf_link **links;	/* perf-event uprobes and the raw tracepoints */
	int nr_links;
	int *fds;			/* uprobe_multi links */
	int nr_fds;
	bool multi;
	bool jump;			/* the entry program jumps for the PLT stub */
	pid_t pid;			/* the probes fire in this process only (0: in all) */
};

static int add_link(struct ltrace *l, struct bpf_link *k)
{
	struct bpf_link **n = realloc(l->links, (l->nr_links + 1) * sizeof(*n));

	if (!n) {
		bpf_link__destroy(k);
		return -ENOMEM;
	}
	l->links = n;
	l->links[l->nr_links++] = k;
	return 0;
}

/* the probes of one path (n of them from p), entries and returns */
static int attach_path(struct ltrace *l, const struct ltrace_probe *p, int n, pid_t pid)
{
	struct bpf_program *progs[2] = { l->skel->progs.lt_entry, l->skel->progs.lt_return };
	int rc = 0;

	if (l->multi) {
		uint64_t *offs = calloc(n, sizeof(*offs)), *cks = calloc(n, sizeof(*cks));
		int *nf = realloc(l->fds, (l->nr_fds + 2) * sizeof(*nf));

		if (nf)
			l->fds = nf;
		for (int i = 0; offs && cks && i < n; i++)
			offs[i] = p[i].offset, cks[i] = p[i].cookie;
		for (int r = 0; r < 2 && offs && cks && nf && !rc; r++) {
			int fd = bpf_uprobe_multi__attach_n(bpf_program__fd(progs[r]), p[0].path, offs, cks, n, r, pid);

			if (fd < 0)
				rc = fd;
			else
				l->fds[l->nr_fds++] = fd;
		}
		if (!offs || !cks || !nf)
			rc = -ENOMEM;
		free(offs);
		free(cks);
		return rc;
	}
	for (int i = 0; i < n && !rc; i++)
		for (int r = 0; r < 2 && !rc; r++) {
			LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = r, .bpf_cookie = p[i].cookie);
			/* libbpf's pid 0 is sonde itself: -1 is every process */
			struct bpf_link *k = bpf_program__attach_uprobe_opts(progs[r], pid > 0 ? pid : -1, p[i].path,
									     p[i].offset, &uo);

			rc = k ? add_link(l, k) : -errno;
		}
	return rc;
}

static int fill_maps(struct ltrace *l, const struct ltrace_opts *o)
{
	int pfd = bpf_map__fd(l->skel->maps.plans), sfd = bpf_map__fd(l->skel->maps.sysplans);
	int tfd = bpf_map__fd(l->skel->maps.targets);
	uint8_t one = 1, two = 2;

	for (int i = 0; i < o->nr_plans && i < LT_MAX_FUNCS; i++) {
		uint32_t k = i;

		if (bpf_map_update_elem(pfd, &k, &o->plans[i], 0))
			return -errno;
	}
	for (int i = 0; o->sysplans && i < LT_SYS_MAX; i++) {
		uint32_t k = i;

		if (o->sysplans[i].n && bpf_map_update_elem(sfd, &k, &o->sysplans[i], 0))
			return -errno;
	}
	for (int i = 0; i < o->nr_targets; i++) {
		uint32_t k = o->targets[i];

		if (bpf_map_update_elem(tfd, &k, &one, 0))
			return -errno;
	}
	if (o->held) {
		uint32_t k = o->held;

		if (bpf_map_update_elem(tfd, &k, &two, 0))
			return -errno;
	}
	return 0;
}

/*
 * Whether a uprobe program may set the IP (kernels after 6.18 let it write its
 * registers, and then skips the probed instruction): a program that does
 * loads, as a kprobe program the attach would refuse
 */
static bool uprobe_sets_ip(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2, .imm = 0 },
		{ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_1, .src_reg = BPF_REG_2,
		  .off = offsetof(struct user_regs_struct, rip) },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 4, NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* the probes, grouped by path */
static int attach_all(struct ltrace *l, const struct ltrace_probe *p, int n, pid_t pid, char *err, size_t errlen)
{
	int rc;

	for (int i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(p[j].path, p[i].path); j++)
			;
		if ((rc = attach_path(l, p + i, j - i, pid))) {
			snprintf(err, errlen, "cannot attach uprobes to the PLT of %s: %s", p[i].path,
				 bpfutil__strerror(rc));
			return rc;
		}
	}
	return 0;
}

static int open_load(struct ltrace *l, const struct ltrace_opts *o, bool jump)
{
	if (!(l->skel = ltrace_bpf__open()))
		return -errno;
	l->skel->rodata->follow = o->follow;
	l->skel->rodata->hold_exec = o->hold_exec;
	l->skel->rodata->jump = jump;
	l->skel->rodata->wake_bytes = bpf_map__max_entries(l->skel->maps.rb) / 16;
	if (l->multi) {
		bpf_program__set_expected_attach_type(l->skel->progs.lt_entry, BPF_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(l->skel->progs.lt_return, BPF_UPROBE_MULTI);
	}
	bpf_program__set_autoload(l->skel->progs.lt_dlstate, o->dl_path != NULL);
	bpf_program__set_autoload(l->skel->progs.lt_sys_enter, o->syscalls);
	bpf_program__set_autoload(l->skel->progs.lt_sys_exit, o->syscalls);
	return ltrace_bpf__load(l->skel);
}

int ltrace__new(struct ltrace **out, const struct ltrace_opts *o, char *err, size_t errlen)
{
	struct ltrace *l = calloc(1, sizeof(*l));
	struct bpf_program *tps[] = { NULL, NULL, NULL, NULL, NULL, NULL, NULL };
	int rc;

	*out = l;
	if (!l)
		return -ENOMEM;
	l->multi = bpf_probe__uprobe_multi(NULL);
	l->jump = !getenv("SONDE_NO_PLT_JUMP") && uprobe_sets_ip();
	if ((rc = open_load(l, o, l->jump))) {
		snprintf(err, errlen, "cannot load the BPF program: %s", bpfutil__strerror(rc));
		return rc;
	}
	if ((rc = fill_maps(l, o))) {
		snprintf(err, errlen, "cannot fill the BPF maps: %s", strerror(-rc));
		return rc;
	}
	tps[0] = l->skel->progs.lt_exec;
	tps[1] = l->skel->progs.lt_fork;
	tps[2] = l->skel->progs.lt_proc_exit;
	tps[5] = l->skel->progs.lt_sig_deliver;
	tps[6] = l->skel->progs.lt_sig_generate;
	if (o->syscalls) {
		tps[3] = l->skel->progs.lt_sys_enter;
		tps[4] = l->skel->progs.lt_sys_exit;
	}
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		struct bpf_link *k;

		if (!tps[i])
			continue;
		if (!(k = bpf_program__attach(tps[i]))) {
			rc = -errno;
			snprintf(err, errlen, "cannot attach to %s: %s", bpf_program__section_name(tps[i]),
				 bpfutil__strerror(rc));
			return rc;
		}
		if ((rc = add_link(l, k)))
			return rc;
	}
	l->pid = o->follow ? 0 : o->pid;
	if (o->dl_path) {
		/* libbpf's pid 0 is sonde itself: -1 is every process */
		struct bpf_link *k = bpf_program__attach_uprobe(l->skel->progs.lt_dlstate, false, l->pid ? l->pid : -1,
								o->dl_path, o->dl_offset);

		if (!k || (rc = add_link(l, k))) {
			rc = k ? rc : -errno;
			snprintf(err, errlen, "cannot attach a uprobe to the dynamic loader %s: %s", o->dl_path,
				 bpfutil__strerror(rc));
			return rc;
		}
	}
	return attach_all(l, o->probes, o->nr_probes, l->pid, err, errlen);
}

int ltrace__attach(struct ltrace *l, const struct ltrace_probe *p, int n, const struct lt_plan *plans, int nplans,
		   uint32_t first, pid_t pid, char *err, size_t errlen)
{
	int pfd = bpf_map__fd(l->skel->maps.plans);

	for (int i = 0; i < nplans; i++) {
		uint32_t k = first + i;

		if (k >= LT_MAX_FUNCS || bpf_map_update_elem(pfd, &k, &plans[i], 0)) {
			snprintf(err, errlen, "cannot add the plans of %d more functions: %s", nplans,
				 k >= LT_MAX_FUNCS ? "too many functions" : strerror(errno));
			return k >= LT_MAX_FUNCS ? -E2BIG : -errno;
		}
	}
	return attach_all(l, p, n, l->pid ? pid : 0, err, errlen);
}

int ltrace__release(struct ltrace *l, pid_t pid)
{
	int tfd = bpf_map__fd(l->skel->maps.targets);
	uint32_t k = pid;
	uint8_t four = 4;

	/* first: the kernel side knows the SIGCONT, and the parent's SIGCHLD it brings, as sonde's */
	if (bpf_map_update_elem(tfd, &k, &four, BPF_EXIST))
		return -errno;
	return kill(pid, SIGCONT) ? -errno : 0;
}

int ltrace__ringbuf_fd(const struct ltrace *l)
{
	return bpf_map__fd(l->skel->maps.rb);
}

bool ltrace__multi(const struct ltrace *l)
{
	return l->multi;
}

bool ltrace__jumps(const struct ltrace *l)
{
	return l->jump;
}

uint64_t ltrace__counter(const struct ltrace *l, enum lt_counter c)
{
	return bpf_percpu__sum(bpf_map__fd(l->skel->maps.counters), c);
}

void ltrace__detach(struct ltrace *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->nr_fds; i++)
		close(l->fds[i]);
	l->nr_fds = 0;
	for (int i = 0; i < l->nr_links; i++)
		bpf_link__destroy(l->links[i]);
	l->nr_links = 0;
}

void ltrace__free(struct ltrace *l)
{
	if (!l)
		return;
	ltrace__detach(l);
	free(l->links);
	free(l->fds);
	ltrace_bpf__destroy(l->skel);
	free(l);
}
