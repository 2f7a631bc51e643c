// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - `sonde serve`'s config file, read with libyaml's document
 * loader, and the values of its options and queries; see serve.h and
 * docs/serve.md for the schema.
 */
#include "lib/serve/serve.h"
#include "lib/serve/serve_int.h"
#include "lib/serve/dynlib.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONFIG_MAX_BYTES (1 << 20)

int serve__parse_duration(const char *s, double *secs)
{
	char *end;
	double v, mul = 1;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		mul = 1e-3;
	else if (!strcmp(end, "m"))
		mul = 60;
	else if (!strcmp(end, "h"))
		mul = 3600;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	*secs = v * mul;
	return *secs <= 86400 ? 0 : -EINVAL;
}

int serve__parse_listen(const char *s, char *host, size_t hostlen, uint16_t *port)
{
	const char *colon = s ? strrchr(s, ':') : NULL;
	char *end;
	unsigned long p;
	size_t hl;

	if (!colon || !colon[1])
		return -EINVAL;
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (*end || errno || p > 65535 || !isdigit((unsigned char)colon[1]))
		return -EINVAL;
	hl = colon - s;
	if (s[0] == '[') {	/* [IPV6]:PORT: hex digits, ':' and '.' (::ffff:1.2.3.4) between the brackets */
		if (hl < 3 || s[hl - 1] != ']' || hl - 2 >= hostlen)
			return -EINVAL;
		memcpy(host, s + 1, hl - 2);
		host[hl - 2] = 0;
		for (size_t i = 0; i < hl - 2; i++)
			if (!isxdigit((unsigned char)host[i]) && host[i] != ':' && host[i] != '.')
				return -EINVAL;
		if (!strchr(host, ':'))
			return -EINVAL;
		*port = (uint16_t)p;
		return 0;
	}
	if (hl >= hostlen)
		return -EINVAL;
	memcpy(host, s, hl);
	host[hl] = 0;
	for (size_t i = 0; i < hl; i++)
		if (!isalnum((unsigned char)host[i]) && host[i] != '.' && host[i] != '-')
			return -EINVAL;
	*port = (uint16_t)p;
	return 0;
}

/* a decimal integer in [lo, hi], nothing else */
static int parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

int serve_query__parse(struct serve_query *q, const char *seconds, const char *pid, char *err, size_t errlen)
{
	unsigned long v;

	q->seconds = 30;
	q->pid = 0;
	if (seconds) {
		if (parse_uint(seconds, 1, SERVE_MAX_SECONDS, &v)) {
			snprintf(err, errlen, "seconds=%.32s: not a whole number of seconds from 1 to %d",
				 seconds, SERVE_MAX_SECONDS);
			return -EINVAL;
		}
		q->seconds = (unsigned)v;
	}
	if (pid) {
		if (parse_uint(pid, 1, INT_MAX, &v)) {
			snprintf(err, errlen, "pid=%.32s: not a process id", pid);
			return -EINVAL;
		}
		q->pid = (pid_t)v;
	}
	return 0;
}

void serve_probe__free(struct serve_probe *p)
{
	free(p->name);
	free(p->program);
	free(p->file);
	for (int i = 0; i < p->nr_labels; i++) {
		free(p->labels[i].map);
		for (int k = 0; k < p->labels[i].n; k++)
			free(p->labels[i].names[k]);
	}
	memset(p, 0, sizeof(*p));
}

int serve_probe__copy(struct serve_probe *dst, const struct serve_probe *src)
{
	bool ok = true;

	memset(dst, 0, sizeof(*dst));
	ok &= !(dst->name = src->name ? strdup(src->name) : NULL) == !src->name;
	ok &= !(dst->program = src->program ? strdup(src->program) : NULL) == !src->program;
	ok &= !(dst->file = src->file ? strdup(src->file) : NULL) == !src->file;
	for (int i = 0; i < src->nr_labels; i++) {
		struct serve_labels *d = &dst->labels[dst->nr_labels++];

		ok &= (d->map = strdup(src->labels[i].map)) != NULL;
		for (int k = 0; k < src->labels[i].n; k++)
			ok &= (d->names[d->n++] = strdup(src->labels[i].names[k])) != NULL;
	}
	if (!ok) {
		serve_probe__free(dst);
		return -ENOMEM;
	}
	return 0;
}

