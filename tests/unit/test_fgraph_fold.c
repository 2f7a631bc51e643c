// SPDX-License-Identifier: GPL-2.0
/* test_fgraph_fold.c - function_graph's text made folded stacks of own nanoseconds */
#include "unit.h"
#include "lib/tracefs/fgraph_fold.h"

#include <stdlib.h>

static char *fold(const char *text)
{
	struct fgraph_fold *f = fgraph_fold__new();
	char *copy = strdup(text), *sv, *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	for (char *l = strtok_r(copy, "\n", &sv); l; l = strtok_r(NULL, "\n", &sv))
		fgraph_fold__line(f, l);
	fgraph_fold__write(f, out);
	fclose(out);
	fgraph_fold__free(f);
	free(copy);
	return buf;
}

TEST(fgraph_fold_self_times)
{
	/* vfs_read 12.345 us: rw_verify_area 0.45 + security 1.2 (its own leaf 0.2) + its own 10.695 */
	char *s = fold("# tracer: function_graph\n"
		       " 1)               |  vfs_read() {\n"
		       " 1)   0.450 us    |    rw_verify_area();\n"
		       " 1)               |    security_file_permission() {\n"
		       " 1)   0.200 us    |      apparmor_file_permission();\n"
		       " 1)   1.200 us    |    }\n"
		       " 1) + 12.345 us   |  }\n"
		       " 1)   0.450 us    |  rw_verify_area();\n");

	CHECK_STR(s, "rw_verify_area 450\n"
		     "vfs_read 10695\n"
		     "vfs_read;rw_verify_area 450\n"
		     "vfs_read;security_file_permission 1000\n"
		     "vfs_read;security_file_permission;apparmor_file_permission 200\n");
	free(s);
}

TEST(fgraph_fold_cpus_markers_and_orphans)
{
	/* two CPUs interleaved, an irq marker, a task switch, an exit whose entry is before the trace */
	char *s = fold(" 0) ! 250.000 us  |  }\n"
		       " 0)               |  a() {\n"
		       " 1)               |  b() {\n"
		       " 0)   ==========> |\n"
		       " 0)   1.000 us    |    c();\n"
		       " ------------------------------------------\n"
		       " 1)    cat-12    =>    sh-13   \n"
		       " ------------------------------------------\n"
		       " 1)   2.500 us    |  }\n"
		       " 0)   3.000 us    |  }\n");

	CHECK_STR(s, "a 2000\na;c 1000\nb 2500\n");
	free(s);
}
