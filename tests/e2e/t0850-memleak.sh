#!/bin/bash
# t0850: `sonde memleak` (BCC's memleak): the outstanding allocations of a
# process by stack, on a workload that leaks exactly 5 x 100 bytes from
# leak_small() (malloc) and 3 x 4096 bytes from leak_big() (calloc) and frees
# everything else (malloc, calloc, realloc, posix_memalign, aligned_alloc);
# the same answer as valgrind --leak-check=full; kernel mode without -p.
. "$(dirname "$0")/../lib.sh"

LEAKY=$WORKLOADS/leaky

test_expect_success 'usage errors: one line, exit 129' '
	rc=0 && $SONDE memleak 0 2>err || rc=$?
	test $rc -eq 129 && grep -q "unexpected argument .0." err &&
	rc=0 && $SONDE memleak -p 1 -c true 2>err || rc=$?
	test $rc -eq 129 && grep -q "exclude each other" err &&
	rc=0 && $SONDE memleak -c true -- true 2>err || rc=$?
	test $rc -eq 129 && grep -q "give one" err &&
	rc=0 && $SONDE memleak -z 10 -Z 5 2>err || rc=$?
	test $rc -eq 129 &&
	rc=0 && $SONDE memleak --percpu -- true 2>err || rc=$?
	test $rc -eq 129 && grep -q "not with -p or a command" err
'
test_expect_success 'memleak is a tool name too: sonde tools --names lists it' '
	$SONDE tools --names | grep -qx memleak
'
test_expect_success '-p of no process: one line, exit 1' '
	rc=0 && $SONDE memleak -p 999999 >out 2>err || rc=$?
	test $rc -eq 1 && grep -qx "sonde: cannot attach to process 999999: no such process" err && ! test -s out
'
require_root 'memleak on a known workload'

# the stacks of a report (text after its header): "BYTES COUNT first-frame-function second-frame-function"
stacks() {
	awk '/^\t[0-9]+ bytes in [0-9]+ allocations from stack$/ { if (s) print s; s = $1 " " $4; n = 0; next }
	     /^\t\t/ { if (n++ < 2) { f = $1; sub(/\+0x[0-9a-f]+$/, "", f); s = s " " f }; next }
	     { if (s) print s; s = "" }
	     END { if (s) print s }' "$@"
}
printf "500 5 leak_small main\n12288 3 leak_big main\n" >"$TMP/want"

test_expect_success 'memleak -o 0 -- CMD: exactly the leaked bytes and blocks, by stack, the largest last' '
	$SONDE memleak -o 0 -- "$LEAKY" 100 >out 2>err &&
	head -1 out | grep -q "^Attaching to pid [0-9]*, Ctrl+C to quit\.$" &&
	sed -n 2p out | grep -q "^\[[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\] Top 10 stacks with outstanding allocations:$" &&
	stacks out >got && test_cmp want got &&
	grep -q "^		leak_small+0x[0-9a-f]* \[leaky\]$" out &&
	grep -q "^		main+0x[0-9a-f]* \[leaky\]$" out
'
# valgrind's definitely-lost records in the same form: "BYTES BLOCKS caller caller's-caller"
valgrind_stacks() {
	awk '/bytes in [0-9]+ blocks are definitely lost/ { b = $2; gsub(",", "", b); s = b " " $5; n = 0; next }
	     s && / (at|by) 0x/ { if ($2 == "by" && n++ < 2) s = s " " $4; if (n == 2) { print s; s = "" } }' "$@"
}
test_expect_success 'the same answer with perf-event uprobes (no uprobe_multi links)' '
	SONDE_NO_UPROBE_MULTI=1 $SONDE memleak -o 0 -- "$LEAKY" 50 >out 2>err && stacks out >got && test_cmp want got
'
test_expect_success 'the same answer as valgrind --leak-check=full: bytes, blocks, functions' '
	command -v valgrind >/dev/null || { echo "valgrind is missing: scripts/deps.sh test"; exit 1; }
	valgrind --leak-check=full "$LEAKY" 2>vg >/dev/null &&
	valgrind_stacks vg | sort >v && sort want >w && test_cmp w v &&
	$SONDE memleak -o 0 -- "$LEAKY" 50 >out 2>err && stacks out | sort >s && test_cmp v s &&
	grep -q "definitely lost: 12,788 bytes in 8 blocks" vg
