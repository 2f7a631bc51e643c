// SPDX-License-Identifier: GPL-2.0
/*
 * test_unwind.c - DWARF unwinding of real samples: symchain built with -O2
 * -fomit-frame-pointer (as a PIE, and with its chain in a shared library) is
 * sampled with perf_event_open (task-clock, IP|TID|REGS_USER|STACK_USER), and
 * every sample taken in chain_c must unwind to chain_c <- chain_b <- chain_a
 * <- main <- __libc_start_call_main. The CFI rules unwind__rule gives for the
 * frames (what offcpu's walk in the kernel uses) must walk each copy to the
 * same frames.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/perfdata/perfdata.h"
#include "lib/symbol/symbol.h"
#include "lib/symbol/unwind.h"
#include "test_symbol_util.h"
#include "unit.h"

#define RING_PAGES 128
#define STACK_BYTES 8192

struct unwound {
	int samples, in_chain_c, full_chain, past_main;
	int rule_walks, rule_agree;	/* samples walked with unwind__rule's rules, and to libdw's frames */
	char first[256];	/* the first chain_c sample's stack, for the failure message */
	char differs[256];	/* the first sample the rules walked elsewhere */
};

/* the word at addr of a stack copied from sp */
static bool copy_word(const uint8_t *stack, uint64_t size, uint64_t sp, uint64_t addr, uint64_t *w)
{
	if (addr < sp || addr - sp > size || size - (addr - sp) < sizeof(*w))
		return false;
	memcpy(w, stack + (addr - sp), sizeof(*w));
	return true;
}

/* walk a copy with the rules of each frame (regs: BP, SP, IP at 6, 7, 8); -1 where a frame has none */
static int rule_walk(struct symbolizer *s, pid_t pid, const uint64_t *regs, const uint8_t *stack, uint64_t size,
		     uint64_t *ips, int max)
{
	uint64_t pc = regs[8], sp = regs[7], bp = regs[6], cfa, ra;
	struct unwind_rule r;

	for (int i = 0; i < max; i++) {
		if (unwind__rule(s, pid, pc, i == 0, &r))
			return -1;
		ips[i] = pc;
		cfa = (r.cfa_bp ? bp : sp) + r.cfa_off;
		if (r.end || !copy_word(stack, size, regs[7], cfa - 8, &ra) ||
		    (r.bp_saved && !copy_word(stack, size, regs[7], cfa + r.bp_off, &bp)) || !ra)
			return i + 1;	/* where the unwinder stops too */
		sp = cfa;
		pc = ra;
	}
	return max;
}

static void check_sample(struct symbolizer *s, pid_t pid, const uint64_t *regs, const uint8_t *stack,
			 uint64_t size, const char *main_name, struct unwound *u)
{
	static const char *const chain[] = { "chain_c", "chain_b", "chain_a" };
	uint64_t ips[64];
	const char *names[64];
	struct sym_frame f[4];
	int n = unwind__user(s, pid, regs, UNWIND_REGS_MASK, stack, size, ips, 64);

	u->samples++;
	if (n < 1)
		return;
	uint64_t rips[64];
	int m = rule_walk(s, pid, regs, stack, size, rips, 64);

	if (m > 0) {
		u->rule_walks++;
		if (m == n && !memcmp(rips, ips, n * sizeof(*ips)))
			u->rule_agree++;
		else if (!u->differs[0])
			snprintf(u->differs, sizeof(u->differs), "ip %#llx: libdw %d frames, the rules %d (2nd %#llx, %#llx)",
				 (unsigned long long)ips[0], n, m, (unsigned long long)(n > 1 ? ips[1] : 0),
				 (unsigned long long)(m > 1 ? rips[1] : 0));
	}
	for (int i = 0; i < n; i++) {
		int k = symbolizer__resolve(s, pid, ips[i], false, f, 4);

		names[i] = k >= 1 && f[k - 1].sym ? f[k - 1].sym : "[unknown]";
	}
	if (strcmp(names[0], "chain_c"))
		return;		/* in the vdso's clock_gettime, or in the kernel's return path */
	u->in_chain_c++;
	if (!u->first[0])
		for (int i = 0, len = 0; i < n && len < 200; i++)
			len += snprintf(u->first + len, sizeof(u->first) - len, "%s%s", i ? " <- " : "", names[i]);
	int i;

	for (i = 0; i < 3 && i < n && !strcmp(names[i], chain[i]); i++)
		;
	if (i == 3 && n > 3 && !strcmp(names[3], main_name)) {
		u->full_chain++;
		if (n > 4 && !strcmp(names[4], "__libc_start_call_main"))
			u->past_main++;
	}
}

