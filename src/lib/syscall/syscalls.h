/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syscalls.h - the x86-64 syscall table: number, name, argument kinds (what
 * each argument means, so it can be decoded and captured), return kind and
 * strace's trace classes (%file, %desc, %network...). Everything returned
 * points into static tables; nothing needs freeing.
 *
 * The one syscall table: trace decodes with it, and the language's
 * syscall_name() and __NR_ names read it. It is written by hand in
 * syscalls.c, not read at run time: the numbers are the kernel's ABI
 * (arch/x86/entry/syscalls/syscall_64.tbl, stable forever), and the argument
 * kinds carry meaning no tracefs format file has (a flags word of open() and a
 * mode look alike there). It was drafted from this machine's
 * events/syscalls/sys_enter_* formats; unit tests (test_sysdecode.c) check the
 * argument counts against those files wherever tracefs has them, and that
 * every number in the UAPI header asm/unistd_64.h is in the table under its
 * name. A syscall the kernel gains is one more row in syscalls.c.
 */
#ifndef SONDE_SYSCALLS_H
#define SONDE_SYSCALLS_H

#include <stdbool.h>
#include <stdint.h>

enum sc_arg {
	A_NONE = 0,
	A_INT, A_UINT, A_LONG, A_ULONG, A_HEX, A_PTR, A_OCT,
	A_FD, A_DIRFD, A_PATH, A_STR,
	A_BUFIN,	/* bytes in, count in the next argument */
	A_BUFOUT,	/* bytes out, count in the return value */
	A_BUFOUTSTR,	/* getcwd: a string out */
	A_OPENFLAGS, A_OPENMODE, A_ATFLAGS, A_ACCESSMODE, A_WHENCE,
	A_PROT, A_MMAPFLAGS, A_MREMAPFLAGS, A_MADV,
	A_SIGNUM, A_SIGHOW, A_SIGSETIN, A_SIGSETOUT, A_SIGACTIN, A_SIGACTOUT,
	A_CLONEFLAGS, A_CLONEARGS, A_WSTATUS, A_WOPTS, A_ARGV, A_ENVP,
	A_AF, A_SOCKTYPE, A_SOCKPROTO, A_FDFLAGS, A_SOCKFLAGS, A_MSGFLAGS, A_SOCKADDRIN, A_SOCKADDROUT, A_SHUTHOW,
	A_STATOUT, A_TSIN, A_TSOUT, A_IOVIN, A_IOVOUT, A_PIPEFDS,
	A_RLIMRES, A_RLIMIN, A_RLIMOUT, A_ARCHPRCTL, A_CLOCKID, A_GRND,
	A_FCNTLCMD, A_FCNTLARG, A_FUTEXOP,
	A_IOCTLCMD, A_DIRENTS, A_UTSNAME, A_GIDLIST, A_STATXFLAGS, A_STATXMASK, A_STATXOUT,
	A__COUNT
};

enum sc_ret { R_INT, R_HEX, R_OCT, R_NONE };

/* strace's trace classes (-e trace=%file...) */
enum sc_class {
	C_FILE = 1 << 0, C_DESC = 1 << 1, C_NETWORK = 1 << 2, C_PROCESS = 1 << 3,
	C_MEMORY = 1 << 4, C_SIGNAL = 1 << 5, C_IPC = 1 << 6, C_CREDS = 1 << 7,
	C_CLOCK = 1 << 8,
};

struct syscall_desc {
	int nr;
	const char *name;
	unsigned char nargs;
	unsigned char ret;		/* enum sc_ret */
	unsigned short classes;		/* enum sc_class */
	unsigned char args[6];		/* enum sc_arg */
};

#define SYSCALL_NR_MAX 512

/* the entry for number nr, or NULL when x86-64 has none */
const struct syscall_desc *syscall__by_nr(int nr);
/* the entry named name ("openat"), or NULL */
const struct syscall_desc *syscall__by_name(const char *name);
/* the class named "%file" / "file" / "%net", 0 when unknown */
unsigned syscall__class(const char *name);
/* the n-th entry of the table (0..count-1), for listing */
int syscall__count(void);
const struct syscall_desc *syscall__at(int i);

/*
 * Parse strace's -e trace= expression ("open,read", "%file,%network",
 * "!write", "all", "none", "/^open" a regular expression) into set[] (one bool per
 * number, SYSCALL_NR_MAX of them); a class may be named without its % ("file"),
 * as strace takes it. Returns 0, -EINVAL with the offending names in err
 * ("'opne', '%bogus'"), or -EBADMSG for a /REGEX that does not compile, with
 * the whole line in err ("cannot compile the regular expression '[': ...").
 */
int syscall__parse_set(const char *expr, bool *set, char *err, int errlen);

#endif
