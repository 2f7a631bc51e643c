#!/bin/bash
# sonde sched, the rest of perf sched's surface: timehist -s/-S (perf's
# runtime summary, --state's wait-time summary), and latency --hist (a
# runqlat histogram of the wake-to-run delays per task, with percentiles).
# The workload: spin's 3 threads pinned to one CPU for 1 s, so that each
# waits on the run queue while the others run; compared with perf sched
# timehist 6.1 on the same file, and with the table of sonde sched latency.
. "$(dirname "$0")/../lib.sh"

# spin under a name of this run's own: the recordings are system-wide, and another test's
# spin may run beside this one
C=spin$$
W=$TMP/$C
cp "$WORKLOADS/spin" "$W"

require_root 'sonde sched' 'tracepoints system-wide need root'
have_perf() { command -v perf >/dev/null 2>&1 && perf version >/dev/null 2>&1; }

$SONDE sched record -o "$TMP/spin.data" -- taskset -c 1 $W 1 3 >"$TMP/spin.out" 2>"$TMP/spin.err"
SPIN=$(sed -n 's/ ready$//p' "$TMP/spin.out")

# the summary's row of comm[tid...] in file $2: sched-in count, run-time (ms)
srow() { awk -v t="$1" '$1 == t { print $3, $4 }' "$2"; }

test_expect_success 'timehist -s: a row per spin thread, terminated, with its parent; totals and idle CPUs' '
	$SONDE sched timehist -s -i spin.data >s.out &&
	grep -q "^Runtime summary$" s.out &&
	sed -n "/^Terminated tasks:$/,/^$/p" s.out >dead &&
	test $(grep -cE "^ +$C\[($SPIN|[0-9]+/$SPIN)\] " dead) = 3 &&
	test $(grep -cE "^ +$C\[[0-9]+/$SPIN\] +$SPIN " dead) = 2 &&
	grep -qE "^    CPU  1 idle (for|entire time window)" s.out &&
	grep -qE "^    Total number of unique tasks: [0-9]+$" s.out &&
	grep -qE "^    Total scheduling time \(msec\): [0-9]+\.[0-9]{3}  \(x [0-9]+\)$" s.out
'

