// SPDX-License-Identifier: GPL-2.0
/*
 * ksymcache.c - the kernel's symbols cached between runs. Reading
 * /proc/kallsyms makes the kernel format 120k lines (tens of milliseconds,
 * most of a report's time); the part of it that stays put for a boot (the
 * kernel's own symbols and the loaded modules') is saved once, sorted, in
 * $XDG_CACHE_HOME/sonde/kallsyms.cache (~/.cache/sonde/), and read by later
 * runs (checked whole, then only the blocks and names lookups need: see
 * struct ksymcache). It is valid for one boot id, kernel release and module list (names,
 * sizes, states, addresses: a module loaded or unloaded rebuilds it).
 *
 * What comes and goes (BPF programs, ftrace trampolines, kprobe slots: the
 * kallsyms lines of a "module" not in /proc/modules) is left out, and so is
 * every gap where it could appear: an address is answered from the cache only
 * between two neighbouring symbols of the kernel image, or of one module, with
 * nothing else between them when the cache was made; anything else is "not
 * covered" and the caller reads /proc/kallsyms as before. The answers are the
 * full table's, address for address.
 *
 * The file is input like any other: a header with a magic, version, size and
 * checksum, every offset checked before use, and anything wrong means no cache
 * (rebuilt on the next full read). Never made when kallsyms hides its
 * addresses (kptr_restrict); the directory is 0700, the file 0600, written to a
 * temp file and renamed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/symbol/symbol_int.h"

#define KSC_MAGIC "sondeKSY"
#define KSC_VERSION 2
#define KSC_COVERED 0x80000000u	/* ksc_sym.module: [addr, the next symbol's) is answered here */
#define KSC_MAX_SIZE (1ULL << 30)

struct ksc_header {
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;	/* sizeof(struct ksc_header) */
	uint64_t file_size;
	uint64_t checksum;	/* of every byte after this field */
	uint64_t key_off, key_len;	/* what the cache is valid for (ksc_key's text) */
	uint64_t syms_off, nsyms;	/* struct ksc_sym[nsyms], by address */
	uint64_t strs_off, strs_len;	/* names, each ending in NUL; the last byte is NUL */
};

struct ksc_sym {
	uint64_t addr;
	uint32_t name;		/* offset in the strings */
	uint32_t module;	/* offset in the strings ("[kernel.kallsyms]", "[ext4]") | KSC_COVERED */
};

/*
 * After the check the cache is not kept mapped: a report needs a few hundred of its
 * 120k symbols, and mapped it would stay resident in 2 MB blocks of the page cache.
 * Lookups read what they need: the first address of every KSC_BLOCK-th symbol is
 * kept, a block of symbols is read (the last KSC_BLOCKS stay), and the names answered,
 * once each (they stay valid until ksymcache__close).
 */
#define KSC_BLOCK 256
#define KSC_BLOCKS 32		/* blocks kept (128 KB), each in the slot of its number modulo this */

struct ksc_name {		/* a name read, by its offset in the strings */
	uint32_t off;		/* UINT32_MAX: empty slot */
	char *s;
};

/*
 * The answers for the addresses asked lately, each in the slot its address hashes to:
 * a profile asks for the same few thousand kernel addresses again and again, and
 * each answer was two binary searches and, where the block had left, a read
 */
#define KSC_MEMO 4096

struct ksc_memo {
	uint64_t addr;
	struct ksym k;
	signed char r;		/* nearest()'s answer, 0 or 1; -1: an empty slot */
	bool covered;
};

struct ksc_lookup {		/* what lookups change */
	struct ksc_sym blk[KSC_BLOCKS][KSC_BLOCK];
	size_t blk_no[KSC_BLOCKS];	/* the block in blk[i], SIZE_MAX for none */
	struct ksc_memo memo[KSC_MEMO];
	struct ksc_name *names;
	size_t nnames, names_cap;
};

