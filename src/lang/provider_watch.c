// SPDX-License-Identifier: GPL-2.0
/*
 * provider_watch.c - watchpoint:ADDR:LEN:MODE and asyncwatchpoint: hardware
 * breakpoints (perf_event_open PERF_TYPE_BREAKPOINT) running the probe's
 * BPF_PROG_TYPE_PERF_EVENT program on every access.
 *
 * ADDR is an absolute address (a user address in the -p/-c process, else a
 * kernel address watched on every CPU), or FUNC+argN ([BINARY:]FUNC+argN):
 * the address argN holds when FUNC is entered in the -p/-c process. For that
 * form a small uprobe program of our own sends argN through a ring buffer of
 * its own and, for a (synchronous) watchpoint, stops the process with SIGSTOP;
 * the runtime's ring-buffer loop calls arm() here, which opens the breakpoint
 * on that address and sends SIGCONT, so no access after the call is missed.
 * asyncwatchpoint does the same without stopping the process. unwatch(addr)
 * reaches watch__unwatch() through a record and closes the breakpoints on addr.
 */
#include "lang/provider.h"
#include "lib/util.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_ADDRS 16

struct watch {
	uint64_t addr;		/* the absolute form's address */
	int len, type;		/* bp_len, bp_type (HW_BREAKPOINT_R|W or X) */
	bool func, sync;	/* FUNC+argN; watchpoint (stop the process) rather than asyncwatchpoint */
	int argn;
	pid_t pid;		/* the process (attach time), or -1: the kernel's addresses */
	struct ap_inst *in;
	int rb_fd;		/* the FUNC+argN form: the ring buffer argN comes through */
	uint64_t addrs[MAX_ADDRS];	/* the addresses watched (FUNC+argN), and their events' fds */
	int afd[MAX_ADDRS];
	int naddrs;
	bool warned;
};

static const char *target_cmd;	/* -c CMD: the binary FUNC+argN is in when no BINARY is given */

void watch__set_cmd(const char *cmd)
{
	target_cmd = cmd;
}

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* "rw" -> HW_BREAKPOINT_RW; x alone; 0 for a bad mode */
static int bp_type(const char *m)
{
	int t = 0;

	if (!*m)
		return 0;
	for (; *m; m++) {
		int b = *m == 'r' ? HW_BREAKPOINT_R : *m == 'w' ? HW_BREAKPOINT_W : *m == 'x' ? HW_BREAKPOINT_X : -1;

		if (b < 0 || (t & b))
			return 0;
		t |= b;
	}
	if ((t & HW_BREAKPOINT_X) && t != HW_BREAKPOINT_X)
		return 0;
	return t;
}

/* the binary FUNC+argN is in: as given, the -p process's, or the -c command's */
static int func_binary(struct program *prog, struct attach *ap, const char *bin, char *out, size_t len)
{
	pid_t pid = provider__target_pid();
	char cmd0[4096];

	if (bin) {
		if (provider__resolve_path(bin, out, len)) {
			lang__error(prog, ap->loc, "cannot find binary or library '%s'", bin);
			return -ENOENT;
		}
		return 0;
	}
	if (pid > 0) {
		char exe[64];
		ssize_t n;

		snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
		n = readlink(exe, out, len - 1);
		if (n <= 0) {
			lang__error(prog, ap->loc, "cannot read %s: %s", exe, strerror(errno));
			return -errno;
		}
		out[n] = 0;
		return 0;
	}
	if (target_cmd) {
		snprintf(cmd0, sizeof(cmd0), "%.*s", (int)strcspn(target_cmd, " \t"), target_cmd);
		if (provider__resolve_path(cmd0, out, len)) {
			lang__error(prog, ap->loc, "cannot find the -c command's binary '%s'", cmd0);
			return -ENOENT;
		}
		return 0;
	}
	lang__error(prog, ap->loc, "a watchpoint on a function's argument (FUNC+argN) needs -p PID or -c CMD: "
		    "it watches the address in that process");
	return -EINVAL;
}

