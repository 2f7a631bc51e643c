// SPDX-License-Identifier: GPL-2.0
/*
 * ltrace_print.c - ltrace's lines from the entry and return records of
 * ltrace.bpf.c. A call is printed up to its arguments when it begins and
 * finished when it returns; anything printed in between (another thread's
 * call, a nested call, a syscall, a process exit) first cuts the open line
 * with " <unfinished ...>", and the return then comes as
 * "<... name resumed> ) = value", as ltrace does it. The value goes at column
 * 50 (ltrace's default alignment) counted from the start of the line.
 */
#include "ui/ltrace_print.h"
#include "lib/syscall/syscalls.h"
#include "lib/util.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ALIGN_COL 49	/* ltrace's --align 50, less one */
#define MAX_DEPTH 64

struct frame {
	uint32_t idx;
	bool sys;
	uint64_t ts;
};

struct ltrace_thread {
	unsigned tid, pid;
	int depth;		/* frames on the stack (may pass MAX_DEPTH: the deeper ones are not kept) */
	int last_sig;		/* the signal line printed last for it, until its next call */
	struct frame stack[MAX_DEPTH];
};

struct ltrace_stat {
	char name[64];
	uint64_t calls, ns;
};

void ltrace_printer__init(struct ltrace_printer *p, FILE *out)
{
	memset(p, 0, sizeof(*p));
	p->out = out;
	p->strmax = 32;
}

static struct ltrace_thread *thread(struct ltrace_printer *p, unsigned tid, unsigned pid)
{
	struct ltrace_thread *n;

	for (int i = 0; i < p->nr_threads; i++)
		if (p->threads[i].tid == tid)
			return &p->threads[i];
	if (!(n = realloc(p->threads, (p->nr_threads + 1) * sizeof(*n))))
		return NULL;
	p->threads = n;
	n += p->nr_threads++;
	memset(n, 0, sizeof(*n));
	n->tid = tid;
	n->pid = pid;
	return n;
}

static const char *sys_name(uint32_t nr, char *buf, size_t len)
{
	const struct syscall_desc *d = syscall__by_nr(nr);

	if (d)
		snprintf(buf, len, "SYS_%s", d->name);
	else
		snprintf(buf, len, "SYS_%u", nr);
	return buf;
}

static const char *func_name(const struct ltrace_printer *p, const struct frame *f, uint32_t idx, bool sys,
			     char *buf, size_t len)
{
	(void)f;
	if (sys)
		return sys_name(idx, buf, len);
	return idx < (uint32_t)p->nr_funcs ? p->funcs[idx].name : "?";
}

static void proto_of(const struct ltrace_printer *p, uint32_t idx, bool sys, struct lt_proto *pr)
{
	char name[48];
	const char *sig;

	if (!sys) {
		if (idx < (uint32_t)p->nr_funcs) {
			*pr = p->funcs[idx].proto;
			return;
		}
		lt_proto__default(pr);
		return;
	}
	sig = lt_proto__lookup(sys_name(idx, name, sizeof(name)));
	if (!sig || lt_proto__parse(sig, pr))
		lt_proto__default(pr);
}

/* the text of the line so far goes out; the column counts it */
static void emit(struct ltrace_printer *p)
{
	fwrite(p->line.buf, 1, p->line.len, p->out);
	p->col += p->line.len;
	sbuf__reset(&p->line);
}

static void cut_open(struct ltrace_printer *p, const char *why)
{
	if (!p->open_tid)
		return;
	fprintf(p->out, " %s\n", why);
	p->open_tid = 0;
	p->col = 0;
}

