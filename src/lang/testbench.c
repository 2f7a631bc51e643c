// SPDX-License-Identifier: GPL-2.0
/*
 * testbench.c - probes sonde runs itself, through BPF_PROG_TEST_RUN:
 *  - test:NAME (--test): raw tracepoint programs run once each, in order; a
 *    test passes when its program returns 0 (return EXPR sets it), it called
 *    no errorf() and no exit(), whatever the code (upstream's rule: "the return
 *    value, error count and possible exit calls"). A passing test's output is
 *    dropped, a failing one's shown. sonde's exit status is then 1 when a
 *    test failed, else 0: exit(CODE) in a test fails it, its CODE is not the
 *    status (exit(0) would otherwise pass a suite whose test failed).
 *  - bench:NAME (--bench): socket filter programs, the type whose test run
 *    takes a repeat count and reports the kernel's own average time per run
 *    (ktime around the repeat loop, divided by the count); the median of three
 *    runs of ~0.1 s each is printed in upstream bpftrace's table (-f json:
 *    its benchmark_result lines).
 *  - self:signal:SIGUSR1: raw tracepoint programs run when sonde gets SIGUSR1.
 * And missing_probes: attach points that do not exist or do not attach are
 * skipped with a warning (warn) or silently (ignore) instead of failing.
 */
#include "lang/testbench.h"
#include "lang/check_int.h"
#include "lang/gen_int.h"
#include "lang/provider.h"
#include "lang/runtime.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static bool is_prov(const struct ap_inst *in, const char *name)
{
	return in && in->prov && !strcmp(in->prov->name, name);
}

int testbench__check_return(struct ck *c, struct node *s)
{
	struct type t = ck_expr(c, s->l);

	if (c->prog->err)
		return -1;
	if (t.kind != TY_INT) {
		lang__error(c->prog, s->l->loc, "return takes an integer (a test: probe's verdict: 0 passes)");
		return -1;
	}
	return 0;
}

void testbench__gen_prologue(struct gen *g)
{
	if (!is_prov(g->in, "test"))
		return;
	g->retslot = g_slot(g, 8, g->pr->loc);
	g_emit(g, ST(BPF_DW, FP, g->retslot, 0));
}

void testbench__gen_return(struct gen *g, struct node *s)
{
	if (!s->l || g->cb || !g->retslot)
		return;	/* elsewhere the value is checked, and the probe returns 0 */
	gen_int(g, s->l);
	g_emit(g, STX(BPF_DW, FP, R0, g->retslot));
}

void testbench__gen_epilogue(struct gen *g)
{
	if (g->retslot)
		g_emit(g, LDX(BPF_DW, R0, FP, g->retslot));
	else	/* see g_keep */
		g_emit(g, MOV_IMM(R0, g_keep(g)));
}

static bool probe_is(const struct probe *pr, const char *prov)
{
	for (const struct attach *ap = pr->aps; ap; ap = ap->next)
		if (ap->prov && !strcmp(ap->prov, prov))
			return true;
	return false;
}

int testbench__select(struct program *p)
{
	const char *want = p->mode == MODE_TEST ? "test" : p->mode == MODE_BENCH ? "bench" : NULL;
	int kept = 0;

	for (struct probe *pr = p->probes; pr; pr = pr->next) {
		bool t = probe_is(pr, "test"), b = probe_is(pr, "bench");

		if ((t || b) && pr->aps->next) {
			lang__error(p, pr->aps->next->loc, "a %s: probe has one attach point", t ? "test" : "bench");
			return -EINVAL;
		}
	}
	for (struct probe **pp = &p->probes, *pr; (pr = *pp);) {
		bool keep = want ? probe_is(pr, want) : !probe_is(pr, "test") && !probe_is(pr, "bench");

		if (keep) {
			kept++;
			pp = &pr->next;
		} else {
			*pp = pr->next;
		}
	}
	if (want && !kept) {
		char msg[128];

		snprintf(msg, sizeof(msg), "sonde: --%s: the program has no %s: probes", want, want);
		p->err = strdup(msg);
		p->nerr++;
		return -EINVAL;
	}
	return 0;
}

static int filter_error(struct program *p, const char *msg)
{
	p->err = strdup(msg);
	p->nerr++;
	return -EINVAL;
}

