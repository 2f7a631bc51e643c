#!/bin/bash
# Runs inside the test VM (tests/vm/README.md): sonde's commands on a kernel with
# kprobes. Kprobe events made through kprobe_events are tracepoints to perf_event_open,
# so `sonde list` shows them and `sonde stat` counts them.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing

kprobes() {
	echo "p:sondevm/open do_sys_openat2" >>$T/kprobe_events &&
	echo "r:sondevm/open_ret do_sys_openat2 ret=\$retval" >>$T/kprobe_events
}

test_expect_success 'sonde runs in the VM' '
	$SONDE --version | grep -E "^sonde version [0-9]" &&
	$SONDE --help | grep -q "^   stat "
'

test_expect_success 'sonde list shows the kprobe events of kprobe_events' '
	trap "echo >$T/kprobe_events" EXIT &&
	kprobes &&
	$SONDE list sondevm >out &&
	cat out &&
	grep -E "^  sondevm:open +\[Tracepoint event\]$" out &&
	grep -E "^  sondevm:open_ret +\[Tracepoint event\]$" out &&
	$SONDE list tracepoint >all &&
	grep -q "^  sondevm:open " all && grep -q "^  sched:sched_switch " all
'

test_expect_success 'sonde stat counts a kprobe and a kretprobe as often as sys_enter_openat' '
	trap "echo >$T/kprobe_events" EXIT &&
	kprobes &&
	$SONDE stat -x, -e sondevm:open,sondevm:open_ret,syscalls:sys_enter_openat \
		-- $WORKLOADS/syscalls 1000 2>out &&
	cat out &&
	p=$(grep ",sondevm:open," out | cut -d, -f1) &&
	r=$(grep ",sondevm:open_ret," out | cut -d, -f1) &&
	s=$(grep ",syscalls:sys_enter_openat," out | cut -d, -f1) &&
	[ "$s" -ge 1000 ] && [ "$s" -lt 1050 ] && [ "$p" = "$s" ] && [ "$r" = "$s" ]
'

test_expect_success 'sonde stat -a -A counts cpu-clock on each of the VM CPUs' '
	$SONDE stat -a -A -x, -e cpu-clock -- sleep 0.3 2>out &&
	cat out &&
	[ $(grep -c "^CPU[0-9]*,.*,msec,cpu-clock," out) -eq $(nproc) ]
'

test_expect_success 'the BPF layer loads fentry and kprobe programs on this kernel (list --features)' '
	$SONDE list --features >out && cat out &&
	grep -q "^  fentry .* yes$" out && grep -q "^  kprobe .* yes$" out && grep -q "^  tp_btf .* yes$" out
'

test_expect_success 'sonde leaves tracefs as it found it' '
	test -z "$(grep -v "^#" $T/kprobe_events)" &&
	[ "$(cat $T/current_tracer)" = nop ] &&
	[ -z "$(ls $T/instances)" ]
'

test_done
