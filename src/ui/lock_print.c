// SPDX-License-Identifier: GPL-2.0
/*
 * lock_print.c - `sonde lock`'s tables (see lock_print.h). The kernel table is
 * perf lock contention's, column for column: contended, total wait, max wait,
 * avg wait, then type and caller (or pid and comm, or address and symbol).
 */
#include "ui/lock_print.h"
#include "lib/bpf/bpf_lock.h"
#include "lib/symbol/kdata.h"
#include "lib/symbol/symbol.h"

#include <inttypes.h>
#include <string.h>

void lock_print__time(FILE *out, unsigned long long ns, int len)
{
	static const struct {
		double base;
		const char *unit;
	} units[] = {
		{ 1e9 * 3600, "h " }, { 1e9 * 60, "m " }, { 1e9, "s " }, { 1e6, "ms" }, { 1e3, "us" },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns >= units[i].base) {
			fprintf(out, "%*.2f %s", len - 3, ns / units[i].base, units[i].unit);
			return;
		}
	fprintf(out, "%*llu %s", len - 3, ns, "ns");
}

/* "func+0x1f" for addr of pid (0: the kernel) into buf */
static const char *frame_name(struct symbolizer *sym, pid_t pid, uint64_t addr, bool kernel, char *buf, size_t len,
			      const char **dso)
{
	struct sym_frame f[8];
	int n = symbolizer__resolve(sym, pid, addr, kernel, f, 8);

	if (dso)
		*dso = n > 0 ? f[n - 1].dso : NULL;
	if (n <= 0 || !f[n - 1].sym)
		snprintf(buf, len, "[unknown] %#" PRIx64, addr);
	else
		snprintf(buf, len, "%s+%#" PRIx64, f[n - 1].sym, f[n - 1].offset);
	return buf;
}

static void print_stack(FILE *out, struct symbolizer *sym, pid_t pid, const uint64_t *ips, int n, bool kernel)
{
	char buf[512];

	for (int i = 0; i < n; i++)
		fprintf(out, "\t\t\t%#" PRIx64 "  %s\n", ips[i],
			frame_name(sym, pid, ips[i], kernel, buf, sizeof(buf), NULL));
}

static void print_waits(FILE *out, uint64_t count, uint64_t total, uint64_t max)
{
	fprintf(out, "%10" PRIu64 " ", count);
	lock_print__time(out, total, 12);
	fputc(' ', out);
	lock_print__time(out, max, 12);
	fputc(' ', out);
	lock_print__time(out, count ? total / count : 0, 12);
	fputc(' ', out);
}

static void print_head(FILE *out)
{
	fprintf(out, "%10s %12s %12s %12s ", "contended", "total wait", "max wait", "avg wait");
}

/* the lock's name: a global's symbol, or which of the task's own locks it is */
static void lock_name(const struct kdata *kd, const struct lock_row *r, char *buf, size_t len)
{
	uint64_t off = 0;
	const char *s = kdata__name(kd, r->addr, &off);

	if (s && off)
		snprintf(buf, len, "%s+%#" PRIx64, s, off);
	else if (s || (s = lock__class_name(r->klass)))
		snprintf(buf, len, "%s", s);
	else
		buf[0] = 0;
}

void lock_print__kern(FILE *out, struct symbolizer *sym, const struct kdata *kd, const struct lock_result *r,
		      const struct lock_print *po)
{
	int n = po->entries > 0 && po->entries < r->nk ? po->entries : r->nk;
	char buf[512], name[256];

	print_head(out);
	if (po->aggr == LOCK_AGGR_TASK)
		fprintf(out, "  %10s   %s\n\n", "pid", "comm");
	else if (po->aggr == LOCK_AGGR_ADDR)
		fprintf(out, "  %16s   %s\n\n", "address", "symbol");
	else
		fprintf(out, "  %10s   %s\n\n", "type", "caller");
	for (int i = 0; i < n; i++) {
		const struct lock_row *row = &r->k[i];
		int c;

		print_waits(out, row->count, row->total_ns, row->max_ns);
		if (po->aggr == LOCK_AGGR_TASK) {
			fprintf(out, "  %10d   %s\n", (int)row->pid, row->comm);
		} else if (po->aggr == LOCK_AGGR_ADDR) {
			lock_name(kd, row, name, sizeof(name));
			fprintf(out, "  %016" PRIx64 "   %s (%s)\n", row->addr, name, lock__type_name(row->flags));
		} else {
			c = lock__caller(kd, row->ips, row->nips);
			fprintf(out, "  %10s   %s\n", lock__type_name(row->flags),
				c < row->nips ? frame_name(sym, 0, row->ips[c], true, buf, sizeof(buf), NULL) : "");
			if (po->stacks)
				print_stack(out, sym, 0, row->ips, row->nips, true);
		}
	}
}

