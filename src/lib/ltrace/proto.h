/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proto.h - the types of a library function's arguments and return value, and
 * their text as ltrace prints it: a built-in table for the C library's common
 * functions (and the syscalls -S shows), a signature spelled in one letter
 * per type for the others (from DWARF), and ltrace's default when nothing is
 * known (four arguments, decimal when small, hex otherwise); and prototypes
 * from DWARF (the object's own, or its separate debug file: Debian's -dbgsym,
 * libc6-dbg, a .gnu_debuglink) for many functions in one pass. Nothing here
 * allocates but the text's buffer (a struct sbuf), which its owner frees.
 *
 * Signature letters: v void, i int, u unsigned int, l long, L unsigned long,
 * c char, s string (char *: quoted, "..." past -s), b<N> bytes counted by
 * argument N (1-based: write's buffer), p pointer (hex), o octal, x hex int,
 * f a printf format (the arguments after it follow its conversions),
 * k a locale category (LC_ALL), g a signal number (SIGTERM),
 * ? unknown (ltrace's guess). A signature is "R(ARGS)": "L(s)" is strlen.
 */
#ifndef SONDE_LTRACE_PROTO_H
#define SONDE_LTRACE_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/sbuf.h"

#define LT_MAX_ARGS 6

struct lt_proto {
	char ret;
	int nargs;
	char arg[LT_MAX_ARGS];
	unsigned char lenarg[LT_MAX_ARGS];	/* 'b': the argument (0-based) with the length */
	bool guess;			/* ltrace's default: nothing known */
};

/* parse a signature ("L(s)"); 0 or -EINVAL */
int lt_proto__parse(const char *sig, struct lt_proto *p);
/* the built-in prototype of a library function (syscall: "SYS_write"); NULL when none */
const char *lt_proto__lookup(const char *name);
/* ltrace's default prototype: four guessed arguments, a guessed return value */
void lt_proto__default(struct lt_proto *p);

/* one captured value: the integer, and the bytes read at it when they were (len < 0: none, or -errno) */
struct lt_val {
	uint64_t v;
	const char *str;
	int len;		/* bytes read, with the NUL for a string */
	bool truncated;		/* more bytes than were read */
};

/* the text of one value of type `t` (a signature letter), strings cut at strmax characters */
void lt_format__value(struct sbuf *o, char t, const struct lt_val *v, int strmax);
/*
 * The arguments of a call as ltrace writes them between the parentheses:
 * "\"hello\", 5". args[LT_MAX_ARGS] with their captured bytes.
 */
void lt_format__args(struct sbuf *o, const struct lt_proto *p, const struct lt_val *args, int strmax);

/* the signature letter of a C type as DWARF spells it ("const char*", "size_t"); '?' when not known */
char lt_proto__ctype(const char *type);

/*
 * For each of names[0..n) the object at path defines in its DWARF, its
 * prototype into protos[i] and found[i] = true. The number found, or
 * -ENODATA when there is no DWARF (in the file or a debug file of it).
 */
int lt_dwarf__protos(const char *path, const char *const *names, int n, struct lt_proto *protos, bool *found);

#endif
