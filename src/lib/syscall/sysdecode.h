/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysdecode.h - syscall arguments and results as strace prints them: flags and
 * constants by name, strings quoted and cut at -s, structs (stat, sockaddr,
 * iovec, timespec, rlimit, sigaction), errno names with their strerror text.
 * Output goes into a growing `struct sbuf` (lib/sbuf.h) the caller owns; the
 * names returned by the lookup functions are static strings.
 */
#ifndef SONDE_SYSDECODE_H
#define SONDE_SYSDECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/trace.h"
#include "lib/sbuf.h"
#include "lib/syscall/syscalls.h"

/* a flag or value name table, ending with { 0, NULL } */
struct sd_name {
	uint64_t val;
	const char *name;
};

/* strace's quoting of len bytes: "..." with escapes; at most max bytes shown, then "..." if cut */
#define SDQ_HEX		1	/* every byte as \xNN (getrandom) */
#define SDQ_NUL_ENDS	2	/* a C string: stop at the first NUL */
void sysdecode__quote(struct sbuf *b, const unsigned char *s, size_t len, size_t max, bool more, int flags);

/* value as NAME|NAME|0x.. from a table of bits; `none` printed for 0 (NULL: "0") */
void sysdecode__flags(struct sbuf *b, uint64_t v, const struct sd_name *t, const char *none);
/* value as NAME from a table, else `dflt` format of the number ("%d" style, NULL: "%#lx") */
void sysdecode__value(struct sbuf *b, uint64_t v, const struct sd_name *t, const char *dflt);

const char *sysdecode__errno_name(int err);	/* "ENOENT"; NULL when unknown */
const char *sysdecode__strerror(int err);	/* "No such file or directory", as strace prints it */
const char *sysdecode__signame(int sig);	/* "SIGUSR1"; NULL when out of range */

void sysdecode__open_flags(struct sbuf *b, uint64_t flags);
void sysdecode__prot(struct sbuf *b, uint64_t prot);
void sysdecode__mmap_flags(struct sbuf *b, uint64_t flags);
void sysdecode__clone_flags(struct sbuf *b, uint64_t flags);
void sysdecode__sigset(struct sbuf *b, uint64_t mask);
void sysdecode__mode(struct sbuf *b, uint32_t mode);	/* S_IFREG|0644 */
void sysdecode__sockaddr(struct sbuf *b, const unsigned char *p, size_t len);
void sysdecode__stat(struct sbuf *b, const unsigned char *p, size_t len);
void sysdecode__wait_status(struct sbuf *b, int status);
void sysdecode__si_code(struct sbuf *b, int sig, int code);

/* the capture plan of a syscall: which arguments the BPF side copies and how; returns how many */
int sysdecode__capplan(const struct syscall_desc *d, struct sc_cap caps[TRACE_NCAP]);

struct sysdecode_opts {
	int strsize;		/* -s: bytes of strings and buffers shown (default 32) */
};

/*
 * The call part of a line: SD_WHOLE "name(arg, arg)"; when another task's line
 * came between entry and exit, strace splits it: SD_ENTRY "name(in, in, " (the
 * arguments known at entry) and SD_RESUME "out, out)" (the rest).
 */
enum sd_part { SD_WHOLE, SD_ENTRY, SD_RESUME };
void sysdecode__call(struct sbuf *b, const struct sc_event *ev, const struct sysdecode_opts *o, enum sd_part part);
/* "= 3", "= -1 ENOENT (No such file or directory)", "= 0x7f..", "= ?" */
void sysdecode__ret(struct sbuf *b, const struct sc_event *ev);

#endif
