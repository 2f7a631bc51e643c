// SPDX-License-Identifier: GPL-2.0
/*
 * helpcheck.c - bpftrace's -k and -kk: after a BPF helper call that can fail,
 * a negative return value sends a record (REC_HELPER_ERR: the call site, then
 * the value) and the runtime prints, as bpftrace 0.17 does on stdout,
 *
 *   stdin:1:18-31: WARNING: Failed to map_delete_elem: No such file or directory (-2)
 *   BEGIN { @a[1]=1; delete(@a[2]); exit(); }
 *                    ~~~~~~~~~~~~~
 *
 * -k checks map updates and deletes, get_stackid() and signal(); -kk also the
 * probe_read family (str(), buf(), *p...). The code generator names the
 * source range in g->kloc/g->kend while it generates what it covers.
 */
#include "lang/gen_int.h"
#include "lang/output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *helper_name(int id, bool *read)
{
	static const struct { int id; const char *name; bool read; } tab[] = {
		{ BPF_FUNC_map_update_elem, "map_update_elem", false },
		{ BPF_FUNC_map_delete_elem, "map_delete_elem", false },
		{ BPF_FUNC_get_stackid, "get_stackid", false },
		{ BPF_FUNC_send_signal, "send_signal", false },
		{ BPF_FUNC_send_signal_thread, "send_signal_thread", false },
		{ BPF_FUNC_probe_read, "probe_read", true },
		{ BPF_FUNC_probe_read_str, "probe_read_str", true },
		{ BPF_FUNC_probe_read_user, "probe_read_user", true },
		{ BPF_FUNC_probe_read_kernel, "probe_read_kernel", true },
		{ BPF_FUNC_probe_read_user_str, "probe_read_user_str", true },
		{ BPF_FUNC_probe_read_kernel_str, "probe_read_kernel_str", true },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].id == id) {
			*read = tab[i].read;
			return tab[i].name;
		}
	return NULL;
}

/* the text of source line `line` (not NUL-terminated): its length in *len */
static const char *src_line(const struct program *p, int line, int *len)
{
	const char *s = p->src, *e = p->src + p->srclen;

	for (int l = 1; l < line && s < e; s++)
		if (*s == '\n')
			l++;
	const char *q = memchr(s, '\n', e - s);

	*len = (int)((q ? q : e) - s);
	return s;
}

/*
 * bpftrace 0.17's lexer starts a token's location after the blank before it,
 * so "@a[3]=3" names "@a[3]=" for the '=': follow it
 */
static int start_col(const struct program *p, struct loc at)
{
	int len, col = at.col;
	const char *s = src_line(p, at.line, &len);

	while (col > 1 && col - 2 < len && s[col - 2] != ' ' && s[col - 2] != '\t')
		col--;
	return col;
}

/* scan the line from `at` to the end of the call (close) or of the statement */
static int scan_end(struct gen *g, struct loc at, bool call)
{
	int len, depth = 0, last = at.col + at.len;
	const char *s = src_line(g->prog, at.line, &len);
	bool quote = false;

	for (int i = at.col - 1; i >= 0 && i < len; i++) {
		char ch = s[i];

		if (quote) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				quote = false;
			last = i + 2;
			continue;
		}
		if (ch == '"') {
			quote = true;
		} else if (ch == '(' || ch == '[' || ch == '{') {
			depth++;
		} else if (ch == ')' || ch == ']' || ch == '}') {
			if (depth == 0)
				return last;
			if (--depth == 0 && call && ch == ')')
				return i + 2;
		} else if (ch == ';' && depth == 0) {
			return last;
		}
		if (ch != ' ' && ch != '\t')
			last = i + 2;
	}
	return last;
}

int g_kloc_call_end(struct gen *g, struct loc at)
{
	return scan_end(g, at, true);
}

int g_kloc_stmt_end(struct gen *g, struct loc at)
{
	return scan_end(g, at, false);
}

/* the site of this helper at g->kloc: one per place and helper, shared by a probe's instances */
static int hcheck_site(struct gen *g, int helper)
{
	struct program *p = g->prog;
	struct loc at = g->kloc;
	int start = start_col(p, at);

	for (int i = 0; i < p->nsites; i++) {
		const struct fmtsite *s = p->sites[i];

		if (s->kind == REC_HELPER_ERR && s->top == helper && s->loc.line == at.line && s->loc.col == start &&
		    s->div == g->kend)
			return i;
	}
	struct fmtsite *s = arena__alloc(p->arena, sizeof(*s));

	if (!s)
		return -1;
	s->kind = REC_HELPER_ERR;
	s->top = helper;
	s->loc = at;
	s->loc.col = start;
	s->div = g->kend > start ? g->kend : start + 1;
	s->size = 16;
	return lang__add_site(p, s);
}

void g_hcheck(struct gen *g)
{
	int level = g->prog->cfg.helper_check;
	bool read;

	if (!level || g->fail || !g->c->n || !g->kend)
		return;
	int helper = g->c->insns[g->c->n - 1].imm;

	if (!helper_name(helper, &read) || (read && level < 2))
		return;
	int site = hcheck_site(g, helper);

	if (site < 0) {
		g->fail = true;
		return;
	}
	int ok = g_emit(g, JMP_IMM(BPF_JSGE, R0, 0, 0));
	int mark = g->sp, rec = g_slot(g, 16, g->kloc);

	g_emit(g, ST(BPF_W, FP, rec, REC_HELPER_ERR));
	g_emit(g, ST(BPF_W, FP, rec + 4, site));
	g_emit(g, STX(BPF_DW, FP, R0, rec + 8));
	g_send(g, rec, 16);
	g_emit(g, LDX(BPF_DW, R0, FP, rec + 8));	/* the caller may still look at what the helper returned */
	g->sp = mark;
	g_patch(g, ok);
}

char *out__helper_error(struct out *o, const struct program *p, const struct fmtsite *s, long long ret)
{
	bool read;
	const char *name = helper_name((int)s->top, &read);
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);

	if (!f)
		return NULL;
	if (o->json) {
		fprintf(f, "{\"type\": \"helper_error\", \"helper\": \"%s\", \"retcode\": %lld, \"line\": %d, \"col\": %d}\n",
			name ? name : "unknown", ret, s->loc.line, s->loc.col);
	} else {
		int len;
		const char *line = src_line(p, s->loc.line, &len);

		fprintf(f, "%s:%d:%d-%d: WARNING: Failed to %s: %s (%lld)\n%.*s\n%*s", p->file, s->loc.line, s->loc.col,
			(int)s->div, name ? name : "unknown", strerror((int)-ret), ret, len, line, (int)s->loc.col - 1, "");
		for (long long i = s->loc.col; i < s->div; i++)
			fputc('~', f);
		fputc('\n', f);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
