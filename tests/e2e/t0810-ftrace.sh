#!/bin/bash
# sonde ftrace: events of a command and its children against perf stat's counts,
# filters, -p, -o, the lists, errors, and the private instance: gone after a
# normal exit, SIGINT and SIGTERM; the refused function tracer changes nothing.
. "$(dirname "$0")/../lib.sh"

T=/sys/kernel/tracing
if [ ! -d $T/instances ]; then
	test_skip 'sonde ftrace' "no tracefs instances at $T"
	test_done
	exit 0
fi

# what sonde must leave as it found it
state() {
	(cd $T && for f in current_tracer tracing_on set_event set_event_pid buffer_size_kb trace_options \
		set_ftrace_pid uprobe_events; do echo "== $f"; cat $f 2>&1; done
	 echo "== instances"; ls instances; echo "== events/enable"; cat events/enable)
}
no_instance() { ! ls $T/instances | grep -q "^sonde-$1\$"; }
# expect_rc N CMD...: CMD must exit N
expect_rc() { local want=$1 rc=0; shift; "$@" || rc=$?; [ $rc -eq $want ] || { echo "exit $rc, expected $want: $*"; return 1; }; }

test_expect_success 'syscall events of a command: the counts perf stat -e gives' '
	$SONDE ftrace -e syscalls:sys_enter_getppid -e syscalls:sys_enter_openat -- $WORKLOADS/syscalls 300 >out &&
	perf stat -x, -e syscalls:sys_enter_getppid -e syscalls:sys_enter_openat -- $WORKLOADS/syscalls 300 2>perf.out >/dev/null &&
	p_getppid=$(awk -F, "/sys_enter_getppid/ {print \$1}" perf.out) &&
	p_openat=$(awk -F, "/sys_enter_openat/ {print \$1}" perf.out) &&
	echo "sonde: $(grep -c "sys_getppid()" out) getppid, $(grep -c "sys_openat(" out) openat; perf: $p_getppid, $p_openat" &&
	[ $(grep -c "sys_getppid()" out) -eq 300 ] &&
	[ $(grep -c "sys_getppid()" out) -eq "$p_getppid" ] &&
	[ $(grep -c "sys_openat(" out) -eq "$p_openat" ] &&
	# tracefs names the task from its comm cache: syscalls, or <...> when it missed it
	grep -q "^ *[^ ]*-[0-9]* *\[[0-9]*\] [^ ]* *[0-9]*\.[0-9]*: sys_openat(dfd: " out
'

test_expect_success 'children are followed (event-fork); --no-children only the command' '
	expect_rc 3 $SONDE ftrace -e sched:sched_process_exec -- sh -c "/bin/true; /bin/echo hi >/dev/null; exit 3" >out &&
	grep -q "filename=/usr/bin/sh\|filename=/bin/sh" out &&
	grep -q "filename=/bin/true" out && grep -q "filename=/bin/echo" out &&
	[ $(grep -c sched_process_exec out) -eq 3 ] &&
	perf stat -x, -e sched:sched_process_exec -- sh -c "/bin/true; /bin/echo hi >/dev/null" 2>perf.out &&
	[ "$(cut -d, -f1 perf.out)" -eq 3 ] &&
	$SONDE ftrace --no-children -e sched:sched_process_exec -- sh -c "/bin/true; /bin/true" >out2 &&
	[ $(grep -c sched_process_exec out2) -eq 1 ]
'

test_expect_success '--filter applies to the -e before it' '
	$SONDE ftrace -e syscalls:sys_enter_write --filter "count == 1" -e syscalls:sys_enter_getppid \
		-- $WORKLOADS/syscalls 50 >out &&
	[ $(grep -c "sys_write(fd: [0-9a-fx]*, buf: [0-9a-fx]*, count: 1)" out) -eq 50 ] &&
	[ $(grep -c "sys_write(" out) -eq 50 ] &&
	[ $(grep -c "sys_getppid()" out) -eq 50 ] &&
	$SONDE ftrace -e syscalls:sys_enter_write --filter "count == 2" -- $WORKLOADS/syscalls 50 >out2 &&
	! grep -q "sys_write(" out2
'

test_expect_success 'globs and groups: sched:sched_process_* and a bare event name' '
	$SONDE ftrace -e "sched:sched_process_*" -- /bin/true >out &&
	grep -q ": sched_process_exec:" out && grep -q ": sched_process_exit:" out &&
	$SONDE ftrace -e sched_process_exit -- /bin/true >out2 &&
	[ $(grep -c ": sched_process_exit:" out2) -eq 1 ]
'

test_expect_success '-p PID traces that process and its new children only, --duration stops' '
	{ sh -c "while :; do /bin/true; sleep 0.05; done" & } && loop=$! &&
	{ rc=0; $SONDE ftrace -e sched:sched_process_exec -p $loop --duration 2 >out || rc=$?; } &&
	{ kill $loop; wait $loop 2>/dev/null || :; } &&
	[ $rc -eq 0 ] &&
	# 30 rounds idle; a loaded machine makes each fork and exec slow
	n=$(grep -c "filename=/bin/true" out) && echo "$n execs of true" && [ $n -ge 3 ] &&
	! grep -v "filename=/bin/true\|filename=/usr/bin/sleep\|filename=/bin/sleep" out | grep -q sched_process_exec
'

test_expect_success 'uprobes (-u, --uretprobe): the calls of a user function, as perf probe + perf stat count them' '
	state >before &&
	$SONDE ftrace -u $WORKLOADS/ftrace_calls:tick --uretprobe $WORKLOADS/ftrace_calls:tock \
		-- $WORKLOADS/ftrace_calls 500 >out &&
	state >after && test_cmp before after &&
	[ $(grep -c ": tick: (0x" out) -eq 500 ] &&
	[ $(grep -c ": tock__return: (0x[0-9a-f]* <- 0x" out) -eq 1 ] &&
	perf probe -q -x $WORKLOADS/ftrace_calls tick 2>/dev/null &&
	{ perf stat -x, -e probe_ftrace_calls:tick -- $WORKLOADS/ftrace_calls 500 2>perf.out >/dev/null; rc=$?;
	  perf probe -q -d "probe_ftrace_calls:*" 2>/dev/null; [ $rc -eq 0 ]; } &&
	[ "$(cut -d, -f1 perf.out)" -eq $(grep -c ": tick: (0x" out) ] &&
	$SONDE ftrace -u $WORKLOADS/ftrace_calls:tick --filter "common_pid == 1" -- $WORKLOADS/ftrace_calls 50 >out2 &&
	! grep -q tick out2 &&
	expect_rc 1 $SONDE ftrace -u $WORKLOADS/ftrace_calls:no_such_function -- /bin/true 2>err &&
	grep -q "no such function in its symbol tables" err &&
	state >after && test_cmp before after
'

test_expect_success 'uprobe events left by a killed sonde are removed by the next run' '
	echo "p:sonde_999999/stale $WORKLOADS/ftrace_calls:0x1000" >>$T/uprobe_events &&
	grep -q sonde_999999 $T/uprobe_events &&
	$SONDE ftrace -e sched:sched_process_exec -- /bin/true >/dev/null &&
	! grep -q sonde_999999 $T/uprobe_events
'

test_expect_success '-o FILE gets the trace, stdout stays empty' '
	$SONDE ftrace -e sched:sched_process_exec -o trace.txt -- /bin/true >out &&
	[ ! -s out ] && grep -q "filename=/bin/true" trace.txt
'

test_expect_success 'the instance is gone after a normal exit' '
	state >before &&
	$SONDE ftrace -e sched:sched_switch -- /bin/true >/dev/null &&
	state >after && test_cmp before after
'

for sig in INT TERM; do
test_expect_success "SIG$sig: the trace ends, the instance is gone, nothing changed" '
	state >before &&
	{ $SONDE ftrace -e sched:sched_switch -o sw.txt --duration 30 & } && pid=$! &&
	up=0 && for i in $(seq 200); do [ -d $T/instances/sonde-$pid ] && up=1 && break; sleep 0.05; done &&
	sleep 0.3 && kill -'$sig' $pid && wait $pid &&
	[ $up = 1 ] &&
	no_instance $pid && state >after && test_cmp before after &&
	grep -q "sched_switch: prev_comm=" sw.txt
'
done

test_expect_success 'SIGTERM with a command: the command is ended too' '
	{ $SONDE ftrace -e sched:sched_process_exit -- sleep 30 >out & } && pid=$! &&
	for i in $(seq 100); do [ -d $T/instances/sonde-$pid ] && break; sleep 0.05; done &&
	sleep 0.2 && kill -TERM $pid && { wait $pid || :; } &&
	no_instance $pid && ! pgrep -P $pid sleep && grep -q "comm=sleep" out
'

test_expect_success 'a closed pipe ends the trace and removes the instance' '
	state >before &&
	$SONDE ftrace -e sched:sched_switch | head -2 >out &&
	[ $(wc -l <out) -eq 2 ] &&
	sleep 0.2 && state >after && test_cmp before after
'

test_expect_success 'instances left by a killed sonde (SIGKILL) are removed by the next run' '
	mkdir $T/instances/sonde-999999 &&
	$SONDE ftrace -e sched:sched_process_exec -- /bin/true >/dev/null &&
	[ ! -d $T/instances/sonde-999999 ]
'

test_expect_success '-f FUNC: one line naming the reason, exit 1, tracefs untouched' '
	state >before &&
	{ rc=0; $SONDE ftrace -f schedule -- /bin/true >out 2>err || rc=$?; } &&
	state >after && test_cmp before after &&
	if grep -qw function $T/available_tracers && cat $T/set_ftrace_filter >/dev/null 2>&1; then
		[ $rc -eq 0 ] && grep -q "schedule" out	# a kernel that allows it
	else
		[ $rc -eq 1 ] && [ $(wc -l <err) -eq 1 ] && [ ! -s out ] &&
		grep -q "^sonde: cannot use the function tracer: " err
	fi
'

test_expect_success '--list-events PATTERN lists group:event; --list-functions says why it cannot' '
	$SONDE ftrace --list-events "sched:*" >ev &&
	grep -qx "sched:sched_switch" ev && ! grep -v "^sched:" ev &&
	[ $(wc -l <ev) -eq $(grep -c "^sched:" $T/available_events) ] &&
	$SONDE ftrace --list-events sched_switch >ev2 && grep -qx "sched:sched_switch" ev2 &&
	{ rc=0; $SONDE ftrace --list-functions "vfs_*" >fn 2>err || rc=$?; } &&
	if cat $T/available_filter_functions >/dev/null 2>&1; then
		[ $rc -eq 0 ] && grep -q "^vfs_read" fn
	else
		[ $rc -eq 1 ] && [ $(wc -l <err) -eq 1 ] && grep -q "refuses the function tracer" err
	fi
'

test_expect_success 'errors: unknown event, bad filter, no target; one line each, nothing left' '
	state >before &&
	expect_rc 1 $SONDE ftrace -e nosuch:event -- /bin/true 2>err &&
	[ $(wc -l <err) -eq 1 ] && grep -q "no tracepoint matches .nosuch:event." err &&
	expect_rc 1 $SONDE ftrace -e sched:sched_switch --filter "bogus_field == 1" -- /bin/true 2>err &&
	[ $(wc -l <err) -eq 1 ] && grep -q "bad filter .bogus_field == 1. for sched:sched_switch: Field not found" err &&
	expect_rc 129 $SONDE ftrace --filter "x == 1" -e sched:sched_switch 2>err &&
	grep -q "applies to the -e (or -u) before it" err &&
	expect_rc 129 $SONDE ftrace -- /bin/true 2>err &&
	grep -q "nothing to trace" err &&
	expect_rc 1 $SONDE ftrace -e sched:sched_switch -p 999999 2>err &&
	grep -q "cannot attach to process 999999: no such process" err &&
	expect_rc 127 $SONDE ftrace -e sched:sched_switch -- /nonexistent/cmd 2>err &&
	state >after && test_cmp before after
'

test_expect_success 'unprivileged: one line saying tracing needs root, nothing created' '
	cp $SONDE ./sonde-copy && chmod 755 . ./sonde-copy &&
	state >before &&
	expect_rc 1 setpriv --reuid 65534 --regid 65534 --clear-groups ./sonde-copy ftrace -e sched:sched_switch -- true 2>err &&
	[ $(wc -l <err) -eq 1 ] && grep -q "Permission denied (tracing needs root or CAP_SYS_ADMIN)" err &&
	expect_rc 1 setpriv --reuid 65534 --regid 65534 --clear-groups ./sonde-copy ftrace --list-events 2>err &&
	[ $(wc -l <err) -eq 1 ] && grep -q "needs root" err &&
	state >after && test_cmp before after
'

test_done
