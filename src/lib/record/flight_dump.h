/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flight_dump.h - write what a flight recorder holds to a perf.data file that
 * perf report, perf script and sonde read: the recorder's events, the records
 * of what runs now (as a recording's start has them), then the side-band
 * records and the window's records from the ring, in time order. Nothing
 * returned needs freeing.
 */
#ifndef SONDE_FLIGHT_DUMP_H
#define SONDE_FLIGHT_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "lib/event/event.h"
#include "lib/event/sampler.h"
#include "lib/proc/target.h"
#include "lib/record/flight_ring.h"

struct flight_dump {
	const char *path;		/* the file to write (see flight__dump_path) */
	const struct evlist *evl;	/* the recorder's events, opened by s */
	const struct sampler *s;
	const struct target *t;
	bool dwarf;			/* --call-graph dwarf: the data maps too */
	int zlevel;			/* -z: 0 none */
	size_t ring_bytes;		/* a kernel buffer's size (for -z readers) */
	int argc;
	char *const *argv;		/* the recorder's command line, for the CMDLINE feature */
	const char *note;		/* one more word of it: what triggered the dump */
	uint64_t now_ns;		/* the window ends here (the records' clock) */
};

/* write the dump; 0 or -errno with one line in err; win says what it held */
int flight__dump(const struct flight_ring *r, const struct flight_dump *d, struct flight_window *win,
		 char *err, size_t errlen);

/*
 * The name of a dump made at `when`: PREFIX.YYYYMMDD-HHMMSS (local time), then
 * -2, -3... when that name is taken. 0, or -ENAMETOOLONG, -EEXIST.
 */
int flight__dump_path(const char *prefix, time_t when, char *buf, size_t len);

#endif
