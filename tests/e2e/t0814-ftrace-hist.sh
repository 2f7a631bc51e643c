#!/bin/bash
# sonde ftrace --hist: the kernel's hist trigger syntax counted by sonde's BPF
# twin (this kernel has no hist triggers; the VM compares the twin with the
# kernel's own in tests/vm/t0814-vm-ftrace-hist.sh), printed as the kernel's
# hist file; its errors; --latency's refusal where the kernel lacks the tracer.
. "$(dirname "$0")/../lib.sh"

T=/sys/kernel/tracing
if [ ! -d $T/events/syscalls/sys_enter_write ]; then
	test_skip 'sonde ftrace --hist' "no syscalls:sys_enter_write at $T"
	test_done
	exit 0
fi
expect_rc() { local want=$1 rc=0; shift; "$@" || rc=$?; [ $rc -eq $want ] || { echo "exit $rc, expected $want: $*"; return 1; }; }
state() {
	(cd $T && for f in current_tracer tracing_on tracing_thresh tracing_max_latency set_event; do
		echo "== $f"; cat $f 2>&1; done; echo "== instances"; ls instances)
}
# the pids of a hist's keys vary: masked
nopid() { sed -E "s/\[ *[0-9]+\]/[PID]/"; }
has_hist() { [ -e $T/events/sched/sched_switch/hist ]; }
BPF=; has_hist && BPF=--hist-bpf	# the twin, also where the kernel has its own

test_expect_success 'keys=common_pid.execname,count:vals=count: two runs of a known workload, exact' '
	$SONDE ftrace --hist "keys=common_pid.execname,count:vals=count" $BPF -e syscalls:sys_enter_write -- \
		sh -c "$WORKLOADS/syscalls 300; $WORKLOADS/syscalls 7" >out &&
	nopid <out >got &&
	cat >want <<-\EOF &&
	# event histogram
	#
	# trigger info: hist:keys=common_pid.execname,count:vals=hitcount,count:sort=hitcount:size=2048 [active]
	#

	{ common_pid: syscalls        [PID], count:          1 } hitcount:          7  count:          7
	{ common_pid: syscalls        [PID], count:          1 } hitcount:        300  count:        300

	Totals:
	    Hits: 307
	    Entries: 2
	    Dropped: 0
	EOF
	test_cmp want got
'

test_expect_success '.execname: the comm of the entry'"'"'s first event, as the kernel keeps it' '
	$SONDE ftrace --hist "keys=common_pid.execname,count" $BPF -e syscalls:sys_enter_write -- \
		sh -c "echo hi >/dev/null; exec $WORKLOADS/syscalls 3" >out &&
	grep "^{ common_pid: sh  *\[ *[0-9]*\], count:          3 } hitcount:          1$" out &&
	grep "^{ common_pid: syscalls  *\[ *[0-9]*\], count:          1 } hitcount:          3$" out
'

test_expect_success '.log2 buckets merged, sort=.descending, an if filter' '
	$SONDE ftrace --hist "keys=count.log2:vals=count:sort=count.descending:size=100 if fd == 1" $BPF \
		-e syscalls:sys_enter_write -- sh -c "dd if=/dev/zero of=/dev/null bs=100 count=5; \
		dd if=/dev/zero of=/dev/null bs=1000 count=3; dd if=/dev/zero of=/dev/null bs=1024 count=2" >out 2>/dev/null &&
	cat >want <<-\EOF &&
	# event histogram
	#
	# trigger info: hist:keys=count.log2:vals=hitcount,count:sort=count.descending:size=128 if fd == 1 [active]
	#

	{ count: ~ 2^10 } hitcount:          5  count:       5048
	{ count: ~ 2^7  } hitcount:          5  count:        500

	Totals:
	    Hits: 10
	    Entries: 2
	    Dropped: 0
	EOF
	test_cmp want out
'

test_expect_success 'size=128: the events of keys past a full map are Dropped, as the kernel counts them' '
	$SONDE ftrace --hist "keys=count:size=128 if fd == 1" $BPF -e syscalls:sys_enter_write -- \
		sh -c "for i in \$(seq 1 200); do head -c \$i /dev/zero >/dev/null; done" >out &&
	grep -A3 "^Totals:" out >totals &&
	printf "Totals:\n    Hits: 128\n    Entries: 128\n    Dropped: 73\n" >want && test_cmp want totals &&
	grep -q "^{ count:        692 } hitcount:          1$" out && ! grep -q "^{ count:        128 }" out
'

