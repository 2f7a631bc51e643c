// SPDX-License-Identifier: GPL-2.0
/*
 * version.c - `sonde version` (and `sonde --version`): the version and the
 * commit the binary was built from; --features the capabilities compiled in.
 */
#include "sonde.h"
#include "opt.h"

static const char *const version_usage[] = {
	"sonde version [--features]",
	NULL,
};

int cmd_version(int argc, char **argv)
{
	bool features = false;
	const struct opt opts[] = {
		OPT_BOOL(0, "features", &features, "also the capabilities compiled in, and their libraries' versions"),
		OPT_END(),
	};

	argc = opt__parse(argc, argv, opts, version_usage, 0);
	if (argc)
		opt__usage_error(version_usage, opts, "takes no arguments");
	printf("sonde version %s (commit %s)\n", SONDE_VERSION, version__commit());
	if (!features)
		return 0;
	printf("features:\n");
	for (const struct version_feature *f = version__features(); f->name; f++)
		printf("  %-15s %-3s  %s\n", f->name, f->present ? "yes" : "no", f->what);
	return 0;
}
