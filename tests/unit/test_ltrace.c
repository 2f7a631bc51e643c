// SPDX-License-Identifier: GPL-2.0
/*
 * test_ltrace.c - sonde ltrace's pure parts: the PLT reader (on the built
 * workload ltracee), the prototypes and ltrace's text of values, the -e
 * filter chains and the capture plans.
 */
#include "unit.h"
#include "lib/ltrace/conf.h"
#include "lib/ltrace/filter.h"
#include "lib/ltrace/funcs.h"
#include "lib/ltrace/plt.h"
#include "lib/ltrace/proto.h"
#include "ui/ltrace_print.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct plt_entry *plt_find(const struct elf_obj *o, const char *name)
{
	for (int i = 0; i < o->nr_plt; i++)
		if (!strcmp(o->plt[i].name, name))
			return &o->plt[i];
	return NULL;
}

TEST(ltrace_plt_reads_the_stubs_of_a_workload)
{
	static const char *const want[] = { "strlen", "malloc", "free", "puts", "fflush", "atoi", "getenv",
					    "strcmp", "toupper", "rand", "exit", "fork", "waitpid" };
	char path[4200];
	struct elf_obj o;
	int fd;

	unit__workload("ltracee", path, sizeof(path));
	CHECK_INT(elf_obj__read(&o, path), 0);
	CHECK_STR(o.soname, "ltracee");
	CHECK(o.interp && o.dynamic && !o.go);
	CHECK(o.nr_needed >= 1);
	CHECK_STR(o.needed[o.nr_needed - 1], "libc.so.6");
	CHECK(!elf_obj__defines(&o, "malloc"));	/* imported, not defined */
	CHECK((fd = open(path, O_RDONLY)) >= 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct plt_entry *e = plt_find(&o, want[i]);
		unsigned char b[6];
		int32_t disp;

		CHECK(e != NULL);
		CHECK(e->vaddr % 16 == 0);
		/* the stub begins with its jump through the GOT, or endbr64 in an IBT build */
		CHECK_INT(pread(fd, b, 6, e->offset), 6);
		CHECK((b[0] == 0xff && b[1] == 0x25) || (b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e));
		/* the GOT slot it jumps through (the BPF side jumps for it) */
		memcpy(&disp, b + 2, 4);
		CHECK(e->got && (b[0] != 0xff || e->got == e->vaddr + 6 + (int64_t)disp));
	}
	close(fd);
	for (int i = 1; i < o.nr_plt; i++)
		CHECK(o.plt[i].vaddr > o.plt[i - 1].vaddr);
	elf_obj__free(&o);
}

/*
 * Another tracer's uprobes on the stubs, attached in every process: the kernel
 * puts their int3 into any mapping of the file that may run, a read-only one
 * too; the stubs are still found (read from the file, not from a mapping)
 */
TEST(ltrace_plt_reads_the_stubs_under_other_uprobes)
{
	char src[4200], dir[] = "/tmp/sonde-unit-plt.XXXXXX", path[4200], cmd[8600];
	struct elf_obj o, again;
	int fds[64], nfd = 0, fd;
	bool int3 = false;
	struct stat sb;
	void *map;

	unit__workload("ltracee", src, sizeof(src));
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/ltracee", dir);	/* a copy: the e2e tests run the workload */
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, path);
	CHECK_INT(system(cmd), 0);
	CHECK_INT(elf_obj__read(&o, path), 0);
	CHECK(o.nr_plt >= 10);
	for (int i = 0; i < o.nr_plt && nfd < 64; i++)
		if ((fds[nfd] = unit__uprobe_everywhere(path, o.plt[i].offset)) >= 0)
			nfd++;
	CHECK_INT(nfd, o.nr_plt);
	/* the premise: a mapping of the file shows the breakpoints */
	CHECK((fd = open(path, O_RDONLY)) >= 0 && !fstat(fd, &sb));
	map = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(map != MAP_FAILED);
	if (map != MAP_FAILED) {
		int3 = ((unsigned char *)map)[o.plt[0].offset] == 0xcc;
		munmap(map, sb.st_size);
	}
	close(fd);
	CHECK(int3);
	CHECK_INT(elf_obj__read(&again, path), 0);
	CHECK_INT(again.nr_plt, o.nr_plt);
	for (int i = 0; i < o.nr_plt && i < again.nr_plt; i++)
		CHECK_STR(again.plt[i].name, o.plt[i].name);
	while (nfd > 0)
		close(fds[--nfd]);
	elf_obj__free(&again);
	elf_obj__free(&o);
	unlink(path);
	rmdir(dir);
}

