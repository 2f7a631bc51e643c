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

if command -v tmux >/dev/null; then
# capture the screen into $1 until it shows $2: the next refresh after a key comes within -d 0.5,
# later on a loaded machine (10 s at most)
screen_shows() {
	for i in $(seq 50); do
		tmux capture-pane -p -t $sess >"$1" && grep -q "$2" "$1" && return 0
		sleep 0.2
	done
	return 1
}
test_expect_success 'full screen under tmux: keys zoom into a command and a DSO, q quits and restores the terminal' '
	$DEMO 20 >/dev/null & d=$! &&
	sess=sonde-top-$$ &&
	tmux new-session -d -s $sess -x 120 -y 30 "stty -a >$TMP/stty.before; $SONDE top -d 0.5 -E 12; echo rc=\$? >$TMP/rc; stty -a >$TMP/stty.after; sleep 30" &&
	screen_shows screen1 "q quit" && grep -q "PerfTop:" screen1 &&
	tmux send-keys -t $sess c && screen_shows screen2 "zoomed into command" &&
	grep -q "%  " screen2 &&
	tmux send-keys -t $sess c d && screen_shows screen3 "zoomed into DSO" &&
	tmux send-keys -t $sess q &&
	for i in $(seq 50); do [ -s $TMP/rc ] && break; sleep 0.2; done;
	kill $d; wait $d || :;
	cat screen1 screen2 screen3 | head -40;
	tmux kill-session -t $sess 2>/dev/null;
	grep -q "rc=0" $TMP/rc && test_cmp $TMP/stty.before $TMP/stty.after
'
else
test_skip 'full screen under tmux' 'tmux is not installed'
fi

test_expect_success '--batch: plain snapshots without keys, for scripts' '
	$DEMO 3 >/dev/null & d=$! &&
	timeout -k 2 20 $SONDE top --batch -p $d -d 0.5 --duration 1.2 -E 3 </dev/null >out; rc=$?; kill $d 2>/dev/null; wait $d || :;
	[ $rc -eq 0 ] && [ $(grep -c PerfTop out) -ge 2 ] && ! grep -q "q quit" out
'

test_expect_success 'top: bad options and targets' '
	! $SONDE top -p 4000000 2>err && grep -q "no such process" err &&
	! $SONDE top -e nosuch 2>err && grep -q "unknown event" err &&
	! $SONDE top -d 0 2>err
'
test_done
