// SPDX-License-Identifier: GPL-2.0
/*
 * provider_fentry.c - fentry/fexit (kfunc/kretfunc) probes: BPF programs
 * attached to a kernel function through a BPF trampoline, found by its BTF
 * id. The context is the function's arguments as an array of u64 (and the
 * return value after them in fexit), typed from the function's BTF, so
 * `args.name` and `retval` need no pt_regs and no kprobes. Attaching needs
 * the kernel's ftrace direct calls (CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS);
 * where they are missing the kernel refuses the program and we say so.
 */
#include "lang/ktypes.h"
#include "lib/bpf/bpf_util.h"
#include "lang/provider.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>

enum { FENTRY_MAX_WILDCARD = 512 };

char *provider__traceable(void)
{
	static const char *paths[] = { "/sys/kernel/tracing/available_filter_functions",
				       "/sys/kernel/debug/tracing/available_filter_functions" };

	int first = 0;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		FILE *f = fopen(paths[i], "r");
		char *buf = NULL;
		size_t len = 0;

		if (!f) {
			if (!first)
				first = errno;
			continue;
		}
		FILE *m = open_memstream(&buf, &len);
		char line[512];

		if (!m) {
			fclose(f);
			return NULL;
		}
		fputc('\n', m);
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, " \t\n")] = 0;	/* "name [module]" */
			fprintf(m, "%s\n", line);
		}
		fclose(f);
		fclose(m);
		return buf;
	}
	errno = first;
	return NULL;
}

static bool in_list(const char *list, const char *name)
{
	char key[300];

	if (!list)
		return true;
	snprintf(key, sizeof(key), "\n%s\n", name);
	return strstr(list, key) != NULL;
}

static int add(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail, const char *fn,
	       int id)
{
	char name[300];

	snprintf(name, sizeof(name), "%s:%s", ap->prov, fn);
	struct ap_inst *in = provider__new_inst(prog, pr, ap, tail, name);

	in->sym = arena__strndup(prog->arena, fn, strlen(fn));
	in->attach_btf_id = id;
	return 0;
}

int fentry__expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail)
{
	const char *fn = ap->b ? ap->b : ap->a;
	char err[256];
	struct btf *btf;

	if (!fn || !*fn || ap->c) {
		lang__error(prog, ap->loc, "an %s probe is written %s:FUNCTION (or %s:vmlinux:FUNCTION)", ap->prov, ap->prov,
			    ap->prov);
		return -EINVAL;
	}
	if (ap->b && strcmp(ap->a, "vmlinux")) {
		lang__error(prog, ap->loc, "%s probes on module '%s': only the kernel's own functions (vmlinux) are "
			    "supported", ap->prov, ap->a);
		return -EOPNOTSUPP;
	}
	btf = ktypes__btf(prog, err, sizeof(err));
	if (!btf) {
		lang__error(prog, ap->loc, "%s", err);
		return -ENOENT;
	}
	if (!strpbrk(fn, "*?[")) {
		int fid, proto;

		if (ktypes__func(prog, fn, &fid, &proto)) {
			lang__error(prog, ap->loc, "the kernel has no function '%s' (none in its BTF)", fn);
			return -ENOENT;
		}
		return add(prog, pr, ap, tail, fn, fid);
	}
	char *list = provider__traceable();
	int n = 0, cnt = (int)btf__type_cnt(btf);

	for (int id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = t && btf_is_func(t) ? btf__name_by_offset(btf, t->name_off) : NULL;

		if (!name || fnmatch(fn, name, 0) || !in_list(list, name))
			continue;
		if (++n > FENTRY_MAX_WILDCARD) {
			free(list);
			lang__error(prog, ap->loc, "'%s' matches more than %d functions: narrow the pattern", fn,
				    FENTRY_MAX_WILDCARD);
			return -E2BIG;
		}
		add(prog, pr, ap, tail, name, id);
	}
	free(list);
	if (!n) {
		lang__error(prog, ap->loc, "no traceable kernel function matches '%s'", fn);
		return -ENOENT;
	}
	return 0;
}

int fentry__attach(struct ap_inst *in, const struct attach_ctx *ctx, char *err, size_t errlen)
{
	bool fexit = !strcmp(in->prov->name, "fexit");
	int fd = bpf_link_create(in->prog_fd, 0, fexit ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY, NULL);

	(void)ctx;
	if (fd < 0)
		fd = bpf_raw_tracepoint_open(NULL, in->prog_fd);
	if (fd < 0) {
		snprintf(err, errlen, "cannot attach '%s': %s%s", in->name, strerror(-fd),
			 fd == -ENOTSUP || fd == -EOPNOTSUPP || fd == -524 ?
			 " (this kernel has no BPF trampolines: no ftrace direct calls on this architecture or "
			 "configuration; use a tracepoint or a raw tracepoint)" : "");
		return fd;
	}
	return provider__add_fd(in, fd);
}