int watch__expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail)
{
	const char *text = strchr(ap->text, ':');
	char spec[4096], *lenp, *modep, name[4400], path[4096];
	struct watch *w;
	char *end;

	if (!text || snprintf(spec, sizeof(spec), "%s", text + 1) >= (int)sizeof(spec) ||
	    !(modep = strrchr(spec, ':')) || (*modep = 0, !(lenp = strrchr(spec, ':')))) {
		lang__error(prog, ap->loc, "a watchpoint is written %s:ADDRESS:LENGTH:MODE or %s:FUNCTION+argN:LENGTH:MODE "
			    "(MODE: r, w, rw or x)", ap->prov, ap->prov);
		return -EINVAL;
	}
	*lenp++ = 0;
	modep++;
	w = arena__alloc(prog->arena, sizeof(*w));
	w->rb_fd = -1;
	w->sync = !strcmp(ap->prov, "watchpoint");
	w->len = (int)strtol(lenp, &end, 10);
	if (*end || (w->len != 1 && w->len != 2 && w->len != 4 && w->len != 8)) {
		lang__error(prog, ap->loc, "a watchpoint's length is 1, 2, 4 or 8 bytes, not '%s'", lenp);
		return -EINVAL;
	}
	w->type = bp_type(modep);
	if (!w->type) {
		lang__error(prog, ap->loc, "a watchpoint's mode is r, w, rw or x (x alone), not '%s'", modep);
		return -EINVAL;
	}
	if (w->type == HW_BREAKPOINT_X && w->len != sizeof(long)) {
		/* the kernel wants sizeof(long) for an execution breakpoint (arch_build_bp_info) */
		lang__error(prog, ap->loc, "an execution watchpoint (x) has length %zu", sizeof(long));
		return -EINVAL;
	}
	char *plus = strrchr(spec, '+');

	if (plus && !strncmp(plus + 1, "arg", 3)) {
		char *colon, *fn = spec;
		const char *bin = NULL;

		*plus = 0;
		w->argn = (int)strtol(plus + 4, &end, 10);
		if (*end || plus[4] < '0' || plus[4] > '9' || provider__arg_offset(w->argn) < 0) {
			lang__error(prog, ap->loc, "'%s' is not an argument in a register (arg0 to arg5)", plus + 1);
			return -EINVAL;
		}
		colon = strrchr(spec, ':');
		if (colon) {
			*colon = 0;
			bin = spec;
			fn = colon + 1;
		}
		if (!*fn) {
			lang__error(prog, ap->loc, "no function before '+arg%d'", w->argn);
			return -EINVAL;
		}
		if (func_binary(prog, ap, bin, path, sizeof(path)))
			return -EINVAL;
		uint64_t off;
		int rc = provider__elf_sym_offset(path, fn, &off);

		if (rc) {
			lang__error(prog, ap->loc, "cannot find function '%s' in '%s'%s", fn, path,
				    rc == -ENOENT ? " (no such symbol)" : "");
			return rc;
		}
		w->func = true;
		snprintf(name, sizeof(name), "%s:%s+arg%d:%d:%s", ap->prov, fn, w->argn, w->len, modep);
		struct ap_inst *in = provider__new_inst(prog, pr, ap, tail, name);

		in->path = arena__strndup(prog->arena, path, strlen(path));
		in->sym = arena__strndup(prog->arena, fn, strlen(fn));
		in->offset = off;
		in->watch = w;
		w->in = in;
		return 0;
	}
	errno = 0;
	w->addr = strtoull(spec, &end, 0);
	if (*end || !*spec || errno) {
		lang__error(prog, ap->loc, "'%s' is neither an address nor FUNCTION+argN", spec);
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%s:0x%llx:%d:%s", ap->prov, (unsigned long long)w->addr, w->len, modep);
	struct ap_inst *in = provider__new_inst(prog, pr, ap, tail, name);

	in->watch = w;
	w->in = in;
	return 0;
}

static void bp_attr(const struct watch *w, uint64_t addr, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_BREAKPOINT;
	attr->bp_type = w->type;
	attr->bp_addr = addr;
	attr->bp_len = w->len;
	attr->sample_period = 1;
	attr->wakeup_events = 1;
}

/* why the kernel refused a breakpoint, in words */
static void bp_error(const struct watch *w, uint64_t addr, int e, char *err, size_t errlen)
{
	const char *why = e == ENOSPC ? " (every hardware debug register is taken: x86 has 4)" :
		e == EINVAL && w->type == HW_BREAKPOINT_R ? " (x86 cannot watch reads alone: use rw)" :
		e == EINVAL ? " (the address must be aligned to the length)" :
		e == ENOENT || e == EOPNOTSUPP ? " (this kernel or machine has no hardware breakpoints: CONFIG_HAVE_HW_BREAKPOINT)" :
		e == EACCES || e == EPERM ? " (kernel addresses need root or CAP_PERFMON)" : "";

	snprintf(err, errlen, "cannot watch 0x%llx in '%s': %s%s", (unsigned long long)addr, w->in->name,
		 strerror(e), why);
}

/* one breakpoint on addr running the probe's program: in the process, else on every CPU */
static int watch_addr(struct watch *w, uint64_t addr, const struct attach_ctx *ctx, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	int before = w->in->nfds, rc;

	bp_attr(w, addr, &attr);
	if (w->pid > 0) {
		attr.inherit = 1;	/* threads started later too */
		rc = provider__attach_perf(w->in, &attr, w->pid, -1, err, errlen);
		if (rc == -EINVAL) {	/* kernels refusing inherit with a BPF program */
			attr.inherit = 0;
			rc = provider__attach_perf(w->in, &attr, w->pid, -1, err, errlen);
		}
	} else {
		rc = 0;
		for (int i = 0; i < ctx->ncpus && !rc; i++)
			rc = provider__attach_perf(w->in, &attr, -1, ctx->cpus[i], err, errlen);
	}
	if (rc) {
		/* attach_perf's message, with the reason */
		bp_error(w, addr, -rc, err, errlen);
		for (int i = before; i < w->in->nfds; i++)
			close(w->in->fds[i]);
		w->in->nfds = before;
	}
	return rc;
}

/* a FUNC+argN record: watch the address (once), then let the process go on */
static int arm(void *ctx, void *data, size_t size)
{
	struct watch *w = ctx;
	uint64_t addr;
	char err[512];
	bool known = false;

	if (size < 8)
		return 0;
	memcpy(&addr, data, 8);
	for (int i = 0; i < w->naddrs && !known; i++)
		known = w->addrs[i] == addr;
	if (!known && addr) {
		struct attach_ctx none = { .pid = w->pid };
		int before = w->in->nfds;

		if (w->naddrs == MAX_ADDRS) {
			if (!w->warned)
				lang__diag(LANG_WARNING, "'%s': more than %d addresses to watch; not watching 0x%llx",
					w->in->name, MAX_ADDRS, (unsigned long long)addr);
			w->warned = true;
		} else if (watch_addr(w, addr, &none, err, sizeof(err))) {
			if (!w->warned)
				lang__diag(LANG_WARNING, "%s", err);
			w->warned = true;
		} else {
			w->addrs[w->naddrs] = addr;
			w->afd[w->naddrs++] = before < w->in->nfds ? w->in->fds[before] : -1;
		}
	}
	if (w->sync)
		kill(w->pid, SIGCONT);
	return 0;
}

/* the uprobe program of the FUNC+argN form: argN into our ring buffer; SIGSTOP for a watchpoint */
static int arm_prog(const struct watch *w)
{
	struct bpf_insn code[20];
	int i = 0;
#define I(c, d, s, o, v) (code[i++] = (struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (v) })
	I(BPF_LDX | BPF_MEM | BPF_DW, 7, 1, provider__arg_offset(w->argn), 0);
	I(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, w->rb_fd);
	I(0, 0, 0, 0, 0);
	I(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 8);
	I(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0);
	I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_reserve);
	I(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, w->sync ? 7 : 5, 0);	/* no room: neither record nor stop */
	I(BPF_STX | BPF_MEM | BPF_DW, 0, 7, 0, 0);
	I(BPF_ALU64 | BPF_MOV | BPF_X, 6, 0, 0, 0);
	if (w->sync) {
		/*
		 * SIGSTOP before the record is visible: sonde's SIGCONT comes after it and
		 * cancels it even when it is sent before the process has stopped
		 */
		I(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, SIGSTOP);
		I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_send_signal);
	}
	I(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	I(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 0);
	I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_submit);
	I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
