#!/bin/bash
# t0601: sonde trace's own behaviour: exit status, errors, -p, lost events,
# --duration, --histogram.
. "$(dirname "$0")/../lib.sh"

# skip only when the kernel refuses the BPF side (a broken sonde must fail, not skip)
if ! $SONDE trace -e trace=getppid -o /dev/null -- true 2>"$TMP/probe.err" &&
   grep -q -e "cannot load the BPF" -e "cannot attach" -e "cannot open the BPF" "$TMP/probe.err"; then
	test_skip 'sonde trace behaviour' "sonde trace cannot run here: $(head -1 "$TMP/probe.err")"
	test_done
	exit
fi

# start a command in the background; $pid is the command itself (not a subshell around it)
start_bg() {
	rm -f pidfile
	sh -c 'echo $$ >pidfile; exec "$0" "$@"' "$@" &
	for _ in $(seq 100); do [ -s pidfile ] && break; sleep 0.01; done
	pid=$(cat pidfile)
}

test_expect_success 'the exit status of the traced command is sonde'"'"'s' '
	test_expect_code() { want=$1; shift; "$@"; rc=$?; test $rc -eq $want; }
	test_expect_code 5 $SONDE trace -o /dev/null "$WORKLOADS/syscalls" 2 5 &&
	test_expect_code 0 $SONDE trace -c -o /dev/null "$WORKLOADS/syscalls" 2 &&
	test_expect_code 127 $SONDE trace -o /dev/null ./no-such-program 2>err &&
	grep "no-such-program" err
'

test_expect_success 'a command killed by a signal: +++ killed by +++, and 128+N as sonde'"'"'s status' '
	rc=0 && $SONDE trace -o so.txt -- sh -c "kill -9 \$\$" || rc=$? &&
	test $rc -eq 137 &&
	test "$(tail -1 so.txt)" = "+++ killed by SIGKILL +++"
'

test_expect_success '-f goes on until what the command left behind ends (as strace -f)' '
	rc=0 && $SONDE trace -f -e trace=write -o so.txt -- sh -c "(sleep 0.2; echo hi) & exit 4" >out || rc=$? &&
	test $rc -eq 4 &&
	grep "write(1, \"hi\\\\n\", 3)" so.txt
'

test_expect_success 'unknown syscall names in -e are an error that names them' '
	! $SONDE trace -e trace=opne,read,%bogus true 2>err &&
	grep "'"'"'opne'"'"'" err && grep "%bogus" err
'

test_expect_success 'bad options: one error line, exit 129' '
	rc=0 && $SONDE trace -S bogus true 2>err || rc=$? &&
	test $rc -eq 129 && grep "bogus" err &&
	rc=0 && $SONDE trace 2>err || rc=$? &&
	test $rc -eq 129 && grep "nothing to trace" err
'

test_expect_success '-p attaches to a running process and ends when it is gone' '
	start_bg "$WORKLOADS/syscalls" 150000 &&
	$SONDE trace -p $pid -e trace=getppid -o so.txt &&
	wait $pid &&
	test $(grep -c "^getppid() " so.txt) -gt 0
'

# (a background job of a script ignores SIGINT, so the test sends SIGTERM: the same path)
test_expect_success 'SIGTERM detaches from -p and leaves the process running' '
	start_bg "$WORKLOADS/syscalls" 4000000 3	# ~3 s alone: still running when sonde is stopped
	$SONDE trace -p $pid -e trace=write -o so.txt &
	sonde=$!
	sleep 1.5
	kill_ready TERM $sonde
	rc=0 && wait $sonde || rc=$?
	echo "sonde exited $rc, $(wc -l <so.txt) lines"
	test $rc -eq 0 &&
	kill -0 $pid &&
	rc=0 && wait $pid || rc=$?
	echo "the workload exited $rc"
	test $rc -eq 3 &&
	grep -q "^write(3, \"x\", 1)  *= 1$" so.txt
'

# the records sent between the loop's last read and the detaching are read too:
# without that, a few went missing after 1 stop in 5 to 15 here, hence 8 stops
test_expect_success 'SIGTERM with -p: every record sent is printed' '
	start_bg "$WORKLOADS/cheap" 400000000 &&
	for i in 1 2 3 4 5 6 7 8; do
		rm -f so.txt
		$SONDE trace -v -p $pid -e trace=getppid,write -o so.txt 2>err &
		sonde=$!
		# lines in so.txt: the loop runs (a signal before it would just kill sonde)
		for _ in $(seq 500); do [ -s so.txt ] && break; sleep 0.01; done
		sleep 0.1
		kill -TERM $sonde
		wait $sonde || { cat err; break; }
		sent=$(sed -n "s/.*debug: \([0-9]*\) records,.*/\1/p" err)
		echo "stop $i: $sent records sent, $(wc -l <so.txt) lines"
		test "$sent" -gt 0 && test "$(wc -l <so.txt)" -eq "$sent" || break
	done
	kill $pid && { wait $pid || :; } &&
	test $i -eq 8 && test "$(wc -l <so.txt)" -eq "$sent"
