/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tool_gen.h - the tools whose program is composed from their arguments:
 * BCC's trace and argdist take probes written in BCC's own small syntax
 * ("p:c:write (arg1 == 1) \"%d bytes\", arg3"), so `sonde tool` turns each
 * into source of sonde's language and runs that (`--source` prints it).
 * stackcount and funccount shape their maps by their options and pattern.
 * tool_gen.c reads the probe specifiers and rewrites their C expressions;
 * tool_trace.c, tool_argdist.c, tool_stackcount.c and tool_funccount.c
 * write the programs. A tool says it is one with a "// generated:" line in
 * its header (src/tools/NAME.bt).
 */
#ifndef SONDE_CMD_TOOL_GEN_H
#define SONDE_CMD_TOOL_GEN_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/sbuf.h"

/*
 * The program of tool NAME for its positional arguments and its options
 * ("name" or "name=value", as tool.c passes them to the program): malloc'd, the
 * caller's to free; NULL with err (one line) when an argument does not read.
 */
char *tool_gen__program(const char *name, int npos, char *const *pos, const char *const *named, int nnamed,
			char *err, size_t errlen);

/* ---- shared by the generators ---- */

/* the composed text, the caller's to free; NULL with "out of memory" in err when a write failed */
char *tool_gen__take(struct sbuf *b, char *err, size_t errlen);
/* s[0..n) inside a string literal of the language: " and \ escaped, and % doubled when fmt (printf's) */
void tool_gen__lit(struct sbuf *b, const char *s, size_t n, bool fmt);

/* a parameter of a probe's signature, "size_t size": its name, and the cast that gives its value */
struct bcc_param {
	char name[32];
	char cast[64];		/* "uint64", "struct timespec *": sonde's spelling of the C type */
	bool string;		/* char *: a string */
};

/* BCC's probe specifier's head: TYPE:LIB:FUNC(SIGNATURE), t:CAT:EVENT, u:LIB:PROBE */
struct bcc_probe {
	char type;		/* p, r, t, u */
	bool user;		/* a library or binary was named (uprobe, uretprobe, usdt) */
	char attach[320];	/* the attach point in sonde's language */
	char func[128];		/* what BCC shows as the function: FUNC, EVENT or PROBE */
	struct bcc_param params[6];
	int nparams;
};

/*
 * Read the head of text: "[TYPE:][LIB:]FUNC[(SIGNATURE)]", up to the first space
 * (argdist: up to its own ':' separated rest, see tool_argdist.c). *end is what
 * follows. 0, or -1 with err.
 */
int bcc_probe__parse(struct bcc_probe *p, const char *text, const char **end, char *err, size_t errlen);

/* "size_t size, char *buf": the parameters, each given its argN; 0 or -1 with err */
int bcc_probe__signature(struct bcc_probe *p, const char *sig, size_t len, char *err, size_t errlen);

/* a C type name ("unsigned long", "u32", "char *", "struct file *") in sonde's spelling; NULL if unknown */
const char *bcc_type__cast(const char *ctype, char *out, size_t len, bool *string);

/*
 * A C expression of BCC's probes in sonde's language, appended to out: arg1..arg6
 * (BCC counts from 1) become arg0..arg5, the signature's names their arguments,
 * $tgid/$pid/$uid/$gid/$cpu/$task and argdist's $retval/$PID the builtins,
 * STRCMP("lit", e) a string comparison, C casts sonde's. 0, or -1 with err.
 */
int bcc_expr__rewrite(const struct bcc_probe *p, const char *expr, size_t len, struct sbuf *out, char *err,
		      size_t errlen);

/* s's top-level comma-separated pieces (not inside (), [] or ""), trimmed: at most max; how many */
int tool_gen__split(const char *s, const char **start, size_t *len, int max);

/* the option NAME among named: its value, "" for a flag, NULL when not given (the last one wins) */
const char *tool_gen__opt(const char *const *named, int nnamed, const char *name);

/* how many probes an attach point names (BCC's "Tracing N functions") */
int tool_gen__matches(const char *attach);


char *tool_gen__funccount(const char *attach, const char *const *named, int nnamed, char *err, size_t errlen);
char *tool_gen__stackcount(const char *attach, const char *const *named, int nnamed, char *err, size_t errlen);
char *tool_gen__trace(int npos, char *const *pos, const char *const *named, int nnamed, char *err, size_t errlen);
char *tool_gen__argdist(const char *const *named, int nnamed, char *err, size_t errlen);

#endif