#undef I
	return bpf_prog_load(BPF_PROG_TYPE_KPROBE, "sonde_watcharm", "GPL", code, i, NULL);
}

static int attach_func(struct watch *w, const struct attach_ctx *ctx, char *err, size_t errlen)
{
	struct ap_inst *in = w->in;
	const char *type_path = "/sys/bus/event_source/devices/uprobe/type";
	struct perf_event_attr attr = { 0 };
	int type, pfd, fd;

	if (!ctx->rb) {
		snprintf(err, errlen, "cannot attach '%s': no ring buffer to arm it through", in->name);
		return -EINVAL;
	}
	if (util__read_int(type_path, &type)) {
		snprintf(err, errlen, "cannot attach '%s': this kernel has no uprobe PMU (%s is missing)", in->name, type_path);
		return -EOPNOTSUPP;
	}
	w->rb_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "sonde_watch", 0, 0, 4096 * 4, NULL);
	if (w->rb_fd < 0 || provider__add_fd(in, w->rb_fd)) {
		snprintf(err, errlen, "cannot create the ring buffer of '%s': %s", in->name, strerror(errno));
		return -errno;
	}
	if (ring_buffer__add(ctx->rb, w->rb_fd, arm, w)) {
		snprintf(err, errlen, "cannot read the ring buffer of '%s': %s", in->name, strerror(errno));
		return -errno;
	}
	pfd = arm_prog(w);
	if (pfd < 0) {
		snprintf(err, errlen, "the kernel refused the uprobe program of '%s': %s", in->name, strerror(-pfd));
		return pfd;
	}
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config1 = (uint64_t)(uintptr_t)in->path;
	attr.config2 = in->offset;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	fd = perf_open(&attr, w->pid, -1);
	if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_BPF, pfd) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		int e = errno;

		snprintf(err, errlen, "cannot attach the uprobe of '%s' (%s at 0x%llx): %s", in->name, in->path,
			 (unsigned long long)in->offset, strerror(e));
		if (fd >= 0)
			close(fd);
		close(pfd);
		return -e;
	}
	close(pfd);	/* the perf event keeps it */
	return provider__add_fd(in, fd);
}

