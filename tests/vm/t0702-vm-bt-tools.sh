#!/bin/bash
# Debian's bpftrace tools that need kprobes, run unchanged from their files on a kernel
# that has kprobes (the VM's), plus kprobe wildcards matched against available_filter_functions.
. "$(dirname "$0")/../lib.sh"

BT=$(cd "$(dirname "$0")/../.." && pwd)/bt
if [ ! -e /sys/bus/event_source/devices/kprobe/type ]; then
	test_skip 'bpftrace tools with kprobes' 'this kernel has no kprobe PMU'
	test_done
	exit
fi
test_expect_success 'kprobe wildcard: every vfs_write* function, counted for the workload' '
	$SONDE probe -e "kprobe:vfs_writ* /pid == cpid/ { @[func] = count(); }" -c "$WORKLOADS/syscalls 17" >out 2>err &&
	grep -qx "@\[vfs_write\]: 17" out &&
	grep -q "^Attaching [0-9]* probes" out
'
if [ ! -e "$BT/vfscount.bt" ]; then
	test_skip 'bpftrace tools with kprobes' 'bpftrace is not installed on the host (scripts/deps.sh test)'
	test_done
	exit
fi
run_tool() {	# run_tool TOOL: run it while the workload runs, stop it with SIGINT
	$SONDE probe "$BT/$1.bt" >out 2>err &
	pid=$!
	# attached before the workload runs, however slow the VM is: BEGIN runs before the
	# other probes attach (as in bpftrace), so wait for sonde's open files to stop growing
	last=-1 same=0
	for i in $(seq 150); do
		n=$(ls /proc/$pid/fd 2>/dev/null | wc -l)
		if [ "$n" = "$last" ] && grep -q "^Attaching" out; then same=$((same + 1)); else same=0; fi
		[ $same -ge 4 ] && break
		last=$n
		sleep 0.25
	done
	$WORKLOADS/syscalls 300 && sleep 1.5 && kill -INT $pid && wait $pid
}
test_expect_success 'vfscount.bt: kprobe:vfs_* counts the workload'"'"'s writes' '
	run_tool vfscount &&
	grep -q "^Tracing VFS calls" out &&
	n=$(sed -n "s/^@\[vfs_write\]: //p" out) && [ "$n" -ge 300 ]
'
test_expect_success 'vfsstat.bt: per-second lines of the vfs_read*/vfs_write* counts' '
	run_tool vfsstat &&
	grep -q "^@\[vfs_write\]: [0-9]" out
'
test_expect_success 'capable.bt: kprobe:cap_capable with its @cap table' '
	run_tool capable &&
	grep -q "^TIME *UID *PID *COMM *CAP *NAME *AUDIT" out
'
test_done