static void begin_line(struct ltrace_printer *p, unsigned tid, uint64_t ts, uint64_t ip, bool call)
{
	struct sbuf *o = &p->line;

	p->col = 0;
	sbuf__reset(o);
	if (p->pid_prefix == 1)
		sbuf__printf(o, "[pid %u] ", tid);
	else if (p->pid_prefix == 2)
		sbuf__printf(o, "%u ", tid);
	if (p->rflag) {
		uint64_t d = p->last_ts ? ts - p->last_ts : 0;

		sbuf__printf(o, "%3llu.%06llu ", (unsigned long long)(d / 1000000000),
			       (unsigned long long)(d / 1000 % 1000000));
		p->last_ts = ts;
	} else if (p->tflag) {
		int64_t real = (int64_t)ts + p->real_off_ns;
		time_t sec = real / 1000000000;
		long usec = real / 1000 % 1000000;
		struct tm tm;

		localtime_r(&sec, &tm);
		if (p->tflag >= 3)
			sbuf__printf(o, "%lld.%06ld ", (long long)sec, usec);
		else if (p->tflag == 2)
			sbuf__printf(o, "%02d:%02d:%02d.%06ld ", tm.tm_hour, tm.tm_min, tm.tm_sec, usec);
		else
			sbuf__printf(o, "%02d:%02d:%02d ", tm.tm_hour, tm.tm_min, tm.tm_sec);
	}
	if (p->iflag) {
		if (call && ip)
			sbuf__printf(o, "[%#llx] ", (unsigned long long)ip);
		else
			sbuf__printf(o, "[?] ");
	}
	p->lines++;
}

/* the captured bytes of argument `arg` (LT_RET_ARG: the value) of a record */
static void values(const struct lt_event *e, size_t size, struct lt_val *v, int n, bool ret)
{
	memset(v, 0, n * sizeof(*v));
	for (int i = 0; i < n && i < 6; i++)
		v[i].v = e->args[i], v[i].len = -1;
	for (int i = 0; i < e->nstr && i < LT_NSTR; i++) {
		int a = e->str_arg[i] == LT_RET_ARG ? 0 : e->str_arg[i];

		if ((e->str_arg[i] == LT_RET_ARG) != ret || a >= n || LT_EV_HDR + (i + 1) * LT_STR_MAX > size)
			continue;
		v[a].str = e->str[i];
		v[a].len = e->str_len[i];
		if (v[a].len > LT_STR_MAX)
			v[a].len = LT_STR_MAX;
		/* a string that filled the buffer went on past it */
		v[a].truncated = v[a].len == LT_STR_MAX;
	}
}

static void on_entry(struct ltrace_printer *p, const struct lt_event *e, size_t size, bool sys)
{
	struct ltrace_thread *t = thread(p, e->tid, e->pid);
	struct lt_val v[LT_MAX_ARGS];
	struct lt_proto pr;
	char name[48];
	int depth;

	if (!t)
		return;
	depth = t->depth;
	t->last_sig = 0;
	if (t->depth < MAX_DEPTH)
		t->stack[t->depth] = (struct frame){ e->idx, sys, e->ts };
	t->depth++;
	if (p->count)
		return;
	cut_open(p, "<unfinished ...>");
	begin_line(p, e->tid, e->ts, e->ip, !sys);
	if (p->indent > 0)
		sbuf__printf(&p->line, "%*s", p->indent * depth, "");
	if (p->show_caller && !sys && e->idx < (uint32_t)p->nr_funcs && p->funcs[e->idx].caller)
		sbuf__printf(&p->line, "%s->", p->funcs[e->idx].caller);
	sbuf__printf(&p->line, "%s(", func_name(p, NULL, e->idx, sys, name, sizeof(name)));
	proto_of(p, e->idx, sys, &pr);
	values(e, size, v, LT_MAX_ARGS, false);
	lt_format__args(&p->line, &pr, v, p->strmax);
	emit(p);
	p->open_tid = e->tid;
	p->open_depth = t->depth;
}

static void add_stat(struct ltrace_printer *p, const char *name, uint64_t ns)
{
	struct ltrace_stat *s;

	for (int i = 0; i < p->nr_stats; i++)
		if (!strcmp(p->stats[i].name, name)) {
			p->stats[i].calls++;
			p->stats[i].ns += ns;
			return;
		}
	if (!(s = realloc(p->stats, (p->nr_stats + 1) * sizeof(*s))))
		return;
	p->stats = s;
	s += p->nr_stats++;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->calls = 1;
	s->ns = ns;
}

