// SPDX-License-Identifier: GPL-2.0
/* test_sysdecode.c - strace's spelling of syscall arguments, results and tables */
#include "unit.h"
#include "lib/syscall/syscalls.h"
#include "lib/syscall/sysdecode.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct sbuf b;

static const char *q(const void *s, size_t len, size_t max, bool more, int flags)
{
	sbuf__reset(&b);
	sysdecode__quote(&b, s, len, max, more, flags);
	return b.buf;
}

TEST(sysdecode_quote_like_strace)
{
	CHECK_STR(q("host\n", 5, 32, false, 0), "\"host\\n\"");
	CHECK_STR(q("\177ELF\2\1\1\3\0\0", 10, 32, false, 0), "\"\\177ELF\\2\\1\\1\\3\\0\\0\"");
	/* a digit after an escaped byte forces three octal digits */
	CHECK_STR(q("\0001", 2, 32, false, 0), "\"\\0001\"");
	CHECK_STR(q("\t\"\\\r\v\f", 6, 32, false, 0), "\"\\t\\\"\\\\\\r\\v\\f\"");
	CHECK_STR(q("\300\4", 2, 32, false, 0), "\"\\300\\4\"");
	CHECK_STR(q("abcdef", 6, 4, false, 0), "\"abcd\"...");
	CHECK_STR(q("abc", 3, 32, true, 0), "\"abc\"...");
	CHECK_STR(q("ab\0cd", 5, 32, false, SDQ_NUL_ENDS), "\"ab\"");
	CHECK_STR(q("\x5e\xa1", 2, 32, false, SDQ_HEX), "\"\\x5e\\xa1\"");
	CHECK_STR(q("", 0, 32, false, 0), "\"\"");
}

TEST(sysdecode_flags_by_name)
{
	sbuf__reset(&b);
	sysdecode__open_flags(&b, 02000000);
	CHECK_STR(b.buf, "O_RDONLY|O_CLOEXEC");
	sbuf__reset(&b);
	sysdecode__open_flags(&b, 01 | 0100 | 01000);
	CHECK_STR(b.buf, "O_WRONLY|O_CREAT|O_TRUNC");
	sbuf__reset(&b);
	sysdecode__open_flags(&b, 02 | 02000 | 0200000 | 040000000);
	CHECK_STR(b.buf, "O_RDWR|O_APPEND|O_DIRECTORY|0x800000");
	sbuf__reset(&b);
	sysdecode__open_flags(&b, 04000 | 0200000 | 02000000);	/* strace puts O_DIRECTORY last */
	CHECK_STR(b.buf, "O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY");
	sbuf__reset(&b);
	sysdecode__open_flags(&b, 020200000 | 2);
	CHECK_STR(b.buf, "O_RDWR|O_TMPFILE");
	sbuf__reset(&b);
	sysdecode__prot(&b, 0);
	CHECK_STR(b.buf, "PROT_NONE");
	sbuf__reset(&b);
	sysdecode__prot(&b, 5);
	CHECK_STR(b.buf, "PROT_READ|PROT_EXEC");
	sbuf__reset(&b);
	sysdecode__mmap_flags(&b, 0x2 | 0x10 | 0x800);
	CHECK_STR(b.buf, "MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE");
	sbuf__reset(&b);
	sysdecode__mmap_flags(&b, 0x1 | 0x20);
	CHECK_STR(b.buf, "MAP_SHARED|MAP_ANONYMOUS");
	sbuf__reset(&b);
	sysdecode__clone_flags(&b, 0x01200000 | 17);
	CHECK_STR(b.buf, "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD");
	sbuf__reset(&b);
	sysdecode__sigset(&b, 0);
	CHECK_STR(b.buf, "[]");
	sbuf__reset(&b);
	sysdecode__sigset(&b, (1ull << 9) | (1ull << 16));
	CHECK_STR(b.buf, "[USR1 CHLD]");
	sbuf__reset(&b);
	sysdecode__sigset(&b, ~(1ull << 8));
	CHECK_STR(b.buf, "~[KILL]");
	sbuf__reset(&b);
	sysdecode__mode(&b, 0100644);
	CHECK_STR(b.buf, "S_IFREG|0644");
	sbuf__reset(&b);
	sysdecode__mode(&b, 0040000);
	CHECK_STR(b.buf, "S_IFDIR|000");
	sbuf__reset(&b);
	sysdecode__wait_status(&b, 3 << 8);
	CHECK_STR(b.buf, "[{WIFEXITED(s) && WEXITSTATUS(s) == 3}]");
	sbuf__reset(&b);
	sysdecode__wait_status(&b, 9);
	CHECK_STR(b.buf, "[{WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL}]");
}

