// SPDX-License-Identifier: GPL-2.0
/*
 * provider.c - the probe types of the language as a table: how each attach
 * point expands (tracepoint globs, kprobe functions; uprobes in provider_uprobe.c)
 * and how a loaded program is attached through the kernel ABI
 * (perf_event_open + PERF_EVENT_IOC_SET_BPF, BPF_RAW_TRACEPOINT_OPEN).
 */
#include "lang/dwargs.h"
#include "lang/provider.h"
#include "lang/testbench.h"
#include "lang/provider_iter.h"
#include "lib/bpf/bpf_util.h"
#include "lib/event/event.h"
#include "lib/syscall/syscalls.h"
#include "lib/tracefs/tracefs.h"
#include "lib/util.h"

#include <bpf/bpf.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int add_fd(struct ap_inst *in, int fd)
{
	int *n = realloc(in->fds, (in->nfds + 1) * sizeof(int));

	if (!n) {
		close(fd);
		return -ENOMEM;
	}
	in->fds = n;
	in->fds[in->nfds++] = fd;
	return 0;
}

/* a perf event running inst's program */
/* strerror, and what the kernel's own ENOTSUPP (524, which libc has no name for) means here */
const char *provider__attach_strerror(int e)
{
	if (e == 524)
		return "the kernel cannot place a probe on that instruction (ENOTSUPP: uprobes refuse lock-prefixed "
		       "and some other instructions)";
	return strerror(e);
}

/* is tracepoint:G:E a kprobe or uprobe event (sonde probe --add, perf probe)? Their format has __probe_ip */
static bool is_probe_event(const char *name)
{
	const char *root = tracefs__dir(), *g = strchr(name, ':'), *e = g ? strchr(g + 1, ':') : NULL;
	char path[4096], *fmt = NULL;
	size_t len;
	bool yes;

	if (!root || strncmp(name, "tracepoint:", 11) || !e)
		return false;
	snprintf(path, sizeof(path), "%s/events/%.*s/%s/format", root, (int)(e - g - 1), g + 1, e + 1);
	yes = !util__read_file(path, 0, &fmt, &len) && strstr(fmt, "__probe_ip");
	free(fmt);
	return yes;
}

static int attach_perf(struct ap_inst *in, struct perf_event_attr *attr, pid_t pid, int cpu,
		       char *err, size_t errlen)
{
	int fd = perf_open(attr, pid, cpu);

	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "cannot open the perf event of '%s': %s", in->name, provider__attach_strerror(e));
		return -e;
	}
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, in->prog_fd) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		int e = errno;

		close(fd);
		snprintf(err, errlen, "cannot attach the program of '%s': %s%s", in->name, strerror(e),
			 e == EINVAL && is_probe_event(in->name) ? " (a kprobe or uprobe event: the kernel runs BPF "
			 "there only as kprobe:FUNC or uprobe:BIN:FUNC, which read the same arguments)" : "");
		return -e;
	}
	return add_fd(in, fd);
}

static struct ap_inst *new_inst(struct program *prog, struct probe *pr, struct attach *ap,
				struct ap_inst ***tail, const char *name)
{
	struct ap_inst *in = arena__alloc(prog->arena, sizeof(*in));

	in->prov = provider__find(ap->prov);
	in->ap = ap;
	in->name = arena__strndup(prog->arena, name, strlen(name));
	in->prog_fd = -1;
	in->prog_type = in->prov->prog_type;
	in->sc_nr = -1;
	**tail = in;
	*tail = &in->next;
	pr->ninst++;
	return in;
}

/* ---- BEGIN / END ---- */
static int special_expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail)
{
	if (ap->a) {
		lang__error(prog, ap->loc, "%s takes no arguments", ap->prov);
		return -EINVAL;
	}
	new_inst(prog, pr, ap, tail, ap->prov);
	return 0;
}

