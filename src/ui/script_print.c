// SPDX-License-Identifier: GPL-2.0
/*
 * script_print.c - perf script's text for a session's samples and records, with
 * perf's -F field selection; see script_print.h
 */
#include "ui/script_print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum field {
	F_COMM, F_TID, F_PID, F_TIME, F_CPU, F_EVENT, F_TRACE, F_IP, F_SYM, F_DSO, F_ADDR,
	F_SYMOFF, F_SRCLINE, F_PERIOD, F_NR,
};

static const char *const field_names[F_NR] = {
	"comm", "tid", "pid", "time", "cpu", "event", "trace", "ip", "sym", "dso", "addr",
	"symoff", "srcline", "period",
};

#define BIT(f) (1u << (f))
#define DEFAULT_SAMPLE (BIT(F_COMM) | BIT(F_TID) | BIT(F_CPU) | BIT(F_TIME) | BIT(F_EVENT) | BIT(F_IP) | \
			BIT(F_SYM) | BIT(F_DSO) | BIT(F_SYMOFF) | BIT(F_PERIOD))
#define DEFAULT_TRACE (BIT(F_COMM) | BIT(F_TID) | BIT(F_CPU) | BIT(F_TIME) | BIT(F_EVENT) | BIT(F_TRACE))

enum { KIND_SAMPLE, KIND_TRACE, NR_KINDS };	/* struct script_print's fields[] */

static int find_field(const char *s, size_t n)
{
	for (int f = 0; f < F_NR; f++)
		if (strlen(field_names[f]) == n && !strncmp(field_names[f], s, n))
			return f;
	return -1;
}

