// SPDX-License-Identifier: GPL-2.0
/* recording.c - a live recording's events and synthesized records; see recording.h */
#include "lib/perfdata/recording.h"

#include <errno.h>
#include <stdio.h>

int recording__add_events(struct perfdata_writer *w, const struct evlist *evl, const struct sampler *s, int *bad)
{
	for (int e = 0; e < evl->nr; e++) {
		int rc = perfdata_writer__add_attr(w, &evl->ev[e].attr, evl->ev[e].name, s->ids[e], s->nr_ids[e]);

		if (rc) {
			*bad = e;
			return rc;
		}
	}
	return 0;
}

int recording__synthesize(struct perfdata_writer *w, const struct target *t, bool dwarf, int *kernel_rc)
{
	int rc;

	*kernel_rc = perfdata_writer__synth_kernel(w);
	perfdata_writer__synth_data_maps(w, dwarf);
	if (t->system_wide)
		return perfdata_writer__synth_all(w);
	if (t->nr_pids) {
		for (int i = 0; i < t->nr_pids; i++)
			if ((rc = perfdata_writer__synth_task(w, t->pids[i])) && rc != -ESRCH)
				return rc;
	} else if (t->nr_tids && !t->child) {
		for (int i = 0; i < t->nr_tids; i++) {
			pid_t pid = target__tgid(t->tids[i]);
			bool seen = false;

			for (int j = 0; j < i; j++)
				seen |= target__tgid(t->tids[j]) == pid;
			if (!seen && (rc = perfdata_writer__synth_task(w, pid)) && rc != -ESRCH)
				return rc;
		}
	}
	return 0;
}
