// SPDX-License-Identifier: GPL-2.0
/*
 * attach.c - test helper for the VM (t0100-vm-kernel): open and load a BPF
 * object whose programs count hits in slot N of the array map "hits" (N: the
 * program's place in the object), attach each program as its section says
 * (kprobe, kretprobe, fentry, fexit...), open /etc/hostname COUNT times, then
 * print one line per program: "SECTION HITS", or "SECTION error: WHY".
 * usage: attach OBJECT [COUNT]; exits 0 when every program attached.
 * Plain libbpf on purpose: it checks the kernel, not sonde's loaders.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PROGS 16

static int print_warnings(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int main(int argc, char **argv)
{
	struct bpf_link *links[MAX_PROGS] = { 0 };
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *map;
	int n = 0, failed = 0, count = argc > 2 ? atoi(argv[2]) : 100;

	if (argc < 2) {
		fprintf(stderr, "usage: attach OBJECT [COUNT]\n");
		return 2;
	}
	libbpf_set_print(print_warnings);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "attach: cannot load '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	map = bpf_object__find_map_by_name(obj, "hits");
	if (!map) {
		fprintf(stderr, "attach: '%s' has no map 'hits'\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		if (n == MAX_PROGS)
			break;
		links[n] = bpf_program__attach(prog);
		if (!links[n]) {
			printf("%s error: %s\n", bpf_program__section_name(prog), strerror(errno));
			failed = 1;
		}
		n++;
	}
	for (int i = 0; i < count; i++) {
		int fd = open("/etc/hostname", O_RDONLY);

		if (fd >= 0)
			close(fd);
	}
	n = 0;
	bpf_object__for_each_program(prog, obj) {
		__u32 key = n;
		__u64 hits = 0;

		if (n == MAX_PROGS)
			break;
		if (links[n]) {
			bpf_map__lookup_elem(map, &key, sizeof(key), &hits, sizeof(hits), 0);
			printf("%s %llu\n", bpf_program__section_name(prog), (unsigned long long)hits);
			bpf_link__destroy(links[n]);
		}
		n++;
	}
	bpf_object__close(obj);
	return failed;
}
