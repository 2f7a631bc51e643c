// SPDX-License-Identifier: GPL-2.0
/*
 * collapse.c - folding stacks: a recording's samples as perf's stackcollapse.py
 * names them, perf script text as stackcollapse-perf.pl names it; see collapse.h.
 */
#include "lib/profile/collapse.h"
#include "lib/perfdata/perfscript.h"
#include "lib/profile/session.h"

#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct collapse {
	bool pid, tid, kernel, jit, addrs, inline_, period;
	const char *event_filter;
	struct session_filter filter;
	struct collapse_stats *st;
	struct folded *f;
	char **names;		/* scratch: frame names of one stack, root first */
	size_t *lens;
	size_t *caps;		/* bytes allocated for each name: reused from stack to stack */
	size_t cap;
	void (*warn)(unsigned long line, const char *why, void *arg);
	void *warn_arg;
	int err;
	struct memo *memo;	/* open addressing: a session's stack of one thread -> its folded stack */
	size_t nmemo, memo_cap;
};

/*
 * Most samples repeat a stack the session resolved before (session_sample.stack_id): the
 * folded stack it made is remembered by that id, the thread and its name, and the sample
 * adds to it with no frame named, copied or hashed again (5,800 instructions a sample).
 */
struct memo {
	uint32_t stack_id;	/* 0: empty */
	uint32_t tid;
	uint32_t stack;		/* folded__last_stack() */
	char comm[16];
};

static size_t memo_slot(uint32_t stack_id, uint32_t tid, size_t mask)
{
	uint64_t h = ((uint64_t)tid << 32 | stack_id) * 0x9e3779b97f4a7c15ULL;

	return (h ^ h >> 32) & mask;
}

static struct memo *memo_find(struct collapse *c, uint32_t stack_id, uint32_t tid, const char *comm)
{
	size_t mask = c->memo_cap - 1;

	if (!c->nmemo)
		return NULL;
	for (size_t i = memo_slot(stack_id, tid, mask); c->memo[i].stack_id; i = (i + 1) & mask)
		if (c->memo[i].stack_id == stack_id && c->memo[i].tid == tid &&
		    !strncmp(c->memo[i].comm, comm, sizeof(c->memo[i].comm)))
			return &c->memo[i];
	return NULL;
}

/* remember stack for stack_id of tid named comm; quietly not when out of memory or comm is long */
static void memo_add(struct collapse *c, uint32_t stack_id, uint32_t tid, const char *comm, uint32_t stack)
{
	size_t i, mask;

	if (strlen(comm) >= sizeof(c->memo->comm) || stack == UINT32_MAX)
		return;
	if ((c->nmemo + 1) * 2 > c->memo_cap) {
		size_t nc = c->memo_cap ? c->memo_cap * 2 : 1024;
		struct memo *n = calloc(nc, sizeof(*n));

		if (!n)
			return;
		for (size_t k = 0; k < c->memo_cap; k++) {
			if (!c->memo[k].stack_id)
				continue;
			for (i = memo_slot(c->memo[k].stack_id, c->memo[k].tid, nc - 1); n[i].stack_id; i = (i + 1) & (nc - 1))
				;
			n[i] = c->memo[k];
		}
		free(c->memo);
		c->memo = n;
		c->memo_cap = nc;
	}
	mask = c->memo_cap - 1;
	for (i = memo_slot(stack_id, tid, mask); c->memo[i].stack_id; i = (i + 1) & mask)
		;
	c->memo[i] = (struct memo){ .stack_id = stack_id, .tid = tid, .stack = stack };
	memcpy(c->memo[i].comm, comm, strlen(comm) + 1);
	c->nmemo++;
}

static int reserve(struct collapse *c, size_t n)
{
	if (n <= c->cap)
		return 0;
	size_t nc = n + 64;
	char **nn = realloc(c->names, nc * sizeof(*nn));

	if (!nn)
		return -ENOMEM;
	c->names = nn;
	size_t *nl = realloc(c->lens, nc * sizeof(*nl));

	if (!nl)
		return -ENOMEM;
	c->lens = nl;
	size_t *ncaps = realloc(c->caps, nc * sizeof(*ncaps));

	if (!ncaps)
		return -ENOMEM;
	c->caps = ncaps;
	for (size_t i = c->cap; i < nc; i++) {
		c->names[i] = NULL;
		c->caps[i] = 0;
	}
	c->cap = nc;
	return 0;
}

/* names[i] gets room for a string of n bytes; -ENOMEM (also in c->err, and names[i] empty) */
static int grow_name(struct collapse *c, size_t i, size_t n)
{
	char *nb = realloc(c->names[i], n + 64);

	if (!nb) {
		c->err = -ENOMEM;
		c->lens[i] = 0;
		return -ENOMEM;
	}
	c->names[i] = nb;
	c->caps[i] = n + 64;
	return 0;
}

