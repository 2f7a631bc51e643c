/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recording.h - what a live recording writes into its perf.data besides the
 * kernel's records: the sampler's events declared to the writer, and records
 * of what already runs on the target (the kernel map, BPF programs, the
 * processes' names and memory maps). The writer and the sampler stay the
 * caller's; nothing here allocates what it returns.
 */
#ifndef SONDE_RECORDING_H
#define SONDE_RECORDING_H

#include <stdbool.h>

#include "lib/event/event.h"
#include "lib/event/sampler.h"
#include "lib/perfdata/perfdata.h"
#include "lib/proc/target.h"

/*
 * Before perfdata_writer__begin(): every event of evl, opened by s, with the
 * ids the kernel gave its fds. 0, or -errno with the index of the event the
 * writer refused in *bad.
 */
int recording__add_events(struct perfdata_writer *w, const struct evlist *evl, const struct sampler *s, int *bad);

/*
 * After perfdata_writer__begin(): the records of what runs already on t: the
 * kernel map, then the COMM and MMAP2 records of every process (system-wide),
 * of the -p processes, or of the processes of the -t threads (a started
 * command has none yet); with dwarf, the data maps DWARF unwinders read too.
 * *kernel_rc says why the kernel map record is missing (-errno), else 0.
 * 0 or -errno (a process that ended meanwhile is no error).
 */
int recording__synthesize(struct perfdata_writer *w, const struct target *t, bool dwarf, int *kernel_rc);

#endif
