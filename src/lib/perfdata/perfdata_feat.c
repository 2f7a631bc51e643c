// SPDX-License-Identifier: GPL-2.0
/*
 * perfdata_feat.c - what the feature sections of a perf.data file hold about the
 * machine that recorded it: uname strings, CPUs, memory, the tracefs formats of
 * the recorded tracepoints, and the GNU build ids of the mapped files. The layouts
 * follow tools/perf/Documentation/perf.data-file-format.txt.
 */
#include "lib/perfdata/perfdata_int.h"
#include "lib/perfdata/perfdata.h"
#include "lib/tracefs/tracefs.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

void pd_buf__add(struct pd_buf *b, const void *data, size_t len)
{
	if (b->err)
		return;
	if (b->len + len > b->alloc) {
		size_t n = b->alloc ? b->alloc : 256;
		uint8_t *p;

		while (n < b->len + len)
			n *= 2;
		p = realloc(b->p, n);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->alloc = n;
	}
	if (data)
		memcpy(b->p + b->len, data, len);
	else
		memset(b->p + b->len, 0, len);
	b->len += len;
}

void pd_buf__u32(struct pd_buf *b, uint32_t v) { pd_buf__add(b, &v, 4); }
void pd_buf__u64(struct pd_buf *b, uint64_t v) { pd_buf__add(b, &v, 8); }

void pd_buf__string(struct pd_buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + PERFDATA_NAME_ALIGN - 1) / PERFDATA_NAME_ALIGN * PERFDATA_NAME_ALIGN;

	pd_buf__u32(b, (uint32_t)padded);
	pd_buf__add(b, s, n);
	pd_buf__add(b, NULL, padded - n);
}

void pd_buf__free(struct pd_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

size_t pd_id_hdr_size(uint64_t st)
{
	size_t n = 0;

	n += !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID);
	n += !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER);
	return n * 8;
}

void pd_feat__uname(struct pd_buf *b, int feat)
{
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	pd_buf__string(b, feat == PERFDATA_FEAT_HOSTNAME ? u.nodename :
			  feat == PERFDATA_FEAT_OSRELEASE ? u.release : u.machine);
}

void pd_feat__nrcpus(struct pd_buf *b)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF), onln = sysconf(_SC_NPROCESSORS_ONLN);

	pd_buf__u32(b, conf > 0 ? (uint32_t)conf : 1);
	pd_buf__u32(b, onln > 0 ? (uint32_t)onln : 1);
}

/* the first value of a "key : value" line of a /proc file, or "" */
static void proc_field(const char *file, const char *key, char *out, size_t len)
{
	FILE *f = fopen(file, "re");
	char line[512];
	size_t kl = strlen(key);

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v;

		if (strncmp(line, key, kl) || (line[kl] != ' ' && line[kl] != '\t' && line[kl] != ':'))
			continue;
		v = strchr(line, ':');
		if (!v)
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = 0;
		snprintf(out, len, "%s", v);
		break;
	}
	fclose(f);
}

void pd_feat__cpudesc(struct pd_buf *b)
{
	char v[256];

	proc_field("/proc/cpuinfo", "model name", v, sizeof(v));
	if (!v[0])
		proc_field("/proc/cpuinfo", "cpu model", v, sizeof(v));
	/* perf squeezes runs of spaces in the model name */
	for (char *p = v; *p; p++)
		while (p[0] == ' ' && p[1] == ' ')
			memmove(p, p + 1, strlen(p));
	pd_buf__string(b, v[0] ? v : "unknown");
}

void pd_feat__total_mem(struct pd_buf *b)
{
	char v[64];

	proc_field("/proc/meminfo", "MemTotal", v, sizeof(v));
	pd_buf__u64(b, strtoull(v, NULL, 10));
}

