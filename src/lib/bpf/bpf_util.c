// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_util.c - libbpf's log, feature probes by real loads, stack maps, per-CPU
 * counters and target sets: the pieces every BPF-based command shares.
 *
 * The probes load a two-instruction program of the type in question, with the
 * attach target it would have (a BTF id for tp_btf and fentry), and attach it
 * where attaching is cheap (raw tracepoints: a detach costs ~0.03 ms). That is
 * the only reliable answer: `bpftool feature probe` calls the tracing program
 * type unavailable on kernels where tp_btf loads and attaches fine, and a
 * program type that loads can still fail to attach (kprobes on a kernel built
 * without CONFIG_KPROBES).
 */
#include "lib/bpf/bpf_util.h"
#include "lib/tracefs/tracefs.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int log_verbosity;
static int quiet_depth;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int need = level == LIBBPF_WARN ? 1 : level == LIBBPF_INFO ? 2 : 3;

	if (quiet_depth || log_verbosity < need)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void bpfutil__setup_log(int verbosity)
{
	log_verbosity = verbosity;
	libbpf_set_print(libbpf_print);
}

void bpfutil__quiet(bool on)
{
	quiet_depth += on ? 1 : -1;
	if (quiet_depth < 0)
		quiet_depth = 0;
}

const char *bpf_hook__name(enum bpf_hook h)
{
	static const char *const names[] = {
		[BPF_HOOK_TP_BTF] = "tp_btf", [BPF_HOOK_RAW_TP] = "raw_tp",
		[BPF_HOOK_TRACEPOINT] = "tracepoint", [BPF_HOOK_FENTRY] = "fentry",
		[BPF_HOOK_KPROBE] = "kprobe",
	};

	return (unsigned)h < sizeof(names) / sizeof(names[0]) ? names[h] : "?";
}

/* r0 = 0; exit */
static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

/*
 * The kernel's BTF from a mapping of /sys/kernel/btf/vmlinux (Linux 6.16 lets
 * it be mapped): libbpf reads that file 4 kB at a time (sysfs), 1,300 reads
 * and a copy for a 5 MB file, a third of a tool's start-up. NULL where the
 * kernel does not map it: libbpf's way then.
 */
static struct btf *vmlinux_btf_mapped(void)
{
	struct btf *btf = NULL;
	struct stat st;
	void *data;
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && st.st_size > 0) {
		data = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (data != MAP_FAILED) {
			btf = btf__new(data, st.st_size);	/* a copy of its own */
			if (libbpf_get_error(btf))
				btf = NULL;
			munmap(data, st.st_size);
		}
	}
	close(fd);
	return btf;
}

static struct btf *vmlinux_btf;
static bool vmlinux_btf_tried;

struct btf *bpf_util__vmlinux_btf_loaded(void)
{
	return vmlinux_btf;
}

struct btf *bpf_util__vmlinux_btf(void)
{
	struct btf *btf = vmlinux_btf;

	if (!vmlinux_btf_tried) {
		vmlinux_btf_tried = true;
		bpfutil__quiet(true);
		btf = vmlinux_btf_mapped();
		if (!btf)
			btf = btf__load_vmlinux_btf();
		bpfutil__quiet(false);
		if (libbpf_get_error(btf))
			btf = NULL;
		vmlinux_btf = btf;
	}
	return btf;
}

bool bpf_probe__btf(void)
{
	return bpf_util__vmlinux_btf() != NULL;
}

/* a tiny cache of probe answers: "kind:name" -> 1 yes, 0 no */
struct probe_ans {
	char key[96];
	bool ok;
	const char *why;
};
static struct probe_ans answers[64];
static int nr_answers;

static const struct probe_ans *cached(const char *key)
{
	for (int i = 0; i < nr_answers; i++)
		if (!strcmp(answers[i].key, key))
			return &answers[i];
	return NULL;
}

static bool remember(const char *key, bool ok, const char *why, const char **out_why)
{
	if (nr_answers < (int)(sizeof(answers) / sizeof(answers[0]))) {
		struct probe_ans *a = &answers[nr_answers++];

		snprintf(a->key, sizeof(a->key), "%s", key);
		a->ok = ok;
		a->why = why;
	}
	if (out_why)
		*out_why = ok ? NULL : why;
	return ok;
}

