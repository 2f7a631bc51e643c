// SPDX-License-Identifier: GPL-2.0
/*
 * flame_palette.c - the colours of flamegraph.pl's palettes (see
 * flame_palette.h), written from its documented formulas: three values v1, v2,
 * v3 in [0, 1) per frame, then a palette's formula per channel.
 */
#include "lib/flame/flame_palette.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const flame__palette_names[PAL_NR + 1] = {
	"hot", "mem", "io", "wakeup", "chain", "java", "js", "perl",
	"red", "green", "blue", "aqua", "yellow", "purple", "orange", NULL,
};

int flame_pal__parse(const char *name)
{
	for (int i = 0; i < PAL_NR; i++)
		if (!strcmp(name, flame__palette_names[i]))
			return i;
	return -1;
}

void flame_pal__bg(int pal, const char **c1, const char **c2)
{
	switch (pal) {
	case PAL_MEM:
		*c1 = "#eef2ee", *c2 = "#e0ffe0";	/* green */
		break;
	case PAL_IO: case PAL_WAKEUP: case PAL_CHAIN:
		*c1 = "#eeeeee", *c2 = "#e0e0ff";	/* blue */
		break;
	case PAL_RED: case PAL_GREEN: case PAL_BLUE: case PAL_AQUA:
	case PAL_YELLOW: case PAL_PURPLE: case PAL_ORANGE:
		*c1 = "#f8f8f8", *c2 = "#e8e8e8";	/* grey */
		break;
	default:
		*c1 = "#eeeeee", *c2 = "#eeeeb0";	/* yellow */
	}
}

/*
 * --hash: a value from the first three characters, each weighing 0.7 of the
 * one before, so names that start alike get alike colours; a "module`" prefix
 * does not count.
 */
static double name_weight(const unsigned char *s, size_t len, bool reversed)
{
	double vector = 0, weight = 1, max = 1;
	int mod = 10;
	size_t start = 0;

	if (!reversed) {
		for (size_t i = 1; i < len; i++)
			if (s[i] == '`') {
				start = i + 1;
				break;
			}
	}
	for (size_t k = start; k < len && mod <= 12; k++, mod++) {
		unsigned char c = reversed ? s[len - 1 - (k - start)] : s[k];

		vector += (double)(c % mod) / (mod - 1) * weight;
		max += weight;
		weight *= 0.70;
	}
	return 1 - vector / max;
}

/* the frame's own 48-bit generator, seeded like srand48() with the name's byte sum */
static double seeded_value(const unsigned char *s, size_t len)
{
	unsigned long sum = 0;
	unsigned short st[3];

	for (size_t i = 0; i < len; i++)
		sum += s[i];
	st[0] = 0x330e;
	st[1] = (unsigned short)sum;
	st[2] = (unsigned short)(sum >> 16);
	return erand48(st);
}

static double random_value(void)
{
	static unsigned short st[3];
	static bool seeded;

	if (!seeded) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		st[0] = (unsigned short)ts.tv_nsec;
		st[1] = (unsigned short)(ts.tv_nsec >> 16) ^ (unsigned short)getpid();
		st[2] = (unsigned short)ts.tv_sec;
		seeded = true;
	}
	return erand48(st);
}

static bool has_suffix(const char *s, size_t len, const char *suf)
{
	size_t n = strlen(suf);

	return len >= n && !memcmp(s + len - n, suf, n);
}

static bool contains(const char *s, size_t len, const char *needle)
{
	return memmem(s, len, needle, strlen(needle)) != NULL;
}

static bool java_package(const char *s, size_t len)
{
	static const char *const pkgs[] = { "java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/" };

	if (len && s[0] == 'L')
		s++, len--;
	for (size_t i = 0; i < sizeof(pkgs) / sizeof(*pkgs); i++) {
		size_t n = strlen(pkgs[i]);

		if (len >= n && !memcmp(s, pkgs[i], n))
			return true;
	}
	return false;
}

