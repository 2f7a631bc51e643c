// SPDX-License-Identifier: GPL-2.0
/*
 * sched_print.c - perf sched latency's table and timehist's lines. The
 * widths, the separators and perf's small quirks (the CPU columns of -V
 * count one more than the CPUs, migration lines shift them by one) are kept
 * so that both tools' output can be compared line by line.
 */
#include "ui/sched_print.h"
#include "ui/hist.h"

#include <inttypes.h>
#include <string.h>

static const char dots[] = "----------------------------------------------------------------------------------"
			   "----------------------------------------------------------------------------------";

/* seconds.microseconds, as perf's timestamp__scnprintf_usec */
static void ts_str(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, ns / 1000000000, ns % 1000000000 / 1000);
}

void sched_print__latency(FILE *out, const struct sched_lat *l)
{
	fprintf(out, "\n %.139s\n", dots);
	fprintf(out, "  Task                  |   Runtime ms  | Switches | Avg delay ms    | Max delay ms    | "
		"Max delay start           | Max delay end          |\n");
	fprintf(out, " %.139s\n", dots);
	for (size_t i = 0; i < l->nr_rows; i++) {
		const struct sched_lat_row *r = &l->rows[i];
		char start[32], end[32];
		int n;

		if (r->nr_merged > 1)
			n = fprintf(out, "  %s:(%d) ", r->comm, r->nr_merged);
		else
			n = fprintf(out, "  %s:%d ", r->comm, r->tid);
		for (; n < 24; n++)
			fputc(' ', out);
		ts_str(r->max_start, start, sizeof(start));
		ts_str(r->max_end, end, sizeof(end));
		fprintf(out, "|%11.3f ms |%9" PRIu64 " | avg:%8.3f ms | max:%8.3f ms | max start: %12s s | "
			"max end: %12s s\n", r->runtime / 1e6, r->switches,
			(double)(r->total_delay / r->switches) / 1e6, r->max_delay / 1e6, start, end);
	}
	fprintf(out, " %.113s\n", dots);
	fprintf(out, "  TOTAL:                |%11.3f ms |%9" PRIu64 " |\n", l->total_runtime / 1e6, l->total_switches);
	fprintf(out, " %.51s\n", dots);
	if (l->nr_unordered && l->nr_timestamps)
		fprintf(out, "  INFO: %.3f%% unordered timestamps (%" PRIu64 " out of %" PRIu64 ")\n",
			100.0 * l->nr_unordered / l->nr_timestamps, l->nr_unordered, l->nr_timestamps);
	if (l->nr_lost && l->nr_events)
		fprintf(out, "  INFO: %.3f%% lost events (%" PRIu64 " out of %" PRIu64 ", in %" PRIu64 " chunks)\n",
			100.0 * l->nr_lost / l->nr_events, l->nr_lost, l->nr_events, l->nr_lost_chunks);
	if (l->nr_switch_bugs && l->nr_timestamps) {
		fprintf(out, "  INFO: %.3f%% context switch bugs (%" PRIu64 " out of %" PRIu64 ")",
			100.0 * l->nr_switch_bugs / l->nr_timestamps, l->nr_switch_bugs, l->nr_timestamps);
		if (l->nr_lost)
			fprintf(out, " (due to lost events?)");
		fprintf(out, "\n");
	}
	fprintf(out, "\n");
}

void sched_print__latency_hist(FILE *out, const struct sched_lat *l, bool per_pid)
{
	for (size_t i = 0; i < l->nr_rows; i++) {
		const struct sched_lat_row *r = &l->rows[i];

		if (per_pid)
			fprintf(out, "\npid = %d %s\n", r->tid, r->comm);
		else if (r->nr_merged > 1)
			fprintf(out, "\ncomm = %s (%d tasks)\n", r->comm, r->nr_merged);
		else
			fprintf(out, "\ncomm = %s\n", r->comm);
		hist__print_log2(out, r->hist, SCHED_LAT_SLOTS, "usecs");
		hist__print_log2_percentiles(out, r->hist, SCHED_LAT_SLOTS, (int64_t)(r->max_delay / 1000), 1000);
	}
}

/* ------------------------------------------------------------ timehist */

