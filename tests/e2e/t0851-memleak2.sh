#!/bin/bash
# t0851: `sonde memleak`, the second part: --preload (a malloc shim in the
# command's LD_PRELOAD instead of uprobes), --pprof (inuse_objects and
# inuse_space), the leak flame graph, -t, and bad input (a static binary with
# --preload, a Go binary, another allocator by --lib). The workload leaks
# exactly 5 x 100 bytes from leak_small() and 3 x 4096 bytes from leak_big()
# and frees everything else (tests/workloads/leaky.c).
. "$(dirname "$0")/../lib.sh"

LEAKY=$WORKLOADS/leaky
PROTO=$ROOT/tests/e2e/data

test_expect_success '--preload takes a command: with -p or without one, a usage error' '
	rc=0 && $SONDE memleak --preload -p 1 2>err || rc=$?
	test $rc -eq 129 && grep -q "^sonde: --preload needs a command (-c or --)" err &&
	rc=0 && $SONDE memleak --preload 2>err || rc=$?
	test $rc -eq 129
'
require_root 'memleak on a known workload'

# the stacks of a report: "BYTES COUNT first-frame-function second-frame-function"
stacks() {
	awk '/^\t[0-9]+ bytes in [0-9]+ allocations from stack$/ { if (s) print s; s = $1 " " $4; n = 0; next }
	     /^\t\t/ { if (n++ < 2) { f = $1; sub(/\+0x[0-9a-f]+$/, "", f); s = s " " f }; next }
	     { if (s) print s; s = "" }
	     END { if (s) print s }' "$@"
}
printf "500 5 leak_small main\n12288 3 leak_big main\n" >"$TMP/want"

test_expect_success '--preload -o 0 -- CMD: exactly the leaked bytes and blocks, the frames the uprobes give' '
	$SONDE memleak --preload -o 0 -- "$LEAKY" 50 >out 2>err &&
	head -1 out | grep -q "^Attaching to pid [0-9]*, Ctrl+C to quit\.$" &&
	stacks out >got && test_cmp want got &&
	$SONDE memleak -o 0 -- "$LEAKY" 50 >up 2>err &&
	grep "^		" out >f1 && grep "^		" up >f2 && test_cmp f2 f1
'
test_expect_success '--preload with -a, -s 16, -z, -Z, -T 1, -o, -c and --combined-only' '
	$SONDE memleak --preload -o 0 -a -- "$LEAKY" 50 >out 2>err &&
	grep "^	addr = " out | sed "s/addr = [0-9a-f]*/addr = X/" >got &&
	printf "\taddr = X size = %s\n" 100 100 100 100 100 4096 4096 4096 >w && test_cmp w got &&
	$SONDE memleak --preload -o 0 -s 16 -- "$LEAKY" 50 >out 2>err && stacks out >got &&
	printf "500 5 leak_small main\n4096 1 leak_big main\n" >w && test_cmp w got &&
	$SONDE memleak --preload -o 0 -z 200 -- "$LEAKY" 50 >out 2>err && stacks out >got &&
	sed -n 2p want >w && test_cmp w got &&
	$SONDE memleak --preload -o 0 -Z 200 -- "$LEAKY" 50 >out 2>err && stacks out >got &&
	sed -n 1p want >w && test_cmp w got &&
	$SONDE memleak --preload -o 0 -T 1 -- "$LEAKY" 50 >out 2>err && stacks out >got &&
	sed -n 2p want >w && test_cmp w got &&
	$SONDE memleak --preload -o 60000 -- "$LEAKY" 50 >out 2>err && stacks out >got && ! test -s got &&
	$SONDE memleak --preload -o 0 -c "$LEAKY 50" >out 2>err && stacks out >got && test_cmp want got &&
	$SONDE memleak --preload --combined-only -- "$LEAKY" 50 >out 2>err && stacks out >got && test_cmp want got
