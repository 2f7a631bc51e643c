// SPDX-License-Identifier: GPL-2.0
/*
 * output_pcap.c - the user side of skboutput(): the perf event array that
 * bpf_skb_output writes to, read through libbpf's per-CPU perf buffers, and
 * the pcap files its records go to (lib/export/pcap.c). Each record is struct
 * skb_meta then the copied bytes; the packet written is those bytes after
 * the call's offset, as raw IP (LINKTYPE_RAW, what bpftrace writes), with
 * its boot-time timestamp turned into wall time. The CPUs' buffers are read
 * one after the other, so packets from different CPUs can be out of time
 * order in the file (tcpdump and Wireshark read them as they are).
 */
#include "lang/output.h"
#include "lang/skboutput.h"
#include "lib/export/pcap.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { DEFAULT_PAGES = 64 };	/* 256 KiB per CPU: a few 64 KiB packets */

struct pcapfile {
	const char *path;
	struct pcap_writer *w;
};

struct skbout {
	struct program *prog;
	int map_fd;
	struct perf_buffer *pb;
	struct pcapfile *files;
	int nfiles;
	int *site_file;		/* per site: its file's index, or -1 */
	struct timespec base;	/* CLOCK_REALTIME at boot */
	uint64_t lost;
	int err;		/* the first write error, and its file */
	const char *err_path;
};

bool skbout__wanted(const struct program *prog)
{
	for (int i = 0; i < prog->nsites; i++)
		if (prog->sites[i]->kind == REC_SKBOUTPUT)
			return true;
	return false;
}

static void write_error(struct skbout *s, int e, const char *path)
{
	if (!s->err) {
		s->err = e;
		s->err_path = path;
	}
}

static void on_sample(void *ctx, int cpu, void *data, __u32 size)
{
	struct skbout *s = ctx;
	struct skb_meta m;
	(void)cpu;

	if (size < sizeof(m))
		return;
	memcpy(&m, data, sizeof(m));
	if (m.site >= (uint32_t)s->prog->nsites || s->site_file[m.site] < 0 || m.cap > size - sizeof(m))
		return;

	struct pcapfile *f = &s->files[s->site_file[m.site]];
	uint32_t off = (uint32_t)s->prog->sites[m.site]->top;
	uint32_t caplen = m.cap > off ? m.cap - off : 0, len = m.len > off ? m.len - off : 0;
	uint64_t ns = (uint64_t)s->base.tv_nsec + m.ns;
	int e;

	e = pcap_writer__packet(f->w, (uint64_t)s->base.tv_sec + ns / 1000000000u, (uint32_t)(ns % 1000000000u / 1000),
				(const uint8_t *)data + sizeof(m) + (caplen ? off : 0), caplen, len);
	if (e)
		write_error(s, e, f->path);
}

static void on_lost(void *ctx, int cpu, __u64 cnt)
{
	struct skbout *s = ctx;
	(void)cpu;

	s->lost += cnt;
}

int skbout__new(struct program *prog, struct skbout **out, char *err, size_t errlen)
{
	struct skbout *s = calloc(1, sizeof(*s));
	int ncpu = libbpf_num_possible_cpus(), e;

	*out = NULL;
	if (s)
		s->map_fd = -1;
	if (!s || !(s->site_file = malloc((prog->nsites + 1) * sizeof(int))) ||
	    !(s->files = calloc(prog->nsites + 1, sizeof(*s->files)))) {
		skbout__free(s, NULL, 0);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->prog = prog;
	s->base = fmt__boot_realtime();
	s->map_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "sonde_skb", 4, 4, ncpu > 0 ? ncpu : 1, NULL);
	if (s->map_fd < 0) {
		e = s->map_fd;
		skbout__free(s, NULL, 0);
		snprintf(err, errlen, "cannot create skboutput()'s perf event array: %s", strerror(-e));
		return e;
	}
	*out = s;
	return 0;
}

int skbout__map_fd(const struct skbout *s)
{
	return s ? s->map_fd : -1;
}

int skbout__start(struct skbout *s, char *err, size_t errlen)
{
	int pages = s->prog->cfg.perf_rb_pages > 0 ? s->prog->cfg.perf_rb_pages : DEFAULT_PAGES, p = 1, e;

	while (p < pages)	/* libbpf wants a power of two */
		p <<= 1;
	for (int i = 0; i < s->prog->nsites; i++) {
		const struct fmtsite *site = s->prog->sites[i];
		int k;

		s->site_file[i] = -1;
		if (site->kind != REC_SKBOUTPUT)
			continue;
		for (k = 0; k < s->nfiles && strcmp(s->files[k].path, site->fmt); k++)
			;
		if (k == s->nfiles) {
			e = pcap_writer__open(site->fmt, PCAP_LINKTYPE_RAW, SKB_SNAPLEN, &s->files[k].w);
			if (e) {
				snprintf(err, errlen, "cannot create the pcap file '%s' of skboutput(): %s%s", site->fmt,
					 strerror(-e), e == -ELOOP ? " (a symbolic link: sonde does not write through one)" : "");
				return e;
			}
			s->files[k].path = site->fmt;
			s->nfiles++;
		}
		s->site_file[i] = k;
	}
	s->pb = perf_buffer__new(s->map_fd, (size_t)p, on_sample, on_lost, s, NULL);
	if (!s->pb) {
		e = -errno;
		snprintf(err, errlen, "cannot open skboutput()'s perf buffers (%d pages per CPU): %s%s", p, strerror(-e),
			 e == -ENOMEM || e == -EPERM ? " (a smaller config = { perf_rb_pages = N }, or ulimit -l, may help)" : "");
		return e ? e : -EINVAL;
	}
	return 0;
}

int skbout__epoll_fd(const struct skbout *s)
{
	return s && s->pb ? perf_buffer__epoll_fd(s->pb) : -1;
}

void skbout__consume(struct skbout *s)
{
	if (!s || !s->pb)
		return;
	perf_buffer__consume(s->pb);
	for (int i = 0; i < s->nfiles; i++) {
		int e = pcap_writer__flush(s->files[i].w);

		if (e)
			write_error(s, e, s->files[i].path);
	}
}

uint64_t skbout__lost(const struct skbout *s)
{
	return s ? s->lost : 0;
}

int skbout__free(struct skbout *s, char *err, size_t errlen)
{
	int rc;

	if (!s)
		return 0;
	perf_buffer__free(s->pb);
	if (s->map_fd >= 0)
		close(s->map_fd);
	for (int i = 0; s->files && i < s->nfiles; i++) {
		int e = pcap_writer__close(s->files[i].w);

		if (e)
			write_error(s, e, s->files[i].path);
	}
	rc = s->err;
	if (rc && err)
		snprintf(err, errlen, "cannot write the pcap file '%s': %s", s->err_path, strerror(-rc));
	free(s->files);
	free(s->site_file);
	free(s);
	return rc;
}
