#!/bin/bash
# sonde probe's kprobe/kretprobe attach path, on a kernel that has kprobes (the VM's)
. "$(dirname "$0")/../lib.sh"

if [ ! -e /sys/bus/event_source/devices/kprobe/type ]; then
	test_skip 'kprobe one-liners' 'this kernel has no kprobe PMU'
	test_done
	exit
fi
test_expect_success 'kprobe: count calls of a kernel function made by a workload' '
	$SONDE probe -e "kprobe:__x64_sys_getppid /pid == cpid/ { @calls = count(); }" -c "$WORKLOADS/syscalls 123" >out 2>err &&
	grep -q "^@calls: 123$" out
'
test_expect_success 'kretprobe: the return value (getppid of the -c child is sonde itself)' '
	$SONDE probe -e "kretprobe:__x64_sys_getppid /pid == cpid/ { @r[retval > 1, comm] = count(); }" -c "$WORKLOADS/syscalls 7" >out 2>err &&
	grep -q "^@r\[1, syscalls\]: 7$" out
'
test_expect_success 'kprobe with kstack and a filter on comm' '
	$SONDE probe -e "kprobe:__x64_sys_getppid /comm == \"syscalls\"/ { @[kstack(3)] = count(); }" -c "$WORKLOADS/syscalls 5" >out 2>err &&
	grep -q "^\]: 5$" out
'
test_done
