#!/bin/bash
# Runs inside the test VM booted with Debian's PREEMPT_RT kernel (VM_KERNEL=rt,
# tests/vm/README.md), which has the wakeup, wakeup_rt and wakeup_dl tracers:
# `sonde ftrace --latency` prints the trace the kernel keeps for its max
# latency exactly as `cat trace` shows it, honours --thresh, and puts back
# every top-level setting it changed after a normal end, SIGINT and SIGTERM;
# after SIGKILL the next run puts them back and says so.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/tracing

state() { (cd $T && for f in current_tracer tracing_max_latency tracing_thresh tracing_on; do echo "$f $(cat $f)"; done); }
wait_tracer() { for i in $(seq 200); do grep -qx "$1" $T/current_tracer && return 0; sleep 0.05; done; return 1; }

if ! grep -qw wakeup_rt $T/available_tracers 2>/dev/null; then
	test_skip 'ftrace --latency in a kernel with the wakeup tracers' "(no wakeup_rt in available_tracers: boot it with VM_KERNEL=rt)"
	test_done
fi
# settings that differ from the kernel's defaults, so that putting them back is seen
echo 4242 >$T/tracing_max_latency
# the function tracing inside the latency tracers patches every kernel function: seconds
# under tcg for each start and stop; the wakeup events alone make the same kind of trace
ft=$(cat $T/options/function-trace) && echo 0 >$T/options/function-trace

test_expect_success 'wakeup_rt: a SCHED_FIFO task woken by a timer; the trace is the kernel'"'"'s own' '
	state >before &&
	cat >snap.sh <<-EOS &&
	$WORKLOADS/rtwake 50 2 || exit
	echo 0 >$T/tracing_on
	cat $T/tracing_max_latency >max.txt
	cat $T/current_tracer $T/tracing_thresh >during.txt
	cat $T/trace >kernel.txt
	EOS
	$SONDE ftrace --latency wakeup_rt -o out.txt -- bash snap.sh 2>err && cat err &&
	max=$(cat max.txt) && echo "max latency $max us; during: $(cat during.txt | tr "\n" " ")" &&
	[ "$max" -gt 0 ] && printf "wakeup_rt\n0\n" >want && test_cmp want during.txt &&
	head -20 out.txt &&
	grep -qx "# tracer: wakeup_rt" out.txt && grep -q "^# latency: $max us" out.txt &&
	test_cmp kernel.txt out.txt &&
	! grep -q . err &&
	state >after && test_cmp before after
'

test_expect_success 'wakeup with --thresh: tracing_thresh is set while it runs; nothing above it says so' '
	state >before &&
	cat >snap.sh <<-EOS &&
	$WORKLOADS/rtwake 20 2 || exit
	cat $T/current_tracer $T/tracing_thresh >during.txt
	EOS
	$SONDE ftrace --latency wakeup --thresh 5000000 -o out.txt -- bash snap.sh 2>err && cat err &&
	printf "wakeup\n5000000\n" >want && test_cmp want during.txt &&
	grep -qx "# tracer: wakeup" out.txt &&
	grep -q "warning: wakeup saw no latency above 5000000 us" err &&
	state >after && test_cmp before after
'

test_expect_success 'wakeup_dl: a SCHED_DEADLINE task woken by a timer is the one it shows' '
	state >before &&
	$SONDE ftrace --latency wakeup_dl -o out.txt -- $WORKLOADS/rtwake 30 2 dl 2>err && cat err &&
	head -12 out.txt && grep -qx "# tracer: wakeup_dl" out.txt &&
	grep -q "^# latency: [1-9][0-9]* us" out.txt && grep -q "task: rtwake-[0-9]* " out.txt &&
	state >after && test_cmp before after
'

test_expect_success 'wakeup: --duration, any task; SIGINT ends it with the trace printed, settings put back' '
	state >before &&
	{ $SONDE ftrace --latency wakeup --duration 60 -o int.txt 2>err & } && pid=$! &&
	wait_tracer wakeup && sleep 1 && kill -INT $pid && { wait $pid; rc=$?; } && echo "exit $rc" &&
	cat err && ls -l int.txt && head -12 int.txt &&
	grep -qx "# tracer: wakeup" int.txt && grep -q "^# latency: [0-9]* us" int.txt &&
	state >after && test_cmp before after
'

test_expect_success 'SIGTERM puts the settings back; after SIGKILL the next run does, and says so' '
	state >before &&
	{ $SONDE ftrace --latency wakeup_rt --duration 60 -o /dev/null & } && pid=$! &&
	wait_tracer wakeup_rt && kill -TERM $pid && { wait $pid; rc=$?; } && echo "exit $rc" &&
	state >after && test_cmp before after &&
	{ $SONDE ftrace --latency wakeup_rt --thresh 7 --duration 60 -o /dev/null & } && pid=$! &&
	wait_tracer wakeup_rt && kill -KILL $pid && { wait $pid || :; } &&
	state && grep -qx wakeup_rt $T/current_tracer && grep -qx 7 $T/tracing_thresh &&
	$SONDE ftrace --latency wakeup -o /dev/null -- true 2>err; cat err &&
	grep -q "put back the top-level tracing settings sonde pid $pid (no longer running) had changed" err &&
	state >after && test_cmp before after
'

echo 0 >$T/tracing_max_latency
echo "$ft" >$T/options/function-trace
test_done
