// SPDX-License-Identifier: GPL-2.0
/*
 * btfgen.c - the BTF a program with subprograms must bring: the verifier
 * refuses a callback (an LD_IMM64 of a BPF_PSEUDO_FUNC) without func_info
 * ("missing btf func_info"), and wants the callback of static linkage. One
 * FUNC per subprogram: the main one global, `long sonde_main(void *ctx)`, the
 * callbacks static, `long sonde_cbN(void *map, void *key, void *value,
 * void *ctx)` (bpf_for_each_map_elem's callback).
 */
#include "lang/btfgen.h"

#include <bpf/btf.h>
#include <errno.h>
#include <linux/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_func(struct btf *btf, const char *name, int linkage, int ret, int ptr, int nparams)
{
	static const char *params[] = { "map", "key", "value", "ctx" };
	int proto = btf__add_func_proto(btf, ret);

	if (proto < 0)
		return proto;
	for (int i = 0; i < nparams; i++) {
		int rc = btf__add_func_param(btf, nparams == 1 ? "ctx" : params[i], ptr);

		if (rc < 0)
			return rc;
	}
	return btf__add_func(btf, name, linkage, proto);
}

struct btf *btfgen__funcs(const struct bpf_code *c, struct bpf_func_info **info, char *err, size_t errlen)
{
	struct btf *btf = btf__new_empty();
	struct bpf_func_info *fi = calloc(c->nsubs + 1, sizeof(*fi));
	int rc = btf ? 0 : -errno;

	*info = NULL;
	if (!fi)
		rc = -ENOMEM;
	int lng = rc ? rc : btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	int ptr = lng < 0 ? lng : btf__add_ptr(btf, 0);	/* void * */

	rc = ptr < 0 ? ptr : 0;
	for (int i = 0; i <= c->nsubs && !rc; i++) {
		char name[32];
		int id;

		if (i == 0)
			id = add_func(btf, "sonde_main", BTF_FUNC_GLOBAL, lng, ptr, 1);
		else {
			snprintf(name, sizeof(name), "sonde_cb%d", i);
			id = add_func(btf, name, BTF_FUNC_STATIC, lng, ptr, 4);
		}
		if (id < 0)
			rc = id;
		else
			fi[i] = (struct bpf_func_info){ .insn_off = i ? (uint32_t)c->subs[i - 1] : 0, .type_id = (uint32_t)id };
	}
	if (!rc && btf__load_into_kernel(btf))
		rc = -errno;
	if (rc) {
		snprintf(err, errlen, "cannot make the BTF for a program with for loops: %s", strerror(-rc));
		btf__free(btf);
		free(fi);
		return NULL;
	}
	*info = fi;
	return btf;
}
