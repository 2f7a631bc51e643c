#!/bin/bash
# Runs inside the test VM (tests/vm/README.md), whose kernel has kprobe events:
# `sonde probe --add` on kernel functions, arguments by name from BTF (members
# through pointers, strings), %return, +OFF, counted and shown by sonde stat and
# sonde ftrace for a workload whose calls are known; --list, --del.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing
trap '$SONDE probe -q -d "sonde_probes:*" 2>/dev/null; $SONDE probe -q -d "probe:*" 2>/dev/null; :' EXIT

test_expect_success '--add: vfs_write with count and the file name from BTF, exact for N writes' '
	before=$(cat $T/kprobe_events) &&
	$SONDE probe --add "vfs_write count file->f_path.dentry->d_name.name:string" >out &&
	cat out && grep -q "^  sonde_probes:vfs_write  *(on vfs_write with count name)$" out &&
	cat $T/kprobe_events &&
	grep -q "^p:sonde_probes/vfs_write vfs_write count=%dx:u64 name=+0(+[0-9]*(+[0-9]*(%di))):string$" $T/kprobe_events &&
	$SONDE ftrace -e sonde_probes:vfs_write -- $WORKLOADS/syscalls 50 >trace &&
	grep -m2 vfs_write trace &&
	[ $(grep -c ": vfs_write: (vfs_write+0x0/0x[0-9a-f]*) count=1 name=\"null\"$" trace) -eq 50 ] &&
	[ $(grep -c ": vfs_write: " trace) -eq 50 ] &&
	$SONDE stat -x, -e sonde_probes:vfs_write -- $WORKLOADS/syscalls 33 2>stat.out >/dev/null &&
	cat stat.out && [ "$(grep sonde_probes:vfs_write stat.out | cut -d, -f1)" -eq 33 ]
'

test_expect_success '%return $retval typed from BTF; FUNC+OFF; perf naming probe:NAME' '
	$SONDE probe -q --add "vfs_write%return \$retval" &&
	grep -q "^r[0-9]*:sonde_probes/vfs_write__return vfs_write retval=\$retval:s64$" $T/kprobe_events &&
	{ $SONDE probe -q --add "probe:openat_off=do_sys_openat2+1" 2>err; [ $? -eq 1 ]; } && cat err &&
	grep -q "the offset is not at an instruction.s start" err &&
	# past the 5-byte call to __fentry__ (after a 4-byte endbr64 where the kernel has IBT)
	{ $SONDE probe -q --add "probe:openat_off=do_sys_openat2+5" 2>/dev/null ||
	  $SONDE probe -q --add "probe:openat_off=do_sys_openat2+9"; } &&
	grep -q "^p:probe/openat_off do_sys_openat2+[59]$" $T/kprobe_events &&
	$SONDE ftrace -e sonde_probes:vfs_write__return -e probe:openat_off -- $WORKLOADS/syscalls 20 >trace &&
	[ $(grep -c ": vfs_write__return: .* retval=1$" trace) -eq 20 ] &&
	[ $(grep -c ": openat_off: " trace) -ge 20 ] &&
	$SONDE probe --list >list && cat list &&
	grep -q "^  sonde_probes:vfs_write__return (on vfs_write%return with retval)$" list &&
	grep -q "^  probe:openat_off  *(on do_sys_openat2+[59])$" list
'

test_expect_success '--del: every event gone, kprobe_events as it was' '
	$SONDE probe -d "sonde_probes:*" -d "probe:openat_off" >del && cat del &&
	grep -q "^Removed event: sonde_probes:vfs_write$" del &&
	grep -q "^Removed event: probe:openat_off$" del &&
	[ -z "$(grep "sonde_probes\|probe/openat_off" $T/kprobe_events)" ]
'

test_expect_success 'an argument the BTF lacks: the parameters it has, nothing added' '
	before=$(cat $T/kprobe_events) &&
	{ $SONDE probe --add "vfs_write size" 2>err; [ $? -eq 1 ]; } &&
	grep -q "vfs_write has no parameter .size. in its BTF (it has: file buf count pos)" err &&
	[ "$(cat $T/kprobe_events)" = "$before" ]
'

test_done
