// SPDX-License-Identifier: GPL-2.0
/*
 * runtime.c - the life of a probe program: maps (bpf_map_create), programs
 * (bpf_prog_load; the verifier's log is shown when it refuses one), BEGIN and
 * END through BPF_PROG_TEST_RUN, attach through the providers, one ring buffer
 * for printf/exit/print/clear read through the event loop of lib/loop (no
 * timeouts: exit is immediate), then maps printed before detaching, and detach
 * in parallel (closing a perf-event tracepoint costs ~60 ms in the kernel).
 */
#include "lang/btfgen.h"
#include "lang/gen.h"
#include "lang/load.h"
#include "lib/bpf/bpf_util.h"
#include "lang/output.h"
#include "lang/provider.h"
#include "lang/provider_iter.h"
#include "lang/runtime.h"
#include "lang/skboutput.h"
#include "lang/testbench.h"
#include "lib/loop/loop.h"
#include "lib/symbol/symbol.h"
#include "lib/syscall/syscalls.h"
#include "lib/proc/target.h"
#include "lib/util.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct rt {
	struct program *prog;
	const struct run_opts *o;
	struct loader *loader;	/* while the programs load */
	int interrupted;	/* the signal that stopped the loads, or 0 */
	struct out out;
	int rb_fd, kstack_fd, ustack_fd, lost_fd, pids_fd, join_fd, scnames_fd;
	int vars_fd;		/* MAPREF_VARS, when for loops share variables; -1 */
	int strs_fd;		/* MAPREF_STRS, for globmatch and strstr; -1 */
	int exit_fd;		/* MAPREF_EXIT, when the program calls exit(); -1 */
	uint32_t vars_size;
	struct ring_buffer *rb;
	struct skbout *skb;	/* skboutput()'s perf buffers and pcap files, or NULL */
	bool exiting;
	int target_fd;	/* a pidfd of -p's process, -1 for none */
	int nerrors;	/* errorf()s so far: a test: probe that calls one fails */
	int nattached;
	int budget;		/* records the event loop's turn may read (0: all there are) */
};

void bpf_code__dump(const struct bpf_code *c, FILE *f);

static void map_name(char *buf, size_t len, const char *name)
{
	size_t n = 0;

	for (const char *p = name; *p && n + 1 < len && n < 15; p++)
		if (*p != '@')
			buf[n++] = *p;
	if (!n)
		buf[n++] = 'm';
	buf[n] = 0;
}

/*
 * syscall_name()'s table: an array of the names by number, filled through
 * mmap (hundreds of updates would be as many system calls) and frozen. A
 * lookup is a few instructions where a search in code was thousands, each
 * of which the verifier walked (syscount's END took 25 ms to load).
 */
static int scnames_map(char *err, size_t errlen)
{
	uint32_t max = 0;
	int fd;

	for (int i = 0; i < syscall__count(); i++)
		if ((uint32_t)syscall__at(i)->nr > max)
			max = (uint32_t)syscall__at(i)->nr;
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "sonde_scnames", 4, SCNAME_LEN, max + 1, &opts);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create the map of syscall_name(): %s", strerror(-fd));
		return fd;
	}
	size_t len = ((size_t)(max + 1) * SCNAME_LEN + 4095) & ~(size_t)4095;
	char *v = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (v == MAP_FAILED) {
		int e = errno;

		close(fd);
		snprintf(err, errlen, "cannot fill the map of syscall_name(): %s", strerror(e));
		return -e;
	}
	for (int i = 0; i < syscall__count(); i++)
		snprintf(v + (size_t)syscall__at(i)->nr * SCNAME_LEN, SCNAME_LEN, "%s", syscall__at(i)->name);
	munmap(v, len);
	bpf_map_freeze(fd);	/* nothing changes it now */
	return fd;
}

/*
 * The entries a map can come to hold. A map no running probe adds to (one
 * that only a branch the options dropped writes) stays empty, and a scalar
 * (@total = sum(...)) holds one key or, as a histogram, one per bucket. A
 * per-CPU hash is allocated whole at creation: biolatency's six maps of 4096
 * keys were two thirds of its start-up.
 */
static uint32_t map_entries(const struct mapinfo *m)
{
	uint64_t n = m->max_entries;

	if (!m->added)
		n = 1;
	else if (m->nkeys == 0 && m->agg == AGG_HIST)
		n = (66ull << m->hist_k) + 2;	/* g_log2k_bucket's top bucket, HIST_MAX_BUCKET */
	else if (m->nkeys == 0 && m->agg == AGG_LHIST)
		n = (uint64_t)((m->lmax - m->lmin) / m->lstep) + 3;	/* g_lin_bucket's, HIST_MAX_BUCKET */
	else if (m->nkeys == 0 && m->agg != AGG_TSERIES)
		n = 1;
	return n < m->max_entries ? (uint32_t)n : m->max_entries;
}

