#!/bin/bash
# sonde ftrace record/report: trace-cmd's trace.dat (version 6). sonde's file
# read by Debian's trace-cmd report (no warning, the events of a known
# workload, the same lines as sonde's own report); trace-cmd's own file read by
# sonde as trace-cmd reads it (version 6, and 7 with or without zstd); a truncated or corrupted file is one error line.
. "$(dirname "$0")/../lib.sh"

T=/sys/kernel/tracing
if [ ! -d $T/instances ]; then
	test_skip 'sonde ftrace record' "no tracefs instances at $T"
	test_done
	exit 0
fi
expect_rc() { local want=$1 rc=0; shift; "$@" || rc=$?; [ $rc -eq $want ] || { echo "exit $rc, expected $want: $*"; return 1; }; }
have_tc() { command -v trace-cmd >/dev/null; }


test_expect_success 'record: the exec and exit events of a known workload, in the file' '
	$SONDE ftrace record -o s.dat -e sched:sched_process_exec,sched:sched_process_exit -- \
		sh -c "for i in 1 2 3; do sh -c \"echo \\\$\\\$ >>pids; exec /bin/true\"; done" &&
	[ -s s.dat ] && [ $(wc -l <pids) -eq 3 ] &&
	$SONDE ftrace report -i s.dat >mine &&
	head -1 mine | grep -q "^cpus=[0-9]*$" &&
	for p in $(cat pids); do
		# the name is the last comm of the pid (saved_cmdlines), as trace-cmd shows it
		grep -q "^ *true-$p *\[[0-9]*\] *[0-9]*\.[0-9]*: sched_process_exec:   filename=[^ ]*/sh pid=$p old_pid=$p$" mine &&
		grep -q "^ *true-$p *\[[0-9]*\] *[0-9]*\.[0-9]*: sched_process_exec:   filename=/bin/true pid=$p old_pid=$p$" mine &&
		grep -q "^ *true-$p *\[[0-9]*\] *[0-9]*\.[0-9]*: sched_process_exit:   comm=true pid=$p prio=120 group_dead=true$" mine ||
		{ cat pids mine; false; } || return 1
	done &&
	[ $(grep -c "sched_process_exec:" mine) -eq 7 ] &&
	[ $(grep -c "sched_process_exit:" mine) -eq 4 ]
'

if have_tc; then
test_expect_success 'trace-cmd report reads sonde'"'"'s file without a warning: the same lines' '
	trace-cmd report -i s.dat >theirs 2>err &&
	test_cmp /dev/null err && test_cmp theirs mine
'

test_expect_success 'report: trace-cmd'"'"'s own file (extract, version 6), as trace-cmd prints it' '
	# trace-cmd record cannot start here (it writes ftrace_enabled, which this kernel
	# refuses): its extract of an instance makes the same file
	i=t0813_$$ && mkdir $T/instances/$i &&
	echo 1 >$T/instances/$i/events/sched/sched_switch/enable &&
	echo 1 >$T/instances/$i/events/sched/sched_process_exec/enable &&
	for k in 1 2 3; do sleep 0.02; done && /bin/true &&
	echo 0 >$T/instances/$i/tracing_on &&
	# trace-cmd fails when /proc/kallsyms changes size while it reads it (other tests
	# load BPF programs): it reads a still copy, bound over it in a mount namespace
	{ unshare -m sh -c "cat /proc/kallsyms >ks && mount --bind ks /proc/kallsyms &&
		trace-cmd extract -B $i -o tc7.dat" >/dev/null 2>tc.err; rc=$?; rmdir $T/instances/$i 2>/dev/null;
	  [ $rc -eq 0 ] || { cat tc.err; false; }; } &&
	trace-cmd convert --file-version 6 -i tc7.dat -o tc.dat >/dev/null 2>&1 &&
	trace-cmd report -i tc.dat >theirs &&
	$SONDE ftrace report -i tc.dat >mine &&
	grep -q "^$i: .* sched_switch: " mine && grep -q "^$i: .*: sched_process_exec:   filename=/bin/true " mine &&
	test_cmp theirs mine
'

