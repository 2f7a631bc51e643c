// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - printing as bpftrace 0.17 does: printf's verbs with C's widths
 * (and its truncation of %d/%u to 32 bits), maps sorted by value, hist and
 * lhist tables (drawn by ui/hist.c), stats/avg lines, stacks as indented
 * sym+off frames, and -f json events.
 */
#include "lang/enumfmt.h"
#include "lang/output.h"
#include "lib/proc/maps.h"
#include "lib/symbol/symbol.h"
#include "lib/util.h"
#include "ui/hist.h"
#include "lib/stats/percentile.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int round8(int n)
{
	return (n + 7) & ~7;
}

/* ---- values ---- */
void out__pid_seen(struct out *o, pid_t pid)
{
	for (int i = 0; i < o->npids; i++)
		if (o->pids[i] == pid)
			return;
	pid_t *n = realloc(o->pids, (o->npids + 1) * sizeof(pid_t));

	if (!n)
		return;
	o->pids = n;
	o->pids[o->npids++] = pid;
	if (!o->sym || symbolizer__load_proc_maps(o->sym, pid))
		return;
	/* open each executable mapping's ELF file now: after the process exits its files may be gone */
	struct proc_maps *it = proc_maps__open(pid);
	const struct proc_map *m;

	while (it && (m = proc_maps__next(it))) {
		struct sym_frame fr[1];

		if (proc_map__exec(m))
			symbolizer__resolve(o->sym, pid, m->start, false, fr, 1);
	}
	proc_maps__close(it);
}

/*
 * BCC's stacks: the symbols without offsets ("[unknown]" where none), a line
 * each as "  sym" (stackcount), or folded from the root down with a ';' before
 * each, ";main;f;g", so that "%s%s%s", comm, ustack, kstack is a folded line
 */
static void stack_names(struct out *o, FILE *f, const uint64_t *ips, int depth, uint32_t pid, bool user, bool folded)
{
	int n = 0;

	while (n < (depth ? depth : 127) && ips[n])
		n++;
	for (int k = 0; k < n; k++) {
		int i = folded ? n - 1 - k : k;
		struct sym_frame fr[1];
		int r = o->sym ? symbolizer__resolve(o->sym, pid, ips[i], !user, fr, 1) : -1;
		const char *name = r > 0 && fr[0].sym ? fr[0].sym : "[unknown]";

		if (folded)
			fprintf(f, ";%s", name);
		else
			fprintf(f, "  %s\n", name);
	}
}

static void stack_text(struct out *o, FILE *f, const uint8_t *data, bool user, int indent, int depth, int mode)
{
	int64_t id = *(const int64_t *)data;
	uint32_t pid = user ? (uint32_t)*(const uint64_t *)(data + 8) : 0;
	uint64_t ips[128] = { 0 };
	int fd = user ? o->ustack_fd : o->kstack_fd;

	/* bpftrace's: an empty stack is "", any other starts on a line of its own */
	if (id < 0 || fd < 0 || bpf_map_lookup_elem(fd, &(uint32_t){ (uint32_t)id }, ips) || !ips[0])
		return;
	if (user && o->sym)
		out__pid_seen(o, pid);
	if (mode == STACK_BCC || mode == STACK_FOLDED) {
		stack_names(o, f, ips, depth, pid, user, mode == STACK_FOLDED);
		return;
	}
	fputc('\n', f);
	for (int i = 0; i < (depth ? depth : 127) && ips[i]; i++) {
		struct sym_frame fr[1];
		int n = o->sym ? symbolizer__resolve(o->sym, pid, ips[i], !user, fr, 1) : -1;

		if (mode == STACK_RAW) {	/* addresses only */
			fprintf(f, "%llx\n", (unsigned long long)ips[i]);
			continue;
		}
		if (mode == STACK_PERF) {	/* perf script's: address, symbol+offset, (user) the object */
			fprintf(f, "\t%llx ", (unsigned long long)ips[i]);
			if (n > 0 && fr[0].sym)
				fprintf(f, "%s+%llu", fr[0].sym, (unsigned long long)fr[0].offset);
			else
				fputs("[unknown]", f);
			if (user)
				fprintf(f, " (%s)", n > 0 && fr[0].dso ? fr[0].dso : "[unknown]");
			fputc('\n', f);
			continue;
		}
		fprintf(f, "%*s", indent, "");
		if (n > 0 && fr[0].sym)
			fprintf(f, "%s+%llu\n", fr[0].sym, (unsigned long long)fr[0].offset);
		else
			fprintf(f, "0x%llx\n", (unsigned long long)ips[i]);
	}
}

