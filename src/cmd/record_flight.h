/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record_flight.h - `sonde record --flight`: the records of the last window
 * kept in memory (lib/record/flight_ring.h) and written to a timestamped
 * perf.data file on each trigger: SIGUSR2, `sonde record --dump PID`, a line
 * on the --control FIFO, a --trigger condition, and the end with
 * --dump-on-exit. record.c owns the sampler, the loop and the target; this
 * file owns the ring, the watchers and the FIFO, freed by flight_rec__free().
 */
#ifndef SONDE_RECORD_FLIGHT_H
#define SONDE_RECORD_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/event/event.h"
#include "lib/event/sampler.h"
#include "lib/loop/loop.h"
#include "lib/proc/target.h"
#include "lib/record/trigger.h"

#define FLIGHT_MAX_TRIGGERS 8
/* the sigqueue value that says a SIGUSR2 comes from `sonde record --dump` */
#define FLIGHT_DUMP_MAGIC 0x534f4e44

struct flight_rec_opts {
	uint64_t window_ns;		/* --flight */
	size_t cap;			/* --flight-size */
	uint64_t holdoff_ns;		/* --holdoff: least time between two condition dumps */
	const char *prefix;		/* -o: dumps are PREFIX.YYYYMMDD-HHMMSS */
	const char *control;		/* --control fifo:CTL[,ACK] */
	bool dump_on_exit, quiet;
	struct trigger trig[FLIGHT_MAX_TRIGGERS];
	int nr_trig;
	int zlevel;
	int argc;			/* the command line, for each dump's header */
	char **argv;
};

struct flight_rec;

/*
 * Set up after the sampler opened: the ring, the watchers of the triggers, the
 * FIFO, SIGUSR2, all hooked to loop l. -1 after an error line, else 0.
 */
int flight_rec__start(struct flight_rec **out, const struct flight_rec_opts *o, struct sampler *s,
		      const struct evlist *evl, const struct target *t, struct loop *l,
		      const struct sampler_config *cfg);
/* a sampler__drain() callback: records into the ring */
int flight_rec__take(void *ctx, const void *recs, size_t len);
/* every tick: expire, percentile triggers, the status line; -errno ends the loop */
int flight_rec__tick(struct flight_rec *f, bool tty);
/* the loop ended: the dump asked by --dump-on-exit, the summary; -1 after an error line */
int flight_rec__end(struct flight_rec *f, const struct loop *l, enum loop_end end);
void flight_rec__free(struct flight_rec *f);

/* `sonde record --dump PID`: sonde's exit status */
int flight_rec__send_dump(const char *pid);

#endif
