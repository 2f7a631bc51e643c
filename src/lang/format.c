// SPDX-License-Identifier: GPL-2.0
/*
 * format.c - the values the language's functions leave for user space to
 * format, as bpftrace prints them: buf() with \xNN escapes, ntop() through
 * inet_ntop, strftime() from boot-based nanoseconds, cgroup_path() by
 * matching inode numbers under the cgroup mounts, strerror(), disk_name()
 * from /sys/dev/block. Histogram labels are ui/hist.c's.
 */
#include "lang/output.h"
#include "lib/util.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

/* ---- buf ---- */
void fmt__buf(FILE *f, const struct type *t, const uint8_t *d, char mode)
{
	uint64_t len = *(const uint64_t *)d;

	if (len > (uint64_t)t->size - 8)
		len = t->size - 8;
	for (uint64_t i = 0; i < len; i++) {
		uint8_t c = d[8 + i];

		if (mode == 'h')
			fprintf(f, "%s%02x", i ? " " : "", c);
		else if (c >= 32 && c <= 126 && mode != 'x')
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
}

/* ---- ntop ---- */
static void inet_text(FILE *f, const uint8_t *d)
{
	uint64_t af = *(const uint64_t *)d;
	char s[INET6_ADDRSTRLEN];

	if ((af == AF_INET || af == AF_INET6) && inet_ntop((int)af, d + 8, s, sizeof(s)))
		fputs(s, f);
}

/* ---- meminfo ---- */

/* the field's number in /proc/meminfo ("Cached:  2679180 kB"), -1 when there is none */
long long fmt__meminfo(const char *field)
{
	FILE *f = fopen("/proc/meminfo", "r");
	size_t len = strlen(field);
	char line[256];
	long long v = -1;

	if (!f)
		return -1;
	while (v < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':')
			v = strtoll(line + len + 1, NULL, 10);
	fclose(f);
	return v;
}

/* ---- strftime ---- */
/*
 * CLOCK_REALTIME at boot: REALTIME - BOOTTIME, read between two REALTIME reads
 * (their midpoint); the closest of five tries. bpftrace 0.17's nsecs is
 * bpf_ktime_get_boot_ns, so a timestamp is this plus nsecs.
 */
static struct timespec boot_realtime(void)
{
	static struct timespec base;
	static bool done;
	long best = -1;

	if (done)
		return base;
	for (int i = 0; i < 5; i++) {
		struct timespec a, b, boot;

		if (clock_gettime(CLOCK_REALTIME, &a) || clock_gettime(CLOCK_BOOTTIME, &boot) ||
		    clock_gettime(CLOCK_REALTIME, &b) || a.tv_sec != b.tv_sec)
			continue;
		long spread = b.tv_nsec - a.tv_nsec, mid = a.tv_nsec + spread / 2;

		if (best >= 0 && spread >= best)
			continue;
		best = spread;
		base.tv_sec = b.tv_sec - boot.tv_sec;
		base.tv_nsec = mid - boot.tv_nsec;
		if (base.tv_nsec < 0) {
			base.tv_sec--;
			base.tv_nsec += 1000000000L;
		}
	}
	done = true;
	return base;
}

struct timespec fmt__boot_realtime(void)
{
	return boot_realtime();
}

/* strftime(fmt, nsecs): the C library's strftime plus %f (microseconds), "(?)" when it fails */
char *fmt__strftime(const char *fmt, uint64_t nsecs, int max)
{
	struct timespec base = boot_realtime();
	uint64_t ns = (uint64_t)base.tv_nsec + nsecs;
	/* as bpftrace computes it: whole seconds through a double */
	time_t t = (time_t)((double)base.tv_sec + (double)ns / 1e9);
	char us[16], *f2, *out;
	size_t n = strlen(fmt), k = 0;
	struct tm tm;

	snprintf(us, sizeof(us), "%06llu", (unsigned long long)((ns % 1000000000ULL) / 1000));
	f2 = malloc(n * 4 + 1);
	out = malloc(max > 4 ? (size_t)max : 4);	/* room for "(?)" however small max_strlen is */
	if (!f2 || !out) {
		free(f2);
		free(out);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (fmt[i] == '%' && fmt[i + 1] == 'f') {
			memcpy(f2 + k, us, 6);
			k += 6;
			i++;
		} else {
			f2[k++] = fmt[i];
		}
	}
	f2[k] = 0;
	if (!localtime_r(&t, &tm) || max <= 0 || !strftime(out, (size_t)max, f2, &tm))
		snprintf(out, 4, "(?)");
	free(f2);
	return out;
}

/* ---- cgroup_path ---- */
static bool star_match(const char *pat, const char *s)
{
	if (!*pat)
		return !*s;
	if (*pat == '*') {
		for (;; s++) {
			if (star_match(pat + 1, s))
				return true;
			if (!*s)
				return false;
		}
	}
	return *pat == *s && star_match(pat + 1, s + 1);
}

/* the directory under dir whose inode is ino: its path after base, into out */
static bool find_ino(const char *dir, size_t baselen, uint64_t ino, char *out, size_t outlen, int depth)
{
	DIR *d = depth < 64 ? opendir(dir) : NULL;
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char path[4096];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path) || lstat(path, &st) ||
		    !S_ISDIR(st.st_mode))
			continue;
		if ((uint64_t)st.st_ino == ino) {
			snprintf(out, outlen, "%s", path + baselen);
			found = true;
		} else {
			found = find_ino(path, baselen, ino, out, outlen, depth + 1);
		}
	}
	closedir(d);
	return found;
}

