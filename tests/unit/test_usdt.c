// SPDX-License-Identifier: GPL-2.0
/* lib/symbol/usdt.c: the x86-64 SDT argument specs and the raw note parser */
#include "unit.h"

#include "lib/symbol/usdt.h"

#include <errno.h>
#include <string.h>

static int parse(const char *s, struct usdt_arg *a)
{
	char err[128];

	return usdt__parse_arg(s, strlen(s), a, err, sizeof(err));
}

TEST(usdt_arg_registers)
{
	struct usdt_arg a;

	CHECK_INT(parse("-4@%edi", &a), 0);
	CHECK_INT(a.kind, USDT_ARG_REG);
	CHECK_INT(a.size, 4);
	CHECK(a.sign);
	CHECK_INT(usdt__reg_offset(a.reg), 112);	/* pt_regs->di */
	CHECK_INT(parse("8@%rax", &a), 0);
	CHECK_INT(usdt__reg_offset(a.reg), 80);
	CHECK(!a.sign);
	CHECK_INT(parse("1@%ah", &a), 0);
	CHECK_INT(usdt__reg_offset(a.reg), 80);
	CHECK_INT(a.reg_shift, 8);
	CHECK_INT(parse("-2@%r12w", &a), 0);
	CHECK_INT(usdt__reg_offset(a.reg), 24);
	CHECK_INT(parse("1@%sil", &a), 0);
	CHECK_INT(usdt__reg_offset(a.reg), 104);
	CHECK_INT(parse("%esi", &a), 0);	/* no size: the register's */
	CHECK_INT(a.size, 4);
	CHECK(parse("4@%rip", &a) < 0);
	CHECK(parse("4@%xyz", &a) < 0);
	CHECK(parse("3@%eax", &a) < 0);
	CHECK(parse("4@%eax junk", &a) < 0);
}

TEST(usdt_arg_memory_and_constants)
{
	struct usdt_arg a;

	CHECK_INT(parse("4@$5", &a), 0);
	CHECK_INT(a.kind, USDT_ARG_CONST);
	CHECK_INT(a.val, 5);
	CHECK_INT(parse("-8@$-0x10", &a), 0);
	CHECK_INT(a.val, -16);
	CHECK_INT(parse("8@-16(%rbp)", &a), 0);
	CHECK_INT(a.kind, USDT_ARG_MEM);
	CHECK_INT(usdt__reg_offset(a.reg), 32);
	CHECK_INT(a.val, -16);
	CHECK_INT(a.index, -1);
	CHECK_INT(parse("-2@8(%rsp,%rdx,4)", &a), 0);
	CHECK_INT(usdt__reg_offset(a.reg), 152);
	CHECK_INT(usdt__reg_offset(a.index), 96);
	CHECK_INT(a.scale, 4);
	CHECK_INT(a.val, 8);
	CHECK_INT(parse("4@(,%rcx,8)", &a), 0);
	CHECK_INT(a.reg, -1);
	CHECK_INT(a.scale, 8);
	CHECK_INT(parse("-8@counter+8(%rip)", &a), 0);
	CHECK_INT(a.kind, USDT_ARG_RIP);
	CHECK_STR(a.sym, "counter");
	CHECK_INT(a.val, 8);
	CHECK(parse("8@5(%rip)", &a) < 0);	/* needs the instruction's length */
	CHECK(parse("8@sym(%rax)", &a) < 0);
	CHECK(parse("8@(%rax,%rbx,3)", &a) < 0);
	CHECK(parse("8@(%eax)", &a) < 0);
	CHECK(parse("8@()", &a) < 0);
	CHECK(parse("8@-16(%rbp", &a) < 0);
	CHECK(parse("8@%fs:0x28", &a) < 0);
}

TEST(usdt_args_string)
{
	struct usdt_arg a[USDT_MAX_ARGS];
	char err[128];

	CHECK_INT(usdt__parse_args("-1@%al 2@%dx  -8@%rdi", a, USDT_MAX_ARGS, err, sizeof(err)), 3);
	CHECK_INT(a[1].size, 2);
	CHECK_INT(usdt__parse_args("", a, USDT_MAX_ARGS, err, sizeof(err)), 0);
	CHECK(usdt__parse_args("4@%eax 4@%eax 4@%eax", a, 2, err, sizeof(err)) < 0);
}

static int count_one(const struct usdt_probe *p, void *ctx)
{
	int *n = ctx;

	if (!strcmp(p->provider, "prov") && !strcmp(p->name, "nm") && p->nargs == 2 && p->pc == 0x1234 && p->sem == 0x4000)
		(*n)++;
	return 0;
}

TEST(usdt_notes_raw)
{
	unsigned char buf[256] = { 0 };
	size_t off = 0;
	uint32_t hdr[3] = { 8, 0, 3 };
	uint64_t addrs[3] = { 0x1234, 0x2000, 0x4000 };
	const char strs[] = "prov\0nm\0-4@%edi 8@%rsi";	/* and its NUL */
	int n = 0;

	hdr[1] = sizeof(addrs) + sizeof(strs);
	memcpy(buf, hdr, 12);
	memcpy(buf + 12, "stapsdt", 8);
	memcpy(buf + 20, addrs, sizeof(addrs));
	memcpy(buf + 44, strs, sizeof(strs));
	off = 44 + ((sizeof(strs) + 3) & ~3u);
	CHECK_INT(usdt__parse_notes(buf, off, true, count_one, &n), 1);
	CHECK_INT(n, 1);
	CHECK_INT(usdt__parse_notes(buf, off - 8, true, count_one, &n), -EINVAL);	/* cut short */
	hdr[2] = 1;	/* another note type: skipped */
	memcpy(buf, hdr, 12);
	CHECK_INT(usdt__parse_notes(buf, off, true, count_one, &n), 0);
}
