// SPDX-License-Identifier: GPL-2.0
/*
 * sysdecode.c - strace's spelling of values: quoted strings, flag words,
 * constants, errno and signal names. Struct and whole-call decoding is in
 * sysdecode_call.c. The names and orders follow what strace 6.x prints
 * (bit order, ascending), checked against strace by tests/e2e/t06*.
 */
#include "lib/syscall/sysdecode.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sysdecode__quote(struct sbuf *b, const unsigned char *s, size_t len, size_t max, bool more, int flags)
{
	static const char hex[] = "0123456789abcdef";
	char out[8];

	if (flags & SDQ_NUL_ENDS) {
		size_t n = strnlen((const char *)s, len);

		if (n < len) {
			len = n;
			more = false;
		}
	}
	if (len > max) {
		len = max;
		more = true;
	}
	sbuf__add(b, "\"", 1);
	for (size_t i = 0; i < len; i++) {
		unsigned c = s[i];
		int n = 0;

		if (flags & SDQ_HEX) {
			out[n++] = '\\'; out[n++] = 'x';
			out[n++] = hex[c >> 4]; out[n++] = hex[c & 15];
		} else {
			switch (c) {
			case '"': case '\\': out[n++] = '\\'; out[n++] = c; break;
			case '\f': out[n++] = '\\'; out[n++] = 'f'; break;
			case '\n': out[n++] = '\\'; out[n++] = 'n'; break;
			case '\r': out[n++] = '\\'; out[n++] = 'r'; break;
			case '\t': out[n++] = '\\'; out[n++] = 't'; break;
			case '\v': out[n++] = '\\'; out[n++] = 'v'; break;
			default:
				if (c >= ' ' && c < 0x7f) {
					out[n++] = c;
				} else if (i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '7') {
					out[n++] = '\\';
					out[n++] = '0' + (c >> 6);
					out[n++] = '0' + ((c >> 3) & 7);
					out[n++] = '0' + (c & 7);
				} else {
					out[n++] = '\\';
					if (c >> 6)
						out[n++] = '0' + (c >> 6);
					if (c >> 3)
						out[n++] = '0' + ((c >> 3) & 7);
					out[n++] = '0' + (c & 7);
				}
			}
		}
		sbuf__add(b, out, n);
	}
	sbuf__add(b, "\"", 1);
	if (more)
		sbuf__add(b, "...", 3);
}

void sysdecode__flags(struct sbuf *b, uint64_t v, const struct sd_name *t, const char *none)
{
	bool first = true;

	if (!v) {
		sbuf__puts(b, none ? none : "0");
		return;
	}
	for (; t->name; t++) {
		if (t->val && (v & t->val) == t->val) {
			if (!first)
				sbuf__add(b, "|", 1);
			sbuf__puts(b, t->name);
			first = false;
			v &= ~t->val;
		}
	}
	if (v) {
		if (!first)
			sbuf__add(b, "|", 1);
		sbuf__printf(b, "%#llx", (unsigned long long)v);
	}
}

void sysdecode__value(struct sbuf *b, uint64_t v, const struct sd_name *t, const char *dflt)
{
	for (; t->name; t++)
		if (t->val == v) {
			sbuf__puts(b, t->name);
			return;
		}
	if (dflt && !strcmp(dflt, "%d"))
		sbuf__printf(b, "%d", (int)v);
	else if (dflt && !strcmp(dflt, "%u"))
		sbuf__printf(b, "%u", (unsigned)v);
	else
		sbuf__printf(b, "%#llx", (unsigned long long)v);
	if (dflt && strstr(dflt, "/*"))
		sbuf__puts(b, dflt + 2);
}

