// SPDX-License-Identifier: GPL-2.0
/*
 * flight_dump.c - a flight recorder's window written as a perf.data file.
 */
#include "lib/record/flight_dump.h"
#include "lib/perfdata/perfdata.h"
#include "lib/perfdata/recording.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int write_one(void *ctx, const void *rec, size_t len)
{
	return perfdata_writer__write(ctx, rec, len);
}

int flight__dump(const struct flight_ring *r, const struct flight_dump *d, struct flight_window *win,
		 char *err, size_t errlen)
{
	struct perfdata_writer *w = NULL;
	char **argv = calloc(d->argc + 2, sizeof(char *));
	int rc, bad = 0, krc;

	memset(win, 0, sizeof(*win));
	if (!argv) {
		snprintf(err, errlen, "cannot write '%s': %s", d->path, strerror(ENOMEM));
		return -ENOMEM;
	}
	memcpy(argv, d->argv, d->argc * sizeof(char *));
	if (d->note)
		argv[d->argc] = (char *)d->note;
	rc = perfdata_writer__create(&w, d->path, err, errlen);
	if (rc)
		goto out;
	if ((rc = recording__add_events(w, d->evl, d->s, &bad))) {
		snprintf(err, errlen, "cannot write '%s': event '%s': %s", d->path, d->evl->ev[bad].name, strerror(-rc));
		goto out;
	}
	if (d->zlevel && (rc = perfdata_writer__set_compression(w, d->zlevel, d->ring_bytes)))
		goto fail;
	if ((rc = perfdata_writer__set_cmdline(w, d->argc + !!d->note, argv)))
		goto fail;
	if ((rc = perfdata_writer__begin(w)) || (rc = recording__synthesize(w, d->t, d->dwarf, &krc)))
		goto fail;
	if ((rc = perfdata_writer__commit(w, err, errlen)))
		goto out;
	if ((rc = flight_ring__walk(r, d->now_ns, write_one, w, win)))
		goto fail;
	rc = perfdata_writer__finish(w, err, errlen);
	goto out;
fail:
	if (rc > 0)
		rc = -rc;
	snprintf(err, errlen, "cannot write '%s': %s", d->path, strerror(-rc));
out:
	perfdata_writer__free(w);
	free(argv);
	return rc;
}

int flight__dump_path(const char *prefix, time_t when, char *buf, size_t len)
{
	struct tm tm;
	char stamp[32];
	struct stat st;

	localtime_r(&when, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (int n = 1; n < 1000; n++) {
		int k = n == 1 ? snprintf(buf, len, "%s.%s", prefix, stamp)
			       : snprintf(buf, len, "%s.%s-%d", prefix, stamp, n);

		if (k < 0 || (size_t)k >= len)
			return -ENAMETOOLONG;
		if (lstat(buf, &st) && errno == ENOENT)
			return 0;
	}
	return -EEXIST;
}
