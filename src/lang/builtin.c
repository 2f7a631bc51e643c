// SPDX-License-Identifier: GPL-2.0
/*
 * builtin.c - the tables of builtin variables and functions.
 */
#include "lang/builtin.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const struct bvar_desc vars[] = {
	{ "pid", BV_PID }, { "tid", BV_TID }, { "uid", BV_UID }, { "gid", BV_GID },
	{ "nsecs", BV_NSECS }, { "elapsed", BV_ELAPSED }, { "cpu", BV_CPU }, { "numaid", BV_NUMAID },
	{ "cgroup", BV_CGROUP }, { "rand", BV_RAND }, { "cpid", BV_CPID }, { "comm", BV_COMM },
	{ "kstack", BV_KSTACK }, { "ustack", BV_USTACK }, { "func", BV_FUNC }, { "probe", BV_PROBE },
	{ "retval", BV_RETVAL }, { "args", BV_ARGS }, { "curtask", BV_CURTASK }, { "ncpus", BV_NCPUS },
	{ "jiffies", BV_JIFFIES }, { "usermode", BV_USERMODE }, { "pcomm", BV_PCOMM }, { "ppid", BV_PPID },
	{ "has_cpid", BV_HAS_CPID }, { "probetype", BV_PROBETYPE }, { "ctx", BV_CTX },
};

static const struct bfunc_desc funcs[] = {
	{ "printf", F_PRINTF, 1, 17, BF_STMT },
	{ "print", F_PRINT, 1, 3, BF_STMT },
	{ "exit", F_EXIT, 0, 1, BF_STMT },
	{ "clear", F_CLEAR, 1, 1, BF_STMT | BF_MAPARG },
	{ "zero", F_ZERO, 1, 1, BF_STMT | BF_MAPARG },
	{ "delete", F_DELETE, 1, 2, BF_MAPARG },
	{ "str", F_STR, 1, 2, 0 },
	{ "count", F_COUNT, 0, 0, BF_AGG },
	{ "sum", F_SUM, 1, 1, BF_AGG },
	{ "avg", F_AVG, 1, 1, BF_AGG },
	{ "min", F_MIN, 1, 1, BF_AGG },
	{ "max", F_MAX, 1, 1, BF_AGG },
	{ "stats", F_STATS, 1, 1, BF_AGG },
	{ "hist", F_HIST, 1, 2, BF_AGG },
	{ "lhist", F_LHIST, 4, 4, BF_AGG },
	{ "ksym", F_KSYM, 1, 1, 0 },
	{ "usym", F_USYM, 1, 1, 0 },
	{ "kaddr", F_KADDR, 1, 1, 0 },
	{ "strncmp", F_STRNCMP, 3, 3, 0 },
	{ "time", F_TIME, 0, 1, BF_STMT },
	{ "cat", F_CAT, 1, 8, BF_STMT },
	{ "system", F_SYSTEM, 1, 8, BF_STMT | BF_UNSAFE },
	{ "signal", F_SIGNAL, 1, 1, BF_STMT | BF_UNSAFE },
	{ "kstack", F_KSTACK, 0, 2, 0 },
	{ "ustack", F_USTACK, 0, 2, 0 },
	{ "bswap", F_BSWAP, 1, 1, 0 },
	{ "reg", F_REG, 1, 1, 0 },
	{ "strcontains", F_STRCONTAINS, 2, 2, 0 },
	{ "errorf", F_ERRORF, 1, 8, BF_STMT },
	{ "warnf", F_ERRORF, 1, 8, BF_STMT },
	/* known to bpftrace, not (yet) to sonde: a clear error rather than "unknown function" */
	{ "join", F_JOIN, 1, 2, BF_STMT },
	{ "is_str", F_IS_STR, 1, 1, 0 }, { "is_integer", F_IS_INTEGER, 1, 1, 0 },
	{ "is_literal", F_IS_LITERAL, 1, 1, 0 }, { "is_ptr", F_IS_PTR, 1, 1, 0 }, { "is_array", F_IS_ARRAY, 1, 1, 0 },
	{ "is_unsigned_integer", F_IS_UNSIGNED, 1, 1, 0 }, { "pcomm", F_PCOMM, 0, 1, 0 }, { "ppid", F_PPID, 0, 1, 0 },
	{ "signal_thread", F_SIGNAL_THREAD, 1, 1, BF_STMT | BF_UNSAFE }, { "nsecs", F_NSECS, 0, 1, 0 }, { "static_assert", F_STATIC_ASSERT, 2, 2, BF_STMT },
	{ "buf", F_BUF, 1, 2, 0 },
	{ "ntop", F_NTOP, 1, 2, 0 }, { "pton", F_PTON, 1, 1, 0 },
	{ "uaddr", F_UADDR, 1, 1, 0 }, { "strftime", F_STRFTIME, 2, 2, 0 },
	{ "cgroup_path", F_CGROUP_PATH, 1, 2, 0 }, { "cgroupid", F_CGROUPID, 1, 1, 0 },
	{ "macaddr", F_MACADDR, 1, 1, 0 }, { "override", F_OVERRIDE, 1, 1, BF_STMT | BF_UNSAFE },
	{ "path", F_PATH, 1, 2, 0 }, { "skboutput", F_SKBOUTPUT, 4, 4, 0 },
	{ "strerror", F_STRERROR, 1, 1, 0 }, { "kptr", F_KPTR, 1, 1, 0 },
	{ "uptr", F_UPTR, 1, 1, 0 }, 
	{ "has_key", F_HAS_KEY, 1, 9, 0 },
	{ "tseries", F_TSERIES, 3, 4, BF_AGG }, { "len", F_LEN, 1, 1, 0 },
	{ "find", F_FIND, 1, 3, 0 },	/* 1: the checker makes find(@m, k, $v) find(@m[k]) */
	{ "getopt", F_GETOPT, 1, 3, 0 }, { "fail", F_FAIL, 1, 8, BF_STMT },
	{ "kfunc_exist", F_KFUNC_EXIST, 1, 1, 0 }, { "kfunc_allowed", F_KFUNC_ALLOWED, 1, 1, 0 },
	{ "strlen", F_STRLEN, 1, 1, 0 }, { "strcap", F_STRCAP, 1, 1, 0 }, { "strstr", F_STRSTR, 2, 2, 0 },
	{ "memcmp", F_MEMCMP, 3, 3, 0 }, { "globmatch", F_GLOBMATCH, 2, 2, 0 }, { "assert_str", F_ASSERT_STR, 1, 1, BF_STMT },
	{ "default_str_length", F_DEFAULT_STR_LENGTH, 0, 0, 0 }, { "assert", F_ASSERT, 2, 2, BF_STMT },
	{ "syscall_name", F_SYSCALL_NAME, 1, 1, 0 }, { "username", F_USERNAME, 0, 0, 0 },
	{ "pid", F_PID_NS, 0, 1, 0 }, { "tid", F_TID_NS, 0, 1, 0 }, { "comm", F_COMM, 0, 1, 0 },
	{ "percpu_kaddr", F_PERCPU_KADDR, 1, 2, 0 }, { "socket_cookie", F_SOCKET_COOKIE, 1, 1, 0 },
	{ "unwatch", F_UNWATCH, 1, 1, BF_STMT },
};

