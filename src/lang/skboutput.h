/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skboutput.h - skboutput(path, skb, length, offset): the packet data of a
 * struct sk_buff written to a pcap file. The row, type rules and BPF code
 * (bpf_skb_output into a perf event array) are in builtins/skboutput.c; the user
 * side (per-CPU perf buffers, the pcap files) in output_pcap.c. struct
 * skbout is the runtime's, freed by skbout__free().
 */
#ifndef SONDE_LANG_SKBOUTPUT_H
#define SONDE_LANG_SKBOUTPUT_H

#include "lang/lang.h"

#include <stddef.h>
#include <stdint.h>

struct ck;
struct gen;

/*
 * What bpf_skb_output sends before the packet's bytes: the call site, how
 * many bytes of the packet follow (from skb->data), the packet's length,
 * and bpf_ktime_get_boot_ns when it was sent.
 */
struct skb_meta {
	uint32_t site;		/* index in prog->sites (a REC_SKBOUTPUT fmtsite) */
	uint32_t cap;		/* bytes copied from skb->data, offset included */
	uint32_t len;		/* skb->len */
	uint32_t pad;
	uint64_t ns;
};

/*
 * The most bytes one call copies: a perf record's size is 16 bits (its
 * 8-byte header, the raw data's 4-byte size and struct skb_meta come first).
 */
enum { SKB_CAP_MAX = 65400, SKB_SNAPLEN = 65535 };


/* ---- output_pcap.c: the runtime's side ---- */
struct skbout;

/* does the program call skboutput()? */
bool skbout__wanted(const struct program *prog);
/* create the perf event array (one slot per possible CPU); 0 with *out set, or -errno with err filled */
int skbout__new(struct program *prog, struct skbout **out, char *err, size_t errlen);
/* the perf event array's fd, for MAPREF_SKB */
int skbout__map_fd(const struct skbout *s);
/*
 * Once the programs are loaded: create every pcap file the program names
 * (each path once, however many calls write it) and open the per-CPU perf
 * buffers (perf_rb_pages each). 0 or -errno with err filled.
 */
int skbout__start(struct skbout *s, char *err, size_t errlen);
/* the fd to poll for packets (epoll); -1 before skbout__start() */
int skbout__epoll_fd(const struct skbout *s);
/* write every packet waiting in the buffers to its file, then flush the files */
void skbout__consume(struct skbout *s);
/* the packets the kernel could not put in a full buffer */
uint64_t skbout__lost(const struct skbout *s);
/* close the buffers and the files (NULL is fine); 0, or -errno with err filled when a file could not be written */
int skbout__free(struct skbout *s, char *err, size_t errlen);

#endif