static void on_return(struct ltrace_printer *p, const struct lt_event *e, size_t size, bool sys)
{
	struct ltrace_thread *t = thread(p, e->tid, e->pid);
	struct frame *f = NULL;
	struct lt_val v[1];
	struct lt_proto pr;
	char name[48];
	int depth = 0;

	if (!t)
		return;
	/* its entry: the innermost frame of this function (those above it never returned: longjmp) */
	for (int d = (t->depth < MAX_DEPTH ? t->depth : MAX_DEPTH) - 1; d >= 0; d--)
		if (t->stack[d].idx == e->idx && t->stack[d].sys == sys) {
			f = &t->stack[d];
			depth = d + 1;
			break;
		}
	/* the exec that started the traced command ends after the tracing began: ltrace never shows it */
	if (!f && sys && (e->idx == 59 || e->idx == 322) && !t->depth)
		return;
	if (f)
		t->depth = depth - 1;
	else if (t->depth > MAX_DEPTH)
		t->depth--;
	if (p->count) {
		if (f)
			add_stat(p, func_name(p, f, e->idx, sys, name, sizeof(name)), e->ts - f->ts);
		return;
	}
	if (p->open_tid == e->tid && f && p->open_depth == depth) {
		sbuf__printf(&p->line, ") ");
	} else {
		cut_open(p, "<unfinished ...>");
		begin_line(p, e->tid, e->ts, 0, false);
		sbuf__printf(&p->line, "<... %s resumed> ) ", func_name(p, f, e->idx, sys, name, sizeof(name)));
	}
	emit(p);
	if (p->col < ALIGN_COL)
		sbuf__printf(&p->line, "%*s", ALIGN_COL - p->col, "");
	sbuf__printf(&p->line, "= ");
	proto_of(p, e->idx, sys, &pr);
	values(e, size, v, 1, true);
	lt_format__value(&p->line, pr.ret, v, p->strmax);
	if (p->Tflag) {
		uint64_t d = f ? e->ts - f->ts : 0;

		sbuf__printf(&p->line, " <%llu.%06llu>", (unsigned long long)(d / 1000000000),
			       (unsigned long long)(d / 1000 % 1000000));
	}
	sbuf__printf(&p->line, "\n");
	emit(p);
	p->open_tid = 0;
	p->col = 0;
}

/* ltrace's line for a signal: "--- SIGUSR1 (User defined signal 1) ---" */
static void signal_line(struct ltrace_printer *p, const struct lt_event *e, int sig)
{
	begin_line(p, e->tid, e->ts, 0, false);
	sbuf__printf(&p->line, "--- SIG%s (%s) ---\n", sigabbrev_np(sig) ?: "?", strsignal(sig));
	emit(p);
	p->col = 0;
}

static void on_signal(struct ltrace_printer *p, const struct lt_event *e)
{
	struct ltrace_thread *t = thread(p, e->tid, e->pid);

	if (t)
		t->last_sig = (int)e->idx;
	if (p->count || p->no_signals)
		return;
	/* the thread's own call is left by the handler (or for good): ltrace says it does not return */
	cut_open(p, p->open_tid == e->tid ? "<no return ...>" : "<unfinished ...>");
	signal_line(p, e, (int)e->idx);
}

/* the process's calls end with its old program: ltrace's "--- Called exec() ---" */
static void on_exec(struct ltrace_printer *p, const struct lt_event *e)
{
	bool own = false;

	for (int i = 0; i < p->nr_threads; i++)
		if (p->threads[i].pid == e->pid) {
			own = own || p->threads[i].tid == p->open_tid;
			p->threads[i].depth = 0;
		}
	if (p->count)
		return;
	cut_open(p, own ? "<no return ...>" : "<unfinished ...>");
	begin_line(p, e->tid, e->ts, 0, false);
	sbuf__printf(&p->line, "--- Called exec() ---\n");
	emit(p);
	p->col = 0;
}

