#!/bin/bash
# sonde probe's watchpoint/asyncwatchpoint (w:/aw:): hardware breakpoints on
# tests/workloads/watch.c, which writes (or reads) a known address a known
# number of times: the counts are exact and compared with bpftrace 0.17 where
# it runs; the FUNC+argN form, unwatch(), and the errors.
. "$(dirname "$0")/../lib.sh"

W=$WORKLOADS/watch
require_root 'watchpoints'

# hardware breakpoints fire only where the hypervisor passes the debug registers
# through: some VMs accept the perf event and never fire it (perf stat counts 0)
hw_fired=$(perf stat -x, -e mem:0x10000000:w -- $W fixed 10 2>&1 >/dev/null | grep "mem:" | cut -d, -f1)
if [ "${hw_fired:-0}" -gt 0 ] 2>/dev/null; then
test_expect_success 'watchpoint:ADDR:8:w counts every write of the -c process' '
	$SONDE probe -e "watchpoint:0x10000000:8:w { @[probe] = count(); }" -c "$W fixed 1000" >out &&
	grep -q "^@\[watchpoint:0x10000000:8:w\]: 1000$" out
'

test_expect_success 'w:ADDR:8:rw counts reads; nothing fires on a write-only watch of a read' '
	$SONDE probe -e "w:0x10000000:8:rw { @ = count(); }" -c "$W read 300" >out &&
	grep -q "^@: 300$" out &&
	$SONDE probe -e "w:0x10000000:8:w { @ = count(); } END { printf(\"end\\n\"); }" -c "$W read 300" >out &&
	grep -q "^end$" out && ! grep -q "^@:" out
'

test_expect_success 'watchpoint:FUNC+argN (synchronous): every write after each call, none missed' '
	$SONDE probe -e "watchpoint:bump+arg1:8:w { @ = count(); }" -c "$W func 2000" >out &&
	grep -q "^@: 2000$" out &&
	$SONDE probe -e "watchpoint:$W:bump+arg1:8:w { @ = count(); }" -c "$W func 50" >out &&
	grep -q "^@: 50$" out
'

test_expect_success 'asyncwatchpoint:FUNC+argN: at most every write, the process never stopped' '
	$SONDE probe -e "aw:bump+arg1:8:w { @ = count(); }" -c "$W func 2000" >out &&
	n=$(sed -n "s/^@: //p" out) && test "$n" -ge 1 && test "$n" -le 2000
'

test_expect_success 'unwatch(addr) stops the counting (asynchronously: a write or two later)' '
	$SONDE probe -e "w:0x10000000:8:w { @n++; if (@n == 5) { unwatch(0x10000000); } }" -c "$W fixed 100000" >out &&
	n=$(sed -n "s/^@n: //p" out) && test "$n" -ge 5 && test "$n" -lt 100000
'

if have_bpftrace; then
	test_expect_success 'the same counts as bpftrace 0.17' '
		bpftrace -e "watchpoint:0x10000000:8:w { @ = count(); }" -c "$W fixed 777" >bt 2>/dev/null &&
		$SONDE probe -e "watchpoint:0x10000000:8:w { @ = count(); }" -c "$W fixed 777" >so &&
		grep "^@:" bt >expect && grep "^@:" so >got && test_cmp expect got &&
		bpftrace -e "watchpoint:bump+arg1:8:w { @ = count(); }" -c "$W func 333" >bt 2>/dev/null &&
		$SONDE probe -e "watchpoint:bump+arg1:8:w { @ = count(); }" -c "$W func 333" >so &&
		grep "^@:" bt >expect && grep "^@:" so >got && test_cmp expect got
	'
else
	test_skip 'the same counts as bpftrace 0.17' 'bpftrace is not installed'
fi
else
	test_skip 'watchpoint:ADDR:8:w counts every write of the -c process' "hardware breakpoints do not fire on this machine (perf stat -e mem:ADDR:w counted ${hw_fired:-nothing} of 10 writes)"
	test_skip 'w:ADDR:8:rw counts reads; nothing fires on a write-only watch of a read' "hardware breakpoints do not fire on this machine (perf stat -e mem:ADDR:w counted ${hw_fired:-nothing} of 10 writes)"
	test_skip 'watchpoint:FUNC+argN (synchronous): every write after each call, none missed' "hardware breakpoints do not fire on this machine (perf stat -e mem:ADDR:w counted ${hw_fired:-nothing} of 10 writes)"
	test_skip 'asyncwatchpoint:FUNC+argN: at most every write, the process never stopped' "hardware breakpoints do not fire on this machine (perf stat -e mem:ADDR:w counted ${hw_fired:-nothing} of 10 writes)"
	test_skip 'unwatch(addr) stops the counting (asynchronously: a write or two later)' "hardware breakpoints do not fire on this machine (perf stat -e mem:ADDR:w counted ${hw_fired:-nothing} of 10 writes)"
	test_skip 'the same counts as bpftrace 0.17' "hardware breakpoints do not fire on this machine (perf stat -e mem:ADDR:w counted ${hw_fired:-nothing} of 10 writes)"
fi

test_expect_success 'errors: length, mode, FUNC+argN without a process, alignment, reads alone' '
	! $SONDE probe -e "w:0x10000000:3:w { }" 2>err &&
	grep -q "length is 1, 2, 4 or 8 bytes" err && grep -q "\^" err &&
	! $SONDE probe -e "w:0x10000000:8:wx { }" 2>err &&
	grep -q "mode is r, w, rw or x" err &&
	! $SONDE probe -e "w:0x10000000:8 { }" 2>err &&
	grep -q "written watchpoint:ADDRESS:LENGTH:MODE" err &&
	! $SONDE probe -e "w:bump+arg1:8:w { }" 2>err &&
	grep -q "needs -p PID or -c CMD" err &&
	! $SONDE probe -e "w:bump+arg9:8:w { }" -c "$W func 1" 2>err &&
	grep -q "arg9.* not an argument in a register" err &&
	! $SONDE probe -e "w:nosuchfunc+arg1:8:w { }" -c "$W func 1" 2>err &&
	grep -q "cannot find function .nosuchfunc." err &&
	! $SONDE probe -e "w:0x10000001:8:w { }" -c "$W fixed 1" 2>err &&
	grep -q "aligned to the length" err &&
	! $SONDE probe -e "w:0x10000000:8:r { }" -c "$W fixed 1" 2>err &&
	grep -q "cannot watch reads alone" err &&
	! $SONDE probe -e "BEGIN { unwatch(\"x\") }" 2>err &&
	grep -q "unwatch() takes an address" err
'

# the address-of operator (addr.c; its programs are in tests/lang/addr_hand.test): warned about by default
test_expect_success "'&' warns as an unstable feature unless unstable_addr=enable" '
	$SONDE probe -e "BEGIN { \$x = 1; printf(\"%d\\n\", *&\$x); exit(); }" >out 2>err &&
	grep -q "^1$" out &&
	grep -q "warning: Script is using an unstable feature: address-of operator (&)" err &&
	$SONDE probe -e "config = { unstable_addr=enable } BEGIN { \$x = 1; printf(\"%d\\n\", *&\$x); exit(); }" >out 2>err &&
	grep -q "^1$" out && ! grep -q warning err
'

test_done
