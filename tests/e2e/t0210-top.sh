#!/bin/bash
# sonde top: live hottest functions, on a workload with a known hot function.
. "$(dirname "$0")/../lib.sh"
DEMO=$EXAMPLES/demo

test_expect_success 'top -p: the demo'"'"'s hot_loop leads, warm_loop follows' '
	$DEMO 4 >/dev/null & d=$! &&
	timeout -k 2 20 $SONDE top --stdio -p $d -d 1 --duration 2.5 -E 5 >out 2>err; rc=$?; kill $d 2>/dev/null; wait $d || :;
	cat out err && [ $rc -eq 0 ] &&
	grep -q "PerfTop: .* irqs/sec" out &&
	tail -n 6 out | grep -m1 "%" | grep -q "\[\.\] hot_loop$" &&
	tail -n 6 out | grep -q "\[\.\] warm_loop$"
'

test_expect_success 'top -a -K: no kernel symbols; -E caps the entries' '
	$DEMO 3 >/dev/null & d=$! &&
	timeout -k 2 20 $SONDE top --stdio -K -d 1 --duration 1.5 -E 4 >out 2>err; rc=$?; kill $d 2>/dev/null; wait $d || :;
	[ $rc -eq 0 ] && ! grep -q "\[k\]" out &&
	awk "/PerfTop/ {n=0} /%  / {n++} END {exit !(n <= 4 && n >= 1)}" out
'

test_expect_success 'top -g: inclusive percentages put main above hot_loop' '
	$DEMO 4 >/dev/null & d=$! &&
	timeout -k 2 20 $SONDE top --stdio -g -p $d -d 1 --duration 2.5 -E 8 >out 2>err; rc=$?; kill $d 2>/dev/null; wait $d || :;
	[ $rc -eq 0 ] && tail -n 9 out | grep -q "\[\.\] main$"
'

test_expect_success 'top ends on SIGINT and SIGTERM' '
	for sig in INT TERM; do
		$SONDE top --stdio -d 0.3 >out 2>err & p=$!
		sleep 1; kill -$sig $p; wait $p || exit 1
		grep -q PerfTop out || exit 1
	done
'

test_expect_success 'top: bad options and targets' '
	! $SONDE top -p 4000000 2>err && grep -q "no such process" err &&
	! $SONDE top -e nosuch 2>err && grep -q "unknown event" err &&
	! $SONDE top -d 0 2>err
'
test_done
