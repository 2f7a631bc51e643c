#!/bin/bash
# sonde probe: fixes of known bugs, each checked against what bpftrace prints (0.17 where it has
# the feature, upstream's docs where only newer bpftrace has it):
# errorf()/warnf() on stderr with the call's place ("stdin:1:9-62: ERROR: ...", upstream's stdlib.md);
# a max_strlen that is not a multiple of 8: str(), str(p, n) and buf() keep max_strlen-1 characters
# and a NUL (max_strlen bytes for buf), as bpftrace 0.17 with BPFTRACE_STRLEN=N prints them (the
# loader's openat of a name it cannot read yet, printed [], is left out: it comes and goes);
# delete(@t[k]) of a tseries map removes k's every interval (hist/lhist: tests/lang/maps2.test);
# a stack kept in a scratch variable beside stacks stored in maps (kprobes: tests/vm/t0749);
# a classic tracepoint sonde traces still reaches perf's counters (the program returns 1, not 0);
# a line a thread prints in parts stays whole while other threads print theirs (output_lines.c);
# a probe whose predicate is a constant 0 (a tool's option off) is not attached: it would only cost.
# two uprobes (or uretprobes) of one function run in the program's order (bpftrace's
# tests/runtime/probe uprobe_order): the kernel runs a uprobe's newest consumer first.
# after exit(), no probe but END runs, though the probes are still attached for a while
# (bpftrace's tseries tests run interval:ms:1 { ...; exit(); } and want one run).
# debugf() writes to the trace buffer of tracefs' top instance (tracing_on is set for the
# test and put back as it was: something else may have turned it off).
# --no-warnings drops warnf()'s lines too (upstream's call/warnf tests); errorf() stays.
. "$(dirname "$0")/../lib.sh"

require_root 'sonde probe fixes'

test_expect_success 'errorf()/warnf(): stderr, with the place of the call; stdout keeps the rest' '
	$SONDE probe -e "BEGIN { errorf(\"Something bad with args: %d, %s\", 10, \"arg2\"); printf(\"out\\n\");
  warnf(\"w %d%%\", 5); exit(); }" >out 2>err &&
	printf "Attaching 1 probe...\nout\n\n\n" >want && test_cmp want out &&
	printf "stdin:1:9-62: ERROR: Something bad with args: 10, arg2\nstdin:2:3-21: WARNING: w 5%%\n" >want &&
	test_cmp want err
'

W="$WORKLOADS/syscalls 1"
strlen_prog() {	# $1: sonde or bpftrace
	local a=args.filename
	[ "$1" = bpftrace ] && a='args->filename'
	echo "tracepoint:syscalls:sys_enter_openat /pid == cpid/ { printf(\"[%s] [%s] [%s] [%r] [%r]\\n\", curtask->comm, str($a), str($a, 3), buf($a, 3), buf($a, 7)); @b[str($a)] = count(); @c = str($a, 3); @d = buf($a, 3); }"
}
for n in 4 5 9 12; do
	export N=$n
	test_expect_success "max_strlen = $n: str(), str(p, n), buf() of a user string, as bpftrace 0.17" '
		$SONDE probe -c "$W" -e "config = { max_strlen = $N } $(strlen_prog sonde)" >out 2>/dev/null &&
		grep -v "^Attaching\|^\$\|\[\]" out | sort >got &&
		case $N in
		4) printf "%s\n" "@b[/et]: 2" "@b[/li]: 1" "@c: /et" "@d: /et" "[syscalls] [/et] [/et] [/et] [/etc]" \
			"[syscalls] [/et] [/et] [/et] [/etc]" "[syscalls] [/li] [/li] [/li] [/lib]" ;;
		5) printf "%s\n" "@b[/etc]: 2" "@b[/lib]: 1" "@c: /et" "@d: /et" "[syscalls] [/etc] [/et] [/et] [/etc/]" \
			"[syscalls] [/etc] [/et] [/et] [/etc/]" "[syscalls] [/lib] [/li] [/li] [/lib/]" ;;
		9) printf "%s\n" "@b[/etc/hos]: 1" "@b[/etc/ld.]: 1" "@b[/lib/x86]: 1" "@c: /et" "@d: /et" \
			"[syscalls] [/etc/hos] [/et] [/et] [/etc/ho]" "[syscalls] [/etc/ld.] [/et] [/et] [/etc/ld]" \
			"[syscalls] [/lib/x86] [/li] [/li] [/lib/x8]" ;;
		12) printf "%s\n" "@b[/etc/hostna]: 1" "@b[/etc/ld.so.]: 1" "@b[/lib/x86_64]: 1" "@c: /et" "@d: /et" \
			"[syscalls] [/etc/hostna] [/et] [/et] [/etc/ho]" "[syscalls] [/etc/ld.so.] [/et] [/et] [/etc/ld]" \
			"[syscalls] [/lib/x86_64] [/li] [/li] [/lib/x8]" ;;
		esac | sort >want && test_cmp want got &&
		if have_bpftrace; then
			BPFTRACE_STRLEN=$N bpftrace -c "$W" -e "$(strlen_prog bpftrace)" 2>/dev/null |
				grep -v "^Attaching\|^\$\|\[\]" | sort >bt && test_cmp bt got
		fi
	'
