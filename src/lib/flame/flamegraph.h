/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flamegraph.h - render a folded stack tree (lib/flame/folded.h) as a self-contained,
 * interactive SVG flame graph: flamegraph.pl's options, palettes and layout,
 * with its own embedded script (zoom, search with the matched percentage,
 * Ctrl-F, tooltips, label truncation) and deterministic output.
 *
 * Ownership: flame__render() writes to the caller's FILE and keeps nothing;
 * the options' strings stay the caller's.
 */
#ifndef SONDE_FLAMEGRAPH_H
#define SONDE_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/flame/folded.h"

struct flame_opts {
	const char *title;		/* NULL: "Flame Graph", "Icicle Graph" or "Flame Chart" */
	const char *subtitle;
	const char *fonttype;		/* "Verdana" */
	const char *countname;		/* "samples" */
	const char *nametype;		/* "Function:" */
	const char *colors;		/* palette: "hot" ... (flame__palette_names) */
	const char *bgcolors;		/* NULL: the palette's; yellow, blue, green, grey or #rrggbb */
	const char *notes;		/* written into an XML comment */
	const char *encoding;		/* encoding="" of the XML declaration, NULL for none */
	const char *cp_file;		/* consistent palette file (read and rewritten), NULL: off */
	const char *search_color;	/* "rgb(230,0,230)" */
	int width;			/* image width, 1200 */
	int height;			/* frame height, 16 */
	double fontsize;		/* 12 */
	double fontwidth;		/* 0.59 */
	double minwidth;		/* 0.1 (px; a percentage of the total when minwidth_pct) */
	bool minwidth_pct;
	double factor;			/* counts shown are multiplied by this, 1 */
	double total;			/* 0, or the 100% total when larger than the real one */
	bool hash, random, inverted, flamechart, negate;
};

/* what flame__render() found, for the command to report */
struct flame_result {
	uint32_t drawn;		/* frames drawn, the root included */
	uint32_t elided;	/* tree nodes narrower than minwidth, left out */
	uint32_t depth;		/* deepest level drawn */
	double total;		/* the 100% count */
	bool total_ignored;	/* opts.total was smaller than the real total */
	bool empty;		/* no counts: the SVG says so */
};

void flame_opts__init(struct flame_opts *o);

/* 0 when name is a palette flamegraph.pl knows, -EINVAL otherwise */
int flame__check_palette(const char *name);
extern const char *const flame__palette_names[];
/* 0 when a --bgcolors value is valid, -EINVAL otherwise */
int flame__check_bgcolors(const char *v);

/*
 * Write the SVG of the finished tree f (folded__finish() called) to out.
 * Returns 0, or -errno with err filled (a bad option, a write error, or the
 * consistent palette file).
 */
int flame__render(const struct folded *f, const struct flame_opts *o, FILE *out,
		  struct flame_result *res, char *err, size_t errlen);

/*
 * x as printf's "%.1f" or "%.2f" (decimals 1 or 2) writes it, into buf (24
 * bytes at least); returns the value of that text, as strtod() reads it.
 */
double flame__fixed(char *buf, size_t size, double x, int decimals);

/* XML text of s[0..len): &<>"' escaped, invalid UTF-8 and control bytes as U+FFFD */
void flame__xml_escape(FILE *out, const char *s, size_t len);

#endif
