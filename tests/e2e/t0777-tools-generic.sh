#!/bin/bash
# t0777: BCC's generic tools on user functions and tracepoints: trace and argdist
# (their probe specifiers composed into a program), stackcount, funccount. The
# triggers are workloads with known calls: dwargs N calls take() N times with
# known arguments and a known return value, syscalls N makes N getppid() and N
# openat() of /etc/hostname, symchain calls chain_a -> chain_b -> chain_c once,
# offcpu N MS calls block_here() N times, usdt N fires its USDT probes N times.
# Kernel functions need kprobes, which this kernel lacks: only --source shows them.
. "$(dirname "$0")/../lib.sh"

# copies of this run's own, under the same names (the same comms): the tools' uprobes on them
# count no call of another test's run of the same workload beside this one. The syscalls
# workload is also counted by its comm at tracepoints, where other tests run theirs: its
# copy has a name of this run's own
mkdir "$TMP/w"
for w in dwargs symchain offcpu usdt; do cp "$WORKLOADS/$w" "$TMP/w/$w"; done
SCN=sc$$
cp "$WORKLOADS/syscalls" "$TMP/w/$SCN"
D=$TMP/w/dwargs
SC=$TMP/w/$SCN
SYM=$TMP/w/symchain
OFF=$TMP/w/offcpu
U=$TMP/w/usdt
test_expect_success 'trace --source: BCC arg1 is arg0, retval, filters, formats as BCC converts them' '
	$SONDE tool trace --source -p 42 "p:c:write (arg1 == 1) \"writing %d bytes\", arg3" \
		"r::do_sys_open \"%llx\", retval" >src &&
	grep -qx "uprobe:libc:write" src && grep -qx "/pid == 42 && (arg0 == 1)/" src &&
	grep -q "%-16s writing %d bytes.n\",$" src && grep -q "\"write\", (int32)(arg2));$" src &&
	grep -qx "kretprobe:do_sys_open" src && grep -q "%-16s %lx.n\",$" src &&
	grep -q "\"do_sys_open\", (uint64)(retval));$" src
'
test_expect_success 'trace: a bad probe says what is wrong in it, exit 1; no probe is a usage error' '
	rc=0 && $SONDE tool trace "c:write \"%d %d\", arg1" 2>err || rc=$?
	test $rc -eq 1 && grep -q "error in probe .c:write \"%d %d\", arg1.: the format has 2 specifiers and 1" err &&
	rc=0 && $SONDE tool trace 2>err || rc=$?
	test $rc -eq 129 && grep -q "argument .probe. is required" err &&
	$SONDE tool trace --help | head -1 | grep -q " probe \[probe ...\]$"
'
test_expect_success 'argdist --source: a count per value, a histogram, $entry and $latency from an entry probe' '
	$SONDE tool argdist --source -C "p:c:malloc(size_t size):size_t:size" \
		-H "r:c:read(int fd, void *buf, size_t n):size_t:\$entry(n):\$latency > 1000" >src &&
	grep -q "@c0\[(uint64)(((uint64)arg0))\] = count();" src &&
	grep -q "@entry1_n\[tid\] = (uint64)arg2;" src && grep -q "if ((nsecs - @start1\[tid\]) > 1000)" src &&
	grep -q "print_log2_hist(@h1, \"\$entry(n)\");" src
'
require_root 'the tools attach uprobes and tracepoints'

test_expect_success 'trace: a uprobe with a filter and a format, its return; 3 calls, 6 lines' '
	tool_start out $SONDE tool trace "p:$D:take (arg3 == 65535) \"u=%d c=%d t=%u\", arg3, arg4, arg5" \
		"r:$D:take \"ret=%ld low=%d\", retval, retval" "p:$D:take (arg3 == 1) \"never\"" &&
	$D 3 >/dev/null && tool_stop &&
	head -1 out | grep -qx "PID     TID     COMM            FUNC             -" &&
	pid=$(awk "\$3 == \"dwargs\" { print \$1; exit }" out) && test -n "$pid" &&
	printf "%-7d %-7d %-15s %-16s %s\n" $pid $pid dwargs take "u=65535 c=-5 t=4000000000" >line1 &&
	printf "%-7d %-7d %-15s %-16s %s\n" $pid $pid dwargs take "ret=4000065646 low=-294901650" >line2 &&
	(cat line1 line2 line1 line2 line1 line2) >expect && grep " dwargs " out >got && test_cmp expect got
