// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_dwargs.c - a uprobe's parameters from an ELF file's DWARF (outside
 * bytes: any binary a user names) through dwargs__params, with their types
 * made into BTF. The file comes from a memfd; the function looked up is
 * "take" (the seeds' workload function) or, from the first byte, "main".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lang/dwargs.h"
#include "lang/ktypes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dwparam prm[32];
	char path[64], err[128];
	int fd, n;

	if (size < 1)
		return 0;
	fd = memfd_create("fuzz_dwargs", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct program *p = lang__new("fuzz", "", 0);

	if (p) {
		p->btf_tried = true;	/* no kernel BTF: the types are made on their own, quickly */
		n = dwargs__params(p, path, data[0] & 1 ? "main" : "take", prm, 32);
		for (int i = 0; i < n; i++) {
			struct type t;

			if (!memchr(prm[i].name, 0, sizeof(prm[i].name)) || !memchr(prm[i].type, 0, sizeof(prm[i].type)) ||
			    prm[i].index != i)
				abort();
			if (prm[i].btf_id > 0)	/* every type made must read back */
				ktypes__type(p, prm[i].btf_id, true, &t, err, sizeof(err));
		}
		lang__free(p);
	}
	close(fd);
	return 0;
}