TEST(ltrace_libs_in_load_order_export_libc)
{
	struct elf_obj o, *libs;
	char path[4200];
	int n;

	unit__workload("ltracee", path, sizeof(path));
	CHECK_INT(elf_obj__read(&o, path), 0);
	CHECK_INT(ltrace_libs__find(&o, 0, &libs, &n), 0);
	CHECK(n >= 1);
	CHECK_STR(libs[0].soname, "libc.so.6");
	CHECK(elf_obj__defines(&libs[0], "malloc"));
	CHECK(elf_obj__defines(&libs[0], "strlen"));	/* an IFUNC */
	CHECK(!elf_obj__defines(&libs[0], "no_such_function_here"));
	ltrace_libs__free(libs, n);
	elf_obj__free(&o);
}

TEST(ltrace_plt_rejects_what_is_no_elf)
{
	struct elf_obj o;
	static const char junk[] = "\177ELF but not really";

	CHECK_INT(elf_obj__read_mem(&o, junk, sizeof(junk), "junk"), -ENOEXEC);
	CHECK_INT(elf_obj__read_mem(&o, "", 0, "empty"), -ENOEXEC);
	CHECK_INT(elf_obj__read(&o, "/nonexistent-ltrace"), -ENOENT);
}

static const char *fmt(char t, uint64_t v, const char *s, int len, int strmax)
{
	static struct sbuf o;
	struct lt_val val = { v, s, len, false };

	sbuf__reset(&o);
	lt_format__value(&o, t, &val, strmax);
	return o.buf ? o.buf : "";
}

TEST(ltrace_values_as_ltrace_writes_them)
{
	CHECK_STR(fmt('s', 1, "hello", 6, 32), "\"hello\"");
	CHECK_STR(fmt('s', 1, "hello", 6, 3), "\"hel\"...");
	CHECK_STR(fmt('s', 1, "a\tb\n\001\\", 7, 32), "\"a\\tb\\n\\001\\\\\"");
	CHECK_STR(fmt('s', 0, NULL, -14, 32), "nil");
	CHECK_STR(fmt('s', 0x1234567, NULL, -14, 32), "0x1234567");	/* unreadable: the address */
	CHECK_STR(fmt('b', 1, "ab\0c", 4, 32), "\"ab\\0c\"");
	CHECK_STR(fmt('c', 'a', NULL, -1, 32), "'a'");
	CHECK_STR(fmt('c', 0xffffffff, NULL, -1, 32), "'EOF'");
	CHECK_STR(fmt('i', 0xffffffff, NULL, -1, 32), "-1");
	CHECK_STR(fmt('u', 0xffffffff, NULL, -1, 32), "4294967295");
	CHECK_STR(fmt('L', 100, NULL, -1, 32), "100");
	CHECK_STR(fmt('p', 0x55d0aabbccdd, NULL, -1, 32), "0x55d0aabbccdd");
	CHECK_STR(fmt('p', 0, NULL, -1, 32), "0");
	CHECK_STR(fmt('o', 4, NULL, -1, 32), "04");
	CHECK_STR(fmt('v', 7, NULL, -1, 32), "<void>");
	CHECK_STR(fmt('k', 6, NULL, -1, 32), "LC_ALL");
	CHECK_STR(fmt('k', 99, NULL, -1, 32), "99");
	CHECK_STR(fmt('g', 15, NULL, -1, 32), "SIGTERM");
	CHECK_STR(fmt('g', 0, NULL, -1, 32), "0");
	/* ltrace's guess: decimal from -10000 to 10000, hex beyond */
	CHECK_STR(fmt('?', 10000, NULL, -1, 32), "10000");
	CHECK_STR(fmt('?', 10001, NULL, -1, 32), "0x2711");
	CHECK_STR(fmt('?', (uint64_t)-10000, NULL, -1, 32), "-10000");
	CHECK_STR(fmt('?', 0x6b8b4567, NULL, -1, 32), "0x6b8b4567");
}

