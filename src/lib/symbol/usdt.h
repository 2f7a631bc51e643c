/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usdt.h - USDT probes (<sys/sdt.h>, SystemTap's "stapsdt" ELF notes): which
 * probes a binary or library has, where (a file offset for a uprobe, the
 * semaphore's file offset) and how to read each argument on x86-64 (the
 * note's "-4@%edi 8@-16(%rbp) 4@$5" specs). usdt__read() returns an array the
 * caller frees with usdt__free().
 */
#ifndef SONDE_USDT_H
#define SONDE_USDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USDT_MAX_ARGS 12

enum usdt_arg_kind {
	USDT_ARG_CONST,		/* $N */
	USDT_ARG_REG,		/* %reg */
	USDT_ARG_MEM,		/* disp(%base[,%index[,scale]]) */
	USDT_ARG_RIP,		/* sym[+-N](%rip): a global at its link-time address `addr` */
};

struct usdt_arg {
	enum usdt_arg_kind kind;
	uint8_t size;		/* 1, 2, 4 or 8 bytes */
	bool sign;
	int8_t reg;		/* pt_regs offset / 8 of the register or the base; -1: none */
	int8_t reg_shift;	/* 8 for %ah, %bh, %ch, %dh */
	int8_t index;		/* pt_regs offset / 8 of the index register; -1: none */
	uint8_t scale;		/* 1, 2, 4, 8 */
	int64_t val;		/* the constant or the displacement */
	uint64_t addr;		/* USDT_ARG_RIP: the symbol's address plus val */
	char sym[64];		/* USDT_ARG_RIP: the symbol */
};

struct usdt_probe {
	char provider[128], name[128];
	uint64_t pc, base, sem;	/* as in the note */
	uint64_t pc_addr;	/* pc after the .stapsdt.base (prelink) adjustment */
	uint64_t offset;	/* the file offset of pc_addr: where the uprobe goes */
	uint64_t sem_addr, sem_offset;	/* the semaphore (0: none) and its file offset */
	char args[512];		/* the argument specs as written */
	int nargs;
	struct usdt_arg arg[USDT_MAX_ARGS];
	char err[128];		/* why an argument spec cannot be read ("" when all can) */
};

/*
 * parse one argument spec ("-4@%edi") into *a; 0 or -EINVAL with err filled.
 * RIP-relative operands keep the symbol in a->sym (usdt__read resolves it).
 */
int usdt__parse_arg(const char *spec, size_t len, struct usdt_arg *a, char *err, size_t errlen);
/* parse a whole argument string ("-4@%edi 8@%rax"); the count or -EINVAL with err filled */
int usdt__parse_args(const char *s, struct usdt_arg *args, int max, char *err, size_t errlen);

/*
 * parse the raw bytes of a .note.stapsdt section (64-bit notes when is64):
 * calls cb for every well-formed probe note; the number of probes found, or
 * -EINVAL when the section is malformed (the probes before it were given)
 */
int usdt__parse_notes(const void *data, size_t len, bool is64,
		      int (*cb)(const struct usdt_probe *p, void *ctx), void *ctx);

/*
 * every USDT probe of the ELF file at path (one entry per location), with
 * offsets computed; 0 (n may be 0: no notes) or -errno with err filled
 */
int usdt__read(const char *path, struct usdt_probe **probes, int *n, char *err, size_t errlen);
void usdt__free(struct usdt_probe *probes);

/* the pt_regs byte offset of a register number from usdt_arg (x86-64) */
int usdt__reg_offset(int reg);

#endif
