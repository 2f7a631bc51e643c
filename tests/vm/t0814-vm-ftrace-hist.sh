#!/bin/bash
# Runs inside the test VM (tests/vm/README.md), whose kernel has hist triggers:
# sonde ftrace --hist through the kernel's trigger against sonde's BPF twin
# (--hist-bpf) on the same deterministic workloads, the trigger gone on every
# way out, the kernel's refusal of a bad spec; --latency where the kernel lacks
# the tracers; trace-cmd's own record read by sonde ftrace report.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing

expect_rc() { local want=$1 rc=0; shift; "$@" || rc=$?; [ $rc -eq $want ] || { echo "exit $rc, expected $want: $*"; return 1; }; }
state() {
	(cd $T && for f in current_tracer tracing_on tracing_thresh tracing_max_latency set_event \
		events/syscalls/sys_enter_write/trigger events/sched/sched_process_exec/trigger; do
		echo "== $f"; cat $f 2>&1; done; echo "== instances"; ls instances)
}
# the pids of a hist's keys are each run's own: masked; entries of equal sort keys
# come in the kernel's map order: the entry lines sorted
norm() { sed -E "s/\[ *[0-9]+\]/[PID]/" "$1" | awk '/^\{/ { print | "sort" ; next } { print }'; }
both() {	# both SPEC EVENT CMD...: the kernel's hist and the twin's, normalised, into k and b
	local spec=$1 ev=$2
	shift 2
	$SONDE ftrace --hist "$spec" -e "$ev" -- "$@" >k.raw 2>k.err &&
	$SONDE ftrace --hist "$spec" --hist-bpf -e "$ev" -- "$@" >b.raw 2>b.err &&
	norm k.raw >k && norm b.raw >b && cat k && test_cmp k b
}

test_expect_success 'list --features: hist triggers yes' '
	$SONDE list --features >out && grep "hist triggers (ftrace --hist) *yes$" out
'

test_expect_success 'keys=common_pid.execname,count:vals=count: the kernel'"'"'s hist and the twin'"'"'s alike' '
	state >before &&
	both "keys=common_pid.execname,count:vals=count" syscalls:sys_enter_write \
		sh -c "$WORKLOADS/syscalls 300; $WORKLOADS/syscalls 7" &&
	grep -q "^{ common_pid: syscalls        \[PID\], count:          1 } hitcount:        300  count:        300$" k &&
	grep -q "^    Hits: 307$" k &&
	state >after && test_cmp before after
'

test_expect_success '.execname: the comm of the first event, before an exec' '
	both "keys=common_pid.execname,count" syscalls:sys_enter_write sh -c "echo hi >/dev/null; exec $WORKLOADS/syscalls 3" &&
	grep -q "^{ common_pid: sh  *\[PID\], count:          3 } hitcount:          1$" k &&
	grep -q "^{ common_pid: syscalls  *\[PID\], count:          1 } hitcount:          3$" k
'

test_expect_success '.log2, sort=.descending, size=, an if filter: alike' '
	both "keys=count.log2:vals=count:sort=count.descending:size=100 if fd == 1" syscalls:sys_enter_write \
		sh -c "dd if=/dev/zero of=/dev/null bs=100 count=5 2>/dev/null; dd if=/dev/zero of=/dev/null bs=1000 count=3 2>/dev/null; dd if=/dev/zero of=/dev/null bs=1024 count=2 2>/dev/null" &&
	grep -q "^{ count: ~ 2^10 } hitcount:          5  count:       5048$" k
'

test_expect_success '.syscall and .hex, a negative key, a string key: alike' '
	both "keys=id.syscall:vals=hitcount,id.hex if id == 110" raw_syscalls:sys_enter $WORKLOADS/syscalls 50 &&
	grep -q "^{ id: sys_getppid  *\[PID\] } hitcount:         50  id:       157c$" k &&
	both "keys=ret" syscalls:sys_exit_openat sh -c "cat /nonexistent 2>/dev/null; true" &&
	grep -q "^{ ret: 18446744073709551614 } hitcount:          1$" k &&
	both "keys=filename" sched:sched_process_exec sh -c "/bin/true; /bin/true" &&
	grep -q "^{ filename: /bin/true  *} hitcount:          2$" k
'

test_expect_success '.sym, .sym-offset: the same text for the call sites both saw' '
	for m in sym sym-offset; do
		$SONDE ftrace --hist "keys=call_site.$m" -e kmem:kmalloc -- $WORKLOADS/syscalls 20 >k.raw &&
		$SONDE ftrace --hist "keys=call_site.$m" --hist-bpf -e kmem:kmalloc -- $WORKLOADS/syscalls 20 >b.raw &&
		grep "^{ call_site" k.raw | sed "s/ hitcount:.*//" | sort >k.keys &&
		grep "^{ call_site" b.raw | sed "s/ hitcount:.*//" | sort >b.keys &&
		{ grep -Fxf b.keys k.keys >same || true; } && head -3 same &&
		[ $(wc -l <same) -ge 1 ] &&
		# an address in both is named alike in both
		sed "s/\].*//" k.keys | sort -u >k.addr && sed "s/\].*//" b.keys | sort -u >b.addr &&
		[ $(grep -Fxf b.addr k.addr | wc -l) -eq $(wc -l <same) ] || return 1
	done
