// SPDX-License-Identifier: GPL-2.0
/*
 * udpsend.c - UDP datagrams of known bytes over loopback, for packet capture.
 * usage: udpsend N [SIZE]   binds a receiver on 127.0.0.1 (a port the kernel
 * picks), prints "port P", then sends N datagrams from another socket to it,
 * datagram i (from 0) being SIZE bytes (default 32): "sonde-udp-" then i as
 * four digits, then 'a', 'b', 'c'... to fill; receives each one and exits 0
 * (1 on any socket error). Each one leaves as a 28+SIZE byte IPv4 packet.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, size = argc > 2 ? atol(argv[2]) : 32;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	char buf[16384], got[16384];
	int rx, tx;

	if (size < 14 || size > (long)sizeof(buf))
		return 1;
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(rx, (struct sockaddr *)&a, &alen))
		return 1;
	printf("port %d\n", ntohs(a.sin_port));
	fflush(stdout);
	for (long i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "sonde-udp-%04ld", i % 10000);
		for (long k = 14; k < size; k++)
			buf[k] = (char)('a' + (k - 14) % 26);
		if (sendto(tx, buf, size, 0, (struct sockaddr *)&a, sizeof(a)) != size ||
		    recv(rx, got, sizeof(got), 0) != size || memcmp(buf, got, size))
			return 1;
	}
	close(tx);
	close(rx);
	return 0;
}