'

test_expect_success '-p of a pid that does not exist is an error' '
	! $SONDE trace -p 999999999 2>err && grep "999999999" err
'

# a reader slower than the traced program (made 2 ms a record by a test hook)
# never keeps sonde from its end: it reads for 50 ms at a time between its
# other duties, and for at most 2 s after the detach; what is left is counted
# and said. It used to read until the ring buffer was empty, which a steady
# flood never lets happen: sonde ran on after its duration, deaf to signals.
test_expect_success 'a flood sonde cannot read in time: it still ends, and says what it left' '
	start_bg "$WORKLOADS/cheap" 4000000000 &&
	rc=0 && SONDE_TEST_LOOP_RECORD_US=2000 timeout -k 5 60 $SONDE trace -p $pid -e trace=getppid --duration 0.5 \
		-o so.txt 2>err || rc=$?
	kill $pid 2>/dev/null || :; wait $pid || :
	cat err && [ $rc -eq 0 ] && grep -q "warning: [0-9]* syscall records not read" err &&
	grep -q "^getppid() *= [0-9]" so.txt
'

test_expect_success 'every event is printed or counted as lost' '
	# a 1 MiB ring buffer against 400,000 calls as fast as they come: some are lost here
	$SONDE trace --buffer-size 1 -e trace=getppid,write -o so.txt "$WORKLOADS/cheap" 400000 >/dev/null 2>err &&
	printed=$(grep -c -E "^(getppid|write)\(" so.txt) &&
	lost=$(sed -n "s/.* \([0-9]*\) syscall records lost.*/\1/p" err) &&
	echo "printed $printed lost ${lost:-0}" &&
	test $((printed + ${lost:-0})) -eq 400001
'

# sonde stopped while the command runs to its end: the ring buffer overflows and
# the process exit record is dropped too; it is not a syscall, so not in that
# count, and the command's +++ line comes from its wait status
test_expect_success 'a lost exit record is not counted as a lost syscall, its line still comes' '
	$SONDE trace --buffer-size 1 -e trace=getppid,write -o so.txt "$WORKLOADS/cheap" 2000000 >/dev/null 2>err &
	sonde=$!
	child= &&
	for _ in $(seq 500); do
		child=$(pgrep -P $sonde -x cheap) && break
		sleep 0.01
	done
	test -n "$child" && kill -STOP $sonde &&
	for _ in $(seq 600); do
		[ "$(cut -d" " -f3 /proc/$child/stat)" = Z ] && break
		sleep 0.05
	done
	kill -CONT $sonde
	wait $sonde && test -n "$child" &&
	cat err &&
	printed=$(grep -c -E "^(getppid|write)\(" so.txt) &&
	lost=$(sed -n "s/.* \([0-9]*\) syscall records lost.*/\1/p" err) &&
	echo "printed $printed lost $lost" &&
	test $((printed + lost)) -eq 2000001 &&
	grep "1 exit or signal record lost" err &&
	test "$(tail -1 so.txt)" = "+++ exited with 0 +++"
'

test_expect_success '--min-duration keeps only slow calls (filtered in the kernel)' '
	$SONDE trace -T --min-duration 3 -o so.txt sleep 0.01 &&
	grep -E "nanosleep|clock_nanosleep" so.txt &&
	# every call kept took 3 ms or more (on a busy machine an openat may too: it is
	# kept then, rightly); sleep makes some 30 calls, most take microseconds
	awk "/ <[0-9.]+>\$/ { n++; d = substr(\$NF, 2) + 0; if (d < 0.003) bad++ } END { print n, bad + 0; exit !(n >= 1 && n < 10 && !bad) }" so.txt
'

test_expect_success '--histogram buckets add up to the calls' '
	$SONDE trace --histogram -e trace=getppid -o so.txt "$WORKLOADS/syscalls" 1000 &&
	grep "^getppid (ns), 1000 calls" so.txt &&
	test $(awk "/^\[/ { s += \$3 } END { print s }" so.txt) -eq 1000
'

test_expect_success 'sonde trace --help exits 0' '
	$SONDE trace --help >out && grep -e "--follow-forks" out
'

test_done