static void on_exit_ev(struct ltrace_printer *p, const struct lt_event *e)
{
	int status = (int)e->args[0], sig = status & 0x7f;
	bool own = false, shown = false;

	for (int i = 0; i < p->nr_threads; i++)
		if (p->threads[i].pid == e->pid) {
			own = own || p->threads[i].tid == p->open_tid;
			shown = shown || p->threads[i].last_sig == sig;
			p->threads[i] = p->threads[--p->nr_threads];
			i--;
		}
	if (p->count)
		return;
	cut_open(p, own ? "<no return ...>" : "<unfinished ...>");
	/*
	 * A fatal signal the kernel turned into SIGKILL for every thread (so
	 * never delivered as itself): ltrace shows it before the end
	 */
	if (sig && sig != SIGKILL && !shown && !p->no_signals)
		signal_line(p, e, sig);
	begin_line(p, e->tid, e->ts, 0, false);
	if (sig)
		sbuf__printf(&p->line, "+++ killed by SIG%s +++\n", sigabbrev_np(sig) ?: "?");
	else
		sbuf__printf(&p->line, "+++ exited (status %d) +++\n", (status >> 8) & 0xff);
	emit(p);
	p->col = 0;
}

/*
 * A string argument whose page was not resident at the call's entry (a forked
 * child's .rodata before it touched it: BPF cannot fault it in) comes again in
 * the call's return record. Such an entry waits for its thread's next record
 * (its return brings the strings), and the records of other threads that come
 * meanwhile wait behind it, so that the lines keep their order: the entry goes
 * out whole, "strlen("hello" <unfinished ...>" when another thread's line comes
 * before its return, as ltrace prints it. At most HELD_MAX records wait; then
 * the oldest waiting entry goes out as it is (its strings as addresses).
 */
#define HELD_MAX 1024

struct lt_held {
	size_t size;
	bool waits;
	struct lt_event ev;
};

/* an entry with a string its BPF side could not read: the return reads it again */
static bool waits_for_strings(const struct lt_event *e)
{
	if (e->type != LT_ENTRY)
		return false;
	for (int j = 0; j < e->nstr && j < LT_NSTR; j++)
		if (e->str_len[j] < 0 && e->str_arg[j] != LT_RET_ARG)
			return true;
	return false;
}

/* the strings of entry e from next, when next is its return */
static void fill_strings(struct lt_event *e, const struct lt_event *next, size_t size)
{
	if (next->type != LT_RETURN || next->idx != e->idx)
		return;
	for (int i = 0; i < next->nstr && i < LT_NSTR && LT_EV_HDR + (i + 1) * LT_STR_MAX <= size; i++) {
		if (next->str_arg[i] == LT_RET_ARG)
			continue;
		for (int j = 0; j < e->nstr && j < LT_NSTR; j++)
			if (e->str_arg[j] == next->str_arg[i] && e->str_len[j] < 0) {
				memcpy(e->str[j], next->str[i], LT_STR_MAX);
				e->str_len[j] = next->str_len[i];
			}
	}
}

static void dispatch(struct ltrace_printer *p, const struct lt_event *e, size_t size)
{
	switch (e->type) {
	case LT_ENTRY: on_entry(p, e, size, false); break;
	case LT_SYS_ENTER: on_entry(p, e, size, true); break;
	case LT_RETURN: on_return(p, e, size, false); break;
	case LT_SYS_EXIT: on_return(p, e, size, true); break;
	case LT_EXIT: on_exit_ev(p, e); break;
	case LT_SIGNAL: on_signal(p, e); break;
	case LT_EXEC: on_exec(p, e); break;
	}
}

