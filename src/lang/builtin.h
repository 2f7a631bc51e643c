/* SPDX-License-Identifier: GPL-2.0 */
/*
 * builtin.h - the language's builtin variables and functions as tables: the type
 * checker (check.c) reads their arity and flags, the code generator (gen.c)
 * switches on their ids. The tables are static and never freed.
 */
#ifndef SONDE_LANG_BUILTIN_H
#define SONDE_LANG_BUILTIN_H

#include "lang/lang.h"

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
	F_USERNAME,
	F_PID_NS, F_TID_NS, F_COMM, F_PERCPU_KADDR, F_SOCKET_COOKIE,	/* gen_task.c */
	F_UNWATCH,	/* provider_watch.c */
	F_FIND, F_TSERIES,
	F_SKBOUTPUT,	/* skboutput.c, output_pcap.c */
};

enum bflag {
	BF_AGG = 1 << 0,	/* only as `@m[k] = f(...)` */
	BF_UNSAFE = 1 << 1,	/* needs --unsafe */
	BF_STMT = 1 << 2,	/* returns nothing: a statement of its own */
	BF_MAPARG = 1 << 3,	/* the first argument is a map */
};

struct bvar_desc {
	const char *name;
	enum bvar id;
};

struct bfunc_desc {
	const char *name;
	enum bfunc id;
	int min_args, max_args;
	unsigned flags;
};

const struct bvar_desc *builtin__var(const char *name, int *argn);
const struct bfunc_desc *builtin__func(const char *name);
/* the id of the cgroup v2 directory at path (its inode's file handle); 0 or -1 with errno */
int builtin__cgroupid(const char *path, long long *id);

#endif
