#!/bin/bash
# The tools Debian ships with bpftrace that need no kprobes and no kernel headers
# run unchanged from their installed files under sonde probe.
. "$(dirname "$0")/../lib.sh"

TOOLS="bashreadline bitesize cpuwalk execsnoop gethostlatency killsnoop opensnoop pidpersec setuids
ssllatency sslsnoop statsnoop syncsnoop syscount threadsnoop writeback"
require_root 'bpftrace tools'
if [ ! -e /usr/sbin/opensnoop.bt ]; then
	test_skip 'bpftrace tools' 'bpftrace is not installed (scripts/deps.sh test)'
	test_done
	exit
fi
for t in $TOOLS; do
	test_expect_success "$t.bt compiles" '
		$SONDE probe --dry-run /usr/sbin/'"$t"'.bt 2>err &&
		! grep -v "warning:" err
	'
done

test_expect_success 'opensnoop.bt sees the workload open /etc/hostname' '
	$SONDE probe /usr/sbin/opensnoop.bt >out 2>err &
	pid=$! && sleep 1 && $WORKLOADS/syscalls 3 && sleep 0.3 && kill_ready INT $pid && wait $pid &&
	grep -q "^PID *COMM *FD ERR PATH" out &&
	[ $(grep -c " syscalls .* /etc/hostname$" out) -ge 3 ]
'

test_expect_success 'syscount.bt ends on Ctrl-C with its top-10 maps (clear() while probes still fire)' '
	$SONDE probe /usr/sbin/syscount.bt >out 2>err &
	pid=$! && sleep 1 && $WORKLOADS/syscalls 100 && kill -INT $pid &&
	for i in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done &&
	! kill -0 $pid 2>/dev/null && wait $pid &&
	grep -q "^Top 10 syscalls IDs:" out && grep -q "^@syscall\[[0-9]*\]: [0-9]" out
'

test_expect_success 'threadsnoop.bt: pthread_create found in libc (glibc 2.34+)' '
	$SONDE probe /usr/sbin/threadsnoop.bt >out 2>err &
	pid=$! && sleep 1 && $WORKLOADS/spin 0.2 2 >/dev/null 2>&1; sleep 0.2; kill -INT $pid; wait $pid;
	grep -q "since glibc 2.34" err && grep -q "^TIME" out && grep -q " spin " out
'
test_done