TEST(sysdecode_errno_and_signals)
{
	CHECK_STR(sysdecode__errno_name(ENOENT), "ENOENT");
	CHECK_STR(sysdecode__strerror(ENOENT), "No such file or directory");
	CHECK_STR(sysdecode__errno_name(512), "ERESTARTSYS");
	CHECK_STR(sysdecode__strerror(516), "Interrupted by signal");
	CHECK(sysdecode__errno_name(0) == NULL);
	CHECK_STR(sysdecode__signame(10), "SIGUSR1");
	CHECK_STR(sysdecode__signame(34), "SIGRT_2");
	CHECK(sysdecode__signame(65) == NULL);
}

TEST(sysdecode_structs)
{
	unsigned char sin[16] = { 2, 0, 0x1f, 0x90, 127, 0, 0, 1 };
	unsigned char sun[20] = { 1, 0, '/', 't', 'm', 'p', '/', 's', 0 };
	unsigned char st[144] = { 0 };
	uint32_t mode = 020666;
	uint64_t rdev = (1 << 8) | 3, size = 4096;

	sbuf__reset(&b);
	sysdecode__sockaddr(&b, sin, 16);
	CHECK_STR(b.buf, "{sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr(\"127.0.0.1\")}");
	sbuf__reset(&b);
	sysdecode__sockaddr(&b, sun, 9);
	CHECK_STR(b.buf, "{sa_family=AF_UNIX, sun_path=\"/tmp/s\"}");
	memcpy(st + 24, &mode, 4);
	memcpy(st + 40, &rdev, 8);
	sbuf__reset(&b);
	sysdecode__stat(&b, st, sizeof(st));
	CHECK_STR(b.buf, "{st_mode=S_IFCHR|0666, st_rdev=makedev(0x1, 0x3), ...}");
	mode = 0100600;
	memcpy(st + 24, &mode, 4);
	memcpy(st + 48, &size, 8);
	sbuf__reset(&b);
	sysdecode__stat(&b, st, sizeof(st));
	CHECK_STR(b.buf, "{st_mode=S_IFREG|0600, st_size=4096, ...}");
}

static struct sc_event *event(int nr, long long ret)
{
	static struct sc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = TEV_SYSCALL;
	ev.nr = nr;
	ev.ret = ret;
	return &ev;
}

static const char *line(const struct sc_event *ev, int strsize)
{
	struct sysdecode_opts o = { .strsize = strsize };

	sbuf__reset(&b);
	sysdecode__call(&b, ev, &o, SD_WHOLE);
	sbuf__puts(&b, " ");
	sysdecode__ret(&b, ev);
	return b.buf;
}