/* the kernel's restart codes never reach libc, so libc has no names for them */
static const struct sd_name kerrnos[] = {
	{ 512, "ERESTARTSYS" }, { 513, "ERESTARTNOINTR" }, { 514, "ERESTARTNOHAND" },
	{ 515, "ENOIOCTLCMD" }, { 516, "ERESTART_RESTARTBLOCK" }, { 517, "EPROBE_DEFER" },
	{ 518, "EOPENSTALE" }, { 519, "ENOPARAM" }, { 521, "EBADHANDLE" }, { 522, "ENOTSYNC" },
	{ 523, "EBADCOOKIE" }, { 524, "ENOTSUPP" }, { 525, "ETOOSMALL" }, { 526, "ESERVERFAULT" },
	{ 527, "EBADTYPE" }, { 528, "EJUKEBOX" }, { 529, "EIOCBQUEUED" }, { 530, "ERECALLCONFLICT" },
	{ 0, NULL }
};

const char *sysdecode__errno_name(int err)
{
	const char *n;

	if (err <= 0 || err > 4095)
		return NULL;
	for (const struct sd_name *k = kerrnos; k->name; k++)
		if ((int)k->val == err)
			return k->name;
	n = strerrorname_np(err);
	/* libc names EWOULDBLOCK, EDEADLOCK and ENOTSUP as the values strace names otherwise */
	return n;
}

const char *sysdecode__strerror(int err)
{
	switch (err) {
	case 512: return "To be restarted if SA_RESTART is set";
	case 513: return "To be restarted";
	case 514: return "To be restarted if no handler";
	case 515: return "No ioctl command";
	case 516: return "Interrupted by signal";
	case 517: return "Driver requests probe retry";
	case 518: return "Open found a stale dentry";
	case 519: return "Parameter not supported";
	case 521: return "Illegal NFS file handle";
	case 522: return "Update synchronization mismatch";
	case 523: return "Cookie is stale";
	case 524: return "Operation is not supported";
	case 525: return "Buffer or request is too small";
	case 526: return "An untranslatable error occurred";
	case 527: return "Type not supported by server";
	case 528: return "Request initiated, but will not complete before timeout";
	case 529: return "iocb queued, will get completion event";
	case 530: return "Conflict with recalled state";
	}
	return strerror(err);
}

static const char *const signames[] = {
	NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
	"SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
	"SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
	"SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS",
};

const char *sysdecode__signame(int sig)
{
	static char rt[33][12];

	if (sig > 0 && sig < 32)
		return signames[sig];
	if (sig == 32)
		return "SIGRTMIN";
	if (sig > 32 && sig <= 64) {
		if (!rt[sig - 32][0])
			snprintf(rt[sig - 32], sizeof(rt[0]), "SIGRT_%d", sig - 32);
		return rt[sig - 32];
	}
	return NULL;
}

/* strace's order, not the bits': O_DIRECTORY comes after O_CLOEXEC */
static const struct sd_name open_flags[] = {
	{ 0100, "O_CREAT" }, { 0200, "O_EXCL" }, { 0400, "O_NOCTTY" }, { 01000, "O_TRUNC" },
	{ 02000, "O_APPEND" }, { 04000, "O_NONBLOCK" }, { 04010000, "O_SYNC" }, { 010000, "O_DSYNC" },
	{ 040000, "O_DIRECT" }, { 0100000, "O_LARGEFILE" }, { 0400000, "O_NOFOLLOW" },
	{ 01000000, "O_NOATIME" }, { 02000000, "O_CLOEXEC" }, { 010000000, "O_PATH" },
	{ 020200000, "O_TMPFILE" }, { 0200000, "O_DIRECTORY" }, { 020000, "O_ASYNC" },
	{ 0, NULL }
};

void sysdecode__open_flags(struct sbuf *b, uint64_t flags)
{
	static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };

	flags &= 0xffffffffu;
	sbuf__puts(b, acc[flags & 3]);
	flags &= ~3ull;
	if (flags) {
		sbuf__add(b, "|", 1);
		sysdecode__flags(b, flags, open_flags, NULL);
	}
}