static int load_tracing(enum bpf_attach_type type, int btf_id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = type, .attach_btf_id = btf_id);
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", ret0, 2, &o);
	return fd < 0 ? -errno : fd;
}

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

const char *bpf_probe__privilege(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };
	static char why[200];

	if (syscall(SYS_capget, &h, d) || has_cap(d, CAP_SYS_ADMIN) ||
	    (has_cap(d, 39 /* CAP_BPF */) && has_cap(d, 38 /* CAP_PERFMON */)))
		return NULL;
	snprintf(why, sizeof(why), "needs root, or CAP_BPF and CAP_PERFMON (sonde runs as uid %d "
		 "without them; kernel.unprivileged_bpf_disabled does not change that)", (int)geteuid());
	return why;
}

static const char *load_why(int err)
{
	if ((err == -EPERM || err == -EACCES) && bpf_probe__privilege())
		return bpf_probe__privilege();
	if (err == -EPERM || err == -EACCES)
		return "the kernel refuses to load it (EPERM: lockdown, or no CAP_BPF/CAP_SYS_ADMIN)";
	if (err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP)
		return "this kernel does not support it";
	return "loading a test program failed";
}

bool bpf_probe__tp_btf(const char *tp, const char **why)
{
	char key[96], name[80];
	const struct probe_ans *a;
	struct btf *btf;
	int id, fd, lfd;
	const char *reason = NULL;

	snprintf(key, sizeof(key), "tp_btf:%s", tp);
	if ((a = cached(key)))
		return remember(key, a->ok, a->why, why);
	btf = bpf_util__vmlinux_btf();
	if (!btf)
		return remember(key, false, "the kernel has no BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)", why);
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return remember(key, false, "the kernel's BTF does not describe this tracepoint", why);
	fd = load_tracing(BPF_TRACE_RAW_TP, id);
	if (fd < 0)
		return remember(key, false, load_why(fd), why);
	lfd = bpf_raw_tracepoint_open(NULL, fd);
	if (lfd < 0)
		reason = "the kernel loads it but refuses to attach it";
	else
		close(lfd);
	close(fd);
	return remember(key, lfd >= 0, reason, why);
}

bool bpf_probe__raw_tp(const char *tp, const char **why)
{
	char key[96];
	const struct probe_ans *a;
	int fd, lfd;

	snprintf(key, sizeof(key), "raw_tp:%s", tp);
	if ((a = cached(key)))
		return remember(key, a->ok, a->why, why);
	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL, "GPL", ret0, 2, NULL);
	if (fd < 0)
		return remember(key, false, load_why(-errno), why);
	lfd = bpf_raw_tracepoint_open(tp, fd);
	if (lfd >= 0)
		close(lfd);
	close(fd);
	return remember(key, lfd >= 0, "no raw tracepoint of that name", why);
}

bool bpf_probe__tracepoint(const char *group, const char *name, const char **why)
{
	char key[96];
	const struct probe_ans *a;
	const char *reason;

	snprintf(key, sizeof(key), "tp:%s:%s", group, name);
	if ((a = cached(key)))
		return remember(key, a->ok, a->why, why);
	if (!bpf_probe__prog_type(BPF_PROG_TYPE_TRACEPOINT, &reason))
		return remember(key, false, reason, why);
	/* attaching means perf_event_open + close, ~60 ms: the id is the answer */
	if (tracefs__event_id(group, name) < 0)
		return remember(key, false, tracefs__dir() ? "no such tracepoint in tracefs"
					   : "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)", why);
	return remember(key, true, NULL, why);
}

