// SPDX-License-Identifier: GPL-2.0
/* lib/export/pcap.c: the file's bytes, its permissions, and tcpdump reading it where installed */
#include "unit.h"

#include "lib/export/pcap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* an IPv4 UDP packet 127.0.0.1:1234 -> 127.0.0.1:5678 with "abcd" (32 bytes) */
static const uint8_t pkt[32] = {
	0x45, 0, 0, 32, 0, 1, 0x40, 0, 64, 17, 0x3c, 0xca, 127, 0, 0, 1, 127, 0, 0, 1,
	0x04, 0xd2, 0x16, 0x2e, 0, 12, 0, 0, 'a', 'b', 'c', 'd',
};

static size_t slurp(const char *path, uint8_t *buf, size_t max)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, max, f);
	fclose(f);
	return n;
}

static uint32_t u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

TEST(pcap_bytes)
{
	char path[] = "/tmp/sonde-unit-pcap.XXXXXX";
	int fd = mkstemp(path);
	struct pcap_writer *w;
	uint8_t b[256];
	uint16_t ver[2];
	struct stat st;

	CHECK(fd >= 0);
	close(fd);
	chmod(path, 0666);
	CHECK_INT(pcap_writer__open(path, PCAP_LINKTYPE_RAW, 64, &w), 0);
	CHECK_INT(pcap_writer__packet(w, 1700000000, 123, pkt, 32, 32), 0);
	CHECK_INT(pcap_writer__packet(w, 1700000001, 999999, pkt, 20, 32), 0);	/* cut at 20 bytes */
	CHECK_INT(pcap_writer__count(w), 2);
	CHECK_INT(pcap_writer__close(w), 0);
	CHECK(stat(path, &st) == 0);
	CHECK_INT(st.st_mode & 0777, 0600);	/* it was 0666: others lose their bits */

	size_t n = slurp(path, b, sizeof(b));

	CHECK_INT(n, PCAP_HEADER_SIZE + 2 * PCAP_RECORD_SIZE + 32 + 20);
	CHECK_INT(u32(b), 0xa1b2c3d4);
	memcpy(ver, b + 4, 4);
	CHECK_INT(ver[0], 2);
	CHECK_INT(ver[1], 4);
	CHECK_INT(u32(b + 8), 0);
	CHECK_INT(u32(b + 12), 0);
	CHECK_INT(u32(b + 16), 64);
	CHECK_INT(u32(b + 20), 101);
	CHECK_INT(u32(b + 24), 1700000000);
	CHECK_INT(u32(b + 28), 123);
	CHECK_INT(u32(b + 32), 32);
	CHECK_INT(u32(b + 36), 32);
	CHECK(!memcmp(b + 40, pkt, 32));
	CHECK_INT(u32(b + 72), 1700000001);
	CHECK_INT(u32(b + 76), 999999);
	CHECK_INT(u32(b + 80), 20);
	CHECK_INT(u32(b + 84), 32);
	CHECK(!memcmp(b + 88, pkt, 20));

	/* tcpdump, libpcap's reader, where installed: both packets, the second cut short */
	if (access("/usr/bin/tcpdump", X_OK) == 0 || access("/usr/sbin/tcpdump", X_OK) == 0) {
		char cmd[512], out[1024] = "";
		FILE *p;

		snprintf(cmd, sizeof(cmd), "tcpdump -r %s -n -tt -Z root 2>&1", path);
		p = popen(cmd, "r");
		CHECK(p != NULL);
		n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = 0;
		pclose(p);
		CHECK(strstr(out, "1700000000.000123 IP 127.0.0.1.1234 > 127.0.0.1.5678: UDP, length 4\n") != NULL);
		CHECK(strstr(out, "1700000001.999999 IP 127.0.0.1 > 127.0.0.1:  [|udp]\n") != NULL);
		CHECK(strstr(out, "link-type RAW (Raw IP), snapshot length 64") != NULL);
	}
	unlink(path);
}

TEST(pcap_new_file_and_snaplen)
{
	char dir[] = "/tmp/sonde-unit-pcapd.XXXXXX", path[256], link[256];
	struct pcap_writer *w;
	struct stat st;
	uint8_t b[128];
	mode_t old = umask(0);

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/new.pcap", dir);
	snprintf(link, sizeof(link), "%s/link.pcap", dir);
	CHECK_INT(pcap_writer__open(path, PCAP_LINKTYPE_ETHERNET, 16, &w), 0);
	umask(old);
	CHECK_INT(pcap_writer__packet(w, 1, 2, pkt, 32, 32), 0);	/* more than the snaplen: 16 kept */
	CHECK_INT(pcap_writer__close(w), 0);
	CHECK(stat(path, &st) == 0);
	CHECK_INT(st.st_mode & 0777, 0600);	/* even with umask 0 */
	CHECK_INT(slurp(path, b, sizeof(b)), PCAP_HEADER_SIZE + PCAP_RECORD_SIZE + 16);
	CHECK_INT(u32(b + 20), 1);
	CHECK_INT(u32(b + 32), 16);
	CHECK_INT(u32(b + 36), 32);
	/* a symbolic link is refused, and what it points to is left alone */
	CHECK(symlink(path, link) == 0);
	CHECK_INT(pcap_writer__open(link, PCAP_LINKTYPE_RAW, 64, &w), -ELOOP);
	CHECK(w == NULL);
	CHECK_INT(slurp(path, b, sizeof(b)), PCAP_HEADER_SIZE + PCAP_RECORD_SIZE + 16);
	/* a directory that does not exist */
	snprintf(path, sizeof(path), "%s/no/such.pcap", dir);
	CHECK_INT(pcap_writer__open(path, PCAP_LINKTYPE_RAW, 64, &w), -ENOENT);
	snprintf(path, sizeof(path), "%s/new.pcap", dir);
	unlink(link);
	unlink(path);
	rmdir(dir);
}

TEST(pcap_write_error_kept)
{
	struct pcap_writer *w;

	if (access("/dev/full", W_OK))
		return;
	CHECK_INT(pcap_writer__open("/dev/full", PCAP_LINKTYPE_RAW, 65535, &w), 0);	/* buffered: no error yet */
	for (int i = 0; i < 300; i++)
		pcap_writer__packet(w, 1, 2, pkt, 32, 32);
	CHECK_INT(pcap_writer__flush(w), -ENOSPC);
	CHECK_INT(pcap_writer__packet(w, 1, 2, pkt, 32, 32), -ENOSPC);
	CHECK_INT(pcap_writer__close(w), -ENOSPC);
}