/* the kept records up to the first that still waits; all of them with all */
static void release_held(struct ltrace_printer *p, bool all)
{
	while (p->held_lo < p->held_hi && (all || !p->held[p->held_lo].waits)) {
		struct lt_held *h = &p->held[p->held_lo++];

		dispatch(p, &h->ev, h->size);
	}
	if (p->held_lo == p->held_hi)
		p->held_lo = p->held_hi = 0;
}

static int hold(struct ltrace_printer *p, const struct lt_event *e, size_t size)
{
	struct lt_held *h;

	if (p->held_lo && (size_t)p->held_hi == p->held_cap) {	/* room at the front: move down */
		memmove(p->held, p->held + p->held_lo, (p->held_hi - p->held_lo) * sizeof(*p->held));
		p->held_hi -= p->held_lo;
		p->held_lo = 0;
	}
	if (util__grow(&p->held, &p->held_cap, (size_t)p->held_hi + 1, sizeof(*p->held), 16))
		return -ENOMEM;
	h = &p->held[p->held_hi++];
	memset(&h->ev, 0, sizeof(h->ev));
	memcpy(&h->ev, e, size < sizeof(*e) ? size : sizeof(*e));
	h->size = size < sizeof(*e) ? size : sizeof(*e);
	h->waits = waits_for_strings(e);
	return 0;
}

int ltrace_printer__event(struct ltrace_printer *p, const void *data, size_t size)
{
	const struct lt_event *e = data;
	int rc;

	if (size < LT_EV_HDR)
		return 0;
	if (p->count || (p->held_lo == p->held_hi && !waits_for_strings(e))) {
		dispatch(p, e, size);
		return ferror(p->out) ? -EIO : 0;
	}
	/* this thread's next record: what its waiting entry waited for */
	for (int i = p->held_lo; i < p->held_hi; i++)
		if (p->held[i].waits && p->held[i].ev.tid == e->tid) {
			fill_strings(&p->held[i].ev, e, size);
			p->held[i].waits = false;
			break;
		}
	if ((rc = hold(p, e, size)))
		return rc;
	if (p->held_hi - p->held_lo > HELD_MAX)
		for (int i = p->held_lo; i < p->held_hi; i++)
			if (p->held[i].waits) {
				p->held[i].waits = false;
				break;
			}
	release_held(p, false);
	return ferror(p->out) ? -EIO : 0;
}

void ltrace_printer__flush(struct ltrace_printer *p)
{
	release_held(p, true);
	cut_open(p, "<unfinished ...>");
	fflush(p->out);
}

static int by_time(const void *a, const void *b)
{
	const struct ltrace_stat *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

void ltrace_printer__summary(struct ltrace_printer *p)
{
	uint64_t total = 0, calls = 0;

	qsort(p->stats, p->nr_stats, sizeof(*p->stats), by_time);
	for (int i = 0; i < p->nr_stats; i++)
		total += p->stats[i].ns, calls += p->stats[i].calls;
	fprintf(p->out, "%% time     seconds  usecs/call     calls      function\n");
	fprintf(p->out, "------ ----------- ----------- --------- --------------------\n");
	for (int i = 0; i < p->nr_stats; i++) {
		const struct ltrace_stat *s = &p->stats[i];

		fprintf(p->out, "%6.2f %11.6f %11llu %9llu %s\n", total ? 100.0 * s->ns / total : 0.0, s->ns / 1e9,
			(unsigned long long)(s->ns / 1000 / s->calls), (unsigned long long)s->calls, s->name);
	}
	fprintf(p->out, "------ ----------- ----------- --------- --------------------\n");
	fprintf(p->out, "%6.2f %11.6f %11s %9llu total\n", 100.0, total / 1e9, "", (unsigned long long)calls);
}

uint64_t ltrace_printer__calls(const struct ltrace_printer *p)
{
	return p->lines;
}

void ltrace_printer__fini(struct ltrace_printer *p)
{
	free(p->threads);
	free(p->stats);
	free(p->held);
	p->held = NULL;
	p->held_lo = p->held_hi = p->held_cap = 0;
	sbuf__free(&p->line);
	p->threads = NULL;
	p->stats = NULL;
}