test_expect_success 'report: trace-cmd'"'"'s version 7 file as it is (zstd) and uncompressed' '
	trace-cmd report -i tc7.dat >theirs && $SONDE ftrace report -i tc7.dat >mine && test_cmp theirs mine &&
	trace-cmd convert --compression none -i tc7.dat -o tc7n.dat >/dev/null 2>&1 &&
	trace-cmd report -i tc7n.dat >theirs && $SONDE ftrace report -i tc7n.dat >mine && test_cmp theirs mine &&
	[ $(grep -c "sched_switch: " mine) -gt 0 ] &&
	head -c 20000 tc7.dat >cut7.dat && expect_rc 1 $SONDE ftrace report -i cut7.dat 2>err >/dev/null &&
	[ $(wc -l <err) -eq 1 ] && grep -q "cut7.dat: not a valid trace.dat: " err
'
fi

test_expect_success 'record -u: a uprobe event of a known workload, 5 calls, read by both' '
	$SONDE ftrace record -o u.dat -u $WORKLOADS/ftrace_calls:tick -- $WORKLOADS/ftrace_calls 5 &&
	$SONDE ftrace report -i u.dat >mine &&
	[ $(grep -c "^ *ftrace_calls-[0-9]* *\[[0-9]*\] *[0-9.]*: tick: *([0-9a-f]*)$" mine) -eq 5 ] &&
	if have_tc; then trace-cmd report -i u.dat >theirs 2>err && test_cmp /dev/null err && test_cmp theirs mine; fi
'

test_expect_success 'record: kallsyms in the file, so addresses print as functions (a sleep'"'"'s hrtimer_wakeup)' '
	$SONDE ftrace record -o k.dat -e timer:hrtimer_expire_entry --duration 1.5 & sleep 0.5 && wait $! &&
	$SONDE ftrace report -i k.dat >mine &&
	grep -q ": hrtimer_expire_entry: hrtimer=0x[0-9a-f]* now=[0-9]* function=hrtimer_wakeup/0x0$" mine &&
	if have_tc; then trace-cmd report -i k.dat >theirs 2>err && test_cmp /dev/null err && test_cmp theirs mine; fi
'

test_expect_success 'record until SIGINT: the file is whole, the instance gone' '
	$SONDE ftrace record -o i.dat -e sched:sched_switch & p=$! && sleep 0.5 && kill_ready INT $p && wait $p &&
	! ls $T/instances | grep -q "^sonde-$p\$" &&
	$SONDE ftrace report -i i.dat >mine && [ $(grep -c ": sched_switch: " mine) -gt 0 ] &&
	if have_tc; then trace-cmd report -i i.dat >theirs 2>err && test_cmp /dev/null err && test_cmp theirs mine; fi
'

test_expect_success 'a truncated or corrupted trace.dat: one error line, exit 1' '
	for n in 5 11 20 300 2000 5000; do
		head -c $n s.dat >cut.dat &&
		expect_rc 1 $SONDE ftrace report -i cut.dat >/dev/null 2>err &&
		[ $(wc -l <err) -eq 1 ] && grep -q "cut.dat: not a valid trace.dat: " err || { cat err; return 1; }
	done &&
	grep -q "truncated" err &&
	# a page that claims more than a page: its commit field set to all ones
	off=$(( ($(stat -c %s s.dat) / 4096 - 1) * 4096 + 8 )) && cp s.dat bad.dat &&
	printf "\377\377\377\007" | dd of=bad.dat bs=1 seek=$off conv=notrunc 2>/dev/null &&
	expect_rc 1 $SONDE ftrace report -i bad.dat >/dev/null 2>err && cat err &&
	[ $(wc -l <err) -eq 1 ] && grep -q "a page that holds .* bytes, more than a page" err &&
	expect_rc 1 $SONDE ftrace report -i nosuch.dat 2>err && grep -q "cannot read .nosuch.dat." err
'

test_expect_success 'record takes tracepoints and uprobes only' '
	expect_rc 129 $SONDE ftrace record -G vfs_read -- /bin/true 2>err && grep -q "record writes tracepoints" err
'

test_done