int watch__attach(struct ap_inst *in, const struct attach_ctx *ctx, char *err, size_t errlen)
{
	struct watch *w = in->watch;

	w->pid = ctx->pid > 0 ? ctx->pid : -1;
	if (w->func)
		return attach_func(w, ctx, err, errlen);
	return watch_addr(w, w->addr, ctx, err, errlen);
}

/* a stopped process must not stay stopped when we go */
void watch__detach(struct ap_inst *in)
{
	struct watch *w = in->watch;

	if (w && w->func && w->sync && w->pid > 0 && w->rb_fd >= 0)
		kill(w->pid, SIGCONT);
}

static void drop_fd(struct ap_inst *in, int fd)
{
	for (int i = 0; i < in->nfds; i++)
		if (in->fds[i] == fd) {
			close(fd);
			in->fds[i] = in->fds[--in->nfds];
			return;
		}
}

void watch__unwatch(struct program *prog, uint64_t addr)
{
	for (struct probe *pr = prog->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->inst; in; in = in->next) {
			struct watch *w = in->watch;

			if (!w)
				continue;
			if (!w->func && w->addr == addr) {
				for (int i = 0; i < in->nfds; i++)
					close(in->fds[i]);
				in->nfds = 0;
				continue;
			}
			for (int i = 0; w->func && i < w->naddrs; i++)
				if (w->addrs[i] == addr) {
					/* the fds after afd[i] belong to it (one per CPU at most, one with a pid) */
					drop_fd(in, w->afd[i]);
					w->addrs[i] = w->addrs[w->naddrs - 1];
					w->afd[i] = w->afd[--w->naddrs];
					break;
				}
		}
}
