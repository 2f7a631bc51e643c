// SPDX-License-Identifier: GPL-2.0
/*
 * flamegraph.c - the SVG flame graph renderer (see flamegraph.h).
 *
 * The layout is flamegraph.pl's: x is the running sum of counts (siblings in
 * the tree's order, a frame's own count before its children, as the sorted
 * "a 5" comes before "a;b 3" in flamegraph.pl's input), a frame is drawn when it is at least minwidth pixels
 * wide, the image is as tall as the deepest drawn frame. The tree is walked
 * twice without recursion: once for the depth and the count of drawn frames
 * (the header needs the height), once to write. Subtrees narrower than
 * minwidth are never entered, so a 5-million-node tree costs only what is
 * drawn plus one look at each pruned subtree's root.
 */
#include "lib/flame/flamegraph.h"
#include "lib/flame/flame_palette.h"
#include "lib/util.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

extern const char flame__js[];

#define XPAD 10
#define FRAMEPAD 1

void flame_opts__init(struct flame_opts *o)
{
	*o = (struct flame_opts){
		.fonttype = "Verdana", .countname = "samples", .nametype = "Function:",
		.colors = "hot", .search_color = "rgb(230,0,230)", .width = 1200, .height = 16,
		.fontsize = 12, .fontwidth = 0.59, .minwidth = 0.1, .factor = 1,
	};
}

int flame__check_palette(const char *name)
{
	return flame_pal__parse(name) < 0 ? -EINVAL : 0;
}

static bool is_hex_colour(const char *v)
{
	if (v[0] != '#' || strlen(v) != 7)
		return false;
	for (int i = 1; i < 7; i++)
		if (!strchr("0123456789abcdefABCDEF", v[i]))
			return false;
	return true;
}

int flame__check_bgcolors(const char *v)
{
	static const char *const named[] = { "yellow", "blue", "green", "grey" };

	for (size_t i = 0; i < 4; i++)
		if (!strcmp(v, named[i]))
			return 0;
	return is_hex_colour(v) ? 0 : -EINVAL;
}

/* length of the valid UTF-8 sequence at s[i] that XML accepts, 0 if none */
static size_t utf8_len(const unsigned char *s, size_t len, size_t i)
{
	uint32_t cp;
	size_t n = util__utf8_seq(s + i, len - i, &cp);

	if (!n || (n == 1 && cp < 0x20 && cp != '\t') || cp == 0xfffe || cp == 0xffff)
		return 0;
	return n;
}

/*
 * The frames are written through a buffer of the render's (struct render's
 * buf), one fwrite per 64 KiB instead of some thirty stdio calls a frame.
 */
struct obuf {
	FILE *out;
	size_t n;
	char b[1 << 16];
};

static void ob_flush(struct obuf *ob)
{
	fwrite(ob->b, 1, ob->n, ob->out);
	ob->n = 0;
}

static void ob_put(struct obuf *ob, const char *s, size_t len)
{
	if (len > sizeof(ob->b) - ob->n) {
		ob_flush(ob);
		if (len > sizeof(ob->b)) {
			fwrite(s, 1, len, ob->out);
			return;
		}
	}
	memcpy(ob->b + ob->n, s, len);
	ob->n += len;
}

static void ob_str(struct obuf *ob, const char *s)
{
	ob_put(ob, s, strlen(s));
}

/* ob_put's words for a plain FILE (ob NULL) */
static void put(struct obuf *ob, FILE *out, const char *s, size_t len)
{
	if (ob)
		ob_put(ob, s, len);
	else
		fwrite(s, 1, len, out);
}

