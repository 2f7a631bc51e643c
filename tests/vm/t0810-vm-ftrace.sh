#!/bin/bash
# Runs inside the test VM (tests/vm/README.md), whose kernel has the function
# tracer: `sonde ftrace -f` with --notrace, children followed (function-fork),
# mixed with events, and the state left after SIGINT. t0300 checks -f's counts.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing

state() {
	(cd $T && for f in current_tracer tracing_on set_ftrace_filter set_ftrace_notrace set_ftrace_pid \
		set_event set_event_pid uprobe_events; do echo "== $f"; cat $f 2>&1; done; echo "== instances"; ls instances)
}

test_expect_success '-f GLOB --notrace FUNC: the glob without that function' '
	state >before &&
	$SONDE ftrace -f "vfs_*" --notrace vfs_read -- cat /proc/version >out &&
	state >after && test_cmp before after &&
	grep -q ": vfs_" out &&
	! grep -q ": vfs_read <-" out
'

test_expect_success '-f follows the children of the command (function-fork)' '
	$SONDE ftrace -f do_sys_openat2 -- sh -c "cat /proc/version >/dev/null; cat /proc/uptime >/dev/null; true" >out &&
	sed "s/ *\[.*//" out | sort | uniq -c &&
	# the comm tracefs shows for a child may still be sh or <...> (its
	# saved_cmdlines cache): count the pids instead, the two cats at least
	pids() { grep ": do_sys_openat2 <-" "$1" | sed -E "s/^ *.*-([0-9]+) +\[.*/\1/" | sort -u | wc -l; } &&
	[ "$(pids out)" -ge 2 ] &&
	$SONDE ftrace --no-children -f do_sys_openat2 -- sh -c "cat /proc/version >/dev/null; cat /proc/uptime >/dev/null; true" >out2 &&
	[ "$(pids out2)" -le 1 ]
'

test_expect_success '-f and -e together: one stream, as many calls as events' '
	$SONDE ftrace -f do_sys_openat2 -e syscalls:sys_enter_openat -- $WORKLOADS/syscalls 20 >out &&
	f=$(grep -c ": do_sys_openat2 <-" out) && e=$(grep -c ": sys_openat(" out) &&
	echo "functions $f, events $e" && [ "$f" -ge 20 ] && [ "$f" -eq "$e" ]
'

test_expect_success 'SIGINT while the function tracer runs: tracefs as it was' '
	state >before &&
	{ $SONDE ftrace -f "schedule" -o tr.txt --duration 60 & } && pid=$! &&
	up=0 && for i in $(seq 200); do [ -d $T/instances/sonde-$pid ] && up=1 && break; sleep 0.05; done &&
	sleep 1 && kill -INT $pid && wait $pid &&
	[ $up = 1 ] &&
	state >after && test_cmp before after &&
	grep -q ": schedule <-" tr.txt
'

test_done
