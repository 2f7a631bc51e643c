// SPDX-License-Identifier: GPL-2.0
/*
 * test_ksymcache.c - the cached kernel symbol table (src/lib/symbol/ksymcache.c)
 * on a made-up kallsyms: the kernel's own symbols (aliases at one address, the
 * end markers), a module listed out of order, BPF programs and an ftrace
 * trampoline. Every address answers as the full table does, with the
 * programs of the day the cache was made and with others loaded since; a
 * changed module list, boot id or release invalidates it; the directory and
 * file are private; a corrupted, truncated or hostile file is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/symbol/symbol.h"
#include "lib/symbol/symbol_int.h"
#include "unit.h"

#define CORE 0xffffffff81000000ULL
#define MODS 0xffffffffc0000000ULL

struct fake {
	char dir[64], kallsyms[128], modules[128], boot_id[128], cache[128];
	struct ksymcache_env env;
};

static int put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* a made-up /proc/kallsyms: bpf adds programs (in the gaps of the modules' area) loaded later */
static int write_kallsyms(const char *path, int later)
{
	FILE *f = fopen(path, "w");
	uint64_t a = CORE;

	if (!f)
		return -1;
	for (int i = 0; i < 3000; i++) {
		fprintf(f, "%016llx T core_fn%d\n", (unsigned long long)a, i);
		if (i % 7 == 0)	/* an alias at the same address */
			fprintf(f, "%016llx t core_alias%d\n", (unsigned long long)a, i);
		if (i % 11 == 0)
			fprintf(f, "%016llx D core_data%d\n", (unsigned long long)a + 8, i);
		a += 16 + (i * 37) % 600;
	}
	fprintf(f, "%016llx T _etext\n", (unsigned long long)a);
	a += 0x200000;
	for (int i = 0; i < 50; i++, a += 64)
		fprintf(f, "%016llx t init_fn%d\n", (unsigned long long)a, i);
	fprintf(f, "%016llx T _einittext\n", (unsigned long long)a);
	/* ext4's text at MODS + 0x100000, listed backwards, with a symbol of its own at its end */
	for (int i = 199; i >= 0; i--)
		fprintf(f, "%016llx t ext4_fn%d\t[ext4]\n", (unsigned long long)(MODS + 0x100000 + i * 0x80), i);
	for (int i = 0; i < 20; i++)
		fprintf(f, "%016llx t tiny_fn%d\t[tiny]\n", (unsigned long long)(MODS + 0x200000 + i * 0x40), i);
	fprintf(f, "%016llx t bpf_prog_aaaa_one\t[bpf]\n", (unsigned long long)(MODS + 0x1000));
	fprintf(f, "%016llx t bpf_prog_bbbb_two\t[bpf]\n", (unsigned long long)(MODS + 0x106800));
	fprintf(f, "%016llx t ftrace_trampoline\t[__builtin__ftrace]\n", (unsigned long long)(MODS + 0x300000));
	if (later) {
		fprintf(f, "%016llx t bpf_prog_cccc_three\t[bpf]\n", (unsigned long long)(MODS + 0x2000));
		fprintf(f, "%016llx t bpf_prog_dddd_four\t[bpf]\n", (unsigned long long)(MODS + 0x106400));
		fprintf(f, "%016llx t bpf_prog_eeee_five\t[bpf]\n", (unsigned long long)(MODS + 0x200500));
		fprintf(f, "%016llx t bpf_prog_ffff_six\t[bpf]\n", (unsigned long long)(a + 0x1000));
	}
	return fclose(f);
}

static const char modules[] =
	"ext4 1048576 3 - Live 0xffffffffc0100000\n"
	"tiny 16384 0 - Live 0xffffffffc0200000 (OE)\n";