TEST(sysdecode_whole_calls)
{
	struct sc_event *ev;

	ev = event(257, 3);	/* openat: the mode is left out without O_CREAT */
	ev->args[0] = (uint64_t)-100;
	ev->args[1] = 0x1000;
	ev->args[2] = 02000000;
	ev->args[3] = 0777;
	strcpy((char *)ev->data[0], "/etc/hostname");
	ev->cap_len[0] = 14;
	CHECK_STR(line(ev, 32), "openat(AT_FDCWD, \"/etc/hostname\", O_RDONLY|O_CLOEXEC) = 3");
	ev->args[2] = 01 | 0100;
	ev->args[3] = 0644;
	ev->ret = -ENOENT;
	CHECK_STR(line(ev, 32), "openat(AT_FDCWD, \"/etc/hostname\", O_WRONLY|O_CREAT, 0644) = -1 ENOENT (No such file or directory)");
	/* a path whose copy faulted both times is shown as its address */
	ev->cap_flags[0] = CAPF_FAULT;
	ev->cap_len[0] = 0;
	CHECK_STR(line(ev, 32), "openat(AT_FDCWD, 0x1000, O_WRONLY|O_CREAT, 0644) = -1 ENOENT (No such file or directory)");

	ev = event(0, 5);	/* read: the buffer as it was at exit, cut at -s */
	ev->args[0] = 3;
	ev->args[1] = 0x7ffd0000;
	ev->args[2] = 64;
	memcpy(ev->data[0], "host\n", 5);
	ev->cap_len[0] = 5;
	CHECK_STR(line(ev, 32), "read(3, \"host\\n\", 64) = 5");
	CHECK_STR(line(ev, 2), "read(3, \"ho\"..., 64) = 5");
	ev->ret = -EAGAIN;
	CHECK_STR(line(ev, 32), "read(3, 0x7ffd0000, 64) = -1 EAGAIN (Resource temporarily unavailable)");

	ev = event(9, 0x7f0000001000);	/* mmap */
	ev->args[1] = 8192;
	ev->args[2] = 3;
	ev->args[3] = 0x22;
	ev->args[4] = (uint64_t)-1;
	CHECK_STR(line(ev, 32), "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000001000");

	ev = event(231, 0);	/* exit_group never returns */
	ev->type = TEV_ENTER;
	ev->args[0] = 3;
	CHECK_STR(line(ev, 32), "exit_group(3) = ?");

	ev = event(302, 0);	/* prlimit64 with a struct out */
	ev->args[1] = 3;
	ev->args[3] = 0x7ffc0000;
	{
		uint64_t r[2] = { 8192 * 1024, ~0ull };

		memcpy(ev->data[1], r, 16);	/* slot 1: slot 0 is the new limit */
		ev->cap_len[1] = 16;
	}
	CHECK_STR(line(ev, 32), "prlimit64(0, RLIMIT_STACK, NULL, {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}) = 0");

	ev = event(13, 0);	/* rt_sigaction with a handler */
	ev->args[0] = 10;
	ev->args[1] = 0x7ffc1000;
	ev->args[3] = 8;
	{
		uint64_t sa[4] = { 0x401136, 0x04000000, 0x7f0000002000, 0 };

		memcpy(ev->data[0], sa, 32);
		ev->cap_len[0] = 32;
	}
	CHECK_STR(line(ev, 32), "rt_sigaction(SIGUSR1, {sa_handler=0x401136, sa_mask=[], sa_flags=SA_RESTORER, "
		  "sa_restorer=0x7f0000002000}, NULL, 8) = 0");

	ev = event(59, 0);	/* execve: argv, and the environment as a count */
	ev->args[0] = 0x1000;
	ev->args[1] = 0x2000;
	ev->args[2] = 0x3000;
	ev->aux = 37;
	strcpy((char *)ev->data[0], "/bin/true");
	ev->cap_len[0] = 10;
	memcpy(ev->data[1], "true\0-x\0", 8);
	ev->cap_len[1] = 8;
	CHECK_STR(line(ev, 32), "execve(\"/bin/true\", [\"true\", \"-x\"], 0x3000 /* 37 vars */) = 0");

	ev = event(72, 0x8002);	/* fcntl F_GETFL */
	ev->args[0] = 3;
	ev->args[1] = 3;
	CHECK_STR(line(ev, 32), "fcntl(3, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE)");

	ev = event(63, 0);	/* uname: the first two fields, then ... */
	ev->args[0] = 0x7ffc0000;
	memcpy(ev->data[0], "Linux", 6);
	memcpy(ev->data[0] + 65, "vm", 3);
	ev->cap_len[0] = 390;
	CHECK_STR(line(ev, 32), "uname({sysname=\"Linux\", nodename=\"vm\", ...}) = 0");

	ev = event(115, 2);	/* getgroups */
	ev->args[0] = 8;
	ev->args[1] = 0x7ffc0000;
	{
		uint32_t g[2] = { 0, 27 };

		memcpy(ev->data[0], g, 8);
		ev->cap_len[0] = 8;
	}
	CHECK_STR(line(ev, 32), "getgroups(8, [0, 27]) = 2");
	ev->args[0] = 0;
	CHECK_STR(line(ev, 32), "getgroups(0, []) = 2");

	ev = event(332, 0);	/* statx: sync type, AT_ flags, mask */
	ev->args[0] = (uint64_t)-100;
	ev->args[1] = 0x1000;
	ev->args[2] = 0x100 | 0x800;
	ev->args[3] = 0x25e;
	ev->args[4] = 0x2000;
	strcpy((char *)ev->data[0], "/tmp");
	ev->cap_len[0] = 5;
	ev->ret = -ENOENT;
	CHECK_STR(line(ev, 32), "statx(AT_FDCWD, \"/tmp\", AT_STATX_SYNC_AS_STAT|AT_SYMLINK_NOFOLLOW|AT_NO_AUTOMOUNT, "
		  "STATX_MODE|STATX_NLINK|STATX_UID|STATX_GID|STATX_MTIME|STATX_SIZE, 0x2000) = -1 ENOENT (No such file or directory)");

	ev = event(41, 3);	/* socket: strace's flag order, IPPROTO_ for inet */
	ev->args[0] = 2;
	ev->args[1] = 1 | 04000 | 02000000;
	CHECK_STR(line(ev, 32), "socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_IP) = 3");

	ev = event(400, 0);
	ev->nr = 999;	/* not in the table: a raw line, no crash */
	CHECK(strstr(line(ev, 32), "syscall_0x3e7(") != NULL);
	sbuf__free(&b);
}