static int create_maps(struct rt *rt, char *err, size_t errlen)
{
	struct program *p = rt->prog;

	/*
	 * 256 KB (64 pages, upstream's smallest default), or perf_rb_pages pages
	 * (rounded up to a power of two, as the kernel wants): its pages are resident,
	 * mapped twice by libbpf, so this is most of sonde's memory; user space drains
	 * it as it fills, and a full buffer counts what it loses
	 */
	uint32_t rb_size = 1 << 18;

	if (p->cfg.perf_rb_pages > 0)
		for (rb_size = 4096; rb_size < (uint32_t)p->cfg.perf_rb_pages * 4096; rb_size <<= 1)
			;
	rt->rb_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "sonde_out", 0, 0, rb_size, NULL);
	/* key 0: records a full ring buffer lost; key 1: exit(CODE) ran (1 << 32 | CODE), lost or not;
	 * key 2: packets skboutput()'s perf buffer had no room for (the helper's -ENOSPC) */
	rt->lost_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "sonde_lost", 4, 8, 3, NULL);
	if (rt->rb_fd < 0) {
		snprintf(err, errlen, "cannot create the output ring buffer: %s%s", strerror(-rt->rb_fd),
			 rt->rb_fd == -EPERM ? " (BPF needs root or CAP_BPF and CAP_PERFMON)" : "");
		return rt->rb_fd;
	}
	if (rt->vars_size) {	/* one value per attach point, by its number */
		uint32_t n = 0;

		for (struct probe *pr = p->probes; pr; pr = pr->next)
			for (struct ap_inst *in = pr->inst; in; in = in->next)
				n++;
		rt->vars_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "sonde_vars", 4, rt->vars_size, n ? n : 1, NULL);
		if (rt->vars_fd < 0) {
			snprintf(err, errlen, "cannot create the map of the variables of for loops: %s", strerror(-rt->vars_fd));
			return rt->vars_fd;
		}
	}
	if (p->strs_scratch) {	/* globmatch, strstr: one value per attach point, by its number */
		uint32_t n = 0;

		for (struct probe *pr = p->probes; pr; pr = pr->next)
			for (struct ap_inst *in = pr->inst; in; in = in->next)
				n++;
		rt->strs_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "sonde_strs", 4, p->strs_scratch, n ? n : 1, NULL);
		if (rt->strs_fd < 0) {
			snprintf(err, errlen, "cannot create the map of globmatch() and strstr(): %s", strerror(-rt->strs_fd));
			return rt->strs_fd;
		}
	}
	if (p->need_exit) {
		rt->exit_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "sonde_exit", 4, 8, 1, NULL);
		if (rt->exit_fd < 0) {
			snprintf(err, errlen, "cannot create the map of exit(): %s", strerror(-rt->exit_fd));
			return rt->exit_fd;
		}
	}
	if (p->need_scnames && (rt->scnames_fd = scnames_map(err, errlen)) < 0)
		return rt->scnames_fd;
	if (p->need_join) {
		rt->join_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "sonde_join", 4, 8 + JOIN_LEN * JOIN_ARGS, 1, NULL);
		if (rt->join_fd < 0) {
			snprintf(err, errlen, "cannot create the map of join(): %s", strerror(-rt->join_fd));
			return rt->join_fd;
		}
	}
	if (p->need_kstack || p->need_ustack) {
		uint32_t vs = 8 * 127;

		if (p->need_kstack)
			rt->kstack_fd = bpf_map_create(BPF_MAP_TYPE_STACK_TRACE, "sonde_kstack", 4, vs, 4096, NULL);
		if (p->need_ustack) {
			rt->ustack_fd = bpf_map_create(BPF_MAP_TYPE_STACK_TRACE, "sonde_ustack", 4, vs, 4096, NULL);
			rt->pids_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "sonde_pids", 4, 8, 65536, NULL);
		}
		if (rt->kstack_fd < -1 || rt->ustack_fd < -1) {
			snprintf(err, errlen, "cannot create a stack map: %s", strerror(errno));
			return -errno;
		}
	}
	if (skbout__wanted(p)) {
		int e = skbout__new(p, &rt->skb, err, errlen);

		if (e)
			return e;
	}
	for (struct mapinfo *m = p->maps; m; m = m->next) {
		char name[16];

		m->max_entries = map_entries(m);

		/*
		 * Hash maps are made whole at creation (4 ms for a per-CPU one of 4096 keys on
		 * 2 CPUs), not as keys come (BPF_F_NO_PREALLOC): the kernel's cache for those
		 * refills from irq_work, which cannot run inside an interval or profile probe,
		 * and a burst of new keys there failed to be stored (bpftrace's tests' tseries).
		 */
		map_name(name, sizeof(name), m->name);
		m->fd = bpf_map_create(m->bpf_type, name, m->key_size, m->value_size, m->max_entries, NULL);
		if (m->fd < 0) {
			int e = m->fd;

			m->fd = -1;
			snprintf(err, errlen, "cannot create map '%s': %s", m->name, strerror(-e));
			return e;
		}
	}
	return 0;
}

static int map_fd(struct rt *rt, int ref)
{
	if (ref == MAPREF_RINGBUF)
		return rt->rb_fd;
	if (ref == MAPREF_KSTACK)
		return rt->kstack_fd;
	if (ref == MAPREF_USTACK)
		return rt->ustack_fd;
	if (ref == MAPREF_LOST)
		return rt->lost_fd;
	if (ref == MAPREF_PIDS)
		return rt->pids_fd;
	if (ref == MAPREF_JOIN)
		return rt->join_fd;
	if (ref == MAPREF_SCNAMES)
		return rt->scnames_fd;
	if (ref == MAPREF_VARS)
		return rt->vars_fd;
	if (ref == MAPREF_STRS)
		return rt->strs_fd;
	if (ref == MAPREF_EXIT)
		return rt->exit_fd;
	if (ref == MAPREF_ITERFMT)
		return iter__fmt_fd();
	if (ref == MAPREF_SKB)
		return skbout__map_fd(rt->skb);
	for (struct mapinfo *m = rt->prog->maps; m; m = m->next)
		if (m->index == ref)
			return m->fd;
	return -1;
}

static int load(struct rt *rt, struct ap_inst *in, struct bpf_code *c, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	char name[16];
	int fd;
	struct bpf_func_info *fi = NULL;
	struct btf *btf = NULL;

	for (int i = 0; i < c->nrel; i++)
		c->insns[c->rel[i].insn].imm = map_fd(rt, c->rel[i].map);
	snprintf(name, sizeof(name), "sonde_%.9s", in->prov->name);
	if (in->prog_type == BPF_PROG_TYPE_TRACING) {	/* fentry/fexit: the function's BTF id */
		opts.expected_attach_type = strcmp(in->prov->name, "fexit") ? BPF_TRACE_FENTRY : BPF_TRACE_FEXIT;
		if (!strcmp(in->prov->name, "iter"))
			opts.expected_attach_type = BPF_TRACE_ITER;
		opts.attach_btf_id = in->attach_btf_id;
	}
	if (in->tp_btf) {	/* a raw tracepoint's program typed by the kernel's BTF (gen_btf.c) */
		opts.expected_attach_type = BPF_TRACE_RAW_TP;
		opts.attach_btf_id = in->attach_btf_id;
	}
	int type = in->tp_btf ? BPF_PROG_TYPE_TRACING : in->prog_type;

	if (provider__uprobe_multi(in))	/* attached by a link of its own: see bpf_uprobe_multi__attach */
		opts.expected_attach_type = BPF_UPROBE_MULTI;
	if (c->nsubs) {	/* for-loop callbacks: the verifier wants BTF func_info */
		btf = btfgen__funcs(c, &fi, err, errlen);
		if (!btf)
			return -EINVAL;
		opts.prog_btf_fd = btf__fd(btf);
		opts.func_info = fi;
		opts.func_info_cnt = c->nsubs + 1;
		opts.func_info_rec_size = sizeof(*fi);
	}
	fd = loader__prog(rt->loader, type, name, rt->prog->cfg.license, c->insns, c->n, &opts);
	if (fd == -EINTR) {	/* SIGINT or SIGTERM: runtime__run says so */
		btf__free(btf);
		free(fi);
		return fd;
	}
	if (fd >= 0) {
		in->prog_fd = fd;
		btf__free(btf);
		free(fi);
		return 0;
	}
	int e = fd;

	if (in->tp_btf) {	/* the caller loads it again as a raw tracepoint, and says why if that fails */
		btf__free(btf);
		free(fi);
		return e;
	}
	size_t logsz = 1 << 22;
	char *log = malloc(logsz);

	if (log) {
		LIBBPF_OPTS(bpf_prog_load_opts, lopts, .log_buf = log, .log_size = logsz, .log_level = 1,
			    .prog_btf_fd = opts.prog_btf_fd, .func_info = opts.func_info,
			    .func_info_cnt = opts.func_info_cnt, .func_info_rec_size = opts.func_info_rec_size);

		log[0] = 0;
		lopts.expected_attach_type = opts.expected_attach_type;
		lopts.attach_btf_id = opts.attach_btf_id;
		fd = loader__prog(rt->loader, type, name, rt->prog->cfg.license, c->insns, c->n, &lopts);
		if (fd >= 0)
			close(fd);
		if (fd == -EINTR) {
			free(log);
			btf__free(btf);
			free(fi);
			return fd;
		}
		/* the verifier's last lines say why */
		size_t n = strlen(log);

		while (n > 0 && log[n - 1] == '\n')
			log[--n] = 0;
		const char *tail = log + n;

		for (int lines = 0; tail > log && lines < 4; tail--)
			if (tail[-1] == '\n')
				lines++;
		snprintf(err, errlen, "the kernel refused the program of '%s': %s%s%s", in->name, strerror(-e),
			 *tail ? "\nverifier: " : "", tail);
		if (!c->nsubs && strstr(log, "unknown#195"))
			snprintf(err, errlen, "the kernel refused the program of '%s': reading a count, sum, avg, min or "
				 "max map in a probe needs bpf_map_lookup_percpu_elem (Linux 5.19), which this kernel "
				 "lacks", in->name);
		else if (c->nsubs && (strstr(log, "unknown#164") || strstr(log, "unknown#195")))
			snprintf(err + strlen(err), errlen - strlen(err), "\n(for over a map needs Linux 5.13's "
				 "bpf_for_each_map_elem, and 5.19's bpf_map_lookup_percpu_elem over count, sum, avg, "
				 "min and max maps)");
		if (c->nsubs && strstr(log, "unknown#181"))
			snprintf(err + strlen(err), errlen - strlen(err), "\n(globmatch() and strstr() need Linux 5.17's bpf_loop)");
		if (c->vars_size && (strstr(log, "infinite loop") || strstr(log, "too complex")))
			snprintf(err + strlen(err), errlen - strlen(err), "\n(a variable written in a for loop's body "
				 "is kept in a map, where the verifier cannot see a while loop or a range counting "
				 "with it end: count with another variable)");
		free(log);
	} else {
		snprintf(err, errlen, "the kernel refused the program of '%s': %s", in->name, strerror(-e));
	}
	if (e == -EPERM && in->prog_type == BPF_PROG_TYPE_TRACING && geteuid() == 0)
		snprintf(err + strlen(err), errlen - strlen(err), " (this kernel refuses fentry/fexit programs even to root: "
			 "it has no BPF trampolines for its functions; use a tracepoint or a raw tracepoint)");
	else if (e == -EPERM)
		snprintf(err + strlen(err), errlen - strlen(err), " (BPF needs root or CAP_BPF and CAP_PERFMON)");
	btf__free(btf);
	free(fi);
	return e;
}