/* the first frame outside the C library (its lock and futex internals); 0 when all are in it */
static int user_caller(struct symbolizer *sym, const struct ulock_row *row, char *buf, size_t len)
{
	for (int i = 0; i < row->nips; i++) {
		const char *dso, *base;

		frame_name(sym, row->tgid, row->ips[i], false, buf, len, &dso);
		base = dso ? strrchr(dso, '/') : NULL;
		if (!base || strncmp(base + 1, "libc.so", 7))
			return i;
	}
	if (row->nips)
		frame_name(sym, row->tgid, row->ips[0], false, buf, len, NULL);
	else
		snprintf(buf, len, "%s", "");
	return 0;
}

static void print_futexes(FILE *out, struct symbolizer *sym, const struct lock_result *r, const struct lock_print *po)
{
	char buf[512];
	int shown = 0;

	print_head(out);
	fprintf(out, "  %10s   %16s   %s\n\n", "type", "address", po->aggr == LOCK_AGGR_ADDR ? "comm" : "caller");
	for (int i = 0; i < r->nu; i++) {
		const struct ulock_row *row = &r->u[i];

		if (row->kind != ULOCK_FUTEX || (po->entries > 0 && shown >= po->entries))
			continue;
		shown++;
		print_waits(out, row->count, row->wait_ns, row->wait_max_ns);
		if (po->aggr == LOCK_AGGR_ADDR) {
			fprintf(out, "  %10s   %16" PRIx64 "   %s\n", "futex", row->addr, row->comm);
			continue;
		}
		user_caller(sym, row, buf, sizeof(buf));
		fprintf(out, "  %10s   %16" PRIx64 "   %s\n", "futex", row->addr, buf);
		if (po->stacks)
			print_stack(out, sym, row->tgid, row->ips, row->nips, false);
	}
}

static void print_mutexes(FILE *out, struct symbolizer *sym, const struct lock_result *r, const struct lock_print *po)
{
	char buf[512];
	int shown = 0;

	fprintf(out, "\npthread mutexes (pthread_mutex_lock to pthread_mutex_unlock):\n");
	fprintf(out, "%10s %10s %12s %12s %12s %12s   %16s   %s\n\n", "locks", "contended", "total wait", "max wait",
		"total hold", "max hold", "mutex", po->aggr == LOCK_AGGR_ADDR ? "comm" : "caller");
	for (int i = 0; i < r->nu; i++) {
		const struct ulock_row *row = &r->u[i];

		if (row->kind != ULOCK_MUTEX || (po->entries > 0 && shown >= po->entries))
			continue;
		shown++;
		fprintf(out, "%10" PRIu64 " %10" PRIu64 " ", row->count, row->contended);
		lock_print__time(out, row->wait_ns, 12);
		fputc(' ', out);
		lock_print__time(out, row->wait_max_ns, 12);
		fputc(' ', out);
		lock_print__time(out, row->hold_ns, 12);
		fputc(' ', out);
		lock_print__time(out, row->hold_max_ns, 12);
		if (po->aggr == LOCK_AGGR_ADDR) {
			fprintf(out, "   %16" PRIx64 "   %s\n", row->addr, row->comm);
			continue;
		}
		user_caller(sym, row, buf, sizeof(buf));
		fprintf(out, "   %16" PRIx64 "   %s\n", row->addr, buf);
		if (po->stacks)
			print_stack(out, sym, row->tgid, row->ips, row->nips, false);
	}
}

void lock_print__user(FILE *out, struct symbolizer *sym, const struct lock_result *r, const struct lock_print *po)
{
	bool mutexes = false;

	print_futexes(out, sym, r, po);
	for (int i = 0; i < r->nu && !mutexes; i++)
		mutexes = r->u[i].kind == ULOCK_MUTEX;
	if (mutexes)
		print_mutexes(out, sym, r, po);
}
