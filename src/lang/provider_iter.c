// SPDX-License-Identifier: GPL-2.0
/*
 * provider_iter.c - iter:task, iter:task_file, iter:task_vma (short name it:):
 * BPF iterators. The program is a BPF_PROG_TYPE_TRACING one loaded with
 * expected attach type BPF_TRACE_ITER against the kernel's bpf_iter_NAME
 * function (no trampoline: the kernel calls it while a reader reads the
 * iterator), attached with a link; reading a file descriptor made from the
 * link (bpf_iter_create) runs it once per object, then once more with the
 * object NULL (the prologue returns then). `ctx` is the kernel's struct
 * bpf_iter__NAME, typed from BTF. printf writes into the iterator's own output
 * through bpf_seq_printf (its format in a frozen read-only map), so a pinned
 * iterator (iter:task:PIN, under /sys/fs/bpf) prints whenever its pin is read
 * after sonde is gone. The pin is made last, after everything else attached,
 * and never over an existing file: sonde removes nothing it did not create.
 */
#include "lang/gen_int.h"
#include "lib/bpf/bpf_util.h"
#include "lang/ktypes.h"
#include "lang/output.h"
#include "lang/provider_iter.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

static const char *const kinds[] = { "task", "task_file", "task_vma" };
/* the member of struct bpf_iter__NAME that is NULL on the last call */
static const char *const objs[] = { "task", "file", "vma" };

/* printf formats of the iterator program, laid end to end in one read-only map */
static char *fmts;
static size_t fmtlen;
static int fmt_fd = -1;
/* the stack slot of the program being generated that holds the iterated object (checked non-NULL) */
static int obj_slot;

static int kind_of(const char *name)
{
	for (int i = 0; i < 3; i++)
		if (name && !strcmp(name, kinds[i]))
			return i;
	return -1;
}

static bool is_iter(const struct ap_inst *in)
{
	return in && in->prov && !strcmp(in->prov->name, "iter");
}

int iter__expand(struct program *prog, struct probe *pr, struct attach *ap, struct ap_inst ***tail)
{
	char name[64], err[256], path[4096];
	int k = kind_of(ap->a), fid, proto;

	if (k < 0) {
		lang__error(prog, ap->loc, "iter probes are iter:task, iter:task_file or iter:task_vma (optionally "
			    "with :PIN, a file under /sys/fs/bpf)");
		return -EINVAL;
	}
	if (ap->c || (ap->b && !*ap->b)) {
		lang__error(prog, ap->loc, "an iter probe is written iter:%s or iter:%s:PIN", ap->a, ap->a);
		return -EINVAL;
	}
	for (struct probe *o = prog->probes; o; o = o->next)
		for (struct attach *a = o->aps; a; a = a->next)
			if (a != ap && strcmp(a->prov, "BEGIN") && strcmp(a->prov, "END")) {
				lang__error(prog, ap->loc, "an iter probe runs alone: it cannot be mixed with other probes "
					    "(BEGIN and END aside)");
				return -EINVAL;
			}
	if (!ktypes__btf(prog, err, sizeof(err))) {
		lang__error(prog, ap->loc, "%s", err);
		return -ENOENT;
	}
	snprintf(name, sizeof(name), "bpf_iter_%s", ap->a);
	if (ktypes__func(prog, name, &fid, &proto)) {
		lang__error(prog, ap->loc, "this kernel has no %s iterator (no %s in its BTF)", ap->a, name);
		return -ENOENT;
	}
	snprintf(name, sizeof(name), "iter:%s", ap->a);
	struct ap_inst *in = provider__new_inst(prog, pr, ap, tail, name);

	in->attach_btf_id = fid;
	in->sym = kinds[k];
	if (ap->b) {
		if (ap->b[0] == '/')
			snprintf(path, sizeof(path), "%s", ap->b);
		else
			snprintf(path, sizeof(path), "/sys/fs/bpf/%s", ap->b);
		in->path = arena__strndup(prog->arena, path, strlen(path));
	}
	return 0;
}

int iter__attach(struct ap_inst *in, const struct attach_ctx *ctx, char *err, size_t errlen)
{
	int fd = bpf_link_create(in->prog_fd, 0, BPF_TRACE_ITER, NULL);

	(void)ctx;
	if (fd < 0) {
		snprintf(err, errlen, "cannot attach '%s': %s", in->name, strerror(-fd));
		return fd;
	}
	if (fmt_fd >= 0) {	/* the instance owns the formats' map from now on */
		provider__add_fd(in, fmt_fd);
		fmt_fd = -1;
	}
	return provider__add_fd(in, fd);	/* the link: last */
}