/* sample pid for ~300 ms and unwind every sample */
static int sample_and_unwind(struct symbolizer *s, pid_t pid, const char *main_name, struct unwound *u)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = 1000000,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
		.sample_regs_user = UNWIND_REGS_MASK,
		.sample_stack_user = STACK_BYTES,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (RING_PAGES + 1) * page;
	int fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	struct perf_event_mmap_page *meta;
	uint8_t *rec;

	if (fd < 0)
		return -errno;
	meta = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	rec = malloc(1 << 16);
	if (meta == MAP_FAILED || !rec) {
		close(fd);
		free(rec);
		return -ENOMEM;
	}
	usleep(300000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), tail = meta->data_tail;
	const uint8_t *data = (const uint8_t *)meta + page;
	uint64_t size = RING_PAGES * page;

	while (tail < head) {
		struct perf_event_header h;

		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof(h))
			break;
		for (size_t i = 0; i < h.size; i++)
			rec[i] = data[(tail + i) % size];
		tail += h.size;
		if (h.type != PERF_RECORD_SAMPLE)
			continue;
		const uint64_t *p = (const uint64_t *)(rec + sizeof(h));
		/* ip, pid/tid, regs abi, regs[], stack size, stack, dyn_size */
		uint64_t abi = p[2];
		const uint64_t *regs = &p[3];
		int nregs = abi ? __builtin_popcountll(UNWIND_REGS_MASK) : 0;
		uint64_t ssize = p[3 + nregs];
		const uint8_t *stack = (const uint8_t *)&p[4 + nregs];
		uint64_t dyn = ssize ? *(const uint64_t *)(stack + ssize) : 0;

		if (abi)
			check_sample(s, pid, regs, stack, dyn < ssize ? dyn : ssize, main_name, u);
	}
	meta->data_tail = head;
	munmap(meta, len);
	close(fd);
	free(rec);
	return 0;
}

static void unwind_variant(const char *kind, const char *main_name)
{
	struct symbolizer *s = symbolizer__new(0);
	char *dir = st_tmpdir(), path[4200];
	struct unwound u = { 0 };
	struct st_child c;
	int err;

	CHECK(s && dir);
	CHECK_INT(st_build(dir, "symchain", kind), 0);
	snprintf(path, sizeof(path), "%s/symchain", dir);
	CHECK_INT(st_spawn(&c, path, "10"), 0);
	err = symbolizer__load_proc_maps(s, c.pid);
	if (!err)
		err = sample_and_unwind(s, c.pid, main_name, &u);
	st_reap(&c);
	st_rmdir(dir);
	symbolizer__free(s);
	CHECK_INT(err, 0);
	if (u.in_chain_c < 20 || u.full_chain * 10 < u.in_chain_c * 9 || u.past_main * 10 < u.in_chain_c * 9)
		unit__fail(__FILE__, __LINE__, "%s: %d samples, %d in chain_c, %d unwound to %s, %d past it; first: %s",
			   kind, u.samples, u.in_chain_c, u.full_chain, main_name, u.past_main, u.first);
	if (u.rule_agree != u.rule_walks || u.rule_walks * 10 < u.samples * 9)
		unit__fail(__FILE__, __LINE__, "%s: %d samples, %d walked with CFI rules, %d to libdw's frames; %s",
			   kind, u.samples, u.rule_walks, u.rule_agree, u.differs);
}

TEST(unwind_dwarf_pie_without_frame_pointers)
{
	unwind_variant("nofp", "main");
}

TEST(unwind_dwarf_across_shared_library)
{
	unwind_variant("lib", "symchain_main");
}

TEST(unwind_bad_input)
{
	struct symbolizer *s = symbolizer__new(0);
	uint64_t regs[32] = { 0 }, ips[4];
	uint8_t stack[64] = { 0 };

	CHECK(s);
	/* without IP and SP in the mask there is nothing to start from */
	CHECK_INT(unwind__user(s, 1, regs, 1, stack, sizeof(stack), ips, 4), -EINVAL);
	CHECK_INT(unwind__user(s, 1, regs, UNWIND_REGS_MASK, stack, sizeof(stack), ips, 0), -EINVAL);
	/* a process the symbolizer has no maps for */
	CHECK_INT(unwind__user(s, 4194301, regs, UNWIND_REGS_MASK, stack, sizeof(stack), ips, 4), -ESRCH);
	/* garbage registers and stack in a known process: some frames or an error, never a crash */
	CHECK_INT(symbolizer__load_proc_maps(s, getpid()), 0);
	for (int i = 0; i < 32; i++)
		regs[i] = 0x4141414141414141ULL * (i + 1);
	regs[PERF_REG_X86_IP] = (uintptr_t)symbolizer__new;
	regs[PERF_REG_X86_SP] = 0x1000;
	int n = unwind__user(s, getpid(), regs, (1ULL << 17) - 1, stack, sizeof(stack), ips, 4);

	CHECK(n >= 1 && n <= 4);
	CHECK_INT(ips[0], (uintptr_t)symbolizer__new);
	symbolizer__free(s);
}