struct cg_root {
	char name[256];
	char path[4096];
};

static int cmp_root(const void *a, const void *b)
{
	const struct cg_root *x = a, *y = b;
	bool ux = !strcmp(x->name, "unified"), uy = !strcmp(y->name, "unified");

	if (ux != uy)
		return ux ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * "unified:/a/b,cpu:/a" as bpftrace prints it: each cgroup mount of /proc/mounts
 * (v2 named "unified", v1 by its mount point's last component) whose name
 * matches the filter, with the directory whose inode is the id; unified first.
 */
char *fmt__cgroup_path(uint64_t id, const char *filter)
{
	FILE *m = fopen("/proc/mounts", "re");
	struct cg_root *roots = NULL;
	int n = 0;
	char line[8192], *buf = NULL;
	size_t blen = 0;
	FILE *f;

	while (m && fgets(line, sizeof(line), m)) {
		char src[64], mnt[4096];
		struct cg_root *r;

		if (sscanf(line, "%63s %4095s", src, mnt) != 2 || (strcmp(src, "cgroup") && strcmp(src, "cgroup2")))
			continue;
		r = realloc(roots, (n + 1) * sizeof(*r));
		if (!r)
			break;
		roots = r;
		const char *slash = strrchr(mnt, '/');

		snprintf(roots[n].name, sizeof(roots[n].name), "%s", !strcmp(src, "cgroup2") ? "unified" :
			 slash ? slash + 1 : mnt);
		snprintf(roots[n].path, sizeof(roots[n].path), "%s", mnt);
		if (star_match(filter ? filter : "*", roots[n].name))
			n++;
	}
	if (m)
		fclose(m);
	if (n)
		qsort(roots, n, sizeof(*roots), cmp_root);
	f = open_memstream(&buf, &blen);
	if (!f) {
		free(roots);
		return NULL;
	}
	bool first = true;

	for (int i = 0; i < n; i++) {
		char rel[4096];
		struct stat st;

		rel[0] = 0;
		if (!stat(roots[i].path, &st) && (uint64_t)st.st_ino == id)
			snprintf(rel, sizeof(rel), "/");
		else if (!find_ino(roots[i].path, strlen(roots[i].path), id, rel, sizeof(rel), 0))
			continue;
		fprintf(f, "%s%s:%s", first ? "" : ",", roots[i].name, rel);
		first = false;
	}
	fclose(f);
	free(roots);
	return buf;
}

/* ---- fdiv ---- */
double fmt__fdiv(const struct type *t, const uint8_t *d)
{
	int64_t a, b;

	memcpy(&a, d, 8);
	memcpy(&b, d + 8, 8);
	if (t->sign)
		return (double)a / (double)b;
	return (double)(uint64_t)a / (double)(uint64_t)b;
}

/* ---- disk_name ---- */
/* the block device dev (the kernel's major << 20 | minor) by its DEVNAME in sysfs, "Unknown" as BCC's tools say */
static void disk_text(FILE *f, uint64_t dev)
{
	char path[64], *text = NULL, *name;
	size_t len = 0;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", (unsigned)(dev >> 20) & 0xfff,
		 (unsigned)dev & 0xfffff);
	if (util__read_file(path, 4096, &text, &len) < 0 || !(name = strstr(text, "DEVNAME=")) ||
	    (name != text && name[-1] != '\n')) {
		fputs("Unknown", f);
		free(text);
		return;
	}
	name += 8;
	fprintf(f, "%.*s", (int)strcspn(name, "\n"), name);
	free(text);
}

/* ---- the values ---- */
bool fmt__value(struct out *o, FILE *f, const struct type *t, const uint8_t *d)
{
	const struct program *p = o->prog;
	uint64_t site;
	char *s;

	switch (t->kind) {
	case TY_BUF:
		fmt__buf(f, t, d, 0);
		return true;
	case TY_INET:
		inet_text(f, d);
		return true;
	case TY_ARRAY: {	/* [1,2,3]: each element as its integer type prints */
		int eb = t->bits ? t->bits / 8 : 1;

		fputc('[', f);
		for (int i = 0; i < t->ntup && (i + 1) * eb <= t->size; i++) {
			uint64_t u = 0;

			memcpy(&u, d + i * eb, eb);	/* little-endian, as BPF stored it */
			if (t->sign && eb < 8 && (u >> (eb * 8 - 1)) & 1)
				u |= ~0ULL << (eb * 8);
			if (t->sign)
				fprintf(f, "%s%lld", i ? "," : "", (long long)u);
			else
				fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)u);
		}
		fputc(']', f);
		return true;
	}
	case TY_MACADDR:
		fprintf(f, "%02X:%02X:%02X:%02X:%02X:%02X", d[0], d[1], d[2], d[3], d[4], d[5]);
		return true;
	case TY_STRERROR:
		fputs(strerror((int)*(const int64_t *)d), f);
		return true;
	case TY_SIGNAME: {	/* upstream's table is strsignal()'s names of 0 to 64, "N/A" past them */
		int64_t sig = *(const int64_t *)d;

		fputs(sig >= 0 && sig <= 64 ? strsignal((int)sig) : "N/A", f);
		return true;
	}
	case TY_USERNAME: {	/* the uid's name, as the machine running sonde knows it */
		struct passwd *pw = getpwuid((uid_t)*(const uint64_t *)d);

		if (pw)
			fputs(pw->pw_name, f);
		else
			fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)d);
		return true;
	}
	case TY_FDIV:
		fprintf(f, "%g", fmt__fdiv(t, d));
		return true;
	case TY_DISKNAME:
		disk_text(f, *(const uint64_t *)d);
		return true;
	case TY_PCTL:	/* percentile(@h, q): the map read now */
		site = *(const uint64_t *)d;
		if (!p || site >= (uint64_t)p->nsites || !p->sites[site]->map)
			return true;
		out__percentile(o, f, p->sites[site]->map, p->sites[site]->div / 1000.0);
		return true;
	case TY_MEMINFO:
		site = *(const uint64_t *)d;
		if (!p || site >= (uint64_t)p->nsites)
			return true;
		fprintf(f, "%lld", fmt__meminfo(p->sites[site]->fmt) / (p->sites[site]->div > 0 ? p->sites[site]->div : 1));
		return true;
	case TY_TIMESTAMP:
		site = *(const uint64_t *)d;
		if (!p || site >= (uint64_t)p->nsites || !p->sites[site]->fmt)
			return true;
		s = fmt__strftime(p->sites[site]->fmt, *(const uint64_t *)(d + 8), p->cfg.max_strlen);
		fputs(s ? s : "(?)", f);
		free(s);
		return true;
	case TY_CGPATH:
		site = *(const uint64_t *)(d + 8);
		if (!p || site >= (uint64_t)p->nsites)
			return true;
		s = fmt__cgroup_path(*(const uint64_t *)d, p->sites[site]->fmt);
		fputs(s ? s : "", f);
		free(s);
		return true;
	default:
		return false;
	}
}
