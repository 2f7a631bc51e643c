/* SPDX-License-Identifier: GPL-2.0 */
/*
 * export.h - a folded stack tree (lib/flame/folded.h) written in the formats other
 * profilers read: speedscope's JSON file format and pprof's gzip'd
 * profile.proto. Both take the "after" counts of the finished tree.
 *
 * Ownership: nothing is kept; the caller's FILE receives the bytes.
 */
#ifndef SONDE_EXPORT_H
#define SONDE_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "lib/flame/folded.h"

/*
 * speedscope "sampled" profile: one frame per distinct name, one sample per
 * distinct stack (root first) weighted by its count. name titles the profile;
 * unit is a speedscope ValueUnit ("none", "nanoseconds", "bytes"...).
 * Returns 0 or -errno with err filled.
 */
int export__speedscope(const struct folded *f, FILE *out, const char *name, const char *unit,
		       char *err, size_t errlen);

/*
 * pprof: a gzip'd perftools.profiles.Profile with one Function and one
 * Location per distinct name, one Sample per distinct stack (leaf first);
 * sample_type is type/unit ("samples"/"count"). Counts are int64 in pprof:
 * fractional counts are rounded. Returns 0 or -errno with err filled.
 */
int export__pprof(const struct folded *f, FILE *out, const char *type, const char *unit,
		  char *err, size_t errlen);

/*
 * The same with two values per sample: types[0] = { type, unit } of the before
 * counts, types[1] of the after counts (memleak: inuse_objects/count and
 * inuse_space/bytes, the sample types of a Go heap profile's in-use view).
 */
int export__pprof2(const struct folded *f, FILE *out, const char *const types[2][2], char *err, size_t errlen);

/* data (len bytes, below 4 GiB) gzip'd into out, as pprof files are; 0 or -errno */
int export__gzip(FILE *out, const void *data, size_t len);

#endif
