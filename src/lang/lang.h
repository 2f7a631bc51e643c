/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lang.h - the probe language (bpftrace's): source -> tokens -> AST -> types ->
 * BPF instructions. Everything the front end builds (nodes, types, strings,
 * maps' descriptions) lives in the program's arena and is freed at once by
 * lang__free(); error texts are in prog->err, owned by the program.
 */
#ifndef SONDE_LANG_H
#define SONDE_LANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;

/* ---- arena ---- */
struct arena;
struct arena *arena__new(void);
void arena__free(struct arena *a);
void *arena__alloc(struct arena *a, size_t n);	/* zeroed */
char *arena__strndup(struct arena *a, const char *s, size_t n);

struct loc {
	int line, col, len;
	int exp;		/* inside the expansion of a macro: its index + 1 (macro.c), else 0 */
};

/* ---- tokens ---- */
enum tok {
	T_EOF, T_INT, T_STR, T_IDENT, T_VAR, T_MAP, T_POS, T_NPOS, T_PROBE,
	T_LBRACE, T_RBRACE, T_LPAREN, T_RPAREN, T_LBRACKET, T_RBRACKET,
	T_SEMI, T_COMMA, T_COLON, T_DOT, T_ARROW, T_QUESTION, T_DOTDOT,
	T_ASSIGN, T_ADD_ASSIGN, T_SUB_ASSIGN, T_MUL_ASSIGN, T_DIV_ASSIGN, T_MOD_ASSIGN,
	T_AND_ASSIGN, T_OR_ASSIGN, T_XOR_ASSIGN, T_SHL_ASSIGN, T_SHR_ASSIGN,
	T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT, T_INC, T_DEC,
	T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_LAND, T_LOR, T_NOT,
	T_BAND, T_BOR, T_BXOR, T_BNOT, T_SHL, T_SHR,
	T_ERROR,
};

struct token {
	enum tok t;
	struct loc loc;
	const char *s;		/* identifier / string (unescaped) / probe spec text, in the arena */
	size_t slen;
	long long i;		/* T_INT, T_POS ($1 -> 1) */
	const char *at;		/* where it starts in the source */
};

struct lexer {
	const char *src, *p, *end;
	int line;
	const char *line_start;
	int paren;
	int depth;		/* brace depth: 0 means probe specs are read as text */
	bool after_spec;	/* a probe spec was just read: '/' opens a predicate */
	bool in_attr;		/* in a struct's __attribute__((...)): its last ')' ends it */
	struct program *prog;
	int pp_depth;		/* open #if's (pp.c) */
	const char *pp_defs[128];	/* names #define'd */
	const char *pp_vals[128];	/* their values: "" for none, NULL for a function-like macro */
	int npp_defs;
	struct pp_expansion {	/* a #define's value being lexed in place of its name */
		const char *p, *end, *line_start;
		int line, def;
		struct loc loc;	/* the name's place: what the value's tokens are reported at */
	} exp[8];
	int nexp;
};

void lexer__init(struct lexer *lx, struct program *prog);
/* the next token; a lexical error is a T_ERROR after lang__error() was called */
struct token lexer__next(struct lexer *lx);
/* a preprocessor line at lx->p ('#'): consumed, with any region an #if leaves out */
void pp__directive(struct lexer *lx);
/* `#include <h>` (or "h"), [p, e) its text after the word: the header's constants become known */
void pp__include(struct program *prog, const char *p, const char *e);
/* the #define named s[0..n), its index; -1 when there is none */
int pp__lookup(const struct lexer *lx, const char *s, size_t n);
/* an #include's text after the word (` <linux/sched.h>` up to e): its #define constants become known */
void kconst__include(struct program *p, const char *s, const char *e);
/*
 * the value of the #define `name` of an included header (or of sonde's table,
 * kconst.c): 0; -ENOENT when none defines it; -EINVAL when its value (in *text,
 * the program's) is not a constant sonde computes: _IOR(...), a string
 */
int kconst__value(struct program *p, const char *name, long long *v, const char **text);

/* ---- types ---- */
enum ty_kind {
	TY_NONE, TY_VOID, TY_INT, TY_STR, TY_BUF, TY_TUPLE, TY_KSTACK, TY_USTACK,
	TY_KSYM, TY_USYM, TY_INET, TY_CTX, TY_AGG, TY_MAPREF,
	TY_STRUCT,	/* a kernel struct, union or array (BTF): its address, read member by member */
	TY_TIMESTAMP, TY_CGPATH, TY_STRERROR,	/* strftime(), cgroup_path(), strerror(): formatted in user space */
	TY_MACADDR,	/* macaddr(): 6 bytes, printed 00:1A:2B:3C:4D:5E */
	TY_ARRAY,	/* ntup integers of bits and sign (pton()'s uint8[4], casts: tuple.c): printed [127,0,0,1] */
	TY_USERNAME,	/* username: the uid (8 bytes), named in user space */
	TY_FDIV,	/* fdiv(a, b): a and b (16 bytes), divided as doubles in user space (printf's %f) */
	TY_DISKNAME,	/* disk_name(dev): a block device number (8 bytes), named from /sys in user space */
	TY_MEMINFO,	/* meminfo(): its site (8 bytes), read from /proc/meminfo in user space */
	TY_PCTL,	/* percentile(@h, q): its site (8 bytes), computed from the map in user space */
	TY_SIGNAME,	/* signal_name(n): the number (8 bytes), named by strsignal() in user space */
};

struct type {
	enum ty_kind kind;
	uint16_t size;		/* bytes it takes in a map, a record or on the stack (8-aligned) */
	bool sign;
	uint8_t bits;		/* TY_INT: 8, 16, 32, 64 (casts) */
	int ntup;
	struct type *tup;	/* TY_TUPLE fields; each at an 8-aligned offset */
	const char **names;	/* named tuple fields (records), or NULL */
	struct type *ptr;	/* TY_INT: a pointer to this type (NULL: a plain integer) */
	int btf_id;		/* TY_STRUCT: the BTF type (struct, union or array) */
	bool user;		/* TY_STRUCT, pointers: in user memory (uprobes' casts), else the kernel's */
	uint8_t smode;		/* TY_KSTACK/TY_USTACK: enum stack_mode */
	bool boolean;		/* TY_INT: upstream's bool, 0 or 1, printed false/true (bool.c says which) */
	bool enumname;		/* TY_INT of enum btf_id: print() and maps show the enumerator (a cast to an enum) */
	bool unknown;		/* TY_INT standing for a kernel-typed value of code that is not generated, its
				   BTF not parsed (check.c ck_defer_btf): live code may not read it */
};

/* how stacks print: kstack(bpftrace), kstack(perf), kstack(raw) */
/* how a stack prints: bpftrace's, perf script's, addresses; BCC's lines ("  sym"), folded (";main;f;g") */
enum stack_mode { STACK_BPFTRACE, STACK_PERF, STACK_RAW, STACK_BCC, STACK_FOLDED };

/* ---- AST ---- */
enum nk {
	N_INT, N_STR, N_IDENT, N_VAR, N_MAP, N_POS, N_NPOS, N_CALL, N_BINOP, N_UNOP,
	N_TERNARY, N_FIELD, N_INDEX, N_TUPLE, N_CAST, N_PREINC, N_POSTINC, N_SIZEOF,
	/* statements */
	N_EXPR, N_ASSIGN, N_LET, N_IF, N_WHILE, N_FOR_RANGE, N_FOR_MAP, N_UNROLL,
	N_RETURN, N_BREAK, N_CONTINUE, N_BLOCK,
	N_BLOCKEXPR,	/* { stmts; expr }: args the statements, x the value (NULL: none) */
	N_TYPE,		/* typeof(T): a type as s, ptr, i (as N_CAST's); typeof(e): e's type, l = e (macro.c) */
};

struct mapinfo;
struct var;

struct node {
	enum nk kind;
	int op;			/* enum tok of the operator */
	struct loc loc;
	struct node *l, *r, *x;
	struct node *args;	/* call arguments, tuple elements, map keys, block statements */
	struct node *next;
	const char *s;		/* name, string literal, field, cast type */
	size_t slen;
	long long i;
	bool arrow;		/* N_FIELD: '->' rather than '.' */
	int ptr;		/* N_CAST: pointer depth */
	/* filled by the type checker */
	struct type ty;
	struct mapinfo *map;
	struct var *var;
	int id;			/* builtin / function id, field index, call-site index */
	int off;		/* tracepoint field offset, pt_regs offset */
	bool tuplekey;		/* N_MAP: the keys of a map with several given as one tuple (@m[$kv.0]) */
};

struct attach {
	const char *text;	/* as written */
	struct loc loc;
	const char *prov;	/* canonical provider name: "tracepoint" */
	const char *a, *b, *c;	/* the fields after the provider */
	long long n;		/* profile/interval/software count */
	struct attach *next;
};

struct ap_inst;

struct probe {
	struct attach *aps;
	struct ap_inst *inst;	/* the attach points after expansion (provider.h) */
	int ninst;
	struct var *vars;	/* scratch variables */
	struct node *pred;
	struct node *body;	/* N_BLOCK */
	struct loc loc;
	struct probe *next;
	int index;
	bool never;		/* its predicate is a constant 0: checked, generated, never attached */
};

/* aggregations a map holds */
enum agg {
	AGG_NONE, AGG_COUNT, AGG_SUM, AGG_AVG, AGG_MIN, AGG_MAX, AGG_STATS, AGG_HIST, AGG_LHIST,
	AGG_TSERIES,	/* tseries(n, interval, count[, agg]): check_map.c, gen_map.c, output_tseries.c */
};

struct mapinfo {
	const char *name;	/* "@x", "@" */
	struct loc loc;
	int nkeys;		/* -1 until known */
	struct type key;	/* TY_TUPLE of the keys (ntup == nkeys) */
	struct type val;	/* the stored value (TY_INT for counts) */
	enum agg agg;
	long long lmin, lmax, lstep;	/* lhist */
	int bpf_type;		/* enum bpf_map_type */
	uint32_t key_size, value_size, max_entries;
	bool percpu;
	bool added;		/* a probe that runs adds keys to it (gen.c g_update) */
	bool deferred;		/* stored only in a dropped branch, a value whose kernel type the checker
				   left unknown (program.btf_deferred) */
	int index;
	int fd;
	struct mapinfo *next;
	int hist_k;		/* hist(n, k): 2^k linear buckets per power of two */
	bool keep_max;		/* percentile() reads it: keep the exact max as --percentiles does */
	long long ts_interval;	/* tseries(): nanoseconds per interval, */
	int ts_count, ts_mode;	/* intervals kept, enum ts_mode */
};

struct var {
	const char *name;
	struct type ty;
	int slot;		/* fp offset, codegen */
	struct var *next;
	bool loopvar;		/* the $kv of a for over a map: read-only */
	bool gone;		/* out of scope (after its for loop): not found by name */
	int home;		/* where it is declared: 0 the probe, N the body of its Nth for loop over a map */
	bool shared;		/* also used elsewhere (in or around a loop body): kept in a per-CPU map */
	bool xread;		/* the probe's, read (only) in loop bodies: they reach the probe's stack */
	bool declared;		/* `let $x;`: read before any assignment it is the int64 0 */
};

/* a printf/print/system/cat call site: the format and the types of the record it sends */
struct fmtsite {
	int kind;		/* enum rec_kind */
	const char *fmt;
	int nargs;
	struct type *args;	/* each at an 8-aligned offset after the 8-byte header */
	uint32_t size;		/* the whole record */
	struct mapinfo *map;	/* print(@m) */
	long long top, div;
	struct loc loc;
	int bcc;		/* REC_PRINT_MAP: 0 print(@m), BCC_LOG2/BCC_LINEAR print_log2_hist/print_linear_hist(@m) */
	const char *label, *section;	/* their units label ("usecs") and section name ("pid") */
};

enum { BCC_LOG2 = 1, BCC_LINEAR };

enum rec_kind {
	REC_PRINTF = 1, REC_EXIT, REC_PRINT_MAP, REC_PRINT_VAL, REC_CLEAR, REC_ZERO,
	REC_TIME, REC_SYSTEM, REC_CAT, REC_JOIN, REC_PID,
	REC_ASSERT,	/* assert() failed: its message to stderr, then exit with 1 */
	REC_UNWATCH,	/* unwatch(addr): the address at offset 8 */
	REC_ERRORF, REC_WARNF,	/* a printf record whose text goes to stderr; an errorf() fails a test: probe */
	REC_SKBOUTPUT,	/* not a record: a skboutput() call site (fmt: the pcap path, top: the offset) */
	REC_HELPER_ERR,	/* -k: a BPF helper failed (helpcheck.c): the site, then its return value at offset 8 */
	REC_ROWS_BEGIN, REC_ROW, REC_ROWS_END,	/* a sorted for loop's output (sortloop.c, output_rows.c) */
};
/* a record's first word: the kind, and for printf/join of a program with partial lines the thread */
#define REC_KIND_MASK 0xffu
#define REC_TID_SHIFT 8

/* a C struct or union the script defines (bpftrace's `struct x { int a; char *b; };`), laid out in ktypes.c */
struct cfield {
	const char *type;	/* "unsigned long", "struct load_weight", "u64" */
	int ptr;		/* '*'s */
	int nelem;		/* [N], or -1 */
	int bits;		/* a bitfield's width, or 0 */
	const char *name;
	struct loc loc;
	struct cfield *next;
};

struct cstruct {
	const char *name;	/* "struct foo" */
	bool is_union, packed;	/* packed, aligned: __attribute__((packed, aligned(N))) after the body */
	int aligned;
	struct cfield *fields;
	struct loc loc;
	int btf_id;		/* once laid out */
	struct cstruct *next;
};

/* macro NAME(params) { body }: params are N_VAR ($x), N_MAP (@m) or N_IDENT (x) nodes */
struct macrodef {
	const char *name;
	struct loc loc;		/* the name */
	struct node *params;
	int nparams;
	struct node *body;	/* N_BLOCKEXPR: x is NULL when its last statement ends with ';' */
	struct macrodef *next;
};

/* a macro call replaced by the macro's body, for messages about the body */
struct expansion {
	const struct macrodef *m;
	struct loc call;	/* where it was called (itself maybe inside another expansion) */
};

struct config {
	int max_strlen;		/* bytes of str() (bpftrace 0.17: 64) */
	int stack_depth;	/* frames kept for kstack/ustack */
	int max_map_keys;
	bool unsafe;
	int stack_mode;		/* enum stack_mode of kstack/ustack without one */
	bool no_print_maps;	/* print_maps_on_exit = false */
	const char *license;	/* "GPL" unless config says otherwise */
	int missing_probes;	/* enum missing_probes: a probe that does not exist or cannot attach */
	const char *trunc_trailer;	/* str_trunc_trailer: after a string str() filled ("": none, as in 0.17) */
	int unstable_addr;	/* enum unstable: the address-of operator '&' (addr.c) */
	int unstable_tseries;	/* tseries(): 0 warn (upstream's default), 1 enable, 2 error */
	int perf_rb_pages;	/* skboutput()'s perf buffer: pages per CPU (a power of two), 0: the default */
	int max_cat_bytes;	/* cat() prints at most this much of a file (0.17's and upstream's 10240) */
	int helper_check;	/* -k: warn when a map update/delete, get_stackid or signal fails; -kk: reads too */
	bool percentiles;	/* --percentiles: hist/lhist maps keep an exact max, printed with p50..p999 */
	const char *dummy_ts_map;	/* "@ts": tseries() takes its time (ns) from this scalar map, not the clock */
};

/* --percentiles: the bucket index of a hist/lhist key's entry holding its exact max (gen_call.c) */
#define HIST_MAX_BUCKET 0xffffffffffffffffULL

/* an unstable feature's config (unstable_addr = warn, the default; error; enable) */
enum unstable { UNSTABLE_WARN, UNSTABLE_ERROR, UNSTABLE_ENABLE, UNSTABLE_WARNED };

enum missing_probes { MISSING_ERROR, MISSING_WARN, MISSING_IGNORE };

/* which probes run: the program's (test: and bench: left out), or only its test: or bench: probes */
enum run_mode { MODE_RUN, MODE_TEST, MODE_BENCH };
struct optdecl;

struct program {
	struct arena *arena;
	const char *file;	/* "stdin" / the script's path, for messages */
	const char *src;
	size_t srclen;
	struct probe *probes;
	int nprobes;
	struct mapinfo *maps;
	int nmaps;
	struct fmtsite **sites;
	int nsites, capsites;
	int nstack_maps;	/* kstack/ustack maps wanted: 1 each (index 0 kernel, 1 user) */
	bool need_kstack, need_ustack, need_join, need_scnames, need_exit;	/* need_exit: exit() stops the probes */
	bool errno_names;	/* the script #includes errno.h: EPERM, ENOENT... are known (check.c) */
	bool syscall_names;	/* it #includes syscall.h or asm/unistd.h: __NR_read, SYS_read too */
	struct kconst *kconst;	/* the headers it #includes, for their #define constants (kconst.c) */
	const char **params;	/* positional parameters $1.. */
	int nparams;
	struct config cfg;
	struct btf *btf;	/* the kernel's types, loaded on first use (ktypes.h) */
	struct btf *btf_base;	/* with script structs: the kernel's, which btf extends */
	bool btf_tried;
	bool btf_own;		/* btf is ours to add to (split from the kernel's, or alone) */
	bool btf_deferred;	/* the checker left kernel types of a dropped branch unknown (no BTF parsed
				   yet): when it fails, compile again with the BTF */
	void *dwcache;		/* DWARF types already made BTF (dwargs.c) */
	struct cstruct *cstructs;	/* the script's own struct definitions, in order */
	char *err;		/* the first error, formatted with the source line and a caret */
	char *warn;		/* warnings, one per line (the caller prints them) */
	int nerr;
	struct macrodef *macros;	/* macro definitions, in source order (parse.c) */
	struct expansion *exps;		/* every macro call expanded (macro.c) */
	int nexps, capexps;
	const char **named;	/* named parameters given after --, without the "--": "aa=20", "bb" */
	int nnamed;
	struct optdecl *optdecls;	/* the getopt() options the program declares (getopt.c) */
	int mode;		/* enum run_mode */
	const char *probe_filter;	/* --probe-filter REGEX: only the probes it finds in their names (and BEGIN, END) */
	bool no_warnings;	/* --no-warnings */
	int exit_code;		/* exit(CODE)'s, or under --test 1 when a test failed (testbench.c) */
	int strs_scratch;	/* bytes of the per-CPU scratch value globmatch/strstr need (gen_str.c), or 0 */
	bool need_stack_len;	/* len() of a stored stack: stack values carry their depth (check_map.c) */
};

/* parse src (not copied: keep it alive) into a program; 0 or -EINVAL with prog->err */
struct program *lang__new(const char *file, const char *src, size_t len);
int lang__parse(struct program *p);
/* type check and give every map and call site its layout; 0 or -EINVAL with prog->err */
int lang__check(struct program *p);
void lang__free(struct program *p);
/* replace every macro call by the macro's body (between parse and check); 0 or -EINVAL with prog->err */
int lang__expand_macros(struct program *p);
/* the notes saying which macro calls an error at loc comes from (appended to *msg, malloc'ed) */
void macro__explain(struct program *p, struct loc loc, char **msg);

/*
 * How deep a program may nest: parentheses, prefix operators and blocks inside
 * each other (the parser's bound), and its syntax tree, a chain of binary
 * operators included (lang__depth()'s). Every pass recurses along the tree.
 */
enum { LANG_MAX_NEST = 200, LANG_MAX_DEPTH = 2000 };
/* 0 when no probe's tree is deeper than LANG_MAX_DEPTH, else -EINVAL with prog->err at the deepest node */
int lang__depth(struct program *p);

/* record an error at loc (only the first is kept) */
void lang__error(struct program *p, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* add a warning about loc (file:line:col: warning: ...) */
void lang__warn(struct program *p, struct loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Messages that are not about a place in the program (lost events, a probe
 * skipped, a file cat() cannot open): src/lang hands them to the function the
 * command installed (its error() and warning(), src/diag.c), as "what: why"
 * without "sonde:" or a newline. Without one they go to stderr as diag.c
 * writes them.
 */
enum lang_diag { LANG_ERROR, LANG_WARNING };
void lang__set_diag(void (*fn)(enum lang_diag kind, const char *msg));
void lang__diag(enum lang_diag kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* the provider's canonical name for a spelling ("t" -> "tracepoint"), or NULL */
const char *lang__provider_name(const char *s, size_t n);
/* one config key (config block or BPFTRACE_* environment): NULL when set, else why not */
const char *lang__config(struct program *prog, const char *key, const char *val, bool isnum, long long num);
/* the BPFTRACE_* environment variables, which override the config block, as in bpftrace; 0 or -EINVAL */
int lang__config_env(struct program *prog, char **environ);

/* a site for the runtime to format a record with */
int lang__add_site(struct program *p, struct fmtsite *s);

/* tseries(n, interval, count, "agg"): what each interval keeps */
enum ts_mode { TS_LAST, TS_AVG, TS_MAX, TS_MIN, TS_SUM };
/* config unstable_tseries = error | warn | enable: NULL when set, else why not (check_map.c) */
const char *lang__config_tseries(struct program *prog, const char *val);

/* the duration suffix at p (ns, us, ms, s, m, h, d, not followed by a letter): its length and *ns, or 0 */
int lang__duration_suffix(const char *p, const char *end, unsigned long long *ns);

/*
 * ---- a program kept running while its maps are read (mapread.c): `sonde serve` ----
 * live__start compiles src as `sonde probe` does, then runs it in a thread
 * of its own (runtime__run, its output counted, not kept) and returns once
 * every probe is attached. live__each reads the maps as they are now, one
 * entry per key (per-CPU values summed); live__stop detaches the probes,
 * ends the thread and frees it all. The strings of an entry live until fn
 * returns.
 */
struct live;
struct live_entry {
	const char *map;	/* "@calls", "@" */
	enum agg agg;		/* AGG_COUNT, SUM, AVG, MIN, MAX, HIST, LHIST, or NONE (an integer) */
	int nparts;		/* the key's parts, as text */
	char **parts;
	double value;		/* all but hist/lhist */
	int nb;			/* hist/lhist: buckets in order, each counting values <= le[i] */
	const uint64_t *counts;
	const long long *le;
	bool last_unbounded;	/* the last bucket has no upper bound (its le: +Inf) */
};
typedef int (*live_fn)(void *ctx, const struct live_entry *e);
/* 0 once attached, or -errno with one line in err (the compiler's "NAME:1:5-9: ERROR: ...", or the kernel's) */
int live__start(struct live **out, const char *name, const char *src, size_t len, char *err, size_t errlen);
/* every entry of every count/sum/avg/min/max/hist/lhist/integer map; the first non-zero of fn ends it */
int live__each(struct live *l, live_fn fn, void *ctx);
/* lines the program printed (printf, print, time...): not served, counted */
uint64_t live__output_lines(struct live *l);
/* the program's run ended by itself (exit(), an error): its maps stay readable */
bool live__ended(struct live *l);
void live__stop(struct live *l);

const char *type__str(const struct type *t, char *buf, size_t len);
bool type__is_int(const struct type *t);
/* the bytes of a TY_ARRAY's elements (its size is 8-aligned) */
int type__array_bytes(const struct type *t);

#endif