int testbench__filter(struct program *p)
{
	regex_t re;
	int kept = 0;
	char msg[300];

	if (!p->probe_filter)
		return 0;
	if (regcomp(&re, p->probe_filter, REG_EXTENDED | REG_NOSUB)) {
		snprintf(msg, sizeof(msg), "sonde: Invalid --probe-filter regex '%s'", p->probe_filter);
		return filter_error(p, msg);
	}
	for (struct probe **pp = &p->probes, *pr; (pr = *pp);) {
		bool special = pr->inst && (!strcmp(pr->inst->prov->name, "BEGIN") || !strcmp(pr->inst->prov->name, "END"));

		pr->ninst = 0;
		for (struct ap_inst **ip = &pr->inst, *in; (in = *ip);) {
			if (special || (in->name && !regexec(&re, in->name, 0, NULL, 0))) {
				pr->ninst++;
				ip = &in->next;
			} else {
				*ip = in->next;
			}
		}
		kept += pr->ninst && !special;
		if (pr->ninst)
			pp = &pr->next;
		else
			*pp = pr->next;
	}
	regfree(&re);
	if (!kept) {
		snprintf(msg, sizeof(msg), "sonde: No probes to attach: --probe-filter '%s' matches none of the program's",
			 p->probe_filter);
		return filter_error(p, msg);
	}
	return 0;
}

