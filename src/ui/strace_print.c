// SPDX-License-Identifier: GPL-2.0
/*
 * strace_print.c - strace's text for `sonde trace`: lines, the -c table, and
 * the --histogram; see strace_print.h.
 */
#include "ui/strace_print.h"
#include "ui/hist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ACOLUMN 40	/* strace pads "name(args) " to this column before "= ret" */

void strace_printer__init(struct strace_printer *p, FILE *out)
{
	struct timespec rt, mt;

	memset(p, 0, sizeof(*p));
	p->out = out;
	p->dopts.strsize = 32;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	p->real_off_ns = (rt.tv_sec - mt.tv_sec) * 1000000000LL + (rt.tv_nsec - mt.tv_nsec);
}

void strace_printer__fini(struct strace_printer *p)
{
	sbuf__free(&p->line);
	free(p->open_ev);
	p->open_ev = NULL;
}

static void track(struct strace_printer *p, unsigned tid, bool gone)
{
	for (int i = 0; i < p->ntids; i++)
		if (p->tids[i] == tid) {
			if (gone)
				p->tids[i] = p->tids[--p->ntids];
			return;
		}
	if (!gone && p->ntids < (int)(sizeof(p->tids) / sizeof(p->tids[0])))
		p->tids[p->ntids++] = tid;
}

static void prefix(struct strace_printer *p, unsigned tid, uint64_t ts)
{
	struct sbuf *b = &p->line;

	sbuf__reset(b);
	if (p->prefix == PFX_PLAIN)
		sbuf__printf(b, "%-5u ", tid);
	else if (p->prefix == PFX_BRACKET && p->ntids > 1)
		sbuf__printf(b, "[pid %5u] ", tid);
	if (p->tflag) {
		uint64_t ns = ts + p->real_off_ns;
		time_t sec = ns / 1000000000ULL;
		struct tm tm;
		char hms[16];

		if (p->tflag == 3) {
			sbuf__printf(b, "%lld.%06llu ", (long long)sec, (unsigned long long)(ns % 1000000000ULL) / 1000);
		} else {
			localtime_r(&sec, &tm);
			strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
			if (p->tflag == 2)
				sbuf__printf(b, "%s.%06llu ", hms, (unsigned long long)(ns % 1000000000ULL) / 1000);
			else
				sbuf__printf(b, "%s ", hms);
		}
	} else if (p->rflag) {
		uint64_t d = p->last_ts && ts > p->last_ts ? ts - p->last_ts : 0;

		sbuf__printf(b, "%6llu.%06llu ", (unsigned long long)(d / 1000000000ULL),
			     (unsigned long long)(d % 1000000000ULL) / 1000);
	}
	p->last_ts = ts;
}

static int end_line(struct strace_printer *p)
{
	struct sbuf *b = &p->line;

	sbuf__add(b, "\n", 1);
	p->lines++;
	if (fwrite(b->buf, 1, b->len, p->out) != b->len)
		return -EIO;
	return 0;
}

static bool in_set(const unsigned *set, int n, unsigned tid)
{
	for (int i = 0; i < n; i++)
		if (set[i] == tid)
			return true;
	return false;
}

static void set_del(unsigned *set, int *n, unsigned tid)
{
	for (int i = 0; i < *n; i++)
		if (set[i] == tid) {
			set[i] = set[--*n];
			return;
		}
}

/* the open entry gets " <unfinished ...>": another task's line comes first */
static int close_open(struct strace_printer *p)
{
	if (!p->open)
		return 0;
	p->open = false;
	prefix(p, p->open_ev->tid, p->open_ev->ts);
	sysdecode__call(&p->line, p->open_ev, &p->dopts, SD_ENTRY);
	sbuf__puts(&p->line, " <unfinished ...>");
	if (p->nunf < (int)(sizeof(p->unfinished) / sizeof(p->unfinished[0])))
		p->unfinished[p->nunf++] = p->open_ev->tid;
	return end_line(p);
}

int strace_printer__flush(struct strace_printer *p)
{
	return close_open(p);
}

