/* SPDX-License-Identifier: GPL-2.0 */
/*
 * builtins.h - the language's builtin functions as a table, one row per
 * name: {name, id, arity, flags, check, gen_*} (ply's shape). Each family
 * lives in one file of src/lang/builtins/ with its rows, its type rules and
 * its code: output.c (printf, print, exit...), maps.c (delete, has_key,
 * count, hist...), strings.c (str, buf, strncmp...), stacks.c (kstack,
 * ksym, kaddr, reg...), time.c (nsecs, strftime), net.c (ntop, pton,
 * macaddr), skboutput.c, task.c (pcomm, cgroupid, signal, override...)
 * and task_ns.c, types.c (is_str(), static_assert(), getopt(), fail(),
 * kfunc_*()). A few families keep long code in files of the language they
 * share it with: check_str.c and gen_str.c (strlen, strstr, globmatch...),
 * check_map.c and gen_map.c (find, tseries), comptime.c and getopt.c. The
 * checker (check_call.c) and the generator (gen_call.c, gen.c) only
 * dispatch through the rows, so neither reaches into the other. The
 * builtin variables (pid, comm, args...) are a table here too, generated
 * by gen.c's gen_bvar(). Tables are static and never freed; a row's hooks
 * make nodes in the program's arena and instructions in the gen's code.
 *
 * Adding a builtin function NAME:
 *   1. add F_NAME to enum bfunc below;
 *   2. in its family's file (a new family: a new file, its table declared
 *      at the end of this header and listed in builtins.c), add a row { "NAME", F_NAME, min, max, flags,
 *      .check = ..., and the gen hooks it needs } and write them:
 *      - check(c, n, b, assign_to): n is the N_CALL (n->args its arguments,
 *        already type-checked unless BF_OWN_ARGS), assign_to the map of
 *        `@m = NAME(...)` for BF_AGG; set and return n->ty (ty_int(),
 *        ty_str(), ty_kind()...), or report with lang__error() and return
 *        TY_NONE. A call whose value user space formats registers a site
 *        (lang__add_site(), n->id = index + 1);
 *      - gen_int(g, n): an integer value into r0;
 *      - gen_str(g, n, off, size): a string into [fp+off], size bytes;
 *      - gen_value(g, n, off, size): the fixed-size bytes of its type
 *        (TY_BUF, TY_INET...) into [fp+off], zeroed beforehand;
 *      - gen_stmt(g, n): a call whose value is not used (BF_STMT ones);
 *      (gen_int.h lists the generator's helpers: g_emit(), g_slot()...);
 *   3. a new value type: its printing in output.c, its size in check_int.h;
 *   4. tests: tests/lang/NAME.list (generated from bpftrace by gen.sh) or a
 *      *_hand.test, run by tests/e2e/t0700-probe-lang.sh.
 */
#ifndef SONDE_LANG_BUILTINS_H
#define SONDE_LANG_BUILTINS_H

#include "lang/lang.h"

struct ck;
struct gen;

enum bvar {
	BV_PID = 1, BV_TID, BV_UID, BV_GID, BV_NSECS, BV_ELAPSED, BV_CPU, BV_NUMAID, BV_CGROUP, BV_RAND,
	BV_CPID, BV_COMM, BV_KSTACK, BV_USTACK, BV_FUNC, BV_PROBE, BV_RETVAL, BV_ARG, BV_ARGS, BV_CURTASK,
	BV_NCPUS, BV_JIFFIES, BV_USERMODE, BV_SARG, BV_PCOMM, BV_PPID, BV_HAS_CPID, BV_PROBETYPE,
	BV_CTX,		/* iter probes: the iterator's context, typed from BTF (provider_iter.c) */
};

