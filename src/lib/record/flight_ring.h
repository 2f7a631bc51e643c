/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flight_ring.h - the memory of a flight recorder (`sonde record --flight`):
 * the records a sampler drains, kept as the kernel wrote them, for the last
 * `window` of time and at most `cap` bytes, until a trigger writes them out.
 *
 * Two stores. Samples, lost-event and throttle records go to the ring: chunks
 * appended in arrival order; a chunk whose newest record is older than the
 * window is freed, and past the cap the oldest chunk goes whatever its age
 * (the samples it held that were still in the window are counted as cut).
 * Side-band records (COMM, MMAP, MMAP2, FORK, EXIT, KSYMBOL...) say what the
 * samples' addresses mean for as long as a process lives, so they are kept
 * whatever their age, in their own store capped at cap/8 (oldest chunks
 * dropped past it, counted).
 *
 * Times are the records' own (sample TIME, the sample_id trailer), in the
 * clock the events were opened with; `now` is given by the caller in that
 * clock. The ring owns its chunks; flight_ring__free() frees them.
 */
#ifndef SONDE_FLIGHT_RING_H
#define SONDE_FLIGHT_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#define FLIGHT_DEFAULT_CAP ((size_t)64 << 20)	/* bytes of records kept at most */
#define FLIGHT_MIN_CAP ((size_t)1 << 20)

struct flight_ring;

struct flight_ring_stats {
	uint64_t samples;	/* SAMPLE records held now */
	uint64_t bytes;		/* memory held by both stores */
	uint64_t side_records;	/* side-band records held now */
	uint64_t seen;		/* SAMPLE records taken since the start */
	uint64_t lost;		/* events the kernel said it lost (LOST, LOST_SAMPLES) since the start */
	uint64_t lost_records;
	uint64_t cut;		/* samples still in the window that the cap freed */
	uint64_t side_dropped;	/* side-band records dropped at their cap */
};

/* what one walk covered */
struct flight_window {
	uint64_t samples, lost;		/* SAMPLE records handed out; events lost in the window */
	uint64_t first_ns, last_ns;	/* times of the first and last sample handed out (0 with none) */
	uint64_t from_ns;		/* the window's start: now - window */
};

/*
 * A ring keeping window_ns of records and at most cap bytes (FLIGHT_MIN_CAP at
 * least), for records of events sharing attr's sample_type and sample_id_all
 * (the sampler's events do). 0 or -errno.
 */
int flight_ring__new(struct flight_ring **out, uint64_t window_ns, size_t cap, const struct perf_event_attr *attr);
void flight_ring__free(struct flight_ring *r);

/*
 * Take records as the kernel wrote them, back to back (a sampler's drain), then
 * free what the window and the cap no longer keep. 0, or -EBADMSG for a record
 * whose size is not a multiple of 8 or runs past len (nothing after it is
 * taken), -ENOMEM.
 */
int flight_ring__add(struct flight_ring *r, const void *recs, size_t len, uint64_t now_ns);
/* free what is older than now - window (without adding) */
void flight_ring__expire(struct flight_ring *r, uint64_t now_ns);

/*
 * Hand fn every side-band record and every ring record of [now - window, now],
 * all in time order (ties in arrival order); the ring is not changed. win says
 * what was handed out. 0, fn's first non-zero value, or -ENOMEM.
 */
int flight_ring__walk(const struct flight_ring *r, uint64_t now_ns,
		      int (*fn)(void *ctx, const void *rec, size_t len), void *ctx, struct flight_window *win);

void flight_ring__stats(const struct flight_ring *r, struct flight_ring_stats *st);

#endif