struct ksymcache {
	int fd;
	uint64_t syms_off;
	size_t n;
	uint64_t strs_off;
	uint32_t strs_len;
	uint64_t *top;		/* top[b]: the address of symbol b * KSC_BLOCK */
	struct ksc_lookup *lk;
	char *mods;		/* the modules it holds, "[name]\n"... (ksc_key's) */
};

static const char *env_or(const char *given, const char *var, const char *dflt)
{
	const char *e = var ? getenv(var) : NULL;

	return given ?: (e && *e ? e : dflt);
}

bool ksymcache__disabled(void)
{
	const char *e = getenv("SONDE_NO_KSYMCACHE");

	return e && *e && strcmp(e, "0");
}

/*
 * a 64-bit checksum of n bytes (Fletcher's, four lanes of 64-bit words: two
 * adds a word, which any changed word or swapped pair changes; not a
 * cryptographic one), mixed at the end
 */
struct ksc_sum {
	uint64_t a[4], b[4];
};

/* the whole 32-byte blocks of p (n bytes) into s: how many bytes that was */
static size_t sum_blocks(struct ksc_sum *s, const uint8_t *p, size_t n)
{
	uint64_t w;
	size_t i = 0;

	for (; i + 32 <= n; i += 32)
		for (int l = 0; l < 4; l++) {
			memcpy(&w, p + i + 8 * l, 8);
			s->a[l] += w;
			s->b[l] += s->a[l];
		}
	return i;
}

/* the sum of n bytes at buf; with release (buf in a mapping, base its start), the pages summed leave */
static uint64_t sum(const void *buf, size_t n, const void *base)
{
	const uint8_t *p = buf;
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	struct ksc_sum st = { { 1, 2, 3, 4 }, { 0 } };
	uint64_t *a = st.a, *b = st.b, h = n;
	size_t i = 0, released = 0;

	while (i + 32 <= n) {
		i += sum_blocks(&st, p + i, n - i < (1u << 20) ? n - i : (1u << 20));
		if (base) {
			size_t to = (size_t)(p + i - (const uint8_t *)base) & ~(size_t)4095;

			madvise((char *)base + released, to - released, MADV_DONTNEED);
			released = to;
		}
	}
	for (; i < n; i++) {
		a[0] += p[i];
		b[0] += a[0];
	}
	for (int l = 0; l < 4; l++) {
		h = (h ^ a[l]) * k;
		h ^= h >> 29;
		h = (h ^ b[l]) * k;
		h ^= h >> 29;
	}
	return h;
}

uint64_t ksymcache__sum(const void *buf, size_t n)
{
	return sum(buf, n, NULL);
}

/* set the header's size and checksum of a cache of size bytes */
void ksymcache__seal(void *buf, size_t size)
{
	struct ksc_header *h = buf;
	size_t after = offsetof(struct ksc_header, checksum) + sizeof(h->checksum);

	if (size < sizeof(*h))
		return;
	h->file_size = size;
	h->checksum = ksymcache__sum((char *)buf + after, size - after);
}