'

test_expect_success 'size=: a full map drops the events of new keys, alike' '
	both "keys=count:size=128 if fd == 1" syscalls:sys_enter_write \
		sh -c "for i in \$(seq 1 200); do head -c \$i /dev/zero >/dev/null; done" &&
	grep -A3 "^Totals:" k.raw >k.totals && cat k.totals &&
	printf "Totals:\n    Hits: 128\n    Entries: 128\n    Dropped: 73\n" >want && test_cmp want k.totals
'

test_expect_success '-p PID: that process and its children, the kernel'"'"'s and the twin'"'"'s' '
	for how in "" --hist-bpf; do
		{ sh -c "sleep 2; $WORKLOADS/syscalls 50; sleep 0.3" & } && p=$! &&
		$SONDE ftrace --hist "keys=common_pid.execname" $how -e syscalls:sys_enter_getppid -p $p >out &&
		grep "^{ common_pid: syscalls  *\[ *[0-9]*\] } hitcount:         50$" out &&
		grep -q "^    Hits: 50$" out || return 1
	done
'

test_expect_success 'SIGINT, SIGTERM: the histogram, and no trigger or instance left' '
	state >before &&
	for sig in INT TERM; do
		{ $SONDE ftrace --hist "keys=common_pid" -e raw_syscalls:sys_enter >out.$sig & } && pid=$! &&
		up=0 && for i in $(seq 200); do [ -d $T/instances/sonde-$pid ] && up=1 && break; sleep 0.05; done &&
		sleep 1 && kill -$sig $pid && wait $pid && [ $up = 1 ] &&
		grep -q "^# event histogram$" out.$sig && grep -q "^    Hits: [1-9]" out.$sig &&
		grep -q "^# trigger info: hist:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 \[active\]$" out.$sig ||
		return 1
	done &&
	state >after && test_cmp before after
'

test_expect_success 'SIGKILL: the next run removes the instance with its trigger, and says so' '
	{ $SONDE ftrace --hist "keys=common_pid" -e raw_syscalls:sys_enter >/dev/null & } && pid=$! &&
	for i in $(seq 200); do [ -d $T/instances/sonde-$pid ] && break; sleep 0.05; done &&
	sleep 0.5 && grep -q "^hist:keys=common_pid" $T/instances/sonde-$pid/events/raw_syscalls/sys_enter/trigger &&
	kill -KILL $pid && { wait $pid 2>/dev/null || true; } && [ -d $T/instances/sonde-$pid ] &&
	$SONDE ftrace --hist "keys=common_pid" -e raw_syscalls:sys_enter --duration 0.5 >/dev/null 2>err &&
	cat err && grep -q "sonde pid $pid" err && [ ! -d $T/instances/sonde-$pid ]
'

test_expect_success 'a spec the kernel refuses: one line with its reason, exit 1, nothing left' '
	state >before &&
	expect_rc 1 $SONDE ftrace --hist "keys=nosuchfield" -e syscalls:sys_enter_write --duration 1 2>err &&
	cat err && [ $(wc -l <err) -eq 1 ] && grep -q "the kernel refuses the hist trigger .hist:keys=nosuchfield. on syscalls:sys_enter_write: Invalid argument: hist:syscalls:sys_enter_write: " err &&
	state >after && test_cmp before after &&
	# the trigger in place, then the command cannot run: removed all the same
	expect_rc 127 $SONDE ftrace --hist "keys=common_pid" -e syscalls:sys_enter_write -- /nonexistent 2>err &&
	cat err && state >after && test_cmp before after
'

test_expect_success '--latency: the tracer, or one line naming what is missing' '
	state >before &&
	for t in wakeup wakeup_rt irqsoff preemptoff; do
		if grep -qw $t $T/available_tracers; then
			$SONDE ftrace --latency $t --duration 1 >out && grep -q "^# tracer: $t" out || return 1
		else
			expect_rc 1 $SONDE ftrace --latency $t --duration 1 2>err && cat err &&
			grep -q "this kernel has no $t tracer (CONFIG_" err || return 1
		fi
	done &&
	state >after && test_cmp before after
'

if command -v trace-cmd >/dev/null; then
test_expect_success 'trace-cmd record'"'"'s own file: sonde ftrace report prints what trace-cmd report does' '
	trace-cmd record -q -o tc.dat -e sched:sched_process_exec -e syscalls:sys_enter_getppid \
		-F $WORKLOADS/syscalls 20 >tc.out 2>&1 || { cat tc.out; false; } &&
	trace-cmd report -i tc.dat >theirs 2>theirs.err &&
	$SONDE ftrace report -i tc.dat >mine &&
	[ $(grep -c "sys_enter_getppid\|sys_getppid" theirs) -eq 20 ] &&
	test_cmp theirs mine
'
else
	test_skip "trace-cmd's own file read by sonde ftrace report" "no trace-cmd in the VM (none on the host to copy)"
fi

test_done
