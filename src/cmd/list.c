// SPDX-License-Identifier: GPL-2.0
/*
 * list.c - `sonde list [PATTERN|CLASS]`: the events this machine can count, in
 * perf list's layout. Hardware and cache events are listed only when a real
 * perf_event_open of them succeeds here, as perf does.
 */
#include "sonde.h"
#include "lib/tracefs/ftrace.h"
#include "opt.h"
#include "lib/bpf/bpf_util.h"
#include "lib/event/event.h"
#include "lib/tracefs/tracefs.h"

#include <linux/bpf.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

static const char *const list_usage[] = {
	"sonde list [<options>] [hw|sw|cache|pmu|tracepoint|PATTERN...]",
	NULL,
};

struct list_ctx {
	char **pats;
	int npats;
	const char *cls;	/* a class name given instead of patterns */
	bool all;		/* include events that cannot be counted here */
	int shown;
};

static bool wanted(struct list_ctx *l, const char *cls, const char *name, const char *alias)
{
	if (l->cls)
		return !strcmp(l->cls, cls);
	if (!l->npats)
		return true;
	for (int i = 0; i < l->npats; i++) {
		const char *p = l->pats[i];

		if (!fnmatch(p, name, 0) || (alias && !fnmatch(p, alias, 0)))
			return true;
		if (!strchr(p, '*') && !strchr(p, '?') && (strstr(name, p) || (alias && strstr(alias, p))))
			return true;
	}
	return false;
}

static void row(struct list_ctx *l, const char *name, const char *alias, const char *kind)
{
	char left[128];

	if (alias)
		snprintf(left, sizeof(left), "%s OR %s", name, alias);
	else
		snprintf(left, sizeof(left), "%s", name);
	printf("  %-50s [%s]\n", left, kind);
	l->shown++;
}

static int cmp_sym(const void *a, const void *b)
{
	return strcmp((*(const struct event_sym *const *)a)->name, (*(const struct event_sym *const *)b)->name);
}

static void list_symbolic(struct list_ctx *l, enum event_kind kind, const char *cls, const char *label)
{
	const struct event_sym *sorted[64];
	size_t n = 0;

	for (size_t i = 0; i < nr_event_syms && n < 64; i++)
		sorted[n++] = &event_syms[i];
	qsort(sorted, n, sizeof(sorted[0]), cmp_sym);	/* perf list is alphabetical */
	for (size_t i = 0; i < n; i++) {
		const struct event_sym *s = sorted[i];
		struct perf_event_attr a = { 0 };

		if (s->kind != kind || !wanted(l, cls, s->name, s->alias))
			continue;
		a.type = kind == EVK_HARDWARE ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
		a.config = s->config;
		if (!l->all && event__probe(&a))
			continue;
		row(l, s->name, s->alias, label);
	}
}

static void cache_one(const char *name, void *p)
{
	struct list_ctx *l = p;
	struct evlist tmp = { 0 };

	if (!wanted(l, "cache", name, NULL))
		return;
	if (!l->all) {
		if (evlist__parse(&tmp, name, NULL, 0) || event__probe(&tmp.ev[0].attr)) {
			evlist__free(&tmp);
			return;
		}
		evlist__free(&tmp);
	}
	row(l, name, NULL, "Hardware cache event");
}

static void pmu_one(const char *name, void *p)
{
	struct list_ctx *l = p;

	if (wanted(l, "pmu", name, NULL))
		row(l, name, NULL, "Kernel PMU event");
}

static void list_tracepoints(struct list_ctx *l)
{
	struct tp_name *tps;
	int n = tracefs__glob("*", "*", &tps);

	if (n < 0) {
		if (!l->cls || !strcmp(l->cls, "tracepoint"))
			warning("cannot list tracepoints: %s (is tracefs mounted at /sys/kernel/tracing?)",
				strerror(-n));
		return;
	}
	for (int i = 0; i < n; i++) {
		char name[512];

		snprintf(name, sizeof(name), "%s:%s", tps[i].group, tps[i].name);
		if (wanted(l, "tracepoint", name, NULL))
			row(l, name, NULL, "Tracepoint event");
	}
	tracefs__free_names(tps, n);
}

/*
 * --features: what this kernel lets sonde hook, each found by loading (and
 * attaching where it matters) a tiny program, as the BPF commands choose.
 */
