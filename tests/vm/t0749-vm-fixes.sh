#!/bin/bash
# sonde probe with kprobes (the VM's kernel): a stack kept in a scratch variable, and the
# stacks stored in maps beside it, each print whole (tests/e2e/t0749 does it with a tracepoint)
. "$(dirname "$0")/../lib.sh"

if [ ! -e /sys/bus/event_source/devices/kprobe/type ]; then
	test_skip 'kprobe stacks' 'this kernel has no kprobe PMU'
	test_done
	exit
fi
test_expect_success 'kprobe: $s = kstack(2) beside @k[kstack] and @x = kstack: all three print their frames' '
	$SONDE probe -e "kprobe:__x64_sys_getppid /pid == cpid/ { \$s = kstack(2); @k[kstack] = count(); @x = kstack; @s = \$s; }" -c "$WORKLOADS/syscalls 3" >out 2>err &&
	grep -v "^Attach\|^\$" out | tr -s " \n" " ~" >got &&
	echo "@k[~ __x64_sys_getppid+1~ do_syscall_64+N~ entry_SYSCALL_64_after_hwframe+N~]: 3~@s: ~ __x64_sys_getppid+1~ do_syscall_64+N~@x: ~ __x64_sys_getppid+1~ do_syscall_64+N~ entry_SYSCALL_64_after_hwframe+N~" >want &&
	sed "s/+[0-9][0-9]*~/+N~/g; s/getppid+N/getppid+1/g" got >gotn && echo >>gotn && test_cmp want gotn
'
test_done