/* "comm[tid/pid]", "comm[tid]", or the comm alone for pid 0 (and the idle task) */
static const char *comm_str(struct sched_th_print *p, const struct sched_thread *t, char *buf, size_t len)
{
	int n;

	if (t->pid == 0)
		n = snprintf(buf, len, "%s", t->comm);
	else if (t->tid != t->pid)
		n = snprintf(buf, len, "%s[%d/%d]", t->comm, t->tid, t->pid);
	else
		n = snprintf(buf, len, "%s[%d]", t->comm, t->tid);
	if (n >= (int)len)
		n = (int)len - 1;
	if (n > p->comm_width)
		p->comm_width = n;
	return buf;
}

/* milliseconds.microseconds and a space */
static void ms(FILE *out, uint64_t ns, int width)
{
	fprintf(out, "%*" PRIu64 ".%03" PRIu64 " ", width, ns / 1000000, ns % 1000000 / 1000);
}

/* perf's letter for a prev_state: the index of its lowest bit in "RSDTtZXxKWPNn" */
static char state_char(const struct sched_thread *t, long long state)
{
	static const char letters[] = "RSDTtZXxKWPNn";
	unsigned bit = state ? (unsigned)__builtin_ffs((int)state) : 0;

	if (t->tid == 0)
		return 'I';
	return bit < sizeof(letters) - 1 ? letters[bit] : '?';
}

void sched_print__th_header(struct sched_th_print *p)
{
	int ncpus = *p->max_cpu + 1;

	fprintf(p->out, "%15s %6s ", "time", "cpu");
	if (p->visual) {
		fprintf(p->out, " ");
		for (int i = 0; i < ncpus; i++)
			fprintf(p->out, "%x", i % 16);
		fprintf(p->out, " ");
	}
	fprintf(p->out, " %-*s  %9s  %9s  %9s", p->comm_width, "task name", "wait time", "sch delay", "run time");
	if (p->state)
		fprintf(p->out, "  %s", "state");
	fprintf(p->out, "\n%15s %-6s ", "", "");
	if (p->visual)
		fprintf(p->out, " %*s ", ncpus, "");
	fprintf(p->out, " %-*s  %9s  %9s  %9s", p->comm_width, "[tid/pid]", "(msec)", "(msec)", "(msec)");
	if (p->state)
		fprintf(p->out, "  %5s", "");
	fprintf(p->out, "\n%.15s %.6s ", dots, dots);
	if (p->visual)
		fprintf(p->out, " %.*s ", ncpus, dots);
	fprintf(p->out, " %.*s  %.9s  %.9s  %.9s", p->comm_width, dots, dots, dots, dots);
	if (p->state)
		fprintf(p->out, "  %.5s", dots);
	fprintf(p->out, "\n");
}

static void switch_line(struct sched_th_print *p, const struct sched_th_line *l)
{
	char buf[32], next[30];
	int ncpus = *p->max_cpu + 1;

	if (p->visual) {
		fprintf(p->out, " ");
		for (int i = 0; i < ncpus; i++)
			fputc(i == l->cpu ? (l->thread->tid == 0 ? 'i' : 's') : ' ', p->out);
		fprintf(p->out, " ");
	}
	comm_str(p, l->thread, buf, sizeof(buf));
	fprintf(p->out, " %-*s ", p->comm_width, buf);
	ms(p->out, l->wait, 6);
	ms(p->out, l->delay, 6);
	ms(p->out, l->run, 6);
	if (p->state)
		fprintf(p->out, " %5c ", state_char(l->thread, l->state));
	if (p->next) {
		snprintf(next, sizeof(next), "next: %s[%d]", l->next_comm, l->next_pid);
		fprintf(p->out, " %-*s", p->comm_width, next);
	}
	if (p->wakeups && !p->next)
		fprintf(p->out, "  %-*s", p->comm_width, "");
}