static void set_name(struct collapse *c, size_t i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_name(struct collapse *c, size_t i, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(c->names[i], c->caps[i], fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= c->caps[i]) {
		if (grow_name(c, i, n))
			return;
		va_start(ap, fmt);
		n = vsnprintf(c->names[i], c->caps[i], fmt, ap);
		va_end(ap);
	}
	if (n < 0) {
		c->err = -EINVAL;
		n = 0;
	}
	c->lens[i] = n;
}

/*
 * names[i] = the strings of parts (NULL-ended) one after the other: a frame's
 * name and suffix, without printf, which was 40% of a collapse
 */
static void set_parts(struct collapse *c, size_t i, const char *const *parts)
{
	size_t n = 0, len[8], k;

	for (k = 0; parts[k]; k++)
		n += len[k] = strlen(parts[k]);
	if (n >= c->caps[i] && grow_name(c, i, n))
		return;
	n = 0;
	for (k = 0; parts[k]; n += len[k++])
		memcpy(c->names[i] + n, parts[k], len[k]);
	c->names[i][n] = 0;
	c->lens[i] = n;
}

/* perf's process name: comm, comm-pid or comm-pid/tid, blanks as '_' */
static void set_process_name(struct collapse *c, size_t i, const char *comm, uint32_t pid, uint32_t tid)
{
	char p[16] = "", t[16] = "";

	if (c->pid || c->tid) {
		snprintf(p, sizeof(p), "%u", pid);
		snprintf(t, sizeof(t), "%u", tid);
	}
	if (c->tid)
		set_parts(c, i, (const char *const[]){ comm, "-", p, "/", t, NULL });
	else if (c->pid)
		set_parts(c, i, (const char *const[]){ comm, "-", p, NULL });
	else
		set_parts(c, i, (const char *const[]){ comm, NULL });
	for (char *s = c->names[i]; s && *s; s++)
		if (*s == ' ')
			*s = '_';
}

static char *process_name(const struct collapse *c, const char *comm, const char *pid, const char *tid)
{
	char *s;
	int rc;

	if (c->tid)
		rc = asprintf(&s, "%s-%s/%s", comm, pid, tid);
	else if (c->pid)
		rc = asprintf(&s, "%s-%s", comm, pid);
	else
		rc = asprintf(&s, "%s", comm);
	if (rc < 0)
		return NULL;
	for (char *p = s; *p; p++)
		if (*p == ' ')
			*p = '_';
	return s;
}

static int add_stack(struct collapse *c, size_t n, double count)
{
	if (c->err)
		return c->err;
	return folded__add_frames(c->f, (const char *const *)c->names, c->lens, n, count, 0);
}

static bool event_wanted(struct collapse *c, const char *event)
{
	if (!c->event_filter) {
		snprintf(c->st->event, sizeof(c->st->event), "%s", event);
		c->event_filter = c->st->event;
		c->st->kept++;
		return true;
	}
	if (!strcmp(event, c->event_filter)) {
		c->st->kept++;
		return true;
	}
	if (!c->st->other_events)
		snprintf(c->st->other, sizeof(c->st->other), "%s", event);
	c->st->other_events = true;
	return false;
}

/* ---- a recording: perf's stackcollapse.py frames ---- */

static int on_sample(const struct session_sample *smp, void *arg)
{
	struct collapse *c = arg;
	double count = c->period ? (double)smp->s->period : 1.0;
	size_t n = 0;
	struct memo *m;
	int rc;

	if (!event_wanted(c, smp->event_name))
		return 0;
	if (smp->stack_id && (m = memo_find(c, smp->stack_id, smp->s->tid, smp->comm)))
		return c->err ? c->err : folded__add_at(c->f, m->stack, count);
	if (reserve(c, smp->nr_frames + 1))
		return -ENOMEM;
	set_process_name(c, n++, smp->comm, smp->s->pid, smp->s->tid);
	for (int i = smp->nr_frames - 1; i >= 0; i--) {
		const struct session_frame *f = &smp->frames[i];
		const char *dso = f->sym.dso ? f->sym.dso : "";
		const char *suffix = "";

		if (f->sym.inlined && c->inline_)
			suffix = "_[i]";
		else if (c->kernel && f->kernel)
			suffix = "_[k]";
		else if (c->jit && !fnmatch("/tmp/perf-*.map", dso, 0))
			suffix = "_[j]";
		if (f->sym.sym)
			set_parts(c, n, (const char *const[]){ f->sym.sym, suffix, NULL });
		else if (c->addrs)
			set_name(c, n, "[unknown <%llx>]%s", (unsigned long long)f->ip, suffix);
		else
			set_name(c, n, "[unknown]%s", suffix);
		/* a ';' would split the frame */
		for (char *p = c->names[n]; p && *p; p++)
			if (*p == ';')
				*p = ':';
		n++;
	}
	rc = add_stack(c, n, count);
	if (!rc && smp->stack_id)
		memo_add(c, smp->stack_id, smp->s->tid, smp->comm, folded__last_stack(c->f));
	return rc;
}

/* ---- perf script text: stackcollapse-perf.pl's frames ---- */

static regex_t re_offset, re_dotparen;
static bool patterns_ready;	/* compiled once, kept for the process */

static void tidy(char *f)
{
	regmatch_t m;
	char *p;

	for (p = f; *p; p++)
		if (*p == ';')
			*p = ':';
	if (regexec(&re_dotparen, f, 0, NULL, 0)) {
		/* drop C++ argument lists, but keep "(anonymous namespace)" */
		for (p = strchr(f, '('); p; p = strchr(p + 1, '('))
			if (strncmp(p, "(anonymous namespace)", 21)) {
				*p = 0;
				break;
			}
	}
	for (p = f; *p;) {
		if (*p == '"' || *p == '\'')
			memmove(p, p + 1, strlen(p));
		else
			p++;
	}
	(void)m;
}

/* a frame's final name: tidied, java's "L" dropped, the annotation added (stackcollapse-perf.pl's order) */
static int text_frame(struct collapse *c, size_t n, bool java, const char *suffix)
{
	char *name = c->names[n];

	if (!name)
		return c->err;
	tidy(name);
	if (java && name[0] == 'L' && strchr(name, '/'))
		memmove(name, name + 1, strlen(name));
	if (*suffix && (!strcmp(suffix, "_[k]") || !strstr(name, suffix))) {
		char *old = strdup(name);

		if (!old)
			return -ENOMEM;
		set_name(c, n, "%s%s", old, suffix);
		free(old);
	}
	c->lens[n] = c->names[n] ? strlen(c->names[n]) : 0;
	return 0;
}

/* stackcollapse-perf.pl's kernel and JIT modules: "[kernel.kallsyms]", ".../vmlinux"; ".../tmp/perf-PID.map" */
static bool kernel_module(const char *mod)
{
	size_t len = strlen(mod);

	return (mod[0] == '[' || (len >= 7 && !strcmp(mod + len - 7, "vmlinux"))) && !strstr(mod, "unknown");
}

static bool jit_module(const char *mod)
{
	for (const char *p = strstr(mod, "/tmp/perf-"); p; p = strstr(p + 1, "/tmp/perf-")) {
		const char *d = p + 10, *q = d;

		while (*q >= '0' && *q <= '9')
			q++;
		if (q > d && !strncmp(q, ".map", 4))
			return true;
	}
	return false;
}

static int on_text(const struct ps_sample *s, void *arg)
{
	struct collapse *c = arg;
	char *pname;
	size_t n = 0, total = 0;
	bool java;
	int rc;

	/* stackcollapse-perf.pl remembers a stack at the blank line after it: one cut off at the end is not */
	if (!s->ended)
		return 0;
	if (!session_filter__match(&c->filter, s->comm, (uint32_t)strtoul(s->pid, NULL, 10),
				   (uint32_t)strtoul(s->tid, NULL, 10)))
		return 0;
	if (*s->event && !event_wanted(c, s->event))
		return 0;
	/* each frame may hold an inline chain "a->b->c" */
	for (size_t i = 0; i < s->nr_frames; i++) {
		total++;
		for (const char *p = s->frames[i].func; (p = strstr(p, "->")); p += 2)
			total++;
	}
	if (reserve(c, total + 1))
		return -ENOMEM;
	pname = process_name(c, s->comm, s->pid, s->tid);
	if (!pname)
		return -ENOMEM;
	java = !strncmp(pname, "java", 4);
	set_name(c, n++, "%s", pname);
	free(pname);
	for (size_t fi = s->nr_frames; fi-- > 0;) {
		const struct ps_frame *fr = &s->frames[fi];
		char *raw = strdup(fr->func);
		regmatch_t m;
		char *parts[64];
		int np = 0;
		const char *mod = fr->dso;

		if (!raw)
			return -ENOMEM;
		if (!regexec(&re_offset, raw, 1, &m, 0))
			raw[m.rm_so] = 0;
		if (raw[0] == '(') {
			free(raw);
			continue;	/* a process name, not a frame */
		}
		for (char *t = raw, *arrow; t && np < 64; t = arrow ? arrow + 2 : NULL) {
			arrow = strstr(t, "->");
			if (arrow)
				*arrow = 0;
			parts[np++] = t;
		}
		/* an "a->b" chain in its written order: the first as any frame, the others inlined */
		for (int k = 0; k < np; k++) {
			const char *func = parts[k], *suffix = "";

			if (!strcmp(func, "[unknown]")) {
				const char *base = strrchr(mod, '/');

				base = base ? base + 1 : mod;
				if (strcmp(mod, "[unknown]"))
					func = base;
				else
					func = "unknown";
				if (c->addrs)
					set_name(c, n, "[%s <%s>]", func, fr->addr);
				else
					set_name(c, n, "[%s]", func);
			} else {
				set_name(c, n, "%s", func);
			}
			if (k > 0)
				suffix = "_[i]";
			else if (c->kernel && kernel_module(mod))
				suffix = "_[k]";
			else if (c->jit && jit_module(mod))
				suffix = "_[j]";
			if ((rc = text_frame(c, n, java, suffix))) {
				free(raw);
				return rc;
			}
			n++;
		}
		free(raw);
	}
	/* weighed by the period perf script printed, as stackcollapse-perf.pl does; 1 without (or 0) */
	double w = *s->period ? strtod(s->period, NULL) : 0;

	return add_stack(c, n, w > 0 ? w : 1.0);
}

static void text_warn(unsigned long line, const char *why, void *arg)
{
	struct collapse *c = arg;

	c->st->skipped++;
	if (c->warn)
		c->warn(line, why, c->warn_arg);
}

static int setup(struct collapse *c, struct folded *f, const struct collapse_opts *o, struct collapse_stats *st)
{
	memset(c, 0, sizeof(*c));
	memset(st, 0, sizeof(*st));
	c->pid = o->pid;
	c->tid = o->tid;
	c->kernel = o->kernel;
	c->jit = o->jit;
	c->addrs = o->addrs;
	c->inline_ = o->inline_;
	c->period = o->period;
	c->event_filter = o->event_filter;
	c->filter = o->filter;
	if (o->event_filter)
		snprintf(st->event, sizeof(st->event), "%s", o->event_filter);
	c->st = st;
	c->f = f;
	if (!patterns_ready) {
		if (regcomp(&re_offset, "\\+0x[0-9a-f]+$", REG_EXTENDED) ||
		    regcomp(&re_dotparen, "\\.\\(.*\\)\\.", REG_EXTENDED))
			return -EINVAL;
		patterns_ready = true;
	}
	return 0;
}

static void teardown(struct collapse *c)
{
	for (size_t i = 0; i < c->cap; i++)
		free(c->names[i]);
	free(c->names);
	free(c->lens);
	free(c->caps);
	free(c->memo);
}

int collapse__recording(struct folded *f, const char *path, const struct collapse_opts *o,
			struct collapse_stats *st, char *err, size_t errlen)
{
	/* perf script report stackcollapse: the inlined frames of DWARF-unwound stacks; --inline: all, marked */
	struct session_opts so = { .filter = o->filter, .sym_flags = o->inline_ ? SYM_INLINE : SYM_INLINE_UNWOUND,
				   .max_stack = o->max_stack };
	struct collapse c;
	struct session *s;
	int rc = setup(&c, f, o, st);

	if (rc) {
		snprintf(err, errlen, "cannot compile the name patterns");
		return rc;
	}
	rc = session__open(&s, path, &so, err, errlen);
	if (rc) {
		teardown(&c);
		return rc;
	}
	rc = session__walk(s, on_sample, NULL, &c);
	if (rc > 0)
		rc = c.err ? c.err : -EIO;
	if (rc < 0)
		snprintf(err, errlen, "%s", strerror(-rc));
	st->bad_records = session__bad_records(s);
	if (perfdata_reader__warning(session__reader(s)))
		snprintf(st->incomplete, sizeof(st->incomplete), "%s", perfdata_reader__warning(session__reader(s)));
	if (session__first_error(s))
		snprintf(st->first_error, sizeof(st->first_error), "%s", session__first_error(s));
	session__free(s);
	teardown(&c);
	return rc;
}

int collapse__perf_script(struct folded *f, FILE *in, const struct collapse_opts *o,
			  void (*warn)(unsigned long line, const char *why, void *arg), void *arg,
			  struct collapse_stats *st)
{
	struct collapse c;
	int rc = setup(&c, f, o, st);

	if (rc)
		return rc;
	c.warn = warn;
	c.warn_arg = arg;
	rc = perfscript__read(in, on_text, text_warn, &c);
	if (rc > 0)
		rc = c.err ? c.err : -EIO;
	teardown(&c);
	return rc;
}