static int list_features(void)
{
	struct {
		const char *what;
		bool ok;
		const char *why;
	} f[20];
	int n = 0;
	const char *why;

	bpfutil__setup_log(verbose);
	bpfutil__quiet(true);
#define FEATURE(name, call) do { why = NULL; f[n].what = name; f[n].ok = call; f[n].why = why; n++; } while (0)
	FEATURE("BTF (/sys/kernel/btf/vmlinux)", bpf_probe__btf());
	FEATURE("tp_btf (typed raw tracepoints)", bpf_probe__tp_btf("sched_switch", &why));
	FEATURE("raw_tp (raw tracepoints)", bpf_probe__raw_tp("sched_switch", &why));
	FEATURE("tracepoint (perf-event tracepoints)", bpf_probe__tracepoint("sched", "sched_switch", &why));
	FEATURE("fentry (BPF trampolines)", bpf_probe__fentry("do_sys_openat2", &why));
	FEATURE("kprobe", bpf_probe__kprobe("do_sys_openat2", &why));
	FEATURE("perf_event (profile, software events)", bpf_probe__prog_type(BPF_PROG_TYPE_PERF_EVENT, &why));
	FEATURE("kprobe_events (probe --add FUNC)", ftrace__feature("kprobe_events", &why));
	FEATURE("uprobe_events (probe -x BIN --add)", ftrace__feature("uprobe_events", &why));
	FEATURE("function tracer (ftrace -f)", ftrace__feature("function", &why));
	FEATURE("function_graph tracer (ftrace -G)", ftrace__feature("function_graph", &why));
	FEATURE("hist triggers (ftrace --hist)", ftrace__feature_more("hist", &why));
	static const char *const lat[] = { "wakeup", "wakeup_rt", "wakeup_dl", "irqsoff", "preemptoff", "preemptirqsoff" };
	static char latname[6][48];

	for (int i = 0; i < 6; i++) {
		snprintf(latname[i], sizeof(latname[i]), "%s tracer (ftrace --latency)", lat[i]);
		FEATURE(latname[i], ftrace__feature_more(lat[i], &why));
	}
#undef FEATURE
	bpfutil__quiet(false);
	for (int i = 0; i < n; i++)
		printf("  %-40s %s%s%s\n", f[i].what, f[i].ok ? "yes" : "no", f[i].why && !f[i].ok ? ": " : "",
		       f[i].why && !f[i].ok ? f[i].why : "");
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct list_ctx l = { 0 };
	bool features = false;
	const struct opt opts[] = {
		OPT_BOOL(0, "all", &l.all, "also list hardware events this machine cannot count"),
		OPT_BOOL(0, "features", &features, "the BPF hooks this kernel accepts (tp_btf, fentry, kprobe...), tried for real"),
		OPT_VERBOSE(),
		OPT_END(),
	};
	static const char *const classes[][2] = {
		{ "hw", "hw" }, { "hardware", "hw" }, { "sw", "sw" }, { "software", "sw" },
		{ "cache", "cache" }, { "hwcache", "cache" }, { "pmu", "pmu" },
		{ "tracepoint", "tracepoint" }, { "tracepoints", "tracepoint" },
	};

	argc = opt__parse(argc, argv, opts, list_usage, 0);
	if (features)
		return list_features();
	if (argc == 1)
		for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
			if (!strcmp(argv[0], classes[i][0]))
				l.cls = classes[i][1];
	if (!l.cls) {
		l.pats = argv;
		l.npats = argc;
	}
	list_symbolic(&l, EVK_HARDWARE, "hw", "Hardware event");
	list_symbolic(&l, EVK_SOFTWARE, "sw", "Software event");
	event__for_each_cache_name(cache_one, &l);
	if (!l.cls && (!l.npats || wanted(&l, "", "rNNN", NULL)))
		row(&l, "rNNN", NULL, "Raw hardware event descriptor");
	if (!l.cls && (!l.npats || wanted(&l, "", "cpu/t1=v1[,t2=v2,t3 ...]/modifier", NULL)))
		row(&l, "cpu/t1=v1[,t2=v2,t3 ...]/modifier", NULL, "Raw hardware event descriptor");
	event__for_each_pmu_event(pmu_one, &l);
	list_tracepoints(&l);
	if (!l.shown && (l.npats || l.cls)) {
		error("no event matches '%s'", argv[0]);
		return 1;
	}
	return 0;
}