/* flame__xml_escape into ob, or into out when ob is NULL */
static void xml_escape(struct obuf *ob, FILE *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	while (i < len) {
		size_t n = utf8_len(s, len, i);
		const char *rep = NULL;

		switch (n ? s[i] : 0) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		case 0: rep = "\xef\xbf\xbd"; n = 1; break;	/* U+FFFD for a byte XML cannot take */
		}
		if (!rep) {
			i += n;
			run += n;
			continue;
		}
		put(ob, out, str + i - run, run);
		put(ob, out, rep, strlen(rep));
		run = 0;
		i += n;
	}
	put(ob, out, str + i - run, run);
}

void flame__xml_escape(FILE *out, const char *str, size_t len)
{
	xml_escape(NULL, out, str, len);
}

/* a string for the script: JSON-style, with <, >, & and non-UTF-8 escaped */
static void js_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str);

	fputc('"', out);
	for (size_t i = 0; i < len;) {
		size_t n = utf8_len(s, len, i);

		if (n > 1) {
			fwrite(s + i, 1, n, out);
			i += n;
		} else if (n == 1 && s[i] != '"' && s[i] != '\\' && s[i] != '<' && s[i] != '>' &&
			   s[i] != '&' && s[i] != '\t') {
			fputc(s[i++], out);
		} else {
			fprintf(out, "\\u%04x", n ? s[i] : 0xfffd);
			i++;
		}
	}
	fputc('"', out);
}

/* the name as shown: without a trailing _[k], _[w], _[i] or _[j] annotation */
static size_t shown_len(const char *s, size_t len)
{
	if (len >= 4 && s[len - 4] == '_' && s[len - 3] == '[' && s[len - 1] == ']' &&
	    s[len - 2] && strchr("kwij", s[len - 2]))
		return len - 4;
	return len;
}

/* how many characters fit w pixels: the same rule as fit() in the script */
static size_t label_bytes(const struct flame_opts *o, const char *s, size_t len, double w,
			  bool *cut)
{
	long chars = (long)floor(w / (o->fontsize * o->fontwidth));
	size_t i = 0, n = 0, keep = 0;

	*cut = false;
	if (chars < 3)
		return 0;
	while (i < len) {
		size_t k = utf8_len((const unsigned char *)s, len, i);

		i += k ? k : 1;
		n++;
		if (n == (size_t)chars - 2)
			keep = i;
		if (n > (size_t)chars) {
			*cut = true;
			return keep;
		}
	}
	return len;
}

