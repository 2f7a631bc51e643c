/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracedat.h - trace-cmd's trace.dat file (trace-cmd.dat(5), version 6):
 * writing one from a tracefs instance's per-CPU raw pages, and reading one
 * (sonde's or trace-cmd's) back into the lines `trace-cmd report` prints.
 * libtraceevent does the event formats, the page decoding (kbuffer) and the
 * printing. The file's own layout (its sections, options and per-CPU page
 * runs) is neither libtraceevent's nor libtracefs'; Debian's libtracecmd has
 * it, but would be one more shared library in the one binary (and in the
 * VM's static build) for about 600 lines of layout, so it is written and
 * parsed here, every length checked (tests/fuzz/fuzz_tracedat.c).
 * Errors: 0 or -errno, with a one-line reason in err.
 */
#ifndef SONDE_TRACEDAT_H
#define SONDE_TRACEDAT_H

#include <stddef.h>

/* recording: the raw pages of an instance's per-CPU buffers, kept in memory */
struct tracedat_rec;

/* open per_cpu/cpuN/trace_pipe_raw of the instance dir (before tracing starts) */
int tracedat_rec__open(struct tracedat_rec **r, const char *instance_dir, char *err, size_t errlen);
/* read the pages the buffers have now (all of them, also partly filled ones) */
int tracedat_rec__drain(struct tracedat_rec *r, char *err, size_t errlen);
/* pages read so far */
unsigned long long tracedat_rec__pages(const struct tracedat_rec *r);
/*
 * Write path as trace-cmd's version 6 file: the headers and the formats of the
 * events enabled in the instance from tracefs at root, the saved cmdlines,
 * the trace clock, and the pages.
 */
int tracedat_rec__write(struct tracedat_rec *r, const char *root, const char *path, char *err, size_t errlen);
void tracedat_rec__free(struct tracedat_rec *r);

/*
 * Read a trace.dat (version 6, or 7 uncompressed or with zstd) from buf and call
 * line for each line `trace-cmd report` prints ("cpus=N" then the events in
 * time order); a non-zero return from line stops the reading and is returned.
 * A truncated or corrupted file is -EINVAL with what and where in err.
 */
int tracedat__report(const unsigned char *buf, size_t len, int (*line)(const char *s, void *arg), void *arg,
		     char *err, size_t errlen);

#endif