/* run the iterator (or pin it): 1 when the program had one, 0 when not, -errno with err */
/* text the iterator wrote: as it is, or (json) one printf event a line */
static void emit(struct out *o, char *buf, size_t *len, bool all)
{
	size_t start = 0;

	if (!o->json) {
		fwrite(buf, 1, *len, o->f);
		*len = 0;
		return;
	}
	for (size_t i = 0; i < *len; i++)
		if (buf[i] == '\n' || (all && i + 1 == *len)) {
			char *line = strndup(buf + start, i + 1 - start);

			if (line)
				out__printf(o, line);
			free(line);
			start = i + 1;
		}
	memmove(buf, buf + start, *len - start);
	*len -= start;
}

int iter__drive(struct program *prog, struct ring_buffer *rb, struct out *o, char *err, size_t errlen)
{
	FILE *out = o->f;

	for (struct probe *pr = prog->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->inst; in; in = in->next) {
			char buf[8192];
			size_t have = 0;
			ssize_t n;
			int it;

			if (!is_iter(in) || !in->nfds)
				continue;
			int link = in->fds[in->nfds - 1];

			if (in->path) {
				struct stat st;

				if (!lstat(in->path, &st)) {
					snprintf(err, errlen, "cannot pin '%s' to %s: the file exists (sonde removes nothing "
						 "it did not create)", in->name, in->path);
					return -EEXIST;
				}
				if (bpf_obj_pin(link, in->path)) {
					int e = errno;
					char dir[4096];
					struct statfs sf;

					snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(in->path, '/') - in->path + 1),
						 in->path);
					if (!statfs(dir, &sf) && sf.f_type != BPF_FS_MAGIC) {
						snprintf(err, errlen, "cannot pin '%s' to %s: %s is not a BPF file system "
							 "(mount -t bpf bpf %s)", in->name, in->path, dir, dir);
						return -e;
					}

					snprintf(err, errlen, "cannot pin '%s' to %s: %s%s", in->name, in->path, strerror(e),
						 e == EPERM || e == EINVAL ? " (pins live in a BPF file system: /sys/fs/bpf)" :
						 "");
					return -e;
				}
				fprintf(out, "Program pinned to %s\n", in->path);
				return 1;
			}
			it = bpf_iter_create(link);
			if (it < 0) {
				snprintf(err, errlen, "cannot run '%s': %s", in->name, strerror(errno));
				return -errno;
			}
			while ((n = read(it, buf + have, sizeof(buf) - have)) > 0 || (n < 0 && errno == EINTR)) {
				if (n > 0) {
					have += (size_t)n;
					emit(o, buf, &have, have == sizeof(buf));	/* a full buffer: a line that long goes as it is */
				}
				ring_buffer__consume(rb);
			}
			int e = n < 0 ? errno : 0;

			emit(o, buf, &have, true);

			close(it);
			ring_buffer__consume(rb);
			fflush(out);
			if (e) {
				snprintf(err, errlen, "reading '%s' failed: %s", in->name, strerror(e));
				return -e;
			}
			return 1;
		}
	return 0;
}

/* `ctx`: a pointer to the kernel's struct bpf_iter__NAME; elsewhere the context's address, untyped (as 0.17's) */
struct type iter__ctx(struct program *p, struct ap_inst *in, struct node *n)
{
	char name[64], err[256];
	struct type t = { .kind = TY_NONE };
	struct type *to;
	int id;

	if (!in || !is_iter(in)) {	/* a cast gives it a type: ((struct x *)ctx)->x */
		t.kind = TY_INT;
		t.size = 8;
		t.bits = 64;
		return t;
	}
	snprintf(name, sizeof(name), "struct bpf_iter__%s", in->sym);
	id = ktypes__find(p, name);
	to = arena__alloc(p->arena, sizeof(*to));
	if (id <= 0 || ktypes__type(p, id, false, to, err, sizeof(err))) {
		lang__error(p, n->loc, "the kernel's BTF has no %s", name);
		return t;
	}
	t.kind = TY_INT;
	t.size = 8;
	t.bits = 64;
	t.ptr = to;
	return t;
}