const struct bvar_desc *builtin__var(const char *name, int *argn)
{
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (!strcmp(vars[i].name, name))
			return &vars[i];
	if (!strncmp(name, "sarg", 4) && isdigit((unsigned char)name[4])) {	/* sargN: the Nth argument on the stack */
		static const struct bvar_desc sarg = { "sargN", BV_SARG };
		char *end;
		long n = strtol(name + 4, &end, 10);

		if (*end || n > 63)
			return NULL;
		*argn = (int)n;
		return &sarg;
	}
	if (!strncmp(name, "arg", 3) && isdigit((unsigned char)name[3])) {
		static const struct bvar_desc arg = { "argN", BV_ARG };
		char *end;
		long n = strtol(name + 3, &end, 10);

		if (*end || n > 63)
			return NULL;
		*argn = (int)n;
		return &arg;
	}
	return NULL;
}

const struct bfunc_desc *builtin__func(const char *name)
{
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (!strcmp(funcs[i].name, name))
			return &funcs[i];
	return NULL;
}

int builtin__cgroupid(const char *path, long long *id)
{
	/* cgroupfs's file handle is the cgroup id, which bpf_get_current_cgroup_id() gives */
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + 64];
	} h;
	int mount_id;

	h.fh.handle_bytes = 64;
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		return -1;
	if (h.fh.handle_bytes != sizeof(uint64_t)) {
		errno = ENOTSUP;
		return -1;
	}
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}