'
test_expect_success 'sonde tool memleak -c "CMD ARGS", and a symlink named memleak' '
	$SONDE tool memleak -o 0 -c "$LEAKY 100" >out 2>err && stacks out >got && test_cmp want got &&
	ln -s "$SONDE" memleak && ./memleak -o0 -c "$LEAKY 100" >out2 2>err && stacks out2 >got && test_cmp want got
'
test_expect_success '-z/-Z size range, --top, -a addresses, -o older than' '
	$SONDE memleak -o 0 -z 200 -- "$LEAKY" 50 >out 2>err && stacks out >got && sed -n 2p want >w && test_cmp w got &&
	$SONDE memleak -o 0 -Z 200 -- "$LEAKY" 50 >out 2>err && stacks out >got && sed -n 1p want >w && test_cmp w got &&
	$SONDE memleak -o 0 -T 1 -- "$LEAKY" 50 >out 2>err && stacks out >got && sed -n 2p want >w && test_cmp w got &&
	grep -q "Top 1 stacks" out &&
	$SONDE memleak -o 0 -a -- "$LEAKY" 50 >out 2>err &&
	grep "^	addr = " out | sed "s/addr = [0-9a-f]*/addr = X/" >got &&
	printf "\taddr = X size = %s\n" 100 100 100 100 100 4096 4096 4096 >w && test_cmp w got &&
	$SONDE memleak -o 60000 -- "$LEAKY" 50 >out 2>err && stacks out >got && ! test -s got
'
# leaky allocates 16 blocks a round (leak_small first), 5 rounds, then leak_big 3 times:
# one in 16 records each leak_small and the first leak_big
test_expect_success '-s 16: exactly one allocation in 16, counted in order' '
	$SONDE memleak -o 0 -s 16 -- "$LEAKY" 50 >out 2>err && stacks out >got &&
	printf "500 5 leak_small main\n4096 1 leak_big main\n" >w && test_cmp w got
'
test_expect_success 'interval and count: two reports a second apart, then memleak ends the command' '
	start=$(date +%s%N) &&
	$SONDE memleak -o 0 1 2 -- "$LEAKY" 20000 >out 2>err &&
	took=$((($(date +%s%N) - start) / 1000000)) &&
	test $(grep -c "Top 10 stacks" out) -eq 2 && test $took -lt 10000 &&
	awk "/Top 10 stacks/ { n++ } n == 2" out >last && stacks last >got && test_cmp want got
'
# wait_exec PID: until PID runs leaky (its shell has opened the fifo and exec'd)
wait_exec() {
	for i in $(seq 100); do
		[ "$(readlink /proc/$1/exe)" = "$LEAKY" ] && return 0
		sleep 0.02
	done
	echo "leaky did not start"; return 1
}
test_expect_success '-p PID: a running process, leaks made after attaching, reported at Ctrl-C' '
	rm -f go && mkfifo go &&
	{ "$LEAKY" 20000 wait <go & } && lpid=$! &&
	exec 9>go && wait_exec $lpid &&
	tool_start out $SONDE memleak -o 0 -p $lpid &&
	grep -q "^Attaching to pid $lpid, Ctrl+C to quit\.$" out &&
	echo >&9 && exec 9>&- && sleep 0.5 && tool_stop &&
	kill $lpid && stacks out >got && test_cmp want got
'
test_expect_success 'SIGTERM: the report, exit 0, the -p process left running' '
	rm -f go && mkfifo go &&
	{ "$LEAKY" 20000 wait <go & } && lpid=$! &&
	exec 9>go && wait_exec $lpid &&
	tool_start out $SONDE memleak -o 0 -p $lpid &&
	echo >&9 && exec 9>&- && sleep 0.5 &&
	kill -TERM $TOOL_PID && rc=0 && wait $TOOL_PID || rc=$?
	kill -0 $lpid && kill $lpid && test $rc -eq 0 && stacks out >got && test_cmp want got
'
test_expect_success '-p PID that exits: memleak ends by itself, with its report' '
	rm -f go && mkfifo go &&
	{ "$LEAKY" 300 wait <go & } && lpid=$! &&
	exec 9>go && wait_exec $lpid &&
	tool_start out $SONDE memleak -o 0 -p $lpid &&
	echo >&9 && exec 9>&- && wait $TOOL_PID && stacks out >got && test_cmp want got