int sched_print__th_line(const struct sched_th_line *l, void *ctx)
{
	struct sched_th_print *p = ctx;
	char ts[32], buf[32];
	int ncpus = *p->max_cpu + 1;

	ts_str(l->time, ts, sizeof(ts));
	if (l->kind == SCHED_TH_LOST) {
		fprintf(p->out, "%15s lost %" PRIu64 " events on cpu %d\n", ts, l->lost, l->cpu);
		return 0;
	}
	fprintf(p->out, "%15s [%04d] ", ts, l->cpu);
	switch (l->kind) {
	case SCHED_TH_SWITCH:
		switch_line(p, l);
		break;
	case SCHED_TH_WAKEUP:
		if (p->visual)
			fprintf(p->out, " %*s ", ncpus, "");
		comm_str(p, l->thread, buf, sizeof(buf));
		fprintf(p->out, " %-*s ", p->comm_width, buf);
		fprintf(p->out, "  %9s  %9s  %9s ", "", "", "");
		fprintf(p->out, "awakened: %s", comm_str(p, l->other, buf, sizeof(buf)));
		break;
	case SCHED_TH_MIGRATE:
		if (p->visual) {
			fprintf(p->out, "  ");
			for (int i = 0; i < ncpus; i++)
				fputc(i == l->cpu ? 'm' : ' ', p->out);
			fprintf(p->out, "  ");
		}
		comm_str(p, l->thread, buf, sizeof(buf));
		fprintf(p->out, " %-*s ", p->comm_width, buf);
		fprintf(p->out, "  %9s  %9s  %9s ", "", "", "");
		fprintf(p->out, "migrated: %s cpu %d => %d", comm_str(p, l->other, buf, sizeof(buf)), l->orig_cpu,
			l->dest_cpu);
		break;
	default:
		break;
	}
	fprintf(p->out, "\n");
	return 0;
}

/* ------------------------------------------------------------ map */

int sched_print__map_line(const struct sched_map_line *l, void *ctx)
{
	FILE *out = ctx;
	char ts[32];

	fprintf(out, "  ");
	for (int i = 0; i < l->nr_cpus; i++) {
		fputc(i == l->cpu ? '*' : ' ', out);
		if (l->cur[i])
			fprintf(out, "%2s ", l->cur[i]);
		else
			fprintf(out, "   ");
	}
	ts_str(l->time, ts, sizeof(ts));
	fprintf(out, "  %12s secs ", ts);
	if (l->announce)
		fprintf(out, "%s => %s:%d", l->in_name, l->in->comm, l->in->tid);
	fprintf(out, "\n");
	return 0;
}

/* ------------------------------------------------------------ timehist -s */

/* perf's print_sched_time(): msec.usec, truncated, then a space */
static void sched_time(FILE *out, uint64_t ns, int width)
{
	fprintf(out, "%*" PRIu64 ".%03" PRIu64 " ", width, ns / 1000000, ns % 1000000 / 1000);
}

static void summary_row(struct sched_th_print *p, const struct sched_th_total *t)
{
	char buf[32];
	const char *c = comm_str(p, t->thread, buf, sizeof(buf));	/* first: it may widen the column */
	float sd = (float)sched_th_total__rel_stddev(t);

	fprintf(p->out, "%*s   %5d  %9" PRIu64 " ", p->comm_width, c, t->thread->ppid, t->nr_switches);
	sched_time(p->out, t->run, 8);
	if (p->state) {	/* perf's wait-time summary */
		sched_time(p->out, t->sleep, 6);
		fputc(' ', p->out);
		sched_time(p->out, t->iowait, 6);
		fputc(' ', p->out);
		sched_time(p->out, t->preempt, 6);
		fputc(' ', p->out);
		sched_time(p->out, t->delay, 6);
		fputc('\n', p->out);
		return;
	}
	sched_time(p->out, t->min_run, 6);
	fputc(' ', p->out);
	sched_time(p->out, (uint64_t)t->mean, 6);
	fputc(' ', p->out);
	sched_time(p->out, t->max_run, 6);
	fprintf(p->out, "  %5.2f   %5" PRIu64 "\n", sd, t->migrations);
}

