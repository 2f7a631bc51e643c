// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_hist.c - `sonde ftrace --hist SPEC -e GROUP:EVENT` where the kernel
 * has no hist triggers (or with --hist-bpf): the spec becomes a program of
 * sonde's language over the tracepoint, one map per counted value, keyed by
 * the spec's keys, and its maps' rows, printed at END, become the text of the
 * kernel's hist file (lib/tracefs/hist.c).
 */
#include "sonde.h"
#include "cmd/ftrace_hist.h"
#include "cmd/probe.h"
#include "cmd/tool_gen.h"
#include "lang/lang.h"
#include "lib/tracefs/hist.h"
#include "lib/tracefs/tracefs.h"
#include "lib/syscall/syscalls.h"
#include "lib/util.h"
#include "lib/symbol/symbol_int.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct tp_field {
	char name[64];
	bool string, is_signed;
};

/* the fields of GROUP:EVENT from its format file; count, or -1 after an error line */
static int read_format(const char *event, struct tp_field *f, int max)
{
	const char *root = tracefs__dir(), *colon = strchr(event, ':');
	char path[4096], line[1024];
	FILE *fp;
	int n = 0;

	if (!root) {
		error("tracefs is not mounted");
		return -1;
	}
	if (!colon || strchr(colon + 1, ':') || strpbrk(event, "*?[")) {
		error("--hist takes one event, GROUP:EVENT, not '%s'", event);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/events/%.*s/%s/format", root, (int)(colon - event), event, colon + 1);
	fp = fopen(path, "re");
	if (!fp) {
		error("no tracepoint '%s' (see sonde ftrace --list-events)", event);
		return -1;
	}
	while (n < max && fgets(line, sizeof(line), fp)) {
		char *p = strstr(line, "field:"), *semi, *name, *sg;

		if (!p || !(semi = strchr(p, ';')))
			continue;
		*semi = 0;
		p += 6;
		name = semi;
		while (name > p && name[-1] != ' ' && name[-1] != '*')
			name--;
		memset(&f[n], 0, sizeof(f[n]));
		snprintf(f[n].name, sizeof(f[n].name), "%.*s", (int)strcspn(name, "["), name);
		f[n].string = strstr(p, "char") && (strchr(name, '[') || strstr(p, "__data_loc"));
		sg = strstr(semi + 1, "signed:");
		f[n].is_signed = sg && sg[7] == '1';
		n++;
	}
	fclose(fp);
	return n;
}

static const struct tp_field *find_field(const struct tp_field *f, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return &f[i];
	return NULL;
}

/* a field in the language: common_pid is the thread's id, cpu the cpu; -1 after an error line */
static int field_expr(struct sbuf *b, const struct tp_field *f, int n, const char *name, bool *string)
{
	const struct tp_field *t;

	*string = false;
	if (!strcmp(name, "common_pid")) {
		sbuf__printf(b, "tid");
		return 0;
	}
	if (!strcmp(name, "cpu") || !strcmp(name, "common_cpu")) {
		sbuf__printf(b, "cpu");
		return 0;
	}
	if ((!strcmp(name, "comm") || !strcmp(name, "COMM")) && !find_field(f, n, name)) {
		*string = true;
		sbuf__printf(b, "comm");
		return 0;
	}
	if (!strncmp(name, "common_", 7)) {
		error("--hist: the BPF twin has no '%s' (common_pid and cpu only)", name);
		return -1;
	}
	if (!(t = find_field(f, n, name))) {
		error("--hist: the event has no field '%s'", name);
		return -1;
	}
	*string = t->string;
	sbuf__printf(b, t->string ? "args.%s" : t->is_signed ? "(int64)args.%s" : "(uint64)args.%s", name);
	return 0;
}

/* the kernel's filter syntax in the language's: fields become args.NAME; -1 after an error line */
static int filter_expr(struct sbuf *b, const char *s, const struct tp_field *f, int n)
{
	while (*s) {
		if (isalpha((unsigned char)*s) || *s == '_') {
			char name[64];
			size_t l = 0;
			bool str;

			while ((isalnum((unsigned char)s[l]) || s[l] == '_') && l < sizeof(name) - 1)
				l++;
			snprintf(name, sizeof(name), "%.*s", (int)l, s);
			if (field_expr(b, f, n, name, &str))
				return -1;
			s += l;
		} else if (*s == '"' || *s == '\'') {
			char q = *s++;

			sbuf__printf(b, "\"");
			while (*s && *s != q)
				sbuf__add(b, s++, 1);
			if (!*s) {
				error("--hist: the filter's string is not closed");
				return -1;
			}
			s++;
			sbuf__printf(b, "\"");
		} else if (*s == '~') {
			error("--hist: the BPF twin has no '~' (glob) filters: compare with == instead");
			return -1;
		} else {
			sbuf__add(b, s++, 1);
		}
	}
	return 0;
}

/* END: the rows, "@@n\tEVENTS" then "@@\tKEY...\tHITS\tCOMM\tVALS..." each, and the maps cleared */
static void program_end(struct sbuf *b, const struct hist_spec *h, const struct hist_field *keys, long track)
{
	sbuf__printf(b, "END {\n\tprintf(\"@@n\\t%%llu\\n\", (uint64)@_n[0]);\n\tfor ($kv : @h) {\n\t\tprintf(\"@@\\t");
	for (int i = 0; i < h->nkeys; i++)
		sbuf__printf(b, "%s\\t", keys[i].string ? "%s" : "%llu");
	sbuf__printf(b, "%%llu\\t%%s");
	for (int v = 0; v < h->nvals; v++)
		sbuf__printf(b, "\\t%%llu");
	sbuf__printf(b, "\\n\"");
	for (int i = 0; i < h->nkeys; i++)
		sbuf__printf(b, h->nkeys > 1 ? ", $kv.0.%d" : ", $kv.0", i);
	sbuf__printf(b, ", $kv.1, @c[$kv.0]");
	for (int v = 0; v < h->nvals; v++)
		sbuf__printf(b, ", @v%d[$kv.0]", v);
	sbuf__printf(b, ");\n\t}\n\tclear(@_n); clear(@_e); clear(@h); clear(@c);");
	for (int v = 0; v < h->nvals; v++)
		sbuf__printf(b, " clear(@v%d);", v);
	sbuf__printf(b, "%s\n}\n", track ? " clear(@_t);" : "");
}

/* the program: the maps @h (hits), @v0.. (sums), @c (comm), the rows printed at END */
/*
 * track: 0 every process; -1 the command (cpid) and its children; > 0 that
 * process and its children, as set_event_pid with event-fork has them
 */
static char *program(const struct hist_spec *h, struct hist_field *keys, const char *event, double duration,
		     long track)
{
	struct tp_field f[128];
	struct sbuf b = { 0 }, k = { 0 };
	char err[256], *key;
	int n = read_format(event, f, 128);
	bool str;

	if (n < 0)
		return NULL;
	for (int i = 0; i < h->nkeys; i++) {
		if (i)
			sbuf__printf(&k, ", ");
		if (field_expr(&k, f, n, keys[i].name, &str))
			goto fail;
		keys[i].string = str;
		if (str && keys[i].mods)
			warning("--hist: a string key takes no modifier: '%s' counted as the string", keys[i].name);
	}
	if (!(key = tool_gen__take(&k, err, sizeof(err))))
		goto oom;
	/*
	 * size=: the kernel's map holds that many entries, and the events of a new
	 * key once it is full are Dropped: @_e counts the entries (two CPUs adding
	 * the last ones at once may pass it by one), @_n every event; @c keeps the
	 * comm of an entry's first event, as the kernel does for .execname
	 */
	sbuf__printf(&b, "config = { max_map_keys = %u }\n", h->size > 4096 ? h->size : 4096);
	if (track) {
		if (track < 0)
			sbuf__printf(&b, "BEGIN { @_t[cpid] = 1; }\n");
		else
			sbuf__printf(&b, "BEGIN { @_t[%ld] = 1; }\n", track);
		sbuf__printf(&b, "tracepoint:sched:sched_process_fork /@_t[pid]/ { @_t[args.child_pid] = 1; }\n");
	}
	sbuf__printf(&b, "tracepoint:%s ", event);
	if (h->filter[0] || track) {
		sbuf__printf(&b, "/");
		if (track)
			sbuf__printf(&b, "@_t[pid]%s", h->filter[0] ? " && (" : "");
		if (h->filter[0] && filter_expr(&b, h->filter, f, n)) {
			free(key);
			goto fail;
		}
		sbuf__printf(&b, "%s/ ", track && h->filter[0] ? ")" : "");
	}
	sbuf__printf(&b, "{\n\t@_n[0] = count();\n");
	sbuf__printf(&b, "\tif (!has_key(@c, (%s))) {\n\t\tif (@_e[0] >= %u) { return; }\n"
		     "\t\t@_e[0] = @_e[0] + 1;\n\t\t@c[%s] = comm;\n\t}\n", key, h->size, key);
	sbuf__printf(&b, "\t@h[%s] = count();\n", key);
	for (int v = 0; v < h->nvals; v++) {
		sbuf__printf(&b, "\t@v%d[%s] = sum(", v, key);
		if (field_expr(&b, f, n, h->vals[v].name, &str)) {
			free(key);
			goto fail;
		}
		if (str) {
			error("--hist: the value '%s' is a string: values are numbers summed", h->vals[v].name);
			free(key);
			goto fail;
		}
		sbuf__printf(&b, ");\n");
	}
	sbuf__printf(&b, "}\n");
	if (duration > 0)
		sbuf__printf(&b, "interval:ms:%ld { exit(); }\n", (long)(duration * 1000 + 0.5));
	program_end(&b, h, keys, track);
	free(key);
	char *s = tool_gen__take(&b, err, sizeof(err));

	if (s)
		return s;
oom:
	error("out of memory");
	return NULL;
fail:
	free(tool_gen__take(&b, err, sizeof(err)));
	return NULL;
}

/* one "@@\tkey...\thits\tcomm\tvals..." row into e; false when it does not read */
static bool parse_row(char *line, const struct hist_spec *h, const struct hist_field *keys, struct hist_entry *e)
{
	char *sv, *t = strtok_r(line, "\t", &sv);

	memset(e, 0, sizeof(*e));
	if (!t || strcmp(t, "@@"))
		return false;
	for (int i = 0; i < h->nkeys; i++) {
		if (!(t = strtok_r(NULL, "\t", &sv)))
			return false;
		if (keys[i].string)
			e->str[i] = t;
		else
			e->key[i] = strtoull(t, NULL, 10);
	}
	if (!(t = strtok_r(NULL, "\t", &sv)))
		return false;
	e->hits = strtoull(t, NULL, 10);
	if (!(t = strtok_r(NULL, "\t", &sv)))
		return false;
	snprintf(e->comm, sizeof(e->comm), "%s", t);
	for (int v = 0; v < h->nvals; v++) {
		if (!(t = strtok_r(NULL, "\t", &sv)))
			return false;
		e->vals[v] = strtoull(t, NULL, 10);
	}
	return true;
}

static void sym_name(uint64_t addr, bool offset, char *buf, size_t len, void *arg)
{
	const struct ksym *s = arg ? kallsyms__find(arg, addr) : NULL;

	if (!s) {
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
		return;
	}
	if (offset) {
		/* its size, as the kernel's "+0xOFF/0xSIZE" has it: up to the next symbol's address */
		uint64_t lo = addr + 1, hi = s->addr + (1 << 20);

		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;
			const struct ksym *n = kallsyms__find(arg, mid);

			if (!n || n->addr > s->addr)
				hi = mid;
			else
				lo = mid + 1;
		}
		snprintf(buf, len, "%s+0x%llx/0x%llx", s->name, (unsigned long long)(addr - s->addr),
			 (unsigned long long)(lo - s->addr));
	} else {
		snprintf(buf, len, "%s", s->name);
	}
	if (s->module && strcmp(s->module, "[kernel.kallsyms]") && strlen(buf) + strlen(s->module) + 2 < len)
		snprintf(buf + strlen(buf), len - strlen(buf), " %s", s->module);
}