static int read_small(const char *path, char *buf, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return -errno;
	while (n < max && (r = read(fd, buf + n, max - n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		n += r;
	}
	close(fd);
	*len = n;
	return err ?: n == max ? -EFBIG : 0;
}

/*
 * What a cache is valid for, as text: "boot id\nrelease\n" and "name size
 * state address" for each module (/proc/modules without the use counts, which
 * change without moving anything). *mods gets the modules as "[name]\n"...,
 * kallsyms' spelling. -EPERM when the addresses are hidden.
 */
static int ksc_key(const struct ksymcache_env *e, char **key, size_t *keylen, char **mods)
{
	char boot[128], *text = NULL, *out = NULL, *names = NULL, *line, *save = NULL;
	size_t blen, tlen = 0, o = 0, no = 0;
	struct utsname u;
	int err;

	if ((err = read_small(env_or(e ? e->boot_id : NULL, "SONDE_TEST_KSYMCACHE_BOOT_ID",
				     "/proc/sys/kernel/random/boot_id"), boot, sizeof(boot) - 1, &blen)))
		return err;
	boot[blen] = 0;
	if (uname(&u))
		return -errno;
	text = malloc(1 << 20);
	if (!text)
		return -ENOMEM;
	err = read_small(env_or(e ? e->modules : NULL, "SONDE_TEST_KSYMCACHE_MODULES", "/proc/modules"),
			 text, (1 << 20) - 1, &tlen);
	if (err == -ENOENT)	/* a kernel without modules */
		tlen = err = 0;
	if (err)
		goto out;
	text[tlen] = 0;
	err = -ENOMEM;
	const char *release = e && e->release ? e->release : u.release;
	size_t cap = blen + strlen(release) + 2 * tlen + 400;	/* a line that does not fit: -EINVAL */
	int w;

	out = malloc(cap);
	names = malloc(cap);
	if (!out || !names)
		goto out;
	o = snprintf(out, cap, "%.*s\n%s\n", (int)strcspn(boot, "\n"), boot, release);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[256], state[32];
		unsigned long long size, addr;

		/* "name size uses deps state address [taints]" */
		if (sscanf(line, "%255s %llu %*s %*s %31s %llx", name, &size, state, &addr) != 4) {
			err = -EINVAL;
			goto out;
		}
		if (!addr) {		/* hidden from this user: the key would not see a module move */
			err = -EPERM;
			goto out;
		}
		w = snprintf(out + o, cap - o, "%s %llu %s %llx\n", name, size, state, addr);
		if (w < 0 || (size_t)w >= cap - o) {
			err = -EINVAL;
			goto out;
		}
		o += w;
		w = snprintf(names + no, cap - no, "[%s]\n", name);
		if (w < 0 || (size_t)w >= cap - no) {
			err = -EINVAL;
			goto out;
		}
		no += w;
	}
	names[no] = 0;
	*key = out;
	*keylen = o;
	*mods = names;
	out = names = NULL;
	err = 0;
out:
	free(text);
	free(out);
	free(names);
	return err;
}

/* does kallsyms show this user the addresses? Its first line says it */
static int kptr_visible(const struct ksymcache_env *e)
{
	char line[256];
	size_t n;
	int err = read_small(env_or(e ? e->kallsyms : NULL, NULL, "/proc/kallsyms"), line, sizeof(line), &n);

	if (err && err != -EFBIG)
		return err;
	line[n < sizeof(line) ? n : sizeof(line) - 1] = 0;
	return strtoull(line, NULL, 16) ? 0 : -EPERM;
}

/*
 * the cache's directory (made 0700 when missing and create); -EACCES when it
 * is not this user's
 */
static int ksc_dir(const struct ksymcache_env *e, char *dir, size_t len, bool create)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	struct passwd *pw;
	struct stat st;
	char base[4096];

	if (e && e->dir) {
		snprintf(dir, len, "%s", e->dir);
	} else {
		/* sudo keeps the user's HOME: root's cache is root's (/root/.cache), not a file in theirs */
		if (!home || *home != '/' || stat(home, &st) || st.st_uid != geteuid()) {
			pw = getpwuid(geteuid());
			home = pw ? pw->pw_dir : NULL;
			xdg = NULL;
		}
		if (xdg && *xdg == '/')
			snprintf(base, sizeof(base), "%s", xdg);
		else if (home)
			snprintf(base, sizeof(base), "%s/.cache", home);
		else
			return -ENOENT;
		if (create && mkdir(base, 0700) && errno != EEXIST)
			return -errno;
		if ((size_t)snprintf(dir, len, "%s/sonde", base) >= len)
			return -ENAMETOOLONG;
	}
	if (create && mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return -EACCES;
	if ((st.st_mode & 077) && chmod(dir, 0700))
		return -errno;
	return 0;
}

static bool in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/*
 * ksymcache__check; mapped: buf is a file's mapping, whose pages leave as soon as they are
 * checked. top (NULL or room for nsyms / KSC_BLOCK + 1): the address of every KSC_BLOCK-th symbol.
 */
static int check(const void *buf, size_t size, const char *key, size_t keylen, bool mapped, uint64_t **top)
{
	const struct ksc_header *h = buf;
	size_t after = offsetof(struct ksc_header, checksum) + sizeof(h->checksum);
	const struct ksc_sym *syms;
	const char *strs;

	if (size < sizeof(*h) || memcmp(h->magic, KSC_MAGIC, 8) || h->version != KSC_VERSION ||
	    h->hdr_size != sizeof(*h) || h->file_size != size)
		return -EINVAL;
	if (h->checksum != sum((const char *)buf + after, size - after, mapped ? buf : NULL))
		return -EBADMSG;
	/* the parts in their places, end to end: key, symbols (8-aligned), strings */
	if (h->key_off != sizeof(*h) || !in_file(h->key_off, h->key_len, size) ||
	    h->syms_off != ((h->key_off + h->key_len + 7) & ~7ULL) || h->nsyms > size / sizeof(*syms) ||
	    !in_file(h->syms_off, h->nsyms * sizeof(*syms), size) || h->strs_off != h->syms_off + h->nsyms * sizeof(*syms) ||
	    h->strs_len != size - h->strs_off || !h->strs_len || h->strs_len >= KSC_COVERED)
		return -EINVAL;
	if (h->key_len != keylen || memcmp((const char *)buf + h->key_off, key, keylen))
		return -ESTALE;
	syms = (const void *)((const char *)buf + h->syms_off);
	strs = (const char *)buf + h->strs_off;
	if (strs[h->strs_len - 1])
		return -EINVAL;
	if (top && !(*top = malloc((h->nsyms / KSC_BLOCK + 1) * sizeof(**top))))
		return -ENOMEM;
	for (size_t i = 0; i < h->nsyms; i++) {
		if (syms[i].name >= h->strs_len || (syms[i].module & ~KSC_COVERED) >= h->strs_len ||
		    (i && syms[i].addr < syms[i - 1].addr)) {
			if (top) {
				free(*top);
				*top = NULL;
			}
			return -EINVAL;
		}
		if (top && !(i % KSC_BLOCK))
			(*top)[i / KSC_BLOCK] = syms[i].addr;
		if (mapped && !(i & 0xffff))
			madvise((void *)buf, (size_t)((const char *)&syms[i] - (const char *)buf) & ~(size_t)4095,
				MADV_DONTNEED);
	}
	return 0;
}

int ksymcache__check(const void *buf, size_t size, const char *key, size_t keylen)
{
	return check(buf, size, key, keylen, false, NULL);
}

static int ksc_path(const struct ksymcache_env *e, char *path, size_t len, bool create)
{
	char dir[4096];
	int err = ksc_dir(e, dir, sizeof(dir), create);

	if (err)
		return err;
	return (size_t)snprintf(path, len, "%s/kallsyms.cache", dir) >= len ? -ENAMETOOLONG : 0;
}

int ksymcache__open(struct ksymcache **out, const struct ksymcache_env *e)
{
	struct ksymcache *c = NULL;
	char path[4200], *key = NULL, *mods = NULL;
	size_t keylen;
	struct stat st;
	void *map = MAP_FAILED;
	int fd = -1, err;

	if ((err = ksc_path(e, path, sizeof(path), false)))
		return err;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = -EINVAL;
	/* never one another user could have written, or could read */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) ||
	    (uint64_t)st.st_size < sizeof(struct ksc_header) || (uint64_t)st.st_size > KSC_MAX_SIZE)
		goto out;
	if ((err = kptr_visible(e)) || (err = ksc_key(e, &key, &keylen, &mods)))
		goto out;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		err = -errno;
		goto out;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->lk = calloc(1, sizeof(*c->lk)))) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = check(map, st.st_size, key, keylen, true, &c->top)))
		goto out;
	const struct ksc_header *h = map;

	c->fd = fd;
	c->syms_off = h->syms_off;
	c->n = h->nsyms;
	c->strs_off = h->strs_off;
	c->strs_len = h->strs_len;
	for (int i = 0; i < KSC_BLOCKS; i++)
		c->lk->blk_no[i] = SIZE_MAX;
	for (int i = 0; i < KSC_MEMO; i++)
		c->lk->memo[i].r = -1;
	c->mods = mods;
	mods = NULL;
	fd = -1;
	*out = c;
	c = NULL;