/* sw:/hw:/trace: prefixes choose the kind of event */
int script_print__parse_fields(struct script_print *sc, const char *spec, char *err, size_t errlen)
{
	const char *p = spec;
	bool only[NR_KINDS] = { true, true };
	const char *colon = strchr(spec, ':');

	if (colon && !strchr(spec, ',' ) ? true : colon && colon < strchr(spec, ',')) {
		size_t n = colon - spec;

		if ((n == 2 && (!strncmp(spec, "sw", 2) || !strncmp(spec, "hw", 2))) || (n == 3 && !strncmp(spec, "raw", 3)))
			only[KIND_TRACE] = false;
		else if (n == 5 && !strncmp(spec, "trace", 5))
			only[KIND_SAMPLE] = false;
		else {
			snprintf(err, errlen, "-F '%s': unknown event type '%.*s' (sw, hw, raw or trace)", spec, (int)n, spec);
			return -1;
		}
		p = colon + 1;
	}
	while (*p) {
		size_t n = strcspn(p, ",");
		int sign = 0, f;

		if (*p == '+' || *p == '-') {
			sign = *p == '+' ? 1 : -1;
			p++;
			n--;
		}
		f = find_field(p, n);
		if (f < 0) {
			snprintf(err, errlen, "-F: unknown field '%.*s'; known: comm, tid, pid, time, cpu, event, trace, "
				 "ip, sym, symoff, dso, addr, srcline, period", (int)n, p);
			return -1;
		}
		for (int k = 0; k < NR_KINDS; k++) {
			if (!only[k])
				continue;
			if (!sign && !sc->user_set[k]) {
				sc->fields[k] = 0;
				sc->user_set[k] = true;
			}
			if (sign < 0)
				sc->fields[k] &= ~BIT(f);
			else
				sc->fields[k] |= BIT(f);
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

static void print_time(struct script_print *sc, uint64_t t)
{
	if (sc->ns)
		fprintf(sc->out, "%5llu.%09llu: ", (unsigned long long)(t / 1000000000ULL),
			(unsigned long long)(t % 1000000000ULL));
	else
		fprintf(sc->out, "%5llu.%06llu: ", (unsigned long long)(t / 1000000000ULL),
			(unsigned long long)(t % 1000000000ULL / 1000));
}

static void print_start(struct script_print *sc, unsigned f, bool callchain, const char *comm,
			uint32_t pid, uint32_t tid, uint32_t cpu, uint64_t time)
{
	if (f & BIT(F_COMM))
		fprintf(sc->out, callchain && (f & BIT(F_IP)) ? "%s " : "%16s ", comm);
	if ((f & BIT(F_PID)) && (f & BIT(F_TID)))
		fprintf(sc->out, "%5d/%-5d ", (int)pid, (int)tid);
	else if (f & BIT(F_PID))
		fprintf(sc->out, "%5d ", (int)pid);
	else if (f & BIT(F_TID))
		fprintf(sc->out, "%5d ", (int)tid);
	if (f & BIT(F_CPU))
		fprintf(sc->out, "[%03u] ", cpu);
	if (f & BIT(F_TIME))
		print_time(sc, time);
}

/*
 * perf's srcline of a frame: the file's base name and line; where the file has a
 * .symtab but no line (binutils' addr2line says "??:?"), "??:0" from a DWARF-
 * unwound frame's inline list, else nothing (map__fprintf_srcline() leaves
 * "??:0" out); where no line is asked for (the kernel), the DSO's short name and
 * the address
 */
static void print_srcline(struct script_print *sc, const struct session_frame *fr)
{
	const struct sym_frame *sf = &fr->sym;
	const char *file = sf->srcfile, *base;
	int line = sf->srcline;
	char jit[48];

	if (!sf->dso)
		return;
	if (!file && symbolizer__srcline_in(session__symbolizer(sc->s), sf, sf->dso_addr, &file, &line) == -ENODATA) {
		if (fr->unwound && sc->inline_)
			fprintf(sc->out, "\n  ??:0");
		return;
	}
	if (file) {
		base = strrchr(file, '/');
		fprintf(sc->out, "\n  %s:%d", base ? base + 1 : file, line);
		return;
	}
	/* the kernel's addresses are its own; a BPF program's, offsets in it (symbol.c) */
	fprintf(sc->out, "\n  %s[%llx]", session__dso_short_name(sf->dso, jit, sizeof(jit)),
		(unsigned long long)sf->dso_addr);
}

static void print_frame(struct script_print *sc, unsigned f, const struct session_frame *fr, bool callchain)
{
	const struct sym_frame *sf = &fr->sym;

	if (f & BIT(F_IP))
		fprintf(sc->out, callchain ? "\t%16llx" : " %16llx",
			(unsigned long long)(callchain && sf->dso && !fr->kernel ? sf->dso_addr : fr->ip));
	if (f & BIT(F_SYM)) {
		fprintf(sc->out, " %s", sf->sym ? sf->sym : "[unknown]");
		if ((f & BIT(F_SYMOFF)) && sf->sym)
			fprintf(sc->out, "+0x%llx", (unsigned long long)sf->offset);
	}
	/* perf's order: an inlined frame names no DSO and says so last */
	if ((f & BIT(F_DSO)) && !sf->inlined)
		fprintf(sc->out, " (%s)", sf->dso ? sf->dso : "[unknown]");
	if (f & BIT(F_SRCLINE))
		print_srcline(sc, fr);
	if (sf->inlined)
		fprintf(sc->out, " (inlined)");
}

int script_print__sample(const struct session_sample *smp, void *arg)
{
	struct script_print *sc = arg;
	const struct perfdata_sample *s = smp->s;
	unsigned f = sc->attr_fields[smp->attr_idx];
	bool cc = sc->attr_callchain[smp->attr_idx];

	/* the idle task never has a COMM record: perf calls it swapper */
	print_start(sc, f, cc, s->tid == 0 && smp->comm[0] == ':' ? "swapper" : smp->comm,
		    s->pid, s->tid, s->cpu, s->time);
	if (f & BIT(F_PERIOD))
		fprintf(sc->out, "%10llu ", (unsigned long long)s->period);
	if (f & BIT(F_EVENT))
		fprintf(sc->out, "%*s: ", sc->name_width, smp->event_name);
	if (f & BIT(F_ADDR))
		fprintf(sc->out, "%16llx ", (unsigned long long)s->addr);
	if ((f & BIT(F_TRACE)) && s->raw) {
		/* the event's print format, as perf script shows it */
		if (sc->td && tracedata__format(sc->td, smp->ev->attr->attr.config, s->raw, s->raw_size,
						s->cpu, s->time, sc->trace_buf, sizeof(sc->trace_buf)) >= 0)
			fputs(sc->trace_buf, sc->out);
		else
			fprintf(sc->out, "[%u bytes, no format for this event]", s->raw_size);
	}
	if (f & (BIT(F_IP) | BIT(F_SYM) | BIT(F_DSO))) {
		if (cc) {
			fputc('\n', sc->out);
			for (int i = 0; i < smp->nr_frames; i++) {
				print_frame(sc, f, &smp->frames[i], true);
				fputc('\n', sc->out);
			}
		} else if (smp->nr_frames) {
			print_frame(sc, f, smp->self ? smp->self : &smp->frames[0], false);
		}
	}
	fputc('\n', sc->out);
	return ferror(sc->out) ? -EIO : 0;
}

int script_print__event(const struct perfdata_event *ev, void *arg)
{
	struct script_print *sc = arg;
	unsigned f = BIT(F_COMM) | BIT(F_TID) | BIT(F_TIME) |
		     (ev->attr->attr.sample_type & PERF_SAMPLE_CPU ? BIT(F_CPU) : 0);
	uint32_t pid, tid;

	switch (ev->type) {
	case PERF_RECORD_COMM:
		if (!sc->show_task)
			return 0;
		pid = ev->comm.pid, tid = ev->comm.tid;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (!sc->show_task)
			return 0;
		pid = ev->task.pid, tid = ev->task.tid;
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (!sc->show_mmap)
			return 0;
		pid = ev->mmap.pid, tid = ev->mmap.tid;
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		if (!sc->show_lost)
			return 0;
		pid = tid = 0;
		break;
	default:
		return 0;
	}
	{
		const char *comm = session__comm(sc->s, tid);

		print_start(sc, f, false, *comm ? comm : (pid == (uint32_t)-1 || !pid ? "swapper" : ":?"),
			    pid, (uint32_t)-1 == pid ? 0 : tid, ev->cpu, ev->time);
	}
	switch (ev->type) {
	case PERF_RECORD_COMM:
		fprintf(sc->out, "PERF_RECORD_COMM%s: %s:%u/%u\n", ev->comm.exec ? " exec" : "", ev->comm.comm,
			ev->comm.pid, ev->comm.tid);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		fprintf(sc->out, "PERF_RECORD_%s(%u:%u):(%u:%u)\n", ev->type == PERF_RECORD_FORK ? "FORK" : "EXIT",
			ev->task.pid, ev->task.tid, ev->task.ppid, ev->task.ptid);
		break;
	case PERF_RECORD_MMAP:
		fprintf(sc->out, "PERF_RECORD_MMAP %d/%d: [%#llx(%#llx) @ %#llx]: %c %s\n", (int)ev->mmap.pid,
			(int)ev->mmap.tid, (unsigned long long)ev->mmap.start, (unsigned long long)ev->mmap.len,
			(unsigned long long)ev->mmap.pgoff, ev->misc & PERF_RECORD_MISC_MMAP_DATA ? 'r' : 'x',
			ev->mmap.filename);
		break;
	case PERF_RECORD_MMAP2:
		fprintf(sc->out, "PERF_RECORD_MMAP2 %d/%d: [%#llx(%#llx) @ %#llx %02x:%02x %llu %llu]: %c%c%c%c %s\n",
			(int)ev->mmap.pid, (int)ev->mmap.tid, (unsigned long long)ev->mmap.start,
			(unsigned long long)ev->mmap.len, (unsigned long long)ev->mmap.pgoff, ev->mmap.maj,
			ev->mmap.min, (unsigned long long)ev->mmap.ino, (unsigned long long)ev->mmap.ino_generation,
			ev->mmap.prot & PROT_READ ? 'r' : '-', ev->mmap.prot & PROT_WRITE ? 'w' : '-',
			ev->mmap.prot & PROT_EXEC ? 'x' : '-', ev->mmap.flags & MAP_SHARED ? 's' : 'p',
			ev->mmap.filename);
		break;
	default:
		fprintf(sc->out, "PERF_RECORD_%s lost %llu\n", perfdata__record_name(ev->type),
			(unsigned long long)ev->lost.lost);
	}
	return ferror(sc->out) ? -EIO : 0;
}

/* which fields each event shows: the defaults of its kind minus what it cannot have */
static void setup_attrs(struct script_print *sc, const struct perfdata_attr *attrs, int n)
{
	bool any_cc = false;

	for (int i = 0; i < n; i++)
		any_cc |= !!(attrs[i].attr.sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER));
	for (int i = 0; i < n; i++) {
		const struct perf_event_attr *a = &attrs[i].attr;
		int kind = a->type == PERF_TYPE_TRACEPOINT ? KIND_TRACE : KIND_SAMPLE;
		unsigned f = sc->fields[kind];
		int len = (int)strlen(attrs[i].name);

		if (!sc->user_set[kind]) {
			if (!(a->sample_type & PERF_SAMPLE_CPU))
				f &= ~BIT(F_CPU);
			if (kind == KIND_TRACE && any_cc && !sc->hide_callgraph &&
			    (a->sample_type & PERF_SAMPLE_CALLCHAIN))
				f |= BIT(F_IP) | BIT(F_SYM) | BIT(F_DSO) | BIT(F_SYMOFF);
		}
		sc->attr_fields[i] = f;
		sc->attr_callchain[i] = any_cc && !sc->hide_callgraph &&
					(a->sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER));
		if (len > sc->name_width)
			sc->name_width = len;
	}
}

void script_print__init(struct script_print *sc, FILE *out)
{
	memset(sc, 0, sizeof(*sc));
	sc->out = out;
	sc->fields[KIND_SAMPLE] = DEFAULT_SAMPLE;
	sc->fields[KIND_TRACE] = DEFAULT_TRACE;
}

bool script_print__wants_srcline(const struct script_print *sc)
{
	return (sc->fields[KIND_SAMPLE] | sc->fields[KIND_TRACE]) & BIT(F_SRCLINE);
}

int script_print__setup(struct script_print *sc, struct session *s, struct tracedata *td)
{
	int nattrs;
	const struct perfdata_attr *attrs = perfdata_reader__attrs(session__reader(s), &nattrs);

	sc->s = s;
	sc->td = td;
	sc->attr_fields = calloc(nattrs ? nattrs : 1, sizeof(*sc->attr_fields));
	sc->attr_callchain = calloc(nattrs ? nattrs : 1, sizeof(*sc->attr_callchain));
	if (!sc->attr_fields || !sc->attr_callchain)
		return -ENOMEM;
	setup_attrs(sc, attrs, nattrs);
	return 0;
}

void script_print__free(struct script_print *sc)
{
	free(sc->attr_fields);
	free(sc->attr_callchain);
	sc->attr_fields = NULL;
	sc->attr_callchain = NULL;
}