test_expect_success 'a string key (a __data_loc char[]), .hex values, -o FILE' '
	$SONDE ftrace --hist "hist:keys=filename:vals=common_pid.hex" $BPF -e sched:sched_process_exec -o h.txt -- \
		sh -c "/bin/true; /bin/true" >out &&
	test_cmp /dev/null out &&
	grep "^{ filename: /bin/true  *} hitcount:          2  common_pid: *[0-9a-f]*$" h.txt &&
	[ "$(grep "^{ filename: /bin/true " h.txt | sed "s/}.*//" | wc -c)" -eq 64 ] &&
	grep -q "^    Entries: 2$" h.txt
'

test_expect_success '.syscall and .sym keys name their numbers' '
	$SONDE ftrace --hist "keys=id.syscall:vals=hitcount if id == 110" $BPF -e raw_syscalls:sys_enter -- \
		$WORKLOADS/syscalls 50 >out &&
	grep "^{ id: sys_getppid  *\[110\] } hitcount:         50$" out &&
	$SONDE ftrace --hist "keys=call_site.sym" $BPF -e kmem:kmalloc --duration 0.5 >out &&
	grep -q "^{ call_site: \[ffffffff[0-9a-f]*\] [a-z_]" out
'

test_expect_success '-p PID: that process and the children it starts, till it ends' '
	{ sh -c "sleep 1; $WORKLOADS/syscalls 50; sleep 0.3" & } && p=$! &&
	$SONDE ftrace --hist "keys=common_pid.execname" $BPF -e syscalls:sys_enter_getppid -p $p >out &&
	{ grep "^{ common_pid: syscalls  *\[ *[0-9]*\] } hitcount:         50$" out && grep -q "^    Hits: 50$" out ||
	  { cat out; exit 1; }; }
'

test_expect_success 'SIGINT and SIGTERM: the histogram so far, exit 0' '
	for sig in INT TERM; do
		{ $SONDE ftrace --hist "keys=common_pid" $BPF -e raw_syscalls:sys_enter >out.$sig & } && pid=$! &&
		sleep 3 && kill -$sig $pid && wait $pid &&
		grep -q "^# event histogram$" out.$sig && grep -q "^    Hits: [1-9]" out.$sig || return 1
	done
'

test_expect_success 'errors: one line each, exit 1' '
	expect_rc 1 $SONDE ftrace --hist "vals=count" -e syscalls:sys_enter_write --duration 1 2>err &&
	[ $(wc -l <err) -eq 1 ] && grep -q "no keys=" err &&
	expect_rc 1 $SONDE ftrace --hist "keys=count:size=64" -e syscalls:sys_enter_write --duration 1 2>err &&
	grep -q "size=64: 65 to 131072 entries" err &&
	expect_rc 1 $SONDE ftrace --hist "keys=count.bogus" -e syscalls:sys_enter_write --duration 1 2>err &&
	grep -q "unknown modifier .\.bogus." err &&
	expect_rc 1 $SONDE ftrace --hist "keys=nosuch" $BPF -e syscalls:sys_enter_write --duration 1 2>err &&
	[ $(wc -l <err) -eq 1 ] &&
	expect_rc 1 $SONDE ftrace --hist "keys=count" -e nosuch:event --duration 1 2>err &&
	grep -q "no tracepoint .nosuch:event." err &&
	expect_rc 129 $SONDE ftrace --hist "keys=count" -e syscalls:sys_enter_write -e syscalls:sys_enter_read 2>err &&
	if ! has_hist; then
		expect_rc 1 $SONDE ftrace --hist "keys=common_pid if comm ~ \"s*\"" -e syscalls:sys_enter_write 2>err &&
		grep -q "no .~. (glob) filters" err
	fi
'

test_expect_success '--latency where the kernel lacks the tracer: one line, exit 1, nothing changed' '
	state >before &&
	for t in wakeup wakeup_rt wakeup_dl irqsoff preemptoff preemptirqsoff; do
		if grep -qw $t $T/available_tracers; then continue; fi
		expect_rc 1 $SONDE ftrace --latency $t --duration 1 >out 2>err && test_cmp /dev/null out &&
		[ $(wc -l <err) -eq 1 ] && grep -q "this kernel has no $t tracer (CONFIG_" err || return 1
	done &&
	state >after && test_cmp before after &&
	expect_rc 1 $SONDE ftrace --latency function --duration 1 2>err && grep -q "not a latency tracer" err
'

test_expect_success 'list --features: hist triggers and each latency tracer' '
	$SONDE list --features >out &&
	grep -q "^  hist triggers (ftrace --hist) *\(yes\|no: \)" out &&
	for t in wakeup wakeup_rt wakeup_dl irqsoff preemptoff preemptirqsoff; do
		grep -q "^  $t tracer (ftrace --latency) *\(yes\|no: \)" out || return 1
	done &&
	if ! has_hist; then grep -q "^  hist triggers (ftrace --hist) *no: " out; fi
'

test_done