out:
	if (c)
		free(c->lk);
	free(c);
	if (map != MAP_FAILED)
		munmap(map, st.st_size);
	if (fd >= 0)
		close(fd);
	free(key);
	free(mods);
	return err;
}

/* a symbol that stays for the key's life: the kernel's own, or one of a module in /proc/modules */
static bool stays(const struct ksym *s, const char *mods)
{
	size_t l = strlen(s->module);

	if (!strcmp(s->module, "[kernel.kallsyms]"))
		return true;
	for (const char *p = mods; (p = strstr(p, s->module)); p += l)
		if ((p == mods || p[-1] == '\n') && p[l] == '\n')
			return true;
	return false;
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		buf += w;
		n -= w;
	}
	return 0;
}

/* the cache file's bytes from syms (a full table, by address) and the key */
static int ksc_build(const struct ksym *syms, size_t n, const char *key, size_t keylen, const char *mods,
		     char **out, size_t *outlen)
{
	struct ksc_header h = { .version = KSC_VERSION, .hdr_size = sizeof(h) };
	bool *keep = calloc(n ? n : 1, sizeof(*keep));
	const char *lastmod = NULL, *mstr[256];
	uint32_t moff[256];
	size_t nm = 0, nkeep = 0, strs = 0, size, k = 0;
	uint32_t mo = 0;
	bool last = false;
	char *buf;

	if (!keep)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (syms[i].module != lastmod) {	/* one test per run of one module's symbols */
			lastmod = syms[i].module;
			last = stays(&syms[i], mods);
		}
		if ((keep[i] = last)) {
			nkeep++;
			strs += strlen(syms[i].name) + 1 + strlen(syms[i].module) + 1;
		}
	}
	memcpy(h.magic, KSC_MAGIC, 8);
	h.key_off = sizeof(h);
	h.key_len = keylen;
	h.syms_off = (h.key_off + keylen + 7) & ~7ULL;
	h.nsyms = nkeep;
	h.strs_off = h.syms_off + nkeep * sizeof(struct ksc_sym);
	size = h.strs_off + strs;	/* at most: a module's name is there once */
	if (strs >= KSC_COVERED || size > KSC_MAX_SIZE || !(buf = calloc(1, size + 1))) {
		free(keep);
		return strs >= KSC_COVERED || size > KSC_MAX_SIZE ? -EFBIG : -ENOMEM;
	}
	memcpy(buf + h.key_off, key, keylen);
	struct ksc_sym *out_syms = (void *)(buf + h.syms_off);
	char *str = buf + h.strs_off;

	h.strs_len = 0;
	lastmod = NULL;
	for (size_t i = 0; i < n; i++) {
		size_t m;

		if (!keep[i])
			continue;
		if (syms[i].module != lastmod) {	/* each module's name once (while there are few) */
			lastmod = syms[i].module;
			for (m = 0; m < nm && strcmp(mstr[m], lastmod); m++)
				;
			if (m < nm) {
				mo = moff[m];
			} else {
				mo = h.strs_len;
				strcpy(str + mo, lastmod);
				h.strs_len += strlen(lastmod) + 1;
				if (nm < 256) {
					mstr[nm] = lastmod;
					moff[nm++] = mo;
				}
			}
		}
		out_syms[k].addr = syms[i].addr;
		out_syms[k].name = h.strs_len;
		out_syms[k].module = mo;
		strcpy(str + h.strs_len, syms[i].name);
		h.strs_len += strlen(syms[i].name) + 1;
		/* covered up to the next symbol when that one stays and is of the same module, nothing between */
		if (i + 1 < n && keep[i + 1] && !strcmp(syms[i].module, syms[i + 1].module))
			out_syms[k].module |= KSC_COVERED;
		k++;
	}
	if (!h.strs_len)	/* never empty: its last byte is a NUL */
		h.strs_len = 1;
	memcpy(buf, &h, sizeof(h));
	size = h.strs_off + h.strs_len;
	ksymcache__seal(buf, size);
	free(keep);
	*out = buf;
	*outlen = size;
	return 0;
}

