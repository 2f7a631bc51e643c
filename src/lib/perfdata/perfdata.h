/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfdata.h - the perf.data file format (tools/perf/Documentation/
 * perf.data-file-format.txt in the kernel tree): a writer for `sonde record` and a
 * reader for everything that consumes recordings (report, script, collapse).
 *
 * File layout: a 104-byte header; the attrs (perf_event_attr + a section of the
 * u64 sample ids that belong to it); the data section, a stream of records exactly
 * as the kernel writes them into the ring buffer (perf_event_header + body, with a
 * sample_id trailer when attr.sample_id_all is set); then, after the data, one
 * perf_file_section per feature bit set in the header, pointing at the feature
 * contents (hostname, build ids, tracing data...). All native-endian.
 *
 * Ownership: the writer and the reader own everything they return; pointers into a
 * reader (records, samples, strings, feature values) stay valid until
 * perfdata_reader__free().
 */
#ifndef SONDE_PERFDATA_H
#define SONDE_PERFDATA_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* feature bits of the header's flags (HEADER_* in perf) */
enum perfdata_feat {
	PERFDATA_FEAT_TRACING_DATA = 1,
	PERFDATA_FEAT_BUILD_ID = 2,
	PERFDATA_FEAT_HOSTNAME = 3,
	PERFDATA_FEAT_OSRELEASE = 4,
	PERFDATA_FEAT_VERSION = 5,
	PERFDATA_FEAT_ARCH = 6,
	PERFDATA_FEAT_NRCPUS = 7,
	PERFDATA_FEAT_CPUDESC = 8,
	PERFDATA_FEAT_CPUID = 9,
	PERFDATA_FEAT_TOTAL_MEM = 10,
	PERFDATA_FEAT_CMDLINE = 11,
	PERFDATA_FEAT_EVENT_DESC = 12,
	PERFDATA_FEAT_DIR_FORMAT = 24,
	PERFDATA_FEAT_COMPRESSED = 27,
	PERFDATA_FEAT_MAX = 256,
};

/* record types that perf (not the kernel) writes into the data section */
enum perfdata_user_record {
	PERFDATA_RECORD_HEADER_ATTR = 64,
	PERFDATA_RECORD_HEADER_TRACING_DATA = 66,
	PERFDATA_RECORD_HEADER_BUILD_ID = 67,
	PERFDATA_RECORD_FINISHED_ROUND = 68,
	PERFDATA_RECORD_ID_INDEX = 69,
	PERFDATA_RECORD_THREAD_MAP = 73,
	PERFDATA_RECORD_CPU_MAP = 74,
	PERFDATA_RECORD_STAT_CONFIG = 75,
	PERFDATA_RECORD_TIME_CONV = 79,
	PERFDATA_RECORD_HEADER_FEATURE = 80,
	PERFDATA_RECORD_COMPRESSED = 81,
	PERFDATA_RECORD_FINISHED_INIT = 82,
};

/* ------------------------------------------------------------------ writer */

struct perfdata_writer;

/*
 * Start a recording for path: written to a new file next to it (path.tmp.XXXXXX,
 * mode 0600) until perfdata_writer__commit(), so that a recording that fails to
 * start leaves an earlier path untouched; a path that exists and is not a regular
 * file (/dev/null, a FIFO, a symbolic link) is written in place. "-" is pipe mode
 * on stdout.
 * Returns 0 or -errno with one line in err.
 */
int perfdata_writer__create(struct perfdata_writer **out, const char *path,
			    char *err, size_t errlen);

/*
 * The recording began for real: the file takes path's name, and an earlier
 * non-empty path becomes path.old (as perf keeps perf.data.old). From here a
 * recording that ends badly is left at path: its header is valid from begin() on
 * and gives the data up to the last round written out, with no features (readers
 * take the records to the file's end). finish() commits if that was not done;
 * freeing an uncommitted writer removes its file. 0 or -errno with err.
 */
int perfdata_writer__commit(struct perfdata_writer *w, char *err, size_t errlen);

/*
 * Declare one event before perfdata_writer__begin(): its attr, its name as users
 * spell it ("cpu-clock", "sched:sched_switch") and the ids the kernel gave its
 * fds (PERF_EVENT_IOC_ID). Tracepoint attrs get their tracefs format file into
 * the TRACING_DATA feature. All attrs must share the sample_id layout.
 */
int perfdata_writer__add_attr(struct perfdata_writer *w, const struct perf_event_attr *attr,
			      const char *name, const uint64_t *ids, size_t nr_ids);

/* the command line to store in the CMDLINE feature (copied) */
int perfdata_writer__set_cmdline(struct perfdata_writer *w, int argc, char *const argv[]);

/*
 * Before perfdata_writer__begin(): the records go out compressed (perf record -z:
 * Zstandard at level 1-22, in COMPRESSED records). ring_bytes: the size of one ring
 * buffer; readers size their buffer from it. 0 or -errno.
 */
int perfdata_writer__set_compression(struct perfdata_writer *w, int level, size_t ring_bytes);

