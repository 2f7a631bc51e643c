// SPDX-License-Identifier: GPL-2.0
/*
 * pcap.c - the classic pcap file writer (pcap.h). Records are buffered by
 * stdio and flushed on demand; the first write error is kept and returned
 * by every later call, so a full disk is reported once, at the end.
 */
#include "lib/export/pcap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct pcap_writer {
	FILE *f;
	uint32_t snaplen;
	uint64_t count;
	int err;		/* the first write error, -errno */
};

static int put(struct pcap_writer *w, const void *p, size_t n)
{
	if (w->err)
		return w->err;
	if (n && fwrite(p, 1, n, w->f) != n)
		w->err = errno ? -errno : -EIO;
	return w->err;
}

int pcap_writer__open(const char *path, uint32_t linktype, uint32_t snaplen, struct pcap_writer **out)
{
	struct pcap_writer *w;
	struct stat st;
	int fd, e;

	*out = NULL;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077) && fchmod(fd, st.st_mode & 0700)) {
		e = -errno;
		close(fd);
		return e;
	}
	w = calloc(1, sizeof(*w));
	if (!w || !(w->f = fdopen(fd, "w"))) {
		e = -errno;
		free(w);
		close(fd);
		return e;
	}
	w->snaplen = snaplen;

	uint32_t hdr[6] = {
		PCAP_MAGIC_USEC,
		0,		/* version 2.4: two 16-bit fields, major first (below) */
		0,		/* thiszone: timestamps are UTC */
		0,		/* sigfigs */
		snaplen,
		linktype,
	};
	uint16_t ver[2] = { 2, 4 };

	memcpy(&hdr[1], ver, sizeof(ver));
	if ((e = put(w, hdr, sizeof(hdr)))) {
		pcap_writer__close(w);
		return e;
	}
	*out = w;
	return 0;
}

int pcap_writer__packet(struct pcap_writer *w, uint64_t sec, uint32_t usec, const void *data, uint32_t caplen,
			uint32_t len)
{
	if (caplen > w->snaplen)
		caplen = w->snaplen;
	if (len < caplen)
		len = caplen;

	uint32_t rec[4] = { (uint32_t)sec, usec, caplen, len };

	if (put(w, rec, sizeof(rec)) || put(w, data, caplen))
		return w->err;
	w->count++;
	return 0;
}

int pcap_writer__flush(struct pcap_writer *w)
{
	if (!w->err && fflush(w->f))
		w->err = errno ? -errno : -EIO;
	return w->err;
}

uint64_t pcap_writer__count(const struct pcap_writer *w)
{
	return w->count;
}

int pcap_writer__close(struct pcap_writer *w)
{
	int e;

	if (!w)
		return 0;
	pcap_writer__flush(w);
	e = w->err;
	if (fclose(w->f) && !e)
		e = errno ? -errno : -EIO;
	free(w);
	return e;
}