static void sym_text(struct out *o, FILE *f, uint64_t addr, pid_t pid, bool user)
{
	struct sym_frame fr[1];
	int n;

	if (user && o->sym)
		out__pid_seen(o, pid);
	n = o->sym ? symbolizer__resolve(o->sym, pid, addr, !user, fr, 1) : -1;
	if (n > 0 && fr[0].sym)
		fputs(fr[0].sym, f);
	else
		fprintf(f, "0x%llx", (unsigned long long)addr);
}

static void value_text(struct out *o, FILE *f, const struct type *t, const uint8_t *d, int indent)
{
	switch (t->kind) {
	case TY_INT:
		if (t->boolean)	/* upstream's bool (bool.c) */
			fputs(*(const uint64_t *)d ? "true" : "false", f);
		else if (t->enumname && enumfmt__name(o, t, *(const uint64_t *)d))
			fputs(enumfmt__name(o, t, *(const uint64_t *)d), f);
		else if (t->sign)
			fprintf(f, "%lld", (long long)*(const int64_t *)d);
		else
			fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)d);
		break;
	case TY_STR:
		fprintf(f, "%.*s", t->size, (const char *)d);
		if (o->prog && o->prog->cfg.trunc_trailer && *o->prog->cfg.trunc_trailer &&
		    (int)strnlen((const char *)d, t->size) >= (t->size < o->prog->cfg.max_strlen ? t->size :
							      o->prog->cfg.max_strlen) - 1)
			fputs(o->prog->cfg.trunc_trailer, f);	/* it fills its buffer: str() may have cut it */
		break;
	case TY_KSTACK: case TY_USTACK:
		stack_text(o, f, d, t->kind == TY_USTACK, indent, t->bits, t->smode);
		break;
	case TY_KSYM: case TY_USYM:
		sym_text(o, f, *(const uint64_t *)d, t->kind == TY_USYM ? (pid_t) * (const uint64_t *)(d + 8) : 0,
			 t->kind == TY_USYM);
		break;
	case TY_TUPLE: {
		int off = 0;

		if (t->names) {	/* a record, as bpftrace prints it: { .a = 1, .b = x } */
			fputs("{ ", f);
			for (int i = 0; i < t->ntup; i++) {
				fprintf(f, "%s.%s = ", i ? ", " : "", t->names[i]);
				value_text(o, f, &t->tup[i], d + off, indent);
				off += round8(t->tup[i].size);
			}
			fputs(" }", f);
			break;
		}
		fputc('(', f);
		for (int i = 0; i < t->ntup; i++) {
			if (i)
				fputs(", ", f);
			value_text(o, f, &t->tup[i], d + off, indent);
			off += round8(t->tup[i].size);
		}
		fputc(')', f);
		break;
	}
	default:
		if (!fmt__value(o, f, t, d))
			fputs("?", f);
	}
}

static char *value_str(struct out *o, const struct type *t, const uint8_t *d, int indent)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	value_text(o, f, t, d, indent);
	fclose(f);
	return buf;
}

/* bpftrace's -f json strings: its escapes, other bytes as they are */
static void json_str(FILE *f, const char *s)
{
	util__json_str(f, s, strlen(s), true);
}

/* a value in -f json: numbers, strings, tuples as arrays (as bpftrace 0.17), records as objects */
static void json_value(struct out *o, FILE *f, const struct type *t, const uint8_t *d)
{
	int off = 0;

	/* numbers, and an array as the JSON array its text is already: [1,2,3,4] */
	if ((t->kind == TY_INT && !(t->enumname && enumfmt__name(o, t, *(const uint64_t *)d))) ||
	    t->kind == TY_ARRAY || t->kind == TY_FDIV) {
		value_text(o, f, t, d, 0);
		return;
	}
	if (t->kind != TY_TUPLE) {
		char *v = value_str(o, t, d, 8);

		json_str(f, v ? v : "");
		free(v);
		return;
	}
	fputc(t->names ? '{' : '[', f);
	for (int i = 0; i < t->ntup; i++) {
		if (i)	/* upstream: a record's fields after ", ", a tuple's after "," */
			fputs(t->names ? ", " : ",", f);
		if (t->names) {
			json_str(f, t->names[i]);
			fputs(": ", f);
		}
		json_value(o, f, &t->tup[i], d + off);
		off += round8(t->tup[i].size);
	}
	fputc(t->names ? '}' : ']', f);
}