static int fake_setup(struct fake *fk)
{
	snprintf(fk->dir, sizeof(fk->dir), "/tmp/sonde-test-ksymcache.XXXXXX");
	if (!mkdtemp(fk->dir))
		return -1;
	snprintf(fk->kallsyms, sizeof(fk->kallsyms), "%s/kallsyms", fk->dir);
	snprintf(fk->modules, sizeof(fk->modules), "%s/modules", fk->dir);
	snprintf(fk->boot_id, sizeof(fk->boot_id), "%s/boot_id", fk->dir);
	snprintf(fk->cache, sizeof(fk->cache), "%s/cache/kallsyms.cache", fk->dir);
	fk->env = (struct ksymcache_env){ .kallsyms = fk->kallsyms, .modules = fk->modules,
					  .boot_id = fk->boot_id, .release = "6.1.0-test" };
	static char cdir[80];

	snprintf(cdir, sizeof(cdir), "%s/cache", fk->dir);
	fk->env.dir = cdir;
	if (write_kallsyms(fk->kallsyms, 0) || put(fk->modules, modules) ||
	    put(fk->boot_id, "0f7e6b6a-8d3c-4b1e-9a57-3c2f1d0e9b8a\n"))
		return -1;
	return 0;
}

static void fake_done(struct fake *fk)
{
	char cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", fk->dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", fk->dir);
}

/* saves the cache from the fake kallsyms, as the symbolizer does after reading it whole */
static int save(struct fake *fk)
{
	struct kallsyms *k;
	const struct ksym *all;
	size_t n;
	int err = kallsyms__load(&k, fk->kallsyms);

	if (err)
		return err;
	all = kallsyms__syms(k, &n);
	err = ksymcache__save(all, n, &fk->env);
	kallsyms__free(k);
	return err;
}

/*
 * every address near a symbol of full (and the gaps between): where the cache
 * covers it, the same answer as the full table; returns how many it covered,
 * or -1 (a message printed) at the first difference
 */
static long compare(const struct ksymcache *c, const struct kallsyms *full)
{
	size_t n;
	const struct ksym *all = kallsyms__syms(full, &n);
	static const int64_t deltas[] = { -1, 0, 1, 5, 15, 16, 63, 64, 300, 0x800, 0x100001, 0x300000 };
	long covered = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t d = 0; d < sizeof(deltas) / sizeof(deltas[0]); d++) {
			uint64_t addr = all[i].addr + deltas[d];
			const struct ksym *want = kallsyms__find(full, addr);
			struct ksym got;
			int r = ksymcache__find(c, addr, &got);

			if (r == -ENOENT)
				continue;
			covered++;
			if (r != (want != NULL) ||
			    (want && (got.addr != want->addr || strcmp(got.name, want->name) ||
				      strcmp(got.module, want->module)))) {
				fprintf(stderr, "%#llx: cache %d %s %s, kallsyms %s %s\n", (unsigned long long)addr, r,
					r == 1 ? got.name : "-", r == 1 ? got.module : "-", want ? want->name : "-",
					want ? want->module : "-");
				return -1;
			}
		}
	return covered;
}

static int lookup(const struct ksymcache *c, uint64_t addr, const char **name)
{
	struct ksym k;
	int r = ksymcache__find(c, addr, &k);

	*name = r == 1 ? k.name : NULL;
	return r;
}

