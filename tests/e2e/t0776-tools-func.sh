#!/bin/bash
# t0776: the generic tools on user functions (uprobes): funclatency times each call
# of a function whose duration is known (the offcpu workload's block_here sleeps
# a known time N times); BCC's patterns (LIB:FUNC, /path:FUNC) name it.
. "$(dirname "$0")/../lib.sh"

# a copy of this run's own: a uprobe on a file fires in every process that runs it,
# and other tests run the offcpu workload beside this one
W=$TMP/offcpu$$
cp "$WORKLOADS/offcpu" "$W"
test_expect_success 'funclatency: a pattern that is not a function is a usage error (129)' '
	rc=0 && $SONDE funclatency t:sched:sched_switch 2>err || rc=$?
	test $rc -eq 129 && grep -q "is not a function" err &&
	rc=0 && $SONDE funclatency 2>err || rc=$?
	test $rc -eq 129 && grep -q "argument .pattern. is required" err
'
require_root 'funclatency attaches uprobes'

test_expect_success 'funclatency -m /path:block_here: exactly the 6 calls, none under 32 ms (each sleeps 40 ms)' '
	tool_start out $SONDE funclatency -m "$W:block_here" &&
	$W 6 40 1 0 2>/dev/null && tool_stop &&
	head -1 out | grep -qx "Tracing $W:block_here.  Hit Ctrl-C to exit" &&
	grep -q "^     msec                : count    distribution$" out &&
	awk -F"[:|]" "/ -> / { n += \$2; if (\$1 ~ /^ *(0|2|4|8|16) ->/ && \$2 + 0) bad = 1 } END { exit !(n == 6 && !bad) }" out &&
	tail -1 out | grep -qx "Exiting trace of $W:block_here"
'
test_expect_success 'funclatency -u -p PID: only that process (the workload is another: nothing counted)' '
	tool_start out $SONDE funclatency -u -p $$ "$W:block_here" &&
	$W 3 5 1 0 2>/dev/null && tool_stop &&
	! grep -q " -> " out && tail -1 out | grep -q "^Exiting trace of"
'
test_expect_success 'funclatency -i 1 -T: a timestamped histogram per interval, counts reset' '
	tool_start out $SONDE funclatency -i 1 -T -m "$W:block_here" &&
	$W 3 40 1 0 2>/dev/null &&
	# two intervals printed: a wait, not a sleep (a loaded machine delays the ticks)
	SECONDS=0 && until [ $(grep -c "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$" out) -ge 2 ] || [ $SECONDS -gt 30 ]; do
		sleep 0.2
	done && tool_stop &&
	{ test $(grep -c "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$" out) -ge 2 &&
	  awk -F"[:|]" "/ -> / { n += \$2 } END { exit !(n == 3) }" out || { cat out; exit 1; }; }
'
test_done
