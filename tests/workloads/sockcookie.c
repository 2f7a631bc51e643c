// SPDX-License-Identifier: GPL-2.0
/*
 * sockcookie.c - sockets whose kernel cookies are known to user space.
 * usage: sockcookie N   makes N AF_UNIX datagram socket pairs; for each
 * socket prints "cookie C" (getsockopt SO_COOKIE, the number the kernel's
 * bpf_get_socket_cookie gives), sends one datagram across, closes both;
 * exits 0 (1 when the kernel has no SO_COOKIE).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SO_COOKIE
#define SO_COOKIE 57
#endif

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;

	for (long i = 0; i < n; i++) {
		int sv[2];
		char c = 'x';

		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
			return 1;
		for (int k = 0; k < 2; k++) {
			unsigned long long cookie = 0;
			socklen_t len = sizeof(cookie);

			if (getsockopt(sv[k], SOL_SOCKET, SO_COOKIE, &cookie, &len))
				return 1;
			printf("cookie %llu\n", cookie);
		}
		fflush(stdout);
		if (write(sv[0], &c, 1) != 1 || read(sv[1], &c, 1) != 1)
			return 1;
		close(sv[0]);
		close(sv[1]);
	}
	return 0;
}