static bool name_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!(*s == '_' || *s == '-' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

int testbench__expand_self(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail)
{
	if (!ap->a || strcmp(ap->a, "signal") || !ap->b || strcmp(ap->b, "SIGUSR1") || ap->c) {
		lang__error(prog, ap->loc, "the self probe is self:signal:SIGUSR1 (it runs when sonde gets SIGUSR1)");
		return -EINVAL;
	}
	provider__new_inst(prog, pr, ap, tail, "self:signal:SIGUSR1");
	return 0;
}

int testbench__expand_test(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail)
{
	char name[256];

	if (!name_ok(ap->a) || ap->b) {
		lang__error(prog, ap->loc, "a %s probe is written %s:NAME (letters, digits, '_', '-')", ap->prov, ap->prov);
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%s:%s", ap->prov, ap->a);
	provider__new_inst(prog, pr, ap, tail, name);
	return 0;
}

/* ---- --test ---- */
static int run_tests(struct program *p, struct tb_io *io, char *err, size_t errlen)
{
	FILE *real = *io->out;
	int ntests = 0, nfail = 0;

	for (struct probe *pr = p->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->inst; in; in = in->next) {
			char *text = NULL;
			size_t len = 0;
			FILE *cap = open_memstream(&text, &len);
			uint32_t ret = 0;
			int rc, errors = *io->errors;

			if (!cap)
				return -ENOMEM;
			*io->out = cap;
			*io->exiting = false;
			p->exit_code = 0;
			rc = runtime__test_run(in, &ret, err, errlen);
			ring_buffer__consume(io->rb);
			fflush(cap);
			*io->out = real;
			bool exited = *io->exiting, erred = *io->errors != errors;

			*io->exiting = false;
			fclose(cap);
			if (rc) {
				free(text);
				return rc;
			}
			ntests++;
			if (!ret && !exited && !erred) {
				fprintf(real, "%s: ok\n", in->name);
			} else {
				nfail++;
				if (ret)
					fprintf(real, "%s: FAILED (returned %d)\n", in->name, (int)ret);
				else if (exited)
					fprintf(real, "%s: FAILED (called exit(%d))\n", in->name, p->exit_code);
				else
					fprintf(real, "%s: FAILED (called errorf())\n", in->name);
				fwrite(text, 1, len, real);
			}
			free(text);
		}
	fprintf(real, "\n%d test%s: %d passed, %d failed\n", ntests, ntests == 1 ? "" : "s", ntests - nfail, nfail);
	p->exit_code = nfail ? 1 : 0;
	return 0;
}

/* ---- --bench ---- */
static int bench_run(int fd, int repeat, uint32_t *ns)
{
	unsigned char pkt[64] = { 0 };	/* an Ethernet header's worth and then some: a socket filter's input */
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt), .repeat = repeat);
	int rc = bpf_prog_test_run_opts(fd, &opts);

	*ns = opts.duration;
	return rc;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

struct result {
	const char *name;
	uint32_t ns;
	long long iters;	/* runs in each timed test run */
};

static int cmp_result(const void *a, const void *b)
{
	return strcmp(((const struct result *)a)->name, ((const struct result *)b)->name);
}

/* upstream's table (a name column of at least 40, then 15 for the time), or a json line per bench */
static void print_benches(FILE *f, struct result *res, int n, bool json)
{
	int w = 40;

	for (int i = 0; i < n; i++)
		if ((int)strlen(res[i].name) > w)
			w = strlen(res[i].name);
	if (!json && n)
		fprintf(f, "%-*s %-15s%s\n%.*s\n", w, "Benchmark", "Time(ns)", "Iterations",
			w + 1 + 15 + (int)strlen("Iterations"),
			"--------------------------------------------------------------------------------"
			"--------------------------------------------------------------------------------"
			"--------------------------------------------------------------------------------");
	for (int i = 0; i < n; i++)
		if (json)	/* names are letters, digits, '_' and '-' (name_ok): nothing to escape */
			fprintf(f, "{\"type\": \"benchmark_result\", \"data\": {\"%s\": {\"average\": %u, \"iters\": %lld}}}\n",
				res[i].name, res[i].ns, res[i].iters);
		else
			fprintf(f, "%-*s %-15u%lld\n", w, res[i].name, res[i].ns, res[i].iters);
	if (!json)
		fputs("\n\n", f);
}

static int run_benches(struct program *p, struct tb_io *io, char *err, size_t errlen)
{
	struct result *res = NULL;
	int n = 0, cap = 0, rc = 0;
	FILE *real = *io->out, *sink = fopen("/dev/null", "w");

	if (!sink)
		return -errno;
	*io->out = sink;	/* what the bodies print is not the benchmark's */
	for (struct probe *pr = p->probes; pr && !rc; pr = pr->next)
		for (struct ap_inst *in = pr->inst; in; in = in->next) {
			uint32_t first, t[3];
			long long repeat;

			if ((rc = bench_run(in->prog_fd, 1000, &first))) {
				snprintf(err, errlen, "cannot run %s: %s", in->name, strerror(-rc));
				break;
			}
			repeat = 100000000LL / (first ? first : 1);	/* ~0.1 s a run */
			repeat = repeat < 1000 ? 1000 : repeat > 5000000 ? 5000000 : repeat;
			for (int i = 0; i < 3 && !rc; i++) {
				rc = bench_run(in->prog_fd, (int)repeat, &t[i]);
				ring_buffer__consume(io->rb);
			}
			if (rc) {
				snprintf(err, errlen, "cannot run %s: %s", in->name, strerror(-rc));
				break;
			}
			qsort(t, 3, sizeof(t[0]), cmp_u32);
			if (n == cap) {
				struct result *nr = realloc(res, (cap = cap ? cap * 2 : 8) * sizeof(*res));

				if (!nr) {
					rc = -ENOMEM;
					break;
				}
				res = nr;
			}
			res[n].name = strchr(in->name, ':') + 1;
			res[n].iters = repeat;
			res[n++].ns = t[1];
		}
	*io->out = real;
	fclose(sink);
	if (!rc) {
		qsort(res, n, sizeof(*res), cmp_result);
		print_benches(real, res, n, io->json);
	}
	free(res);
	return rc;
}

int testbench__run(struct program *p, struct tb_io *io, char *err, size_t errlen)
{
	return p->mode == MODE_TEST ? run_tests(p, io, err, errlen) : run_benches(p, io, err, errlen);
}

/* ---- self:signal:SIGUSR1 ---- */
bool testbench__wants_sigusr1(struct program *p)
{
	for (struct probe *pr = p->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->inst; in; in = in->next)
			if (is_prov(in, "self"))
				return true;
	return false;
}

void testbench__fire_sigusr1(struct program *p)
{
	for (struct probe *pr = p->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->inst; in; in = in->next) {
			uint32_t ret;
			char err[256];

			if (is_prov(in, "self") && in->prog_fd >= 0 && runtime__test_run(in, &ret, err, sizeof(err)))
				lang__diag(LANG_ERROR, "%s", err);
		}
}

/* ---- missing_probes ---- */
static void first_line(const char *s, char *buf, size_t len)
{
	const char *colon = s ? strstr(s, "error: ") : NULL;
	const char *from = colon ? colon + 7 : s ? s : "";
	size_t n = strcspn(from, "\n");

	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), from);
}

bool testbench__skip_missing(struct program *p, struct attach *ap, struct probe *pr)
{
	char why[512];

	if (p->cfg.missing_probes == MISSING_ERROR)
		return false;
	if (ap) {
		first_line(p->err, why, sizeof(why));
		if (p->cfg.missing_probes == MISSING_WARN)
			lang__warn(p, ap->loc, "skipping '%s': %s (missing_probes = warn)", ap->text, why);
		free(p->err);
		p->err = NULL;
		p->nerr = 0;
		return true;
	}
	if (p->cfg.missing_probes == MISSING_WARN)
		lang__warn(p, pr->loc, "skipping this probe: none of its attach points exists here (missing_probes = warn)");
	return true;
}

int testbench__attach_failed(struct program *p, struct ap_inst *in, int rc, const char *err)
{
	if (!rc || p->cfg.missing_probes == MISSING_ERROR)
		return rc;
	if (p->cfg.missing_probes == MISSING_WARN && !p->no_warnings)
		lang__diag(LANG_WARNING, "skipping '%s': %s (missing_probes = warn)", in->name, err);
	provider__detach(in);
	return 0;
}
