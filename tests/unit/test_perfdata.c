// SPDX-License-Identifier: GPL-2.0
/* test_perfdata.c - perf.data written by the writer reads back through the reader */
#include "unit.h"
#include "lib/perfdata/perfdata.h"
#include "lib/perfdata/tracedata.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

struct rb {
	uint8_t b[4096];
	size_t n;
};

static void put(struct rb *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}
static void put64(struct rb *r, uint64_t v) { put(r, &v, 8); }
static void put32(struct rb *r, uint32_t v) { put(r, &v, 4); }

static void begin(struct rb *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, 0 };

	r->n = 0;
	put(r, &h, sizeof(h));
}

static void end(struct rb *r)
{
	uint16_t sz = (uint16_t)r->n;

	memcpy(r->b + 6, &sz, 2);
}

/* sample_id trailer for ST: pid/tid, time, cpu, identifier */
static void trailer(struct rb *r, uint32_t pid, uint64_t time, uint64_t id)
{
	put32(r, pid);
	put32(r, pid);
	put64(r, time);
	put64(r, 1);	/* cpu 1 */
	put64(r, id);
}

static void sample(struct rb *r, uint64_t id, uint64_t ip, uint32_t pid, uint64_t time, int depth)
{
	begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(r, id);
	put64(r, ip);
	put32(r, pid);
	put32(r, pid + 1);
	put64(r, time);
	put64(r, 1);
	put64(r, 1000);
	put64(r, depth + 1);
	put64(r, PERF_CONTEXT_USER);
	for (int i = 0; i < depth; i++)
		put64(r, ip + i);
	end(r);
}

static char path[64];

