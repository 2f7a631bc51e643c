// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - a fuzz target without libFuzzer: runs LLVMFuzzerTestOneInput on
 * every file named (a directory: every file in it), once each, in name order.
 * `make test` links each target with this, against the ASan/UBSan build of the
 * library (build-san/fuzz-replay/), to run the committed corpus as regression
 * tests: a crash, a leak or a sanitizer report fails, and the file that did
 * it is named first. The clang/libFuzzer build (`make fuzz`, `make fuzz-long`)
 * is where new inputs are searched for.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? 2 * cap : 65536);

			if (!nb) {
				fprintf(stderr, "replay: %s: out of memory\n", path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	/* said before the run: if it crashes, the last line names the input */
	fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	int runs = 0, bad = 0;

	for (int i = 1; i < argc; i++) {
		struct dirent **ents;
		struct stat st;
		int n;

		if (stat(argv[i], &st) || !S_ISDIR(st.st_mode)) {
			bad |= run_file(argv[i]);
			runs++;
			continue;
		}
		if ((n = scandir(argv[i], &ents, NULL, by_name)) < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		for (int j = 0; j < n; j++) {
			char path[4096];

			if (ents[j]->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", argv[i], ents[j]->d_name);
				bad |= run_file(path);
				runs++;
			}
			free(ents[j]);
		}
		free(ents);
	}
	printf("replay: %d inputs\n", runs);
	return bad ? 1 : 0;
}
