// SPDX-License-Identifier: GPL-2.0
/*
 * builtins.c - the builtin variables' table, and the lookup of a function's
 * row in the families' tables (builtins.h).
 */
#include "lang/builtins/builtins.h"

#include <ctype.h>
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

/* every family's table (adding a family: its table here and in builtins.h) */
static const struct builtin *const families[] = {
	builtins_output, builtins_maps, builtins_strings, builtins_stacks, builtins_time, builtins_net,
	builtins_task, builtins_types, builtins_packets,
};

const struct builtin *builtin__func(const char *name)
{
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++)
		for (const struct builtin *b = families[f]; b->name; b++)
			if (!strcmp(b->name, name))
				return b;
	return NULL;
}

const struct builtin *builtin__of(const struct node *n)
{
	static const struct builtin *by_id[F_END];

	if (n->op <= 0 || n->op >= F_END)
		return NULL;
	if (!by_id[n->op])
		for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++)
			for (const struct builtin *b = families[f]; b->name; b++)
				if ((int)b->id == n->op && !by_id[n->op])
					by_id[n->op] = b;
	return by_id[n->op];
}