bool bpf_probe__fentry(const char *func, const char **why)
{
	char key[96];
	const struct probe_ans *a;
	struct btf *btf;
	int id, fd;

	snprintf(key, sizeof(key), "fentry:%s", func);
	if ((a = cached(key)))
		return remember(key, a->ok, a->why, why);
	btf = bpf_util__vmlinux_btf();
	if (!btf)
		return remember(key, false, "the kernel has no BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)", why);
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	if (id <= 0)
		return remember(key, false, "no kernel function of that name in the kernel's BTF", why);
	fd = load_tracing(BPF_TRACE_FENTRY, id);
	if (fd < 0)
		return remember(key, false, fd == -EPERM ? (bpf_probe__privilege() ? bpf_probe__privilege()
					   : "the kernel refuses fentry programs (EPERM)")
					   : "this kernel cannot load fentry programs (CONFIG_FUNCTION_TRACER, trampolines)", why);
	close(fd);
	return remember(key, true, NULL, why);
}

static bool file_has_word(const char *path, const char *word, int field)
{
	FILE *f = fopen(path, "r");
	char line[512];
	bool found = false;
	size_t wl = strlen(word);

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = line;

		for (int i = 0; i < field && p; i++) {
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		if (p && !strncmp(p, word, wl) && (p[wl] == '\n' || p[wl] == ' ' || p[wl] == '\t' || !p[wl]))
			found = true;
	}
	fclose(f);
	return found;
}

bool bpf_probe__kprobe(const char *func, const char **why)
{
	char key[96], path[256];
	const struct probe_ans *a;
	const char *tdir = tracefs__dir(), *reason;
	bool pmu, legacy;

	snprintf(key, sizeof(key), "kprobe:%s", func);
	if ((a = cached(key)))
		return remember(key, a->ok, a->why, why);
	pmu = access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0;
	snprintf(path, sizeof(path), "%s/kprobe_events", tdir ? tdir : "/sys/kernel/tracing");
	legacy = access(path, W_OK) == 0;
	if (!pmu && !legacy)
		return remember(key, false, "this kernel has no kprobes (no kprobe PMU, no kprobe_events: CONFIG_KPROBE_EVENTS)", why);
	if (!file_has_word("/proc/kallsyms", func, 2))
		return remember(key, false, "no kernel function of that name in /proc/kallsyms", why);
	if (!bpf_probe__prog_type(BPF_PROG_TYPE_KPROBE, &reason))
		return remember(key, false, reason, why);
	return remember(key, true, NULL, why);
}

bool bpf_probe__prog_type(int prog_type, const char **why)
{
	char key[96];
	const struct probe_ans *a;
	int rc;

	snprintf(key, sizeof(key), "type:%d", prog_type);
	if ((a = cached(key)))
		return remember(key, a->ok, a->why, why);
	bpfutil__quiet(true);
	rc = libbpf_probe_bpf_prog_type(prog_type, NULL);
	bpfutil__quiet(false);
	/* libbpf says 0 (not supported) when the load failed for want of privilege too */
	if (rc != 1 && bpf_probe__privilege())
		return remember(key, false, bpf_probe__privilege(), why);
	return remember(key, rc == 1, rc == 0 ? "this kernel does not support that BPF program type"
				      : "cannot load BPF programs here (needs root, or CAP_BPF and CAP_PERFMON)", why);
}

/* BPF_LINK_CREATE's attributes for uprobe_multi, as linux/bpf.h (6.6) lays them out */
struct uprobe_multi_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, um_flags, pid;
};

int bpf_uprobe_multi__attach_n(int prog_fd, const char *path, const uint64_t *offs, const uint64_t *cookies, int cnt,
			       bool ret, pid_t pid)
{
	union bpf_attr attr;
	struct uprobe_multi_attr *um = (struct uprobe_multi_attr *)&attr;
	int fd;

	_Static_assert(sizeof(struct uprobe_multi_attr) <= sizeof(union bpf_attr), "bpf_attr too small");
	memset(&attr, 0, sizeof(attr));
	um->prog_fd = prog_fd;
	um->attach_type = BPF_UPROBE_MULTI;
	um->path = (uint64_t)(uintptr_t)path;
	um->offsets = (uint64_t)(uintptr_t)offs;
	um->cookies = (uint64_t)(uintptr_t)cookies;
	um->cnt = cnt;
	um->um_flags = ret ? 1 : 0;	/* BPF_F_UPROBE_MULTI_RETURN */
	um->pid = pid > 0 ? (uint32_t)pid : 0;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

int bpf_uprobe_multi__attach(int prog_fd, const char *path, uint64_t offset, bool ret, pid_t pid)
{
	return bpf_uprobe_multi__attach_n(prog_fd, path, &offset, NULL, 1, ret, pid);
}

bool bpf_probe__uprobe_multi(const char **why)
{
	const struct probe_ans *a = cached("uprobe_multi");
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_UPROBE_MULTI);
	int prog, link;

	if (a)
		return remember("uprobe_multi", a->ok, a->why, why);
	if (getenv("SONDE_NO_UPROBE_MULTI"))
		return remember("uprobe_multi", false, "SONDE_NO_UPROBE_MULTI is set", why);
	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", ret0, 2, &o);
	if (prog < 0)
		return remember("uprobe_multi", false, load_why(-errno), why);
	/* a kernel that knows the link type opens the path before anything else: "/" is no ELF file */
	link = bpf_uprobe_multi__attach(prog, "/", 0, false, 0);
	close(prog);
	if (link >= 0)
		close(link);
	return remember("uprobe_multi", link == -EBADF, "this kernel has no uprobe_multi links (Linux 6.6)", why);
}