TEST(ltrace_prototypes_and_arguments)
{
	struct lt_val args[LT_MAX_ARGS] = { { 1, "%d:%s|%c\n", 10, false }, { 42, NULL, -1, false },
					     { 2, "xy", 3, false }, { 'q', NULL, -1, false } };
	struct sbuf o = { 0 };
	struct lt_proto p;

	CHECK_INT(lt_proto__parse(lt_proto__lookup("strlen"), &p), 0);
	CHECK_INT(p.ret, 'L');
	CHECK_INT(p.nargs, 1);
	CHECK_INT(lt_proto__parse(lt_proto__lookup("SYS_write"), &p), 0);
	CHECK_INT(p.arg[1], 'b');
	CHECK_INT(p.lenarg[1], 2);
	CHECK(lt_proto__lookup("no_such_function") == NULL);
	CHECK_INT(lt_proto__parse("L(s", &p), -EINVAL);
	CHECK_INT(lt_proto__parse("b(s)", &p), -EINVAL);
	CHECK_INT(lt_proto__parse("i(fs)", &p), -EINVAL);
	CHECK_INT(lt_proto__parse("i(iiiiiii)", &p), -EINVAL);
	CHECK_INT(lt_proto__parse("i(b9)", &p), -EINVAL);
	/* printf: the format's conversions take the next registers */
	CHECK_INT(lt_proto__parse("i(f)", &p), 0);
	lt_format__args(&o, &p, args, 32);
	CHECK_STR(o.buf, "\"%d:%s|%c\\n\", 42, \"xy\", 'q'");
	sbuf__reset(&o);
	lt_proto__default(&p);
	lt_format__args(&o, &p, args, 32);
	CHECK_STR(o.buf, "1, 42, 2, 113");
	sbuf__free(&o);
	CHECK_INT(lt_proto__ctype("const char*"), 's');
	CHECK_INT(lt_proto__ctype("size_t"), 'L');
	CHECK_INT(lt_proto__ctype("struct foo*"), 'p');
	CHECK_INT(lt_proto__ctype("struct foo"), '?');
}

TEST(ltrace_every_builtin_prototype_parses)
{
	static const char *const names[] = { "strlen", "malloc", "free", "puts", "getenv", "printf", "snprintf",
					     "fprintf", "write", "read", "memcpy", "strcmp", "toupper", "exit",
					     "waitpid", "SYS_write", "SYS_exit_group", "SYS_brk", "SYS_open" };
	struct lt_proto p;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *sig = lt_proto__lookup(names[i]);

		CHECK(sig != NULL);
		CHECK_INT(lt_proto__parse(sig, &p), 0);
	}
}