/* the multi palettes pick one flat palette per frame from its name */
static int pick_flat(int pal, const char *s, size_t len, bool waker)
{
	switch (pal) {
	case PAL_JAVA:
		if (has_suffix(s, len, "_[j]"))
			return PAL_GREEN;
		if (has_suffix(s, len, "_[i]"))
			return PAL_AQUA;
		if (java_package(s, len) || contains(s, len, ":::"))
			return PAL_GREEN;
		if (contains(s, len, "::"))
			return PAL_YELLOW;
		if (has_suffix(s, len, "_[k]"))
			return PAL_ORANGE;
		return PAL_RED;
	case PAL_PERL:
		if (contains(s, len, "::"))
			return PAL_YELLOW;
		if (contains(s, len, "Perl") || contains(s, len, ".pl"))
			return PAL_GREEN;
		if (has_suffix(s, len, "_[k]"))
			return PAL_ORANGE;
		return PAL_RED;
	case PAL_JS:
		if (has_suffix(s, len, "_[j]"))
			return memchr(s, '/', len) ? PAL_GREEN : PAL_AQUA;
		if (contains(s, len, "::"))
			return PAL_YELLOW;
		if (memchr(s, '/', len) && contains(s, len, ".js"))
			return PAL_GREEN;
		if (memchr(s, ':', len))
			return PAL_AQUA;
		if (len == 1 && s[0] == ' ')
			return PAL_GREEN;
		if (has_suffix(s, len, "_[k]"))
			return PAL_ORANGE;
		return PAL_RED;
	case PAL_WAKEUP:
		return PAL_AQUA;
	case PAL_CHAIN:
		return waker || has_suffix(s, len, "_[w]") ? PAL_AQUA : PAL_BLUE;
	default:
		return pal;
	}
}

struct rgb flame_pal__colour(int pal, enum flame_colouring how, const char *name, size_t len,
			     bool waker)
{
	const unsigned char *s = (const unsigned char *)name;
	double v1, v2, v3;

	if (how == COLOUR_HASH) {
		v1 = name_weight(s, len, false);
		v2 = v3 = name_weight(s, len, true);
	} else if (how == COLOUR_RANDOM) {
		v1 = random_value();
		v2 = random_value();
		v3 = random_value();
	} else {
		v1 = v2 = v3 = seeded_value(s, len);
	}
	switch (pick_flat(pal, name, len, waker)) {
	case PAL_HOT:
		return (struct rgb){ 205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2) };
	case PAL_MEM:
		return (struct rgb){ 0, 190 + (int)(50 * v2), (int)(210 * v1) };
	case PAL_IO: {
		int r = 80 + (int)(60 * v1);

		return (struct rgb){ r, r, 190 + (int)(55 * v2) };
	}
	case PAL_RED:
		return (struct rgb){ 200 + (int)(55 * v1), 50 + (int)(80 * v1), 50 + (int)(80 * v1) };
	case PAL_GREEN:
		return (struct rgb){ 50 + (int)(60 * v1), 200 + (int)(55 * v1), 50 + (int)(60 * v1) };
	case PAL_BLUE:
		return (struct rgb){ 80 + (int)(60 * v1), 80 + (int)(60 * v1), 205 + (int)(50 * v1) };
	case PAL_YELLOW:
		return (struct rgb){ 175 + (int)(55 * v1), 175 + (int)(55 * v1), 50 + (int)(20 * v1) };
	case PAL_PURPLE:
		return (struct rgb){ 190 + (int)(65 * v1), 80 + (int)(60 * v1), 190 + (int)(65 * v1) };
	case PAL_AQUA:
		return (struct rgb){ 50 + (int)(60 * v1), 165 + (int)(55 * v1), 165 + (int)(55 * v1) };
	case PAL_ORANGE:
		return (struct rgb){ 190 + (int)(65 * v1), 90 + (int)(65 * v1), 0 };
	}
	return (struct rgb){ 0, 0, 0 };
}

struct rgb flame_pal__diff(double delta, double maxdelta)
{
	int v;

	if (maxdelta <= 0 || delta == 0)
		return (struct rgb){ 255, 255, 255 };
	if (delta > 0) {
		v = (int)(210 * (maxdelta - delta) / maxdelta);
		return (struct rgb){ 255, v, v };
	}
	v = (int)(210 * (maxdelta + delta) / maxdelta);
	return (struct rgb){ v, v, 255 };
}