static const struct sd_name prot_flags[] = {
	{ 1, "PROT_READ" }, { 2, "PROT_WRITE" }, { 4, "PROT_EXEC" }, { 8, "PROT_SEM" },
	{ 0x01000000, "PROT_GROWSDOWN" }, { 0x02000000, "PROT_GROWSUP" }, { 0, NULL }
};

void sysdecode__prot(struct sbuf *b, uint64_t prot)
{
	sysdecode__flags(b, prot, prot_flags, "PROT_NONE");
}

static const struct sd_name mmap_flags[] = {
	{ 0x10, "MAP_FIXED" }, { 0x20, "MAP_ANONYMOUS" }, { 0x40, "MAP_32BIT" },
	{ 0x100, "MAP_GROWSDOWN" }, { 0x800, "MAP_DENYWRITE" }, { 0x1000, "MAP_EXECUTABLE" },
	{ 0x2000, "MAP_LOCKED" }, { 0x4000, "MAP_NORESERVE" }, { 0x8000, "MAP_POPULATE" },
	{ 0x10000, "MAP_NONBLOCK" }, { 0x20000, "MAP_STACK" }, { 0x40000, "MAP_HUGETLB" },
	{ 0x80000, "MAP_SYNC" }, { 0x100000, "MAP_FIXED_NOREPLACE" }, { 0x4000000, "MAP_UNINITIALIZED" },
	{ 0, NULL }
};

void sysdecode__mmap_flags(struct sbuf *b, uint64_t flags)
{
	static const char *const type[] = { "0", "MAP_SHARED", "MAP_PRIVATE", "MAP_SHARED_VALIDATE" };

	flags &= 0xffffffffu;
	if ((flags & 0xf) > 3) {
		sysdecode__flags(b, flags, mmap_flags, NULL);
		return;
	}
	sbuf__puts(b, type[flags & 3]);
	flags &= ~0xfull;
	if (flags) {
		sbuf__add(b, "|", 1);
		sysdecode__flags(b, flags, mmap_flags, NULL);
	}
}

static const struct sd_name clone_flags[] = {
	{ 0x100, "CLONE_VM" }, { 0x200, "CLONE_FS" }, { 0x400, "CLONE_FILES" },
	{ 0x800, "CLONE_SIGHAND" }, { 0x1000, "CLONE_PIDFD" }, { 0x2000, "CLONE_PTRACE" },
	{ 0x4000, "CLONE_VFORK" }, { 0x8000, "CLONE_PARENT" }, { 0x10000, "CLONE_THREAD" },
	{ 0x20000, "CLONE_NEWNS" }, { 0x40000, "CLONE_SYSVSEM" }, { 0x80000, "CLONE_SETTLS" },
	{ 0x100000, "CLONE_PARENT_SETTID" }, { 0x200000, "CLONE_CHILD_CLEARTID" },
	{ 0x400000, "CLONE_DETACHED" }, { 0x800000, "CLONE_UNTRACED" },
	{ 0x1000000, "CLONE_CHILD_SETTID" }, { 0x2000000, "CLONE_NEWCGROUP" },
	{ 0x4000000, "CLONE_NEWUTS" }, { 0x8000000, "CLONE_NEWIPC" }, { 0x10000000, "CLONE_NEWUSER" },
	{ 0x20000000, "CLONE_NEWPID" }, { 0x40000000, "CLONE_NEWNET" }, { 0x80000000, "CLONE_IO" },
	{ 0, NULL }
};

void sysdecode__clone_flags(struct sbuf *b, uint64_t flags)
{
	unsigned sig = flags & 0xff;
	uint64_t rest = flags & 0xffffff00ull;

	if (rest)
		sysdecode__flags(b, rest, clone_flags, NULL);
	if (sig) {
		const char *n = sysdecode__signame(sig);

		if (rest)
			sbuf__add(b, "|", 1);
		if (n)
			sbuf__puts(b, n);
		else
			sbuf__printf(b, "%u", sig);
	}
	if (!rest && !sig)
		sbuf__puts(b, "0");
}

