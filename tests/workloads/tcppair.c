// SPDX-License-Identifier: GPL-2.0
/*
 * tcppair.c - TCP connections over the loopback with known ends, for the
 * tools that trace TCP (tcpconnect.bt, tcpaccept.bt, tcplife.bt).
 * usage: tcppair N [6]   listens on 127.0.0.1 (::1 with 6) at a port the
 * kernel picks, prints "port P", then N times: connects to it, accepts,
 * sends 1 byte each way, closes both ends (the client first). Exits 0.
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
	int n = argc > 1 ? atoi(argv[1]) : 1, v6 = argc > 2 && !strcmp(argv[2], "6");
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	socklen_t len = v6 ? sizeof(*a6) : sizeof(*a4);
	int l = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	char c = 'x';

	if (v6) {
		a6->sin6_family = AF_INET6;
		a6->sin6_addr = in6addr_loopback;
	} else {
		a4->sin_family = AF_INET;
		a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	}
	if (l < 0 || bind(l, (struct sockaddr *)&ss, len) || listen(l, 8) ||
	    getsockname(l, (struct sockaddr *)&ss, &len))
		return 1;
	printf("port %d\n", ntohs(v6 ? a6->sin6_port : a4->sin_port));
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		int s = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0), a;

		if (s < 0 || connect(s, (struct sockaddr *)&ss, len))
			return 1;
		a = accept(l, NULL, NULL);
		if (a < 0 || write(s, &c, 1) != 1 || read(a, &c, 1) != 1 || write(a, &c, 1) != 1 ||
		    read(s, &c, 1) != 1)
			return 1;
		close(s);
		close(a);
	}
	close(l);
	return 0;
}