/* write the attrs and open the data section; 0 or -errno */
int perfdata_writer__begin(struct perfdata_writer *w);

/*
 * Append records, one or several back to back, exactly as the kernel wrote them
 * (perf_event_header first). The writer counts samples and lost events and
 * remembers the mapped files for the BUILD_ID feature. 0 or -errno (-EINVAL for
 * a malformed record, -ENOSPC...).
 */
int perfdata_writer__write(struct perfdata_writer *w, const void *recs, size_t len);

/* a FINISHED_ROUND record: every record before it may be sorted and flushed; a file
   is written out at the end of a round once a second, its header then covering it */
int perfdata_writer__finished_round(struct perfdata_writer *w);

/*
 * Synthesized records for what already ran when recording started (time 0 in
 * their sample_id trailer, as perf writes them):
 *  - kernel: the [kernel.kallsyms]_text MMAP ([_text, _etext), as perf writes it)
 *    that lets tools relocate kernel ips, and a KSYMBOL for each loaded BPF program;
 *  - task: COMM of every thread of pid and MMAP2 of its executable mappings,
 *    from /proc (-ESRCH when it is gone);
 *  - all: task for every process in /proc.
 */
int perfdata_writer__synth_kernel(struct perfdata_writer *w);
/* task/all also synthesize the non-executable file mappings and [stack] (what
   attr.mmap_data records live; DWARF unwinders read .eh_frame from them) */
void perfdata_writer__synth_data_maps(struct perfdata_writer *w, bool on);
int perfdata_writer__synth_task(struct perfdata_writer *w, pid_t pid);
int perfdata_writer__synth_all(struct perfdata_writer *w);

/*
 * Write the feature sections (build ids, hostname, osrelease, version, arch,
 * nr_cpus, cpudesc, total_mem, cmdline, event_desc, tracing data for tracepoint
 * events) and the final header, then close the file. 0 or -errno with one line in
 * err. The writer must still be freed.
 */
int perfdata_writer__finish(struct perfdata_writer *w, char *err, size_t errlen);

struct perfdata_writer_stats {
	uint64_t samples;	/* PERF_RECORD_SAMPLE records written */
	uint64_t lost;		/* events the kernel said it lost (LOST + LOST_SAMPLES) */
	uint64_t lost_records;	/* PERF_RECORD_LOST records */
	uint64_t bytes;		/* file size so far */
	uint64_t raw_bytes;	/* with compression: the bytes of records before it */
};
void perfdata_writer__stats(const struct perfdata_writer *w, struct perfdata_writer_stats *st);

/* close (without finishing) and free; NULL is fine */
void perfdata_writer__free(struct perfdata_writer *w);

/* ------------------------------------------------------------------ reader */

struct perfdata_reader;

struct perfdata_attr {
	struct perf_event_attr attr;	/* zero-extended to this build's size */
	const char *name;		/* from EVENT_DESC, or made up ("cpu-clock", "tracepoint 312") */
	const uint64_t *ids;
	size_t nr_ids;
};

struct perfdata_build_id {
	pid_t pid;			/* -1 for the host */
	uint16_t misc;			/* PERF_RECORD_MISC_KERNEL or _USER */
	uint8_t id[20];
	uint8_t size;			/* bytes of id in use (20 for SHA-1) */
	const char *filename;
};

struct perfdata_features {
	uint64_t bits[4];		/* which features the file has (bit n = enum perfdata_feat n) */
	const char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;	/* NULL if absent */
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem_kb;
	const char *const *cmdline;	/* nr_cmdline strings */
	uint32_t nr_cmdline;
	const struct perfdata_build_id *build_ids;
	size_t nr_build_ids;
	const void *tracing_data;	/* raw TRACING_DATA section (tracefs format files), or NULL */
	uint64_t tracing_data_size;
};

struct perfdata_sample {
	uint64_t ip, addr, id, stream_id, period;
	uint32_t pid, tid, cpu;
	uint64_t time;
	/* PERF_SAMPLE_CALLCHAIN: nr entries, PERF_CONTEXT_* markers among the ips */
	uint64_t nr_callchain;
	const uint64_t *callchain;
	/* PERF_SAMPLE_RAW: the tracepoint record */
	uint32_t raw_size;
	const uint8_t *raw;
	/* PERF_SAMPLE_BRANCH_STACK */
	uint64_t nr_branch;
	const struct perf_branch_entry *branch;
	/* PERF_SAMPLE_REGS_USER: abi 0 means none; regs[i] for each bit of mask in order */
	uint64_t user_abi, user_regs_mask, nr_user_regs;
	const uint64_t *user_regs;
	/* PERF_SAMPLE_STACK_USER: the bytes copied from the user stack pointer up */
	uint64_t user_stack_size;	/* dyn_size: the valid part */
	const uint8_t *user_stack;
	uint64_t weight, data_src, transaction, phys_addr;
};