done

test_expect_success 'max_strlen = 4 and 5: str() of a kernel char array agrees with strlen()' '
	for n in 4 5; do
		$SONDE probe -e "config = { max_strlen = $n } BEGIN { printf(\"[%s] %d [%s] %d\\n\", str(curtask->comm), strlen(str(curtask->comm)), str(curtask->comm, 2), strlen(str(curtask->comm, 2))); exit(); }" | sed -n 2p
	done >got &&
	printf "%s\n" "[son] 3 [so] 2" "[sond] 4 [so] 2" >want && test_cmp want got
'

test_expect_success 'delete(@t[k]) of a tseries map removes every interval of k' '
	$SONDE probe -e "BEGIN { @t[1] = tseries(5, 10ns, 50); @t[1] = tseries(6, 10ns, 50); @t[1] = tseries(7, 10ns, 50); @t[2] = tseries(8, 10ns, 50); @t[3] = tseries(9, 10ns, 50); delete(@t[1]); delete(@t, 3); exit(); }" >out 2>/dev/null &&
	grep "^@\\|| [5-9]\$" out | sed "s/^[0-9:.]* |.*| /| /" >got &&
	printf "%s\n" "@t[2]:" "| 8" >want && test_cmp want got
'

test_expect_success '$s = kstack(2) beside @k[kstack] and @x = kstack: each prints its frames' '
	$SONDE probe -c "$WORKLOADS/syscalls 2" -e "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { \$s = kstack(2); @k[kstack] = count(); @x = kstack; @s = \$s; print(\$s); }" >out &&
	awk "/^\$|^Attaching/ { next } /^[@\]]/ { cur = \$0; next } { n[cur]++ } END { for (k in n) print k, n[k] }" out | sort >got &&
	frames=$(sed -n "s/^@x:  //p" got) && test "$frames" -gt 2 &&
	printf "%s\n" " 4" "@k[ $frames" "@s:  2" "@x:  $frames" >want && test_cmp want got
'

# with 0 the kernel drops the event for perf too: perf counted 2 execs (its own and the script's) here
test_expect_success 'a tracepoint sonde probe and sonde offcpu trace still reaches perf stat' '
	printf "#!/bin/sh\nfor i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done\n" >execs.sh && chmod +x execs.sh &&
	perf stat -a -x, -e sched:sched_process_exec -- \
		$SONDE probe -e "tracepoint:sched:sched_process_exec /pid == 1/ { }" -c ./execs.sh 2>err >/dev/null &&
	n=$(sed -n "s/,,sched:sched_process_exec,.*//p" err) && test "$n" -ge 12 &&
	$SONDE offcpu --tracepoint -f -- perf stat -x, -o st -e sched:sched_switch -- \
		sh -c "for i in 1 2 3 4 5; do sleep 0.01; done" >/dev/null 2>&1 &&
	n=$(sed -n "s/,,sched:sched_switch,.*//p" st) && test "$n" -ge 5
'

# lcat blocks a second in read() between the two parts of its line; ltrue is exec'd meanwhile.
# Before: "lcat readexec ltrue" and " 3" (bpftrace 0.17 mixes them too)
test_expect_success 'a line printed in parts at a read'"'"'s entry and return stays whole' '
	# names of this run alone: the ASan run of this script may trace its lcat beside this one
	L=lcat$$ && T=ltrue$$ && cp /bin/cat $L && cp /bin/true $T &&
	printf "#!/bin/sh\n(sleep 1; ./$T; echo hi) | ./$L >/dev/null\n" >pipe.sh && chmod +x pipe.sh &&
	$SONDE probe -e "tracepoint:syscalls:sys_enter_read /comm == \"$L\"/ { printf(\"%s read\", comm); }