TEST(ksymcache_answers_as_kallsyms)
{
	struct fake fk;
	struct ksymcache *c = NULL;
	struct kallsyms *full = NULL, *later = NULL;
	const char *name;
	struct stat st;

	CHECK_INT(fake_setup(&fk), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), -ENOENT);
	CHECK(stat(fk.env.dir, &st) && errno == ENOENT);	/* looking makes no directory */
	CHECK_INT(save(&fk), 0);
	CHECK_INT(stat(fk.env.dir, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0700);
	CHECK_INT(stat(fk.cache, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);
	CHECK_INT(ksymcache__open(&c, &fk.env), 0);
	CHECK_INT(kallsyms__load(&full, fk.kallsyms), 0);
	long covered = compare(c, full);

	CHECK(covered > 30000);
	/* asked again: the answers remembered (and those whose slot another took) are the same */
	CHECK_INT(compare(c, full), covered);
	for (int i = 0; i < 3; i++)	/* one address over and over, between others of its slot */
		CHECK_INT(lookup(c, CORE + 3, &name) == 1 && !strcmp(name, "core_alias0") && compare(c, full) == covered, 1);
	/* the kernel's text and the modules' are covered; the programs and what is past a module are not */
	CHECK_INT(lookup(c, CORE + 3, &name), 1);
	CHECK_STR(name, "core_alias0");
	CHECK_INT(lookup(c, MODS + 0x100000 + 5 * 0x80 + 9, &name), 1);
	CHECK_STR(name, "ext4_fn5");
	CHECK_INT(lookup(c, MODS + 0x1000 + 4, &name), -ENOENT);
	CHECK_INT(lookup(c, MODS + 0x100000 + 199 * 0x80 + 4, &name), -ENOENT);
	CHECK_INT(lookup(c, MODS + 0x300000, &name), -ENOENT);
	CHECK_INT(lookup(c, CORE - 1, &name), -ENOENT);
	/* programs loaded since, in the gaps: the covered answers are still the full table's */
	CHECK_INT(write_kallsyms(fk.kallsyms, 1), 0);
	CHECK_INT(kallsyms__load(&later, fk.kallsyms), 0);
	CHECK(compare(c, later) >= covered);
	ksymcache__close(c);
	kallsyms__free(full);
	kallsyms__free(later);
	fake_done(&fk);
}

/*
 * where the cache does not cover an address, the symbolizer reads only what it leaves out
 * (BPF programs, trampolines) from kallsyms: with the cache's symbols, every address still
 * gets the full table's answer, programs loaded since the cache was made included
 */
TEST(ksymcache_with_the_others_answers_as_kallsyms)
{
	static const int64_t deltas[] = { -1, 0, 1, 5, 64, 300, 0x800, 0x100001 };
	struct fake fk;
	struct ksymcache *c = NULL;
	struct kallsyms *full = NULL, *others = NULL;
	const struct ksym *all;
	size_t n, nothers;
	long named = 0;

	CHECK_INT(fake_setup(&fk), 0);
	CHECK_INT(save(&fk), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), 0);
	CHECK_INT(write_kallsyms(fk.kallsyms, 1), 0);
	CHECK_INT(kallsyms__load(&full, fk.kallsyms), 0);
	CHECK_INT(ksymcache__load_others(c, fk.kallsyms, &others), 0);
	kallsyms__syms(others, &nothers);
	CHECK_INT(nothers, 7);	/* six programs and the trampoline */
	all = kallsyms__syms(full, &n);
	for (size_t i = 0; i < n; i++)
		for (size_t d = 0; d < sizeof(deltas) / sizeof(deltas[0]); d++) {
			uint64_t addr = all[i].addr + deltas[d];
			const struct ksym *want = kallsyms__find(full, addr), *got;
			struct ksym buf;

			got = ksymcache__find_full(c, others, addr, &buf);
			if (!want != !got || (want && (want->addr != got->addr || strcmp(want->name, got->name) ||
						       strcmp(want->module, got->module)))) {
				fprintf(stderr, "%#llx: %s, kallsyms %s\n", (unsigned long long)addr,
					got ? got->name : "-", want ? want->name : "-");
				CHECK(0);
				i = n;
				break;
			}
			named += !!got;
		}
	CHECK(named > 25000);
	{	/* a program loaded since the cache, in a gap of the modules' area; the trampoline */
		struct ksym buf;
		const struct ksym *k = ksymcache__find_full(c, others, MODS + 0x2000 + 4, &buf);

		CHECK(k && !strcmp(k->name, "bpf_prog_cccc_three") && !strcmp(k->module, "[bpf]"));
		k = ksymcache__find_full(c, others, MODS + 0x300000, &buf);
		CHECK(k && !strcmp(k->name, "ftrace_trampoline"));
		k = ksymcache__find_full(c, others, MODS + 0x100000 + 5 * 0x80 + 9, &buf);
		CHECK(k && !strcmp(k->name, "ext4_fn5"));
	}
	ksymcache__close(c);
	kallsyms__free(full);
	kallsyms__free(others);
	fake_done(&fk);
}