static void clear_map(struct rt *rt, struct mapinfo *m, bool zero_only)
{
	int ncpu = m->percpu ? rt->out.ncpus : 1;
	uint8_t *key = calloc(1, m->key_size), *next = calloc(1, m->key_size);
	uint8_t *z = calloc(ncpu, m->value_size);
	bool first = true;

	if (!key || !next || !z)
		goto out;
	/* a count() map without keys is set to zero, as bpftrace 0.17 does (its other scalars go) */
	if (!zero_only && m->nkeys == 0 && m->agg == AGG_COUNT)
		zero_only = true;
	if (!zero_only) {
		/* the keys there now, then delete them: probes still running (our own bpf()
		 * calls on raw_syscalls) would refill a delete-until-empty loop forever */
		uint8_t *keys = malloc((size_t)m->key_size * m->max_entries);
		uint32_t n = 0;

		if (!keys)
			goto out;
		while (n < m->max_entries && bpf_map_get_next_key(m->fd, first ? NULL : key, next) == 0) {
			first = false;
			memcpy(key, next, m->key_size);
			memcpy(keys + (size_t)n++ * m->key_size, next, m->key_size);
		}
		for (uint32_t i = 0; i < n; i++)
			bpf_map_delete_elem(m->fd, keys + (size_t)i * m->key_size);
		free(keys);
		goto out;
	}
	for (uint32_t n = 0; n < m->max_entries && bpf_map_get_next_key(m->fd, first ? NULL : key, next) == 0; n++) {
		first = false;
		memcpy(key, next, m->key_size);
		bpf_map_update_elem(m->fd, key, z, BPF_EXIST);
	}
out:
	free(key);
	free(next);
	free(z);
}

/*
 * Text a record makes by writing to the output (cat, system, print of a
 * value): for a thread whose line may be open (tid), caught in memory and
 * handed to output_lines.c, so that it lands in that line; else written.
 */
struct caught {
	FILE *saved;
	char *buf;
	size_t len;
};

static void catch_begin(struct rt *rt, uint32_t tid, struct caught *c)
{
	c->saved = NULL;
	c->buf = NULL;
	if (!tid || rt->out.json || rt->out.rows)
		return;
	FILE *m = open_memstream(&c->buf, &c->len);

	if (m) {
		c->saved = rt->out.f;
		rt->out.f = m;
	}
}

static void catch_end(struct rt *rt, uint32_t tid, struct caught *c)
{
	if (!c->saved)
		return;
	fclose(rt->out.f);
	rt->out.f = c->saved;
	if (c->buf)
		out__lines_text(&rt->out, tid, c->buf);
	free(c->buf);
}

/* all of f, to the output (-f json: as one event of that type) */
/* f's text to the output; at most max bytes of it (0: all) */
static void copy_out(struct rt *rt, FILE *f, const char *type, size_t max)
{
	char buf[4096];
	size_t n, left = max ? max : SIZE_MAX;

	if (!rt->out.json) {
		while (left && (n = fread(buf, 1, sizeof(buf) < left ? sizeof(buf) : left, f)) > 0) {
			fwrite(buf, 1, n, rt->out.f);
			left -= n;
		}
		return;
	}
	char *all = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&all, &len);

	if (!m)
		return;
	while (left && (n = fread(buf, 1, sizeof(buf) < left ? sizeof(buf) : left, f)) > 0) {
		fwrite(buf, 1, n, m);
		left -= n;
	}
	fclose(m);
	out__event(&rt->out, type, all ? all : "", len);
	free(all);
}

static void run_system(struct rt *rt, const char *cmd)
{
	fflush(rt->out.f);
	FILE *p = popen(cmd, "r");

	if (!p)
		return;
	copy_out(rt, p, "syscall", 0);
	pclose(p);
}