/* ---- tracepoint ---- */
static int tp_format(struct program *prog, struct ap_inst *in)
{
	char path[512], line[1024];
	const char *dir = tracefs__dir();
	FILE *f;

	if (!dir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, in->group, in->event);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *fld = strstr(line, "field:"), *semi;
		int off, size, sign = 0;
		char *o = strstr(line, "offset:"), *s = strstr(line, "size:"), *g = strstr(line, "signed:");

		if (!fld || !o || !s)
			continue;
		fld += 6;
		semi = strchr(fld, ';');
		if (!semi)
			continue;
		*semi = 0;
		off = atoi(o + 7);
		size = atoi(s + 5);
		if (g)
			sign = atoi(g + 7);
		/* the name is the last identifier, before any [N] */
		char *end = fld + strlen(fld);
		char *br = strchr(fld, '[');
		char *nend = end;

		if (br && !strstr(fld, "__data_loc"))
			nend = br;
		while (nend > fld && !(isalnum((unsigned char)nend[-1]) || nend[-1] == '_'))
			nend--;
		char *nstart = nend;

		while (nstart > fld && (isalnum((unsigned char)nstart[-1]) || nstart[-1] == '_'))
			nstart--;
		if (nstart == nend)
			continue;
		struct tp_field *nf = arena__alloc(prog->arena, (in->nfields + 1) * sizeof(*nf));

		if (in->nfields)
			memcpy(nf, in->fields, in->nfields * sizeof(*nf));
		in->fields = nf;
		struct tp_field *tf = &nf[in->nfields++];

		tf->name = arena__strndup(prog->arena, nstart, nend - nstart);
		tf->off = off;
		tf->size = size;
		tf->sign = sign;
		tf->data_loc = strstr(fld, "__data_loc") != NULL;
		tf->array = !tf->data_loc && br != NULL;
		tf->ptr = !tf->data_loc && strchr(fld, '*') != NULL;
		tf->ctype = arena__strndup(prog->arena, fld, nstart - fld);
	}
	fclose(f);
	return 0;
}