'
test_expect_success 'trace -M 2 -C: two events, then it ends by itself' '
	tool_start out $SONDE tool trace -M 2 -C "$D:take \"%s\", arg1" &&
	$D 5 >/dev/null && wait $TOOL_PID &&
	head -1 out | grep -qx "CPU PID     TID     COMM            FUNC             -" &&
	test $(grep -c " dwargs  *take  " out) -eq 2 &&
	grep -qE "^[0-9] +[0-9]+ +[0-9]+ +dwargs +take +hello$" out
'
test_expect_success 'trace -n NAME, a tracepoint: exactly the 7 openat() of /etc/hostname, FUNC the event' '
	tool_start out $SONDE tool trace -n $SCN "t:syscalls:sys_enter_openat \"%s\", args->filename" &&
	$SC 7 && tool_stop &&
	test $(grep -c " $SCN  *sys_enter_openat  */etc/hostname$" out) -eq 7 &&
	! grep -v "^PID" out | grep -v " $SCN "
'
test_expect_success 'trace -T, -t, -t -u: a time, a timestamp or a UNIX time first; no format, no "-"' '
	tool_start out $SONDE tool trace -T "$D:take" &&
	$D 1 >/dev/null && tool_stop &&
	head -1 out | grep -qx "TIME     PID     TID     COMM            FUNC             " &&
	grep -qE "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] [0-9]+ +[0-9]+ +dwargs +take +$" out &&
	tool_start out $SONDE tool trace -t "$D:take" &&
	$D 1 >/dev/null && tool_stop &&
	grep -qE "^[0-9]\.[0-9]{6} [0-9]+ +[0-9]+ +dwargs +take +$" out &&
	tool_start out $SONDE tool trace -t -u "$D:take" &&
	$D 1 >/dev/null && tool_stop && now=$(date +%s) &&
	head -1 out | grep -q "^TIME              PID  " &&
	ts=$(awk "/ dwargs / { print \$1 }" out) && expect_contains "$ts" "." &&
	test $(( now - ${ts%.*} )) -ge 0 && test $(( now - ${ts%.*} )) -le 5
'
test_expect_success 'trace -U: the user stack under the line, chain_c called from chain_b, chain_a, main' '
	tool_start out $SONDE tool trace -U "$SYM:chain_c" &&
	$SYM 0.5 >/dev/null && tool_stop &&
	sed -n "/ chain_c /,/^\$/p" out | sed -E "s/\+[0-9]+\$//" >stack &&
	sed -n 2,5p stack >got && printf "        %s\n" chain_c chain_b chain_a main >expect && test_cmp expect got
'
test_expect_success 'trace u:LIB:PROBE: USDT arguments, arg1 the first; provider:probe works too' '
	tool_start out $SONDE tool trace "u:$U:three \"%d %u %lld\", arg1, arg2, arg3" \
		"u:$U:sonde_test:one \"one %d\", arg1" &&
	$U 2 0 >/dev/null && tool_stop &&
	grep " usdt  " out | sed -E "s/^[0-9]+ +[0-9]+ +usdt +//" >got &&
	printf "%-16s %s\n" sonde_test:one "one 1" three "-1 60001 -1000000000000" \
		sonde_test:one "one 2" three "-2 60002 -2000000000000" >expect && test_cmp expect got
'
test_expect_success 'trace -p PID: only that process (the workload is another: no line)' '
	tool_start out $SONDE tool trace -p $$ "$D:take" &&
	$D 2 >/dev/null && tool_stop && test $(wc -l <out) -eq 1
'
test_expect_success 'argdist -C: 4 calls of take(), counted by their values; -H the same as a histogram' '
	tool_start out $SONDE tool argdist -i 1 -n 3 -C "p:$D:take(char *name, void *p, unsigned short u):u16:u#takes" \
		-H "p:$D:take(char *name, void *p, unsigned short u):u32:u" -C "r:$D:take()" &&
	$D 4 >/dev/null && wait $TOOL_PID &&
	grep -qx "\[[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\]" out && grep -qx "takes" out &&
	grep -qxF "	COUNT      EVENT" out &&
	grep -qxF "	4          u = 65535" out && grep -qxF "	4          retval = -294901650" out &&
	grep -qx "     u                   : count    distribution" out &&
	grep -qx "     32768 -> 65535      : 4        |\*\{40\}|" out
