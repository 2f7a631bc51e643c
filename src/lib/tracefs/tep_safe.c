// SPDX-License-Identifier: GPL-2.0
/*
 * tep_safe.c - see tep_safe.h. The parse runs with a SIGFPE handler that jumps
 * back here. An event is added to the tep handle only after its whole format
 * parsed, so the handle stays whole; what the abandoned parse allocated is lost
 * (a few hundred bytes, once, before the file is refused).
 */
#include "lib/tracefs/tep_safe.h"

#include <setjmp.h>
#include <signal.h>
#include <traceevent/event-parse.h>

static sigjmp_buf fpe_jump;

static void on_fpe(int sig)
{
	(void)sig;
	siglongjmp(fpe_jump, 1);
}

int tep_safe__parse_event(struct tep_handle *tep, const char *buf, size_t len, const char *sys)
{
	struct sigaction sa = { .sa_handler = on_fpe }, old;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGFPE, &sa, &old);
	if (sigsetjmp(fpe_jump, 1)) {
		sigaction(SIGFPE, &old, NULL);
		return -1;
	}
	tep_parse_event(tep, buf, len, sys);
	sigaction(SIGFPE, &old, NULL);
	return 0;
}
