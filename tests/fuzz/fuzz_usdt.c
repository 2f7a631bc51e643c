// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_usdt.c - the USDT readers on outside bytes. The first byte picks:
 * 0: an argument string ("-4@%edi 8@-16(%rbp)") through usdt__parse_args;
 * 1 and 2: the raw bytes of a .note.stapsdt section (64-bit, 32-bit notes)
 * through usdt__parse_notes; 3: a whole ELF file through usdt__read (from a
 * memfd). Whatever parses must be a usable argument.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>

#include "lib/symbol/usdt.h"

static void check_arg(const struct usdt_arg *a)
{
	if (a->size != 1 && a->size != 2 && a->size != 4 && a->size != 8)
		abort();
	if (a->reg < -1 || a->reg > 19 || a->index < -1 || a->index > 19 || a->index == 16 || a->index == 19)
		abort();
	if (a->scale != 1 && a->scale != 2 && a->scale != 4 && a->scale != 8)
		abort();
	if (a->kind == USDT_ARG_REG && (a->reg < 0 || a->reg == 16))
		abort();
	if (a->kind == USDT_ARG_RIP && (!a->sym[0] || a->reg >= 0 || a->index >= 0))
		abort();
	if (a->kind == USDT_ARG_CONST && (a->reg >= 0 || a->index >= 0))
		abort();
}

static int one(const struct usdt_probe *p, void *ctx)
{
	(void)ctx;
	if (p->nargs < 0 || p->nargs > USDT_MAX_ARGS || !memchr(p->provider, 0, sizeof(p->provider)) ||
	    !memchr(p->name, 0, sizeof(p->name)) || !memchr(p->args, 0, sizeof(p->args)))
		abort();
	for (int i = 0; i < p->nargs; i++)
		check_arg(&p->arg[i]);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (!size)
		return 0;
	copy = malloc(size);	/* exactly sized (mode byte replaced by the NUL): ASan sees any overread */
	if (!copy)
		abort();
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = 0;
	if (data[0] % 4 == 3) {
		static int fd = -1;
		char path[64], err[256];
		struct usdt_probe *probes;
		int n;

		if (fd < 0)
			fd = memfd_create("fuzz_usdt", 0);
		if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, data + 1, size - 1, 0) != (ssize_t)(size - 1))
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (!usdt__read(path, &probes, &n, err, sizeof(err))) {
			for (int i = 0; i < n; i++)
				one(&probes[i], NULL);
			usdt__free(probes);
		}
	} else if (data[0] % 4 == 0) {
		struct usdt_arg args[USDT_MAX_ARGS];
		char err[128];
		int n = usdt__parse_args((const char *)copy, args, USDT_MAX_ARGS, err, sizeof(err));

		if (n > USDT_MAX_ARGS)
			abort();
		for (int i = 0; i < n; i++)
			check_arg(&args[i]);
		if (n < 0 && !memchr(err, 0, sizeof(err)))
			abort();
	} else {
		usdt__parse_notes(copy, size - 1, data[0] % 4 == 1, one, NULL);
	}
	free(copy);
	return 0;
}