TEST(syscalls_table_and_sets)
{
	bool set[SYSCALL_NR_MAX];
	char err[256];

	CHECK_STR(syscall__by_nr(257)->name, "openat");
	CHECK_INT(syscall__by_name("getppid")->nr, 110);
	CHECK_INT(syscall__by_name("exit_group")->nr, 231);
	CHECK(syscall__by_nr(600) == NULL);
	CHECK_INT(syscall__parse_set("open,read", set, err, sizeof(err)), 0);
	CHECK(set[0] && set[2] && !set[1]);
	CHECK_INT(syscall__parse_set("%file", set, err, sizeof(err)), 0);
	CHECK(set[257] && set[4] && !set[0]);
	CHECK_INT(syscall__parse_set("%network,%memory", set, err, sizeof(err)), 0);
	CHECK(set[42] && set[9] && !set[257]);
	CHECK_INT(syscall__parse_set("!write", set, err, sizeof(err)), 0);
	CHECK(!set[1] && set[0] && set[257]);
	CHECK_INT(syscall__parse_set("opne,read,%bogus", set, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "'opne', '%bogus'");
	CHECK_INT(syscall__parse_set("?opne,read", set, err, sizeof(err)), 0);
	CHECK_INT(syscall__parse_set("/^open", set, err, sizeof(err)), 0);
	CHECK(set[2] && set[257] && set[437] && set[304] && !set[0]);
	CHECK_INT(syscall__parse_set("/(", set, err, sizeof(err)), -EBADMSG);
	CHECK(!strncmp(err, "cannot compile the regular expression '(': ", 43));
	CHECK_INT(syscall__parse_set("file", set, err, sizeof(err)), 0);	/* strace's %file without % */
	CHECK(set[257] && set[4] && !set[0]);
}

/* every number the UAPI header names is in the table under that name (syscall_name() reads it too) */
TEST(syscalls_match_uapi_header)
{
	FILE *f = fopen("/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "r");
	char lineb[256], name[64];
	int nr, checked = 0;

	if (!f)
		return;	/* no linux-libc-dev here: the table is still the ABI */
	while (fgets(lineb, sizeof(lineb), f)) {
		const struct syscall_desc *d;

		if (sscanf(lineb, "#define __NR_%63s %d", name, &nr) != 2)
			continue;
		d = syscall__by_nr(nr);
		if (!d || strcmp(d->name, name))
			fprintf(stderr, "__NR_%s %d: the table has %s\n", name, nr, d ? d->name : "nothing");
		CHECK(d);
		CHECK_STR(d->name, name);
		checked++;
	}
	fclose(f);
	CHECK(checked > 300);
	CHECK_INT(syscall__by_name("file_setattr")->nr, 469);	/* newer than the header */
}

/* the argument counts agree with this kernel's tracefs formats wherever it has them */
TEST(syscalls_nargs_match_tracefs)
{
	const char *dir = "/sys/kernel/tracing/events/syscalls";
	static const struct { const char *tp, *name; } ren[] = {
		{ "newstat", "stat" }, { "newlstat", "lstat" }, { "newfstat", "fstat" },
		{ "newuname", "uname" }, { "sendfile64", "sendfile" }, { "umount", "umount2" },
	};
	DIR *d = opendir(dir);
	struct dirent *de;
	int checked = 0;

	if (!d)
		return;	/* no tracefs here: the table is still the ABI */
	while ((de = readdir(d))) {
		char path[512], lineb[256];
		const char *name;
		const struct syscall_desc *s;
		FILE *f;
		int fields = 0;

		if (strncmp(de->d_name, "sys_enter_", 10))
			continue;
		name = de->d_name + 10;
		for (size_t i = 0; i < sizeof(ren) / sizeof(ren[0]); i++)
			if (!strcmp(name, ren[i].tp))
				name = ren[i].name;
		s = syscall__by_name(name);
		if (!s)
			continue;	/* newer than the table */
		snprintf(path, sizeof(path), "%s/%s/format", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(lineb, sizeof(lineb), f))
			if (strstr(lineb, "field:") && !strstr(lineb, "common_") && !strstr(lineb, "__syscall_nr"))
				fields++;
		fclose(f);
		if (fields != s->nargs)
			fprintf(stderr, "%s: tracefs has %d arguments, the table %d\n", name, fields, s->nargs);
		CHECK_INT(fields, s->nargs);
		checked++;
	}
	closedir(d);
	CHECK(checked > 300);
}
