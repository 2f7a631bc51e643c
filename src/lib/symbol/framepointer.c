// SPDX-License-Identifier: GPL-2.0
/*
 * framepointer.c - tell from the first bytes of its functions whether an ELF
 * file keeps frame pointers. gcc and clang with -fno-omit-frame-pointer begin
 * every function that is not a bare jump with push %rbp; mov %rsp,%rbp (after
 * endbr64 where CET is on); with frame pointers omitted, few functions do
 * (those that need a frame of variable size). Half of the functions looked at
 * is the line: on this machine an -fno-omit-frame-pointer program is above
 * 90% and Debian's libc, sh and sonde (-O2) below 10%.
 */
#include "lib/symbol/framepointer.h"
#include "lib/symbol/elfsym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#define MAX_LOOKED 3000		/* functions: enough for a clear majority, cheap on big files */

struct fp_count {
	Elf *e;
	int fd;
	int looked, with_fp;
};

static int look(const char *name, const GElf_Sym *s, void *ctx)
{
	static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const unsigned char prologue[4] = { 0x55, 0x48, 0x89, 0xe5 };	/* push %rbp; mov %rsp,%rbp */
	struct fp_count *c = ctx;
	unsigned char b[8];
	uint64_t off;
	int at = 0;

	(void)name;
	if (GELF_ST_TYPE(s->st_info) != STT_FUNC || s->st_size < 16 || !s->st_value)
		return 0;	/* tiny functions (stubs, leaves) say little */
	if (elfsym__file_offset(c->e, s->st_value, true, &off) || pread(c->fd, b, sizeof(b), off) != sizeof(b))
		return 0;
	if (!memcmp(b, endbr64, 4))
		at = 4;
	c->looked++;
	c->with_fp += !memcmp(b + at, prologue, 4);
	return c->looked >= MAX_LOOKED;
}

int elf__frame_pointers(const char *path)
{
	struct fp_count c = { .fd = -1 };
	int rc;

	elf_version(EV_CURRENT);
	c.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c.fd < 0)
		return -errno;
	c.e = elf_begin(c.fd, ELF_C_READ_MMAP, NULL);
	if (!c.e) {
		close(c.fd);
		return -EINVAL;
	}
	/* .symtab where there is one, else .dynsym: a stripped libc still exports thousands */
	elfsym__each(c.e, look, &c);
	rc = c.looked ? c.with_fp * 2 >= c.looked : -ENOENT;
	elf_end(c.e);
	close(c.fd);
	return rc;
}