void serve_config__free(struct serve_config *c)
{
	free(c->listen);
	for (int i = 0; i < c->nr_events; i++) {
		free(c->events[i].name);
		free(c->events[i].filter);
	}
	for (int i = 0; i < c->nr_probes; i++)
		serve_probe__free(&c->probes[i]);
	memset(c, 0, sizeof(*c));
}

struct cfg_parse {
	yaml_document_t *doc;
	struct serve_config *c;
	char *err;
	size_t errlen;
};

static int fail(struct cfg_parse *p, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct cfg_parse *p, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	int off = 0;

	if (n)
		off = snprintf(p->err, p->errlen, "line %lu, column %lu: ", (unsigned long)n->start_mark.line + 1,
			       (unsigned long)n->start_mark.column + 1);
	if (off < 0 || (size_t)off >= p->errlen)
		off = 0;
	va_start(ap, fmt);
	vsnprintf(p->err + off, p->errlen - off, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* the text of a scalar node, or NULL (with err) for a mapping or a sequence */
static const char *scalar(struct cfg_parse *p, const yaml_node_t *n, const char *key)
{
	if (!n || n->type != YAML_SCALAR_NODE) {
		fail(p, n, "'%s' takes a single value", key);
		return NULL;
	}
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length) {
		fail(p, n, "'%s': a NUL byte in the value", key);
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

static int add_event(struct cfg_parse *p, yaml_node_t *n)
{
	struct serve_event *e;
	const char *name = NULL, *filter = NULL;

	if (p->c->nr_events >= SERVE_MAX_EVENTS)
		return fail(p, n, "more than %d events", SERVE_MAX_EVENTS);
	if (n->type == YAML_SCALAR_NODE) {
		if (!(name = scalar(p, n, "events")))
			return -EINVAL;
	} else if (n->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
			yaml_node_t *k = dl_yaml_document_get_node(p->doc, pr->key);
			yaml_node_t *v = dl_yaml_document_get_node(p->doc, pr->value);
			const char *ks = scalar(p, k, "events");

			if (!ks)
				return -EINVAL;
			if (!strcmp(ks, "name"))
				name = scalar(p, v, "name");
			else if (!strcmp(ks, "filter"))
				filter = scalar(p, v, "filter");
			else
				return fail(p, k, "unknown key '%.64s' in an event (name, filter)", ks);
			if ((!strcmp(ks, "name") && !name) || (!strcmp(ks, "filter") && !filter))
				return -EINVAL;
		}
	} else {
		return fail(p, n, "an event is a name or a mapping with name and filter");
	}
	if (!name || !*name)
		return fail(p, n, "an event without a name");
	e = &p->c->events[p->c->nr_events];
	e->name = strdup(name);
	e->filter = filter ? strdup(filter) : NULL;
	p->c->nr_events++;
	if (!e->name || (filter && !e->filter))
		return fail(p, NULL, "out of memory");
	return 0;
}

/* a Prometheus name's part: [a-zA-Z_][a-zA-Z0-9_]*, at most 64 bytes */
static bool name_ok(const char *s)
{
	if (!*s || isdigit((unsigned char)*s) || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* labels: {MAP: [NAME, ...], ...} */
static int add_labels(struct cfg_parse *p, struct serve_probe *pr, yaml_node_t *n)
{
	if (n->type != YAML_MAPPING_NODE)
		return fail(p, n, "'labels' maps a map's name to its key's label names ('@bytes: [comm, fd]')");
	for (yaml_node_pair_t *kv = n->data.mapping.pairs.start; kv < n->data.mapping.pairs.top; kv++) {
		yaml_node_t *k = dl_yaml_document_get_node(p->doc, kv->key);
		yaml_node_t *v = dl_yaml_document_get_node(p->doc, kv->value);
		const char *map = scalar(p, k, "labels");
		struct serve_labels *l;

		if (!map)
			return -EINVAL;
		if (*map == '@')
			map++;
		if (*map && !name_ok(map))
			return fail(p, k, "labels: '%.64s' is not a map's name", map);
		if (pr->nr_labels >= SERVE_MAX_LABELED)
			return fail(p, k, "labels: more than %d maps", SERVE_MAX_LABELED);
		if (!v || v->type != YAML_SEQUENCE_NODE)
			return fail(p, v, "labels: a map's label names are a list ([comm, fd])");
		l = &pr->labels[pr->nr_labels++];
		if (!(l->map = strdup(map)))
			return fail(p, NULL, "out of memory");
		for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
			yaml_node_t *ln = dl_yaml_document_get_node(p->doc, *it);
			const char *name = scalar(p, ln, "labels");

			if (!name)
				return -EINVAL;
			if (!name_ok(name) || !strcmp(name, "le") || !strncmp(name, "__", 2))
				return fail(p, ln, "labels: '%.64s' is not a label name ([a-zA-Z_][a-zA-Z0-9_]*, not le)", name);
			if (l->n >= SERVE_MAX_KEY_PARTS)
				return fail(p, ln, "labels: more than %d parts of a key", SERVE_MAX_KEY_PARTS);
			if (!(l->names[l->n++] = strdup(name)))
				return fail(p, NULL, "out of memory");
		}
	}
	return 0;
}

/* - name: NAME, program: TEXT | file: PATH, labels: {...} */
static int add_probe(struct cfg_parse *p, yaml_node_t *n)
{
	struct serve_probe *pr;

	if (p->c->nr_probes >= SERVE_MAX_PROBES)
		return fail(p, n, "more than %d probes", SERVE_MAX_PROBES);
	if (n->type != YAML_MAPPING_NODE)
		return fail(p, n, "a probe is a mapping with name, and program or file");
	pr = &p->c->probes[p->c->nr_probes++];
	for (yaml_node_pair_t *kv = n->data.mapping.pairs.start; kv < n->data.mapping.pairs.top; kv++) {
		yaml_node_t *k = dl_yaml_document_get_node(p->doc, kv->key);
		yaml_node_t *v = dl_yaml_document_get_node(p->doc, kv->value);
		const char *ks = scalar(p, k, "probes"), *vs;
		char **dst;
		int rc;

		if (!ks)
			return -EINVAL;
		if (!strcmp(ks, "labels")) {
			if ((rc = add_labels(p, pr, v)))
				return rc;
			continue;
		}
		if (!strcmp(ks, "name"))
			dst = &pr->name;
		else if (!strcmp(ks, "program"))
			dst = &pr->program;
		else if (!strcmp(ks, "file"))
			dst = &pr->file;
		else
			return fail(p, k, "unknown key '%.64s' in a probe (name, program, file, labels)", ks);
		if (!(vs = scalar(p, v, ks)))
			return -EINVAL;
		if (*dst)
			return fail(p, k, "'%s' given twice", ks);
		if (!strcmp(ks, "name") && !name_ok(vs))
			return fail(p, v, "name: '%.64s' is not a name ([a-zA-Z_][a-zA-Z0-9_]*)", vs);
		if (!(*dst = strdup(vs)))
			return fail(p, NULL, "out of memory");
	}
	if (!pr->name)
		return fail(p, n, "a probe without a name");
	if (!pr->program == !pr->file)
		return fail(p, n, "probe '%s': give either program or file", pr->name);
	for (int i = 0; i < p->c->nr_probes - 1; i++)
		if (!strcmp(p->c->probes[i].name, pr->name))
			return fail(p, n, "two probes named '%s'", pr->name);
	return 0;
}

static int top_key(struct cfg_parse *p, yaml_node_t *k, yaml_node_t *v)
{
	const char *ks = scalar(p, k, "a key"), *vs;
	unsigned long u;
	char host[256];
	uint16_t port;

	if (!ks)
		return -EINVAL;
	if (!strcmp(ks, "events")) {
		if (v->type != YAML_SEQUENCE_NODE)
			return fail(p, v, "'events' is a list");
		for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
			int rc = add_event(p, dl_yaml_document_get_node(p->doc, *it));

			if (rc)
				return rc;
		}
		return 0;
	}
	if (!strcmp(ks, "probes")) {
		if (v->type != YAML_SEQUENCE_NODE)
			return fail(p, v, "'probes' is a list");
		for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
			int rc = add_probe(p, dl_yaml_document_get_node(p->doc, *it));

			if (rc)
				return rc;
		}
		return 0;
	}
	if (!(vs = scalar(p, v, ks)))
		return -EINVAL;
	if (!strcmp(ks, "listen")) {
		if (serve__parse_listen(vs, host, sizeof(host), &port))
			return fail(p, v, "listen: '%.64s' is not HOST:PORT", vs);
		free(p->c->listen);
		if (!(p->c->listen = strdup(vs)))
			return fail(p, NULL, "out of memory");
	} else if (!strcmp(ks, "continuous")) {
		if (serve__parse_duration(vs, &p->c->continuous) || (p->c->continuous && p->c->continuous < 1))
			return fail(p, v, "continuous: '%.64s' is not a duration of 1s or more (10s, 1m)", vs);
	} else if (!strcmp(ks, "freq")) {
		if (parse_uint(vs, 1, 1000, &u))
			return fail(p, v, "freq: '%.64s' is not a rate from 1 to 1000 Hz", vs);
		p->c->freq = (unsigned)u;
	} else if (!strcmp(ks, "label_limit")) {
		if (parse_uint(vs, 1, 1000000, &u))
			return fail(p, v, "label_limit: '%.64s' is not a number from 1 to 1000000", vs);
		p->c->label_limit = (unsigned)u;
	} else if (!strcmp(ks, "max_profiles")) {
		if (parse_uint(vs, 1, 64, &u))
			return fail(p, v, "max_profiles: '%.64s' is not a number from 1 to 64", vs);
		p->c->max_profiles = (unsigned)u;
	} else {
		return fail(p, k, "unknown key '%.64s' (listen, continuous, freq, label_limit, max_profiles, events, probes)", ks);
	}
	return 0;
}

int serve__yaml_load(yaml_document_t *doc, const char *text, size_t len, char *err, size_t errlen)
{
	yaml_parser_t parser;
	int rc = serve__libs_load(SERVE_LIB_YAML, err, errlen);

	if (rc)
		return rc;
	if (!dl_yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	dl_yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!dl_yaml_parser_load(&parser, doc)) {
		snprintf(err, errlen, "line %lu, column %lu: %s", (unsigned long)parser.problem_mark.line + 1,
			 (unsigned long)parser.problem_mark.column + 1, parser.problem ? parser.problem : "not YAML");
		rc = -EINVAL;
	}
	dl_yaml_parser_delete(&parser);
	return rc;
}

int serve_config__parse(struct serve_config *c, const char *text, size_t len, char *err, size_t errlen)
{
	yaml_document_t doc;
	struct cfg_parse p = { .doc = &doc, .c = c, .err = err, .errlen = errlen };
	yaml_node_t *root;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	if (len > CONFIG_MAX_BYTES) {
		snprintf(err, errlen, "the config is over %d bytes", CONFIG_MAX_BYTES);
		return -EINVAL;
	}
	if ((rc = serve__yaml_load(&doc, text, len, err, errlen)))
		return rc;
	root = dl_yaml_document_get_root_node(&doc);
	if (root && root->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; !rc && pr < root->data.mapping.pairs.top; pr++)
			rc = top_key(&p, dl_yaml_document_get_node(&doc, pr->key), dl_yaml_document_get_node(&doc, pr->value));
	} else if (root && !(root->type == YAML_SCALAR_NODE && !root->data.scalar.length)) {
		rc = fail(&p, root, "the config is a mapping (listen:, events:, ...)");
	}
	dl_yaml_document_delete(&doc);
	if (rc)
		serve_config__free(c);
	return rc;
}

int serve_config__load(struct serve_config *c, const char *path, char *err, size_t errlen)
{
	FILE *f;
	char *buf;
	size_t n;
	int rc;

	if ((rc = serve__libs_load(SERVE_LIB_YAML, err, errlen)))	/* said alone, not as the file's fault */
		return rc;
	if (!(f = fopen(path, "r"))) {
		rc = -errno;
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return rc;
	}
	buf = malloc(CONFIG_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, CONFIG_MAX_BYTES + 1, f);
	fclose(f);
	rc = serve_config__parse(c, buf, n, err, errlen);
	if (rc) {
		char tmp[512];

		snprintf(tmp, sizeof(tmp), "%s: %s", path, err);
		snprintf(err, errlen, "%s", tmp);
	}
	free(buf);
	return rc;
}

void serve__label_escape(char *dst, size_t len, const char *src)
{
	size_t o = 0;

	for (; *src && o + 3 < len; src++) {
		if (*src == '\\' || *src == '"') {
			dst[o++] = '\\';
			dst[o++] = *src;
		} else if (*src == '\n') {
			dst[o++] = '\\';
			dst[o++] = 'n';
		} else {
			dst[o++] = *src;
		}
	}
	if (len)
		dst[o < len ? o : len - 1] = 0;
}
