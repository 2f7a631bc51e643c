/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output.h - what `sonde probe` prints, byte for byte as bpftrace 0.17 prints
 * it: printf records, values, maps at exit (sorted by value), hist/lhist
 * tables, stacks, and the -f json event lines. It reads the maps but owns
 * nothing of the program; strings it returns are malloc'd for the caller.
 */
#ifndef SONDE_LANG_OUTPUT_H
#define SONDE_LANG_OUTPUT_H

#include "lang/lang.h"

#include <stdio.h>
#include <sys/types.h>
#include <time.h>

struct symbolizer;
struct rowgroup;
struct pending_line;

struct out {
	FILE *f;
	bool json;
	struct program *prog;
	struct symbolizer *sym;
	int ncpus;		/* possible CPUs: per-CPU values come in that many slots */
	int kstack_fd, ustack_fd;
	pid_t *pids;		/* processes whose memory maps were read */
	int npids;
	struct rowgroup *rows;	/* sorted loops whose rows are being gathered (output_rows.c), or NULL */
	struct pending_line *lines;	/* threads' lines not ended yet (output_lines.c) */
	int nlines;
};

/* read pid's memory map once, the first time one of its user addresses is seen */
void out__pid_seen(struct out *o, pid_t pid);

/* printf/cat/system: the text of a record (malloc'd), or NULL */
char *out__format(struct out *o, const struct fmtsite *s, const uint8_t *rec, size_t len);
/* helpcheck.c: -k's warning that a helper returned ret at site s (bpftrace 0.17's text or json line); malloc'd */
char *out__helper_error(struct out *o, const struct program *p, const struct fmtsite *s, long long ret);
/* a printf's output as text or as a json "printf" event */
void out__printf(struct out *o, const char *text);
/* percentile(@h, q)'s text, from the map as it is now (output.c) */
void out__percentile(struct out *o, FILE *f, struct mapinfo *m, double q);
/* printf's text, or time()'s, cat()'s, system()'s output: -f json gives it its type ("printf", "time", "cat", "syscall") */
void out__event(struct out *o, const char *type, const char *text, size_t len);
/* print(value) */
void out__value_line(struct out *o, const struct type *t, const uint8_t *data);
/* one map as bpftrace prints it (top: only the N largest; div: divide values) */
int out__map(struct out *o, struct mapinfo *m, long long top, long long div);
/*
 * print_log2_hist()/print_linear_hist() (site s): the map as libbpf-tools
 * prints its histograms, one section per key in key order, after a line
 * "\nSECTION = KEY", or SECTION with the key in its %s (-f json: as out__map)
 */
int out__bcc_hist(struct out *o, const struct fmtsite *s);
/* output_tseries.c: a tseries() map, as upstream bpftrace draws it (or its -f json line) */
int out__tseries(struct out *o, struct mapinfo *m, long long top, long long div);
/* one series: n intervals from first_ns (CLOCK_REALTIME) every interval_ns; has[i] false: no value */
void out__tseries_graph(FILE *f, const int64_t *vals, const bool *has, int n, uint64_t first_ns, uint64_t interval_ns,
			bool unsig);
/* the key's part i (0..nkeys-1) as the map's text shows it: 42, comm, 0x7f.. (mapread.c's labels) */
void out__key_part(struct out *o, FILE *f, const struct mapinfo *m, const uint8_t *key, int i);
/* a key as the map's text shows it, "[1, x]" (json: "1,x"); malloc'd */
char *out__key_str(struct out *o, const struct mapinfo *m, const uint8_t *key, bool json);

/* output_rows.c: a sorted for loop's records; f is the stream of the row being written meanwhile */
void out__rows_begin(struct out *o, long long limit);
void out__rows_row(struct out *o, const struct type *key, const uint8_t *data);
void out__rows_end(struct out *o);	/* the rows in order, at most the limit of them */
void out__rows_flush(struct out *o);	/* ends every loop still open (exit(), lost records) */

/* output_lines.c: printf/join text of thread tid (0: none known), written a whole line at a time */
void out__lines_text(struct out *o, uint32_t tid, const char *text);
void out__lines_flush(struct out *o);	/* writes every part still waiting */

/* every map, in name order, after the two newlines bpftrace starts with */
void out__all_maps(struct out *o);

/* format.c: buf, ntop, strftime, cgroup_path, strerror values (false: not one of them) */
bool fmt__value(struct out *o, FILE *f, const struct type *t, const uint8_t *data);
/* fdiv(a, b)'s value: a / b as doubles (signed or not as its type says) */
double fmt__fdiv(const struct type *t, const uint8_t *d);
/* buf()'s bytes: printable ones as they are and \xNN for the rest (mode 0, %r), all as \xNN ('x',
 * %rx), or as hex pairs between spaces ('h', %rh) */
void fmt__buf(FILE *f, const struct type *t, const uint8_t *d, char mode);
/* strftime with bpftrace's %f, of boot-based nanoseconds; cgroup_path's "name:path,..."; malloc'd */
char *fmt__strftime(const char *fmt, uint64_t nsecs, int max);
/* a /proc/meminfo field's number (kB mostly), -1 when there is none */
long long fmt__meminfo(const char *field);
char *fmt__cgroup_path(uint64_t id, const char *filter);
/* CLOCK_REALTIME at boot, measured once: the wall time of a bpf_ktime_get_boot_ns value is this plus it */
struct timespec fmt__boot_realtime(void);

#endif