void fentry__list(const char *pat, void (*cb)(const char *name, void *ctx), void *ctx)
{
	const char *prov = !strncmp(pat, "fexit:", 6) ? "fexit" : "fentry";
	struct btf *btf = bpf_util__vmlinux_btf();	/* shared: not freed */
	char *list, name[300];

	if (!btf)
		return;
	list = provider__traceable();
	for (int id = 1; id < (int)btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *fn = t && btf_is_func(t) ? btf__name_by_offset(btf, t->name_off) : NULL;

		if (!fn || !in_list(list, fn))
			continue;
		snprintf(name, sizeof(name), "%s:%s", prov, fn);
		if (!fnmatch(pat, name, 0))
			cb(name, ctx);
	}
	free(list);
}

static void dump_printf(void *ctx, const char *fmt, va_list args)
{
	vfprintf(ctx, fmt, args);
}

/* -lv: each parameter (and fexit's retval) as C declares it */
/*
 * the parameters of a function prototype from BTF, one a line, the first skip
 * left out; with the return value for fexit. fn names a kernel function, or
 * with typedef a typedef of a pointer to the prototype (btf_trace_EVENT, whose
 * parameters have no names). False when BTF has no such name.
 */
static bool describe_func(const char *fn, bool typedef_, int skip, bool fexit, FILE *out)
{
	struct btf *btf = bpf_util__vmlinux_btf();	/* shared: not freed */
	struct btf_dump *d = btf ? btf_dump__new(btf, dump_printf, out, NULL) : NULL;
	int id = btf ? btf__find_by_name_kind(btf, fn, typedef_ ? BTF_KIND_TYPEDEF : BTF_KIND_FUNC) : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, btf__type_by_id(btf, id)->type) : NULL;

	if (t && typedef_)
		t = btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;
	if (d && t && btf_is_func_proto(t)) {
		const struct btf_param *p = btf_params(t);

		for (int i = 0; i < btf_vlen(t); i++, p++) {
			LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = btf__name_by_offset(btf, p->name_off));

			if (i < skip)
				continue;
			fputs("    ", out);
			btf_dump__emit_type_decl(d, p->type, &o);
			fputc('\n', out);
		}
		if (fexit && t->type) {
			LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = "retval");

			fputs("    ", out);
			btf_dump__emit_type_decl(d, t->type, &o);
			fputc('\n', out);
		}
	}
	btf_dump__free(d);
	return d && t && btf_is_func_proto(t);
}

void fentry__describe(const char *name, FILE *out)
{
	describe_func(strrchr(name, ':') + 1, false, 0, !strncmp(name, "fexit:", 6), out);
}

/*
 * -lv rawtracepoint:EVENT: its arguments after the probe's data, named from
 * __bpf_trace_EVENT, else (an event of a class: its function is the class's)
 * their types from the btf_trace_EVENT typedef
 */
void fentry__describe_rawtp(const char *event, FILE *out)
{
	char fn[192];

	snprintf(fn, sizeof(fn), "__bpf_trace_%s", event);
	if (describe_func(fn, false, 1, false, out))
		return;
	snprintf(fn, sizeof(fn), "btf_trace_%s", event);
	describe_func(fn, true, 1, false, out);
}

/* "struct NAME" or "union NAME" of the kernel's BTF: its id, or -1 */
int fentry__find_type(const char *name)
{
	struct btf *btf = bpf_util__vmlinux_btf();
	bool un = !strncmp(name, "union ", 6);

	if (!btf || (strncmp(name, "struct ", 7) && !un))
		return -1;
	int id = btf__find_by_name_kind(btf, name + (un ? 6 : 7), un ? BTF_KIND_UNION : BTF_KIND_STRUCT);

	return id > 0 ? id : -1;
}

/* -lv 'struct NAME': its members, as bpftrace 0.17 prints the definition */
void fentry__describe_type(const char *name, FILE *out)
{
	struct btf *btf = bpf_util__vmlinux_btf();
	int id = fentry__find_type(name);
	struct btf_dump *d = id > 0 ? btf_dump__new(btf, dump_printf, out, NULL) : NULL;

	if (!d)
		return;
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m = btf_members(t);

	fprintf(out, "%s {\n", name);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = btf__name_by_offset(btf, m->name_off));
		int bits = btf_member_bitfield_size(t, i);

		fputc('\t', out);
		btf_dump__emit_type_decl(d, m->type, &o);
		if (bits)
			fprintf(out, ": %d", bits);
		fputs(";\n", out);
	}
	fputs("};\n\n", out);
	btf_dump__free(d);
}
