#!/bin/bash
# The scheduler tools on the VM's 6.1 kernel, where cfs_rq's count of queued tasks is
# still nr_running (nr_queued since 6.14): runqlen reads whichever the BTF has.
. "$(dirname "$0")/../lib.sh"

test_expect_success 'runqlen -C and -O on a kernel whose cfs_rq has nr_running' '
	"$WORKLOADS/spin" 4 2 >/dev/null & S=$! &&
	$SONDE runqlen -C 1 1 >out && $SONDE runqlen -O 1 1 >occ &&
	{ kill $S; wait $S; } 2>/dev/null || true
	head -1 out | grep -qx "Sampling run queue length... Hit Ctrl-C to end." &&
	grep -qx "cpu = 0" out && grep -qx "cpu = 1" out &&
	test $(grep -c "^     runqlen       : count     distribution$" out) -eq 2 &&
	sed -n 3p occ | grep -qE "^runqocc: [0-9]+\.[0-9]{2}%$"
'
test_expect_success 'runqlat and cpudist: a histogram of the 2 spinning threads' '
	# spinning for longer than both tools take to start and run in a TCG VM (seconds each); killed after
	"$WORKLOADS/spin" 30 3 >/dev/null & S=$! &&
	$SONDE runqlat -P 1 1 >out && $SONDE cpudist -P 1 1 >cd &&
	{ kill $S; wait $S; } 2>/dev/null || true
	grep -qx "pid = $S spin" out && grep -qx "pid = $S spin" cd
'
test_done
