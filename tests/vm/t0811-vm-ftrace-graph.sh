#!/bin/bash
# Runs inside the test VM (tests/vm/README.md), whose kernel has function_graph
# (in the top-level buffer only, before 6.10): `sonde ftrace -G` call trees with
# durations, --max-depth, --no-irq, -p, --folded for sonde flame, every
# top-level setting as it was after; t0811-vm-ftrace-graph-restore: signals.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing

state() {
	(cd $T && for f in current_tracer tracing_on set_graph_function set_graph_notrace max_graph_depth \
		set_ftrace_pid set_ftrace_filter options/funcgraph-irqs options/graph-time options/function-fork; do
		echo "== $f"; cat $f 2>&1; done; echo "== instances"; ls instances)
}
calls() { grep -c "$1" "$2" || :; }
wait_graph() { for i in $(seq 200); do grep -q function_graph $T/current_tracer && return 0; sleep 0.05; done; return 1; }

test_expect_success '-G FUNC: one call tree per call of the command, with durations; all restored' '
	state >before &&
	$SONDE ftrace -G do_sys_openat2 -- $WORKLOADS/syscalls 20 >out &&
	state >after && test_cmp before after &&
	head -5 out &&
	$SONDE ftrace -e syscalls:sys_enter_openat -- $WORKLOADS/syscalls 20 >ev &&
	n=$(calls "do_sys_openat2() {" out) && e=$(calls ": sys_openat(" ev) && echo "trees $n, openat $e" &&
	[ "$n" -ge 20 ] && [ "$n" -eq "$e" ] &&
	# A 6.1 kernel leaves a task "inside" a -G function when the tracer stops before
	# the function returns (t0811-vm-ftrace-graph-restore traces schedule system-wide:
	# the shell and kernel threads may be in it). Children inherit that, and such a
	# task is traced from the sched_switch to the command on: what it and the command
	# run first shows at the top (_raw_spin_lock_irqsave, finish_task_switch as the
	# command is woken), before the first do_sys_openat2. The trees are from there on
	sed -n "/^ *[0-9]*) .*|  do_sys_openat2() {/,\$p" out >trees &&
	# each tree closed at the top; where the task was switched out inside one (a "=>"
	# line), the function graph shows the other side of the switch at the top too
	c=$(calls "^ *[0-9]*) [ +!#*@$]* *[0-9.]* us *|  }" trees) &&
	{ [ "$c" -eq "$n" ] || { grep -q " => " trees && [ "$c" -gt "$n" ]; }; } &&
	grep -q "^ *[0-9]*) *[0-9.]* us *|    [a-z_0-9.]*();" out
'

test_expect_success '--max-depth 1 --no-irq: the function alone, nothing it calls' '
	state >before &&
	$SONDE ftrace -G do_sys_openat2 -f do_sys_openat2 -f "getname*" --max-depth 1 --no-irq -- $WORKLOADS/syscalls 20 >out &&
	state >after && test_cmp before after &&
	# a leaf, or (when an interrupt came in between) an entry and its exit
	n=$(( $(calls "|  do_sys_openat2();" out) + $(calls "|  do_sys_openat2() {" out) )) &&
	echo "calls $n, openat $(calls ": sys_openat(" ev)" &&
	[ "$n" -eq "$(calls ": sys_openat(" ev)" ] &&
	! grep -q "|    [a-z_]" out
'

test_expect_success '-p PID: that process only; -f: the functions the trees show' '
	{ sh -c "while :; do cat /proc/version >/dev/null; sleep 0.05; done" & } && loop=$! &&
	# a cat every 50 ms, but the guest is emulated: on a loaded host a fork and exec took
	# far longer (fewer than 5 in 1 s once). 2 s, and 2 calls at least
	$SONDE ftrace -G do_sys_openat2 -f do_sys_openat2 -f "getname*" -p $loop --duration 2 >out &&
	{ kill $loop; wait $loop 2>/dev/null || :; } &&
	n=$(calls "do_sys_openat2() {" out) && echo "$n calls" && [ $n -ge 2 ] &&
	grep -q "|    getname" out &&
	! grep "|  *[a-z_]" out | grep -v "do_sys_openat2\|getname"
'

test_expect_success '--folded: own nanoseconds per stack, drawn by sonde flame' '
	$SONDE ftrace -G do_sys_openat2 -f do_sys_openat2 -f "getname*" -f "do_filp_open" --folded -- $WORKLOADS/syscalls 20 >folded &&
	head -3 folded &&
	! grep -v "^do_sys_openat2[;A-Za-z_0-9.]* [0-9][0-9]*$" folded &&
	grep -q "^do_sys_openat2 [0-9]*$" folded && grep -q "^do_sys_openat2;getname" folded && grep -q "^do_sys_openat2;do_filp_open [0-9]*$" folded &&
	$SONDE flame --countname ns folded -o g.svg 2>/dev/null || $SONDE flame folded -o g.svg &&
	grep -q "do_sys_openat2" g.svg
'

test_done
