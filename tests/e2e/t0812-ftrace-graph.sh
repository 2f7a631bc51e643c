#!/bin/bash
# sonde ftrace -G on a kernel without function_graph (this host): one clear line,
# nothing left changed; the option errors. The trees themselves are tested in the
# VM (tests/vm/t0811-vm-ftrace-graph*.sh).
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing
expect_rc() { local want=$1 rc=0; shift; "$@" || rc=$?; [ $rc -eq $want ] || { echo "exit $rc, expected $want: $*"; return 1; }; }
state() { (cd $T && for f in current_tracer tracing_on set_ftrace_filter set_ftrace_pid; do echo "== $f"; cat $f 2>&1 || :; done); }

test_expect_success '-G where the kernel has no function_graph: one line, tracefs as it was' '
	if grep -qw function_graph $T/available_tracers 2>/dev/null; then
		echo "this kernel has function_graph: the VM tests cover it"
	else
		state >before &&
		expect_rc 1 $SONDE ftrace -G vfs_read -- /bin/true 2>err && cat err &&
		[ $(wc -l <err) -eq 1 ] && grep -q "cannot use the function_graph tracer: this kernel " err &&
		state >after && test_cmp before after &&
		$SONDE list --features >feat && cat feat &&
		grep -q "^  function_graph tracer (ftrace -G) *no: not in available_tracers$" feat &&
		grep -q "^  uprobe_events (probe -x BIN --add) *yes$" feat
	fi
'

test_expect_success 'the graph options need -G; the depth is not negative' '
	expect_rc 129 $SONDE ftrace --folded -e sched:sched_switch -- /bin/true 2>err &&
	grep -q -- "--folded go with -G FUNC" err &&
	expect_rc 129 $SONDE ftrace -G vfs_read --max-depth -1 -- /bin/true 2>err &&
	grep -q "cannot be negative" err
'

test_done