enum bfunc {
	F_PRINTF = 1, F_PRINT, F_EXIT, F_CLEAR, F_ZERO, F_DELETE, F_STR, F_COUNT, F_SUM, F_AVG, F_MIN, F_MAX,
	F_STATS, F_HIST, F_LHIST, F_KSYM, F_USYM, F_KADDR, F_STRNCMP, F_TIME, F_CAT, F_SYSTEM, F_SIGNAL,
	F_KSTACK, F_USTACK, F_BSWAP, F_REG, F_CGROUPID, F_STRCONTAINS, F_ERRORF, F_JOIN,
	F_OVERRIDE, F_PATH, F_PCOMM, F_PPID, F_SIGNAL_THREAD, F_NSECS, F_MACADDR, F_PTON,
	F_BUF, F_NTOP, F_STRFTIME, F_UADDR, F_CGROUP_PATH, F_STRERROR, F_KPTR, F_UPTR,
	F_HAS_KEY, F_LEN,
	F_IS_STR, F_IS_INTEGER, F_IS_LITERAL, F_IS_PTR, F_IS_ARRAY, F_IS_UNSIGNED, F_STATIC_ASSERT,
	F_GETOPT, F_FAIL, F_KFUNC_EXIST, F_KFUNC_ALLOWED,	/* known when compiling (getopt.c, comptime.c) */
	/* the string functions (check_str.c, gen_str.c) */
	F_STRLEN, F_STRCAP, F_STRSTR, F_MEMCMP, F_GLOBMATCH, F_ASSERT_STR, F_DEFAULT_STR_LENGTH, F_ASSERT, F_SYSCALL_NAME,
	F_USERNAME, F_DISK_NAME,
	F_PID_NS, F_TID_NS, F_COMM, F_PERCPU_KADDR, F_SOCKET_COOKIE,	/* task_ns.c */
	F_UNWATCH,	/* provider_watch.c */
	F_FIND, F_TSERIES,
	F_SKBOUTPUT,	/* builtins/skboutput.c, output_pcap.c */
	F_PRINT_LOG2_HIST, F_PRINT_LINEAR_HIST, F_FDIV,
	F_MEMINFO, F_KPROBE_EXIST, F_PERCENTILE, F_TRACEPOINT_EXIST,
	F_DEBUGF,	/* output.c: bpf_trace_vprintk() */
	F_SIGNAL_NAME,	/* strings.c */
	F_END
};

enum bflag {
	BF_AGG = 1 << 0,	/* only as `@m[k] = f(...)` */
	BF_UNSAFE = 1 << 1,	/* needs --unsafe */
	BF_STMT = 1 << 2,	/* returns nothing: a statement of its own */
	BF_MAPARG = 1 << 3,	/* the first argument is a whole map (clear, zero) or a map and a key (delete) */
	BF_OWN_ARGS = 1 << 4,	/* check() checks the arguments itself (names, literals, maps) */
	BF_BOOL = 1 << 5,	/* an integer result is upstream's bool (bool.c) */
	BF_NOARG_VAR = 1 << 6,	/* NAME() without arguments is the builtin variable NAME (pid(), comm()) */
};

struct builtin {
	const char *name;
	enum bfunc id;
	int min_args, max_args;
	unsigned flags;
	int agg;		/* BF_AGG: the map's enum agg */
	struct type (*check)(struct ck *c, struct node *n, const struct builtin *b, struct node *assign_to);
	void (*gen_int)(struct gen *g, struct node *n);
	void (*gen_str)(struct gen *g, struct node *n, int off, int size);
	void (*gen_value)(struct gen *g, struct node *n, int off, int size);
	void (*gen_stmt)(struct gen *g, struct node *n);
};

struct bvar_desc {
	const char *name;
	enum bvar id;
};

/* the row of a function name, or NULL */
const struct builtin *builtin__func(const char *name);
/* the row of a call the checker accepted (n->op is its id) */
const struct builtin *builtin__of(const struct node *n);
const struct bvar_desc *builtin__var(const char *name, int *argn);

/* the families' tables, each ending with a row whose name is NULL */
extern const struct builtin builtins_output[], builtins_maps[], builtins_strings[], builtins_stacks[],
	builtins_time[], builtins_net[], builtins_task[], builtins_types[], builtins_packets[];

#endif