static const char *syscall_name(uint64_t nr, void *arg)
{
	static char buf[64];
	const struct syscall_desc *d = nr < SYSCALL_NR_MAX ? syscall__by_nr((int)nr) : NULL;

	(void)arg;
	if (!d)
		return NULL;
	snprintf(buf, sizeof(buf), "sys_%s", d->name);
	return buf;
}

/*
 * Run the program src, its output into a file of its own: that file, at its
 * start, in *in (NULL when the run failed); the run's exit status
 */
static int run_captured(struct probe_job *job, FILE **in)
{
	int rc, saved, mfd = memfd_create("sonde-hist", MFD_CLOEXEC);

	*in = NULL;
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (mfd < 0 || saved < 0 || dup2(mfd, STDOUT_FILENO) < 0) {
		error("cannot set up the program's output: %s", strerror(errno));
		if (mfd >= 0)
			close(mfd);
		if (saved >= 0)
			close(saved);
		return 1;
	}
	rc = probe__run(job);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	if (rc && !job->interrupted) {
		close(mfd);
		return rc;
	}
	lseek(mfd, 0, SEEK_SET);
	if (!(*in = fdopen(mfd, "r"))) {
		close(mfd);
		error("out of memory");
		return 1;
	}
	return rc;
}

/* the rows the program printed at its end */
struct hist_rows {
	struct hist_entry *e;
	char **text;		/* each row's line, which its string keys point into */
	size_t n, cap_e, cap_text;
	uint64_t hits;		/* the events counted */
	uint64_t events;	/* every event: those not counted were dropped */
};