int ksymcache__save(const struct ksym *syms, size_t n, const struct ksymcache_env *e)
{
	char path[4200], tmp[4300], *key = NULL, *mods = NULL, *buf = NULL;
	size_t keylen, size;
	int fd, err;

	if ((err = kptr_visible(e)) || (err = ksc_path(e, path, sizeof(path), true)) ||
	    (err = ksc_key(e, &key, &keylen, &mods)) || (err = ksc_build(syms, n, key, keylen, mods, &buf, &size)))
		goto out;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	if (fchmod(fd, 0600))
		err = -errno;
	err = err ?: write_all(fd, buf, size);
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
out:
	free(key);
	free(mods);
	free(buf);
	return err;
}

static bool read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	return n >= 0 && (size_t)n == len;
}

/* the name at off in the strings (checked: NUL-terminated before their end), read once; NULL on error */
static const char *name_at(const struct ksymcache *c, uint32_t off)
{
	struct ksc_lookup *lk = c->lk;
	size_t mask, i, len = 64;
	char *s = NULL;

	if ((lk->nnames + 1) * 2 > lk->names_cap) {
		size_t nc = lk->names_cap ? lk->names_cap * 2 : 256;
		struct ksc_name *n = malloc(nc * sizeof(*n));

		if (!n)
			return NULL;
		for (size_t k = 0; k < nc; k++)
			n[k].off = UINT32_MAX;
		for (size_t k = 0; k < lk->names_cap; k++) {
			size_t j;

			if (lk->names[k].off == UINT32_MAX)
				continue;
			for (j = (lk->names[k].off * 2654435761u) & (nc - 1); n[j].off != UINT32_MAX; j = (j + 1) & (nc - 1))
				;
			n[j] = lk->names[k];
		}
		free(lk->names);
		lk->names = n;
		lk->names_cap = nc;
	}
	mask = lk->names_cap - 1;
	for (i = (off * 2654435761u) & mask; lk->names[i].off != UINT32_MAX; i = (i + 1) & mask)
		if (lk->names[i].off == off)
			return lk->names[i].s;
	for (;;) {	/* longer until its NUL is in */
		char *n;

		if (len > c->strs_len - off)
			len = c->strs_len - off;
		n = realloc(s, len);
		if (!n || !read_at(c->fd, n, len, c->strs_off + off)) {
			free(n ? n : s);
			return NULL;
		}
		s = n;
		if (memchr(s, 0, len))
			break;
		if (len == c->strs_len - off) {	/* changed since the check */
			free(s);
			return NULL;
		}
		len *= 2;
	}
	lk->names[i] = (struct ksc_name){ .off = off, .s = s };
	lk->nnames++;
	return s;
}