TEST(ksymcache_key_changes_invalidate)
{
	struct fake fk;
	struct ksymcache *c = NULL;

	CHECK_INT(fake_setup(&fk), 0);
	CHECK_INT(save(&fk), 0);
	/* the use counts change without moving anything: still valid */
	CHECK_INT(put(fk.modules, "ext4 1048576 7 jbd2,mbcache, Live 0xffffffffc0100000\n"
				  "tiny 16384 2 - Live 0xffffffffc0200000 (OE)\n"), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), 0);
	ksymcache__close(c);
	/* a module loaded, unloaded, or loaded elsewhere */
	CHECK_INT(put(fk.modules, "ext4 1048576 3 - Live 0xffffffffc0100000\n"), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), -ESTALE);
	CHECK_INT(put(fk.modules, "ext4 1048576 3 - Live 0xffffffffc0100000\n"
				  "tiny 16384 0 - Live 0xffffffffc0200000 (OE)\n"
				  "veth 40960 0 - Live 0xffffffffc0300000\n"), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), -ESTALE);
	CHECK_INT(put(fk.modules, "ext4 1048576 3 - Live 0xffffffffc0400000\n"
				  "tiny 16384 0 - Live 0xffffffffc0200000 (OE)\n"), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), -ESTALE);
	CHECK_INT(put(fk.modules, modules), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), 0);
	ksymcache__close(c);
	/* a module list it cannot read: no cache */
	CHECK_INT(put(fk.modules, "ext4\n"), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), -EINVAL);
	CHECK_INT(put(fk.modules, "ext4 -5 0 - Live 0xffffffffc0100000\n"), 0);
	CHECK(ksymcache__open(&c, &fk.env) < 0);
	CHECK_INT(put(fk.modules, modules), 0);
	/* another boot; another kernel */
	CHECK_INT(put(fk.boot_id, "1f7e6b6a-8d3c-4b1e-9a57-3c2f1d0e9b8a\n"), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), -ESTALE);
	CHECK_INT(put(fk.boot_id, "0f7e6b6a-8d3c-4b1e-9a57-3c2f1d0e9b8a\n"), 0);
	fk.env.release = "6.1.0-other";
	CHECK_INT(ksymcache__open(&c, &fk.env), -ESTALE);
	/* rebuilt for it */
	CHECK_INT(save(&fk), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), 0);
	ksymcache__close(c);
	fake_done(&fk);
}

TEST(ksymcache_never_with_hidden_addresses)
{
	struct fake fk;
	struct ksymcache *c = NULL;
	struct stat st;

	CHECK_INT(fake_setup(&fk), 0);
	/* kptr_restrict: kallsyms' addresses are zeros (the symbolizer cannot read it then either) */
	CHECK_INT(put(fk.kallsyms, "0000000000000000 T _stext\n0000000000000000 T core_fn0\n"), 0);
	struct ksym one = { CORE, "core_fn0", "[kernel.kallsyms]" };

	CHECK_INT(ksymcache__save(&one, 1, &fk.env), -EPERM);
	CHECK(stat(fk.cache, &st) && errno == ENOENT);
	/* a cache made while they were shown is not used once they are hidden */
	CHECK_INT(write_kallsyms(fk.kallsyms, 0), 0);
	CHECK_INT(save(&fk), 0);
	CHECK_INT(put(fk.kallsyms, "0000000000000000 T _stext\n"), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), -EPERM);
	/* modules whose addresses are hidden: their moves would go unseen */
	CHECK_INT(write_kallsyms(fk.kallsyms, 0), 0);
	CHECK_INT(put(fk.modules, "ext4 1048576 3 - Live 0x0000000000000000\n"), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), -EPERM);
	fake_done(&fk);
}