static int tp_expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail)
{
	struct tp_name *names = NULL;
	int n;

	if (!ap->a || !ap->b || ap->c) {
		lang__error(prog, ap->loc, "a tracepoint is written tracepoint:GROUP:NAME");
		return -EINVAL;
	}
	if (!tracefs__dir()) {
		lang__error(prog, ap->loc, "cannot read tracepoints: tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
		return -ENOENT;
	}
	n = tracefs__glob(ap->a, ap->b, &names);
	if (n <= 0) {
		lang__error(prog, ap->loc, "no tracepoint matches '%s:%s' (see 'sonde probe -l \"tracepoint:*\"')", ap->a, ap->b);
		return n < 0 ? n : -ENOENT;
	}
	for (int i = 0; i < n; i++) {
		char name[512];

		snprintf(name, sizeof(name), "tracepoint:%s:%s", names[i].group, names[i].name);
		struct ap_inst *in = new_inst(prog, pr, ap, tail, name);

		in->group = arena__strndup(prog->arena, names[i].group, strlen(names[i].group));
		in->event = arena__strndup(prog->arena, names[i].name, strlen(names[i].name));
		if (tp_format(prog, in)) {
			lang__error(prog, ap->loc, "cannot read the format of tracepoint '%s:%s'", in->group, in->event);
			tracefs__free_names(names, n);
			return -ENOENT;
		}
		/*
		 * syscalls:sys_enter_X and sys_exit_X run on the raw_syscalls raw tracepoints, filtered
		 * by number: detaching a raw tracepoint costs 0.03 ms where closing a perf-event
		 * tracepoint costs ~60 ms, so sys_enter_* (hundreds of probes) exits at once
		 */
		const struct syscall_desc *sd = NULL;

		if (!strcmp(in->group, "syscalls") && !strncmp(in->event, "sys_enter_", 10))
			sd = syscall__by_name(in->event + 10);
		else if (!strcmp(in->group, "syscalls") && !strncmp(in->event, "sys_exit_", 9))
			sd = syscall__by_name(in->event + 9);
		if (sd && !getenv("SONDE_PROBE_PERF_TRACEPOINTS")) {
			in->sc_nr = sd->nr;
			in->sc_exit = in->event[4] == 'e' && in->event[5] == 'x';
			in->prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
		}
	}
	tracefs__free_names(names, n);
	return 0;
}

static int tp_attach(struct ap_inst *in, const struct attach_ctx *ctx, char *err, size_t errlen)
{
	struct perf_event_attr attr = { 0 };

	if (in->sc_nr >= 0) {
		if (in->dispatched)
			return 0;	/* its probe's dispatcher is attached instead */
		int fd = bpf_raw_tracepoint_open(in->sc_exit ? "sys_exit" : "sys_enter", in->prog_fd);

		if (fd < 0) {
			snprintf(err, errlen, "cannot attach '%s' (raw_syscalls): %s", in->name, strerror(-fd));
			return fd;
		}
		return add_fd(in, fd);
	}
	long long id = tracefs__event_id(in->group, in->event);

	if (id < 0) {
		snprintf(err, errlen, "no tracepoint '%s:%s': %s", in->group, in->event, strerror((int)-id));
		return (int)id;
	}
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	/*
	 * a counting event (no sample_period), as libbpf opens one: the program
	 * returns 1 so that perf's users keep the event (g_keep), and the kernel
	 * then hands it to this event too, where a sampling one would build a
	 * sample nobody reads: ~100 ns an event on raw_syscalls:sys_exit here
	 */
	return attach_perf(in, &attr, -1, 0, err, errlen);
}

/* ---- raw tracepoint ---- */
static int rt_expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail)
{
	const char *ev = ap->b ? ap->b : ap->a;
	char name[256];

	if (!ev || !*ev || strpbrk(ev, "*?[")) {
		lang__error(prog, ap->loc, "a raw tracepoint is written rawtracepoint:NAME (no wildcards)");
		return -EINVAL;
	}
	/* rawtracepoint:MODULE:NAME: vmlinux or a loaded module, whose BTF the kernel lists (when it has BTF) */
	if (ap->b && ap->a && strcmp(ap->a, "vmlinux") && !access("/sys/kernel/btf/vmlinux", F_OK)) {
		snprintf(name, sizeof(name), "/sys/kernel/btf/%s", ap->a);
		if (strchr(ap->a, '/') || access(name, F_OK)) {
			lang__error(prog, ap->loc, "no kernel module '%s' is loaded (rawtracepoint:MODULE:NAME takes "
				    "vmlinux or a module /sys/kernel/btf lists)", ap->a);
			return -ENOENT;
		}
	}
	/*
	 * one that does not exist is said now, not after "Attaching" (a kernel that refuses the probe itself:
	 * later); not for a probe with a predicate, which may turn out a constant 0 (a tool's option off) that
	 * leaves it unattached: a raw tracepoint only some kernels have. An event of that name in tracefs is
	 * the answer; else the kernel is asked, which costs a grace period (10 ms) when the test attachment
	 * is closed: a tracepoint without an event (sched_update_nr_running_tp) is rare
	 */
	const char *why = NULL;

	if (!pr->pred && !tracefs__event_named(ev) && !bpf_probe__raw_tp(ev, &why) && why && !strcmp(why, "no raw tracepoint of that name")) {
		lang__error(prog, ap->loc, "no raw tracepoint '%s' in the kernel (see 'sonde probe -l \"rawtracepoint:*\"')",
			    ev);
		return -ENOENT;
	}
	snprintf(name, sizeof(name), "rawtracepoint:%s", ev);
	struct ap_inst *in = new_inst(prog, pr, ap, tail, name);

	in->event = ev;
	return 0;
}

static int rt_attach(struct ap_inst *in, const struct attach_ctx *ctx, char *err, size_t errlen)
{
	int fd = bpf_raw_tracepoint_open(in->tp_btf ? NULL : in->event, in->prog_fd);	/* tp_btf: named at load */

	if (fd < 0) {
		snprintf(err, errlen, "cannot attach raw tracepoint '%s': %s", in->event, strerror(-fd));
		return fd;
	}
	return add_fd(in, fd);
}

/* ---- kprobe, uprobe: the dynamic PMUs ---- */
/* the retprobe bit of a dynamic PMU ("config:0") */
static int retprobe_bit(const char *pmu)
{
	char path[256], buf[64] = "";
	FILE *f;
	int bit = 0;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/retprobe", pmu);
	f = fopen(path, "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			sscanf(buf, "config:%d", &bit);
		fclose(f);
	}
	return bit;
}

int provider__dyn_attach(struct ap_inst *in, const char *pmu, bool ret, uint64_t config1, uint64_t config2,
			 pid_t pid, char *err, size_t errlen)
{
	struct perf_event_attr attr = { 0 };
	char path[256];
	int type;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	if (util__read_int(path, &type)) {
		if (!strcmp(pmu, "kprobe"))
			snprintf(err, errlen, "cannot attach '%s': this kernel has no kprobes (no %s: CONFIG_KPROBES is off); "
				 "use a tracepoint or a raw tracepoint instead", in->name, path);
		else
			snprintf(err, errlen, "cannot attach '%s': this kernel has no %s PMU (%s is missing)", in->name, pmu, path);
		return -EOPNOTSUPP;
	}
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = ret ? 1ULL << retprobe_bit(pmu) : 0;
	attr.config1 = config1;
	attr.config2 = config2;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	return attach_perf(in, &attr, pid, pid >= 0 ? -1 : 0, err, errlen);
}

