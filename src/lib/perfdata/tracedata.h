/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracedata.h - tracepoint records of a recording turned into text: the event
 * formats come from the file's HEADER_TRACING_DATA section (perf's
 * trace-event-read layout), or from this machine's tracefs when the file has
 * none; libtraceevent parses them and prints each record's fields as perf
 * script shows them. The tracedata owns its libtraceevent handle.
 */
#ifndef SONDE_TRACEDATA_H
#define SONDE_TRACEDATA_H

#include <stddef.h>
#include <stdint.h>

struct tracedata;

/*
 * Parse a TRACING_DATA section (data may be NULL: formats then come from
 * tracefs as events are met). Returns 0 or -errno with one line in err
 * (a malformed section names the offset where it broke).
 */
int tracedata__new(struct tracedata **out, const void *data, size_t size, char *err, size_t errlen);
void tracedata__free(struct tracedata *t);

/*
 * Format the fields of one tracepoint record (PERF_SAMPLE_RAW) of event id
 * into buf: "dfd: 0xffffff9c, filename: 0x7f4b..., ...". Returns the length,
 * or -ENOENT when the event's format is unknown (buf then holds a hex dump).
 */
int tracedata__format(struct tracedata *t, uint64_t id, const void *raw, size_t raw_size,
		      int cpu, uint64_t time, char *buf, size_t len);

/*
 * Where field name lies in the records of event id (its format from the file,
 * else from tracefs): byte offset and size in PERF_SAMPLE_RAW, and whether it
 * is signed. 0, or -ENOENT when the event or the field is unknown.
 */
int tracedata__field(struct tracedata *t, uint64_t id, const char *name,
		     unsigned *offset, unsigned *size, int *is_signed);

#endif
