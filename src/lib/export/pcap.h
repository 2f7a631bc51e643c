/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcap.h - write classic pcap files (the libpcap "savefile" format that
 * tcpdump -r and Wireshark read): a 24-byte file header, then per packet a
 * 16-byte record header (seconds, microseconds, captured length, original
 * length) and the captured bytes, all in this machine's byte order (readers
 * tell it from the magic number). The writer is the caller's, freed by
 * pcap_writer__close().
 */
#ifndef SONDE_LIB_PCAP_H
#define SONDE_LIB_PCAP_H

#include <stdint.h>

/* the link types of http://www.tcpdump.org/linktypes.html sonde writes */
enum { PCAP_LINKTYPE_ETHERNET = 1, PCAP_LINKTYPE_RAW = 101 };

#define PCAP_MAGIC_USEC 0xa1b2c3d4u
#define PCAP_HEADER_SIZE 24
#define PCAP_RECORD_SIZE 16

struct pcap_writer;

/*
 * Create (or truncate) the file at path and write its header. A new file is
 * made with mode 0600; an existing regular file loses its group and other
 * permission bits (packets can hold secrets). A symbolic link is refused
 * (-ELOOP): sonde runs as root and would write where the link points.
 * 0 with *out set, or -errno.
 */
int pcap_writer__open(const char *path, uint32_t linktype, uint32_t snaplen, struct pcap_writer **out);
/* one packet: caplen bytes of data, len its length before capture (caplen is cut to the snaplen); 0 or -errno */
int pcap_writer__packet(struct pcap_writer *w, uint64_t sec, uint32_t usec, const void *data, uint32_t caplen,
			uint32_t len);
/* push what is buffered to the file; 0 or the first write error (-errno) */
int pcap_writer__flush(struct pcap_writer *w);
/* packets written so far */
uint64_t pcap_writer__count(const struct pcap_writer *w);
/* flush, close and free (NULL is fine); 0 or the first write error (-errno) */
int pcap_writer__close(struct pcap_writer *w);

#endif