/* the decimal digits of v at the end of buf[0..24): returns where they start */
static char *u64_digits(char *end, uint64_t v)
{
	*--end = 0;
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

/*
 * printf's "%.1f" or "%.2f" of x, without printf (a drawn frame needs seven):
 * x times 10 or 100 is exact in a long double of 64 significant bits (53 + 7),
 * so llrintl() rounds it as printf does, to nearest with ties to even, and the
 * digits are an integer's. Returns the value the text stands for, as strtod()
 * would read it back: the integer divided by 10 or 100, correctly rounded.
 * Where long double is narrower, or for huge values, printf itself.
 */
double flame__fixed(char *buf, size_t size, double x, int decimals)
{
	bool two = decimals == 2, neg = signbit(x);
	char tmp[32], *e = tmp + sizeof(tmp);
	int64_t v, ip;

	if (LDBL_MANT_DIG < 64 || (decimals != 1 && decimals != 2) || !(fabs(x) < 1e15) || size < 24) {
		snprintf(buf, size, "%.*f", decimals, x);
		return strtod(buf, NULL);
	}
	v = llrintl(fabsl((long double)x) * (two ? 100.0L : 10.0L));
	/* from the last character: the decimals, the dot, the integer part, the sign */
	*--e = 0;
	*--e = (char)('0' + v % 10);
	if (two)
		*--e = (char)('0' + v / 10 % 10);
	*--e = '.';
	ip = two ? v / 100 : v / 10;
	do
		*--e = (char)('0' + ip % 10);
	while (ip /= 10);
	if (neg)
		*--e = '-';
	memcpy(buf, e, (size_t)(tmp + sizeof(tmp) - e));
	return neg ? -((double)v / (two ? 100.0 : 10.0)) : (double)v / (two ? 100.0 : 10.0);
}

/*
 * A count with thousands separators: 1234567 -> 1,234,567, exact to 2^64-1; a
 * fraction stays one (0.5, 1,234.25) where flamegraph.pl rounds it (%.0f)
 */
static void commas(char *buf, size_t size, folded_count v)
{
	char tmp[80];
	size_t n, o = 0, start, digits;

	folded__format_count(tmp, sizeof(tmp), v);
	n = strlen(tmp);
	start = tmp[0] == '-';
	digits = strcspn(tmp, ".");
	for (size_t i = 0; i < n && o + 2 < size; i++) {
		if (i > start && i < digits && (digits - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
}

struct render {
	const struct folded *f;
	const struct flame_opts *o;
	FILE *out;
	int pal;
	enum flame_colouring how;
	struct flame_cp *cp;
	double timemax, wpt, minw_time, maxdelta;
	uint32_t maxdepth, drawn;
	double imageheight, ypad1, ypad2;
	bool diff;
	struct obuf *ob;		/* the frames' text, while walk() writes */
};

struct walk_level {
	uint32_t child;
	double x;
	bool waker;
};

static double node_delta(const struct render *r, uint32_t id)
{
	double d = folded__self(r->f, id) - folded__before_self(r->f, id);

	return r->o->negate ? -d : d;
}

static void draw(struct render *r, uint32_t id, uint32_t depth, double stime, bool waker)
{
	const struct folded_node *n = folded__node(r->f, id);
	const struct flame_opts *o = r->o;
	const char *name = "all";
	size_t len = 3, slen, lb;
	folded_count total = folded__subtotal(r->f, id);
	double x1 = XPAD + stime * r->wpt, x2 = XPAD + (stime + total) * r->wpt, y1, y2;
	char xs[40], x2s[40], ws[40], num[40], cnt[64], rgb[64];
	struct obuf *ob = r->ob;
	double xv, wv;
	struct rgb c;
	bool cut;

	if (id)
		name = folded__name(r->f, n->name, &len);
	slen = shown_len(name, len);
	if (o->inverted) {
		y1 = r->ypad1 + depth * o->height;
		y2 = y1 + o->height - FRAMEPAD;
	} else {
		y2 = r->imageheight - r->ypad2 - depth * o->height;
		y1 = y2 - o->height + FRAMEPAD;
	}
	if (len == 2 && !memcmp(name, "--", 2))
		c = (struct rgb){ 160, 160, 160 };
	else if (len == 1 && name[0] == '-')
		c = (struct rgb){ 200, 200, 200 };
	else if (r->diff)
		c = flame_pal__diff(node_delta(r, id), r->maxdelta);
	else {
		c = flame_pal__colour(r->pal, r->how, name, len, waker);
		if (r->cp)
			c = flame_cp__get(r->cp, name, len, c);
	}
	/* the numbers as "%.2f" and "%.1f" print them (flame__fixed), the width
	   and the label's x from the rounded x's, as the script reads them back */
	xv = flame__fixed(xs, sizeof(xs), x1, 2);
	wv = flame__fixed(ws, sizeof(ws), flame__fixed(x2s, sizeof(x2s), x2, 2) - xv, 2);
	commas(cnt, sizeof(cnt), total * o->factor);
	ob_str(ob, "<g><title>");
	xml_escape(ob, NULL, name, slen);
	ob_str(ob, " (");
	ob_str(ob, cnt);
	ob_str(ob, " ");
	xml_escape(ob, NULL, o->countname, strlen(o->countname));
	if (id == 0 && (double)total == r->timemax) {
		ob_str(ob, ", 100%");	/* the root, as flamegraph.pl writes it */
	} else {
		flame__fixed(num, sizeof(num), (double)(100 * total / r->timemax), 2);
		ob_str(ob, ", ");
		ob_str(ob, num);
		ob_str(ob, "%");
	}
	if (r->diff) {
		double d = 100 * node_delta(r, id) / r->timemax;

		flame__fixed(num, sizeof(num), d, 2);
		ob_str(ob, d > 0 ? "; +" : "; ");
		ob_str(ob, num);
		ob_str(ob, "%");
	}
	ob_str(ob, ")</title><rect x=\"");
	ob_str(ob, xs);
	ob_str(ob, "\" y=\"");
	flame__fixed(num, sizeof(num), y1, 1);
	ob_str(ob, num);
	ob_str(ob, "\" width=\"");
	ob_str(ob, ws);
	ob_str(ob, "\" height=\"");
	flame__fixed(num, sizeof(num), y2 - y1, 1);
	ob_str(ob, num);
	if (c.r >= 0 && c.g >= 0 && c.b >= 0) {
		char d[24];

		ob_str(ob, "\" fill=\"rgb(");
		ob_str(ob, u64_digits(d + sizeof(d), (uint64_t)c.r));
		ob_str(ob, ",");
		ob_str(ob, u64_digits(d + sizeof(d), (uint64_t)c.g));
		ob_str(ob, ",");
		ob_str(ob, u64_digits(d + sizeof(d), (uint64_t)c.b));
	} else {
		snprintf(rgb, sizeof(rgb), "\" fill=\"rgb(%d,%d,%d", c.r, c.g, c.b);
		ob_str(ob, rgb);
	}
	ob_str(ob, ")\" rx=\"2\" ry=\"2\"/><text x=\"");
	flame__fixed(num, sizeof(num), xv + 3, 2);
	ob_str(ob, num);
	ob_str(ob, "\" y=\"");
	flame__fixed(num, sizeof(num), 3 + (y1 + y2) / 2, 1);
	ob_str(ob, num);
	ob_str(ob, "\">");
	lb = label_bytes(o, name, slen, wv, &cut);
	xml_escape(ob, NULL, name, lb);
	if (cut)
		ob_str(ob, "..");
	ob_str(ob, "</text></g>\n");
}

/* visit every frame at least minwidth wide, parents first; draw them when write is set */
static int walk(struct render *r, bool write)
{
	struct walk_level *st = NULL;
	size_t cap = 0;
	uint32_t d = 0;
	const struct folded_node *root = folded__node(r->f, 0);

	r->maxdepth = 0;
	r->drawn = 1;
	if (write)
		draw(r, 0, 0, 0, false);
	cap = 64;
	if (!(st = malloc(sizeof(*st) * cap)))
		return -ENOMEM;
	st[0] = (struct walk_level){ root->child, 0, false };
	for (;;) {
		uint32_t c = st[d].child;

		if (c == FOLDED_NONE) {
			if (d == 0)
				break;
			d--;
			continue;
		}
		const struct folded_node *n = folded__node(r->f, c);
		double x = st[d].x;
		folded_count total = folded__subtotal(r->f, c);

		st[d].child = n->next;
		st[d].x += total;
		if (total < r->minw_time || total <= 0)
			continue;
		r->drawn++;
		if (d + 1 > r->maxdepth)
			r->maxdepth = d + 1;
		if (write)
			draw(r, c, d + 1, x, st[d].waker);
		if (n->child == FOLDED_NONE)
			continue;
		if (d + 1 >= cap) {
			struct walk_level *ns = realloc(st, sizeof(*st) * cap * 2);

			if (!ns) {
				free(st);
				return -ENOMEM;
			}
			st = ns;
			cap *= 2;
		}
		size_t len;
		const char *name = folded__name(r->f, n->name, &len);

		st[d + 1] = (struct walk_level){ n->child, x + folded__self(r->f, c),
			st[d].waker || (len == 2 && !memcmp(name, "--", 2)) };
		d++;
	}
	free(st);
	return 0;
}

static void text(struct render *r, const char *id, double x, double y, const char *anchor,
		 const char *cls, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* one of the image's own text elements (title, buttons, details) */
static void text(struct render *r, const char *id, double x, double y, const char *anchor,
		 const char *cls, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(r->out, "<text id=\"%s\" x=\"%.2f\" y=\"%.2f\"", id, x, y);
	if (anchor)
		fprintf(r->out, " text-anchor=\"%s\"", anchor);
	if (cls)
		fprintf(r->out, " class=\"%s\"", cls);
	fputc('>', r->out);
	flame__xml_escape(r->out, buf, strlen(buf));
	fputs("</text>\n", r->out);
}

/* the font name goes into CSS: letters, digits, blanks, commas, quotes and dashes only */
static void css_font(FILE *out, const char *font)
{
	for (const char *p = font; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr(" ,-_'", *p))
			fputc(*p == '\'' ? '"' : *p, out);
}

static int check_opts(const struct flame_opts *o, char *err, size_t errlen)
{
	if (flame_pal__parse(o->colors) < 0) {
		snprintf(err, errlen, "unknown palette '%s' (hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, purple, orange)", o->colors);
		return -EINVAL;
	}
	if (o->bgcolors && flame__check_bgcolors(o->bgcolors)) {
		snprintf(err, errlen, "unknown background '%s' (yellow, blue, green, grey or #rrggbb)", o->bgcolors);
		return -EINVAL;
	}
	if (o->notes && (strpbrk(o->notes, "<>") || strstr(o->notes, "--"))) {
		snprintf(err, errlen, "notes cannot contain '<', '>' or '--' (they go into an XML comment)");
		return -EINVAL;
	}
	if (o->encoding && (!*o->encoding || strspn(o->encoding,
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(o->encoding))) {
		snprintf(err, errlen, "invalid encoding name '%s'", o->encoding);
		return -EINVAL;
	}
	if (o->width <= 2 * XPAD || o->width > 1000000) {
		snprintf(err, errlen, "--width %d: give %d to 1000000 pixels", o->width, 2 * XPAD + 1);
		return -EINVAL;
	}
	if (o->height <= FRAMEPAD || o->height > 10000) {
		snprintf(err, errlen, "--height %d: give %d to 10000 pixels", o->height, FRAMEPAD + 1);
		return -EINVAL;
	}
	if (!(o->fontsize > 0) || o->fontsize > 1000 || !(o->fontwidth > 0) || o->fontwidth > 100) {
		snprintf(err, errlen, "fontsize and fontwidth must be positive");
		return -EINVAL;
	}
	if (!(o->total >= 0) || !isfinite(o->total)) {
		snprintf(err, errlen, "--total %g: give the 100%% count, 0 or more", o->total);
		return -EINVAL;
	}
	if (!(o->minwidth >= 0) || !isfinite(o->minwidth) || !isfinite(o->factor)) {
		snprintf(err, errlen, "minwidth and factor must be finite, minwidth not negative");
		return -EINVAL;
	}
	return 0;
}

static void header(struct render *r, int width, double height)
{
	const struct flame_opts *o = r->o;

	fprintf(r->out, "<?xml version=\"1.0\"");
	if (o->encoding)
		fprintf(r->out, " encoding=\"%s\"", o->encoding);
	fprintf(r->out, " standalone=\"no\"?>\n"
		"<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%.0f\" onload=\"fg_init(evt)\" viewBox=\"0 0 %d %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
		"<!-- Flame graph drawn by sonde flame (sonde's own renderer and script). -->\n",
		width, height, width, height);
	if (o->notes)
		fprintf(r->out, "<!-- NOTES: %s -->\n", o->notes);
}

static void style_and_script(struct render *r)
{
	const struct flame_opts *o = r->o;
	const char *c1, *c2;

	flame_pal__bg(r->pal, &c1, &c2);
	if (o->bgcolors) {
		if (!strcmp(o->bgcolors, "yellow"))
			c1 = "#eeeeee", c2 = "#eeeeb0";
		else if (!strcmp(o->bgcolors, "blue"))
			c1 = "#eeeeee", c2 = "#e0e0ff";
		else if (!strcmp(o->bgcolors, "green"))
			c1 = "#eef2ee", c2 = "#e0ffe0";
		else if (!strcmp(o->bgcolors, "grey"))
			c1 = "#f8f8f8", c2 = "#e8e8e8";
		else
			c1 = c2 = o->bgcolors;
	}
	fprintf(r->out, "<defs>\n<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		"<stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" offset=\"95%%\"/>"
		"</linearGradient>\n</defs>\n<style type=\"text/css\">\n", c1, c2);
	fputs("text { font-family: ", r->out);
	css_font(r->out, o->fonttype);
	fprintf(r->out, "; font-size: %gpx; fill: rgb(0,0,0); }\n"
		"#title { text-anchor: middle; font-size: %gpx; }\n"
		"#subtitle { text-anchor: middle; fill: rgb(160,160,160); }\n"
		"#search, #ignorecase { opacity: 0.1; cursor: pointer; }\n"
		"#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity: 1; }\n"
		"#unzoom { cursor: pointer; }\n#elided { fill: rgb(90,90,90); }\n"
		"#frames > g { cursor: pointer; }\n"
		"#frames > g:hover > rect { stroke: black; stroke-width: 0.5; }\n"
		".hide { display: none; }\n.parent { opacity: 0.5; }\n</style>\n",
		o->fontsize, o->fontsize + 5);
	fprintf(r->out, "<script type=\"text/ecmascript\"><![CDATA[\nvar cfg = { width: %d, xpad: %d, "
		"fontsize: %g, fontwidth: %g, inverted: %s, nametype: ", o->width, XPAD, o->fontsize,
		o->fontwidth, o->inverted ? "true" : "false");
	js_string(r->out, o->nametype);
	fputs(", searchcolor: ", r->out);
	js_string(r->out, o->search_color);
	fputs(" };\n", r->out);
	fputs(flame__js, r->out);
	fputs("]]></script>\n", r->out);
}

int flame__render(const struct folded *f, const struct flame_opts *o, FILE *out,
		  struct flame_result *res, char *err, size_t errlen)
{
	struct render r = { .f = f, .o = o, .out = out };
	double actual = folded__total(f), ypad3;
	const char *title = o->title;
	int rc;

	memset(res, 0, sizeof(*res));
	if ((rc = check_opts(o, err, errlen)))
		return rc;
	r.pal = flame_pal__parse(o->colors);
	r.how = o->random ? COLOUR_RANDOM : o->hash ? COLOUR_HASH : COLOUR_NAME_SEEDED;
	r.diff = folded__is_diff(f);
	if (!title)
		title = o->flamechart ? "Flame Chart" : o->inverted ? "Icicle Graph" : "Flame Graph";
	r.ypad1 = o->fontsize * 3;
	r.ypad2 = o->fontsize * 2 + 10;
	ypad3 = o->subtitle ? o->fontsize * 2 : 0;
	if (!(actual > 0)) {
		res->empty = true;
		r.imageheight = o->fontsize * 5;
		header(&r, o->width, r.imageheight);
		fprintf(out, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%g\" font-family=\"", o->width / 2.0,
			o->fontsize * 2, o->fontsize);
		css_font(out, o->fonttype);
		fputs("\" text-anchor=\"middle\">ERROR: No valid input provided to sonde flame.</text>\n</svg>\n", out);
		return ferror(out) ? -EIO : 0;
	}
	r.timemax = actual;
	if (o->total > actual)
		r.timemax = o->total;
	else if (o->total > 0 && o->total < actual)
		res->total_ignored = o->total / actual > 0.02;
	r.wpt = (o->width - 2.0 * XPAD) / r.timemax;
	r.minw_time = o->minwidth_pct ? r.timemax * o->minwidth / 100 : o->minwidth / r.wpt;
	if (r.diff) {
		r.maxdelta = 1;
		for (uint32_t i = 1; i < folded__nr_nodes(f); i++)
			if (fabs(node_delta(&r, i)) > r.maxdelta)
				r.maxdelta = fabs(node_delta(&r, i));
	}
	if (o->cp_file && !r.diff) {
		r.cp = flame_cp__load(o->cp_file, &rc);
		if (!r.cp || rc) {
			snprintf(err, errlen, "cannot read the palette file '%s': %s", o->cp_file,
				 strerror(r.cp ? -rc : ENOMEM));
			flame_cp__free(r.cp);
			return r.cp ? rc : -ENOMEM;
		}
	}
	if ((rc = walk(&r, false)))
		goto out;
	r.imageheight = (r.maxdepth + 1.0) * o->height + r.ypad1 + r.ypad2 + ypad3;
	r.ypad1 += ypad3;	/* icicles start below the subtitle */
	header(&r, o->width, r.imageheight);
	if (folded__nr_nodes(f) > r.drawn)
		fprintf(out, "<!-- ELIDED: %u frame%s narrower than %g%s left out -->\n",
			folded__nr_nodes(f) - r.drawn, folded__nr_nodes(f) - r.drawn == 1 ? "" : "s",
			o->minwidth, o->minwidth_pct ? "%" : " px");
	style_and_script(&r);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"url(#background)\"/>\n",
		o->width, r.imageheight);
	text(&r, "title", o->width / 2.0, o->fontsize * 2, NULL, NULL, "%s", title);
	if (o->subtitle)
		text(&r, "subtitle", o->width / 2.0, o->fontsize * 4, NULL, NULL, "%s", o->subtitle);
	text(&r, "details", XPAD, r.imageheight - r.ypad2 / 2, NULL, NULL, " ");
	text(&r, "unzoom", XPAD, o->fontsize * 2, NULL, "hide", "Reset Zoom");
	text(&r, "search", o->width - XPAD - 100, o->fontsize * 2, NULL, NULL, "Search");
	text(&r, "ignorecase", o->width - XPAD - 16, o->fontsize * 2, NULL, NULL, "ic");
	text(&r, "matched", o->width - XPAD, r.imageheight - r.ypad2 / 2, "end", "hide", " ");
	if (folded__nr_nodes(f) > r.drawn)
		text(&r, "elided", o->width - XPAD, r.imageheight - r.ypad2 / 2, "end", NULL,
		     "%u frame%s under %g%s not drawn", folded__nr_nodes(f) - r.drawn,
		     folded__nr_nodes(f) - r.drawn == 1 ? "" : "s", o->minwidth, o->minwidth_pct ? "%" : " px");
	fputs("<g id=\"frames\">\n", out);
	if (!(r.ob = malloc(sizeof(*r.ob)))) {
		rc = -ENOMEM;
		goto out;
	}
	r.ob->out = out;
	r.ob->n = 0;
	rc = walk(&r, true);
	ob_flush(r.ob);
	free(r.ob);
	if (rc)
		goto out;
	fputs("</g>\n</svg>\n", out);
	if (ferror(out)) {
		rc = -EIO;
		snprintf(err, errlen, "cannot write the SVG: %s", strerror(errno ? errno : EIO));
		goto out;
	}
	if (r.cp && (rc = flame_cp__save(r.cp, o->cp_file)))
		snprintf(err, errlen, "cannot write the palette file '%s': %s", o->cp_file, strerror(-rc));
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	flame_cp__free(r.cp);
	res->drawn = r.drawn;
	res->elided = folded__nr_nodes(f) - r.drawn;
	res->depth = r.maxdepth;
	res->total = r.timemax;
	return rc;
}