static void run_cat(struct rt *rt, const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		lang__diag(LANG_ERROR, "cat: cannot open '%s': %s", path, strerror(errno));
		return;
	}
	copy_out(rt, f, "cat", (size_t)rt->prog->cfg.max_cat_bytes);
	fclose(f);
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct rt *rt = ctx;
	struct program *p = rt->prog;
	const uint32_t *h = data;

	if (size < 8)
		return 0;
	/* printf and join records of a program printing partial lines: the thread above the kind */
	uint32_t kind = h[0] & REC_KIND_MASK, tid = h[0] >> REC_TID_SHIFT, arg = h[1];

	if (kind == REC_PID) {	/* even after exit(): the maps printed next need it */
		out__pid_seen(&rt->out, (pid_t)arg);
		return 0;
	}
	if (rt->exiting)
		return 0;
	const struct fmtsite *s = arg < (uint32_t)p->nsites ? p->sites[arg] : NULL;

	switch (kind) {
	case REC_PRINTF: case REC_CAT: case REC_SYSTEM: {
		char *text = s ? out__format(&rt->out, s, data, size) : NULL;

		if (text && kind == REC_PRINTF) {
			out__lines_text(&rt->out, tid, text);
		} else if (text) {
			struct caught c;

			catch_begin(rt, tid, &c);
			if (kind == REC_CAT)
				run_cat(rt, text);
			else
				run_system(rt, text);
			catch_end(rt, tid, &c);
		}
		free(text);
		break;
	}
	case REC_EXIT:	/* the first exit(CODE) sets sonde's exit status (--test: testbench.c decides) */
		out__rows_flush(&rt->out);	/* a sorted loop's rows so far */
		rt->exiting = true;
		p->exit_code = (int)arg & 0xff;
		break;
	case REC_ERRORF: case REC_WARNF: {	/* "stdin:1:9-30: ERROR: text" */
		char *text = s ? out__format(&rt->out, s, data, size) : NULL;

		if (kind == REC_ERRORF)
			rt->nerrors++;
		fflush(rt->o->out);
		if (text && (kind == REC_ERRORF || !p->no_warnings))	/* --no-warnings drops warnf()'s too, as upstream */
			fputs(text, stderr);
		free(text);
		break;
	}
	case REC_HELPER_ERR: {	/* -k: on stdout, where bpftrace 0.17 prints it */
		char *text = s && size >= 16 ? out__helper_error(&rt->out, p, s, ((const int64_t *)data)[1]) : NULL;

		if (text)
			fputs(text, rt->out.f);
		free(text);
		break;
	}
	case REC_ASSERT: {	/* "stdin:1:9-30: ERROR: assert failed: msg" on stderr, then exit(1) */
		char *text = s ? out__format(&rt->out, s, data, size) : NULL;

		fflush(rt->o->out);
		if (text)
			fputs(text, stderr);
		free(text);
		p->exit_code = 1;
		rt->exiting = true;
		break;
	}
	case REC_JOIN: {
		char *buf = NULL;
		size_t blen = 0;
		FILE *f = open_memstream(&buf, &blen);

		if (!f)
			break;
		for (int i = 0; i < JOIN_ARGS && 8 + (size_t)JOIN_LEN * (i + 1) <= size; i++) {
			const char *a = (const char *)data + 8 + JOIN_LEN * i;

			if (!*a)
				break;
			fprintf(f, "%s%.*s", i ? (s && s->fmt ? s->fmt : " ") : "", JOIN_LEN, a);
		}
		fputc('\n', f);
		fclose(f);
		out__lines_text(&rt->out, tid, buf);
		free(buf);
		break;
	}

	case REC_PRINT_MAP: {	/* after what the thread's line holds ("time(...); print(@)") */
		struct caught c;

		catch_begin(rt, tid, &c);
		if (s && s->map && s->map->fd >= 0 && s->bcc)
			out__bcc_hist(&rt->out, s);
		else if (s && s->map && s->map->fd >= 0)
			out__map(&rt->out, s->map, s->top, s->div);
		catch_end(rt, tid, &c);
		break;
	}
	case REC_PRINT_VAL:
		if (s && size >= 8u + s->args[0].size) {
			struct caught c;

			catch_begin(rt, tid, &c);
			out__value_line(&rt->out, &s->args[0], (const uint8_t *)data + 8);
			catch_end(rt, tid, &c);
		}
		break;
	case REC_ROWS_BEGIN:
		if (size >= 16)
			out__rows_begin(&rt->out, ((const int64_t *)data)[1]);
		break;
	case REC_ROW:
		if (s && size >= s->size)
			out__rows_row(&rt->out, &s->args[0], (const uint8_t *)data + 8);
		break;
	case REC_ROWS_END:
		out__rows_end(&rt->out);
		break;
	case REC_UNWATCH:
		if (size >= 16)
			watch__unwatch(p, *(const uint64_t *)((const uint8_t *)data + 8));
		break;
	case REC_CLEAR: case REC_ZERO:
		for (struct mapinfo *m = p->maps; m; m = m->next)
			if (m->index == (int)arg && m->fd >= 0)
				clear_map(rt, m, kind == REC_ZERO);
		break;
	case REC_TIME: {
		char buf[256];
		time_t t = time(NULL);
		struct tm tm;

		localtime_r(&t, &tm);
		if (strftime(buf, sizeof(buf), s && s->fmt ? s->fmt : "%H:%M:%S\n", &tm) <= 0)
			break;
		if (rt->out.json)
			out__event(&rt->out, "time", buf, strlen(buf));
		else
			out__lines_text(&rt->out, tid, buf);
		break;
	}
	}
	return 0;
}

/* the lost map's count at key k (see create_maps), summed over the CPUs */
static uint64_t lost_events(struct rt *rt, uint32_t k)
{
	int n = rt->out.ncpus > 0 ? rt->out.ncpus : 1;
	uint64_t *v = calloc(n, sizeof(uint64_t)), sum = 0;

	if (v && rt->lost_fd >= 0 && !bpf_map_lookup_elem(rt->lost_fd, &k, v))
		for (int i = 0; i < n; i++)
			sum += v[i];
	free(v);
	return sum;
}

/*
 * An exit() whose record a full ring buffer lost still ends the run: the program
 * also marks it in the lost map (key 1), looked at after BEGIN and every 200 ms
 */
static void exit_marked(struct rt *rt)
{
	int n = rt->out.ncpus > 0 ? rt->out.ncpus : 1;
	uint64_t *v = calloc(n, sizeof(uint64_t));
	uint32_t k = 1;

	if (v && !rt->exiting && rt->lost_fd >= 0 && !bpf_map_lookup_elem(rt->lost_fd, &k, v))
		for (int i = 0; i < n && !rt->exiting; i++)
			if (v[i] >> 32) {
				ring_buffer__consume(rt->rb);	/* its record, when it was not lost, sets the code */
				if (!rt->exiting)
					rt->prog->exit_code = (int)(v[i] & 0xff);
				rt->exiting = true;
			}
	free(v);
}

int runtime__test_run(struct ap_inst *in, uint32_t *retval, char *err, size_t errlen)
{
	uint64_t args[8] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));
	int rc = bpf_prog_test_run_opts(in->prog_fd, &opts);

	if (rc) {
		snprintf(err, errlen, "cannot run %s: %s", in->name, strerror(-rc));
		return rc;
	}
	if (retval)
		*retval = opts.retval;
	return 0;
}

/*
 * A probe on many syscalls (sys_enter_*) gets one program per raw tracepoint that
 * tail-calls the instance for the syscall's number: O(1) per syscall however many
 * syscalls the probe names, and one raw tracepoint to detach.
 */