# by [tid] or [tid/pid]: the main thread ran as taskset before it exec'd spin; the lines
# show each run time truncated to the microsecond, so their sum is under by up to 1 us each
test_expect_success 'timehist -s: each thread'"'"'s count and run time are those of its timehist lines' '
	$SONDE sched timehist -s -i spin.data >s.out &&
	$SONDE sched timehist -i spin.data >lines &&
	for t in $(grep -oE "$C\[[0-9]+(/$SPIN)?\]" s.out | grep -E "\[$SPIN\]|/$SPIN\]" | sort -u); do
		set -- $(srow "$t" s.out) &&
		id=${t#$C} &&
		n=$(awk -v t="$id" "substr(\$3, length(\$3) - length(t) + 1) == t" lines | wc -l) &&
		ms=$(awk -v t="$id" "substr(\$3, length(\$3) - length(t) + 1) == t { s += \$6 } END { printf \"%.3f\", s }" lines) &&
		echo "$t: summary $1 switches $2 ms, lines $n switches $ms ms" &&
		test "$1" = "$n" &&
		awk -v a="$2" -v b="$ms" -v n="$n" "BEGIN { d = a - b; exit !(d >= 0 && d <= n * 0.001 + 0.001) }" || exit 1
	done
'

test_expect_success 'timehist -s, -S, --state, -M: byte for byte what perf sched timehist prints' '
	have_perf || { echo "perf is not installed"; exit 0; } &&
	for k in "-s" "-S" "-s --state" "-s -M" "-S -w -V -M" "-S -n --state"; do
		perf sched timehist $k -i spin.data >perf.out 2>/dev/null &&
		$SONDE sched timehist $k -i spin.data >sonde.out &&
		test_cmp perf.out sonde.out || { echo "differs with: $k"; exit 1; }
	done
'

test_expect_success 'timehist -s on perf sched record files: forks name the parents, as perf does' '
	have_perf || { echo "perf is not installed"; exit 0; } &&
	perf sched record -o perf.data -- sh -c "taskset -c 1 $W 0.3 2; $WORKLOADS/naps 3 2" >/dev/null 2>&1 &&
	for k in "-s" "-S --state" "-s -M"; do
		perf sched timehist $k -i perf.data >perf.out 2>/dev/null &&
		$SONDE sched timehist $k -i perf.data >sonde.out &&
		test_cmp perf.out sonde.out || { echo "differs with: $k"; exit 1; }
	done &&
	for pp in $(awk "\$1 ~ /^naps\[/ { print \$2 }" sonde.out); do
		grep -E "^ +sh\[$pp\] " sonde.out && exit 0
	done; echo "no naps row whose parent is a sh row"; exit 1
'

# the counts and the percentile line of the histogram after line "$1" in file $2
hist_of() { awk -v h="$1" '$0 == h { on = 1; next } on && /^$/ { exit } on' "$2"; }

test_expect_success 'latency --hist -p: per thread, as many delays as the table counts switches, its max the table'"'"'s' '
	$SONDE sched latency -p -i spin.data >lat &&
	$SONDE sched latency -p --hist -i spin.data >hist &&
	test $(grep -c "^pid = " hist) = $(grep -cE "^  [^ ].*:[0-9]+ +\|" lat) &&
	for tid in $(grep -oE "^pid = [0-9]+ $C$" hist | cut -d" " -f3); do
		hist_of "pid = $tid $C" hist >h &&
		grep -q "^     usecs               : count    distribution$" h &&
		n=$(awk "/ : / { s += \$5 } END { print s }" h) &&
		sw=$(awk -F"|" "/^  $C:$tid / { print \$3 + 0 }" lat) &&
		maxms=$(awk -F"|" "/^  $C:$tid / { sub(/max:/, \"\", \$5); print \$5 + 0 }" lat) &&
		top=$(awk "/ : / && \$5 > 0 { lo = \$1; hi = \$3 } END { print lo, hi }" h) &&
		echo "$tid: $n delays, table $sw switches, max $maxms ms in [$top] us" &&
		test "$n" = "$sw" &&
		awk -v m="$maxms" -v t="$top" "BEGIN { split(t, b, \" \"); us = m * 1000; exit !(us >= b[1] && us < b[2] + 1) }" &&
		grep -qE "^p50 [0-9.]+(ns|us|ms|s)  p90 .*  max [0-9.]+(us|ms|s)  \(log2 buckets: each pNN is at most 2x the true value, never below it\)$" h || exit 1
	done
'

# each of the 3 spinners waits while the 2 others run their slices: most of its
# delays are whole slices, a millisecond or more
test_expect_success 'latency --hist: a spinner among 3 on one CPU waits 1 ms or more at the median (known answer)' '
	$SONDE sched latency -p --hist -i spin.data >hist &&
	test $(grep -cE "^pid = [0-9]+ $C$" hist) = 3 &&
	for tid in $(grep -oE "^pid = [0-9]+ $C$" hist | cut -d" " -f3); do
		p50=$(hist_of "pid = $tid $C" hist | sed -n "s/^p50 \([^ ]*\) .*/\1/p") &&
		echo "$tid: p50 $p50" &&
		case $p50 in *ms|*s) ;; *) exit 1 ;; esac || exit 1
	done &&
	$SONDE sched latency --hist -i spin.data >merged &&
	grep -qx "comm = $C (3 tasks)" merged
'

test_expect_success 'latency --live --percentiles: each kernel-side histogram ends with its percentiles' '
	$SONDE sched latency --live --percentiles -- taskset -c 1 $W 0.5 2 >live.out &&
	pid=$(sed -n "s/ ready$//p" live.out) &&
	hist_of "pid = $pid $C" live.out >h &&
	n=$(awk "/ : / { s += \$5 } END { print s }" h) && echo "$n delays" && test $n -gt 10 &&
	grep -E "^p50 [0-9.]+(us|ms|s)  p90 .*  max [0-9.]+(us|ms|s)  \(log2 buckets: each pNN is at most 2x the true value, never below it\)$" h >p &&
	max=$(sed "s/.* max \([^ ]*\) .*/\1/" p) && p999=$(sed "s/.* p999 \([^ ]*\) .*/\1/" p) &&
	top=$(awk "/ : / && \$5 > 0 { hi = \$3 } END { print hi }" h) &&
	echo "max $max p999 $p999, last bucket up to $top us" &&
	{ [ $n -ge 1000 ] || test "$p999" = "$max"; } &&
	test $(grep -c "^p50 " live.out) = $(grep -c "^pid = " live.out) &&
	$SONDE sched latency --live -- true >plain.out &&
	! grep -q "^p50 " plain.out