/* ---- kprobe / kretprobe ---- */
static int k_expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail)
{
	char name[512], fn[256];
	const char *plus;

	if (!ap->a || ap->b) {
		lang__error(prog, ap->loc, "a kprobe is written %s:FUNCTION[+OFFSET]", ap->prov);
		return -EINVAL;
	}
	if (strpbrk(ap->a, "*?[")) {
		char *list = provider__traceable(), *line, *save = NULL;
		int n = 0;

		if (!list) {
			lang__error(prog, ap->loc, "a wildcard in a kprobe is matched against tracefs's available_filter_functions, "
				    "which cannot be read here (%s)", strerror(errno));
			return -errno;
		}
		for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			if (fnmatch(ap->a, line, 0) || strchr(line, '.'))	/* foo.cold, foo.isra.0: not attachable */
				continue;
			bool dup = false;	/* static functions of the same name in several files */

			for (struct ap_inst *o = pr->inst; o && !dup; o = o->next)
				dup = o->ap == ap && o->sym && !strcmp(o->sym, line);
			if (dup)
				continue;
			if (++n > 1000) {
				lang__error(prog, ap->loc, "'%s' matches more than 1000 kernel functions: narrow the pattern", ap->a);
				free(list);
				return -E2BIG;
			}
			snprintf(name, sizeof(name), "%s:%s", ap->prov, line);
			struct ap_inst *in = new_inst(prog, pr, ap, tail, name);

			in->sym = arena__strndup(prog->arena, line, strlen(line));
		}
		free(list);
		if (!n) {
			lang__error(prog, ap->loc, "no traceable kernel function matches '%s'", ap->a);
			return -ENOENT;
		}
		return 0;
	}
	plus = strchr(ap->a, '+');
	snprintf(fn, sizeof(fn), "%.*s", plus ? (int)(plus - ap->a) : (int)strlen(ap->a), ap->a);
	snprintf(name, sizeof(name), "%s:%s", ap->prov, ap->a);
	struct ap_inst *in = new_inst(prog, pr, ap, tail, name);

	in->sym = arena__strndup(prog->arena, fn, strlen(fn));
	in->offset = plus ? strtoull(plus + 1, NULL, 0) : 0;
	return 0;
}

static int k_attach(struct ap_inst *in, const struct attach_ctx *ctx, char *err, size_t errlen)
{
	return provider__dyn_attach(in, "kprobe", !strcmp(in->prov->name, "kretprobe"), (uint64_t)(uintptr_t)in->sym,
			  in->offset, -1, err, errlen);
}

/*
 * A count in an attach point, as the language writes integers: 1000000, 1_000_000
 * or 1e6 (M*10^N); 0 and *n, or -EINVAL when it is none or not positive.
 */
static int ap_count(const char *s, long long *n)
{
	unsigned long long v = 0;
	const char *p = s;

	for (; isdigit((unsigned char)*p) || (*p == '_' && p != s); p++)
		if (*p != '_') {
			if (v > (~0ULL >> 1) / 10)
				return -EINVAL;
			v = v * 10 + (unsigned)(*p - '0');
		}
	if (p == s)
		return -EINVAL;
	if (*p == 'e' && isdigit((unsigned char)p[1])) {
		for (int e = (int)strtol(p + 1, (char **)&p, 10); e > 0; e--) {
			if (v > (~0ULL >> 1) / 10)
				return -EINVAL;
			v *= 10;
		}
	}
	if (*p || !v)
		return -EINVAL;
	*n = (long long)v;
	return 0;
}

/* ---- profile / interval ---- */
static long long unit_ns(const char *u)
{
	if (!strcmp(u, "s") || !strcmp(u, "sec"))
		return 1000000000LL;
	if (!strcmp(u, "ms"))
		return 1000000LL;
	if (!strcmp(u, "us"))
		return 1000LL;
	if (!strcmp(u, "ns"))
		return 1;
	return -1;
}

