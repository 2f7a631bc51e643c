#!/bin/bash
# Runs inside the test VM (tests/vm/README.md): `sonde ftrace -G` runs in the
# top-level buffer there (6.1), so every setting it changes must be as it was
# after SIGINT, SIGTERM and SIGKILL (restored by the next run), and a tracer
# someone else set is left alone. t0811-vm-ftrace-graph checks the trees.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing

state() {
	(cd $T && for f in current_tracer tracing_on set_graph_function set_graph_notrace max_graph_depth \
		set_ftrace_pid set_ftrace_filter options/funcgraph-irqs options/graph-time options/function-fork; do
		echo "== $f"; cat $f 2>&1; done; echo "== instances"; ls instances)
}
calls() { grep -c "$1" "$2" || :; }
wait_graph() { for i in $(seq 200); do grep -q function_graph $T/current_tracer && return 0; sleep 0.05; done; return 1; }

test_expect_success '--no-irq is set while tracing (SIGINT ends it), and restored; --graph-time where the kernel has it' '
	state >before &&
	{ $SONDE ftrace -G schedule -f schedule --no-irq -o g.txt --duration 30 & } && pid=$! &&
	wait_graph && sleep 0.5 &&
	irqs=$(cat $T/options/funcgraph-irqs) && gf=$(cat $T/set_graph_function) && np=$(cat $T/set_ftrace_notrace_pid) &&
	kill -INT $pid && wait $pid &&
	echo "irqs $irqs graph_function $gf notrace_pid $np" &&
	[ "$irqs" = 0 ] && [ "$gf" = schedule ] && [ "$np" = $pid ] &&
	state >after && test_cmp before after &&
	if [ -e $T/options/graph-time ]; then
		{ $SONDE ftrace -G schedule -f schedule --graph-time -o g.txt --duration 30 & } && pid=$! &&
		wait_graph && gt=$(cat $T/options/graph-time) && kill -INT $pid && wait $pid && [ "$gt" = 1 ]
	else
		{ $SONDE ftrace -G schedule -f schedule --graph-time -- /bin/true 2>err; [ $? -eq 1 ]; } && cat err &&
		grep -q "this kernel has no options/graph-time" err
	fi &&
	state >after && test_cmp before after
'

test_expect_success 'SIGTERM restores; SIGKILL is restored by the next run, which says so' '
	state >before &&
	{ $SONDE ftrace -G vfs_read -f vfs_read -o /dev/null --duration 30 & } && pid=$! &&
	wait_graph && kill -TERM $pid && { wait $pid; rc=$?; } && echo "exit $rc" &&
	state >after && test_cmp before after &&
	{ $SONDE ftrace -G vfs_read -f vfs_read -o /dev/null --duration 30 & } && pid=$! &&
	wait_graph && kill -KILL $pid && { wait $pid || :; } &&
	grep -q function_graph $T/current_tracer &&
	$SONDE ftrace -e sched:sched_process_exec -- /bin/true >/dev/null 2>err && cat err &&
	grep -q "removed what sonde pid $pid (no longer running) left in tracefs: .*the top-level function_graph settings (restored)" err &&
	state >after && test_cmp before after
'

test_expect_success 'a top-level tracer someone else set is not taken over' '
	echo vfs_read >$T/set_ftrace_filter && echo function >$T/current_tracer &&	# one function: cheap under tcg
	{ $SONDE ftrace -G vfs_read -f vfs_read -- /bin/true 2>err; rc=$?; } &&
	echo nop >$T/current_tracer && echo >$T/set_ftrace_filter && cat err &&
	[ $rc -eq 1 ] && grep -q "the top-level tracer is .function., someone else" err
'

test_done