/* a file with two events and records out of time order; zlevel: -z */
static int write_file_z(int zlevel)
{
	struct perfdata_writer *w;
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
				     .sample_type = ST, .sample_id_all = 1, .freq = 1, .sample_freq = 99 };
	uint64_t ids0[] = { 11, 12 }, ids1[] = { 21 };
	char err[256];
	struct rb r;
	int fd;

	snprintf(path, sizeof(path), "/tmp/sonde-unit-perfdata.XXXXXX");
	fd = mkstemp(path);

	if (fd < 0)
		return -1;
	close(fd);
	if (perfdata_writer__create(&w, path, err, sizeof(err)))
		return -1;
	perfdata_writer__add_attr(w, &a, "cpu-clock", ids0, 2);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	perfdata_writer__add_attr(w, &a, "task-clock", ids1, 1);
	char *argv[] = { "record", "-g", NULL };
	perfdata_writer__set_cmdline(w, 2, argv);
	if (zlevel && perfdata_writer__set_compression(w, zlevel, 4096))
		return -1;
	if (perfdata_writer__begin(w))
		return -1;

	begin(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32(&r, 100);
	put32(&r, 100);
	put(&r, "worker\0\0", 8);
	trailer(&r, 100, 5, 11);
	end(&r);
	perfdata_writer__write(w, r.b, r.n);

	begin(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	put32(&r, 100);
	put32(&r, 100);
	put64(&r, 0x400000);
	put64(&r, 0x1000);
	put64(&r, 0);
	put32(&r, 8);
	put32(&r, 1);
	put64(&r, 42);
	put64(&r, 0);
	put32(&r, 5);
	put32(&r, 2);
	put(&r, "/bin/true\0\0\0\0\0\0\0", 16);
	trailer(&r, 100, 6, 11);
	end(&r);
	perfdata_writer__write(w, r.b, r.n);

	sample(&r, 21, 0x400100, 100, 30, 3);	/* later, on the second event */
	perfdata_writer__write(w, r.b, r.n);
	sample(&r, 12, 0x400200, 100, 20, 2);
	perfdata_writer__write(w, r.b, r.n);
	perfdata_writer__finished_round(w);

	begin(&r, PERF_RECORD_LOST, 0);
	put64(&r, 11);
	put64(&r, 7);
	trailer(&r, 100, 25, 11);
	end(&r);
	perfdata_writer__write(w, r.b, r.n);

	begin(&r, PERF_RECORD_EXIT, 0);
	put32(&r, 100);
	put32(&r, 1);
	put32(&r, 100);
	put32(&r, 1);
	put64(&r, 40);
	trailer(&r, 100, 40, 11);
	end(&r);
	perfdata_writer__write(w, r.b, r.n);

	struct perfdata_writer_stats st;

	perfdata_writer__stats(w, &st);
	if (st.samples != 2 || st.lost != 7)
		return -2;
	if (perfdata_writer__finish(w, err, sizeof(err)))
		return -3;
	perfdata_writer__free(w);
	return 0;
}

static int write_file(void)
{
	return write_file_z(0);
}

static void roundtrip(int zlevel)
{
	struct perfdata_reader *r;
	struct perfdata_event ev;
	struct stat sb;
	char err[256];
	int nr;

	CHECK_INT(write_file_z(zlevel), 0);
	CHECK(stat(path, &sb) == 0);
	CHECK_INT(sb.st_mode & 0777, 0600);
	CHECK_INT(perfdata_reader__open(&r, path, err, sizeof(err)), 0);

	const struct perfdata_attr *at = perfdata_reader__attrs(r, &nr);
	CHECK_INT(nr, 2);
	CHECK_STR(at[0].name, "cpu-clock");
	CHECK_STR(at[1].name, "task-clock");
	CHECK_INT(at[0].nr_ids, 2);
	CHECK_INT(at[1].ids[0], 21);

	const struct perfdata_features *f = perfdata_reader__features(r);
	CHECK(f->hostname && f->osrelease && f->arch);
	CHECK(f->nr_cpus_online >= 1);
	CHECK(f->total_mem_kb > 0);
	CHECK_INT(f->nr_cmdline, 3);
	CHECK_STR(f->cmdline[1], "record");
	CHECK_STR(f->cmdline[2], "-g");
	CHECK_INT(!!(f->bits[0] & (1ULL << PERFDATA_FEAT_COMPRESSED)), !!zlevel);

	/* time order: COMM 5, MMAP2 6, SAMPLE 20, LOST 25, SAMPLE 30, EXIT 40 */
	CHECK_INT(perfdata_reader__next(r, &ev), 1);
	CHECK_INT(ev.type, PERF_RECORD_COMM);
	CHECK_STR(ev.comm.comm, "worker");
	CHECK(ev.comm.exec);
	CHECK_INT(ev.time, 5);
	CHECK_INT(ev.cpu, 1);
	CHECK_INT(perfdata_reader__next(r, &ev), 1);
	CHECK_INT(ev.type, PERF_RECORD_MMAP2);
	CHECK_STR(ev.mmap.filename, "/bin/true");
	CHECK_INT(ev.mmap.start, 0x400000);
	CHECK_INT(ev.mmap.ino, 42);
	CHECK_INT(ev.mmap.prot, 5);
	CHECK_INT(perfdata_reader__next(r, &ev), 1);
	CHECK_INT(ev.type, PERF_RECORD_SAMPLE);
	CHECK_INT(ev.attr_idx, 0);
	CHECK_INT(ev.sample.ip, 0x400200);
	CHECK_INT(ev.sample.pid, 100);
	CHECK_INT(ev.sample.tid, 101);
	CHECK_INT(ev.sample.period, 1000);
	CHECK_INT(ev.sample.nr_callchain, 3);
	CHECK(ev.sample.callchain[0] == PERF_CONTEXT_USER);
	CHECK_INT(ev.sample.callchain[2], 0x400201);
	CHECK_INT(perfdata_reader__next(r, &ev), 1);
	CHECK_INT(ev.type, PERF_RECORD_LOST);
	CHECK_INT(ev.lost.lost, 7);
	CHECK_INT(perfdata_reader__next(r, &ev), 1);
	CHECK_INT(ev.type, PERF_RECORD_SAMPLE);
	CHECK_INT(ev.attr_idx, 1);
	CHECK_STR(ev.attr->name, "task-clock");
	CHECK_INT(ev.sample.nr_callchain, 4);
	CHECK_INT(perfdata_reader__next(r, &ev), 1);
	CHECK_INT(ev.type, PERF_RECORD_EXIT);
	CHECK_INT(ev.task.pid, 100);
	CHECK_INT(ev.task.ppid, 1);
	CHECK_INT(perfdata_reader__next(r, &ev), 0);

	struct perfdata_reader_stats st;

	perfdata_reader__stats(r, &st);
	CHECK_INT(st.nr_samples, 2);
	CHECK_INT(st.lost, 7);
	CHECK_INT(st.nr_by_type[PERF_RECORD_MMAP2], 1);
	perfdata_reader__rewind(r);
	CHECK_INT(perfdata_reader__next(r, &ev), 1);
	CHECK_INT(ev.type, PERF_RECORD_COMM);
	perfdata_reader__free(r);
	unlink(path);
}

TEST(perfdata_roundtrip)
{
	roundtrip(0);
}

/* the same records through COMPRESSED records (the reader expands them) */
TEST(perfdata_roundtrip_zstd)
{
	roundtrip(1);
}

static uint8_t *slurp(const char *p, size_t *n)
{
	FILE *f = fopen(p, "rb");
	uint8_t *b;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*n = ftell(f);
	rewind(f);
	b = malloc(*n);
	if (b && fread(b, 1, *n, f) != *n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

/* every truncation is refused with a line that names an offset or the truncation */
TEST(perfdata_truncated)
{
	size_t n;
	uint8_t *b;
	char err[256];

	CHECK_INT(write_file(), 0);
	b = slurp(path, &n);
	unlink(path);
	CHECK(b != NULL);
	for (size_t len = 0; len < n; len += (len < 400 ? 1 : 7)) {
		struct perfdata_reader *r = NULL;
		int rc = perfdata_reader__open_mem(&r, b, len, err, sizeof(err));

		if (rc == 0) {	/* only possible when what is cut is a feature nobody needs */
			perfdata_reader__free(r);
			continue;
		}
		CHECK(rc < 0);
		CHECK(err[0] != 0);
		CHECK(!strchr(err, '\n'));
	}
	free(b);
}

/* flipped bytes never make the reader crash or loop; errors say where */
TEST(perfdata_corrupted)
{
	size_t n;
	uint8_t *b, *c;
	char err[256];

	CHECK_INT(write_file(), 0);
	b = slurp(path, &n);
	unlink(path);
	CHECK(b != NULL);
	c = malloc(n);
	srand(42);
	for (int iter = 0; iter < 3000; iter++) {
		struct perfdata_reader *r = NULL;
		struct perfdata_event ev;

		memcpy(c, b, n);
		for (int k = 0; k < 1 + iter % 4; k++)
			c[rand() % n] ^= (uint8_t)(1 + rand() % 255);
		if (perfdata_reader__open_mem(&r, c, n, err, sizeof(err)) < 0) {
			CHECK(err[0] != 0);
			continue;
		}
		for (int guard = 0; guard < 10000; guard++) {
			int rc = perfdata_reader__next(r, &ev);

			if (rc == 0)
				break;
			if (rc < 0)
				CHECK(strstr(perfdata_reader__error(r), "offset") != NULL);
		}
		perfdata_reader__free(r);
	}
	free(c);
	free(b);
}

TEST(perfdata_not_perfdata)
{
	struct perfdata_reader *r;
	char err[256];

	CHECK_INT(perfdata_reader__open_mem(&r, "hello world, not perf data", 26, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "not a perf.data file") != NULL);
	CHECK(perfdata_reader__open(&r, "/nonexistent/x.data", err, sizeof(err)) == -ENOENT);
	CHECK_STR(err, "No such file or directory");	/* the caller names the file, once */
	/* pipe mode: magic and a 16-byte header, then nothing */
	uint64_t pipe_hdr[2] = { 0x32454c4946524550ULL, 16 };
	CHECK_INT(perfdata_reader__open_mem(&r, pipe_hdr, 16, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "pipe-mode data without an attr record") != NULL);
}

TEST(perfdata_parse_sample_dwarf)
{
	struct perf_event_attr a = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER |
					  PERF_SAMPLE_STACK_USER, .sample_regs_user = 0x7 };
	struct perfdata_sample s;
	struct rb r;

	begin(&r, PERF_RECORD_SAMPLE, 0);
	put64(&r, 0x1234);
	put32(&r, 7);
	put32(&r, 8);
	put64(&r, 2);		/* abi 64 */
	put64(&r, 100);
	put64(&r, 200);
	put64(&r, 300);
	put64(&r, 16);		/* stack size */
	put64(&r, 0x1111);
	put64(&r, 0x2222);
	put64(&r, 8);		/* dyn_size: only 8 are valid */
	end(&r);
	CHECK_INT(perfdata__parse_sample(&a, r.b, r.n, &s), 0);
	CHECK_INT(s.nr_user_regs, 3);
	CHECK_INT(s.user_regs[2], 300);
	CHECK_INT(s.user_stack_size, 8);
	CHECK_INT(s.user_stack[0], 0x11);
	/* one byte short: refused */
	CHECK_INT(perfdata__parse_sample(&a, r.b, r.n - 8, &s), -EBADMSG);
	/* a hostile callchain length */
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	begin(&r, PERF_RECORD_SAMPLE, 0);
	put64(&r, 1);
	put64(&r, 0x4000000000000000ULL);
	put64(&r, 1);
	end(&r);
	CHECK_INT(perfdata__parse_sample(&a, r.b, r.n, &s), -EBADMSG);
}

/* the tracefs formats saved for a tracepoint read back into fields that decode a record */
TEST(perfdata_tracing_roundtrip)
{
	struct perfdata_writer *w;
	struct perfdata_reader *r;
	struct tracedata *t;
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .sample_type = PERF_SAMPLE_RAW };
	uint16_t type;
	char err[256], buf[512];
	uint64_t id = 1;
	uint8_t raw[128] = { 0 };
	FILE *f;
	char idpath[] = "/sys/kernel/tracing/events/sched/sched_switch/id";

	f = fopen(idpath, "r");
	if (!f)
		return;		/* no tracefs here: nothing to save */
	CHECK(fscanf(f, "%llu", (unsigned long long *)&a.config) == 1);
	fclose(f);
	snprintf(path, sizeof(path), "/tmp/sonde-unit-perfdata.XXXXXX");
	close(mkstemp(path));
	CHECK_INT(perfdata_writer__create(&w, path, err, sizeof(err)), 0);
	CHECK_INT(perfdata_writer__add_attr(w, &a, "sched:sched_switch", &id, 1), 0);
	CHECK_INT(perfdata_writer__begin(w), 0);
	CHECK_INT(perfdata_writer__finish(w, err, sizeof(err)), 0);
	perfdata_writer__free(w);
	CHECK_INT(perfdata_reader__open(&r, path, err, sizeof(err)), 0);
	unlink(path);
	const struct perfdata_features *ft = perfdata_reader__features(r);
	CHECK(ft->tracing_data != NULL);
	CHECK_INT(tracedata__new(&t, ft->tracing_data, ft->tracing_data_size, err, sizeof(err)), 0);
	/* a record: common_type first, prev_comm after the 8 bytes of common fields */
	type = (uint16_t)a.config;
	memcpy(raw, &type, sizeof(type));
	memcpy(raw + 8, "worker", 7);
	CHECK(tracedata__format(t, a.config, raw, sizeof(raw), 0, 0, buf, sizeof(buf)) > 0);
	CHECK(!strncmp(buf, "prev_comm=worker prev_pid=0", 27));
	CHECK(strstr(buf, " ==> next_comm=") != NULL);
	/* a cut section is refused, not overrun */
	tracedata__free(t);
	CHECK(tracedata__new(&t, ft->tracing_data, ft->tracing_data_size / 2, err, sizeof(err)) < 0);
	CHECK(strstr(err, "offset") != NULL);
	perfdata_reader__free(r);
}

struct seen {
	int samples, lost, other;
	uint64_t lost_count, ip, time;
	uint32_t cpu;
};

static int count_rec(const struct perfdata_event *ev, void *ctx)
{
	struct seen *s = ctx;

	if (ev->type == PERF_RECORD_SAMPLE) {
		s->samples++;
		s->ip = ev->sample.ip;
	} else if (ev->type == PERF_RECORD_LOST) {
		s->lost++;
		s->lost_count += ev->lost.lost;
		s->time = ev->time;
		s->cpu = ev->cpu;
	} else {
		s->other++;
	}
	return 0;
}

/* a ring buffer's records decode as a file's do: samples, LOST counts with their trailer */
TEST(perfdata_parse_records)
{
	struct perfdata_attr pa = { .attr = { .sample_type = ST, .sample_id_all = 1 } };
	uint8_t buf[1024];
	size_t n = 0;
	struct seen s = { 0 };
	struct rb r;

	sample(&r, 5, 0x401000, 42, 100, 2);
	memcpy(buf + n, r.b, r.n);
	n += r.n;
	begin(&r, PERF_RECORD_LOST, 0);
	put64(&r, 5);		/* id */
	put64(&r, 17);		/* lost */
	trailer(&r, 42, 200, 5);
	end(&r);
	memcpy(buf + n, r.b, r.n);
	n += r.n;
	sample(&r, 5, 0x402000, 42, 300, 0);
	r.b[6] = 8;		/* a sample too short for its fields: skipped */
	r.b[7] = 0;
	memcpy(buf + n, r.b, 8);
	n += 8;
	CHECK_INT(perfdata__parse_records(&pa, buf, n, count_rec, &s), 0);
	CHECK_INT(s.samples, 1);
	CHECK_INT(s.ip, 0x401000);
	CHECK_INT(s.lost, 1);
	CHECK_INT(s.lost_count, 17);
	CHECK_INT(s.time, 200);
	CHECK_INT(s.cpu, 1);
	/* a size past the end */
	CHECK_INT(perfdata__parse_records(&pa, buf, n - 9, count_rec, &s), -EBADMSG);
}