/* the one-field form: a count of nanoseconds, or a duration (upstream's) */
static int timer_expand_ns(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail)
{
	const char *p = ap->a, *end = p + strlen(p);
	unsigned long long v = 0, ns = 1;
	bool over = false;
	char name[128];

	for (; isdigit((unsigned char)*p) || (*p == '_' && p != ap->a); p++)
		if (*p != '_') {
			over |= v > (~0ULL >> 1) / 10;
			v = v * 10 + (unsigned)(*p - '0');
		}
	int n = p > ap->a ? lang__duration_suffix(p, end, &ns) : 0;

	if (p == ap->a || p + n != end || !v || over || v > (~0ULL >> 1) / ns) {
		lang__error(prog, ap->loc, "%s takes a period, as in %s:1s, %s:100ms or %s:1000000 (nanoseconds), "
			    "or UNIT:N with UNIT hz, s, ms, us or ns", ap->prov, ap->prov, ap->prov, ap->prov);
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%s:%s", ap->prov, ap->a);
	struct ap_inst *in = new_inst(prog, pr, ap, tail, name);

	in->n = (long long)(v * ns);
	in->unit = 1;
	return 0;
}

static int timer_expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail)
{
	const char *unit = ap->a, *num = ap->b;
	char name[128];

	if (ap->a && !ap->b)	/* interval:1s, interval:100ms, interval:1000000000 (ns) */
		return timer_expand_ns(prog, pr, ap, tail);
	if (!unit || !num || ap->c) {
		lang__error(prog, ap->loc, "%s is written %s:UNIT:N with UNIT hz, s, ms, us or ns", ap->prov, ap->prov);
		return -EINVAL;
	}
	long long n;

	if (ap_count(num, &n)) {
		lang__error(prog, ap->loc, "'%s' is not a positive number", num);
		return -EINVAL;
	}
	bool hz = !strcmp(unit, "hz");

	if (!hz && unit_ns(unit) < 0) {
		lang__error(prog, ap->loc, "unknown unit '%s' (hz, s, ms, us, ns)", unit);
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%s:%s:%lld", ap->prov, unit, n);
	struct ap_inst *in = new_inst(prog, pr, ap, tail, name);

	in->n = n;
	in->unit = hz ? 0 : (int)(unit_ns(unit) > 1000000000LL ? 1000000000LL : unit_ns(unit));
	return 0;
}

static void timer_attr(const struct ap_inst *in, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_CPU_CLOCK;
	if (in->unit == 0) {
		attr->freq = 1;
		attr->sample_freq = in->n;
	} else {
		attr->sample_period = (uint64_t)in->n * in->unit;
	}
}

static int profile_attach(struct ap_inst *in, const struct attach_ctx *ctx, char *err, size_t errlen)
{
	struct perf_event_attr attr;

	timer_attr(in, &attr);
	for (int i = 0; i < ctx->ncpus; i++) {
		int rc = attach_perf(in, &attr, -1, ctx->cpus[i], err, errlen);

		if (rc)
			return rc;
	}
	return 0;
}

static int interval_attach(struct ap_inst *in, const struct attach_ctx *ctx, char *err, size_t errlen)
{
	struct perf_event_attr attr;

	timer_attr(in, &attr);
	return attach_perf(in, &attr, -1, ctx->ncpus ? ctx->cpus[0] : 0, err, errlen);
}

/* ---- software / hardware: the events of lib/event's table that bpftrace names ---- */
static enum event_kind event_kind_of(const char *prov)
{
	return !strcmp(prov, "software") ? EVK_SOFTWARE : EVK_HARDWARE;
}

static int event_expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail)
{
	enum event_kind want = event_kind_of(ap->prov);
	char name[128];

	for (size_t i = 0; ap->a && i < nr_event_syms; i++) {
		const struct event_sym *e = &event_syms[i];

		if (e->kind != want || !e->bt_name ||
		    (strcmp(ap->a, e->bt_name) && (!e->bt_alias || strcmp(ap->a, e->bt_alias))))
			continue;
		long long n = (long long)e->bt_period;

		if (ap->b && *ap->b && ap_count(ap->b, &n)) {	/* software:cs: takes the default */
			lang__error(prog, ap->loc, "'%s' is not a positive count", ap->b);
			return -EINVAL;
		}
		/* the event as written (software:cpu:100000, not cpu-clock): the probe builtin says so, as upstream's */
		snprintf(name, sizeof(name), "%s:%s:%lld", ap->prov, ap->a, n);
		struct ap_inst *in = new_inst(prog, pr, ap, tail, name);

		in->n = n;
		in->config = e->config;
		return 0;
	}
	lang__error(prog, ap->loc, "unknown %s event '%s'", ap->prov, ap->a ? ap->a : "");
	return -EINVAL;
}

