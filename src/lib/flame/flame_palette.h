/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flame_palette.h - flamegraph.pl's colour palettes and the consistent palette
 * file (--cp), shared by the SVG renderer; internal to src/lib/flame*.c.
 *
 * Ownership: a struct flame_cp owns its entries; flame_cp__free() frees them.
 */
#ifndef SONDE_FLAME_PALETTE_H
#define SONDE_FLAME_PALETTE_H

#include <stdbool.h>
#include <stddef.h>

struct rgb {
	int r, g, b;
};

enum flame_pal {
	PAL_HOT, PAL_MEM, PAL_IO, PAL_WAKEUP, PAL_CHAIN, PAL_JAVA, PAL_JS, PAL_PERL,
	PAL_RED, PAL_GREEN, PAL_BLUE, PAL_AQUA, PAL_YELLOW, PAL_PURPLE, PAL_ORANGE,
	PAL_NR
};

enum flame_colouring {
	COLOUR_NAME_SEEDED,	/* default: the same name gets the same colour in every run */
	COLOUR_HASH,		/* --hash: similar names get similar colours */
	COLOUR_RANDOM,		/* --random */
};

/* -1 when unknown */
int flame_pal__parse(const char *name);
/* the default background gradient of a palette */
void flame_pal__bg(int pal, const char **c1, const char **c2);

/*
 * The colour of a frame: name (len bytes, annotation included) under palette
 * pal; waker says the frame follows a "--" separator (the chain palette).
 */
struct rgb flame_pal__colour(int pal, enum flame_colouring how, const char *name, size_t len,
			     bool waker);
/* differential colour: red grew, blue shrank, white unchanged */
struct rgb flame_pal__diff(double delta, double maxdelta);

/* the consistent palette file: "name->rgb(r,g,b)" lines */
struct flame_cp;
/* NULL on ENOMEM; a missing file is an empty palette; -errno in *rc on a read error */
struct flame_cp *flame_cp__load(const char *path, int *rc);
/* the colour known for a name, or add c for it and return c */
struct rgb flame_cp__get(struct flame_cp *cp, const char *name, size_t len, struct rgb c);
int flame_cp__save(struct flame_cp *cp, const char *path);
void flame_cp__free(struct flame_cp *cp);

#endif