'
test_expect_success '--preload, threads and a fork: 4 threads leak 10 x 32 bytes each, the child is not counted' '
	cat >thr.c <<-EOF &&
	#include <pthread.h>
	#include <stdlib.h>
	#include <sys/wait.h>
	#include <unistd.h>
	static void *leak_thread(void) { return malloc(32); }
	static void *leak_child(void) { return malloc(777); }
	static void *worker(void *arg)
	{
		for (int i = 0; i < 20000; i++)
			free(malloc(16 + i % 64));
		for (int i = 0; i < 10; i++)
			if (!leak_thread())
				return arg;
		return NULL;
	}
	int main(void)
	{
		pthread_t t[4];
		pid_t c = fork();

		if (c == 0) {
			leak_child();
			_exit(0);
		}
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, worker, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		waitpid(c, NULL, 0);
		return 0;
	}
	EOF
	cc -O1 -g -fno-omit-frame-pointer -fno-inline -o thr thr.c -lpthread &&
	$SONDE memleak --preload -o 0 -- ./thr >out 2>err &&
	stacks out | grep -e leak_ -e worker >got &&
	echo "1280 40 leak_thread worker" >w && test_cmp w got
'
# 50,000 live blocks replaced at random 500,000 times: the shim's table moves entries on every delete;
# stdout's buffer (4096 bytes from _IO_file_doallocate) is never freed either
test_expect_success '--preload under churn: 50 blocks of random sizes kept out of 600,000, exactly' '
	cat >churn.c <<-EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	#define N 50000
	static void *slot[N];
	static size_t sz[N];
	static void *leak_kept(size_t n) { return malloc(n); }
	int main(void)
	{
		unsigned long long total = 0, kept = 0;

		srand(1);
		for (int i = 0; i < N; i++)
			slot[i] = malloc(sz[i] = 1 + rand() % 200);
		for (int r = 0; r < 500000; r++) {
			int i = rand() % N;

			free(slot[i]);
			slot[i] = malloc(sz[i] = 1 + rand() % 200);
		}
		for (int i = 0; i < N; i++) {
			free(slot[i]);
			if (i % 1000 == 0) {
				slot[i] = leak_kept(sz[i]);
				total += sz[i];
				kept++;
			}
		}
		printf("%llu %llu leak_kept main\n", total, kept);
		return 0;
	}
	EOF
	cc -O1 -g -fno-omit-frame-pointer -fno-inline -o churn churn.c &&
	$SONDE memleak --preload -o 0 -- ./churn >out 2>err &&
	grep leak_kept out | head -1 >w && stacks out | grep leak_kept >got && test_cmp w got &&
	grep -A1 "^	4096 bytes in 1 allocations from stack$" out | grep -q _IO_file_doallocate &&
	$SONDE memleak --preload --combined-only -- ./churn >out 2>err && stacks out | grep leak_kept >got && test_cmp w got
'
test_expect_success '--preload of a command with its own LD_PRELOAD: both loaded, its own given back' '
	if test -n "${SONDE_SANITIZED:-}"; then echo "an ASan sonde runs under no LD_PRELOAD: skipped"; exit 0; fi
	LD_PRELOAD=libm.so.6 $SONDE memleak --preload -o 0 -- sh -c "echo \$LD_PRELOAD >env; exec \"$LEAKY\" 50" >out 2>err &&
	echo libm.so.6 >w && test_cmp w env && ! grep -q "cannot be preloaded" err
'
test_expect_success '--preload follows an exec of the command itself (env, sh -c exec), not of its children' '
	$SONDE memleak --preload -o 0 -- env FOO=1 "$LEAKY" 50 >out 2>err && stacks out >got && test_cmp want got &&
	$SONDE memleak --preload -o 0 -- sh -c "ls -l /proc/self/fd >fds; env >envs; exec \"$LEAKY\" 50" >out 2>err &&
	stacks out >got && test_cmp want got &&
	! grep -q memfd fds && ! grep -q -e SONDE_MEMLEAK -e LD_PRELOAD envs
