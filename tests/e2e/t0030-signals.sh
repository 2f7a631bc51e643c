#!/bin/bash
# Signals and exit status, one convention for every live command (README "Exit
# status, signals and leftovers"): a command sonde started gets the signal sonde
# got, is killed if it ignores it, is always reaped, and its status is sonde's;
# a -p process is left alone and sonde exits 0; --duration ends a started
# command and exits 0; write errors exit 1. What a SIGKILLed sonde left in
# tracefs is removed by the next run, which says so.
. "$(dirname "$0")/../lib.sh"

require_root 'signals and exit status of the live commands' 'tracing needs root'
T=/sys/kernel/tracing

# start `sonde "$@"` in the background and wait until the command it started
# (a sleep) has exec'd: sets spid (sonde) and cpid (the command)
start_cmd() {
	"$SONDE" "$@" >out 2>err &
	spid=$!
	cpid=
	for i in $(seq 500); do
		cpid=$(pgrep -P $spid -x sleep) && break
		sleep 0.02
	done
	echo "sonde $spid, its command: ${cpid:-none}"
	[ -n "$cpid" ]
}

# start `sonde "$@"` in the background and wait until its event loop holds the
# signals (SIGHUP, SIGINT, SIGTERM and SIGCHLD blocked): sets spid. The shell
# that forks it blocks SIGINT, SIGTERM and SIGCHLD until its exec, so: the exec
# first (comm), then the mask, with SIGHUP, which only the loop blocks
start_attached() {
	"$SONDE" "$@" >out 2>err &
	spid=$!
	for i in $(seq 500); do
		if [ "$(cat /proc/$spid/comm 2>/dev/null)" = sonde ]; then
			blk=$(awk '/^SigBlk/ { print $2 }' /proc/$spid/status 2>/dev/null)
			[ -n "$blk" ] && [ $((0x$blk & 0x14003)) = $((0x14003)) ] && return 0
		fi
		sleep 0.02
	done
	echo "sonde $spid never blocked the signals"; return 1
}

# send signal $1 to sonde, expect exit status $2 and the started command gone
stop_expect() {
	kill -$1 $spid
	rc=0 && wait $spid || rc=$?
	echo "sonde exited $rc, expected $2"; cat err
	[ $rc = $2 ] && if [ -n "${cpid:-}" ]; then ! kill -0 $cpid 2>/dev/null; fi
}

# expect_rc N CMD...: CMD must exit N
expect_rc() {
	local want=$1 rc=0
	shift
	"$@" || rc=$?
	[ $rc -eq $want ] || { echo "exit $rc, expected $want: $*"; return 1; }
}

UP="$WORKLOADS/ftrace_calls:tick"
# every command that starts one: how it is spelled
cmd_of() {
	case $1 in
	stat) echo "stat -e task-clock --" ;;
	record) echo "record -q -o $TMP/r.data --" ;;
	trace) echo "trace -o $TMP/t.txt --" ;;
	offcpu) echo "offcpu -o $TMP/o.txt --" ;;
	ftrace) echo "ftrace -e sched:sched_process_exit -o $TMP/f.txt --" ;;
	esac
}

for c in stat record trace offcpu ftrace; do
	test_expect_success "$c: SIGINT ends the command it started (130, its status), nothing left running" '
		start_cmd $(cmd_of '$c') sleep 30 && stop_expect INT 130
	'
done
for c in trace ftrace record; do
	test_expect_success "$c: SIGTERM too (143)" '
		start_cmd $(cmd_of '$c') sleep 30 && stop_expect TERM 143
	'
done
test_expect_success 'stat: SIGHUP (a closed terminal) too (129)' '
	start_cmd $(cmd_of stat) sleep 30 && stop_expect HUP 129
'
test_expect_success 'probe -c: SIGINT ends the command; the status is the program'"'"'s (0), as bpftrace' '
	start_cmd probe -e "tracepoint:syscalls:sys_enter_getppid { @ = count(); }" -c "sleep 30" && stop_expect INT 0
'

test_expect_success 'a command that ignores SIGINT and SIGTERM is killed after the grace time (137)' '
	start_cmd stat -e task-clock -- bash -c "trap \"\" INT TERM; exec sleep 30" &&
	t0=$(date +%s%N) && stop_expect INT 137 && t1=$(date +%s%N) &&
	echo "ended after $(( (t1 - t0) / 1000000 )) ms" &&
	[ $(( (t1 - t0) / 1000000 )) -ge 1900 ] && [ $(( (t1 - t0) / 1000000 )) -lt 6000 ]
'
test_expect_success '... and at once at a second signal' '
	start_cmd trace -o /dev/null -- bash -c "trap \"\" INT TERM; exec sleep 30" &&
	kill -INT $spid && sleep 0.2 && t0=$(date +%s%N) && stop_expect TERM 137 && t1=$(date +%s%N) &&
	echo "ended $(( (t1 - t0) / 1000000 )) ms after the second" && [ $(( (t1 - t0) / 1000000 )) -lt 1500 ]
'