/* ---- printf ---- */
char *out__format(struct out *o, const struct fmtsite *s, const uint8_t *rec, size_t len)
{
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	const char *p = s->fmt;
	uint32_t off = 8;
	int arg = 0;

	if (!f)
		return NULL;
	while (*p) {
		if (*p != '%') {
			fputc(*p++, f);
			continue;
		}
		if (p[1] == '%') {
			fputc('%', f);
			p += 2;
			continue;
		}
		/* one conversion: flags, width, precision, length, verb */
		const char *start = p++;

		while (*p && strchr("-+ #0123456789.", *p))
			p++;
		const char *lenmod = p;

		while (*p && strchr("hlLzjt", *p))
			p++;
		char verb = *p ? *p++ : 0;
		char spec[64];
		int speclen = (int)(lenmod - start);

		if (speclen > 40 || arg >= s->nargs)
			break;
		const struct type *t = &s->args[arg];
		const uint8_t *d = rec + off;

		if (off + t->size > len)
			break;
		off += round8(t->size);
		arg++;
		if (enumfmt__conv(o, f, t, d, verb, &p, start, speclen))	/* %s of an enum, %gr */
			continue;
		if (t->kind == TY_INT && strchr("diuxXoc", verb)) {
			int64_t v = *(const int64_t *)d;
			int l = 0;

			for (const char *q = lenmod; q < p - 1; q++)
				l += *q == 'l' || *q == 'z' || *q == 'j' || *q == 't' || *q == 'L' ? 1 : *q == 'h' ? -1 : 0;
			snprintf(spec, sizeof(spec), "%.*sll%c", speclen, start, verb);
			if (verb == 'c') {
				snprintf(spec, sizeof(spec), "%.*sc", speclen, start);
				fprintf(f, spec, (int)(unsigned char)v);
			} else if (l > 0) {
				fprintf(f, spec, (long long)v);
			} else if (l == -1) {
				fprintf(f, spec, (long long)(strchr("di", verb) ? (short)v : (unsigned short)v));
			} else if (l < -1) {
				fprintf(f, spec, (long long)(strchr("di", verb) ? (signed char)v : (unsigned char)v));
			} else {
				/* bpftrace hands %d and %u an int64 where libc reads 32 bits */
				fprintf(f, spec, strchr("di", verb) ? (long long)(int)v : (long long)(unsigned int)v);
			}
		} else if ((t->kind == TY_INT || t->kind == TY_FDIV) && strchr("feEgGa", verb)) {
			/* C's floating verbs: fdiv()'s quotient, or an integer as a double */
			int64_t v = *(const int64_t *)d;

			snprintf(spec, sizeof(spec), "%.*s%c", speclen, start, verb);
			fprintf(f, spec, t->kind == TY_FDIV ? fmt__fdiv(t, d) : t->sign ? (double)v : (double)(uint64_t)v);
		} else if (t->kind == TY_BUF && verb == 'r') {	/* %r, %rx, %rh */
			char mode = *p == 'x' || *p == 'h' ? *p++ : 0;
			char *v = NULL;
			size_t vlen = 0;
			FILE *vf = open_memstream(&v, &vlen);

			if (vf) {
				fmt__buf(vf, t, d, mode);
				fclose(vf);
			}
			snprintf(spec, sizeof(spec), "%.*ss", speclen, start);
			fprintf(f, spec, v ? v : "");
			free(v);
		} else if (t->kind == TY_INT && verb == 'p') {
			snprintf(spec, sizeof(spec), "%.*sp", speclen, start);
			fprintf(f, spec, (void *)(uintptr_t)*(const uint64_t *)d);
		} else {
			char *v = value_str(o, t, d, 8);

			snprintf(spec, sizeof(spec), "%.*ss", speclen, start);
			fprintf(f, spec, v ? v : "");
			free(v);
		}
	}
	fclose(f);
	return buf;
}

void out__printf(struct out *o, const char *text)
{
	out__event(o, "printf", text, strlen(text));
}