struct perfdata_event {
	uint32_t type;			/* PERF_RECORD_* or enum perfdata_user_record */
	uint16_t misc;
	uint16_t size;
	uint64_t offset;		/* of the record in the file */
	const void *raw;		/* the record itself, size bytes */
	const struct perfdata_attr *attr;	/* the event it belongs to */
	int attr_idx;
	/* from the sample or the sample_id trailer; time 0 when the file has none */
	uint64_t time;
	uint32_t cpu;
	bool has_sample_id;
	union {
		struct perfdata_sample sample;		/* PERF_RECORD_SAMPLE */
		struct {				/* PERF_RECORD_MMAP and MMAP2 */
			uint32_t pid, tid;
			uint64_t start, len, pgoff;
			uint32_t maj, min, prot, flags;	/* MMAP2 only; prot PROT_EXEC for MMAP */
			uint64_t ino, ino_generation;
			uint8_t build_id_size;		/* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
			const uint8_t *build_id;
			const char *filename;
		} mmap;
		struct {				/* PERF_RECORD_COMM */
			uint32_t pid, tid;
			const char *comm;
			bool exec;			/* misc & PERF_RECORD_MISC_COMM_EXEC */
		} comm;
		struct {				/* PERF_RECORD_FORK and EXIT */
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} task;
		struct {				/* PERF_RECORD_LOST (id, lost) and LOST_SAMPLES (lost) */
			uint64_t id, lost;
		} lost;
		struct {				/* PERF_RECORD_KSYMBOL: a BPF program's (or other) kernel code */
			uint64_t addr;
			uint32_t len;
			uint16_t ksym_type, flags;	/* flags: PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER */
			const char *name;
		} ksymbol;
	};
};

/*
 * Open a perf.data file (sonde's or perf's; "-" is stdin) and index its records.
 * Pipe-mode data (perf record -o -) is read too, from a file or a pipe. Returns 0
 * or -errno with one line in err naming the problem and its file offset
 * ("truncated record at offset 0x1a38"). Compressed recordings (perf record -z)
 * are expanded first (offsets in messages about their records then count in the
 * expanded data); directory ones (--threads) are refused with a line saying so.
 */
int perfdata_reader__open(struct perfdata_reader **out, const char *path,
			  char *err, size_t errlen);
/* the same from memory (the buffer is copied) */
int perfdata_reader__open_mem(struct perfdata_reader **out, const void *buf, size_t size,
			      char *err, size_t errlen);
void perfdata_reader__free(struct perfdata_reader *r);

const struct perfdata_attr *perfdata_reader__attrs(const struct perfdata_reader *r, int *nr);
const struct perfdata_features *perfdata_reader__features(const struct perfdata_reader *r);

/*
 * The next record in time order (ties and records without a time keep their file
 * order; perf's own FINISHED_ROUND, ID_INDEX... are skipped). Returns 1 with *ev
 * filled, 0 at the end, or -EBADMSG for a record whose body does not parse: the
 * message (with the offset) is then in perfdata_reader__error(), and the next call
 * goes on with the following record.
 */
int perfdata_reader__next(struct perfdata_reader *r, struct perfdata_event *ev);
/* start again from the first record */
void perfdata_reader__rewind(struct perfdata_reader *r);
const char *perfdata_reader__error(const struct perfdata_reader *r);
/*
 * NULL, or one line on what an incomplete input lost: a recording whose header
 * was never finalised (killed while recording: every complete record up to the
 * file's end is read, features are missing) or a pipe stream cut in the middle of
 * a record (the records before the cut are read). Readers go on and warn.
 */
const char *perfdata_reader__warning(const struct perfdata_reader *r);

struct perfdata_reader_stats {
	uint64_t nr_records;
	uint64_t nr_samples;
	uint64_t nr_by_type[PERF_RECORD_MAX];	/* kernel record types */
	uint64_t lost;			/* sum of LOST and LOST_SAMPLES counts */
	uint64_t data_offset, data_size;
};
void perfdata_reader__stats(const struct perfdata_reader *r, struct perfdata_reader_stats *st);

/* parse one PERF_RECORD_SAMPLE body for attr; 0 or -EBADMSG (pure, for tests and tools) */
int perfdata__parse_sample(const struct perf_event_attr *attr, const void *rec, size_t size,
			   struct perfdata_sample *s);

/*
 * The records a kernel ring buffer holds (a sampler's drain), all of the one
 * event attr: fn gets each one decoded as perfdata_reader__next() decodes a
 * file's (a record whose body does not parse is skipped). Returns 0, fn's first
 * non-zero value, or -EBADMSG where a record's size runs past len.
 */
int perfdata__parse_records(const struct perfdata_attr *attr, const void *recs, size_t len,
			    int (*fn)(const struct perfdata_event *ev, void *ctx), void *ctx);

/* the kernel's name of a record type ("SAMPLE", "MMAP2", "FINISHED_ROUND"...) */
const char *perfdata__record_name(uint32_t type);

/* ------------------------------------------------- tracepoint formats */

/* tracepoint fields of a recording are formatted by src/lib/perfdata/tracedata.h (libtraceevent) */

#endif
