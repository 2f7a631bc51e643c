// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ftrace.c - `sonde ftrace -u BINARY:FUNC` on outside bytes: the input is
 * a function name, a NUL, then the bytes of the binary, looked up by
 * elfsym__func_offset (symbols, then the loadable segment that holds the
 * address; ftrace -u, ltrace and lock use it) from a memfd. Errors are fine; crashes, leaks and hangs are not.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/symbol/elfsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size < 256 ? size : 256);
	char func[256], path[64];
	uint64_t off = 0;
	size_t n;
	int fd;

	if (!nul)
		return 0;
	n = (size_t)(nul - data);
	memcpy(func, data, n);
	func[n] = 0;
	data += n + 1;
	size -= n + 1;
	fd = memfd_create("fuzz-ftrace", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	elfsym__func_offset(path, func, &off);
	close(fd);
	return 0;
}
