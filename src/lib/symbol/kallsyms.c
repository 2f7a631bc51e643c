// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms.c - kernel symbols from /proc/kallsyms (text symbols of the kernel
 * and of loaded modules), sorted for binary search. With kptr_restrict hiding
 * the addresses (all zero) loading fails with -EPERM.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/symbol/symbol_int.h"

struct kallsyms {
	struct ksym *syms;
	size_t n;
	char **strs;		/* every name and module string, owned */
	size_t nstrs;
};

/*
 * A stable merge sort by address: symbols at one address keep the kernel's
 * order, with or without BPF programs and modules among them, which
 * ksymcache.c's answers rely on (qsort promises no order for equal keys).
 */
static int ksym_sort(struct ksym *a, size_t n)
{
	struct ksym *tmp = malloc(n * sizeof(*tmp)), *src = a, *dst = tmp;

	if (!tmp)
		return -ENOMEM;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, o = lo;

			while (i < mid && j < hi)
				dst[o++] = src[j].addr < src[i].addr ? src[j++] : src[i++];
			while (i < mid)
				dst[o++] = src[i++];
			while (j < hi)
				dst[o++] = src[j++];
		}
		struct ksym *t = src;

		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(tmp);
	return 0;
}

static const char *keep(struct kallsyms *k, size_t *cap, const char *str)
{
	char *dup;

	if (k->nstrs == *cap) {
		size_t nc = *cap ? *cap * 2 : 4096;
		char **ns = realloc(k->strs, nc * sizeof(*ns));

		if (!ns)
			return NULL;
		k->strs = ns;
		*cap = nc;
	}
	dup = strdup(str);
	if (dup)
		k->strs[k->nstrs++] = dup;
	return dup;
}

int kallsyms__load(struct kallsyms **out, const char *path)
{
	return kallsyms__load_some(out, path, NULL, NULL);
}

int kallsyms__load_some(struct kallsyms **out, const char *path, bool (*want)(const char *module, void *arg),
			void *arg)
{
	struct kallsyms *k = calloc(1, sizeof(*k));
	size_t cap = 0, scap = 0, zero = 0, seen = 0;
	bool want_mod = true;
	const char *kernel, *module = NULL;
	char line[1024], lastmod[256] = "";
	FILE *f;
	int err = 0;

	if (!k)
		return -ENOMEM;
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		free(k);
		return err;
	}
	kernel = keep(k, &scap, "[kernel.kallsyms]");
	while (kernel && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, *name, *mod = NULL, *p, *e;
		int n;

		/* "ADDR TYPE NAME\t[MODULE]": parsed by hand, sscanf made loading slow */
		addr = strtoull(line, &e, 16);
		if (e == line || *e != ' ')
			continue;
		type = e[1];
		if (!type || e[2] != ' ' || !strchr("tTwW", type))
			continue;
		name = e + 3;
		p = name + strcspn(name, " \t\n");
		if (p == name)
			continue;
		n = 3;
		if (*p && *p != '\n') {
			*p++ = 0;
			p += strspn(p, " \t");
			if (*p == '[' && (e = strchr(p, ']'))) {
				*e = 0;
				mod = p + 1;
				n = 4;
			}
		} else {
			*p = 0;
		}
		if (!addr) {
			zero++;
			continue;
		}
		seen++;
		if (k->n == cap) {
			size_t nc = cap ? cap * 2 : 65536;
			struct ksym *ns = realloc(k->syms, nc * sizeof(*ns));

			if (!ns) {
				err = -ENOMEM;
				break;
			}
			k->syms = ns;
			cap = nc;
		}
		if (n == 4) {
			if (strcmp(mod, lastmod)) {
				char br[260];

				snprintf(br, sizeof(br), "[%s]", mod);
				want_mod = !want || want(br, arg);
				module = want_mod ? keep(k, &scap, br) : kernel;
				snprintf(lastmod, sizeof(lastmod), "%s", mod);
			}
			if (!want_mod)
				continue;
		} else if (want && !want("[kernel.kallsyms]", arg)) {
			continue;
		}
		k->syms[k->n].addr = addr;
		k->syms[k->n].name = keep(k, &scap, name);
		k->syms[k->n].module = n == 4 ? module : kernel;
		if (!k->syms[k->n].name || !k->syms[k->n].module) {
			err = -ENOMEM;
			break;
		}
		k->n++;
	}
	fclose(f);
	if (!kernel)
		err = -ENOMEM;
	if (!err && !seen)
		err = zero ? -EPERM : -ENOENT;	/* kernel.kptr_restrict hides the addresses */
	if (err) {
		kallsyms__free(k);
		return err;
	}
	size_t i = 1;

	while (i < k->n && k->syms[i - 1].addr <= k->syms[i].addr)
		i++;
	/* the kernel lists its own symbols in order: sorting them was 8% of a report */
	if (i < k->n && (err = ksym_sort(k->syms, k->n))) {
		kallsyms__free(k);
		return err;
	}
	*out = k;
	return 0;
}

/*
 * Whether addr, at or past s (its nearest symbol), is named after s. Far past a
 * symbol means unknown (no function is a megabyte long), and so does anything
 * past the kernel text's end markers: there lie the BPF programs and modules
 * that came and went, and naming their code after _einittext (as a
 * nearest-symbol lookup did) made up frames perf does not show.
 */
bool kallsyms__names(const struct ksym *s, uint64_t addr)
{
	return addr - s->addr <= (1 << 20) && strcmp(s->name, "_etext") && strcmp(s->name, "_einittext") &&
	       strcmp(s->name, "_end") && strcmp(s->name, "__init_end");
}

const struct ksym *kallsyms__nearest(const struct kallsyms *k, uint64_t addr)
{
	size_t lo = sym__upper_bound(k->syms, k->n, sizeof(*k->syms), offsetof(struct ksym, addr), addr);

	return lo ? &k->syms[lo - 1] : NULL;
}

const struct ksym *kallsyms__find(const struct kallsyms *k, uint64_t addr)
{
	size_t lo = sym__upper_bound(k->syms, k->n, sizeof(*k->syms), offsetof(struct ksym, addr), addr);

	if (!lo || !kallsyms__names(&k->syms[lo - 1], addr))
		return NULL;
	return &k->syms[lo - 1];
}

const struct ksym *kallsyms__syms(const struct kallsyms *k, size_t *n)
{
	*n = k->n;
	return k->syms;
}

/* the running kernel's build id, from the GNU note in /sys/kernel/notes; returns its length or -errno */
int kallsyms__running_build_id(uint8_t *out, size_t max)
{
	uint8_t buf[4096];
	size_t n, off = 0;
	FILE *f = fopen("/sys/kernel/notes", "re");

	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* notes: namesz, descsz, type (4 bytes each), then name and desc, each padded to 4 */
	while (off + 12 <= n) {
		uint32_t namesz, descsz, type;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		size_t name = off + 12, desc = name + ((namesz + 3) & ~3U), next = desc + ((descsz + 3) & ~3U);

		if (namesz > n || descsz > n || next > n)
			break;
		if (type == 3 && namesz == 4 && !memcmp(buf + name, "GNU", 4) && descsz <= max) {	/* NT_GNU_BUILD_ID */
			memcpy(out, buf + desc, descsz);
			return descsz;
		}
		off = next;
	}
	return -ENOENT;
}

void kallsyms__free(struct kallsyms *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->nstrs; i++)
		free(k->strs[i]);
	free(k->strs);
	free(k->syms);
	free(k);
}