/* what printf, time(), cat() and system() print: -f json names each ("time", "cat", "syscall"), as bpftrace 0.17 */
void out__event(struct out *o, const char *type, const char *text, size_t len)
{
	if (o->json) {
		fprintf(o->f, "{\"type\": \"%s\", \"data\": ", type);
		util__json_str(o->f, text, len, true);
		fputs("}\n", o->f);
	} else {
		fwrite(text, 1, len, o->f);
	}
}

void out__value_line(struct out *o, const struct type *t, const uint8_t *data)
{
	char *v = value_str(o, t, data, 8);

	if (o->json) {
		fputs("{\"type\": \"value\", \"data\": ", o->f);
		if ((t->kind == TY_INT && !t->enumname) || t->kind == TY_FDIV)
			fputs(v ? v : "0", o->f);
		else if (t->kind == TY_TUPLE || t->kind == TY_ARRAY || t->kind == TY_INT)
			json_value(o, o->f, t, data);
		else
			json_str(o->f, v ? v : "");
		fputs("}\n", o->f);
	} else {
		fprintf(o->f, "%s\n", v ? v : "");
	}
	free(v);
}

/* ---- maps ---- */
struct entry {
	uint8_t *key;		/* the user key (without a hist bucket) */
	int64_t v;		/* what entries are sorted by */
	int64_t count, total;	/* avg/stats */
	uint64_t *buckets;	/* hist/lhist */
	int nb;
	int64_t hmax;		/* --percentiles: the exact max, or PCTL_NO_MAX */
	uint8_t *val;		/* non-aggregated value */
};

struct entries {
	struct entry *e;
	int n;
	size_t cap;
	int keylen;
};

static int key_cmp_len;

static int cmp_key(const void *a, const void *b)
{
	return memcmp(((const struct entry *)a)->key, ((const struct entry *)b)->key, key_cmp_len);
}

static int cmp_val(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return memcmp(x->key, y->key, key_cmp_len);
}

static struct entry *find_or_add(struct entries *es, const uint8_t *key, int nb)
{
	for (int i = 0; i < es->n; i++)
		if (!memcmp(es->e[i].key, key, es->keylen))
			return &es->e[i];
	if (util__grow(&es->e, &es->cap, (size_t)es->n + 1, sizeof(*es->e), 64))
		return NULL;
	struct entry *e = &es->e[es->n];

	memset(e, 0, sizeof(*e));
	e->hmax = PCTL_NO_MAX;
	e->key = malloc(es->keylen ? es->keylen : 1);
	if (!e->key)
		return NULL;
	memcpy(e->key, key, es->keylen);
	if (nb) {
		e->buckets = calloc(nb, sizeof(uint64_t));
		e->nb = nb;
	}
	es->n++;
	return e;
}

static void free_entries(struct entries *es)
{
	for (int i = 0; i < es->n; i++) {
		free(es->e[i].key);
		free(es->e[i].buckets);
		free(es->e[i].val);
	}
	free(es->e);
}

/* the bucket layout of a hist/lhist map */
static struct hist_bt hist_of(const struct mapinfo *m)
{
	return (struct hist_bt){ .linear = m->agg == AGG_LHIST, .k = m->hist_k, .min = m->lmin,
				 .max = m->lmax, .step = m->lstep };
}

static int hist_buckets(const struct mapinfo *m)
{
	struct hist_bt h = hist_of(m);

	return m->agg == AGG_HIST || m->agg == AGG_LHIST ? hist__bt_nr_buckets(&h) : 0;
}

