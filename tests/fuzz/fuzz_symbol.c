// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_symbol.c - corrupted files through the symbolizer: an input starting
 * with the ELF magic is written to a temp file, mapped into a fake process and
 * resolved (symbols, inline chains, source lines) and unwound through (CFI),
 * with registers and stack taken from the input; anything else is read as a
 * JIT map (/tmp/perf-PID.map). Errors are fine; crashes, leaks and hangs are not.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/symbol/symbol.h"
#include "lib/symbol/unwind.h"

#define FAKE_PID 4194200
#define BASE 0x400000ULL

static int write_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, data, size) == (ssize_t)size;
	close(fd);
	return ok ? 0 : -1;
}

static uint64_t word(const uint8_t *data, size_t size, size_t i)
{
	uint64_t v = 0;

	for (size_t k = 0; k < 8 && size; k++)
		v |= (uint64_t)data[(i * 8 + k) % size] << (8 * k);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	bool elf = size >= 4 && !memcmp(data, "\177ELF", 4);
	struct symbolizer *s = symbolizer__new(SYM_INLINE | SYM_SRCLINE);
	struct sym_frame f[8];

	if (!s)
		return 0;
	if (elf)
		snprintf(path, sizeof(path), "/tmp/sonde-fuzz-symbol-%d.elf", (int)getpid());
	else
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", FAKE_PID);
	if (write_file(path, data, size)) {
		symbolizer__free(s);
		return 0;
	}
	if (elf) {
		symbolizer__add_mmap(s, FAKE_PID, BASE, 0x100000, 0, path, NULL, 0);
		/* addresses spread over the mapping, and a few from the input itself */
		for (uint64_t off = 0; off < 0x100000; off += 0x3f1)
			symbolizer__resolve(s, FAKE_PID, BASE + off, false, f, 8);
		for (size_t i = 0; i < 16; i++)
			symbolizer__resolve(s, FAKE_PID, BASE + word(data, size, i) % 0x100000, false, f, 8);

		uint64_t regs[17], ips[32];
		uint8_t stack[512];

		for (size_t i = 0; i < 17; i++)
			regs[i] = word(data, size, 40 + i);
		regs[8] = BASE + regs[8] % 0x100000;	/* IP in the mapping (the 9th value: AX..IP) */
		for (size_t i = 0; i < sizeof(stack); i++)
			stack[i] = size ? data[(i * 7) % size] : 0;
		unwind__user(s, FAKE_PID, regs, UNWIND_REGS_MASK, stack, sizeof(stack), ips, 32);
	} else {
		symbolizer__add_mmap(s, FAKE_PID, 0, ~0ULL >> 1, 0, "//anon", NULL, 0);
		for (size_t i = 0; i < 32; i++)
			symbolizer__resolve(s, FAKE_PID, word(data, size, i), false, f, 8);
	}
	unlink(path);
	symbolizer__free(s);
	return 0;
}
