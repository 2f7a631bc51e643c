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
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

static sigjmp_buf fpe_jump;

static void on_fpe(int sig)
{
	(void)sig;
	siglongjmp(fpe_jump, 1);
}

/*
 * libtraceevent 1.7 reads an array field's size ("char comm[16]") token by token
 * until "]" and does not stop at the end of the format: one that ends inside the
 * brackets has it compare a NULL token (fuzz_tracedat found it). Every field of a
 * real format closes its brackets on its own line, and a format is text.
 */
static bool fields_well_formed(const char *buf, size_t len)
{
	const char *end = memmem(buf, len, "print fmt:", 10);
	int open = 0;

	if (memchr(buf, 0, len))
		return false;
	for (const char *p = buf; p < (end ? end : buf + len); p++) {
		if (*p == '[')
			open++;
		else if (*p == ']' && open)
			open--;
		else if (*p == '\n' && open)
			return false;
	}
	return !open;
}

int tep_safe__parse_event(struct tep_handle *tep, const char *buf, size_t len, const char *sys)
{
	struct sigaction sa = { .sa_handler = on_fpe }, old;

	if (!fields_well_formed(buf, len))
		return 0;	/* left out, as a format libtraceevent refuses */
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

/* whether libtraceevent reads line (one line, no '\n') within bounds: see tep_safe.h */
static bool printk_line_ok(const char *line, size_t len)
{
	size_t i = 0, rest;

	while (i < len && line[i] == ':')	/* strtok_r skips leading ':' */
		i++;
	if (i == len)
		return false;
	while (i < len && line[i] != ':')	/* the address */
		i++;
	if (i == len)
		return false;
	rest = len - i - 1;			/* after the ':' */
	if (rest < 1)
		return false;
	i += 2;					/* ':' and the space libtraceevent skips */
	rest--;
	if (rest && line[i] == '"')
		rest--;
	return rest >= 3;
}

void tep_safe__parse_printk_formats(struct tep_handle *tep, const char *text)
{
	size_t n = strlen(text), o = 0;
	char *ok = malloc(n + 2);	/* a last line without its '\n' gets one */

	if (!ok)
		return;
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);

		if (printk_line_ok(l, len)) {
			memcpy(ok + o, l, len);
			o += len;
			ok[o++] = '\n';
		}
		l += len + (e != NULL);
	}
	ok[o] = 0;
	if (o)
		tep_parse_printk_formats(tep, ok);
	free(ok);
}