/* the symbol at or before addr (its covered bit in *covered): 1, 0 for none, -EIO */
static int nearest_read(const struct ksymcache *c, uint64_t addr, struct ksym *out, bool *covered)
{
	struct ksc_lookup *lk = c->lk;
	size_t nblk = (c->n + KSC_BLOCK - 1) / KSC_BLOCK, b, i, cnt;
	const struct ksc_sym *s, *blk;

	/* the last block that starts at or before addr, then the last symbol there at or before it */
	b = sym__upper_bound(c->top, nblk, sizeof(*c->top), 0, addr);
	if (!b)
		return 0;
	b--;
	cnt = c->n - b * KSC_BLOCK < KSC_BLOCK ? c->n - b * KSC_BLOCK : KSC_BLOCK;
	blk = lk->blk[b % KSC_BLOCKS];
	if (lk->blk_no[b % KSC_BLOCKS] != b) {
		lk->blk_no[b % KSC_BLOCKS] = SIZE_MAX;
		if (!read_at(c->fd, lk->blk[b % KSC_BLOCKS], cnt * sizeof(*blk), c->syms_off + b * KSC_BLOCK * sizeof(*blk)))
			return -EIO;
		lk->blk_no[b % KSC_BLOCKS] = b;
	}
	i = sym__upper_bound(blk, cnt, sizeof(*blk), offsetof(struct ksc_sym, addr), addr);
	if (!i)
		return 0;
	s = &blk[i - 1];
	/* read again since the check: the same file (renamed over, never rewritten), but it is input */
	if (s->name >= c->strs_len || (s->module & ~KSC_COVERED) >= c->strs_len)
		return -EIO;
	*covered = s->module & KSC_COVERED;
	out->addr = s->addr;
	out->name = name_at(c, s->name);
	out->module = name_at(c, s->module & ~KSC_COVERED);
	return out->name && out->module ? 1 : -EIO;
}