void sysdecode__sigset(struct sbuf *b, uint64_t mask)
{
	bool inv = __builtin_popcountll(mask) > 32, first = true;

	if (inv) {
		sbuf__add(b, "~", 1);
		mask = ~mask;
	}
	sbuf__add(b, "[", 1);
	for (int s = 1; s <= 64; s++) {
		const char *n;

		if (!(mask & (1ull << (s - 1))))
			continue;
		if (!first)
			sbuf__add(b, " ", 1);
		first = false;
		n = sysdecode__signame(s);
		if (n)
			sbuf__puts(b, n + 3);
		else
			sbuf__printf(b, "%d", s);
	}
	sbuf__add(b, "]", 1);
}

void sysdecode__mode(struct sbuf *b, uint32_t mode)
{
	static const struct sd_name types[] = {
		{ 0140000, "S_IFSOCK" }, { 0120000, "S_IFLNK" }, { 0100000, "S_IFREG" },
		{ 0060000, "S_IFBLK" }, { 0040000, "S_IFDIR" }, { 0020000, "S_IFCHR" },
		{ 0010000, "S_IFIFO" }, { 0, NULL }
	};
	uint32_t t = mode & 0170000;

	for (const struct sd_name *n = types; n->name; n++)
		if (n->val == t) {
			sbuf__printf(b, "%s|", n->name);
			break;
		}
	if (mode & 07000) {
		if (mode & 04000)
			sbuf__puts(b, "S_ISUID|");
		if (mode & 02000)
			sbuf__puts(b, "S_ISGID|");
		if (mode & 01000)
			sbuf__puts(b, "S_ISVTX|");
	}
	sbuf__printf(b, "%#03o", mode & 0777);
}

void sysdecode__wait_status(struct sbuf *b, int s)
{
	if ((s & 0x7f) == 0)
		sbuf__printf(b, "[{WIFEXITED(s) && WEXITSTATUS(s) == %d}]", (s >> 8) & 0xff);
	else if ((s & 0xff) == 0x7f)
		sbuf__printf(b, "[{WIFSTOPPED(s) && WSTOPSIG(s) == %s}]",
			     sysdecode__signame((s >> 8) & 0xff) ? sysdecode__signame((s >> 8) & 0xff) : "?");
	else {
		const char *n = sysdecode__signame(s & 0x7f);

		sbuf__printf(b, "[{WIFSIGNALED(s) && WTERMSIG(s) == %s%s}]", n ? n : "?",
			     (s & 0x80) ? " && WCOREDUMP(s)" : "");
	}
}

void sysdecode__si_code(struct sbuf *b, int sig, int code)
{
	static const struct sd_name generic[] = {
		{ 0, "SI_USER" }, { 0x80, "SI_KERNEL" }, { (uint32_t)-1, "SI_QUEUE" },
		{ (uint32_t)-2, "SI_TIMER" }, { (uint32_t)-3, "SI_MESGQ" }, { (uint32_t)-4, "SI_ASYNCIO" },
		{ (uint32_t)-5, "SI_SIGIO" }, { (uint32_t)-6, "SI_TKILL" }, { 0, NULL }
	};
	static const struct sd_name chld[] = {
		{ 1, "CLD_EXITED" }, { 2, "CLD_KILLED" }, { 3, "CLD_DUMPED" }, { 4, "CLD_TRAPPED" },
		{ 5, "CLD_STOPPED" }, { 6, "CLD_CONTINUED" }, { 0, NULL }
	};
	static const struct sd_name segv[] = {
		{ 1, "SEGV_MAPERR" }, { 2, "SEGV_ACCERR" }, { 0, NULL }
	};

	if (code > 0 && code < 0x80 && sig == 17) {
		sysdecode__value(b, code, chld, "%d");
		return;
	}
	if (code > 0 && code < 0x80 && sig == 11) {
		sysdecode__value(b, code, segv, "%d");
		return;
	}
	sysdecode__value(b, (uint32_t)code, generic, "%d");
}
