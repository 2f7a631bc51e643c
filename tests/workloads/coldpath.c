// SPDX-License-Identifier: GPL-2.0
/*
 * coldpath.c - opens a path whose string lies alone in a 64 KiB window of
 * .rodata that nothing touched before: when openat enters, the page is not
 * mapped in the process yet (the kernel maps file pages on first touch, with
 * fault-around inside aligned 64 KiB windows), so a tracer that reads the
 * string in the kernel at entry finds no page and must read it again at exit.
 * usage: coldpath   (exits 0 when it could open the file)
 */
#include <fcntl.h>
#include <unistd.h>

#define WIN 65536
static const char cold[3 * WIN] __attribute__((aligned(WIN))) = { [WIN] = '/', 'e', 't', 'c', '/', 'h', 'o', 's', 't', 'n', 'a', 'm', 'e' };

int main(void)
{
	int fd = open(cold + WIN, O_RDONLY);

	if (fd < 0)
		return 1;
	close(fd);
	return 0;
}
