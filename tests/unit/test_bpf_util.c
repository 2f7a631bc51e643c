// SPDX-License-Identifier: GPL-2.0
/*
 * test_bpf_util.c - the BPF helpers on the real kernel: feature probes (this
 * VM: tp_btf works, fentry is refused, kprobes do not exist), tracepoint
 * layouts from tracefs, ring-buffer polling through the event loop with a program
 * run by BPF_PROG_TEST_RUN, signals ending the loop, and the mmap side-band
 * records fed to the symbolizer. Tests that need root say so and pass when
 * the answer cannot be checked (an unprivileged run).
 */
#include "unit.h"
#include "lib/loop/loop.h"
#include "lib/bpf/bpf_mmaps.h"
#include "lib/bpf/bpf_util.h"
#include "lib/symbol/symbol.h"
#include "lib/tracefs/tracefs.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static bool can_bpf(void)
{
	struct rlimit r = { RLIM_INFINITY, RLIM_INFINITY };

	setrlimit(RLIMIT_MEMLOCK, &r);
	return geteuid() == 0 && bpf_probe__prog_type(BPF_PROG_TYPE_SOCKET_FILTER, NULL);
}

TEST(bpf_util_probes_match_the_kernel)
{
	const char *why = NULL;

	if (!can_bpf())
		return;
	tracefs__mount();
	/* kernel BTF and tp_btf: what the kernel really does, by loading */
	CHECK_INT(bpf_probe__btf(), access("/sys/kernel/btf/vmlinux", R_OK) == 0);
	if (bpf_probe__btf())
		CHECK(bpf_probe__tp_btf("sched_switch", &why));
	CHECK(!bpf_probe__tp_btf("no_such_tracepoint_x", &why));
	CHECK(why != NULL);
	CHECK(bpf_probe__tracepoint("sched", "sched_switch", NULL));
	CHECK(!bpf_probe__tracepoint("sched", "no_such_event", &why));
	CHECK(bpf_probe__raw_tp("sched_switch", NULL));
	/* kprobes: only where the kernel has a kprobe PMU or kprobe_events */
	bool has_kprobes = access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0;

	CHECK_INT(bpf_probe__kprobe("do_nanosleep", &why), has_kprobes);
	if (!has_kprobes)
		CHECK(strstr(why, "no kprobes") != NULL);
	/* the answer is cached and stable */
	CHECK_INT(bpf_probe__kprobe("do_nanosleep", NULL), has_kprobes);
	CHECK(bpf_probe__helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_get_stackid));
}

TEST(bpf_util_hook_choice_falls_back)
{
	static const enum bpf_hook prefs[] = { BPF_HOOK_KPROBE, BPF_HOOK_TP_BTF, BPF_HOOK_TRACEPOINT };
	int h;

	if (!can_bpf())
		return;
	tracefs__mount();
	h = bpf_hook__choose(prefs, 3, "sched", "sched_switch");
	CHECK(h >= 0);
	/* kprobe sched_switch never exists (it is a tracepoint): the next that works */
	CHECK(h == BPF_HOOK_TP_BTF || h == BPF_HOOK_TRACEPOINT);
	CHECK_INT(bpf_hook__choose(prefs, 1, "sched", "sched_switch"), -ENOTSUP);
	CHECK_STR(bpf_hook__name(BPF_HOOK_TP_BTF), "tp_btf");
}

TEST(bpf_util_tracepoint_field_layout)
{
	int off = -1, size = -1, off2 = -1, size2 = -1;

	if (tracefs__mount() || !tracefs__dir())
		return;
	CHECK_INT(bpf_tp__field("sched", "sched_switch", "prev_state", &off, &size), 0);
	CHECK(size == 4 || size == 8);
	CHECK_INT(bpf_tp__field("sched", "sched_switch", "next_pid", &off2, &size2), 0);
	CHECK_INT(size2, 4);
	CHECK(off2 > off);
	/* an array field: "char prev_comm[16]" */
	CHECK_INT(bpf_tp__field("sched", "sched_switch", "prev_comm", &off, &size), 0);
	CHECK_INT(off, 8);
	CHECK_INT(size, 16);
	/* a field that is a suffix of another is not found by accident */
	CHECK_INT(bpf_tp__field("sched", "sched_switch", "pid", &off, &size), -ENOENT);
	CHECK_INT(bpf_tp__field("sched", "no_such", "pid", &off, &size), -ENOENT);
}