TEST(ksymcache_private_files)
{
	struct fake fk;
	struct ksymcache *c = NULL;
	struct stat st;

	CHECK_INT(fake_setup(&fk), 0);
	CHECK_INT(save(&fk), 0);
	/* readable by others: not used (and replaced by a private one) */
	CHECK_INT(chmod(fk.cache, 0644), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), -EINVAL);
	CHECK_INT(save(&fk), 0);
	CHECK_INT(stat(fk.cache, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);
	/* a directory opened to others is closed again */
	CHECK_INT(chmod(fk.env.dir, 0755), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), 0);
	ksymcache__close(c);
	CHECK_INT(stat(fk.env.dir, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0700);
	/* a symlink in its place is not followed */
	CHECK_INT(rename(fk.cache, fk.kallsyms), 0);
	CHECK_INT(symlink(fk.kallsyms, fk.cache), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), -ELOOP);
	fake_done(&fk);
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	char *buf = malloc(8 << 20);

	*n = f && buf ? fread(buf, 1, 8 << 20, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

static int spit(const char *path, const char *buf, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, buf, n) == (ssize_t)n;
	close(fd);
	return ok ? 0 : -1;
}

TEST(ksymcache_corrupted_truncated_hostile)
{
	struct fake fk;
	struct ksymcache *c = NULL;
	size_t n;
	char *good, *bad;

	CHECK_INT(fake_setup(&fk), 0);
	CHECK_INT(save(&fk), 0);
	good = slurp(fk.cache, &n);
	bad = malloc(n);
	CHECK(good && bad && n > 4096);
	/* any byte flipped: refused */
	for (size_t i = 0; i < n; i += i < 128 ? 1 : 997) {
		memcpy(bad, good, n);
		bad[i] ^= 0x20;
		CHECK_INT(spit(fk.cache, bad, n), 0);
		CHECK(ksymcache__open(&c, &fk.env) < 0);
	}
	/* truncated anywhere */
	for (size_t len = 0; len < n; len += len < 128 ? 1 : 4093) {
		CHECK_INT(spit(fk.cache, good, len), 0);
		CHECK(ksymcache__open(&c, &fk.env) < 0);
	}
	/* checksums made right over offsets and counts that lie: refused, no crash */
	static const size_t fields[] = { 32, 40, 48, 56, 64, 72 };	/* key, syms, strings: offset, length */
	static const uint64_t values[] = { 1, 3, 0x7fffffff, 0xffffffff, ~0ULL, 1ULL << 60 };

	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
		for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
			memcpy(bad, good, n);
			memcpy(bad + fields[f], &values[v], 8);
			ksymcache__seal(bad, n);
			CHECK_INT(spit(fk.cache, bad, n), 0);
			CHECK(ksymcache__open(&c, &fk.env) < 0);
		}
	/* a name's offset past the strings, or symbols out of order */
	uint64_t syms_off;

	memcpy(&syms_off, good + 48, 8);
	memcpy(bad, good, n);
	memset(bad + syms_off + 8, 0xff, 4);
	ksymcache__seal(bad, n);
	CHECK_INT(spit(fk.cache, bad, n), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), -EINVAL);
	memcpy(bad, good, n);
	memset(bad + syms_off + 16, 0xff, 8);
	ksymcache__seal(bad, n);
	CHECK_INT(spit(fk.cache, bad, n), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), -EINVAL);
	/* and the good one still works */
	CHECK_INT(spit(fk.cache, good, n), 0);
	CHECK_INT(ksymcache__open(&c, &fk.env), 0);
	ksymcache__close(c);
	free(good);
	free(bad);
	fake_done(&fk);
}