/* the consistent palette: a small open-addressing table of names */
struct cp_entry {
	char *name;
	size_t len;
	struct rgb c;
};

struct flame_cp {
	struct cp_entry *tab;
	size_t mask, count;
};

static uint64_t cp_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static int cp_put(struct flame_cp *cp, const char *name, size_t len, struct rgb c, struct rgb *out)
{
	size_t i;

	if ((cp->count + 1) * 2 > cp->mask + 1) {
		size_t nsize = (cp->mask + 1) * 2;
		struct cp_entry *nt = calloc(nsize, sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		for (size_t k = 0; k <= cp->mask; k++) {
			if (!cp->tab[k].name)
				continue;
			for (i = cp_hash(cp->tab[k].name, cp->tab[k].len) & (nsize - 1); nt[i].name;
			     i = (i + 1) & (nsize - 1))
				;
			nt[i] = cp->tab[k];
		}
		free(cp->tab);
		cp->tab = nt;
		cp->mask = nsize - 1;
	}
	for (i = cp_hash(name, len) & cp->mask; cp->tab[i].name; i = (i + 1) & cp->mask) {
		if (cp->tab[i].len == len && !memcmp(cp->tab[i].name, name, len)) {
			if (out)
				*out = cp->tab[i].c;	/* known: keep its colour */
			else
				cp->tab[i].c = c;
			return 0;
		}
	}
	if (!(cp->tab[i].name = malloc(len + 1)))
		return -ENOMEM;
	memcpy(cp->tab[i].name, name, len);
	cp->tab[i].name[len] = 0;
	cp->tab[i].len = len;
	cp->tab[i].c = c;
	cp->count++;
	if (out)
		*out = c;
	return 0;
}

struct flame_cp *flame_cp__load(const char *path, int *rc)
{
	struct flame_cp *cp = calloc(1, sizeof(*cp));
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	*rc = 0;
	if (!cp || !(cp->tab = calloc(64, sizeof(*cp->tab)))) {
		free(cp);
		*rc = -ENOMEM;
		return NULL;
	}
	cp->mask = 63;
	if (!(f = fopen(path, "r"))) {
		if (errno != ENOENT)
			*rc = -errno;
		return cp;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		struct rgb c;
		char *arrow = NULL;

		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		for (char *p = line; (p = strstr(p, "->")); p += 2)
			arrow = p;
		if (!arrow || sscanf(arrow + 2, "rgb(%d,%d,%d)", &c.r, &c.g, &c.b) != 3)
			continue;	/* not a palette line: ignored, as flamegraph.pl does */
		if (cp_put(cp, line, arrow - line, c, NULL)) {
			*rc = -ENOMEM;
			break;
		}
	}
	free(line);
	fclose(f);
	return cp;
}

struct rgb flame_cp__get(struct flame_cp *cp, const char *name, size_t len, struct rgb c)
{
	struct rgb out = c;

	cp_put(cp, name, len, c, &out);	/* on ENOMEM the frame keeps c, unsaved */
	return out;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct cp_entry *x = *(struct cp_entry *const *)a, *y = *(struct cp_entry *const *)b;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

int flame_cp__save(struct flame_cp *cp, const char *path)
{
	struct cp_entry **v = malloc(sizeof(*v) * (cp->count + 1));
	size_t n = 0;
	int rc = 0;
	FILE *f;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i <= cp->mask; i++)
		if (cp->tab[i].name)
			v[n++] = &cp->tab[i];
	qsort(v, n, sizeof(*v), cmp_entry);
	if (!(f = fopen(path, "w"))) {
		free(v);
		return -errno;
	}
	for (size_t i = 0; i < n; i++) {
		fwrite(v[i]->name, 1, v[i]->len, f);
		fprintf(f, "->rgb(%d,%d,%d)\n", v[i]->c.r, v[i]->c.g, v[i]->c.b);
	}
	if (ferror(f))
		rc = -EIO;
	if (fclose(f) && !rc)
		rc = -errno;
	free(v);
	return rc;
}

void flame_cp__free(struct flame_cp *cp)
{
	if (!cp)
		return;
	for (size_t i = 0; i <= cp->mask; i++)
		free(cp->tab[i].name);
	free(cp->tab);
	free(cp);
}