/* in's rows into r (the program's other words go to stderr: its warnings); 0 or -ENOMEM */
static int read_rows(FILE *in, const struct hist_spec *h, const struct hist_field *keys, struct hist_rows *r)
{
	char *line = NULL, *copy;
	size_t lcap = 0;
	int rc = 0;

	while (getline(&line, &lcap, in) > 0) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "@@n\t", 4)) {
			r->events = strtoull(line + 4, NULL, 10);
			continue;
		}
		if (util__grow(&r->e, &r->cap_e, r->n + 1, sizeof(*r->e), 256) ||
		    util__grow(&r->text, &r->cap_text, r->n + 1, sizeof(*r->text), 256)) {
			rc = -ENOMEM;
			break;
		}
		copy = strdup(line);
		if (!copy || !parse_row(copy, h, keys, &r->e[r->n])) {
			if (copy && line[0] && strncmp(line, "@@", 2))
				fprintf(stderr, "%s\n", line);
			free(copy);
			continue;
		}
		r->hits += r->e[r->n].hits;
		r->text[r->n++] = copy;
	}
	free(line);
	return rc;
}

/* the rows as the kernel's hist file, into output (stdout when NULL); 0 or 1 */
static int print_rows(const struct hist_spec *h, const struct hist_rows *r, const char *output)
{
	struct kallsyms *ks = NULL;
	FILE *out = stdout;
	int rc = 0;

	for (int k = 0; k < h->nkeys; k++)
		if (h->keys[k].mods & (HIST_SYM | HIST_SYM_OFFSET) && !ks && kallsyms__load(&ks, "/proc/kallsyms"))
			ks = NULL;
	struct hist_names names = { sym_name, syscall_name, ks };

	if (output && !(out = fopen(output, "we"))) {
		error("cannot open '%s': %s", output, strerror(errno));
		kallsyms__free(ks);
		return 1;
	}
	/* the kernel's Hits are the events counted, its Dropped those of keys that found the map full */
	if (hist__print(h, r->e, r->n, r->hits, r->events > r->hits ? r->events - r->hits : 0, &names, out) ||
	    fflush(out)) {
		error("cannot write the histogram: %s", strerror(errno));
		rc = 1;
	}
	if (out != stdout)
		fclose(out);
	kallsyms__free(ks);
	return rc;
}

