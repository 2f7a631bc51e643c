#!/bin/bash
# Runs inside the test VM (tests/vm/README.md): the paths of sonde's commands that
# this machine's kernel refuses: `sonde ftrace -f` (function tracer) and `sonde probe`
# kprobe:/kretprobe: (BPF on kprobes), checked against counts sonde stat gives from
# the syscall tracepoints.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing

# what sonde must leave as it found it
state() {
	(cd $T && for f in current_tracer tracing_on set_ftrace_filter set_ftrace_notrace set_event \
		kprobe_events; do echo "== $f"; cat $f 2>&1; done; echo "== instances"; ls instances)
}
# openat() calls of `syscalls N`, loader included, as the tracepoint counts them
openats() {
	$SONDE stat -x, -e syscalls:sys_enter_openat -- $WORKLOADS/syscalls $1 2>&1 >/dev/null |
		cut -d, -f1
}

test_expect_success 'sonde ftrace -f traces a kernel function for a command, and cleans up' '
	state >before &&
	$SONDE ftrace -f do_sys_openat2 -- $WORKLOADS/syscalls 20 >out &&
	state >after && test_cmp before after &&
	head -3 out &&
	n=$(grep -c "do_sys_openat2" out) && want=$(openats 20) &&
	echo "ftrace: $n lines, openat: $want" &&
	[ "$want" -ge 20 ] && [ "$n" -eq "$want" ]
'

test_expect_success 'sonde ftrace --list-functions lists the traceable functions' '
	$SONDE ftrace --list-functions "vfs_*" >fn &&
	grep -qx "vfs_read" fn && ! grep -v "^vfs_" fn &&
	[ $(wc -l <fn) -eq $(grep -c "^vfs_" $T/available_filter_functions) ]
'

test_expect_success 'sonde probe kprobe: counts every open of a command' '
	state >before &&
	$SONDE probe -e "kprobe:do_sys_openat2 /pid == cpid/ { @ = count(); }" \
		-c "$WORKLOADS/syscalls 200" >out &&
	state >after && test_cmp before after &&
	cat out &&
	n=$(sed -n "s/^@: //p" out) && want=$(openats 200) &&
	[ "$want" -ge 200 ] && [ "$n" -eq "$want" ]
'

test_expect_success 'sonde probe kretprobe: sees the return values' '
	$SONDE probe -e "kretprobe:do_sys_openat2 /pid == cpid/ { @ok[retval >= 0] = count(); }" \
		-c "$WORKLOADS/syscalls 50" >out &&
	cat out &&
	n=$(sed -n "s/^@ok\[1\]: //p" out) && [ "$n" -ge 50 ] &&
	test -z "$(bpftool link show)"
'

test_done