static int event_attach(struct ap_inst *in, const struct attach_ctx *ctx, char *err, size_t errlen)
{
	struct perf_event_attr attr = { 0 };
	bool hw = !strcmp(in->prov->name, "hardware");

	attr.size = sizeof(attr);
	attr.type = hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	attr.config = in->config;
	attr.sample_period = in->n;
	for (int i = 0; i < ctx->ncpus; i++) {
		int rc = attach_perf(in, &attr, -1, ctx->cpus[i], err, errlen);

		if (rc) {
			if (hw && (rc == -ENOENT || rc == -EOPNOTSUPP || rc == -ENODEV))
				snprintf(err, errlen, "cannot open '%s': not supported by this CPU "
					 "(no hardware PMU, as in most VMs); use a software event such as software:cpu-clock",
					 in->name);
			return rc;
		}
	}
	return 0;
}

static const struct provider providers[] = {
	{ "BEGIN", BPF_PROG_TYPE_RAW_TRACEPOINT, false, false, false, special_expand, NULL },
	{ "END", BPF_PROG_TYPE_RAW_TRACEPOINT, false, false, false, special_expand, NULL },
	{ "tracepoint", BPF_PROG_TYPE_TRACEPOINT, false, false, true, tp_expand, tp_attach },
	{ "rawtracepoint", BPF_PROG_TYPE_RAW_TRACEPOINT, true, false, false, rt_expand, rt_attach },
	{ "uprobe", BPF_PROG_TYPE_KPROBE, true, false, true, uprobe__expand, uprobe__attach },	/* args.name from DWARF */
	{ "uretprobe", BPF_PROG_TYPE_KPROBE, false, true, false, uprobe__expand, uprobe__attach },
	{ "kprobe", BPF_PROG_TYPE_KPROBE, true, false, false, k_expand, k_attach },
	{ "kretprobe", BPF_PROG_TYPE_KPROBE, false, true, false, k_expand, k_attach },
	{ "profile", BPF_PROG_TYPE_PERF_EVENT, false, false, false, timer_expand, profile_attach },
	{ "interval", BPF_PROG_TYPE_PERF_EVENT, false, false, false, timer_expand, interval_attach },
	{ "software", BPF_PROG_TYPE_PERF_EVENT, false, false, false, event_expand, event_attach },
	{ "hardware", BPF_PROG_TYPE_PERF_EVENT, false, false, false, event_expand, event_attach },
	{ "usdt", BPF_PROG_TYPE_KPROBE, true, false, false, provider__usdt_expand, provider__usdt_attach },
	{ "fentry", BPF_PROG_TYPE_TRACING, false, false, true, fentry__expand, fentry__attach },
	{ "fexit", BPF_PROG_TYPE_TRACING, false, true, true, fentry__expand, fentry__attach },
	{ "watchpoint", BPF_PROG_TYPE_PERF_EVENT, false, false, false, watch__expand, watch__attach },
	{ "asyncwatchpoint", BPF_PROG_TYPE_PERF_EVENT, false, false, false, watch__expand, watch__attach },
	{ "iter", BPF_PROG_TYPE_TRACING, false, false, false, iter__expand, iter__attach },
	/* run by sonde itself (testbench.c): on SIGUSR1, with --test, with --bench (timed as socket filters) */
	{ "self", BPF_PROG_TYPE_RAW_TRACEPOINT, false, false, false, testbench__expand_self, NULL },
	{ "test", BPF_PROG_TYPE_RAW_TRACEPOINT, false, false, false, testbench__expand_test, NULL },
	{ "bench", BPF_PROG_TYPE_SOCKET_FILTER, false, false, false, testbench__expand_test, NULL },
};

void provider__names(char *buf, size_t len)
{
	size_t at = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]) && at < len; i++) {
		int n = snprintf(buf + at, len - at, "%s%s", i ? ", " : "", providers[i].name);

		at += n > 0 ? (size_t)n : 0;
	}
}

const struct provider *provider__find(const char *name)
{
	for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++)
		if (!strcmp(providers[i].name, name))
			return &providers[i];
	return NULL;
}