static int add_file(struct pd_buf *b, const char *dir, const char *rel, const char *tag,
		    char *err, size_t errlen)
{
	char path[4096];
	size_t n;
	char *s;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	rc = util__read_file(path, 0, &s, &n);
	if (rc) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(-rc));
		return rc;
	}
	if (tag)
		pd_buf__add(b, tag, strlen(tag) + 1);
	pd_buf__u64(b, n);
	pd_buf__add(b, s, n);
	free(s);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int pd_feat__tracing_data(struct pd_buf *b, char *const *tp_names, int n, char *err, size_t errlen)
{
	const char *dir = tracefs__dir();
	static const uint8_t magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	char evdir[4096], **names;
	uint8_t c;
	int rc, nsys = 0;

	if (!dir) {
		snprintf(err, errlen, "tracefs is not mounted: cannot save the tracepoint formats");
		return -ENOENT;
	}
	names = calloc(n ? n : 1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	memcpy(names, tp_names, n * sizeof(*names));
	qsort(names, n, sizeof(*names), cmp_str);

	pd_buf__add(b, magic, sizeof(magic));
	pd_buf__add(b, "0.6", 4);
	c = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	pd_buf__add(b, &c, 1);
	c = sizeof(long);
	pd_buf__add(b, &c, 1);
	pd_buf__u32(b, (uint32_t)sysconf(_SC_PAGESIZE));
	snprintf(evdir, sizeof(evdir), "%s/events", dir);
	rc = add_file(b, evdir, "header_page", "header_page", err, errlen);
	if (!rc)
		rc = add_file(b, evdir, "header_event", "header_event", err, errlen);
	if (rc)
		goto out;
	pd_buf__u32(b, 0);		/* no ftrace internal event formats */

	/* the systems (groups), each with its events' format files */
	for (int i = 0; i < n; i++)
		if (!i || strncmp(names[i], names[i - 1], strcspn(names[i], ":") + 1))
			nsys++;
	pd_buf__u32(b, nsys);
	for (int i = 0; i < n;) {
		size_t gl = strcspn(names[i], ":");
		int j = i;

		while (j < n && !strncmp(names[j], names[i], gl + 1))
			j++;
		pd_buf__add(b, names[i], gl);
		pd_buf__add(b, NULL, 1);
		pd_buf__u32(b, j - i);
		for (; i < j; i++) {
			char rel[1024];

			snprintf(rel, sizeof(rel), "%.*s/%s/format", (int)gl, names[i], names[i] + gl + 1);
			rc = add_file(b, evdir, rel, NULL, err, errlen);
			if (rc)
				goto out;
		}
	}
	pd_buf__u32(b, 0);		/* no kallsyms copy: tools use their own */
	pd_buf__u32(b, 0);		/* no printk formats */
	pd_buf__u64(b, 0);		/* no saved cmdlines */
	rc = b->err;
out:
	free(names);
	return rc;
}

/* find NT_GNU_BUILD_ID in a buffer of ELF notes */
static int note_build_id(const uint8_t *p, size_t len, uint8_t id[20], uint8_t *size)
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		off += 12;
		size_t nsz = (namesz + 3) & ~3u, dsz = (descsz + 3) & ~3u;

		if (nsz > len - off || dsz > len - off - nsz)
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(p + off, "GNU", 4)) {
			size_t n = descsz > 20 ? 20 : descsz;

			memset(id, 0, 20);
			memcpy(id, p + off + nsz, n);
			*size = (uint8_t)n;
			return 0;
		}
		off += nsz + dsz;
	}
	return -ENOENT;
}

int pd_build_id__file(const char *path, uint8_t id[20], uint8_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -ENOENT;
	Elf *e;
	size_t nph;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph)) {
		rc = -ENOEXEC;
		goto out;
	}
	for (size_t i = 0; i < nph && rc; i++) {
		GElf_Phdr ph;
		char *img;
		size_t fsize;

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		img = elf_rawfile(e, &fsize);
		if (!img || ph.p_offset > fsize || ph.p_filesz > fsize - ph.p_offset)
			continue;
		rc = note_build_id((const uint8_t *)img + ph.p_offset, ph.p_filesz, id, size);
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

int pd_build_id__kernel(uint8_t id[20], uint8_t *size)
{
	size_t n;
	char *s;
	int rc = util__read_file("/sys/kernel/notes", 0, &s, &n);

	if (rc)
		return rc;
	rc = note_build_id((const uint8_t *)s, n, id, size);
	free(s);
	return rc;
}
