// SPDX-License-Identifier: GPL-2.0
/* debugfile.c - finding a binary's separate debug file; see debugfile.h */
#include "lib/symbol/debugfile.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define NT_GNU_BUILD_ID_TYPE 3

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

size_t debugfile__note_build_id(const void *buf, size_t n, uint8_t *id, size_t max)
{
	const uint8_t *p = buf;
	size_t at = 0;

	/* notes: namesz, descsz, type, name (padded to 4), desc (padded to 4) */
	while (n >= 12 && at <= n - 12) {
		uint32_t namesz = rd32(p + at), descsz = rd32(p + at + 4), type = rd32(p + at + 8);
		size_t name_at = at + 12, npad = ((size_t)namesz + 3) & ~(size_t)3;
		size_t dpad = ((size_t)descsz + 3) & ~(size_t)3;

		if (npad > n - name_at || dpad > n - name_at - npad)
			return 0;
		size_t desc_at = name_at + npad;

		if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 && !memcmp(p + name_at, "GNU", 4) && descsz > 0 &&
		    descsz <= max) {
			memcpy(id, p + desc_at, descsz);
			return descsz;
		}
		at = desc_at + dpad;
	}
	return 0;
}

int debugfile__parse_debuglink(const void *buf, size_t n, char *name, size_t len, uint32_t *crc)
{
	const char *s = buf;
	const char *z = memchr(s, 0, n);
	size_t l, crc_at;

	if (!z || z == s)
		return -EINVAL;
	l = z - s;
	crc_at = (l + 1 + 3) & ~(size_t)3;
	if (crc_at + 4 > n || l + 1 > len || memchr(s, '/', l))
		return -EINVAL;
	memcpy(name, s, l + 1);
	*crc = rd32((const uint8_t *)buf + crc_at);
	return 0;
}

static const char *debug_dir(void)
{
	const char *d = getenv("SONDE_DEBUG_DIR");

	return d && *d ? d : "/usr/lib/debug";
}

static bool is_file(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode);
}

static bool crc_matches(const char *path, uint32_t want)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char buf[65536];
	uLong c = crc32(0, Z_NULL, 0);
	ssize_t n;

	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		c = crc32(c, buf, (uInt)n);
	close(fd);
	return n == 0 && (uint32_t)c == want;
}

/* the bytes of the first section of type `type` (and name, when given) */
static Elf_Data *section(Elf *e, int type, const char *want)
{
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		const char *nm;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != (unsigned)type)
			continue;
		if (want && (!(nm = elf_strptr(e, shstrndx, sh.sh_name)) || strcmp(nm, want)))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);

		if (d && d->d_buf && d->d_size)
			return d;
	}
	return NULL;
}

static int by_build_id(Elf *e, char *out, size_t len)
{
	size_t shstrndx;
	uint8_t id[64];
	size_t n = 0;

	if (elf_getshdrstrndx(e, &shstrndx))
		return -ENOENT;
	for (Elf_Scn *scn = NULL; !n && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		n = debugfile__note_build_id(d->d_buf, d->d_size, id, sizeof(id));
	}
	if (n < 2)
		return -ENOENT;
	int at = snprintf(out, len, "%s/.build-id/%02x/", debug_dir(), id[0]);

	for (size_t i = 1; i < n && at > 0 && (size_t)at + 3 < len; i++)
		at += snprintf(out + at, len - at, "%02x", id[i]);
	if (at <= 0 || (size_t)at + 7 >= len)
		return -ENOENT;
	snprintf(out + at, len - at, ".debug");
	return is_file(out) ? 0 : -ENOENT;
}