/* the object is NULL on the iterator's last call: return at once */
void iter__prologue(struct gen *g)
{
	char name[64];
	int id, off = 8, bo, bs, tid;

	if (!is_iter(g->in))
		return;
	snprintf(name, sizeof(name), "struct bpf_iter__%s", g->in->sym);
	id = ktypes__find(g->prog, name);
	if (id > 0)
		ktypes__member(g->prog, id, objs[kind_of(g->in->sym)], &off, &bo, &bs, &tid);
	g_emit(g, LDX(BPF_DW, R1, R6, off));
	g_push_fix(g, &g->ret, &g->nret, g_emit(g, JMP_IMM(BPF_JEQ, R1, 0, 0)));
	obj_slot = g_slot(g, 8, g->pr->loc);	/* kept there, known non-NULL, for ctx.task/file/vma */
	g_emit(g, STX(BPF_DW, FP, R1, obj_slot));
}

/*
 * ctx.NAME read straight from the context (not copied by probe_read): the
 * verifier then knows a pointer member as the kernel object it is (after a
 * NULL check), so path(ctx.file.f_path) can hand bpf_d_path a struct path.
 */
bool iter__ctx_field(struct gen *g, struct node *n)
{
	static const int sizes[] = { [1] = BPF_B, [2] = BPF_H, [4] = BPF_W, [8] = BPF_DW };
	int size;

	if (!is_iter(g->in) || g->cb || n->kind != N_FIELD || !n->l || n->l->kind != N_IDENT || n->l->op != BV_CTX ||
	    n->ty.kind != TY_INT || n->op /* a bitfield */)
		return false;
	size = n->ty.ptr ? 8 : n->ty.bits / 8;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return false;
	if (n->ty.ptr && n->s && !strcmp(n->s, objs[kind_of(g->in->sym)])) {
		g_emit(g, LDX(BPF_DW, R0, FP, obj_slot));	/* the object the prologue checked */
		return true;
	}
	g_emit(g, LDX(sizes[size], R0, R6, n->off));
	if (n->ty.ptr) {	/* PTR_TO_BTF_ID_OR_NULL until checked */
		g_emit(g, JMP_IMM(BPF_JNE, R0, 0, 1));
		g_emit(g, MOV_IMM(R0, 0));
	} else if (n->ty.sign && size < 8) {
		g_extend(g, size * 8, true);
	}
	return true;
}

/* printf's format as bpf_seq_printf takes it: flags and width, l/ll, d i u x X c s; 0 or -1 after an error */
static int seq_format(struct gen *g, struct node *fmt, struct node *args)
{
	const char *s = fmt->s;
	struct node *a = args;

	for (size_t i = 0; i < fmt->slen; i++) {
		if (s[i] != '%')
			continue;
		if (s[i + 1] == '%') {
			i++;
			continue;
		}
		size_t j = i + 1;

		while (j < fmt->slen && strchr("-+ 0123456789", s[j]))
			j++;
		int l = 0;

		while (j < fmt->slen && s[j] == 'l' && l < 2) {
			j++;
			l++;
		}
		char v = j < fmt->slen ? s[j] : 0;
		const char *why = NULL;

		if (!a)
			break;
		if (!v || !strchr("diuxXcs", v) || (v == 's' && l) || (v == 'c' && l))
			why = "in iter probes printf writes through bpf_seq_printf, which takes only flags, a width, l or "
			      "ll and d, i, u, x, X, c or s";
		else if (v == 's' && a->ty.kind != TY_STR)
			why = "in iter probes printf's %s takes a string (bpf_seq_printf reads it from the stack)";
		else if (v != 's' && a->ty.kind != TY_INT)
			why = "in iter probes printf's numbers take integers";
		if (why) {
			lang__error(g->prog, a->loc, "%s", why);
			g->fail = true;
			return -1;
		}
		a = a->next;
		i = j;
	}
	return 0;
}