'

# replay: a task per tid, its atoms from the switches and wakeups; each switch
# adds a run and a sleep, and every task starts asleep; a round lasts at least
# as long as the task that ran longest ran in the recording
test_expect_success 'replay: the tasks and atoms perf sched replay makes, played twice (known answer)' '
	$SONDE sched record -o small.data -- taskset -c 1 $W 0.3 2 >/dev/null 2>&1 &&
	$SONDE sched replay -r 2 -i small.data >rp.out &&
	$SONDE sched timehist -s -i small.data >s.out &&
	sw=$(sed -n "s/^Total number of context switches: //p" s.out) &&
	tasks=$(grep -c "^task " rp.out) &&
	runs=$(sed -n "s/^nr_run_events: *//p" rp.out) && sleeps=$(sed -n "s/^nr_sleep_events: *//p" rp.out) &&
	echo "$sw switches, $tasks tasks: $runs runs, $sleeps sleeps" &&
	test "$runs" = "$sw" && test "$sleeps" = $((sw + tasks)) &&
	grep -qE "^task +[0-9]+ \( +$C: +[0-9]+\), nr_events: [0-9]+$" rp.out &&
	test $(grep -cE "^#[12] +: [0-9]+\.[0-9]{3}, ravg: [0-9]+\.[0-9]{2}, cpu: [0-9]+\.[0-9]{2} / [0-9]+\.[0-9]{2}$" rp.out) = 2 &&
	longest=$(awk "/ msec|\(count\)/ { next } \$4 ~ /^[0-9]+\.[0-9]+$/ && \$3 ~ /^[0-9]+$/ { if (\$4 > m) m = \$4 } END { print m }" s.out) &&
	wall=$(sed -n "s/^#1  : \([0-9.]*\),.*/\1/p" rp.out) &&
	echo "round 1: $wall ms; the longest task ran $longest ms" &&
	awk -v w="$wall" -v l="$longest" "BEGIN { exit !(w >= l * 0.95) }"
'

test_expect_success 'replay: the counts and the task list are perf sched replay'"'"'s' '
	have_perf || { echo "perf is not installed"; exit 0; } &&
	# the recording is system-wide: a thread that exits (reaped already, so its tid
	# is -1 in the sample) may wake another, and perf 6.1 stops at that wakeup
	# ("pid 4294967295 exceeds limit"); sonde counts it as the idle task'"'"'s
	if ! perf sched replay -r 1 -i spin.data >perf.out 2>perf.err; then
		tail -5 perf.err &&
		grep -q "^pid 4294967295 exceeds limit" perf.err &&
		perf script -i spin.data -F tid,event 2>/dev/null | grep -qE "^ *-1 +sched:sched_wakeup(_new)?:" &&
		$SONDE sched replay -r 1 -i spin.data >sonde.out &&
		grep -q "^nr_wakeup_events: *[1-9]" sonde.out &&
		echo "perf cannot read this recording: a wakeup by a reaped thread (tid -1)" &&
		exit 0
		exit 1
	fi &&
	{ $SONDE sched replay -r 1 -i spin.data >sonde.out 2>sonde.err || { tail -5 sonde.err; exit 1; }; } &&
	grep -E "^(nr_|task |target-less|multi-target|run atoms)" perf.out >p &&
	grep -E "^(nr_|task |target-less|multi-target|run atoms)" sonde.out >s &&
	test_cmp p s
'

test_expect_success 'timehist -s -S together, and --hist with --live: usage errors' '
	test_expect_code() { "$@"; test $? = $want; } &&
	want=129 test_expect_code $SONDE sched timehist -s -S -i spin.data 2>err &&
	grep "one of -s and -S" err &&
	want=129 test_expect_code $SONDE sched latency --live --hist 2>err &&
	grep "hist reads a recording" err &&
	want=129 test_expect_code $SONDE sched latency --percentiles -i spin.data 2>err &&
	grep "percentiles goes with --live" err
'

test_done