'
test_expect_success 'bad input: an object without malloc, a command that does not exist' '
	rc=0 && $SONDE memleak -O "$LEAKY" -- true >out 2>err || rc=$?
	test $rc -eq 1 && grep -q "leaky defines no function malloc: is it the allocator.s object (-O)?" err &&
	! test -s out &&
	rc=0 && $SONDE memleak -- /nonexistent-t0850 >out 2>err || rc=$?
	test $rc -eq 127 && grep -q "cannot run ./nonexistent-t0850.: No such file or directory" err && ! test -s out
'
test_expect_success 'a static binary: its own malloc is probed; --lib names the object' '
	if ! cc -static -O1 -g -fno-omit-frame-pointer -fno-inline -o leaky-static "$ROOT/tests/workloads/leaky.c" 2>/dev/null; then
		echo "no static libc to build with: skipped"; exit 0
	fi
	$SONDE memleak -o 0 -- ./leaky-static 50 >out 2>err && stacks out | grep leak_ >got && test_cmp want got &&
	grep -q "^		leak_big+0x[0-9a-f]* \[leaky-static\]$" out &&
	$SONDE memleak -o 0 --lib "$PWD/leaky-static" -- ./leaky-static 50 >out 2>err &&
	stacks out | grep leak_ >got && test_cmp want got
'
test_expect_success '--folded: root first, bytes as the count, for sonde flame' '
	$SONDE memleak -o 0 --folded -- "$LEAKY" 50 >out 2>err &&
	grep -q "^__libc_start_call_main;main;leak_small 500$" out &&
	grep -q "^__libc_start_call_main;main;leak_big 12288$" out &&
	test $(wc -l <out) -eq 2 && grep -q "^Attaching to pid" err &&
	$SONDE flame -o leak.svg out 2>err && grep -q "leak_big" leak.svg
'
test_expect_success '--combined-only: the sums the kernel keeps by stack, the same answer' '
	$SONDE memleak --combined-only -- "$LEAKY" 50 >out 2>err && stacks out >got && test_cmp want got
'
test_expect_success 'kernel mode (no -p): kmem tracepoints, kernel stacks, one report and the end' '
	$SONDE memleak 1 1 >out 2>err &&
	head -1 out | grep -qx "Attaching to kernel allocators, Ctrl+C to quit\." &&
	test $(grep -c "Top 10 stacks" out) -eq 1 &&
	grep -q "^	[0-9]* bytes in [0-9]* allocations from stack$" out &&
	grep -q "^		[a-z_].*+0x[0-9a-f]* \[kernel\]$" out &&
	grep -A1 "allocations from stack$" out | grep "^		" >first &&
	! grep -E "^		(bpf_prog_[0-9a-f]{16}|__bpf_trace_|bpf_trace_run|__traceiter_)" first &&
	! grep -q "not recorded" err
'
# kernel mode, a known answer: a process holding 50 eventfds holds 50 kmallocs made in do_eventfd
test_expect_success 'kernel mode: 50 eventfds held, 50 allocations (or more) from do_eventfd' '
	tool_start out $SONDE memleak -o 0 -T 100000 &&
	{ python3 -c "import os, time; fds = [os.eventfd(0) for _ in range(50)]; open(\"ready\", \"w\"); time.sleep(20)" & } &&
	pp=$! && for i in $(seq 200); do test -e ready && break; sleep 0.05; done &&
	tool_stop && kill $pp &&
	awk "/allocations from stack\$/ { h = \$0; n = 0; next } /^\t\t/ { if (++n == 2 && \$1 ~ /^do_eventfd\+/) print h }" out >got &&
	# system-wide: an eventfd another process makes meanwhile (a VM beside this test makes
	# many) adds to the same stack, so 50 at least
	test $(wc -l <got) -eq 1 && n=$(sed -n "s/^	[0-9]* bytes in \([0-9]*\) allocations from stack$/\1/p" got) &&
	echo "$n allocations from do_eventfd" && test "$n" -ge 50
'
test_expect_success '--percpu: per-CPU allocations only (percpu tracepoints), kernel stacks' '
	tool_start out $SONDE memleak --percpu -o 0 1 1 &&
	{ sleep 3 & } && sp=$! &&
	wait $TOOL_PID && kill $sp &&
	grep -q "mm_init" out &&
	grep -A1 "allocations from stack$" out | grep "^		" >first && test -s first &&
	! grep -v "^		pcpu_alloc" first
'
test_done