for c in trace stat offcpu ftrace; do
	test_expect_success "$c -p: SIGINT detaches, exits 0 and leaves the process running" '
		sleep 30 & tp=$! &&
		case '$c' in ftrace) a="-e sched:sched_switch -o /dev/null" ;; trace|offcpu) a="-o /dev/null" ;; *) a="" ;; esac &&
		start_attached '$c' $a -p $tp && cpid= && stop_expect INT 0 &&
		kill -0 $tp && kill $tp
	'
done
for c in top use; do
	test_expect_success "$c: SIGTERM stops it, exit 0" '
		case '$c' in top) a="-a --stdio" ;; *) a="--duration 30" ;; esac &&
		start_attached '$c' $a && cpid= && stop_expect TERM 0
	'
done

for c in stat record offcpu ftrace; do
	test_expect_success "$c --duration: the command is ended on schedule, exit 0" '
		start_cmd $(cmd_of '$c' | sed "s/ --\$/ --duration 0.5 --/") sleep 30 &&
		rc=0 && wait $spid || rc=$? && echo "exit $rc" && [ $rc = 0 ] && ! kill -0 $cpid 2>/dev/null
	'
done
test_expect_success 'trace --seconds: the same' '
	start_cmd trace --seconds 0.5 -o /dev/null -- sleep 30 &&
	rc=0 && wait $spid || rc=$? && echo "exit $rc" && [ $rc = 0 ] && ! kill -0 $cpid 2>/dev/null
'
for c in stat record trace offcpu ftrace; do
	test_expect_success "$c: the command's own exit status is sonde's" '
		expect_rc 3 $SONDE $(cmd_of '$c') sh -c "exit 3"
	'
done
test_expect_success 'ftrace -o /dev/full: a write error exits 1, with one line' '
	expect_rc 1 $SONDE ftrace -e sched:sched_switch -o /dev/full -- sleep 0.3 2>err && cat err &&
	grep -q "^sonde: cannot write the trace to /dev/full: No space left on device" err
'
test_expect_success 'ftrace: a closed output pipe ends the trace at once (no event needed), exit 1, no message' '
	sleep 30 & tp=$! &&
	t0=$(date +%s%N) &&
	{ timeout 10 $SONDE ftrace -e sched:sched_switch -p $tp 2>err | true; st=${PIPESTATUS[0]}; } &&
	t1=$(date +%s%N) && kill $tp && echo "exit $st after $(( (t1 - t0) / 1000000 )) ms" && cat err &&
	[ $(( (t1 - t0) / 1000000 )) -lt 5000 ] && [ $st = 1 ] && [ ! -s err ]
'
test_expect_success 'record -a -o -: the same when the reader of the stream quits (record says it)' '
	t0=$(date +%s%N) &&
	{ timeout 10 $SONDE record -q -a -o - 2>err | head -c 3000 >/dev/null; st=${PIPESTATUS[0]}; } &&
	t1=$(date +%s%N) && echo "exit $st after $(( (t1 - t0) / 1000000 )) ms" && cat err &&
	[ $(( (t1 - t0) / 1000000 )) -lt 5000 ] && [ $st = 1 ] && [ "$(cat err)" = "sonde: cannot write '"'"'-'"'"': Broken pipe" ]
'
test_expect_success 'stat -I: the same when its rows go to a closed pipe' '
	t0=$(date +%s%N) &&
	{ timeout 10 $SONDE stat -a -I 100 -e task-clock 2>&1 >/dev/null | head -1 >/dev/null; st=${PIPESTATUS[0]}; } &&
	t1=$(date +%s%N) && echo "exit $st after $(( (t1 - t0) / 1000000 )) ms" &&
	[ $(( (t1 - t0) / 1000000 )) -lt 5000 ] && [ $st = 1 ]
'

if [ -d $T/instances ]; then
test_expect_success 'ftrace -u killed by SIGKILL: the next run removes its instance and event, and says so' '
	start_cmd ftrace -u $UP -o /dev/null -- sleep 30 &&
	[ -d $T/instances/sonde-$spid ] && grep -q "^p:sonde_$spid/" $T/uprobe_events &&
	kill -KILL $spid && { wait $spid || :; } && kill $cpid &&
	$SONDE ftrace -e sched:sched_process_exec -- /bin/true >/dev/null 2>err && cat err &&
	grep -q "^sonde: warning: removed what sonde pid $spid (no longer running) left in tracefs: instance sonde-$spid (still tracing), uprobe event sonde_$spid/tick$" err &&
	[ $(grep -c "sonde pid $spid " err) = 1 ] &&
	[ ! -d $T/instances/sonde-$spid ] && ! grep -q "sonde_$spid/" $T/uprobe_events
'
fi
test_expect_success 'probe killed by SIGKILL: its uprobes (perf-event ones) leave nothing in tracefs' '
	cp $WORKLOADS/ftrace_calls $TMP/calls_$$ &&
	start_cmd probe -e "uprobe:$TMP/calls_$$:tick { @ = count(); }" -c "sleep 30" &&
	kill -KILL $spid && { wait $spid || :; } && kill $cpid &&
	! grep -q "calls_$$" $T/uprobe_events &&
	if [ -d $T/instances ]; then ! ls $T/instances | grep -q "sonde-$spid\$"; fi
'
test_done
