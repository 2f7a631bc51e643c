// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_lang.c - the probe language's front end and code generator must reject
 * garbage with a located error, never crash: parse, check and generate code for
 * programs whose probes need no kernel (BEGIN/END), parse only the others.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lang/gen.h"
#include "lang/lang.h"
#include "lang/provider.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct program *p;
	bool pure = true;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	p = lang__new("fuzz", s, size);
	if (!p) {
		free(s);
		return 0;
	}
	if (lang__parse(p) || lang__expand_macros(p)) {
		if (!p->err)
			abort();	/* every rejection says where and why */
		goto out;
	}
	for (struct probe *pr = p->probes; pr; pr = pr->next)
		for (struct attach *ap = pr->aps; ap; ap = ap->next)
			pure &= !strcmp(ap->prov, "BEGIN") || !strcmp(ap->prov, "END");
	if (!pure || provider__expand_all(p, -1))
		goto out;
	if (lang__check(p)) {
		if (!p->err)
			abort();
		goto out;
	}
	struct gen_env env = { .start_ns = 1, .cpid = 1, .ncpus = 2 };

	for (struct probe *pr = p->probes; pr; pr = pr->next)
		for (struct ap_inst *in = pr->inst; in; in = in->next) {
			struct bpf_code c;

			if (gen__probe(p, pr, in, &env, &c) == 0) {
				if (c.n < 2 || c.insns[c.n - 1].code != (BPF_JMP | BPF_EXIT))
					abort();
				/* a for loop's callback address points at the start of a subprogram */
				for (int i = 0; i + 1 < c.n; i++) {
					bool ok = false;

					if (c.insns[i].code != (BPF_LD | BPF_DW | BPF_IMM) || c.insns[i].src_reg != BPF_PSEUDO_FUNC)
						continue;
					for (int k = 0; k < c.nsubs; k++)
						ok |= c.subs[k] == i + c.insns[i].imm + 1;
					if (!ok)
						abort();
				}
				bpf_code__free(&c);
			} else if (!p->err) {
				abort();
			}
		}
out:
	lang__free(p);
	free(s);
	return 0;
}