'
test_expect_success 'argdist -p PID: only that process; $latency in a return probe' '
	tool_start out $SONDE tool argdist -n 2 -p $$ -C "r:$D:take():u64:\$latency" &&
	$D 2 >/dev/null && wait $TOOL_PID && ! grep -q "latency = " out &&
	tool_start out $SONDE tool argdist -n 2 -C "r:$D:take():u64:\$latency > 0:\$latency > 0" &&
	$D 2 >/dev/null && wait $TOOL_PID && grep -qxF "	2          \$latency > 0 = 1" out
'
test_expect_success 'argdist -C: the rows from the smallest count up (20 opens of O_RDONLY the last)' '
	cp $SC ./sc$$ &&
	tool_start out $SONDE tool argdist -i 1 -c -C "t:syscalls:sys_enter_openat():int:args->flags:comm == \"sc$$\"" &&
	./sc$$ 20 && for i in $(seq 100); do grep -qxF "	20         args->flags = 0" out && break; sleep 0.1; done &&
	sleep 0.2 && tool_stop &&
	tac out | sed "/COUNT *EVENT/,\$d" | tac >last && test $(wc -l <last) -ge 2 &&
	tail -1 last | grep -qxF "	20         args->flags = 0" && sort -n -s -k1,1 last | cmp - last
'
test_expect_success 'argdist -T 1 -c: only the commonest value, counts kept over intervals (20 opens of O_RDONLY)' '
	# the filter is by comm: a name no other test runs
	cp $SC ./sc$$ &&
	tool_start out $SONDE tool argdist -i 1 -T 1 -c \
		-C "t:syscalls:sys_enter_openat():int:args->flags:comm == \"sc$$\"" &&
	# until an interval after the 20 opens is printed (a loaded machine delays the intervals)
	./sc$$ 20 && for i in $(seq 100); do grep -qxF "	20         args->flags = 0" out && break; sleep 0.1; done &&
	sleep 0.2 && tool_stop &&
	{ tail -1 out | grep -qxF "	20         args->flags = 0" &&
	  test "$(tail -2 out | head -1)" = "$(printf "\tCOUNT      EVENT")" || { cat out; exit 1; }; }
'
test_expect_success 'stackcount: the 4 calls of block_here from one stack, as BCC prints it' '
	tool_start out $SONDE tool stackcount "$OFF:block_here" &&
	$OFF 4 10 1 0 2>/dev/null && tool_stop &&
	head -1 out | grep -qx "Tracing 1 functions for \"$OFF:block_here\"... Hit Ctrl-C to end." &&
	sed -n 2,4p out >got && printf "\n  block_here\n  main\n" >expect && test_cmp expect got &&
	grep -qx "    offcpu \[[0-9]*\]" out && grep -A1 "^    offcpu \[" out | tail -1 | grep -qx "    4" &&
	tail -2 out | head -1 | grep -qx "" && tail -1 out | grep -qx "Detaching..."
'
# -f prints no header (BCC's): -T -i 1 prints a time each second, the first once it traces
test_expect_success 'stackcount -f: folded lines, comm first, the root before the leaf; sonde flame reads them' '
	tool_start out $SONDE tool stackcount -f -T -i 1 "$OFF:block_here" &&
	$OFF 3 10 1 0 2>/dev/null && tool_stop &&
	{ grep -E "^offcpu;(.*;)?main;block_here [0-9]+$" out >folded &&
	  awk "{ n += \$NF } END { exit !(n == 3) }" folded &&
	  ! grep -vE "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$" out | grep -v "^offcpu;" || { cat out out.err; exit 1; }; } &&
	$SONDE flame folded >flame.svg && grep -q "block_here" flame.svg
'
test_expect_success 'stackcount -K -P on a tracepoint: kernel frames, the process, exactly its 6 getppid()' '
	tool_start out $SONDE tool stackcount -K -P t:syscalls:sys_enter_getppid &&
	$SC 6 && tool_stop &&
	grep -A1 "^    $SCN \[[0-9]*\]$" out | tail -1 | grep -qx "    6" &&
	! grep -q "^  block_here" out && grep -q "^  [a-z_]" out
'
test_expect_success 'stackcount -D 1 -p PID: ends by itself; a pid that does not call it: nothing' '
	tool_start out $SONDE tool stackcount -D 1 -p $$ "$OFF:block_here" &&
	$OFF 2 10 1 0 2>/dev/null && wait $TOOL_PID &&
	printf "\nDetaching...\n" >expect && tail -n +2 out >got && test_cmp expect got