static int dispatch(struct rt *rt, struct probe *pr, bool exit_side, char *err, size_t errlen)
{
	struct ap_inst *first = NULL;
	int n = 0, pa, fd;

	for (struct ap_inst *in = pr->inst; in; in = in->next)
		if (in->sc_nr >= 0 && in->sc_exit == exit_side && in->sc_nr < 512) {
			n++;
			if (!first)
				first = in;
		}
	if (n < 2)
		return 0;
	pa = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "sonde_sc", 4, 4, 512, NULL);
	if (pa < 0) {
		snprintf(err, errlen, "cannot create a program array: %s", strerror(-pa));
		return pa;
	}
	for (struct ap_inst *in = pr->inst; in; in = in->next)
		if (in->sc_nr >= 0 && in->sc_exit == exit_side && in->sc_nr < 512) {
			uint32_t k = in->sc_nr, v = in->prog_fd;

			if (bpf_map_update_elem(pa, &k, &v, BPF_ANY) == 0)
				in->dispatched = true;
		}
	struct bpf_insn code[24];
	int i = 0;
#define I(c, d, s, o, v) (code[i++] = (struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (v) })
	I(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	if (exit_side) {
		I(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
		I(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, -8);
		I(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 8);
		I(BPF_LDX | BPF_MEM | BPF_DW, 3, 6, 0, 0);
		I(BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, 120);	/* orig_ax */
		I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_kernel);
		I(BPF_LDX | BPF_MEM | BPF_DW, 3, 10, -8, 0);
	} else {
		I(BPF_LDX | BPF_MEM | BPF_DW, 3, 6, 8, 0);
	}
	I(BPF_JMP | BPF_JGT | BPF_K, 3, 0, 4, 511);
	I(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	I(BPF_LD | BPF_DW | BPF_IMM, 2, BPF_PSEUDO_MAP_FD, 0, pa);
	I(0, 0, 0, 0, 0);
	I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_tail_call);
	I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);	/* also the target of the range check */
	I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
#undef I
	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "sonde_syscalls", "GPL", code, i, NULL);
	if (fd >= 0) {
		int lfd = bpf_raw_tracepoint_open(exit_side ? "sys_exit" : "sys_enter", fd);

		close(fd);	/* the attachment keeps it */
		fd = lfd;
	}
	if (fd < 0) {
		for (struct ap_inst *in = pr->inst; in; in = in->next)
			in->dispatched = false;
		close(pa);
		return 0;	/* each instance attaches by itself instead */
	}
	/* the first instance owns the attachment and the array: detach closes them */
	int *nf = realloc(first->fds, (first->nfds + 2) * sizeof(int));

	if (!nf) {
		close(fd);
		close(pa);
		return -ENOMEM;
	}
	first->fds = nf;
	first->fds[first->nfds++] = fd;
	first->fds[first->nfds++] = pa;
	return 0;
}

struct closer {
	int *fds;
	int n;
};

static void *close_fds(void *arg)
{
	struct closer *c = arg;

	for (int i = 0; i < c->n; i++)
		close(c->fds[i]);
	return NULL;
}

/* close every attachment; in parallel when there are many (each tracepoint close waits ~60 ms) */
/* every probe's attachments closed (in threads: closing thousands takes time); the programs stay */
static void detach_links(struct program *prog)
{
	int total = 0, k = 0;

	for (struct probe *pr = prog->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->inst; in; in = in->next)
			total += in->nfds;
	int *all = malloc((total + 1) * sizeof(int));

	if (all) {
		for (struct probe *pr = prog->probes; pr; pr = pr->next)
			for (struct ap_inst *in = pr->inst; in; in = in->next) {
				if (in->nfds)
					memcpy(all + k, in->fds, in->nfds * sizeof(int));
				k += in->nfds;
				free(in->fds);
				in->fds = NULL;
				in->nfds = 0;
			}
		int nth = total > 4 ? (total < 64 ? total : 64) : 1;
		pthread_t th[64];
		struct closer cl[64];
		int started = 0;

		for (int t = 0; t < nth; t++) {
			int lo = total * t / nth, hi = total * (t + 1) / nth;

			cl[t].fds = all + lo;
			cl[t].n = hi - lo;
			if (nth == 1 || pthread_create(&th[started], NULL, close_fds, &cl[t]))
				close_fds(&cl[t]);
			else
				started++;
		}
		for (int t = 0; t < started; t++)
			pthread_join(th[t], NULL);
		free(all);
	}
}

static void detach_all(struct program *prog)
{
	detach_links(prog);
	for (struct probe *pr = prog->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->inst; in; in = in->next)
			provider__detach(in);
}

static int attach_probe(struct rt *rt, struct probe *pr, struct attach_ctx *actx, char *err, size_t errlen);

static bool is_uprobe(const struct probe *pr)
{
	return pr->inst && (!strcmp(pr->inst->prov->name, "uprobe") || !strcmp(pr->inst->prov->name, "uretprobe"));
}

/*
 * every probe attached, in the program's order, except uprobes: the kernel
 * runs a uprobe's consumers newest first, so those attach last to first, and
 * two probes of one function run in the program's order, as bpftrace's do
 */
static int attach_all(struct rt *rt, struct program *prog, struct attach_ctx *actx, char *err, size_t errlen)
{
	int rc = 0, nup = 0;

	for (struct probe *pr = prog->probes; pr && !rc; pr = pr->next)
		if (is_uprobe(pr))
			nup++;
		else
			rc = attach_probe(rt, pr, actx, err, errlen);
	for (int i = nup - 1; i >= 0 && !rc; i--) {
		int k = 0;

		for (struct probe *pr = prog->probes; pr; pr = pr->next)
			if (is_uprobe(pr) && k++ == i) {
				rc = attach_probe(rt, pr, actx, err, errlen);
				break;
			}
	}
	return rc;
}

static bool is_kprobe(const struct ap_inst *in)
{
	return !strcmp(in->prov->name, "kprobe") || !strcmp(in->prov->name, "kretprobe");
}

/*
 * attach pr's instances; 0 or -errno with err. A kprobe of a probe that names
 * several kernel functions (biolatency.bt's blk_account_io_start and
 * __blk_account_io_start: a kernel has one or the other) that does not attach
 * is skipped with a warning, as bpftrace skips it, when another one attaches;
 * when none does, the first one's error is the probe's
 */