static int read_map(struct out *o, struct mapinfo *m, struct entries *es)
{
	int ncpu = m->percpu ? o->ncpus : 1;
	size_t vsz = (size_t)m->value_size * ncpu;
	uint8_t *key = calloc(1, m->key_size), *next = calloc(1, m->key_size), *val = calloc(1, vsz);
	bool first = true;
	int nb = hist_buckets(m);
	int rc = 0;

	es->keylen = m->key_size - (nb ? 8 : 0);
	if (!key || !next || !val) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t n = 0; n < m->max_entries && bpf_map_get_next_key(m->fd, first ? NULL : key, next) == 0; n++) {
		first = false;
		memcpy(key, next, m->key_size);
		if (bpf_map_lookup_elem(m->fd, key, val))
			continue;
		struct entry *e = find_or_add(es, key, nb);

		if (!e) {
			rc = -ENOMEM;
			break;
		}
		switch (m->agg) {
		case AGG_NONE:
			free(e->val);
			e->val = malloc(m->value_size);
			if (e->val)
				memcpy(e->val, val, m->value_size);
			e->v = *(int64_t *)val;
			break;
		case AGG_COUNT: case AGG_SUM:
			for (int c = 0; c < ncpu; c++)
				e->v += *(int64_t *)(val + c * m->value_size);
			break;
		case AGG_AVG: case AGG_STATS:
			for (int c = 0; c < ncpu; c++) {
				e->count += *(int64_t *)(val + c * m->value_size);
				e->total += *(int64_t *)(val + c * m->value_size + 8);
			}
			e->v = e->count ? e->total / e->count : 0;
			break;
		case AGG_MIN: case AGG_MAX: {
			bool set = false;

			for (int c = 0; c < ncpu; c++) {
				int64_t x = *(int64_t *)(val + c * m->value_size);

				if (!*(int64_t *)(val + c * m->value_size + 8))
					continue;
				if (!set || (m->agg == AGG_MIN ? x < e->v : x > e->v))
					e->v = x;
				set = true;
			}
			break;
		}
		case AGG_HIST: case AGG_LHIST: {
			uint64_t b = *(uint64_t *)(key + m->key_size - 8), sum = 0;

			if (b == HIST_MAX_BUCKET) {	/* gen_hist_max(): v ^ 2^63 per CPU, 0 unset */
				for (int c = 0; c < ncpu; c++) {
					uint64_t x = *(uint64_t *)(val + c * m->value_size);
					int64_t mx = (int64_t)(x ^ (1ULL << 63));

					if (x && (e->hmax == PCTL_NO_MAX || mx > e->hmax))
						e->hmax = mx;
				}
				break;
			}
			for (int c = 0; c < ncpu; c++)
				sum += *(uint64_t *)(val + c * m->value_size);
			if (b < (uint64_t)nb)
				e->buckets[b] += sum;
			e->v += (int64_t)sum;
			break;
		}
		case AGG_TSERIES:	/* read by output_tseries.c */
			break;
		}
	}
out:
	free(key);
	free(next);
	free(val);
	return rc;
}

/* the key's fields from, from + 1 .. to - 1, sep between them */
static void key_fields(struct out *o, FILE *f, const struct mapinfo *m, const uint8_t *key, int from, int to,
		       const char *sep)
{
	int off = 0;

	for (int i = 0; i < m->key.ntup && i < to; i++) {
		if (i < from) {
			off += round8(m->key.tup[i].size);
			continue;
		}
		if (i > from)
			fputs(sep, f);
		if (m->key.tup[i].kind == TY_INT && m->key.tup[i].ptr)	/* pointers (uaddr) as keys: hex */
			fprintf(f, "0x%llx", (unsigned long long)*(const uint64_t *)(key + off));
		else if (m->key.tup[i].kind == TY_INT && (!m->key.tup[i].bits || m->key.tup[i].bits == 64))
			fprintf(f, "%lld", (long long)*(const int64_t *)(key + off));	/* bpftrace: 64-bit keys signed */
		else
			value_text(o, f, &m->key.tup[i], key + off, 4);
		off += round8(m->key.tup[i].size);
	}
}

void out__key_part(struct out *o, FILE *f, const struct mapinfo *m, const uint8_t *key, int i)
{
	key_fields(o, f, m, key, i, i + 1, "");
}

static void key_text(struct out *o, FILE *f, const struct mapinfo *m, const uint8_t *key, bool json)
{
	if (!m->nkeys)
		return;
	if (!json)
		fputc('[', f);
	key_fields(o, f, m, key, 0, m->key.ntup, json ? "," : ", ");
	if (!json)
		fputc(']', f);
}

char *out__key_str(struct out *o, const struct mapinfo *m, const uint8_t *key, bool json)
{
	char *k = NULL;
	size_t kl = 0;
	FILE *kf = open_memstream(&k, &kl);

	if (!kf)
		return NULL;
	key_text(o, kf, m, key, json);
	fclose(kf);
	return k;
}

static void print_hist(struct out *o, const struct mapinfo *m, const struct entry *e, long long div)
{
	struct hist_bt h = hist_of(m);

	hist__print_bt(o->f, &h, e->buckets, e->nb, div > 1 ? (uint64_t)div : 1);
}

