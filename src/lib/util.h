/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - small helpers more than one module needs: timerfds, the monotonic
 * clock, an edit distance for "did you mean" suggestions. Nothing allocates.
 */
#ifndef SONDE_UTIL_H
#define SONDE_UTIL_H

#include <stdbool.h>
#include <stdint.h>

/* arm timerfd fd to fire after ns nanoseconds (at least 1), then every ns if periodic; 0 or -errno */
int util__timer_arm(int fd, long long ns, bool periodic);

/* CLOCK_MONOTONIC in nanoseconds */
uint64_t util__now_ns(void);

/* the integer a file holds (a sysfs or procfs knob); 0, -ENOENT or -EINVAL */
int util__read_int(const char *path, int *v);

/* Levenshtein distance of two short strings (99 when longer than 94 bytes) */
int util__edit_distance(const char *a, const char *b, bool ignore_case);

#endif