static void signal_line(struct strace_printer *p, const struct sc_event *ev)
{
	struct sbuf *b = &p->line;
	int sig = (int)ev->args[0], code;
	const char *n = sysdecode__signame(sig);
	const unsigned char *si = ev->data[0];
	int32_t pid, uid, status;

	sbuf__printf(b, "--- %s ", n ? n : "SIG?");
	if (ev->cap_len[0] < 48) {
		sbuf__puts(b, "{...} ---");
		return;
	}
	memcpy(&code, si + 8, 4);
	memcpy(&pid, si + 16, 4);
	memcpy(&uid, si + 20, 4);
	sbuf__printf(b, "{si_signo=%s, si_code=", n ? n : "?");
	sysdecode__si_code(b, sig, code);
	if (sig == 17 && code > 0) {
		int64_t ut, st;

		memcpy(&status, si + 24, 4);
		memcpy(&ut, si + 32, 8);
		memcpy(&st, si + 40, 8);
		sbuf__printf(b, ", si_pid=%d, si_uid=%d, si_status=", pid, uid);
		if (code == 1) {
			sbuf__printf(b, "%d", status);
		} else {
			const char *sn = sysdecode__signame(status);

			sbuf__puts(b, sn ? sn : "?");
		}
		sbuf__printf(b, ", si_utime=%lld, si_stime=%lld}", (long long)ut, (long long)st);
	} else if (code <= 0 || code == 0x80) {
		if (code == 0x80 && sig != 17)
			sbuf__puts(b, "}");
		else
			sbuf__printf(b, ", si_pid=%d, si_uid=%d}", pid, uid);
	} else {
		uint64_t addr;

		memcpy(&addr, si + 16, 8);
		if (addr)
			sbuf__printf(b, ", si_addr=%#llx}", (unsigned long long)addr);
		else
			sbuf__puts(b, ", si_addr=NULL}");
	}
	sbuf__puts(b, " ---");
}

static void result(struct strace_printer *p, const struct sc_event *ev)
{
	struct sbuf *b = &p->line;
	size_t col;

	sbuf__puts(b, " ");
	col = b->len;
	if (col < ACOLUMN)
		sbuf__printf(b, "%*s", (int)(ACOLUMN - col), "");
	sysdecode__ret(b, ev);
	if (p->Tflag && ev->type == TEV_SYSCALL)
		sbuf__printf(b, " <%llu.%06llu>", (unsigned long long)(ev->dur / 1000000000ULL),
			     (unsigned long long)(ev->dur % 1000000000ULL) / 1000);
}

int strace_printer__exit(struct strace_printer *p, unsigned tid, int status, uint64_t ts)
{
	struct sbuf *b = &p->line;
	int rc = close_open(p);

	set_del(p->unfinished, &p->nunf, tid);
	prefix(p, tid, ts);
	if (status & 0x7f) {
		const char *n = sysdecode__signame(status & 0x7f);

		sbuf__printf(b, "+++ killed by %s%s +++", n ? n : "SIG?", (status & 0x80) ? " (core dumped)" : "");
	} else {
		sbuf__printf(b, "+++ exited with %d +++", (status >> 8) & 0xff);
	}
	track(p, tid, true);
	return end_line(p) ? -EIO : rc;
}

int strace_printer__event(struct strace_printer *p, const struct sc_event *ev, size_t size)
{
	struct sbuf *b = &p->line;
	int rc = 0;

	if (size < TRACE_EV_HDR)
		return 0;
	track(p, ev->tid, false);
	switch (ev->type) {
	case TEV_BEGIN:
		if (p->open && p->open_ev->tid != ev->tid)
			rc = close_open(p);
		if (!p->open_ev && !(p->open_ev = malloc(sizeof(*p->open_ev))))
			return -ENOMEM;
		memset(p->open_ev, 0, sizeof(*p->open_ev));
		memcpy(p->open_ev, ev, size < sizeof(*ev) ? size : sizeof(*ev));
		p->open = true;
		return rc;
	case TEV_SYSCALL:
		if (p->open && p->open_ev->tid == ev->tid) {
			p->open = false;
		} else {
			rc = close_open(p);
			if (in_set(p->unfinished, p->nunf, ev->tid)) {
				const struct syscall_desc *d = syscall__by_nr(ev->nr);

				set_del(p->unfinished, &p->nunf, ev->tid);
				prefix(p, ev->tid, ev->ts + ev->dur);
				sbuf__printf(b, "<... %s resumed>", d ? d->name : "syscall");
				sysdecode__call(b, ev, &p->dopts, SD_RESUME);
				result(p, ev);
				return end_line(p) ? -EIO : rc;
			}
		}
		prefix(p, ev->tid, ev->ts);
		sysdecode__call(b, ev, &p->dopts, SD_WHOLE);
		result(p, ev);
		break;
	case TEV_ENTER:
		rc = close_open(p);
		prefix(p, ev->tid, ev->ts);
		sysdecode__call(b, ev, &p->dopts, SD_WHOLE);
		result(p, ev);
		break;
	case TEV_SIGNAL:
		if (ev->args[0] == 9)	/* SIGKILL ends the task at once: strace never shows it delivered */
			return 0;
		rc = close_open(p);
		prefix(p, ev->tid, ev->ts);
		signal_line(p, ev);
		break;
	case TEV_EXIT:
		return strace_printer__exit(p, ev->tid, (int)ev->ret, ev->ts);
	default:
		return 0;
	}
	return end_line(p) ? -EIO : rc;
}

struct row {
	int nr;
	const struct sc_stat *s;
};

