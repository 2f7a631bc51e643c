#!/bin/bash
# Runs inside the test VM (tests/vm/README.md): the kernel facilities sonde's kprobe,
# fentry and function-tracer code needs are there and work, driven by hand through
# tracefs and plain libbpf so that a failure here points at the VM, not at sonde.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing
PROGS=$BUILD/vm

test_expect_success 'the VM kernel has kprobes, BTF, the function tracers and hist triggers' '
	test -w $T/kprobe_events && test -w $T/uprobe_events &&
	test -s /sys/kernel/btf/vmlinux &&
	test -e /sys/bus/event_source/devices/kprobe/type &&
	grep -qw function $T/available_tracers &&
	grep -qw function_graph $T/available_tracers &&
	test -e $T/events/sched/sched_switch/hist &&
	grep -q "^do_sys_openat2\$" $T/available_filter_functions
'

test_expect_success 'kprobe_events takes a kprobe and a kretprobe, and both fire' '
	trap "echo 0 >$T/instances/sondevm/events/sondevm/enable; rmdir $T/instances/sondevm;
	      echo >$T/kprobe_events" EXIT &&
	echo "p:sondevm/open do_sys_openat2 dfd=%di:s32" >>$T/kprobe_events &&
	echo "r:sondevm/open_ret do_sys_openat2 ret=\$retval:s64" >>$T/kprobe_events &&
	test -e $T/events/sondevm/open/id && test -e $T/events/sondevm/open_ret/id &&
	mkdir $T/instances/sondevm &&
	echo 1 >$T/instances/sondevm/events/sondevm/enable &&
	cat /etc/hostname >/dev/null &&
	echo 0 >$T/instances/sondevm/events/sondevm/enable &&
	cat $T/instances/sondevm/trace >trace &&
	grep -E "(cat|<\.\.\.>)-[0-9]+ .* open: \(do_sys_openat2\+0x0/0x[0-9a-f]+\) dfd=-100" trace &&
	grep -E "(cat|<\.\.\.>)-[0-9]+ .* open_ret: \(.* <- do_sys_openat2\) ret=3" trace
'

test_expect_success 'the function tracer runs in an instance, limited by set_ftrace_filter' '
	I=$T/instances/sondevm_fn &&
	trap "echo nop >$I/current_tracer; rmdir $I" EXIT &&
	mkdir $I &&
	echo do_sys_openat2 >$I/set_ftrace_filter &&
	echo function >$I/current_tracer &&
	cat /etc/hostname >/dev/null &&
	echo 0 >$I/tracing_on &&
	cat $I/trace >trace &&
	grep -E "(cat|<\.\.\.>)-[0-9]+ .* do_sys_openat2 <-" trace &&
	! grep -vE "^#|do_sys_openat2 <-" trace
'

# function_graph lives in the top-level instance only (in 6.1); its filter keeps
# the patching to a few functions: patching all of them takes seconds under tcg
test_expect_success 'function_graph shows a call tree under do_sys_openat2' '
	trap "echo nop >$T/current_tracer; echo >$T/set_graph_function; echo >$T/set_ftrace_filter;
	      echo >$T/trace; echo 1 >$T/tracing_on" EXIT &&
	echo do_sys_openat2 >$T/set_graph_function &&
	echo "do_sys_openat2 do_filp_open getname getname_flags fd_install putname" >$T/set_ftrace_filter &&
	echo function_graph >$T/current_tracer &&
	cat /etc/hostname >/dev/null &&
	echo 0 >$T/tracing_on &&
	cat $T/trace >trace &&
	grep -E "^ *[0-9]+\) .* \| +do_sys_openat2\(\) \{" trace &&
	grep -E "^ *[0-9]+\) .*[0-9.]+ us +\| +(getname|getname_flags|fd_install|putname)\(\);" trace &&
	grep -E "^ *[0-9]+\) .*[0-9.]+ us +\| +\}( /\* do_sys_openat2 \*/)?\$" trace
'

test_expect_success 'a hist trigger counts forks by parent' '
	E=$T/events/sched/sched_process_fork &&
	trap "echo \"!hist:keys=parent_comm\" >>$E/trigger" EXIT &&
	echo "hist:keys=parent_comm" >$E/trigger &&
	for i in 1 2 3 4 5; do /bin/true; done &&
	cat $E/hist >hist &&
	cat hist &&
	n=$(sed -n "s/.*parent_comm: bash *} hitcount: *\([0-9]*\).*/\1/p" hist) &&
	[ "$n" -ge 5 ]
'

test_expect_success 'bpftool loads kprobe, kretprobe, fentry and fexit programs' '
	trap "rm -rf /sys/fs/bpf/sondevm" EXIT &&
	bpftool prog loadall $PROGS/probes.bpf.o /sys/fs/bpf/sondevm &&
	bpftool prog show >progs &&
	grep -E "kprobe +name on_kprobe" progs && grep -E "kprobe +name on_kretprobe" progs &&
	grep -E "tracing +name on_fentry" progs && grep -E "tracing +name on_fexit" progs
'

test_expect_success 'libbpf attaches them and each counts every open' '
	$PROGS/attach $PROGS/probes.bpf.o 1000 >hits &&
	cat hits &&
	for sec in kprobe kretprobe fentry fexit; do
		n=$(sed -n "s|^$sec/do_sys_openat2 ||p" hits) &&
		[ "$n" -ge 1000 ] && [ "$n" -lt 1100 ] || exit 1
	done &&
	test -z "$(bpftool link show)"
'

test_done