tracepoint:syscalls:sys_exit_read /comm == \"$L\"/ { printf(\" %d\n\", args.ret); }
tracepoint:sched:sched_process_exec /comm == \"$T\"/ { printf(\"exec %s\n\", comm); }" -c ./pipe.sh >out &&
	grep -x -e "exec $T" -e "$L read 3" out >got &&
	printf "exec $T\n$L read 3\n" >want && test_cmp want got &&
	! grep -v -x -e "Attaching 3 probes..." -e "exec $T" -e "$L read -\{0,1\}[0-9]*" -e "" out
'

links() { ls -l /proc/$TOOL_PID/fd | grep -c -e "perf_event" -e "bpf_link"; }
test_expect_success 'a probe whose predicate is a constant 0 is counted but not attached' '
	# with -q, BEGIN runs once the probes are attached: its line says the links are all there
	for pred in 0 "getopt(\"on\", false)" 1; do
		tool_start out $SONDE probe -q -e "BEGIN { printf(\"ready\n\"); }
tracepoint:sched:sched_process_exec /$pred/ { printf(\"x\n\"); }
tracepoint:sched:sched_process_fork { }" && links >>n && tool_stop || exit 1
		$SONDE probe -e "tracepoint:sched:sched_process_exec /$pred/ { } tracepoint:sched:sched_process_fork { }
BEGIN { exit(); }" | grep -x "Attaching 3 probes..." || exit 1
	done &&
	printf "1\n1\n2\n" >want && test_cmp want n
'

# oomkill.bt prints "... loadavg: " then cat("/proc/loadavg"): the file ends the line
test_expect_success 'the line a thread holds goes on with its cat(), time() and print()' '
	printf "1 2 3\n" >avg &&
	$SONDE probe -e "BEGIN { printf(\"a: \"); cat(\"avg\"); printf(\"t: \"); time(\"%Y|\"); printf(\"v: \"); print(5); exit(); }" >out &&
	printf "Attaching 1 probe...\na: 1 2 3\nt: %s|v: 5\n\n\n" $(date +%Y) >want && test_cmp want out
'

test_expect_success 'two uprobes and two uretprobes of one function run in the order of the program' '
	S=$WORKLOADS/syscalls &&
	$SONDE probe -c "$S 1" -e "uprobe:$S:main { printf(\"first\n\"); } uprobe:$S:main { printf(\"second\n\"); }
  uretprobe:$S:main { printf(\"r1\n\"); } uretprobe:$S:main { printf(\"r2\n\"); }" >out &&
	printf "Attaching 4 probes...\nfirst\nsecond\nr1\nr2\n\n\n" >want && test_cmp want out
'

test_expect_success 'after exit() no probe but END runs: the syscall'"'"'s return is not counted' '
	$SONDE probe -c "$W 5" -e "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @n++; exit(); }
  tracepoint:syscalls:sys_exit_getppid /pid == cpid/ { @after++; }" >out &&
	printf "Attaching 2 probes...\n\n\n\n@n: 1\n" >want && test_cmp want out
'

test_expect_success 'debugf(): bpf_trace_vprintk lines in the trace buffer, strings and integers' '
	T=/sys/kernel/tracing && { [ -e $T/trace ] || T=/sys/kernel/debug/tracing; } &&
	on=$(cat $T/tracing_on) && echo 1 >$T/tracing_on &&
	$SONDE probe -e "BEGIN { debugf(\"t0749-%d %s %x\", $$, \"a\", 16); debugf(\"t0749-%d plain\", $$); exit(); }" >out;
	rc=$?; echo $on >$T/tracing_on; [ $rc = 0 ] &&
	grep -a "bpf_trace_printk: t0749-$$ " $T/trace | sed "s/.*bpf_trace_printk: //" >got &&
	printf "t0749-%d a 10\nt0749-%d plain\n" $$ $$ >want && test_cmp want got
'

test_expect_success '--no-warnings: no warnf() line, errorf() still printed' '
	$SONDE probe --no-warnings -e "BEGIN { warnf(\"w\"); errorf(\"e\"); exit(); }" >out 2>err &&
	printf "stdin:1:21-32: ERROR: e\n" >want && test_cmp want err
'

test_done