'
test_expect_success '--preload of a static binary: one line, exit 1' '
	if ! cc -static -O1 -o leaky-static "$ROOT/tests/workloads/leaky.c" 2>/dev/null; then
		echo "no static libc to build with: skipped"; exit 0
	fi
	rc=0 && $SONDE memleak --preload -- ./leaky-static >out 2>err || rc=$?
	test $rc -eq 1 && test $(wc -l <err) -eq 1 &&
	grep -q "leaky-static is statically linked: it cannot load the --preload shim; run without --preload" err
'

# protoc's text form -> "root;...;leaf OBJECTS BYTES" lines, and the sample types
pprof_text() {
	python3 -c '
import sys, re
text = sys.stdin.read()
strings = [eval(s) for s in re.findall(r"^string_table: (\".*\")$", text, re.M)]
funcs = {int(i): int(n) for i, n in re.findall(r"^function \{\n  id: (\d+)\n  name: (\d+)", text, re.M)}
locs = {int(i): int(f) for i, f in re.findall(r"^location \{\n  id: (\d+)\n  line \{\n    function_id: (\d+)", text, re.M)}
for t, u in re.findall(r"^sample_type \{\n  type: (\d+)\n  unit: (\d+)", text, re.M):
    print("type", strings[int(t)], strings[int(u)])
for body in re.findall(r"^sample \{\n(.*?)^\}", text, re.M | re.S):
    ids = [int(x) for x in re.findall(r"location_id: (\d+)", body)]
    vals = re.findall(r"value: (\d+)", body)
    print(";".join(strings[funcs[locs[i]]] for i in reversed(ids)), " ".join(vals))
'
}
test_expect_success '--pprof FILE: inuse_objects/count and inuse_space/bytes by stack (protoc decodes it)' '
	command -v protoc >/dev/null || { echo "protoc is missing: scripts/deps.sh test"; exit 1; }
	$SONDE memleak -o 0 --pprof leak.pb.gz -- "$LEAKY" 50 >out 2>err && stacks out >got && test_cmp want got &&
	gzip -dc leak.pb.gz | protoc --proto_path="$PROTO" --decode=perftools.profiles.Profile "$PROTO/profile.proto" >p.txt &&
	pprof_text <p.txt | grep -e type -e leak_ >got &&
	printf "%s\n" "type inuse_objects count" "type inuse_space bytes" \
		"__libc_start_call_main;main;leak_small 5 500" "__libc_start_call_main;main;leak_big 3 12288" >w &&
	test_cmp w got &&
	$SONDE memleak --preload -o 0 --pprof pre.pb.gz -- "$LEAKY" 50 >out 2>err &&
	gzip -dc pre.pb.gz | protoc --proto_path="$PROTO" --decode=perftools.profiles.Profile "$PROTO/profile.proto" |
		pprof_text | grep -e type -e leak_ >got && test_cmp w got
'
test_expect_success 'go tool pprof reads it: -sample_index=inuse_space -top' '
	GO=$(command -v go || ls /usr/lib/go-*/bin/go 2>/dev/null | tail -1)
	test -n "$GO" || { echo "go is missing (Debian golang-go): skipped"; exit 0; }
	HOME=$PWD GOCACHE=$PWD/gocache "$GO" tool pprof -sample_index=inuse_space -top leak.pb.gz >top 2>err &&
	grep -q "^ *12288B .* leak_big$" top && grep -q "^ *500B .* leak_small$" top &&
	HOME=$PWD GOCACHE=$PWD/gocache "$GO" tool pprof -sample_index=inuse_objects -top leak.pb.gz >top 2>err &&
	grep -q "^ *3 .* leak_big$" top && grep -q "^ *5 .* leak_small$" top