TEST(unwind_many_processes)
{
	/* more processes than unwinding states kept: the oldest are dropped and rebuilt on demand */
	struct symbolizer *s = symbolizer__new(0);
	uint64_t regs[17] = { 0 }, ips[8];
	uint8_t stack[256] = { 0 };

	CHECK(s);
	CHECK_INT(symbolizer__load_proc_maps(s, getpid()), 0);
	regs[PERF_REG_X86_IP] = (uintptr_t)symbolizer__new;
	regs[PERF_REG_X86_SP] = (uintptr_t)stack;
	for (int round = 0; round < 2; round++)
		for (pid_t pid = 1000; pid < 1100; pid++) {
			if (!round)
				CHECK_INT(symbolizer__fork(s, getpid(), pid), 0);
			int n = unwind__user(s, pid, regs, (1ULL << 17) - 1, stack, sizeof(stack), ips, 8);

			CHECK(n >= 1);
			CHECK_INT(ips[0], (uintptr_t)symbolizer__new);
		}
	symbolizer__free(s);
}

/* the user frames of each sample of `perf script -F comm,ip,sym,dso --no-inline`, as "a;b;c" lines */
static int perf_stacks(const char *data, char ***out)
{
	char cmd[4400], line[1024], cur[4096] = "";
	int n = 0, cap = 0;
	char **v = NULL;
	FILE *p;

	/* each sample: a header line (the comm), then one tab-indented line per frame */
	snprintf(cmd, sizeof(cmd), "perf script -i %s -F comm,ip,sym,dso --no-inline 2>/dev/null; echo END", data);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	bool in_sample = false;

	while (fgets(line, sizeof(line), p)) {
		unsigned long long ip;
		char sym[512], dso[512];

		if (line[0] == '\n')
			continue;
		if (line[0] != '\t') {
			if (in_sample) {
				if (n == cap) {
					cap = cap ? cap * 2 : 256;
					v = realloc(v, cap * sizeof(*v));
				}
				v[n++] = strdup(cur);
			}
			cur[0] = 0;
			in_sample = true;
			continue;
		}
		if (sscanf(line, " %llx %511s (%511[^)])", &ip, sym, dso) != 3 || !strcmp(dso, "[kernel.kallsyms]"))
			continue;
		char *plus = strrchr(sym, '+');

		if (plus)
			*plus = 0;
		snprintf(cur + strlen(cur), sizeof(cur) - strlen(cur), "%s%s", cur[0] ? ";" : "", sym);
	}
	pclose(p);
	*out = v;
	return n;
}

TEST(unwind_agrees_with_perf_dwarf)
{
	char *dir = st_tmpdir(), path[4200], data[4200];
	struct perfdata_reader *r = NULL;
	struct perfdata_event ev;
	char err[256], **want = NULL;
	int nwant, i = 0, same = 0, compared = 0;
	char first_bad[1200] = "";

	CHECK(dir);
	if (st_sh("command -v perf >/dev/null")) {
		printf("# perf is not installed: unwind_agrees_with_perf_dwarf compared nothing\n");
		st_rmdir(dir);
		return;
	}
	CHECK_INT(st_build(dir, "symchain", "nofp"), 0);
	snprintf(path, sizeof(path), "%s/symchain", dir);
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	CHECK_INT(st_sh("perf record -q --call-graph dwarf,8192 -F 999 -o %s -- %s 0.4 >/dev/null 2>&1", data, path), 0);
	nwant = perf_stacks(data, &want);
	CHECK(nwant > 20);
	CHECK_INT(perfdata_reader__open(&r, data, err, sizeof(err)), 0);
	struct symbolizer *s = symbolizer__new(0);

	while (s && perfdata_reader__next(r, &ev) > 0) {
		if (ev.type == PERF_RECORD_MMAP || ev.type == PERF_RECORD_MMAP2) {
			symbolizer__add_mmap(s, ev.mmap.pid, ev.mmap.start, ev.mmap.len, ev.mmap.pgoff, ev.mmap.filename,
					     ev.mmap.build_id, ev.mmap.build_id_size);
			continue;
		}
		if (ev.type != PERF_RECORD_SAMPLE || i >= nwant)
			continue;
		const struct perfdata_sample *ps = &ev.sample;
		uint64_t ips[128];
		char got[4096] = "";
		int n = unwind__user(s, ps->pid, ps->user_regs, ps->user_regs_mask, ps->user_stack,
				     ps->user_stack_size, ips, 128);

		for (int k = 0; k < n; k++) {
			struct sym_frame f;

			symbolizer__resolve(s, ps->pid, ips[k], false, &f, 1);
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", k ? ";" : "",
				 f.sym ? f.sym : "[unknown]");
		}
		compared++;
		if (!strcmp(got, want[i]))
			same++;
		else if (!first_bad[0])
			snprintf(first_bad, sizeof(first_bad), "sample %d: perf %s, sonde %s", i, want[i], got);
		i++;
	}
	for (int k = 0; k < nwant; k++)
		free(want[k]);
	free(want);
	perfdata_reader__free(r);
	symbolizer__free(s);
	st_rmdir(dir);
	CHECK_INT(compared, nwant);
	/* the same stacks, frame for frame, in (nearly) every sample */
	if (same * 100 < compared * 95)
		unit__fail(__FILE__, __LINE__, "%d of %d stacks differ from perf's DWARF unwinding; %s",
			   compared - same, compared, first_bad);
}