#define SONDE_TRACE_KPROBE_MULTI 42		/* enum bpf_attach_type, newer than some headers */
#define SONDE_TRACE_KPROBE_SESSION 56

bool bpf_probe__kprobe_multi(bool session, const char **why)
{
	const char *key = session ? "kprobe_session" : "kprobe_multi";
	const struct probe_ans *a = cached(key);
	int type = session ? SONDE_TRACE_KPROBE_SESSION : SONDE_TRACE_KPROBE_MULTI;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = type);
	const char *syms[] = { "sonde_no_such_function" };
	LIBBPF_OPTS(bpf_link_create_opts, lo, .kprobe_multi.syms = syms, .kprobe_multi.cnt = 1);
	int prog, link, err;

	if (a)
		return remember(key, a->ok, a->why, why);
	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", ret0, 2, &o);
	if (prog < 0)
		return remember(key, false, load_why(-errno), why);
	/* a kernel that has the link looks the symbol up, and finds none */
	link = bpf_link_create(prog, 0, type, &lo);
	err = link < 0 ? -errno : 0;
	close(prog);
	if (link >= 0)
		close(link);
	return remember(key, err == -ESRCH || err == -ENOENT, session ? "this kernel has no kprobe_session links "
			"(Linux 6.10) or no kprobes" : "this kernel has no kprobe_multi links (Linux 5.18) or no kprobes", why);
}

bool bpf_probe__helper(int prog_type, int helper_id)
{
	int rc;

	bpfutil__quiet(true);
	rc = libbpf_probe_bpf_helper(prog_type, helper_id, NULL);
	bpfutil__quiet(false);
	return rc == 1;
}

int bpf_hook__choose(const enum bpf_hook *prefs, int n, const char *group, const char *name)
{
	for (int i = 0; i < n; i++) {
		bool ok = false;

		switch (prefs[i]) {
		case BPF_HOOK_TP_BTF: ok = bpf_probe__tp_btf(name, NULL); break;
		case BPF_HOOK_RAW_TP: ok = bpf_probe__raw_tp(name, NULL); break;
		case BPF_HOOK_TRACEPOINT: ok = bpf_probe__tracepoint(group, name, NULL); break;
		case BPF_HOOK_FENTRY: ok = bpf_probe__fentry(name, NULL); break;
		case BPF_HOOK_KPROBE: ok = bpf_probe__kprobe(name, NULL); break;
		}
		if (ok)
			return prefs[i];
	}
	return -ENOTSUP;
}

int bpf_stack__read(int map_fd, int32_t id, uint64_t *ips, int max)
{
	uint64_t buf[127];
	uint32_t key = id;
	int n = 0;

	if (id < 0)
		return id;
	if (bpf_map_lookup_elem(map_fd, &key, buf))
		return -errno;
	while (n < max && n < 127 && buf[n])
		ips[n] = buf[n], n++;
	return n;
}

