/* SPDX-License-Identifier: GPL-2.0 */
/*
 * enumfmt.h - enums and GFP flags in the probe language: the script's own
 * `enum name { A = 1, B }` declarations (added to the program's BTF, which
 * owns them), identifiers naming enumerators typed with their enum, printf's
 * %s of such a value (the enumerator's name) and %gr (GFP flags as the
 * kernel's %pGg prints them). Tables handed out are malloc'd for the caller.
 */
#ifndef SONDE_LANG_ENUMFMT_H
#define SONDE_LANG_ENUMFMT_H

#include "lang/lang.h"

#include <stdint.h>
#include <stdio.h>

struct out;

/* `enum [name] { ... }` at `at` in the source (loc: where "enum" is): added to the program's BTF; 0 or -1 (error) */
int enumfmt__decl(struct program *p, const char *at, struct loc loc);
/* n (an N_IDENT) names an enumerator, the script's first: n becomes its N_INT, typed with the enum; 0 or -ENOENT */
int enumfmt__ident(struct program *p, struct node *n);
/* a tracepoint field's C type "enum x": its BTF id, or 0 */
int enumfmt__field_enum(struct program *p, const char *ctype);

/* enum `id`'s bits (8 to 64) and sign */
int enumfmt__bits(struct program *p, int id, bool *sign);
/* the enumerator of enum t->btf_id whose value is v, or NULL */
const char *enumfmt__name(struct out *o, const struct type *t, uint64_t v);
/* a kernel typedef of an integer or enum type (uint64_t, pid_t): its bits and sign, or 0 */
int enumfmt__typedef_bits(struct program *p, const char *name, bool *sign);

/* printf: %s of an enum value, %gr of GFP flags; *pp past the verb. false: not one of these */
bool enumfmt__conv(struct out *o, FILE *f, const struct type *t, const uint8_t *d, char verb, const char **pp,
		   const char *start, int speclen);

struct gfpflag {
	uint64_t mask;
	char name[40];
};
/* the __print_flags(..., "|", {mask, "NAME"}, ...) table of a tracepoint's print fmt; count, or -1 */
int enumfmt__gfp_parse(const char *fmt, size_t len, struct gfpflag **out);
/* flags as %pGg: names in table order, each taking its bits, then any rest as 0x...; "" for 0 */
void enumfmt__gfp_text(const struct gfpflag *t, int n, uint64_t flags, char *buf, size_t len);

#endif
