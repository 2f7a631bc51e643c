// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_sysdecode.c - sonde trace's decoders and printer take whatever the BPF
 * side sent (lengths, flags, captured user memory: all chosen by the traced
 * program or by a kernel bug) and the -e trace= expression typed by the user.
 * Neither may crash or read out of bounds. The first input byte picks the
 * mode; the rest is a record (zero-padded) or the expression.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/syscall/syscalls.h"
#include "lib/syscall/sysdecode.h"
#include "ui/strace_print.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct strace_printer p;
	struct sc_event *ev;

	if (!size)
		return 0;
	if (data[0] & 1) {
		char *s = malloc(size), err[256];
		bool set[SYSCALL_NR_MAX];

		if (!s)
			return 0;
		memcpy(s, data + 1, size - 1);
		s[size - 1] = 0;
		if (syscall__parse_set(s, set, err, sizeof(err)) < 0 && !err[0])
			abort();	/* every rejection names what it rejected */
		free(s);
		return 0;
	}
	if (!null)
		null = fopen("/dev/null", "w");
	ev = calloc(1, sizeof(*ev));
	if (!ev || !null) {
		free(ev);
		return 0;
	}
	memcpy(ev, data + 1, size - 1 < sizeof(*ev) ? size - 1 : sizeof(*ev));
	strace_printer__init(&p, null);
	p.dopts.strsize = data[0] >> 1;
	p.prefix = PFX_BRACKET;
	p.tflag = (data[0] >> 2) & 3;
	p.Tflag = true;
	strace_printer__event(&p, ev, size - 1 < sizeof(*ev) ? size - 1 : sizeof(*ev));
	strace_printer__fini(&p);
	free(ev);
	return 0;
}
