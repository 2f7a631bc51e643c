/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfdata_int.h - the on-disk structures of perf.data shared by the writer and
 * the reader (perfdata_write.c, perfdata_feat.c, perfdata_read.c); not for other
 * modules, which use perfdata.h. Nothing here allocates.
 */
#ifndef SONDE_PERFDATA_INT_H
#define SONDE_PERFDATA_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_event_attr;
struct perfdata_event;

#define PERFDATA_MAGIC 0x32454c4946524550ULL	/* "PERFILE2" read as a little-endian u64 */
#define PERFDATA_MAGIC_SWAPPED 0x50455246494c4532ULL
#define PERFDATA_NAME_ALIGN 64			/* strings in features are padded to this */

struct pd_section {
	uint64_t offset;
	uint64_t size;
};

struct pd_header {
	char magic[8];
	uint64_t size;			/* sizeof(struct pd_header) */
	uint64_t attr_size;		/* sizeof(perf_event_attr) + sizeof(struct pd_section) */
	struct pd_section attrs;
	struct pd_section data;
	struct pd_section event_types;	/* legacy, empty */
	uint64_t flags[4];		/* feature bits */
};

/* HEADER_BUILD_ID entries (the BUILD_ID feature) */
struct pd_build_id_rec {
	uint32_t type;			/* unused in the feature: 0 (perf writes 0 too) */
	uint16_t misc;			/* PERF_RECORD_MISC_KERNEL/USER | BUILD_ID_SIZE */
	uint16_t size;			/* of the whole entry */
	int32_t pid;
	uint8_t build_id[20];
	uint8_t build_id_size;
	uint8_t reserved[3];
	/* char filename[], NUL-padded to PERFDATA_NAME_ALIGN */
};
#define PERF_RECORD_MISC_BUILD_ID_SIZE_ (1 << 15)

/* a growing byte buffer for building feature sections */
struct pd_buf {
	uint8_t *p;
	size_t len, alloc;
	int err;			/* first allocation failure, sticky */
};
void pd_buf__add(struct pd_buf *b, const void *data, size_t len);
void pd_buf__u32(struct pd_buf *b, uint32_t v);
void pd_buf__u64(struct pd_buf *b, uint64_t v);
/* perf's string: u32 len (NUL included, padded to 64), the bytes, zero padding */
void pd_buf__string(struct pd_buf *b, const char *s);
void pd_buf__free(struct pd_buf *b);

/* the count of bits set in a u64 (regs masks) */
static inline unsigned pd_popcount(uint64_t v) { return (unsigned)__builtin_popcountll(v); }

/* the size of the sample_id trailer for this sample_type (sample_id_all) */
size_t pd_id_hdr_size(uint64_t sample_type);
/* the sample_id trailer of a non-sample record of attr a: time, cpu, pid; false if none */
bool pd_trailer(const struct perf_event_attr *a, const uint8_t *rec, uint16_t size, uint64_t *time, uint32_t *cpu,
		uint32_t *pid);
/*
 * The body of one record of attr a into ev, whose type, misc, size and raw are
 * set (and time, the index's, kept unless the record carries its own): the
 * sample, or the MMAP, COMM, FORK/EXIT, LOST, KSYMBOL fields. 0 or -EBADMSG
 * for a body that does not fit its record. (perfdata_sample.c)
 */
int pd_decode_record(struct perfdata_event *ev, const struct perf_event_attr *a);

/*
 * perf record -z: the records of data[start, start + size) with every COMPRESSED
 * record replaced by what it holds and every record 8-byte aligned, into a new
 * buffer (*out, *out_len; the caller frees it). *out stays NULL when nothing is
 * compressed. At most limit bytes come out (-EFBIG past it). 0 or -errno with one
 * line in err. (perfdata_zstd.c)
 */
int pd_inflate(const uint8_t *data, size_t start, size_t size, bool pipe, size_t limit,
	       uint8_t **out, size_t *out_len, char *err, size_t errlen);

/* perf record -z, writing (perfdata_zstd.c): level 1-22, chunk the most input one
   record may decompress to */
struct pd_zstd;
int pd_deflate_new(struct pd_zstd **out, int level, size_t chunk);
int pd_deflate(struct pd_zstd *z, const void *src, size_t len,
	       int (*emit)(void *ctx, const void *rec, size_t size), void *ctx);
void pd_deflate_free(struct pd_zstd *z);

#endif

/* perfdata_feat.c: the contents of the system feature sections */
void pd_feat__uname(struct pd_buf *b, int feat);	/* HOSTNAME, OSRELEASE, ARCH */
void pd_feat__nrcpus(struct pd_buf *b);
void pd_feat__cpudesc(struct pd_buf *b);
void pd_feat__total_mem(struct pd_buf *b);
/*
 * TRACING_DATA for the tracepoints named "group:name" (n of them): tracefs's
 * header_page, header_event and each event's format file. 0 or -errno with err.
 */
int pd_feat__tracing_data(struct pd_buf *b, char *const *tp_names, int n, char *err, size_t errlen);
/* the GNU build id of an ELF file, or of the running kernel; 0 or -errno */
int pd_build_id__file(const char *path, uint8_t id[20], uint8_t *size);
int pd_build_id__kernel(uint8_t id[20], uint8_t *size);