'
test_expect_success 'a leak flame graph: --folded into sonde flame --colors mem --countname bytes' '
	$SONDE memleak --preload -o 0 --folded -- "$LEAKY" 50 >leak.folded 2>err &&
	$SONDE flame --colors mem --countname bytes --title "Leaked bytes" leak.folded -o leak.svg 2>err &&
	grep -q "<title>leak_big (12,288 bytes, 96.09%)</title>" leak.svg &&
	grep -q "<title>leak_small (500 bytes, 3.91%)</title>" leak.svg &&
	grep -q "Leaked bytes" leak.svg
'
# leaky: 5 rounds of 16 allocations and 15 frees (realloc frees one), then 3 leak_big: 83 allocations, 75 frees
test_expect_success '-t: a line per call, as BCC prints them; exactly the workload calls' '
	$SONDE memleak -t -- "$LEAKY" 0 >out 2>err &&
	test $(grep -c "^ *leaky-[0-9]* *\[[0-9]*\] *[0-9]*\.[0-9]*: alloc entered, size = [0-9]*$" out) -eq 83 &&
	test $(grep -c ": alloc exited, size = [0-9]*, result = [0-9a-f]*$" out) -eq 83 &&
	test $(grep -c ": free entered, address = [0-9a-f]*, size = [0-9]*$" out) -eq 75 &&
	test $(grep -c ": alloc exited, size = 100, result" out) -eq 5 &&
	test $(grep -c ": alloc exited, size = 4096, result" out) -eq 3 &&
	! grep -q "Top 10 stacks" out &&
	rc=0 && $SONDE memleak -t --preload -- true 2>err || rc=$?
	test $rc -eq 129 && grep -q "not with --preload" err
'
test_expect_success 'a Go program: one line, exit 1 (uprobes, --preload and -p)' '
	GO=$(command -v go || ls /usr/lib/go-*/bin/go 2>/dev/null | tail -1)
	test -n "$GO" || { echo "go is missing (Debian golang-go): skipped"; exit 0; }
	printf "package main\nimport \"time\"\nvar keep [][]byte\nfunc main() {\n\tkeep = append(keep, make([]byte, 100))\n\ttime.Sleep(3 * time.Second)\n}\n" >gol.go &&
	HOME=$PWD GOCACHE=$PWD/gocache "$GO" build -o gol gol.go &&
	for pre in "" --preload; do
		rc=0 && $SONDE memleak $pre -- ./gol >out 2>err || rc=$?
		test $rc -eq 1 && test $(wc -l <err) -eq 1 &&
		grep -q "^sonde: ./gol is a Go program: the Go runtime allocates without malloc" err || return 1
	done &&
	{ ./gol & } && gp=$! && sleep 0.2 &&
	rc=0 && $SONDE memleak -p $gp >out 2>err || rc=$?
	kill $gp; test $rc -eq 1 && grep -q "gol is a Go program" err
'
test_expect_success 'a stripped static binary: one line, exit 1' '
	if ! cc -static -O1 -o leaky-static "$ROOT/tests/workloads/leaky.c" 2>/dev/null; then
		echo "no static libc to build with: skipped"; exit 0
	fi
	strip leaky-static &&
	rc=0 && $SONDE memleak -- ./leaky-static >out 2>err || rc=$?
	test $rc -eq 1 && test $(wc -l <err) -eq 1 && grep -q "leaky-static defines no function malloc" err
