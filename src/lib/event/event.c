// SPDX-License-Identifier: GPL-2.0
/*
 * event.c - parsing perf's event syntax into perf_event_attr.
 *
 * The names and encodings follow the kernel ABI (include/uapi/linux/perf_event.h)
 * and perf's spellings (tools/perf/util/parse-events.c). Only the grammar users
 * type is accepted: NAME[:MODS], GROUP:TP (globs), rHEX, pmu/terms/ and {a,b}.
 */
#include "lib/event/event.h"
#include "lib/tracefs/tracefs.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

const struct event_sym event_syms[] = {
	{ "cpu-cycles", "cycles", EVK_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles", "cycles", 1000000 },
	{ "instructions", NULL, EVK_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions", NULL, 1000000 },
	{ "cache-references", NULL, EVK_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "cache-references", NULL, 1000000 },
	{ "cache-misses", NULL, EVK_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses", NULL, 1000000 },
	{ "branch-instructions", "branches", EVK_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branch-instructions", "branches", 100000 },
	{ "branch-misses", NULL, EVK_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch-misses", NULL, 100000 },
	{ "bus-cycles", NULL, EVK_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "bus-cycles", NULL, 100000 },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", EVK_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "frontend-stalls", NULL, 1000000 },
	{ "stalled-cycles-backend", "idle-cycles-backend", EVK_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "backend-stalls", NULL, 1000000 },
	{ "ref-cycles", NULL, EVK_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles", NULL, 1000000 },
	{ "cpu-clock", NULL, EVK_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock", "cpu", 1000000 },
	{ "task-clock", NULL, EVK_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock", NULL, 1000000 },
	{ "page-faults", "faults", EVK_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults", "faults", 100 },
	{ "context-switches", "cs", EVK_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches", "cs", 1000 },
	{ "cpu-migrations", "migrations", EVK_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations", NULL, 1 },
	{ "minor-faults", NULL, EVK_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults", NULL, 100 },
	{ "major-faults", NULL, EVK_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults", NULL, 1 },
	{ "alignment-faults", NULL, EVK_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment-faults", NULL, 1 },
	{ "emulation-faults", NULL, EVK_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "emulation-faults", NULL, 1 },
	{ "dummy", NULL, EVK_SOFTWARE, PERF_COUNT_SW_DUMMY, "dummy", NULL, 1 },
	{ "bpf-output", NULL, EVK_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT, "bpf-output", NULL, 1 },
	{ "cgroup-switches", NULL, EVK_SOFTWARE, 11 /* PERF_COUNT_SW_CGROUP_SWITCHES, 5.13 */, NULL, NULL, 0 },
};
const size_t nr_event_syms = sizeof(event_syms) / sizeof(event_syms[0]);

/* perf's hardware cache names: cache, operation, result (parse-events.c) */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX] = {
	"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};
static const char *const cache_op_names[PERF_COUNT_HW_CACHE_OP_MAX][2] = {
	{ "load", "loads" }, { "store", "stores" }, { "prefetch", "prefetches" },
};
static const char *const cache_res_names[PERF_COUNT_HW_CACHE_RESULT_MAX] = {
	"refs", "misses",
};
/* which cache/op pairs perf lists (the others make no sense: icache stores) */
static bool cache_op_valid(int cache, int op)
{
	if (cache == PERF_COUNT_HW_CACHE_L1I || cache == PERF_COUNT_HW_CACHE_BPU ||
	    cache == PERF_COUNT_HW_CACHE_ITLB)
		return op == PERF_COUNT_HW_CACHE_OP_READ;
	return true;
}

static void cache_name(char *buf, size_t len, int c, int op, int res)
{
	/* perf prints "L1-dcache-loads" for refs and "L1-dcache-load-misses" */
	if (res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
		snprintf(buf, len, "%s-%s", cache_names[c], cache_op_names[op][1]);
	else
		snprintf(buf, len, "%s-%s-%s", cache_names[c], cache_op_names[op][0], cache_res_names[res]);
}

void event__for_each_pmu_event(void (*fn)(const char *name, void *ctx), void *ctx)
{
	const char *base = "/sys/bus/event_source/devices";
	DIR *d = opendir(base);
	struct dirent *pmu;

	if (!d)
		return;
	while ((pmu = readdir(d))) {
		char path[512];
		struct dirent *ev;
		DIR *ed;

		if (pmu->d_name[0] == '.' || !strcmp(pmu->d_name, "tracepoint") ||
		    !strcmp(pmu->d_name, "software") || !strcmp(pmu->d_name, "breakpoint"))
			continue;
		snprintf(path, sizeof(path), "%s/%s/events", base, pmu->d_name);
		ed = opendir(path);
		if (!ed)
			continue;
		while ((ev = readdir(ed))) {
			char name[300];

			if (ev->d_name[0] == '.' || strchr(ev->d_name, '.'))
				continue;	/* .scale / .unit files */
			snprintf(name, sizeof(name), "%s/%s/", pmu->d_name, ev->d_name);
			fn(name, ctx);
		}
		closedir(ed);
	}
	closedir(d);
}

void event__for_each_cache_name(void (*fn)(const char *name, void *ctx), void *ctx)
{
	char buf[64];

	for (int c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++)
		for (int op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++)
			for (int r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++) {
				if (!cache_op_valid(c, op))
					continue;
				cache_name(buf, sizeof(buf), c, op, r);
				fn(buf, ctx);
			}
}

/* accept perf's other spellings: "L1-dcache-load-miss", "-access", "-ops" */
static int parse_cache(const char *s, unsigned long long *config)
{
	for (int c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++) {
		size_t cl = strlen(cache_names[c]);
		const char *p;
		int op = PERF_COUNT_HW_CACHE_OP_READ, res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;

		if (strncasecmp(s, cache_names[c], cl) || (s[cl] && s[cl] != '-'))
			continue;
		p = s + cl;
		if (*p == '-') {
			const char *q = p + 1;
			bool got_op = false;

			for (int o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX && !got_op; o++)
				for (int form = 1; form >= 0; form--) {
					size_t ol = strlen(cache_op_names[o][form]);

					if (!strncmp(q, cache_op_names[o][form], ol) && (!q[ol] || q[ol] == '-')) {
						op = o;
						q += ol;
						got_op = true;
						break;
					}
				}
			if (!got_op && strncmp(q, "misses", 6) && strncmp(q, "miss", 4) &&
			    strncmp(q, "refs", 4) && strncmp(q, "access", 6))
				return -EINVAL;
			if (*q == '-')
				q++;
			if (!*q || !strcmp(q, "refs") || !strcmp(q, "access") || !strcmp(q, "accesses") ||
			    !strcmp(q, "ops"))
				res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
			else if (!strcmp(q, "misses") || !strcmp(q, "miss"))
				res = PERF_COUNT_HW_CACHE_RESULT_MISS;
			else
				return -EINVAL;
		}
		if (!cache_op_valid(c, op))
			return -EINVAL;
		*config = c | (op << 8) | (res << 16);
		return 0;
	}
	return -EINVAL;
}

static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

struct suggest_ctx {
	const char *want;
	char best[64];
	int dist;
};

static void consider(const char *name, void *p)
{
	struct suggest_ctx *s = p;
	int d = util__edit_distance(s->want, name, true);

	if (d < s->dist) {
		s->dist = d;
		snprintf(s->best, sizeof(s->best), "%s", name);
	}
}

const char *event__suggest(const char *want)
{
	static __thread struct suggest_ctx s;

	s.want = want;
	s.dist = 99;
	s.best[0] = 0;
	for (size_t i = 0; i < nr_event_syms; i++) {
		consider(event_syms[i].name, &s);
		if (event_syms[i].alias)
			consider(event_syms[i].alias, &s);
	}
	event__for_each_cache_name(consider, &s);
	if (s.dist <= 3 && s.dist < (int)strlen(want))
		return s.best;
	return NULL;
}

static struct event *add_event(struct evlist *l)
{
	if (util__grow(&l->ev, &l->alloc, (size_t)l->nr + 1, sizeof(*l->ev), 16))
		return NULL;
	memset(&l->ev[l->nr], 0, sizeof(l->ev[0]));
	l->ev[l->nr].leader = -1;
	l->ev[l->nr].unit = "";
	l->ev[l->nr].scale = 1.0;
	l->ev[l->nr].attr.size = sizeof(struct perf_event_attr);
	return &l->ev[l->nr++];
}

/* :u :k :h :G :H :p :pp :ppp :S :D; returns -EINVAL for anything else */
static int apply_modifiers(struct perf_event_attr *a, const char *mods)
{
	bool eu = false, ek = false, eh = false;
	bool any_priv = false;

	for (const char *m = mods; *m; m++) {
		switch (*m) {
		case 'u': eu = true; any_priv = true; break;
		case 'k': ek = true; any_priv = true; break;
		case 'h': eh = true; any_priv = true; break;
		case 'G': a->exclude_host = 1; break;
		case 'H': a->exclude_guest = 1; break;
		case 'p': if (a->precise_ip < 3) a->precise_ip++; break;
		case 'P': a->precise_ip = 3; break;
		case 'D': a->pinned = 1; break;
		case 'e': a->exclusive = 1; break;
		case 'S': break;	/* group sample-read; meaningless for counting */
		default: return -EINVAL;
		}
	}
	if (any_priv) {
		a->exclude_user = !eu;
		a->exclude_kernel = !ek;
		a->exclude_hv = !eh;
	}
	return 0;
}

static int lookup_symbolic(const char *name, struct event *e)
{
	unsigned long long cfg;

	for (size_t i = 0; i < nr_event_syms; i++) {
		const struct event_sym *s = &event_syms[i];

		if (strcasecmp(name, s->name) && (!s->alias || strcasecmp(name, s->alias)))
			continue;
		e->kind = s->kind;
		e->attr.type = s->kind == EVK_HARDWARE ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
		e->attr.config = s->config;
		if (s->kind == EVK_SOFTWARE && (s->config == PERF_COUNT_SW_CPU_CLOCK ||
						s->config == PERF_COUNT_SW_TASK_CLOCK)) {
			e->unit = "msec";
			e->scale = 1e-6;
		}
		return 0;
	}
	if (!parse_cache(name, &cfg)) {
		e->kind = EVK_CACHE;
		e->attr.type = PERF_TYPE_HW_CACHE;
		e->attr.config = cfg;
		return 0;
	}
	if ((name[0] == 'r' || name[0] == 'R') && name[1] && strspn(name + 1, "0123456789abcdefABCDEF") == strlen(name + 1) &&
	    strlen(name + 1) <= 16) {
		e->kind = EVK_RAW;
		e->attr.type = PERF_TYPE_RAW;
		e->attr.config = strtoull(name + 1, NULL, 16);
		return 0;
	}
	return -ENOENT;
}

/* pmu/config=0x..,config1=..,event=..,umask=../ for the PMUs in sysfs */
static int parse_pmu(struct evlist *l, const char *s, const char *mods, char *err, size_t errlen)
{
	const char *slash = strchr(s, '/');
	char pmu[64], path[256], buf[64];
	struct event *e;
	FILE *f;
	int type;

	if ((size_t)(slash - s) >= sizeof(pmu)) {
		seterr(err, errlen, "event '%s': the PMU name is too long", s);
		return -EINVAL;
	}
	memcpy(pmu, s, slash - s);
	pmu[slash - s] = 0;
	if (strchr(pmu, '.') || !pmu[0]) {
		seterr(err, errlen, "event '%s': bad PMU name", s);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	f = fopen(path, "re");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		seterr(err, errlen, "event '%s': no PMU named '%s' on this machine (see /sys/bus/event_source/devices)", s, pmu);
		return -ENOENT;
	}
	fclose(f);
	type = atoi(buf);
	e = add_event(l);
	if (!e)
		return -ENOMEM;
	e->kind = EVK_PMU;
	e->attr.type = type;
	/* terms between the slashes, comma separated; the list parser keeps them whole */
	{
		char terms[256], *save = NULL, *t;
		const char *end = strrchr(s, '/');

		if (end == slash || (size_t)(end - slash - 1) >= sizeof(terms)) {
			l->nr--;
			seterr(err, errlen, "event '%s': expected pmu/term=value,.../", s);
			return -EINVAL;
		}
		memcpy(terms, slash + 1, end - slash - 1);
		terms[end - slash - 1] = 0;
		for (t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(t, '=');
			unsigned long long v = 1;
			char *endp;

			if (eq) {
				*eq = 0;
				v = strtoull(eq + 1, &endp, 0);
				if (*endp || endp == eq + 1) {
					l->nr--;
					seterr(err, errlen, "event '%s': bad value for '%s'", s, t);
					return -EINVAL;
				}
			}
			if (!strcmp(t, "config"))
				e->attr.config = v;
			else if (!strcmp(t, "config1"))
				e->attr.config1 = v;
			else if (!strcmp(t, "config2"))
				e->attr.config2 = v;
			else {
				/* a format term: read its bit range from sysfs */
				char fmt[64];
				unsigned lo, hi;
				int which = 0, nread;

				snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/%s", pmu, t);
				f = fopen(path, "re");
				if (!f || !fgets(fmt, sizeof(fmt), f)) {
					if (f)
						fclose(f);
					l->nr--;
					seterr(err, errlen, "event '%s': PMU '%s' has no term '%s'", s, pmu, t);
					return -EINVAL;
				}
				fclose(f);
				if (!strncmp(fmt, "config1:", 8))
					which = 1;
				else if (!strncmp(fmt, "config2:", 8))
					which = 2;
				nread = sscanf(strchr(fmt, ':') + 1, "%u-%u", &lo, &hi);
				if (nread < 1 || lo > 63) {
					l->nr--;
					seterr(err, errlen, "event '%s': cannot read the format of '%s'", s, t);
					return -EINVAL;
				}
				if (nread == 1)
					hi = lo;
				if (hi > 63)
					hi = 63;
				unsigned long long mask = (hi - lo == 63) ? ~0ULL : ((1ULL << (hi - lo + 1)) - 1);
				unsigned long long *dst = which == 1 ? (unsigned long long *)&e->attr.config1 :
							  which == 2 ? (unsigned long long *)&e->attr.config2 :
								       (unsigned long long *)&e->attr.config;
				*dst |= (v & mask) << lo;
			}
		}
	}
	if (apply_modifiers(&e->attr, mods)) {
		l->nr--;
		seterr(err, errlen, "event '%s': unknown modifier ':%s'", s, mods);
		return -EINVAL;
	}
	e->name = strdup(s);
	if (!e->name) {
		l->nr--;
		return -ENOMEM;
	}
	return 0;
}

static int add_tracepoints(struct evlist *l, const char *group, const char *name,
			   const char *mods, const char *spec, char *err, size_t errlen)
{
	struct tp_name *tps;
	int n;

	if (!tracefs__dir()) {
		seterr(err, errlen, "event '%s': tracefs is not mounted and cannot be (mount -t tracefs nodev /sys/kernel/tracing)", spec);
		return -ENODEV;
	}
	n = tracefs__glob(group, name, &tps);
	if (n < 0) {
		seterr(err, errlen, "event '%s': cannot read the tracepoints: %s", spec, strerror(-n));
		return n;
	}
	if (n == 0) {
		seterr(err, errlen, "unknown tracepoint '%s:%s'; see 'sonde list tracepoint'", group, name);
		tracefs__free_names(tps, n);
		return -ENOENT;
	}
	for (int i = 0; i < n; i++) {
		long long id = tracefs__event_id(tps[i].group, tps[i].name);
		struct event *e;
		char *nm;

		if (id < 0)
			continue;	/* a directory without id (an "enable" file only) */
		e = add_event(l);
		if (!e || asprintf(&nm, "%s:%s", tps[i].group, tps[i].name) < 0) {
			if (e)
				l->nr--;
			tracefs__free_names(tps, n);
			return -ENOMEM;
		}
		e->kind = EVK_TRACEPOINT;
		e->attr.type = PERF_TYPE_TRACEPOINT;
		e->attr.config = id;
		e->name = nm;
		if (apply_modifiers(&e->attr, mods)) {
			tracefs__free_names(tps, n);
			seterr(err, errlen, "event '%s': unknown modifier ':%s'", spec, mods);
			return -EINVAL;
		}
	}
	tracefs__free_names(tps, n);
	return 0;
}

/* one event term, no commas or braces */
static int parse_one(struct evlist *l, char *term, char *err, size_t errlen)
{
	char *colon = strchr(term, ':');
	char *mods = (char *)"";
	struct event *e;

	if (!*term) {
		seterr(err, errlen, "empty event name in the event list");
		return -EINVAL;
	}
	if (strchr(term, '/')) {
		char *last = strrchr(term, '/');

		if (last[1] == ':')
			mods = last + 2;
		else if (last[1]) {
			seterr(err, errlen, "event '%s': unexpected text after the last '/'", term);
			return -EINVAL;
		}
		if (*mods)
			last[1] = 0;
		return parse_pmu(l, term, mods, err, errlen);
	}
	if (colon) {
		/* GROUP:NAME[:MODS] is a tracepoint; NAME:MODS a symbolic event */
		char *second = strchr(colon + 1, ':');
		struct event probe;

		*colon = 0;
		memset(&probe, 0, sizeof(probe));
		if (!second && !lookup_symbolic(term, &probe)) {
			if (!colon[1]) {
				seterr(err, errlen, "event '%s:': a modifier is missing after the ':'", term);
				return -EINVAL;
			}
			mods = colon + 1;
		} else {
			int rc;

			if (second) {
				*second = 0;
				mods = second + 1;
			}
			if (!colon[1]) {
				seterr(err, errlen, "event '%s:': a tracepoint name is missing after the ':'", term);
				return -EINVAL;
			}
			rc = add_tracepoints(l, term, colon + 1, mods, term, err, errlen);
			return rc;
		}
	}
	e = add_event(l);
	if (!e)
		return -ENOMEM;
	if (lookup_symbolic(term, e)) {
		const char *s = event__suggest(term);

		l->nr--;
		if (s)
			seterr(err, errlen, "unknown event '%s'; did you mean '%s'? (see 'sonde list')", term, s);
		else
			seterr(err, errlen, "unknown event '%s'; see 'sonde list'", term);
		return -ENOENT;
	}
	if (apply_modifiers(&e->attr, mods)) {
		l->nr--;
		seterr(err, errlen, "event '%s': unknown modifier ':%s'", term, mods);
		return -EINVAL;
	}
	if (*mods) {
		if (asprintf(&e->name, "%s:%s", term, mods) < 0)
			e->name = NULL;
	} else {
		e->name = strdup(term);
	}
	if (!e->name) {
		l->nr--;
		return -ENOMEM;
	}
	return 0;
}

int evlist__parse(struct evlist *l, const char *spec, char *err, size_t errlen)
{
	char *copy = strdup(spec), *p, *start;
	int depth = 0, group_start = -1, rc = 0;
	char group_mods[16] = "";

	if (!copy)
		return -ENOMEM;
	if (!*copy) {
		seterr(err, errlen, "the event list is empty");
		free(copy);
		return -EINVAL;
	}
	start = copy;
	for (p = copy;; p++) {
		int slashes = 0;

		if (*p == '{') {
			if (depth || p != start) {
				seterr(err, errlen, "event list '%s': a '{' can only start a group", spec);
				rc = -EINVAL;
				break;
			}
			depth = 1;
			group_start = l->nr;
			start = p + 1;
			continue;
		}
		/* commas inside pmu/a=1,b=2/ belong to the term */
		for (char *q = start; q < p; q++)
			slashes += *q == '/';
		if ((*p == ',' && slashes % 2 == 0) || *p == '}' || !*p) {
			char c = *p;

			*p = 0;
			if (p > start || c != '}' || l->nr == group_start) {
				rc = parse_one(l, start, err, errlen);
				if (rc)
					break;
			}
			if (c == '}') {
				if (!depth) {
					seterr(err, errlen, "event list '%s': '}' without '{'", spec);
					rc = -EINVAL;
					break;
				}
				depth = 0;
				/* modifiers after the group apply to every member */
				if (p[1] == ':') {
					size_t n = strcspn(p + 2, ",");

					if (n >= sizeof(group_mods)) n = sizeof(group_mods) - 1;
					memcpy(group_mods, p + 2, n);
					group_mods[n] = 0;
					p += 1 + n;
				}
				for (int i = group_start; i < l->nr; i++) {
					l->ev[i].leader = group_start;
					if (group_mods[0]) {
						char *nn;

						if (apply_modifiers(&l->ev[i].attr, group_mods)) {
							seterr(err, errlen, "event group: unknown modifier ':%s'", group_mods);
							rc = -EINVAL;
							break;
						}
						if (asprintf(&nn, "%s:%s", l->ev[i].name, group_mods) >= 0) {
							free(l->ev[i].name);
							l->ev[i].name = nn;
						}
					}
				}
				if (rc)
					break;
				group_mods[0] = 0;
				if (p[1] == ',')
					p++;
				else if (p[1]) {
					seterr(err, errlen, "event list '%s': expected ',' after '}'", spec);
					rc = -EINVAL;
					break;
				}
				start = p + 1;
				if (!*start)
					break;
				continue;
			}
			if (!c)
				break;
			start = p + 1;
		}
	}
	if (!rc && depth) {
		seterr(err, errlen, "event list '%s': '{' without '}'", spec);
		rc = -EINVAL;
	}
	free(copy);
	return rc;
}

int evlist__add_default(struct evlist *l, bool system_wide)
{
	static const char *const dflt[] = {
		"context-switches", "cpu-migrations", "page-faults",
		"cycles", "instructions", "branches", "branch-misses",
	};
	int rc = evlist__parse(l, system_wide ? "cpu-clock" : "task-clock", NULL, 0);

	for (size_t i = 0; !rc && i < sizeof(dflt) / sizeof(dflt[0]); i++)
		rc = evlist__parse(l, dflt[i], NULL, 0);
	return rc;
}

int evlist__add_sampling_default(struct evlist *l)
{
	if (!evlist__parse(l, "cycles", NULL, 0) && !event__probe(&l->ev[l->nr - 1].attr))
		return 0;
	evlist__free(l);
	return evlist__parse(l, "cpu-clock", NULL, 0);
}

void evlist__free(struct evlist *l)
{
	for (int i = 0; i < l->nr; i++)
		free(l->ev[i].name);
	free(l->ev);
	memset(l, 0, sizeof(*l));
}

int event__probe(const struct perf_event_attr *attr)
{
	struct perf_event_attr a = *attr;
	int fd;

	a.size = sizeof(a);
	a.disabled = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !a.exclude_kernel) {
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}