bool iter__printf(struct gen *g, struct node *n)
{
	struct node *fmt = n->args, *a;
	int nargs = 0, mark = g->sp, argv, k = 0;

	if (!is_iter(g->in))
		return false;
	for (a = fmt->next; a; a = a->next)
		nargs++;
	if (nargs > 12) {	/* MAX_BPRINTF_VARARGS */
		lang__error(g->prog, n->loc, "in iter probes printf takes 12 values at most (bpf_seq_printf's limit)");
		g->fail = true;
		return true;
	}
	if (seq_format(g, fmt, fmt->next))
		return true;
	char *nf = realloc(fmts, fmtlen + fmt->slen + 1);

	if (!nf) {
		g->fail = true;
		return true;
	}
	fmts = nf;
	memcpy(fmts + fmtlen, fmt->s, fmt->slen);
	fmts[fmtlen + fmt->slen] = 0;
	size_t at = fmtlen;

	fmtlen += fmt->slen + 1;
	argv = g_slot(g, nargs ? nargs * 8 : 8, n->loc);
	for (a = fmt->next; a; a = a->next, k++) {
		if (a->ty.kind == TY_STR) {
			int s = g_slot(g, a->ty.size, a->loc);

			gen_str(g, a, s, a->ty.size);
			g_emit(g, ST(BPF_B, FP, s + a->ty.size - 1, 0));
			g_fp_addr(g, R1, s);
			g_emit(g, STX(BPF_DW, FP, R1, argv + 8 * k));
		} else {
			gen_int(g, a);
			g_emit(g, STX(BPF_DW, FP, R0, argv + 8 * k));
		}
	}
	g_emit(g, LDX(BPF_DW, R1, R6, 0));	/* ctx->meta */
	g_emit(g, LDX(BPF_DW, R1, R1, 0));	/* meta->seq */
	struct bpf_code *c = g->c;
	struct bpf_reloc *r = realloc(c->rel, (c->nrel + 1) * sizeof(*r));

	if (!r) {
		g->fail = true;
		return true;
	}
	c->rel = r;
	c->rel[c->nrel].insn = c->n;
	c->rel[c->nrel].map = MAPREF_ITERFMT;
	c->nrel++;
	g_emit(g, INSN(BPF_LD | BPF_DW | BPF_IMM, R2, BPF_PSEUDO_MAP_VALUE, 0, 0));
	g_emit(g, INSN(0, 0, 0, 0, (int)at));
	g_emit(g, MOV_IMM(R3, (int)fmt->slen + 1));
	if (nargs)
		g_fp_addr(g, R4, argv);
	else
		g_emit(g, MOV_IMM(R4, 0));
	g_emit(g, MOV_IMM(R5, nargs * 8));
	g_emit(g, CALL(BPF_FUNC_seq_printf));
	g->sp = mark;
	return true;
}

int iter__fmt_fd(void)
{
	uint32_t key = 0;

	if (fmt_fd >= 0 || !fmtlen)
		return fmt_fd;
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_RDONLY_PROG);
	fmt_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "sonde_iterfmt", 4, (uint32_t)fmtlen, 1, &o);
	if (fmt_fd >= 0 && (bpf_map_update_elem(fmt_fd, &key, fmts, BPF_ANY) || bpf_map_freeze(fmt_fd))) {
		close(fmt_fd);
		fmt_fd = -1;
	}
	free(fmts);
	fmts = NULL;
	fmtlen = 0;
	return fmt_fd;
}

void iter__list(const char *pat, void (*cb)(const char *name, void *ctx), void *ctx)
{
	struct btf *btf = bpf_util__vmlinux_btf();	/* shared: not freed */
	char name[64];

	for (int i = 0; btf && i < 3; i++) {
		snprintf(name, sizeof(name), "bpf_iter_%s", kinds[i]);
		if (btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) <= 0)
			continue;
		snprintf(name, sizeof(name), "iter:%s", kinds[i]);
		if (!pat || !fnmatch(pat, name, 0))
			cb(name, ctx);
	}
}

static void dump_printf(void *ctx, const char *fmt, va_list args)
{
	vfprintf(ctx, fmt, args);
}

/* -lv: the members of struct bpf_iter__NAME that ctx gives (meta aside) */
void iter__describe(const char *name, FILE *out)
{
	struct btf *btf = bpf_util__vmlinux_btf();	/* shared: not freed */
	struct btf_dump *d = btf ? btf_dump__new(btf, dump_printf, out, NULL) : NULL;
	char sname[64];
	int id;

	snprintf(sname, sizeof(sname), "bpf_iter__%s", strchr(name, ':') + 1);
	id = btf ? btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT) : -1;
	if (d && id > 0) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_member *m = btf_members(t);

		for (int i = 0; i < btf_vlen(t); i++, m++) {
			const char *mn = btf__name_by_offset(btf, m->name_off);
			const struct btf_type *u = btf__type_by_id(btf, m->type);
			const struct btf_member *um = m;
			int nu = 1;

			if ((!mn || !*mn) && u && btf_is_union(u)) {	/* __bpf_md_ptr: union { T *name; } */
				um = btf_members(u);
				nu = btf_vlen(u);
			}
			for (int k = 0; k < nu; k++, um++) {
				const char *un = btf__name_by_offset(btf, um->name_off);
				LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = un);

				if (!un || !*un || !strcmp(un, "meta"))
					continue;
				fputs("    ", out);
				btf_dump__emit_type_decl(d, um->type, &o);
				fputc('\n', out);
			}
		}
	}
	btf_dump__free(d);
}