static int by_debuglink(Elf *e, const char *path, char *out, size_t len)
{
	Elf_Data *d = section(e, SHT_PROGBITS, ".gnu_debuglink");
	char name[256], dir[4096], real[4096];
	uint32_t crc;

	if (!d || debugfile__parse_debuglink(d->d_buf, d->d_size, name, sizeof(name), &crc))
		return -ENOENT;
	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	snprintf(dir, sizeof(dir), "%s", real);
	char *slash = strrchr(dir, '/');

	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	const char *fmts[] = { "%s/%s", "%s/.debug/%s", NULL };

	for (int i = 0; fmts[i]; i++) {
		snprintf(out, len, fmts[i], dir, name);
		if (strcmp(out, real) && is_file(out) && crc_matches(out, crc))
			return 0;
	}
	snprintf(out, len, "%s%s/%s", debug_dir(), dir, name);
	return is_file(out) && crc_matches(out, crc) ? 0 : -ENOENT;
}

int debugfile__find(Elf *e, const char *path, char *out, size_t len)
{
	if (!by_build_id(e, out, len))
		return 0;
	return by_debuglink(e, path, out, len);
}

/* does path exist? dir + sub + name, any of them empty */
static bool exists3(const char *dir, const char *sub, const char *name)
{
	char p[4096];

	if ((size_t)snprintf(p, sizeof(p), "%s%s%s%s%s", dir, *dir && *sub ? "/" : "", sub,
			     *dir || *sub ? "/" : "", name) >= sizeof(p))
		return true;	/* cannot tell: let libdwfl look */
	return !access(p, F_OK);
}

/*
 * could libdwfl's local search (dwfl_standard_find_debuginfo before its last
 * step) find a debug file? A superset of the places it looks: by build id under
 * each absolute directory of the path, by the debuglink name (else FILE.debug)
 * beside the file, in its relative directories and under the absolute ones
 * (for a name without a directory, as "[vdso]": under each directory and
 * here), for the file's name and its real path
 */
static bool local_debuginfo_may_exist(Dwfl_Module *mod, const char *path, const char *file_name,
				      const char *link)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	char own[4096], real[4096], hex[2 * 64 + 1], idname[2 * 64 + 16];
	const char *files[2] = { file_name, realpath(file_name, real) };
	int n = dwfl_module_build_id(mod, &id, &vaddr);

	if (n > 64 || (link && strchr(link, '/')))	/* an alternate (dwz) file: libdwfl's own way */
		return true;
	for (int i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	if (n > 1)
		snprintf(idname, sizeof(idname), "%.2s/%s.debug", hex, hex + 2);
	if (!link) {
		const char *b = strrchr(file_name, '/');

		snprintf(own, sizeof(own), "%s.debug", b ? b + 1 : file_name);
		link = own;
	}
	for (const char *d = path; *d;) {
		size_t len = strcspn(d, ":");
		char dir[4096];

		snprintf(dir, sizeof(dir), "%.*s", (int)len, d);
		d += len + (d[len] == ':');
		memmove(dir, dir + strspn(dir, "+-"), strlen(dir + strspn(dir, "+-")) + 1);
		if (*dir == '/' && n > 1 && exists3(dir, ".build-id", idname))
			return true;
		for (int f = 0; f < 2; f++) {
			char fdir[4096] = "";
			const char *slash;

			if (!files[f])
				continue;
			if ((slash = strrchr(files[f], '/')))	/* else a name alone ("[vdso]"): "" */
				snprintf(fdir, sizeof(fdir), "%.*s", (int)(slash - files[f]), files[f]);
			if (*dir == '/' ? exists3(dir, fdir + (*fdir == '/'), link) || exists3(dir, "", link)
					: exists3(fdir, dir, link))
				return true;
		}
	}
	return false;
}

int debugfile__find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			      const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			      char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char **path = userdata ? *userdata : NULL;

	if ((urls && *urls) || !path || !file_name ||
	    local_debuginfo_may_exist(mod, *path ? *path : ":.debug:/usr/lib/debug", file_name, debuglink_file))
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
						    debuglink_crc, debuginfo_file_name);
	errno = ENOENT;
	return -1;
}