static void json_hist(struct out *o, const struct mapinfo *m, const struct entry *e)
{
	struct hist_bt h = hist_of(m);

	hist__print_bt_json(o->f, &h, e->buckets, e->nb);
}

static void json_map(struct out *o, struct mapinfo *m, struct entries *es, int from, long long div)
{
	const char *type = m->agg == AGG_HIST || m->agg == AGG_LHIST ? "hist" :
			   m->agg == AGG_STATS || m->agg == AGG_AVG ? "stats" : "map";

	fprintf(o->f, "{\"type\": \"%s\", \"data\": {", type);
	json_str(o->f, m->name);
	fputs(": ", o->f);
	if (m->nkeys)
		fputc('{', o->f);
	for (int i = from; i < es->n; i++) {
		struct entry *e = &es->e[i];

		if (m->nkeys) {
			char *k = out__key_str(o, m, e->key, true);

			if (i > from)
				fputs(", ", o->f);
			json_str(o->f, k ? k : "");
			fputs(": ", o->f);
			free(k);
		}
		if (m->agg == AGG_HIST || m->agg == AGG_LHIST) {
			json_hist(o, m, e);
		} else if (m->agg == AGG_STATS) {
			fprintf(o->f, "{\"count\": %lld, \"average\": %lld, \"total\": %lld}", (long long)e->count,
				(long long)(e->count ? e->total / e->count : 0), (long long)e->total);
		} else if (m->agg == AGG_NONE && (m->val.kind == TY_TUPLE || m->val.kind == TY_ARRAY || m->val.kind == TY_FDIV)) {
			json_value(o, o->f, &m->val, e->val);
		} else if (m->agg == AGG_NONE && m->val.boolean) {
			fputs(e->v ? "true" : "false", o->f);
		} else if (m->agg == AGG_NONE && (m->val.kind != TY_INT ||
						  (m->val.enumname && enumfmt__name(o, &m->val, *(const uint64_t *)e->val)))) {
			char *v = value_str(o, &m->val, e->val, 8);

			json_str(o->f, v ? v : "");
			free(v);
		} else {
			fprintf(o->f, "%lld", (long long)(div > 1 ? e->v / div : e->v));
		}
	}
	if (m->nkeys)
		fputc('}', o->f);
	fputs("}}\n", o->f);
}

/* -f json with percentiles: {"type": "percentiles", "data": {"@h": {"p50": N, ..., "max": N}}} (keys as json_map's) */
static void json_percentiles(struct out *o, struct mapinfo *m, struct entries *es, int from)
{
	static const struct { double q; const char *name; } qs[] = {
		{ 50, "p50" }, { 90, "p90" }, { 99, "p99" }, { 99.9, "p999" }, { 100, "max" },
	};
	struct hist_bt h = hist_of(m);

	fputs("{\"type\": \"percentiles\", \"data\": {", o->f);
	json_str(o->f, m->name);
	fputs(m->nkeys ? ": {" : ": ", o->f);
	for (int i = from; i < es->n; i++) {
		if (m->nkeys) {
			char *k = out__key_str(o, m, es->e[i].key, true);

			fputs(i > from ? ", " : "", o->f);
			json_str(o->f, k ? k : "");
			fputs(": ", o->f);
			free(k);
		}
		for (unsigned q = 0; q < sizeof(qs) / sizeof(qs[0]); q++)
			fprintf(o->f, "%s\"%s\": %lld", q ? ", " : "{", qs[q].name, (long long)hist__bt_percentile(&h,
				es->e[i].buckets, es->e[i].nb, es->e[i].hmax, qs[q].q));
		fputc('}', o->f);
	}
	fputs(m->nkeys ? "}}}\n" : "}}\n", o->f);
}

