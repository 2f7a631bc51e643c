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
# a syscall tracepoint runs as a raw tracepoint: its stack leaves out the BPF glue
# on this kernel too, where __bpf_trace_sys_enter is no frame, and starts at the
# tracepoint's caller (tests/e2e/t0701). A perf-event syscall tracepoint has no
# kernel stack to compare with here: 6.1 gives its programs the user's registers.
test_expect_success 'kstack of a syscall tracepoint and of rt:sys_enter: from the tracepoint'"'"'s caller, no BPF frames' '
	$SONDE probe -e "t:syscalls:sys_enter_getppid /pid == cpid/ { @[kstack(3)] = count(); }" -c "$WORKLOADS/syscalls 3" >raw.out &&
	$SONDE probe -e "rt:sys_enter /pid == cpid && arg1 == 110/ { @[kstack(3)] = count(); }" -c "$WORKLOADS/syscalls 3" >rt.out &&
	grep "^    " raw.out >raw.frames && grep "^    " rt.out >rt.frames &&
	head -1 raw.frames | grep -q "^    syscall_trace_enter[.a-z0-9]*+[0-9]*$" &&
	[ $(wc -l <raw.frames) -eq 3 ] && test_cmp raw.frames rt.frames && grep -q "^\\]: 3$" raw.out ||
	{ cat raw.out rt.out; false; }
'
# 6.1 has no bpf_map_sum_elem_count (6.6): len() walks the map instead, and syscount and
# biolatency, which ask it, run on Debian 12's own kernel
test_expect_success 'len() before 6.6: counted by walking the map; syscount and biolatency run' '
	$SONDE probe -e "BEGIN { @a[1] = 1; @a[2] = 2; @a[7] = 3; printf(\"%d %d\n\", len(@a), len(@b)); @b = 1; exit(); }" >out &&
	grep -qx "3 0" out &&
	$SONDE syscount -d 1 >sc && sed -n 3p sc | grep -qx "SYSCALL  *COUNT" &&
	$SONDE biolatency 1 1 >bl && head -1 bl | grep -q "^Tracing block device I/O"
'
test_done