void sched_print__th_summary(struct sched_th_print *p, const struct sched_th_summary *s)
{
	uint64_t tasks = 0, switches = 0, run = 0, span = s->end - s->start;
	size_t alive = 0;

	fprintf(p->out, "\n%s summary\n", p->state ? "Wait-time" : "Runtime");
	fprintf(p->out, "%*s  parent   sched-in  ", p->comm_width, "comm");
	fprintf(p->out, p->state ? "   run-time      sleep      iowait     preempt       delay\n"
		: "   run-time    min-run     avg-run     max-run  stddev  migrations\n");
	fprintf(p->out, "%*s            (count)  ", p->comm_width, "");
	fprintf(p->out, "     (msec)     (msec)      (msec)      (msec)       %s\n", p->state ? "(msec)" : "%");
	fprintf(p->out, "%.117s\n", dots);
	for (int dead = 0; dead < 2; dead++) {
		if (dead) {
			fprintf(p->out, "\nTerminated tasks:\n");
			alive = tasks;
		}
		for (size_t i = 0; i < s->nr_tasks; i++) {
			if (s->tasks[i].thread->dead != dead)
				continue;
			summary_row(p, &s->tasks[i]);
			tasks++;
			switches += s->tasks[i].nr_switches;
			run += s->tasks[i].run;
		}
		if (!dead && !tasks)
			fprintf(p->out, "<no still running tasks>\n");
		if (dead && tasks == alive)
			fprintf(p->out, "<no terminated tasks>\n");
	}
	fprintf(p->out, "\nIdle stats:\n");
	for (int c = 0; c < s->nr_idle; c++) {
		if (!s->idle[c].present)
			continue;
		if (s->idle[c].nr_switches) {
			switches += s->idle[c].nr_switches;
			fprintf(p->out, "    CPU %2d idle for ", c);
			sched_time(p->out, s->idle[c].run, 6);
			fprintf(p->out, " msec  (%6.2f%%)\n", 100.0 * s->idle[c].run / span);
		} else {
			fprintf(p->out, "    CPU %2d idle entire time window\n", c);
		}
	}
	fprintf(p->out, "\n    Total number of unique tasks: %" PRIu64 "\nTotal number of context switches: %" PRIu64 "\n",
		tasks, switches);
	fprintf(p->out, "           Total run time (msec): ");
	sched_time(p->out, run, 2);
	fprintf(p->out, "\n    Total scheduling time (msec): ");
	sched_time(p->out, span, 2);
	fprintf(p->out, " (x %d)\n", s->max_cpu);
}

/* ------------------------------------------------------------ replay */

void sched_print__replay_head(FILE *out, const struct sched_replay_calib *c, const struct sched_replay *rp)
{
	const struct sched_replay_counts *n = sched_replay__counts(rp);

	fprintf(out, "run measurement overhead: %" PRIu64 " nsecs\n", c->run_overhead);
	fprintf(out, "sleep measurement overhead: %" PRIu64 " nsecs\n", c->sleep_overhead);
	fprintf(out, "the run test took %" PRIu64 " nsecs\n", c->run_test);
	fprintf(out, "the sleep test took %" PRIu64 " nsecs\n", c->sleep_test);
	fprintf(out, "nr_run_events:        %lu\n", n->nr_run_events);
	fprintf(out, "nr_sleep_events:      %lu\n", n->nr_sleep_events);
	fprintf(out, "nr_wakeup_events:     %lu\n", n->nr_wakeup_events);
	if (n->targetless_wakeups)
		fprintf(out, "target-less wakeups:  %lu\n", n->targetless_wakeups);
	if (n->multitarget_wakeups)
		fprintf(out, "multi-target wakeups: %lu\n", n->multitarget_wakeups);
	if (n->nr_run_events_optimized)
		fprintf(out, "run atoms optimized: %lu\n", n->nr_run_events_optimized);
	for (size_t i = 0; i < sched_replay__nr_tasks(rp); i++) {
		const struct sched_replay_task *t = sched_replay__task(rp, i);

		fprintf(out, "task %6lu (%20s:%10ld), nr_events: %lu\n", t->nr, t->comm, t->pid, t->nr_events);
	}
}

void sched_print__replay_round(FILE *out, struct sched_replay_avg *a, unsigned repeat, uint64_t wall, uint64_t cpu)
{
	a->nr_runs++;
	if (!a->run_avg)	/* perf: the first round starts both averages */
		a->run_avg = wall;
	if (!a->cpu_avg)
		a->cpu_avg = cpu;
	a->run_avg = (a->run_avg * (repeat - 1) + wall) / repeat;
	a->cpu_avg = (a->cpu_avg * (repeat - 1) + cpu) / repeat;
	fprintf(out, "#%-3lu: %0.3f, ravg: %0.2f, cpu: %0.2f / %0.2f\n", a->nr_runs, wall / 1e6, a->run_avg / 1e6,
		cpu / 1e6, a->cpu_avg / 1e6);
}