TEST(ltrace_filter_chains)
{
	struct lt_filter *f = NULL;
	char err[256] = "";

	/* no -e: the main executable's calls */
	CHECK(lt_filter__match(NULL, "malloc", "ltracee", "/x/ltracee", true));
	CHECK(!lt_filter__match(NULL, "malloc", "libc.so.6", "/lib/libc.so.6", false));
	CHECK_INT(lt_filter__parse(&f, "malloc+free", err, sizeof(err)), 0);
	CHECK(lt_filter__match(f, "malloc", "libc.so.6", "/lib/libc.so.6", false));
	CHECK(lt_filter__match(f, "free", "ltracee", "/x/ltracee", true));
	CHECK(!lt_filter__match(f, "strlen", "ltracee", "/x/ltracee", true));
	CHECK(lt_filter__libraries(f));
	lt_filter__free(f);
	f = NULL;
	CHECK_INT(lt_filter__parse(&f, "malloc-@libc.so*", err, sizeof(err)), 0);
	CHECK(lt_filter__match(f, "malloc", "ltracee", "/x/ltracee", true));
	CHECK(!lt_filter__match(f, "malloc", "libc.so.6", "/lib/libc.so.6", false));
	lt_filter__free(f);
	f = NULL;
	/* a chain that starts by taking out starts from everything; ! is - */
	CHECK_INT(lt_filter__parse(&f, "!strlen", err, sizeof(err)), 0);
	CHECK(!lt_filter__match(f, "strlen", "ltracee", "/x/ltracee", true));
	CHECK(lt_filter__match(f, "puts", "libc.so.6", "/lib/libc.so.6", false));
	lt_filter__free(f);
	f = NULL;
	CHECK_INT(lt_filter__parse(&f, "str*@MAIN", err, sizeof(err)), 0);
	CHECK(lt_filter__match(f, "strcmp", "ltracee", "/x/ltracee", true));
	CHECK(!lt_filter__match(f, "strcmp", "MAIN", "/x/MAIN", false));
	CHECK(!lt_filter__libraries(f));
	CHECK_INT(lt_filter__parse(&f, "/^to/", err, sizeof(err)), 0);	/* appends: either rule */
	CHECK(lt_filter__match(f, "toupper", "ltracee", "/x/ltracee", true));
	CHECK(lt_filter__match(f, "toupper", "libc.so.6", "/lib/libc.so.6", false));
	lt_filter__free(f);
	f = NULL;
	/* stacked repetitions: refused in one line, not 2 GB in glibc's regcomp (found by fuzz_plt) */
	CHECK_INT(lt_filter__parse(&f, "/a+++++++++++++++++++++++++++++b/", err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "cannot compile the regular expression '/a++") != NULL);
	lt_filter__free(f);
	f = NULL;
	CHECK_INT(lt_filter__parse(&f, "*@/lib/*", err, sizeof(err)), 0);	/* a path */
	CHECK(lt_filter__match(f, "x", "libc.so.6", "/lib/libc.so.6", false));
	CHECK(!lt_filter__match(f, "x", "ltracee", "/x/ltracee", true));
	lt_filter__free(f);
	f = NULL;
	CHECK_INT(lt_filter__parse(&f, "/[/", err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "cannot compile") != NULL);
	lt_filter__free(f);
	f = NULL;
	CHECK_INT(lt_filter__parse(&f, "a++b", err, sizeof(err)), -EINVAL);
	lt_filter__free(f);
}

TEST(ltrace_capture_plans)
{
	struct lt_proto p;
	struct lt_plan pl;

	CHECK_INT(lt_proto__parse("s(s)", &p), 0);	/* getenv: its argument, then its value */
	lt_plan__of(&p, &pl);
	CHECK_INT(pl.n, 2);
	CHECK_INT(pl.arg[0], 0);
	CHECK_INT(pl.arg[1], LT_RET_ARG);
	CHECK_INT(lt_proto__parse("l(ib3L)", &p), 0);	/* write: bytes counted by its third argument */
	lt_plan__of(&p, &pl);
	CHECK_INT(pl.n, 1);
	CHECK_INT(pl.mode[0], LT_CAP_BUF);
	CHECK_INT(pl.len[0], 2);
	CHECK_INT(lt_proto__parse("i(pLf)", &p), 0);	/* snprintf: the format and two more registers */
	lt_plan__of(&p, &pl);
	CHECK_INT(pl.n, LT_NSTR);
	CHECK_INT(pl.arg[0], 2);
	CHECK_INT(pl.arg[2], 4);
	lt_proto__default(&p);
	lt_plan__of(&p, &pl);
	CHECK_INT(pl.n, 0);
}