static int attach_probe(struct rt *rt, struct probe *pr, struct attach_ctx *actx, char *err, size_t errlen)
{
	struct program *prog = rt->prog;
	struct ap_inst *first = NULL;
	char **why = NULL;
	int nwhy = 0, kattached = 0, krc = 0, rc = 0;

	if (pr->never)	/* nothing it could do is worth an event's cost */
		return 0;
	for (struct ap_inst *in = pr->inst; in; in = in->next) {
		if (!in->prov->attach)
			continue;
		rc = in->prov->attach(in, actx, err, errlen);
		if (rc == -524 && in->globbed) {	/* ENOTSUPP: an instruction uprobes cannot step */
			in->skipped = true;
			provider__detach(in);
			continue;
		}
		if (rc && pr->ninst > 1 && is_kprobe(in)) {
			char **w = realloc(why, (nwhy + 1) * sizeof(*w));

			if (w) {
				why = w;
				why[nwhy++] = strdup(err);
			}
			if (!first) {
				first = in;
				krc = rc;
			}
			provider__detach(in);
			rc = 0;
			continue;
		}
		if (rc && !(rc = testbench__attach_failed(prog, in, rc, err)))	/* missing_probes */
			continue;
		if (rc)
			break;
		rt->nattached++;
		kattached += is_kprobe(in);
	}
	if (!rc && first && !kattached) {
		snprintf(err, errlen, "%s", nwhy && why[0] ? why[0] : "cannot attach the probe's kprobes");
		rc = testbench__attach_failed(prog, first, krc, err);
	} else if (!rc && first && !prog->no_warnings && prog->cfg.missing_probes != MISSING_IGNORE) {
		for (int i = 0; i < nwhy; i++)
			if (why[i])
				lang__diag(LANG_WARNING, "%s: skipped, another function of its probe is traced", why[i]);
	}
	for (int i = 0; i < nwhy; i++)
		free(why[i]);
	free(why);
	return rc;
}

/* once per wildcard: how many of its functions the kernel could not probe */
static void warn_skipped(struct program *prog)
{
	for (struct probe *pr = prog->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->inst; in; in = in->next) {
			int n = 0, total = 0;
			bool first = true;

			if (!in->skipped)
				continue;
			for (struct ap_inst *o = pr->inst; o; o = o->next)
				if (o->ap == in->ap) {
					total++;
					n += o->skipped;
				}
			for (struct ap_inst *o = pr->inst; o != in; o = o->next)
				if (o->ap == in->ap && o->skipped)
					first = false;
			if (first && !prog->no_warnings)
				lang__diag(LANG_WARNING, "'%s': %d of its %d functions cannot be probed (the kernel "
					   "refuses a uprobe there, ENOTSUPP: %s%s); the other %d are traced", in->ap->text,
					n, total, in->sym, n > 1 ? " and others" : "", total - n);
		}
}

/*
 * a program of BEGIN and END probes only, without -c: nothing could fire
 * after BEGIN, so the run ends there, as bpftrace does since 0.20 (0.17
 * waited for Ctrl-C)
 */
static bool only_begin_end(const struct program *prog, const struct run_opts *o)
{
	if (o->cpid > 0)
		return false;
	for (const struct probe *pr = prog->probes; pr; pr = pr->next)
		for (const struct ap_inst *in = pr->inst; in; in = in->next)
			if (strcmp(in->prov->name, "BEGIN") && strcmp(in->prov->name, "END"))
				return false;
	return true;
}

/* the run's callbacks for the event loop (lib/loop): each returns 1 once exit() ended the run */
/* what the BEGIN probes printed; whether one called exit() */
static void begin_output(struct rt *rt)
{
	rt->budget = 4096;	/* the events behind the header wait for the loop's turns (on_record_budget) */
	ring_buffer__consume(rt->rb);
	rt->budget = 0;
	exit_marked(rt);
	if (!rt->o->full_buffering)
		fflush(rt->o->out);
}

/*
 * the BEGIN probes; with begin_last, what they print waits in the ring buffer
 * until every probe is attached (begin_output()), ahead of the events that
 * came meanwhile: a tool's header is its first line and means "tracing"
 */
static int run_begin(struct rt *rt, char *err, size_t errlen)
{
	int rc;

	for (struct probe *pr = rt->prog->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->never ? NULL : pr->inst; in; in = in->next)
			if (!strcmp(in->prov->name, "BEGIN") && (rc = runtime__test_run(in, NULL, err, errlen)))
				return rc;
	if (!rt->o->begin_last)
		begin_output(rt);
	return 0;
}

/*
 * on_record, at most rt->budget records a turn: a program whose own output
 * makes more records (fsslower -m 0 writing to a file it traces) must not
 * keep the event loop, which reads Ctrl-C and SIGTERM, from its turn
 */
static int on_record_budget(void *ctx, void *data, size_t size)
{
	struct rt *rt = ctx;
	int rc = on_record(ctx, data, size);

	return !rc && rt->budget > 0 && --rt->budget == 0 ? -EAGAIN : rc;
}

static int rt_records(void *ctx, int fd, short revents)
{
	struct rt *rt = ctx;

	(void)fd;
	(void)revents;
	rt->budget = 4096;
	ring_buffer__consume(rt->rb);
	rt->budget = 0;
	if (!rt->o->full_buffering)	/* -B full: the buffer decides */
		fflush(rt->out.f);
	return rt->exiting;
}

static int rt_packets(void *ctx, int fd, short revents)
{
	struct rt *rt = ctx;

	(void)fd;
	(void)revents;
	skbout__consume(rt->skb);
	return rt->exiting;
}

/* the -p process has exited (its pidfd is readable) */
static int rt_target_gone(void *ctx, int fd, short revents)
{
	struct rt *rt = ctx;

	(void)fd;
	(void)revents;
	ring_buffer__consume(rt->rb);
	rt->exiting = true;
	return 1;
}

/* every 200 ms (100 without a pidfd for -p): an exit() whose record was lost, the -p process */
static int rt_tick(void *ctx, int fd, short revents)
{
	struct rt *rt = ctx;
	pid_t target = rt->o->pid > 0 && rt->o->cpid <= 0 ? rt->o->pid : 0;

	(void)fd;
	(void)revents;
	exit_marked(rt);
	if (target && rt->target_fd < 0 && !target__alive(target))
		return rt_target_gone(rt, -1, 0);
	return rt->exiting;
}

/* self:signal:SIGUSR1 probes */
static int rt_sigusr1(void *ctx, int signo, short revents)
{
	struct rt *rt = ctx;

	(void)revents;
	if (signo == SIGUSR1)
		testbench__fire_sigusr1(rt->prog);
	return rt->exiting;
}

/*
 * Run until exit(), Ctrl-C/SIGTERM/SIGHUP, the end of the -c command (ended
 * by the loop when the run ends first) or of the -p process, as bpftrace's
 * does; 0 or -errno
 */
static int loop(struct rt *rt, struct loop *l)
{
	/* -p PID: the trace ends when that process does */
	pid_t target = rt->o->pid > 0 && rt->o->cpid <= 0 ? rt->o->pid : 0;
	enum loop_end end;
	int rc;

	rt->target_fd = target ? (int)syscall(SYS_pidfd_open, target, 0) : -1;
	rc = loop__add_fd(l, ring_buffer__epoll_fd(rt->rb), POLLIN, rt_records, rt);
	if (!rc && rt->target_fd >= 0)
		rc = loop__add_fd(l, rt->target_fd, POLLIN, rt_target_gone, rt);
	if (!rc && skbout__epoll_fd(rt->skb) >= 0)	/* skboutput()'s packets */
		rc = loop__add_fd(l, skbout__epoll_fd(rt->skb), POLLIN, rt_packets, rt);
	/* without pidfds (Linux < 5.3) the target is looked for every 100 ms */
	if (!rc)
		rc = loop__set_tick(l, target && rt->target_fd < 0 ? 100 : 200, rt_tick, rt);
	if (!rc) {
		end = loop__run(l);
		rc = end == LOOP_ERROR ? l->err : 0;
		if (l->child_reaped && rt->o->child_status)
			*rt->o->child_status = l->child_status;
	}
	if (rt->target_fd >= 0)
		close(rt->target_fd);
	rt->target_fd = -1;
	return rc;
}