/* the symbol at or before addr (1), none (0), or -EIO; *covered: the cache names it */
static int nearest(const struct ksymcache *c, uint64_t addr, struct ksym *out, bool *covered)
{
	struct ksc_memo *m = &c->lk->memo[(addr * 0x9e3779b97f4a7c15ULL) >> (64 - 12)];
	int r;

	_Static_assert(KSC_MEMO == 1 << 12, "the memo's slot is the hash's top 12 bits");
	if (m->r >= 0 && m->addr == addr) {
		*out = m->k;
		*covered = m->covered;
		return m->r;
	}
	*covered = false;
	r = nearest_read(c, addr, out, covered);
	if (r >= 0) {
		m->addr = addr;
		m->r = (signed char)r;
		m->covered = *covered;
		if (r)
			m->k = *out;
	}
	return r;
}

int ksymcache__find(const struct ksymcache *c, uint64_t addr, struct ksym *out)
{
	bool covered = false;
	int r = nearest(c, addr, out, &covered);

	if (r <= 0 || !covered)
		return r < 0 ? r : -ENOENT;
	return kallsyms__names(out, addr);
}

static bool other(const char *module, void *c)
{
	return !stays(&(struct ksym){ .module = module }, ((const struct ksymcache *)c)->mods);
}

int ksymcache__load_others(const struct ksymcache *c, const char *path, struct kallsyms **out)
{
	return kallsyms__load_some(out, path, other, (void *)c);
}

/*
 * The full table is the cache's symbols (all that stay, the key says they still do) and
 * the others: its nearest symbol is the later of their two. Of one address, the other's:
 * /proc/kallsyms lists BPF programs and trampolines after the kernel and its modules, and
 * the table keeps that order among equal addresses.
 */
const struct ksym *ksymcache__find_full(const struct ksymcache *c, const struct kallsyms *others, uint64_t addr,
					struct ksym *buf)
{
	const struct ksym *o = kallsyms__nearest(others, addr), *k = o;
	bool covered;
	int r = nearest(c, addr, buf, &covered);

	if (r < 0)
		return NULL;
	if (r == 1 && (!o || buf->addr > o->addr))
		k = buf;
	return k && kallsyms__names(k, addr) ? k : NULL;
}

void ksymcache__close(struct ksymcache *c)
{
	if (!c)
		return;
	close(c->fd);
	for (size_t i = 0; i < c->lk->names_cap; i++)
		if (c->lk->names[i].off != UINT32_MAX)
			free(c->lk->names[i].s);
	free(c->lk->names);
	free(c->lk);
	free(c->top);
	free(c->mods);
	free(c);
}