int out__map(struct out *o, struct mapinfo *m, long long top, long long div)
{
	struct entries es = { 0 };
	bool hist = m->agg == AGG_HIST || m->agg == AGG_LHIST;

	if (m->agg == AGG_TSERIES)
		return out__tseries(o, m, top, div);
	int rc = read_map(o, m, &es);

	if (rc) {
		free_entries(&es);
		return rc;
	}
	key_cmp_len = es.keylen;
	if (es.n && m->agg == AGG_NONE && m->val.kind != TY_INT)
		qsort(es.e, es.n, sizeof(*es.e), cmp_key);
	else if (es.n)
		qsort(es.e, es.n, sizeof(*es.e), cmp_val);
	int from = top > 0 && es.n > top ? es.n - (int)top : 0;

	if (o->json) {	/* bpftrace 0.17 writes no line for an empty map */
		if (es.n)
			json_map(o, m, &es, from, div);
		if (es.n && hist && o->prog && o->prog->cfg.percentiles)
			json_percentiles(o, m, &es, from);
		free_entries(&es);
		return 0;
	}
	for (int i = from; i < es.n; i++) {
		struct entry *e = &es.e[i];

		fputs(m->name, o->f);
		key_text(o, o->f, m, e->key, false);
		fputs(": ", o->f);
		if (hist) {
			fputc('\n', o->f);
			print_hist(o, m, e, div);
			if (o->prog && o->prog->cfg.percentiles) {
				struct hist_bt h = hist_of(m);

				hist__print_bt_percentiles(o->f, &h, e->buckets, e->nb, e->hmax);
			}
			fputc('\n', o->f);
		} else if (m->agg == AGG_STATS) {
			int64_t avg = e->count ? e->total / e->count : 0;

			if (div > 1)
				fprintf(o->f, "count %lld, average %lld, total %lld\n", (long long)(e->count / div),
					(long long)(avg / div), (long long)(e->total / div));
			else
				fprintf(o->f, "count %lld, average %lld, total %lld\n", (long long)e->count,
					(long long)avg, (long long)e->total);
		} else if (m->agg == AGG_NONE && m->val.boolean) {	/* upstream's bool (bool.c) */
			fputs(e->v ? "true\n" : "false\n", o->f);
		} else if (m->agg == AGG_NONE && (m->val.kind != TY_INT || m->val.enumname)) {
			value_text(o, o->f, &m->val, e->val, 8);
			fputc('\n', o->f);
		} else if ((m->agg == AGG_NONE || m->agg == AGG_SUM) && !m->val.sign) {
			fprintf(o->f, "%llu\n", (unsigned long long)(div > 1 ? (uint64_t)e->v / div : (uint64_t)e->v));
		} else {
			fprintf(o->f, "%lld\n", (long long)(div > 1 ? e->v / div : e->v));
		}
	}
	/* bpftrace ends avg and stats maps, and empty maps, with an empty line (an empty avg map with two) */
	if (!hist && (m->agg == AGG_AVG || m->agg == AGG_STATS))
		fputc('\n', o->f);
	if (!hist && es.n == 0)
		fputc('\n', o->f);
	if (hist && es.n == 0)
		fputc('\n', o->f);
	free_entries(&es);
	return 0;
}

/* percentile(@h, q) when printed: the map read now (a hist/lhist without keys) */
void out__percentile(struct out *o, FILE *f, struct mapinfo *m, double q)
{
	struct entries es = { 0 };
	char buf[64] = "0";

	if (!read_map(o, m, &es) && es.n) {
		struct hist_bt h = hist_of(m);

		hist__bt_percentile_text(buf, sizeof(buf), &h, es.e[0].buckets, es.e[0].nb, es.e[0].hmax, q);
	}
	fputs(buf, f);
	free_entries(&es);
}

/* ---- BCC's histograms ---- */
static const struct mapinfo *key_cmp_map;

/* keys in order: numbers by value, strings as strings, field by field */
static int cmp_key_fields(const void *a, const void *b)
{
	const uint8_t *x = ((const struct entry *)a)->key, *y = ((const struct entry *)b)->key;
	int off = 0;

	for (int i = 0; i < key_cmp_map->key.ntup; i++) {
		const struct type *t = &key_cmp_map->key.tup[i];
		int r;

		if (t->kind == TY_INT) {
			int64_t u, v;

			memcpy(&u, x + off, 8);
			memcpy(&v, y + off, 8);
			r = u < v ? -1 : u > v;
		} else if (t->kind == TY_STR) {
			r = strncmp((const char *)x + off, (const char *)y + off, t->size);
		} else {
			r = memcmp(x + off, y + off, t->size);
		}
		if (r)
			return r;
		off += round8(t->size);
	}
	return 0;
}