int ftrace_hist__bpf(const char *spec, const char *event, double duration, const char *pid, char *const *argv,
		     int argc, const char *output, bool show_source)
{
	struct hist_spec h;
	struct hist_field keys[HIST_MAX_KEYS];
	struct hist_rows r = { 0 };
	char err[512], *src;
	long track = argc ? -1 : 0;
	FILE *in;
	int rc;

	if (hist_spec__parse(spec, &h, err, sizeof(err))) {
		error("%s", err);
		return 1;
	}
	if (pid) {
		char *end;

		track = strtol(pid, &end, 10);
		if (*end || track <= 0) {
			error("--hist with its BPF twin takes one -p PID, not '%s'", pid);
			return 1;
		}
	}
	memcpy(keys, h.keys, sizeof(keys));
	if (!(src = program(&h, keys, event, duration, track)))
		return 1;
	memcpy(h.keys, keys, sizeof(keys));
	if (show_source) {
		fputs(src, stdout);
		free(src);
		return 0;
	}
	struct probe_job job = {
		.file = "ftrace-hist.bt", .src = src, .len = strlen(src), .quiet = true, .mode = MODE_RUN,
		.cmd_argv = argc ? argv : NULL, .cmd = argc ? argv[0] : NULL, .pid = track > 0 ? (int)track : 0,
	};

	rc = run_captured(&job, &in);
	free(src);
	if (!in)
		return rc;
	if (read_rows(in, &h, keys, &r)) {
		error("out of memory");
		rc = 1;
	} else if (print_rows(&h, &r, output)) {
		rc = 1;
	} else {
		rc = job.interrupted ? 0 : rc;
	}
	for (size_t i = 0; i < r.n; i++)
		free(r.text[i]);
	free(r.text);
	free(r.e);
	fclose(in);
	return rc;
}