static pid_t expand_pid;

pid_t provider__target_pid(void)
{
	return expand_pid;
}

void provider__set_target_pid(pid_t pid)
{
	expand_pid = pid;
}

int provider__attach_perf(struct ap_inst *in, void *attr, pid_t pid, int cpu, char *err, size_t errlen)
{
	return attach_perf(in, attr, pid, cpu, err, errlen);
}

int provider__expand_all(struct program *prog, pid_t target_pid)
{
	expand_pid = target_pid;
	for (struct probe **pp = &prog->probes, *pr; (pr = *pp);) {
		struct ap_inst **tail = &pr->inst;

		for (struct attach *ap = pr->aps; ap; ap = ap->next) {
			const struct provider *p = provider__find(ap->prov);
			int rc = p ? p->expand(prog, pr, ap, &tail) : -EINVAL;

			if (rc && !(rc == -ENOENT && testbench__skip_missing(prog, ap, NULL)))	/* missing_probes */
				return -EINVAL;
		}
		if (!pr->ninst && testbench__skip_missing(prog, NULL, pr)) {
			*pp = pr->next;
			continue;
		}
		if (!pr->ninst) {
			lang__error(prog, pr->aps->loc, "none of this probe's attach points exists here (see the warnings)");
			return -ENOENT;
		}
		pp = &pr->next;
	}
	return 0;
}

const struct tp_field *provider__field(const struct ap_inst *in, const char *name)
{
	for (int i = 0; i < in->nfields; i++)
		if (!strcmp(in->fields[i].name, name))
			return &in->fields[i];
	return NULL;
}

void provider__detach(struct ap_inst *in)
{
	watch__detach(in);
	for (int i = 0; i < in->nfds; i++)
		close(in->fds[i]);
	free(in->fds);
	in->fds = NULL;
	in->nfds = 0;
	if (in->prog_fd >= 0)
		close(in->prog_fd);
	in->prog_fd = -1;
}

int provider__arg_offset(int n)
{
	/* struct pt_regs on x86-64: di, si, dx, cx, r8, r9 */
	static const int off[] = { 112, 104, 96, 88, 72, 64 };

	return n >= 0 && n < 6 ? off[n] : -1;
}

int provider__retval_offset(void)
{
	return 80;	/* ax */
}

/* ---- -l ---- */
static void list_one(const char *name, const char *pat, void (*cb)(const char *, void *), void *ctx)
{
	const char *colon = strchr(name, ':');

	if (!pat || !*pat || !fnmatch(pat, name, 0) || (colon && !fnmatch(pat, colon + 1, 0)))
		cb(name, ctx);
}