/*
 * The frames at the top of a raw tracepoint program's kernel stack that are not
 * the traced code: the program itself, then bpf_trace_runN and __bpf_trace_X
 * where the kernel's build keeps them as frames (6.18 here does; Debian's 6.1
 * jumps from __bpf_trace_X, which is then no frame). Counted once by sampling
 * such a stack (bpf_util.c) when a program takes kstacks in raw tracepoints;
 * 0 (nothing skipped) when it cannot be sampled.
 */
static int rawtp_glue_frames(struct program *prog, struct symbolizer *sym)
{
	uint64_t ips[8];
	int n, skip = 1;
	bool rawtp = false;

	for (struct probe *pr = prog->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->inst; in; in = in->next)
			rawtp |= in->prog_type == BPF_PROG_TYPE_RAW_TRACEPOINT;
	if (!prog->need_kstack || !rawtp || !sym || (n = bpf_rawtp__sample_stack(ips, 8)) < 2)
		return 0;
	for (; skip < n; skip++) {
		struct sym_frame f;

		if (symbolizer__resolve(sym, 0, ips[skip], true, &f, 1) != 1 || !f.sym ||
		    (strncmp(f.sym, "bpf_trace_run", 13) && strncmp(f.sym, "__bpf_trace_", 12)))
			break;
	}
	return skip < n ? skip : 0;
}

