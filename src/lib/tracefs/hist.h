/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist.h - the kernel's hist trigger spec ("keys=common_pid:vals=bytes_req
 * :sort=hitcount:size=2048 if bytes_req > 64") read into a struct, and the
 * text the kernel's events/GROUP/EVENT/hist file shows, written from entries
 * counted elsewhere: sonde's BPF twin for kernels without hist triggers
 * (CONFIG_HIST_TRIGGERS). The modifiers are the kernel's: .hex, .sym,
 * .sym-offset, .execname, .syscall, .log2, and .descending in sort=.
 * Errors: -1 with one line in err. The spec is the caller's struct, filled in
 * place; nothing returned is to free.
 */
#ifndef SONDE_TRACEFS_HIST_H
#define SONDE_TRACEFS_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HIST_MAX_KEYS 3
#define HIST_MAX_VALS 6
#define HIST_MAX_SORT 2

enum {
	HIST_HEX = 1, HIST_SYM = 2, HIST_SYM_OFFSET = 4, HIST_EXECNAME = 8, HIST_SYSCALL = 16, HIST_LOG2 = 32,
};

struct hist_field {
	char name[64];
	unsigned mods;		/* HIST_* */
	bool string;		/* a key the twin reads as a string (set by its caller) */
};

struct hist_sort {
	int idx;		/* 0: hitcount; 1..nvals: vals[idx-1]; -1-k: keys[k] */
	bool descending;
};

struct hist_spec {
	struct hist_field keys[HIST_MAX_KEYS], vals[HIST_MAX_VALS];
	int nkeys, nvals;
	struct hist_sort sort[HIST_MAX_SORT];
	int nsort;		/* 0: sort=hitcount */
	unsigned size;		/* the map's entries, a power of two (2048 unless size=) */
	char filter[512];	/* after " if ", as given */
};

/* the spec, with or without its "hist:" */
int hist_spec__parse(const char *s, struct hist_spec *h, char *err, size_t errlen);

/* the trigger as the kernel prints it in hist's "# trigger info:" (no [active]) */
void hist_spec__info(const struct hist_spec *h, char *buf, size_t len);

/* one entry, keys as the twin counted them (the raw values, before .log2) */
struct hist_entry {
	uint64_t key[HIST_MAX_KEYS];
	char *str[HIST_MAX_KEYS];	/* the string keys (NULL for numbers); the caller's */
	char comm[16];			/* .execname */
	uint64_t hits, vals[HIST_MAX_VALS];
};

/* names for .sym/.sym-offset and .syscall keys: "" when unknown */
struct hist_names {
	void (*sym)(uint64_t addr, bool offset, char *buf, size_t len, void *arg);
	const char *(*syscall)(uint64_t nr, void *arg);
	void *arg;
};

/*
 * The hist file's text for these entries: .log2 buckets merged, sorted as
 * sort= says, the "Totals:" with hits and dropped as given. Reorders e. 0, or
 * -1 (errno) when out cannot be written or memory runs out.
 */
int hist__print(const struct hist_spec *h, struct hist_entry *e, size_t n, uint64_t hits, uint64_t dropped,
		const struct hist_names *names, FILE *out);

#endif