int provider__list(const char *pat, void (*cb)(const char *name, void *ctx), void *ctx)
{
	char buf[512];
	struct tp_name *names = NULL;
	int n;

	/* "t:a:b" and "tracepoint:a:b" name the same probes */
	char *norm = NULL;

	if (pat && (!strncmp(pat, "struct ", 7) || !strncmp(pat, "union ", 6))) {	/* -l 'struct a,struct b' */
		for (const char *p = pat; *p;) {
			size_t l = strcspn(p, ",");

			snprintf(buf, sizeof(buf), "%.*s", (int)l, p);
			if (fentry__find_type(buf) > 0)
				cb(buf, ctx);
			p += l;
			p += strspn(p, ", ");
		}
		return 0;
	}
	if (pat) {
		const char *c = strchr(pat, ':');
		const char *p = c ? lang__provider_name(pat, c - pat) : NULL;

		if (p && asprintf(&norm, "%s%s", p, c) > 0)
			pat = norm;
	}
	list_one("BEGIN", pat, cb, ctx);
	list_one("END", pat, cb, ctx);
	for (int k = 0; k < 2; k++) {	/* software first, as bpftrace lists them */
		const char *kind = k ? "hardware" : "software";

		for (size_t i = 0; i < nr_event_syms; i++) {
			const struct event_sym *e = &event_syms[i];

			if (e->kind != event_kind_of(kind) || !e->bt_name)
				continue;
			snprintf(buf, sizeof(buf), "%s:%s:", kind, e->bt_name);
			list_one(buf, pat, cb, ctx);
			if (e->bt_alias) {	/* software:cpu: too, as bpftrace lists it */
				snprintf(buf, sizeof(buf), "%s:%s:", kind, e->bt_alias);
				list_one(buf, pat, cb, ctx);
			}
		}
	}
	/* interval and profile take any rate: one line per unit, when asked for by name */
	for (int k = 0; pat && k < 2; k++) {
		static const char *const units[] = { "hz", "us", "ms", "s" };
		const char *prov = k ? "profile" : "interval";

		if (strncmp(pat, prov, strlen(prov)))
			continue;
		for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
			snprintf(buf, sizeof(buf), "%s:%s:", prov, units[u]);
			list_one(buf, pat, cb, ctx);
		}
	}
	n = tracefs__glob("*", "*", &names);
	for (int i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "tracepoint:%s:%s", names[i].group, names[i].name);
		list_one(buf, pat, cb, ctx);
	}
	for (int i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "rawtracepoint:%s", names[i].name);
		if (!pat || !*pat || !strncmp(pat, "rawtracepoint:", 14))	/* in the whole list too, as upstream's */
			list_one(buf, pat, cb, ctx);
	}
	if (n > 0)
		tracefs__free_names(names, n);
	/* uprobe:/path:pattern lists the functions of a binary */
	if (pat && (!strncmp(pat, "uprobe:", 7) || !strncmp(pat, "uretprobe:", 10))) {
		const char *p = strchr(pat, ':') + 1;
		const char *c = strrchr(p, ':');
		char path[4096], file[4096];

		if (c && (size_t)(c - p) < sizeof(file)) {
			snprintf(file, sizeof(file), "%.*s", (int)(c - p), p);
			/* named as given when it is a path (uprobe:/bin/bash:*), else as found (libc) */
			if (!provider__resolve_path(file, path, sizeof(path)))
				uprobe__list_funcs(path, strchr(file, '/') ? file : path, c + 1, pat, cb, ctx);
		}
	}
	if (pat && (!strncmp(pat, "fentry:", 7) || !strncmp(pat, "fexit:", 6)))
		fentry__list(pat, cb, ctx);
	if (pat && !strncmp(pat, "usdt:", 5))
		provider__usdt_list(pat, cb, ctx);
	if (pat && !strncmp(pat, "iter:", 5))
		iter__list(pat, cb, ctx);
	free(norm);
	return 0;
}

/* for providers in other files (provider_fentry.c) */
struct ap_inst *provider__new_inst(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail,
				   const char *name)
{
	return new_inst(prog, pr, ap, tail, name);
}

int provider__add_fd(struct ap_inst *in, int fd)
{
	return add_fd(in, fd);
}

void provider__describe(const char *name, FILE *out)
{
	char path[512], line[1024];
	const char *dir = tracefs__dir();
	FILE *f;

	if (!strncmp(name, "fentry:", 7) || !strncmp(name, "fexit:", 6)) {
		fentry__describe(name, out);
		return;
	}
	if (!strncmp(name, "iter:", 5)) {
		iter__describe(name, out);
		return;
	}
	if (!strncmp(name, "struct ", 7) || !strncmp(name, "union ", 6)) {
		fentry__describe_type(name, out);
		return;
	}
	if (!strncmp(name, "rawtracepoint:", 14)) {
		fentry__describe_rawtp(strrchr(name, ':') + 1, out);
		return;
	}
	if (!strncmp(name, "uprobe:", 7) && strrchr(name, ':') > name + 7) {	/* parameters from DWARF */
		const char *c = strrchr(name, ':');
		char file[4096];
		struct dwparam prm[32];
		int n;

		snprintf(file, sizeof(file), "%.*s", (int)(c - name - 7), name + 7);
		n = dwargs__params(NULL, file, c + 1, prm, 32);
		for (int i = 0; i < n; i++)
			fprintf(out, "    %s %s\n", prm[i].type, prm[i].name);
		return;
	}
	if (strncmp(name, "tracepoint:", 11) || !dir)
		return;
	const char *g = name + 11, *e = strchr(g, ':');

	if (!e)
		return;
	snprintf(path, sizeof(path), "%s/events/%.*s/%s/format", dir, (int)(e - g), g, e + 1);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *fld = strstr(line, "field:"), *semi = fld ? strchr(fld, ';') : NULL;

		if (!semi || strstr(fld, " common_"))
			continue;
		fprintf(out, "    %.*s\n", (int)(semi - fld - 6), fld + 6);
	}
	fclose(f);
}