'
test_expect_success 'stackcount: -K and -U do not go together; --source of a kernel function' '
	rc=0 && $SONDE tool stackcount -K -U c:malloc 2>err || rc=$?
	test $rc -eq 1 && grep -q "mutually exclusive" err &&
	$SONDE tool stackcount --source "vfs_*" >src && grep -qx "kprobe:vfs_\*" src
'
test_expect_success 'probe: a user stack from a for loop over a map keeps the process it was counted in' '
	$SONDE probe -e "uprobe:$SYM:chain_c { @c[ustack(bcc), comm] = count(); }
		END { for (\$kv : @c) { printf(\"%s%s %d\\n\", \$kv.0.0, \$kv.0.1, \$kv.1); } clear(@c); }" \
		-c "$SYM 0.2" >out 2>err &&
	grep -A3 "^  chain_c$" out >got && printf "  chain_c\n  chain_b\n  chain_a\n  main\n" >expect &&
	test_cmp expect got
'
test_expect_success 'funccount: main once and take() 5 times, BCC table, the smaller count first' '
	tool_start out $SONDE tool funccount "$D:[mt]a*" &&
	$D 5 >/dev/null && tool_stop &&
	{ echo "Tracing 2 functions for \"$D:[mt]a*\"... Hit Ctrl-C to end." && echo &&
	  printf "%-36s %8s\n" FUNC COUNT main 1 take 5 && echo "Detaching..."; } >expect &&
	test_cmp expect out
'
test_expect_success 'funccount -p PID on tracepoints: CATEGORY:EVENT, exactly the 7 getppid() of that process' '
	mkfifo go && { (read x <go; exec $SC 7) & } && wp=$! &&
	tool_start out $SONDE tool funccount -p $wp "t:syscalls:sys_enter_getpp*" &&
	echo >go && wait $wp && tool_stop &&
	head -1 out | grep -qx "Tracing 1 functions for \"t:syscalls:sys_enter_getpp\*\"... Hit Ctrl-C to end." &&
	printf "%-36s %8d\n" syscalls:sys_enter_getppid 7 >expect && grep "^syscalls:" out >got && test_cmp expect got
'
test_expect_success 'funccount u:LIB:PATTERN: USDT probes by name; twice has two sites, 2 rounds' '
	tool_start out $SONDE tool funccount "u:$U:t*" &&
	$U 2 0 >/dev/null && tool_stop &&
	head -1 out | grep -qx "Tracing 2 functions for \"u:$U:t\*\"... Hit Ctrl-C to end." &&
	printf "%-36s %8d\n" three 2 twice 4 >expect && sed -n "4,5p" out >got && test_cmp expect got
'
test_expect_success 'funccount -d 1 -T: ends by itself, a time before the table; -i 1 a table each second' '
	tool_start out $SONDE tool funccount -d 1 -T "$D:take" && wait $TOOL_PID &&
	sed -n 3p out | grep -qx "[0-2][0-9]:[0-5][0-9]:[0-5][0-9]" && tail -1 out | grep -qx "Detaching..." &&
	test $(grep -c "^FUNC  " out) -eq 1 &&
	tool_start out $SONDE tool funccount -i 1 "$D:take" && $D 2 >/dev/null && sleep 1.5 && tool_stop &&
	test $(grep -c "^FUNC  " out) -ge 2 && awk "/^take / { n += \$2 } END { exit !(n == 2) }" out
'
test_expect_success 'funccount, stackcount: a pattern that names nothing is one line, exit 1' '
	for t in "funccount $D:nosuch*" "stackcount t:nosuch:event"; do
		rc=0 && $SONDE tool $t >out 2>err || rc=$?
		test $rc -eq 1 && test $(wc -l <err) -eq 1 && grep -q "no functions matched by pattern" err || exit 1
	done
'
test_expect_success 'funccount: kernel functions need kprobes (--source shows the kprobe)' '
	$SONDE tool funccount --source "vfs_*" >src && grep -qx "kprobe:vfs_\*" src &&
	grep -q "@counts\[func\] = count();" src
'
if [ -e /sys/bus/event_source/devices/kprobe/type ]; then
	test_skip 'the tools say in one line that kprobes are missing' 'this kernel has kprobes (tests/vm has their tests)'
else
	test_expect_success 'kernel functions here: one line says this kernel has no kprobes, exit 1' '
		for t in "trace do_sys_open" "funccount vfs_read" "stackcount vfs_read"; do
			rc=0 && $SONDE tool $t >out 2>err || rc=$?
			test $rc -eq 1 && test $(wc -l <err) -eq 1 && grep -q "this kernel has no kprobes" err || exit 1
		done
	'
fi
test_done