'
# wait_exec PID: until PID runs leaky (its shell has opened the fifo and exec'd)
wait_exec() {
	for i in $(seq 100); do
		[ "$(readlink /proc/$1/exe)" = "$LEAKY" ] && return 0
		sleep 0.02
	done
	echo "leaky did not start"; return 1
}
JEMALLOC=$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -1)
# jemalloc hands out blocks from its own mappings (0x7f...), glibc from the heap after the program's data
test_expect_success '--lib: jemalloc in the command, the same answer; --preload calls jemalloc; -O of a library -p does not map: a warning' '
	test -n "$JEMALLOC" || { echo "libjemalloc2 is missing: skipped"; exit 0; }
	$SONDE memleak -o 0 --lib "$JEMALLOC" -- env LD_PRELOAD="$JEMALLOC" "$LEAKY" 50 >out 2>err &&
	stacks out | grep leak_ >got && test_cmp want got &&
	$SONDE memleak --preload -a -o 0 -- env LD_PRELOAD="$JEMALLOC" "$LEAKY" 50 >out 2>err &&
	stacks out | grep leak_ >got && test_cmp want got &&
	grep "^	addr = " out | sed "s/addr = 7f[0-9a-f]*/addr = X/" >got &&
	printf "\taddr = X size = %s\n" 100 100 100 100 100 4096 4096 4096 >w && test_cmp w got &&
	# killed while it waits on the fifo: once the fifo closes it exits at once, and the shell may reap it before kill
	rm -f go && mkfifo go && { "$LEAKY" 20000 wait <go & } && lpid=$! && exec 9>go && wait_exec $lpid &&
	tool_start out $SONDE memleak -O "$JEMALLOC" -p $lpid && tool_stop && kill $lpid && exec 9>&- &&
	grep -q "^sonde: warning: process $lpid does not map .*libjemalloc.so.2: nothing will be seen unless it loads it$" out.err
'
test_expect_success 'mmap and munmap: 3 x 8192 bytes mapped and kept, one mapping undone, a 1 MB malloc counted once' '
	cat >mm.c <<-EOF &&
	#include <stdlib.h>
	#include <sys/mman.h>
	static volatile int n = 3;
	static void *volatile big;
	static void *leak_map(void) { return mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); }
	int main(void)
	{
		void *p;

		for (int i = 0; i < n; i++)
			leak_map();
		p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		munmap(p, 4096);
		big = malloc(1 << 20);	/* glibc maps it itself: one malloc, not an mmap too */
		return 0;
	}
	EOF
	cc -O1 -g -fno-omit-frame-pointer -fno-inline -o mm mm.c &&
	printf "24576 3 leak_map main\n1048576 1 main __libc_start_call_main\n" >w &&
	$SONDE memleak -o 0 -- ./mm >out 2>err && stacks out >got && test_cmp w got &&
	$SONDE memleak --preload -o 0 -- ./mm >out 2>err && stacks out >got && test_cmp w got
'
# strdup in Debian's libc has no frame pointer: the frame-pointer walk from its return stops there
test_expect_success '--call-graph dwarf: whole stacks through a libc without frame pointers' '
	cat >dup.c <<-EOF &&
	#include <stdlib.h>
	#include <string.h>
	static volatile int n = 4;
	static char *leak_dup(const char *s) { return strdup(s); }
	static void caller_dup(void) { for (int i = 0; i < n; i++) leak_dup("123456789"); }
	int main(void) { caller_dup(); return 0; }
	EOF
	cc -O1 -g -fno-omit-frame-pointer -fno-inline -o dup dup.c &&
	$SONDE memleak -o 0 -- ./dup >fp 2>err && stacks fp >got &&
	echo "40 4 __strdup" >w && test_cmp w got &&
	$SONDE memleak -o 0 --call-graph dwarf -- ./dup >dw 2>err && stacks dw >got &&
	echo "40 4 __strdup leak_dup" >w && test_cmp w got &&
	grep "^		" dw | sed "s/+0x[0-9a-f]* / /" >frames &&
	printf "\t\t%s\n" "__strdup [libc.so.6]" "leak_dup [dup]" "caller_dup [dup]" "main [dup]" >w &&
	head -4 frames >got && test_cmp w got &&
	$SONDE memleak -o 0 --call-graph dwarf,1024 -- "$LEAKY" 50 >out 2>err && stacks out >got && test_cmp want got &&
	rc=0 && $SONDE memleak --call-graph dwarf --preload -- true 2>err || rc=$?
	test $rc -eq 129 && rc=0 && $SONDE memleak --call-graph dwarf,9 -- true 2>err || rc=$?
	test $rc -eq 129 && grep -q "SIZE: 256 to 8192 bytes" err
'
test_done
