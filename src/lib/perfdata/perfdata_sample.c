// SPDX-License-Identifier: GPL-2.0
/*
 * perfdata_sample.c - decoding one PERF_RECORD_SAMPLE body for its attr, field by
 * field in the kernel's order (include/uapi/linux/perf_event.h), every length
 * checked against the record; and the names of record types.
 */
#include "lib/perfdata/perfdata.h"
#include "lib/perfdata/perfdata_int.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

static inline uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

const char *perfdata__record_name(uint32_t type)
{
	static const char *const k[] = {
		[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST", [PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT", [PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE", [PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ", [PERF_RECORD_SAMPLE] = "SAMPLE", [PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX", [PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES", [PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE", [PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL", [PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP", [PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	};

	if (type < sizeof(k) / sizeof(k[0]) && k[type])
		return k[type];
	switch (type) {
	case PERFDATA_RECORD_HEADER_ATTR: return "HEADER_ATTR";
	case PERFDATA_RECORD_HEADER_TRACING_DATA: return "HEADER_TRACING_DATA";
	case PERFDATA_RECORD_HEADER_BUILD_ID: return "HEADER_BUILD_ID";
	case PERFDATA_RECORD_FINISHED_ROUND: return "FINISHED_ROUND";
	case PERFDATA_RECORD_ID_INDEX: return "ID_INDEX";
	case PERFDATA_RECORD_TIME_CONV: return "TIME_CONV";
	case PERFDATA_RECORD_HEADER_FEATURE: return "HEADER_FEATURE";
	case PERFDATA_RECORD_COMPRESSED: return "COMPRESSED";
	case PERFDATA_RECORD_FINISHED_INIT: return "FINISHED_INIT";
	}
	return "UNKNOWN";
}

/* ----------------------------------------------------------------- samples */

struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t take64(struct cur *c)
{
	uint64_t v;

	if (c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	v = rd64(c->p);
	c->p += 8;
	return v;
}

/* n u64s, 8-aligned in memory (pointers are handed out); NULL and bad otherwise */
static const void *take_array(struct cur *c, uint64_t n, size_t elem)
{
	const void *p = c->p;

	if (c->bad || ((uintptr_t)c->p & 7) || n > (uint64_t)(c->end - c->p) / elem) {
		c->bad = true;
		return NULL;
	}
	c->p += n * elem;
	return p;
}

static void skip_read(struct cur *c, const struct perf_event_attr *a)
{
	uint64_t rf = a->read_format, per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);

	if (rf & PERF_FORMAT_GROUP) {
		uint64_t nr = take64(c);

		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			take64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			take64(c);
		take_array(c, nr, per * 8);
	} else {
		take64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			take64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			take64(c);
		if (rf & PERF_FORMAT_ID)
			take64(c);
		if (rf & PERF_FORMAT_LOST)
			take64(c);
	}
}

int perfdata__parse_sample(const struct perf_event_attr *a, const void *rec, size_t size,
			   struct perfdata_sample *s)
{
	uint64_t st = a->sample_type, v;
	struct cur c = { (const uint8_t *)rec + 8, (const uint8_t *)rec + size, false };

	memset(s, 0, sizeof(*s));
	if (size < 8)
		return -EBADMSG;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->id = take64(&c);
	if (st & PERF_SAMPLE_IP)
		s->ip = take64(&c);
	if (st & PERF_SAMPLE_TID) {
		v = take64(&c);
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = take64(&c);
	if (st & PERF_SAMPLE_ADDR)
		s->addr = take64(&c);
	if (st & PERF_SAMPLE_ID)
		s->id = take64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		s->stream_id = take64(&c);
	if (st & PERF_SAMPLE_CPU)
		s->cpu = (uint32_t)take64(&c);
	/* a fixed period (-c N) is not in the records: perf takes the attr's */
	s->period = st & PERF_SAMPLE_PERIOD ? take64(&c) : a->sample_period;
	if (st & PERF_SAMPLE_READ)
		skip_read(&c, a);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		s->nr_callchain = take64(&c);
		s->callchain = take_array(&c, s->nr_callchain, 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		if (c.end - c.p < 4)
			return -EBADMSG;
		s->raw_size = rd32(c.p);
		c.p += 4;
		if (s->raw_size > (uint64_t)(c.end - c.p))
			return -EBADMSG;
		s->raw = c.p;
		c.p += s->raw_size;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		s->nr_branch = take64(&c);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			take64(&c);
		s->branch = take_array(&c, s->nr_branch, sizeof(struct perf_branch_entry));
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		s->user_abi = take64(&c);
		if (s->user_abi) {
			s->user_regs_mask = a->sample_regs_user;
			s->nr_user_regs = pd_popcount(a->sample_regs_user);
			s->user_regs = take_array(&c, s->nr_user_regs, 8);
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t sz = take64(&c);

		if (sz) {
			s->user_stack = take_array(&c, sz, 1);
			v = take64(&c);		/* dyn_size: how much of it is real */
			s->user_stack_size = v < sz ? v : sz;
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		s->weight = take64(&c);
	if (st & PERF_SAMPLE_DATA_SRC)
		s->data_src = take64(&c);
	if (st & PERF_SAMPLE_TRANSACTION)
		s->transaction = take64(&c);
	if (st & PERF_SAMPLE_REGS_INTR) {
		if (take64(&c))
			take_array(&c, pd_popcount(a->sample_regs_intr), 8);
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = take64(&c);
	return c.bad ? -EBADMSG : 0;
}

/* ----------------------------------------------------------------- records */

/* the sample_id trailer of a non-sample record: time and cpu; false if none */
bool pd_trailer(const struct perf_event_attr *a, const uint8_t *rec, uint16_t size, uint64_t *time, uint32_t *cpu,
		uint32_t *pid)
{
	uint64_t st = a->sample_type;
	const uint8_t *p;
	size_t hdr = pd_id_hdr_size(st);

	if (!a->sample_id_all || size < 8 + hdr)
		return false;
	p = rec + size - hdr;
	if (st & PERF_SAMPLE_TID) {
		*pid = rd32(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		*time = rd64(p);
		p += 8;
	}
	p += 8 * (!!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID));
	if (st & PERF_SAMPLE_CPU)
		*cpu = rd32(p);
	return true;
}

/* a NUL-terminated string inside [p, end), or NULL */
static const char *str_in(const uint8_t *p, const uint8_t *end)
{
	return p < end && memchr(p, 0, end - p) ? (const char *)p : NULL;
}

int pd_decode_record(struct perfdata_event *ev, const struct perf_event_attr *a)
{
	const uint8_t *rec = ev->raw, *end;
	struct perf_event_header h = { .type = ev->type, .misc = ev->misc, .size = ev->size };

	end = rec + h.size;
	if (h.type != PERF_RECORD_SAMPLE) {
		uint32_t pid = 0;

		ev->has_sample_id = pd_trailer(a, rec, h.size, &ev->time, &ev->cpu, &pid);
		if (ev->has_sample_id)
			end -= pd_id_hdr_size(a->sample_type);
	}
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		if (perfdata__parse_sample(a, rec, h.size, &ev->sample))
			return -EBADMSG;
		ev->cpu = ev->sample.cpu;
		ev->has_sample_id = true;
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		const uint8_t *name = rec + (h.type == PERF_RECORD_MMAP ? 40 : 72);

		if (name >= end || !(ev->mmap.filename = str_in(name, end)))
			return -EBADMSG;
		ev->mmap.pid = rd32(rec + 8);
		ev->mmap.tid = rd32(rec + 12);
		ev->mmap.start = rd64(rec + 16);
		ev->mmap.len = rd64(rec + 24);
		ev->mmap.pgoff = rd64(rec + 32);
		ev->mmap.prot = PROT_EXEC;
		if (h.type == PERF_RECORD_MMAP2) {
			if (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				ev->mmap.build_id_size = rec[40] <= 20 ? rec[40] : 20;
				ev->mmap.build_id = rec + 44;
			} else {
				ev->mmap.maj = rd32(rec + 40);
				ev->mmap.min = rd32(rec + 44);
				ev->mmap.ino = rd64(rec + 48);
				ev->mmap.ino_generation = rd64(rec + 56);
			}
			ev->mmap.prot = rd32(rec + 64);
			ev->mmap.flags = rd32(rec + 68);
		}
		break;
	}
	case PERF_RECORD_COMM:
		if (end - rec <= 16 || !(ev->comm.comm = str_in(rec + 16, end)))
			return -EBADMSG;
		ev->comm.pid = rd32(rec + 8);
		ev->comm.tid = rd32(rec + 12);
		ev->comm.exec = h.misc & PERF_RECORD_MISC_COMM_EXEC;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (end - rec < 32)
			return -EBADMSG;
		ev->task.pid = rd32(rec + 8);
		ev->task.ppid = rd32(rec + 12);
		ev->task.tid = rd32(rec + 16);
		ev->task.ptid = rd32(rec + 20);
		ev->task.time = rd64(rec + 24);
		break;
	case PERF_RECORD_LOST:
		if (end - rec < 24)
			return -EBADMSG;
		ev->lost.id = rd64(rec + 8);
		ev->lost.lost = rd64(rec + 16);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (end - rec < 16)
			return -EBADMSG;
		ev->lost.lost = rd64(rec + 8);
		break;
	case PERF_RECORD_KSYMBOL:
		if (end - rec <= 24 || !(ev->ksymbol.name = str_in(rec + 24, end)))
			return -EBADMSG;
		ev->ksymbol.addr = rd64(rec + 8);
		ev->ksymbol.len = rd32(rec + 16);
		ev->ksymbol.ksym_type = rd16(rec + 20);
		ev->ksymbol.flags = rd16(rec + 22);
		break;
	}
	return 0;
}

int perfdata__parse_records(const struct perfdata_attr *attr, const void *recs, size_t len,
			    int (*fn)(const struct perfdata_event *ev, void *ctx), void *ctx)
{
	const uint8_t *p = recs, *end = p + len;

	while (end - p >= (ptrdiff_t)sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		struct perfdata_event ev = { 0 };
		int rc;

		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h) || h.size > end - p)
			return -EBADMSG;
		ev.type = h.type;
		ev.misc = h.misc;
		ev.size = h.size;
		ev.raw = p;
		ev.attr = attr;
		if (!pd_decode_record(&ev, &attr->attr) && (rc = fn(&ev, ctx)))
			return rc;
		p += h.size;
	}
	return 0;
}