/* hist()'s buckets folded into BCC's log2 slots: 0 holds 0 and 1, slot i [2^i, 2^(i+1)); negatives dropped */
static void bcc_log2(struct out *o, const struct mapinfo *m, const struct entry *e, const char *label)
{
	struct hist_bt h = hist_of(m);
	uint64_t slots[64] = { 0 };

	for (int b = 0; b < e->nb; b++) {
		long long lo, hi;

		if (e->buckets[b] && (hist__bt_range(&h, b, &lo, &hi) & HIST_BT_MIN) && lo >= 0)
			slots[hist__log2_slot((uint64_t)lo)] += e->buckets[b];
	}
	hist__print_log2(o->f, slots, 64, label);
	if (o->prog && o->prog->cfg.percentiles)	/* a label that names a time unit: durations */
		hist__print_log2_percentiles(o->f, slots, 64, e->hmax, !strcmp(label, "usecs") ? 1000 :
					     !strcmp(label, "msecs") ? 1000000 : !strcmp(label, "nsecs") ? 1 : 0);
}

/* lhist()'s steps as BCC's rows min + i * step; the one above max is a row too, the one below min is not */
static void bcc_linear(struct out *o, const struct mapinfo *m, const struct entry *e, const char *label)
{
	struct hist_bt h = hist_of(m);
	int n = e->nb - 1;
	uint64_t *rows = calloc(n > 0 ? n : 1, sizeof(*rows));

	if (!rows)
		return;
	for (int b = 1; b < e->nb; b++) {
		long long lo, hi;

		if (hist__bt_range(&h, b, &lo, &hi) & HIST_BT_MIN) {
			long long i = (lo - m->lmin) / m->lstep;

			if (i >= 0 && i < n)
				rows[i] += e->buckets[b];
		}
	}
	hist__print_linear(o->f, rows, n, m->lmin, m->lstep, label);
	if (o->prog && o->prog->cfg.percentiles)
		hist__print_bt_percentiles(o->f, &h, e->buckets, e->nb, e->hmax);
	free(rows);
}

/*
 * the line before a key's histogram: libbpf-tools' "\npid = 28693 bash", or the
 * section as a format whose %s are the key (one %s: all its fields; several: a
 * field each), as biolatency's "\ndisk = %s\tflags = %s"
 */
static void bcc_section(struct out *o, const char *section, const struct mapinfo *m, const uint8_t *key)
{
	const char *p = section, *pct;
	int n = 0, field = 0;

	for (pct = p; (pct = strstr(pct, "%s")); pct += 2)
		n++;
	if (!n) {
		fprintf(o->f, "\n%s = ", section);
		key_fields(o, o->f, m, key, 0, m->key.ntup, " ");
		fputc('\n', o->f);
		return;
	}
	while ((pct = strstr(p, "%s"))) {
		int to = n == 1 ? m->key.ntup : field + 1;

		fwrite(p, 1, pct - p, o->f);
		key_fields(o, o->f, m, key, field, to, " ");
		field = to;
		p = pct + 2;
	}
	fprintf(o->f, "%s\n", p);
}

int out__bcc_hist(struct out *o, const struct fmtsite *s)
{
	struct mapinfo *m = s->map;
	struct entries es = { 0 };
	int rc;

	if (o->json || (m->agg != AGG_HIST && m->agg != AGG_LHIST))
		return out__map(o, m, 0, 0);
	rc = read_map(o, m, &es);
	if (!rc && es.n) {
		key_cmp_map = m;
		qsort(es.e, es.n, sizeof(*es.e), cmp_key_fields);
	}
	for (int i = 0; !rc && i < es.n; i++) {
		if (m->nkeys)
			bcc_section(o, s->section, m, es.e[i].key);
		if (s->bcc == BCC_LOG2)
			bcc_log2(o, m, &es.e[i], s->label);
		else
			bcc_linear(o, m, &es.e[i], s->label);
	}
	free_entries(&es);
	return rc;
}

static int cmp_map_name(const void *a, const void *b)
{
	return strcmp((*(struct mapinfo *const *)a)->name, (*(struct mapinfo *const *)b)->name);
}

void out__all_maps(struct out *o)
{
	struct mapinfo **v = calloc(o->prog->nmaps + 1, sizeof(*v));
	int n = 0;

	if (!v)
		return;
	for (struct mapinfo *m = o->prog->maps; m; m = m->next)
		if (m->fd >= 0)
			v[n++] = m;
	qsort(v, n, sizeof(*v), cmp_map_name);
	fputs("\n\n", o->f);	/* bpftrace 0.17 writes them in json mode too */
	for (int i = 0; i < n; i++)
		out__map(o, v[i], 0, 0);
	free(v);
}
