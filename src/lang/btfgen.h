/* SPDX-License-Identifier: GPL-2.0 */
/*
 * btfgen.h - the BTF (one FUNC per subprogram) and the func_info a program
 * with for-loop callbacks is loaded with. The caller owns both: btf__free()
 * the BTF (which closes its fd) and free() the func_info after the load.
 */
#ifndef SONDE_LANG_BTFGEN_H
#define SONDE_LANG_BTFGEN_H

#include "lang/gen.h"

#include <linux/bpf.h>
#include <stddef.h>

struct btf;

/* the BTF loaded into the kernel (btf__fd()) and c->nsubs + 1 func_info records; NULL with err filled */
struct btf *btfgen__funcs(const struct bpf_code *c, struct bpf_func_info **info, char *err, size_t errlen);

#endif
