// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_debugfile.c - corrupted input through the separate-debug-file lookup
 * (lib/symbol/debugfile.h): the first byte chooses the build-id note reader (0), the
 * .gnu_debuglink reader (1), or (anything else) the whole input as an ELF file
 * whose debug file is looked for and whose symbols are walked (elfsym.h).
 * Errors are fine; crashes, leaks and hangs are not.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/symbol/debugfile.h"
#include "lib/symbol/elfsym.h"

static int count(const char *name, const GElf_Sym *s, void *ctx)
{
	(void)name;
	(void)s;
	++*(int *)ctx;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] == 0) {
		uint8_t id[64];

		debugfile__note_build_id(data + 1, size - 1, id, sizeof(id));
		return 0;
	}
	if (data[0] == 1) {
		char name[256];
		uint32_t crc;

		debugfile__parse_debuglink(data + 1, size - 1, name, sizeof(name), &crc);
		return 0;
	}
	char path[64], dbg[4096];
	int fd, n = 0;

	snprintf(path, sizeof(path), "/tmp/fuzz_debugfile.%d", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0;
	if (write(fd, data + 1, size - 1) == (ssize_t)(size - 1)) {
		elf_version(EV_CURRENT);
		Elf *e = elf_begin(fd, ELF_C_READ, NULL);

		if (e) {
			if (elf_kind(e) == ELF_K_ELF) {
				debugfile__find(e, path, dbg, sizeof(dbg));
				elfsym__each_file(e, path, count, &n);
			}
			elf_end(e);
		}
	}
	close(fd);
	unlink(path);
	return 0;
}