static const char *sort_key;

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	const char *nx, *ny;

	if (!strcmp(sort_key, "calls") && x->s->calls != y->s->calls)
		return x->s->calls > y->s->calls ? -1 : 1;
	if (!strcmp(sort_key, "errors") && x->s->errors != y->s->errors)
		return x->s->errors > y->s->errors ? -1 : 1;
	if (!strcmp(sort_key, "name")) {
		nx = syscall__by_nr(x->nr) ? syscall__by_nr(x->nr)->name : "";
		ny = syscall__by_nr(y->nr) ? syscall__by_nr(y->nr)->name : "";
		return strcmp(nx, ny);
	}
	if (!strcmp(sort_key, "time") && x->s->ns / 1000 != y->s->ns / 1000)
		return x->s->ns / 1000 > y->s->ns / 1000 ? -1 : 1;
	return x->nr - y->nr;
}

void strace_print__summary(FILE *out, const struct sc_stat *stats, const char *sortby)
{
	static const char dashes[] = "------ ----------- ----------- --------- --------- ----------------\n";
	struct row rows[TRACE_NR_MAX];
	uint64_t total_ns = 0, calls = 0, errors = 0;
	int n = 0;

	for (int nr = 0; nr < TRACE_NR_MAX; nr++) {
		if (!stats[nr].calls)
			continue;
		rows[n].nr = nr;
		rows[n++].s = &stats[nr];
		total_ns += stats[nr].ns / 1000 * 1000;
		calls += stats[nr].calls;
		errors += stats[nr].errors;
	}
	sort_key = sortby ? sortby : "time";
	if (strcmp(sort_key, "nothing"))
		qsort(rows, n, sizeof(rows[0]), cmp_rows);
	fprintf(out, "%6.6s %11.11s %11.11s %9.9s %9.9s %s\n",
		"% time", "seconds", "usecs/call", "calls", "errors", "syscall");
	fputs(dashes, out);
	for (int i = 0; i < n; i++) {
		const struct sc_stat *s = rows[i].s;
		const struct syscall_desc *d = syscall__by_nr(rows[i].nr);
		uint64_t us = s->ns / 1000;
		char name[32];

		if (d)
			snprintf(name, sizeof(name), "%s", d->name);
		else
			snprintf(name, sizeof(name), "syscall_%#x", rows[i].nr);
		fprintf(out, "%6.2f %11.6f %11llu %9llu %9.llu %s\n",
			total_ns ? 100.0 * us * 1000 / total_ns : 0.0, us / 1e6,
			(unsigned long long)(us / s->calls), (unsigned long long)s->calls,
			(unsigned long long)s->errors, name);
	}
	fputs(dashes, out);
	fprintf(out, "%6.2f %11.6f %11llu %9llu %9.llu %s\n", total_ns ? 100.0 : 0.0, total_ns / 1e9,
		(unsigned long long)(calls ? total_ns / 1000 / calls : 0), (unsigned long long)calls,
		(unsigned long long)errors, "total");
}

static void bucket_label(char *buf, size_t len, uint64_t v)
{
	static const char *const suf[] = { "", "K", "M", "G" };
	int i = 0;

	while (v >= 1024 && v % 1024 == 0 && i < 3) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)v, suf[i]);
}

void strace_print__histogram(FILE *out, const struct sc_stat *stats)
{
	for (int nr = 0; nr < TRACE_NR_MAX; nr++) {
		const struct sc_stat *s = &stats[nr];
		const struct syscall_desc *d = syscall__by_nr(nr);
		uint64_t max = 0;
		int lo = TRACE_HIST, hi = -1;

		if (!s->calls)
			continue;
		for (int b = 0; b < TRACE_HIST; b++)
			if (s->hist[b]) {
				if (b < lo)
					lo = b;
				hi = b;
				if (s->hist[b] > max)
					max = s->hist[b];
			}
		fprintf(out, "\n%s (ns), %llu calls, min %llu, avg %llu, max %llu:\n", d ? d->name : "?",
			(unsigned long long)s->calls, (unsigned long long)s->min_ns,
			(unsigned long long)(s->ns / s->calls), (unsigned long long)s->max_ns);
		for (int b = lo; b <= hi; b++) {
			char l1[16], l2[16], range[40];
			int bar = max ? (int)(s->hist[b] * 52 / max) : 0;

			bucket_label(l1, sizeof(l1), b ? 1ULL << b : 0);
			bucket_label(l2, sizeof(l2), 1ULL << (b + 1));
			snprintf(range, sizeof(range), "[%s, %s)", l1, l2);
			fprintf(out, "%-18s %8llu |%-52.*s|\n", range, (unsigned long long)s->hist[b], bar,
				"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
		}
		{
			uint64_t hist[TRACE_HIST];

			for (int b = 0; b < TRACE_HIST; b++)
				hist[b] = s->hist[b];
			hist__print_log2_percentiles(out, hist, TRACE_HIST, (int64_t)s->max_ns, 1);
		}
	}
}