uint64_t bpf_percpu__sum(int map_fd, uint32_t key)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals, sum = 0;

	if (ncpu <= 0 || !(vals = calloc(ncpu, sizeof(*vals))))
		return 0;
	if (!bpf_map_lookup_elem(map_fd, &key, vals))
		for (int i = 0; i < ncpu; i++)
			sum += vals[i];
	free(vals);
	return sum;
}

int bpf_targets__add(int map_fd, const pid_t *pids, int n)
{
	uint8_t one = 1;

	for (int i = 0; i < n; i++) {
		uint32_t k = pids[i];

		if (bpf_map_update_elem(map_fd, &k, &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

const char *bpfutil__strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case EPERM:
	case EACCES:
		return "permission denied (run as root, or grant CAP_BPF and CAP_PERFMON; "
		       "perf events: kernel.perf_event_paranoid)";
	case ENOMEM:
		return "out of locked memory (raise RLIMIT_MEMLOCK: ulimit -l unlimited)";
	case ENOSYS:
		return "this kernel has no bpf() system call (CONFIG_BPF_SYSCALL)";
	case E2BIG:
		return "the program is too large for this kernel's verifier";
	default:
		return strerror(err);
	}
}

int bpf_tp__field(const char *group, const char *name, const char *field, int *offset, int *size)
{
	const char *dir = tracefs__dir();
	char path[512], line[512];
	size_t fl = strlen(field);
	int rc = -ENOENT;
	FILE *f;

	if (!dir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, group, name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	/* "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;" */
	while (rc && fgets(line, sizeof(line), f)) {
		char *semi = strchr(line, ';'), *p, *o, *z;

		if (!strstr(line, "field:") || !semi)
			continue;
		p = semi;
		while (p > line && p[-1] == ']')	/* char prev_comm[16] */
			while (p > line && *--p != '[')
				;
		if ((size_t)(p - line) < fl || strncmp(p - fl, field, fl) ||
		    (p - fl > line && !strchr(" \t*:", p[-fl - 1])))
			continue;
		o = strstr(semi, "offset:");
		z = strstr(semi, "size:");
		if (!o || !z)
			continue;
		*offset = atoi(o + 7);
		*size = atoi(z + 5);
		rc = 0;
	}
	fclose(f);
	return rc;
}

/*
 * A raw tracepoint program's kernel stack, as bpf_get_stack() sees it from the
 * program: trigger getppid() on this thread with a program on raw tracepoint
 * "sys_enter" that keeps its first max frames (max <= 8) in an array map.
 */
int bpf_rawtp__sample_stack(uint64_t *ips, int max)
{
	struct bpf_insn code[32];
	uint64_t buf[8] = { 0 };
	uint32_t key = 0;
	int i = 0, map, fd, lfd, n = 0;
	pid_t tid = (pid_t)syscall(SYS_gettid);

	if (max > 8)
		max = 8;
	map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "sonde_stk", 4, sizeof(buf), 1, NULL);
	if (map < 0)
		return map;
#define I(c, d, s, o, v) (code[i++] = (struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (v) })
	I(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_pid_tgid);
	I(BPF_ALU | BPF_MOV | BPF_X, 0, 0, 0, 0);		/* w0 = w0: the tid */
	I(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 15, tid);		/* to the exit */
	I(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	I(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0);
	I(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -64);
	I(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 64);
	I(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, 0);
	I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_stack);
	I(BPF_ST | BPF_MEM | BPF_W, 10, 0, -72, 0);		/* the key */
	I(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, map);
	I(0, 0, 0, 0, 0);
	I(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0);
	I(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -72);
	I(BPF_ALU64 | BPF_MOV | BPF_X, 3, 10, 0, 0);
	I(BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, -64);
	I(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, 0);
	I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_update_elem);
	I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
#undef I
	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "sonde_stk", "GPL", code, i, NULL);
	if (fd < 0) {
		close(map);
		return fd;
	}
	lfd = bpf_raw_tracepoint_open("sys_enter", fd);
	if (lfd >= 0) {
		syscall(SYS_getppid);
		close(lfd);
	}
	close(fd);
	if (lfd >= 0 && bpf_map_lookup_elem(map, &key, buf) == 0)
		while (n < max && buf[n])
			ips[n] = buf[n], n++;
	close(map);
	return lfd < 0 ? lfd : n;
}
