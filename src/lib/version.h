/* SPDX-License-Identifier: GPL-2.0 */
/*
 * version.h - sonde's version: `sonde --version` prints it and the perf.data
 * writer stores it in the VERSION feature (perf report --header shows it).
 * It lives in the engine so the engine never includes upward (sonde.h). What
 * it returns is static: nobody frees it.
 */
#ifndef SONDE_LIB_VERSION_H
#define SONDE_LIB_VERSION_H

#include <stdbool.h>

#define SONDE_VERSION "0.1.0"

/* a capability compiled in (or not), for `sonde version --features` */
struct version_feature {
	const char *name;	/* NULL ends the table */
	bool present;
	const char *what;	/* what it gives, and the library version behind it */
};

/* the git commit the binary was built from ("53b6fca7d1e2", "-dirty" when the tree had changes), or "unknown" */
const char *version__commit(void);
/* the table of capabilities, ending with a NULL name; static, never freed. serve and tls
 * are yes only when their libraries, opened at run time, open here (lib/serve/dynlib.c) */
const struct version_feature *version__features(void);

#endif
