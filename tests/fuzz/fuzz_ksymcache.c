// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ksymcache.c - the cached kernel symbol table (src/lib/symbol/ksymcache.c).
 * An input starting with "K" is the text of a made-up /proc/kallsyms: it is read
 * whole, cached, and every address near its symbols must answer from the cache
 * as from the full table (or be left to it). Anything else is a cache file:
 * opened as it is (errors are fine), then again with its size and checksum made
 * right, so that the checks behind them see hostile offsets and counts; every
 * lookup in a cache that opened stays in bounds. Crashes, leaks, hangs and
 * wrong answers are not fine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/symbol/symbol.h"
#include "lib/symbol/symbol_int.h"

static char dir[64], cache[128], kallsyms[128], text[128];
static struct ksymcache_env env;

static void cleanup(void)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/cache", dir);
	unlink(cache);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/modules", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/boot_id", dir);
	unlink(path);
	unlink(kallsyms);
	unlink(text);
	rmdir(dir);
}

static int put(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, data, size) == (ssize_t)size;
	close(fd);
	return ok ? 0 : -1;
}

/* the made-up machine the seeds (tests/fuzz/corpus/ksymcache/) were cached on */
static void setup(void)
{
	static char cdir[80], modules[128], boot_id[128];
	static const char mods[] = "ext4 1048576 3 - Live 0xffffffffc0100000\n";
	static const char boot[] = "5e1dc0de-0000-4000-8000-000000000001\n";
	static const char ksyms[] = "ffffffff81000000 T _stext\n";

	snprintf(dir, sizeof(dir), "/tmp/sonde-fuzz-ksymcache.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(cdir, sizeof(cdir), "%s/cache", dir);
	snprintf(cache, sizeof(cache), "%s/kallsyms.cache", cdir);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
	snprintf(text, sizeof(text), "%s/text", dir);
	snprintf(modules, sizeof(modules), "%s/modules", dir);
	snprintf(boot_id, sizeof(boot_id), "%s/boot_id", dir);
	if (put(modules, mods, sizeof(mods) - 1) || put(boot_id, boot, sizeof(boot) - 1) ||
	    put(kallsyms, ksyms, sizeof(ksyms) - 1))
		abort();
	env = (struct ksymcache_env){ .dir = cdir, .kallsyms = kallsyms, .modules = modules,
				      .boot_id = boot_id, .release = "fuzz" };
	atexit(cleanup);
}

static uint64_t word(const uint8_t *data, size_t size, size_t i)
{
	uint64_t v = 0;

	for (size_t k = 0; k < 8 && size; k++)
		v |= (uint64_t)data[(i * 8 + k) % size] << (8 * k);
	return v;
}

/* a cache file as it is and sealed: lookups at addresses from the input */
static void cache_file(const uint8_t *data, size_t size)
{
	struct ksymcache *c;
	struct ksym k;
	uint8_t *sealed;

	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			sealed = malloc(size ? size : 1);
			if (!sealed)
				return;
			memcpy(sealed, data, size);
			ksymcache__seal(sealed, size);
			put(cache, sealed, size);
			free(sealed);
		} else {
			put(cache, data, size);
		}
		if (ksymcache__open(&c, &env))
			continue;
		for (size_t i = 0; i < 64; i++)
			if (ksymcache__find(c, word(data, size, i), &k) == 1 && strlen(k.name) + strlen(k.module) == 0)
				abort();
		ksymcache__find(c, 0, &k);
		ksymcache__find(c, ~0ULL, &k);
		ksymcache__close(c);
	}
}

/* a made-up kallsyms: the cache answers every address as the full table does */
static void kallsyms_text(const uint8_t *data, size_t size)
{
	static const int64_t deltas[] = { -1, 0, 1, 7, 0x1000, 0x100001 };
	struct kallsyms *full;
	struct ksymcache *c;
	const struct ksym *all;
	size_t n;

	if (put(text, data, size) || kallsyms__load(&full, text))
		return;
	all = kallsyms__syms(full, &n);
	unlink(cache);
	if (ksymcache__save(all, n, &env) || ksymcache__open(&c, &env)) {
		kallsyms__free(full);
		return;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t d = 0; d < sizeof(deltas) / sizeof(deltas[0]); d++) {
			uint64_t addr = all[i].addr + deltas[d];
			const struct ksym *want = kallsyms__find(full, addr);
			struct ksym got;
			int r = ksymcache__find(c, addr, &got);

			if (r != -ENOENT && (r != (want != NULL) || (want && (got.addr != want->addr ||
				strcmp(got.name, want->name) || strcmp(got.module, want->module)))))
				abort();
		}
	ksymcache__close(c);
	kallsyms__free(full);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0])
		setup();
	if (size && data[0] == 'K')
		kallsyms_text(data + 1, size - 1);
	else
		cache_file(data, size);
	return 0;
}