TEST(ltrace_conf_lines_become_signatures)
{
	char name[64], sig[32];

	CHECK_INT(lt_conf__parse_line("int atoi(string);\n", name, sizeof(name), sig, sizeof(sig)), 0);
	CHECK_STR(name, "atoi");
	CHECK_STR(sig, "i(s)");
	CHECK_INT(lt_conf__parse_line("  ulong strlen( addr ) ;", name, sizeof(name), sig, sizeof(sig)), 0);
	CHECK_STR(sig, "L(p)");
	CHECK_INT(lt_conf__parse_line("void free(void);", name, sizeof(name), sig, sizeof(sig)), 0);
	CHECK_STR(sig, "v()");
	CHECK_INT(lt_conf__parse_line("hex(int) f(string[arg2], array(char, 4), octal);", name, sizeof(name), sig,
				      sizeof(sig)), 0);
	CHECK_STR(name, "f");
	CHECK_STR(sig, "x(spo)");
	CHECK_INT(lt_conf__parse_line("; a comment", name, sizeof(name), sig, sizeof(sig)), 1);
	CHECK_INT(lt_conf__parse_line("", name, sizeof(name), sig, sizeof(sig)), 1);
	CHECK_INT(lt_conf__parse_line("frob bar(int);", name, sizeof(name), sig, sizeof(sig)), -EINVAL);
	CHECK_INT(lt_conf__parse_line("int bar(int", name, sizeof(name), sig, sizeof(sig)), -EINVAL);
	CHECK_INT(lt_conf__parse_line("int g(int, int, int, int, int, int, int);", name, sizeof(name), sig,
				      sizeof(sig)), -EINVAL);
}

/* an ltrace_event of type for thread tid, function idx; a string arg 0 read as str (NULL: it faulted) */
static void lt_ev(struct lt_event *e, unsigned type, unsigned tid, unsigned idx, unsigned long long ts,
		  const char *str, unsigned long long ret)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->pid = e->tid = tid;
	e->idx = idx;
	e->ts = ts;
	e->args[0] = type == LT_RETURN ? ret : 0x5500000000ULL + idx;
	if (str || type == LT_ENTRY) {
		e->nstr = 1;
		e->str_arg[0] = 0;
		e->str_len[0] = str ? (short)strlen(str) + 1 : -14;
		if (str)
			strcpy(e->str[0], str);
	}
}

/*
 * A forked child's first strlen: its string was not resident at the entry and
 * comes with the return, and the parent's line comes between them. The entry
 * keeps its place and its string, as ltrace prints it: "strlen("hello"
 * <unfinished ...>"; the records behind it keep their order.
 */
TEST(ltrace_print_string_from_the_return_keeps_the_order)
{
	struct ltrace_func f[2] = { { .name = "strlen" }, { .name = "toupper" } };
	struct ltrace_printer p;
	struct lt_event e;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	CHECK(out);
	CHECK_INT(lt_proto__parse(lt_proto__lookup("strlen"), &f[0].proto), 0);
	CHECK_INT(lt_proto__parse(lt_proto__lookup("toupper"), &f[1].proto), 0);
	ltrace_printer__init(&p, out);
	p.funcs = f;
	p.nr_funcs = 2;
	p.pid_prefix = 1;
	lt_ev(&e, LT_ENTRY, 20, 0, 1, NULL, 0);		/* child: strlen(<not resident>) */
	CHECK_INT(ltrace_printer__event(&p, &e, sizeof(e)), 0);
	lt_ev(&e, LT_ENTRY, 10, 1, 2, NULL, 0);		/* parent: toupper('a') */
	e.nstr = 0;
	e.args[0] = 'a';
	CHECK_INT(ltrace_printer__event(&p, &e, LT_EV_HDR), 0);
	lt_ev(&e, LT_RETURN, 10, 1, 3, NULL, 'A');
	CHECK_INT(ltrace_printer__event(&p, &e, LT_EV_HDR), 0);
	lt_ev(&e, LT_RETURN, 20, 0, 4, "hello", 5);		/* child: the return reads it again */
	CHECK_INT(ltrace_printer__event(&p, &e, sizeof(e)), 0);
	lt_ev(&e, LT_ENTRY, 20, 0, 5, NULL, 0);		/* never resident: the address, once alone */
	CHECK_INT(ltrace_printer__event(&p, &e, sizeof(e)), 0);
	ltrace_printer__flush(&p);
	fclose(out);
	CHECK_STR(buf, "[pid 20] strlen(\"hello\" <unfinished ...>\n"
		       "[pid 10] toupper('a')                            = 'A'\n"
		       "[pid 20] <... strlen resumed> )                  = 5\n"
		       "[pid 20] strlen(0x5500000000 <unfinished ...>\n");
	ltrace_printer__fini(&p);
	free(buf);
}