/* a socket filter that writes the u64 42 to a ring buffer, run by BPF_PROG_TEST_RUN */
static int ringbuf_prog(int map_fd)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8, .imm = 42 },
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_1, .src_reg = BPF_PSEUDO_MAP_FD, .imm = map_fd },
		{ 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2, .imm = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3, .imm = 8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_4, .imm = 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_ringbuf_output },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "sonde_rb_test", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), NULL);
}

struct rb_seen {
	int n;
	bool bad;
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct rb_seen *s = ctx;

	if (size != 8 || *(uint64_t *)data != 42)
		s->bad = true;
	s->n++;
	return 0;
}

TEST(loop_ringbuf_duration_and_signal)
{
	struct loop l;
	struct rb_seen seen = { 0 };
	uint8_t pkt[64] = { 0 };
	int map_fd, prog_fd;

	if (!can_bpf())
		return;
	map_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "sonde_rb", 0, 0, 4096 * 4, NULL);
	CHECK(map_fd >= 0);
	prog_fd = ringbuf_prog(map_fd);
	CHECK(prog_fd >= 0);
	CHECK_INT(loop__init(&l), 0);
	CHECK_INT(loop__add_ringbuf(&l, map_fd, on_record, &seen), 0);
	for (int i = 0; i < 100; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt), .repeat = 1);

		CHECK_INT(bpf_prog_test_run_opts(prog_fd, &o), 0);
	}
	CHECK_INT(loop__set_duration(&l, 0.05), 0);
	CHECK_INT(loop__run(&l), LOOP_DURATION);
	CHECK_INT(seen.n, 100);
	CHECK(!seen.bad);
	/* SIGTERM ends the loop as data, not by killing the process */
	kill(getpid(), SIGTERM);
	CHECK_INT(loop__set_duration(&l, 5), 0);
	CHECK_INT(loop__run(&l), LOOP_SIGNAL);
	CHECK_INT(l.signo, SIGTERM);
	loop__fini(&l);
	close(prog_fd);
	close(map_fd);
}

TEST(bpf_mmaps_records_feed_the_symbolizer)
{
	/* an MMAP2 of this test binary at a made-up address, then a fork and an exec */
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint8_t id[24];
		uint32_t prot, flags;
		char name[256];
	} m = { 0 };
	struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} fk = { { PERF_RECORD_FORK, 0, sizeof(fk) }, 1001, 1000, 1001, 1000, 0 };
	char exe[256];
	struct symbolizer *s = symbolizer__new(0);
	struct sym_frame f;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uint8_t buf[1024];
	size_t len;

	CHECK(s && n > 0);
	exe[n] = 0;
	m.h.type = PERF_RECORD_MMAP2;
	m.h.size = sizeof(m);
	m.pid = m.tid = 1000;
	m.addr = 0x7f0000000000ULL;
	m.len = 0x100000;
	m.prot = 5;
	snprintf(m.name, sizeof(m.name), "%s", exe);
	memcpy(buf, &m, sizeof(m));
	memcpy(buf + sizeof(m), &fk, sizeof(fk));
	len = sizeof(m) + sizeof(fk);
	CHECK_INT(bpf_mmaps__feed(s, buf, len), 0);
	CHECK(symbolizer__resolve(s, 1000, m.addr + 0x10, false, &f, 1) >= 1);
	CHECK(f.dso && !strcmp(f.dso, exe));
	/* the forked child got the map too */
	CHECK(symbolizer__resolve(s, 1001, m.addr + 0x10, false, &f, 1) >= 1);
	CHECK(f.dso && !strcmp(f.dso, exe));
	/* a truncated record is an error, never a read past the end */
	CHECK_INT(bpf_mmaps__feed(s, buf, sizeof(m) - 8), -EINVAL);
	/* a filename without its NUL is skipped */
	memset(m.name, 'x', sizeof(m.name));
	CHECK_INT(bpf_mmaps__feed(s, &m, sizeof(m)), 0);
	symbolizer__free(s);
}