int runtime__run(struct program *prog, const struct run_opts *o, char *err, size_t errlen)
{
	struct rt rt = { .prog = prog, .o = o, .rb_fd = -1, .kstack_fd = -1, .ustack_fd = -1, .lost_fd = -1, .pids_fd = -1, .join_fd = -1, .scnames_fd = -1, .exit_fd = -1, .target_fd = -1,
		      .vars_fd = -1, .strs_fd = -1 };
	struct gen_env env = { .start_ns = util__now_ns(), .cpid = o->cpid };
	int *cpus = NULL, ncpus = 0, rc = 0, ninst = 0;
	struct loop l;
	bool loop_ready = false;
	struct bpf_code *codes;

	for (struct probe *pr = prog->probes; pr; pr = pr->next)
		ninst += pr->ninst;
	codes = calloc(ninst + 1, sizeof(*codes));
	if (!codes)
		return -ENOMEM;
	target__online_cpus(&cpus, &ncpus);
	env.ncpus = ncpus;
	rt.out.f = o->out;
	rt.out.json = o->json;
	rt.out.prog = prog;
	rt.out.ncpus = libbpf_num_possible_cpus();
	env.possible_cpus = rt.out.ncpus;
	rt.out.kstack_fd = rt.out.ustack_fd = -1;

	if (prog->need_kstack || prog->need_ustack)
		rt.out.sym = symbolizer__new(0);
	if (!o->dry_run)	/* compile only: nothing loaded, the stacks' glue not counted */
		env.rawtp_skip = rawtp_glue_frames(prog, rt.out.sym);

	int k = 0;

	for (struct probe *pr = prog->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->inst; in; in = in->next, k++) {
			if (pr->never)	/* a constant predicate turned it off: neither generated nor loaded */
				continue;
			rc = gen__probe(prog, pr, in, &env, &codes[k]);
			if (rc)
				goto out;
			if ((uint32_t)codes[k].vars_size > rt.vars_size)
				rt.vars_size = codes[k].vars_size;
			if (o->dump) {
				FILE *f = o->dry_run ? o->out : stderr;

				fprintf(f, "; %s: %d instructions, %d bytes of stack%s\n", in->name, codes[k].n, codes[k].stack,
					in->tp_btf ? " (tp_btf)" : "");
				bpf_code__dump(&codes[k], f);
			}
		}
	if (o->dry_run)
		goto out;

	rc = create_maps(&rt, err, errlen);
	if (rc)
		goto out;
	rt.out.kstack_fd = rt.kstack_fd;
	rt.out.ustack_fd = rt.ustack_fd;
	k = 0;
	rt.loader = loader__start(prog->no_warnings);	/* SIGINT, SIGTERM stop the verifier (load.c) */
	for (struct probe *pr = prog->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->inst; in; in = in->next, k++) {
			if (pr->never)
				continue;
			loader__what(rt.loader, in->name);
			rc = load(&rt, in, &codes[k], err, errlen);
			if (rc && rc != -EINTR && in->tp_btf) {	/* refused as tp_btf: as a raw tracepoint */
				in->tp_btf_refused = true;
				bpf_code__free(&codes[k]);
				rc = gen__probe(prog, pr, in, &env, &codes[k]);
				if (!rc)
					rc = load(&rt, in, &codes[k], err, errlen);
			}
			if (rc)
				goto loaded;
		}
loaded:
	if ((rt.interrupted = loader__stop(rt.loader))) {
		rc = -EINTR;
		snprintf(err, errlen, "interrupted by %s while the kernel verified the programs",
			 rt.interrupted == SIGINT ? "SIGINT" : "SIGTERM");
		if (o->interrupted)
			*o->interrupted = rt.interrupted;
	}
	rt.loader = NULL;
	if (rc)
		goto out;
	rt.rb = ring_buffer__new(rt.rb_fd, on_record_budget, &rt, NULL);
	if (!rt.rb) {
		rc = -errno;
		snprintf(err, errlen, "cannot read the ring buffer: %s", strerror(errno));
		goto out;
	}
	if (rt.skb && (rc = skbout__start(rt.skb, err, errlen)))
		goto out;
	if (o->probe_only) {	/* sonde tools: attach everything once, run nothing */
		struct attach_ctx actx = { .pid = -1, .cpus = cpus, .ncpus = ncpus, .rb = rt.rb };

		char why[512];

		for (struct probe *pr = prog->probes; pr && !rc; pr = pr->next)
			for (struct ap_inst *in = pr->never ? NULL : pr->inst; in && !rc; in = in->next) {
				if (!in->prov->attach || !(rc = in->prov->attach(in, &actx, why, sizeof(why))))
					continue;
				snprintf(err, errlen, "%s", why);
				if (!(rc = testbench__attach_failed(prog, in, rc, why)) && o->skipped)
					(*o->skipped)++;
			}
		goto out_detach;
	}
	if (prog->mode != MODE_RUN) {	/* --test, --bench: sonde runs the probes itself */
		struct tb_io io = { .rb = rt.rb, .out = &rt.out.f, .exiting = &rt.exiting, .errors = &rt.nerrors,
				    .json = o->json };

		if (o->quiet)
			;
		else if (o->json)
			fprintf(o->out, "{\"type\": \"attached_probes\", \"data\": {\"probes\": %d}}\n", ninst);
		else
			fprintf(o->out, "Attaching %d probe%s...\n", ninst, ninst == 1 ? "" : "s");
		rc = testbench__run(prog, &io, err, errlen);
		fflush(o->out);
		goto out;
	}
	/* from here signals are the loop's: probes are always detached and maps printed */
	rc = loop__init(&l);
	if (!rc && testbench__wants_sigusr1(prog))
		rc = loop__add_signal(&l, SIGUSR1, rt_sigusr1, &rt);
	loop_ready = !rc;
	if (rc) {
		snprintf(err, errlen, "cannot set up the event loop: %s", strerror(-rc));
		goto out_sig;
	}

	if (o->quiet)
		;
	else if (o->json)
		fprintf(o->out, "{\"type\": \"attached_probes\", \"data\": {\"probes\": %d}}\n", ninst);
	else
		fprintf(o->out, "Attaching %d probe%s...\n", ninst, ninst == 1 ? "" : "s");
	fflush(o->out);

	/* BEGIN runs before the other probes are attached, as in bpftrace (a tool's output, after) */
	if ((rc = run_begin(&rt, err, errlen)))
		goto out_sig;

	struct attach_ctx actx = { .pid = o->pid > 0 ? o->pid : -1, .cpus = cpus, .ncpus = ncpus, .rb = rt.rb };

	if (!rt.exiting) {
		for (struct probe *pr = prog->probes; pr; pr = pr->next)
			if (!pr->never && ((rc = dispatch(&rt, pr, false, err, errlen)) ||
					   (rc = dispatch(&rt, pr, true, err, errlen))))
				goto out_detach;
		if ((rc = attach_all(&rt, prog, &actx, err, errlen)))
			goto out_detach;
		warn_skipped(prog);
		if (o->notify_attached) {
			fputs("__BPFTRACE_NOTIFY_PROBES_ATTACHED\n", o->out);
			fflush(o->out);
		}
		if (o->begin_last)
			begin_output(&rt);
		if (o->start_child && (rc = o->start_child(o->child_ctx))) {
			snprintf(err, errlen, "cannot run the command: %s", strerror(-rc));
			goto out_detach;
		}
		if (o->cpid > 0)
			loop__set_child(&l, o->cpid);
		rc = iter__drive(prog, rt.rb, &rt.out, err, errlen);	/* an iterator runs, or is pinned, and that is all */
		if (rc < 0)
			goto out_detach;
		if (!rc && !rt.exiting && !only_begin_end(prog, o) && (rc = loop(&rt, &l))) {
			snprintf(err, errlen, "the event loop failed: %s", strerror(-rc));
			goto out_detach;
		}
		rc = 0;
	}
	/*
	 * the probes detached, as bpftrace does before END: what END clears stays
	 * cleared (runqlat.bt's @qtime); then END, the last records, the maps
	 */
	detach_links(prog);
	/*
	 * the probes' records still in the ring buffer first (with -c the loop may end at the
	 * command's exit before it read the exit() record): read after END's, an exit() record
	 * would drop END's lines as records after exit()
	 */
	ring_buffer__consume(rt.rb);
	skbout__consume(rt.skb);
	out__lines_flush(&rt.out);	/* the events' lines, then END's */
	rt.exiting = false;
	for (struct probe *pr = prog->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->never ? NULL : pr->inst; in; in = in->next)
			if (!strcmp(in->prov->name, "END"))
				runtime__test_run(in, NULL, err, errlen);
	ring_buffer__consume(rt.rb);
	skbout__consume(rt.skb);
	out__lines_flush(&rt.out);
	out__rows_flush(&rt.out);
	rt.exiting = true;
	if (!prog->cfg.no_print_maps)
		out__all_maps(&rt.out);
	fflush(o->out);
	uint64_t lost = lost_events(&rt, 0);

	if (lost && !prog->no_warnings)
		lang__diag(LANG_WARNING, "%llu events lost: the output ring buffer was full (printf faster "
			   "than the terminal reads; config = { perf_rb_pages = N } makes it bigger)", (unsigned long long)lost);
	/*
	 * the perf buffer says what it lost in a record before the next sample on that CPU's
	 * ring, if one comes: the program's own count of bpf_skb_output's -ENOSPC is complete
	 */
	lost = skbout__lost(rt.skb);
	if (rt.skb && lost_events(&rt, 2) > lost)
		lost = lost_events(&rt, 2);
	if (lost && !prog->no_warnings)
		lang__diag(LANG_WARNING, "%llu packets lost: skboutput()'s perf buffer was full "
			   "(config = { perf_rb_pages = N } makes it bigger)", (unsigned long long)lost);
out_detach:
	detach_all(prog);
out_sig:
	if (loop_ready) {
		loop__fini(&l);	/* a -c command still running (exit() came first) is ended and reaped */
		if (l.child_reaped && o->child_status)
			*o->child_status = l.child_status;
	}
out:
	out__lines_flush(&rt.out);
	out__rows_flush(&rt.out);	/* an error ended the run inside a sorted loop */
	for (int i = 0; i < ninst; i++)
		bpf_code__free(&codes[i]);
	free(codes);
	free(cpus);
	if (rt.rb)
		ring_buffer__free(rt.rb);
	for (struct probe *pr = prog->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->inst; in; in = in->next)
			provider__detach(in);
	for (struct mapinfo *m = prog->maps; m; m = m->next)
		if (m->fd >= 0) {
			close(m->fd);
			m->fd = -1;
		}
	if (rt.rb_fd >= 0)
		close(rt.rb_fd);
	if (rt.kstack_fd >= 0)
		close(rt.kstack_fd);
	if (rt.ustack_fd >= 0)
		close(rt.ustack_fd);
	if (rt.lost_fd >= 0)
		close(rt.lost_fd);
	if (rt.pids_fd >= 0)
		close(rt.pids_fd);
	if (rt.join_fd >= 0)
		close(rt.join_fd);
	if (rt.scnames_fd >= 0)
		close(rt.scnames_fd);
	if (rt.vars_fd >= 0)
		close(rt.vars_fd);
	if (rt.strs_fd >= 0)
		close(rt.strs_fd);
	if (rt.exit_fd >= 0)
		close(rt.exit_fd);
	if (rt.skb) {	/* the pcap files: a write error is the run's error */
		char werr[512];
		int e = skbout__free(rt.skb, werr, sizeof(werr));

		if (e && !rc) {
			rc = e;
			snprintf(err, errlen, "%s", werr);
		}
	}
	free(rt.out.pids);
	if (rt.out.sym)
		symbolizer__free(rt.out.sym);
	if (rc && prog->err && !err[0])
		snprintf(err, errlen, "%s", prog->err);
	return rc;
}
