#!/bin/bash
# sonde stat against perf stat: same layout, same counts on deterministic workloads.
. "$(dirname "$0")/../lib.sh"
W=$WORKLOADS/syscalls

# numbers become runs of N of the same width as the right-aligned field they fill,
# so two outputs compare equal when their columns line up, whatever the values
# (and a rate's K/M/G prefix, which depends on the value, keeps only its width)
layout() { perl -pe 's/( *[0-9][0-9.,]*)/"N" x length($1)/ge; s/([KMG]?\/sec *)/"R" x length($1)/ge'; }

test_expect_success 'default events: the same lines and columns as perf stat' '
	$SONDE stat -- $W 100 2>sonde.out >/dev/null &&
	perf stat -- $W 100 2>perf.out >/dev/null &&
	layout <perf.out | grep -v "seconds time elapsed" >expect &&
	layout <sonde.out | grep -v "seconds time elapsed" >actual &&
	test_cmp expect actual
'

test_expect_success 'tracepoints and software events: same layout as perf stat' '
	ev="task-clock,page-faults,syscalls:sys_enter_getppid,syscalls:sys_enter_write,cycles" &&
	$SONDE stat -e $ev -- $W 100 2>sonde.out >/dev/null &&
	perf stat -e $ev -- $W 100 2>perf.out >/dev/null &&
	layout <perf.out | grep -v "seconds time elapsed" >expect &&
	layout <sonde.out | grep -v "seconds time elapsed" >actual &&
	test_cmp expect actual
'

test_expect_success 'tracepoint counts equal perf stat'"'"'s exactly' '
	ev="syscalls:sys_enter_getppid,syscalls:sys_enter_openat,syscalls:sys_enter_write,syscalls:sys_enter_close,sched:sched_process_exec,raw_syscalls:sys_enter" &&
	$SONDE stat -x, -e $ev -- $W 3000 2>sonde.csv &&
	perf stat -x, -e $ev -- $W 3000 2>perf.csv &&
	cut -d, -f1,3 perf.csv >expect && cut -d, -f1,3 sonde.csv >actual &&
	test_cmp expect actual &&
	grep -q "^3000,syscalls:sys_enter_getppid$" actual
'

test_expect_success 'globs expand to the same tracepoints as perf' '
	$SONDE stat -x, -e "syscalls:sys_enter_get*" -- $W 10 2>sonde.csv &&
	perf stat -x, -e "syscalls:sys_enter_get*" -- $W 10 2>perf.csv &&
	cut -d, -f1,3 perf.csv | sort >expect && cut -d, -f1,3 sonde.csv | sort >actual &&
	test_cmp expect actual && [ $(wc -l <actual) -gt 10 ]
'

# under chrt -f 1: the context switches of a workload that never blocks are the
# preemptions the machine forces on it (98 in a loaded run, against perf 3..5 just before)
test_expect_success 'software counts within perf'"'"'s own run-to-run spread' '
	for i in 1 2 3; do chrt -f 1 perf stat -x, -e page-faults,minor-faults,major-faults,context-switches -- $W 2000 2>>perf.csv; done &&
	chrt -f 1 $SONDE stat -x, -e page-faults,minor-faults,major-faults,context-switches -- $W 2000 2>sonde.csv &&
	for ev in page-faults minor-faults major-faults context-switches; do
		s=$(grep ",$ev," sonde.csv | cut -d, -f1) &&
		lo=$(grep ",$ev," perf.csv | cut -d, -f1 | sort -n | head -1) &&
		hi=$(grep ",$ev," perf.csv | cut -d, -f1 | sort -n | tail -1) &&
		echo "$ev sonde=$s perf=$lo..$hi" &&
		[ "$s" -ge $((lo - 3)) ] && [ "$s" -le $((hi + 3)) ] || exit 1
	done
'

# the number of fields, the unit, the event and the metric's unit (rate prefix aside)
fields() { sed -E 's/[KMG]\/sec$/\/sec/' "$1" | awk -F, '{print NF, $2, $3, $(NF)}'; }

test_expect_success 'CSV: the same fields as perf -x, (with -r too)' '
	ev="task-clock,page-faults,sched:sched_switch,cycles" &&
	$SONDE stat -x, -e $ev -- $W 10 2>sonde.csv && perf stat -x, -e $ev -- $W 10 2>perf.csv &&
	fields perf.csv >expect && fields sonde.csv >actual &&
	test_cmp expect actual &&
	$SONDE stat -r 2 -x, -e $ev -- $W 10 2>sonde.csv && perf stat -r 2 -x, -e $ev -- $W 10 2>perf.csv &&
	fields perf.csv >expect && fields sonde.csv >actual &&
	test_cmp expect actual
'

test_expect_success '-r 3: the runs, +- variance and the elapsed spread like perf' '
	$SONDE stat -r 3 -e task-clock,page-faults -- $W 100 2>out &&
	grep -q "Performance counter stats for .*(3 runs):" out &&
	grep -E "task-clock .*\( \+- +[0-9.]+% \)$" out &&
	grep -E "^ +[0-9.]+ \+- [0-9.]+ seconds time elapsed  \( \+- +[0-9.]+% \)$" out
'

test_expect_success '-a -A: one row per online CPU per event, like perf' '
	n=$(getconf _NPROCESSORS_ONLN) &&
	$SONDE stat -a -A -e cpu-clock,context-switches -- sleep 0.2 2>out &&
	[ $(grep -c "^CPU[0-9]* .*cpu-clock" out) -eq $n ] &&
	[ $(grep -c "^CPU[0-9]* .*context-switches" out) -eq $n ] &&
	grep -q "for .system wide.:" out &&
	perf stat -a -A -e cpu-clock,context-switches -- sleep 0.2 2>perf.out &&
	layout <perf.out | grep "^CPU" >expect && layout <out | grep "^CPU" >actual && test_cmp expect actual
'

test_expect_success '-a: system-wide cpu-clock is about nproc x the elapsed time' '
	$SONDE stat -a -x, -e cpu-clock -- sleep 0.5 2>out &&
	ms=$(cut -d, -f1 out) && n=$(getconf _NPROCESSORS_ONLN) &&
	awk -v ms=$ms -v n=$n "BEGIN { exit !(ms > n * 400 && ms < n * 700) }"
'

test_expect_success '-C 0: counts on CPU 0 only' '
	$SONDE stat -C 0 -A -e cpu-clock -- sleep 0.2 2>out &&
	[ $(grep -c "^CPU" out) -eq 1 ] && grep -q "^CPU0 " out && grep -q "CPU(s) 0" out
'

test_expect_success '-I 100: interval rows with perf'"'"'s header and timestamps' '
	$SONDE stat -I 100 -e task-clock,page-faults -- sleep 0.35 2>out &&
	head -1 out | grep -q "^#           time             counts unit events$" &&
	n=$(grep -c "task-clock" out) && [ $n -ge 3 ] && [ $n -le 5 ] &&
	grep -E "^ +0\.1[0-9]{8} +[0-9.]+ msec task-clock" out &&
	perf stat -I 100 -e task-clock,page-faults -- sleep 0.35 2>perf.out &&
	layout <perf.out | sed -n 2,3p >expect && layout <out | sed -n 2,3p >actual && test_cmp expect actual
'

test_expect_success '--json: one valid JSON object per line with perf'"'"'s keys' '
	$SONDE stat --json -e task-clock,page-faults,cycles -- $W 10 2>out &&
	[ $(wc -l <out) -eq 3 ] &&
	python3 -c "
import json,sys
rows=[json.loads(l) for l in open(\"out\")]
assert rows[0][\"event\"]==\"task-clock\" and rows[0][\"unit\"]==\"msec\" and rows[0][\"metric-unit\"]==\"CPUs utilized\"
assert float(rows[1][\"counter-value\"])>0 and rows[1][\"pcnt-running\"]==100.0
assert rows[2][\"counter-value\"]==\"<not supported>\"
for r in rows: assert \"event-runtime\" in r
"
'

# the CPU time /proc says a task used, in ms (utime + stime, in clock ticks)
cpu_ms() { awk -v hz=$(getconf CLK_TCK) '{ print ($14 + $15) * 1000 / hz }' "/proc/$1/stat"; }
# the machine's steal time so far (ms, all CPUs): the host running something else while a vCPU
# ran the task. The guest's clock goes on, so task-clock counts it; /proc's CPU time (the
# scheduler's, with paravirt steal accounting) does not: 499 ms against 350 under a busy host
steal_ms() { awk -v hz=$(getconf CLK_TCK) '/^cpu / { print $9 * 1000 / hz }' /proc/stat; }
# sonde's task-clock (ms) against what /proc saw over a window that encloses it; $3: the steal
# of that window, which task-clock may hold and /proc not
near() { awk -v s="$1" -v p="$2" -v st="${3:-0}" 'BEGIN { d = s - p; if (d < 0) d = -d; print "sonde", s, "ms, /proc", p, "ms, steal", st, "ms";
	exit !(d <= 25 + 0.1 * p + st && s > 0) }'; }

# attached SONDE_PID N: wait until sonde has N counters open. The process it counts is stopped
# (SIGSTOP) from before sonde starts until then, and stopped again before sonde ends: /proc
# sees the same window as sonde however long a loaded machine makes its start and its end
attached() {
	local i=0
	until [ "$(ls -l /proc/$1/fd 2>/dev/null | grep -c perf_event)" -ge "$2" ]; do
		i=$((i + 1)); [ $i -lt 1000 ] && [ -e /proc/$1 ] || { echo "sonde opened no counter"; return 1; }
		sleep 0.01
	done
	sleep 0.05
}

test_expect_success '-p PID --duration: the CPU time /proc sees for the process' '
	$WORKLOADS/spin 8 >spin.out & spid=$! &&
	sleep 0.2 && kill -STOP $spid && a=$(cpu_ms $spid) && sa=$(steal_ms) &&
	{ $SONDE stat -p $spid -x, -e task-clock --duration 1.5 2>out & s=$!; } &&
	attached $s $(ls /proc/$spid/task | wc -l) && kill -CONT $spid && sleep 0.5 && kill -STOP $spid &&
	b=$(cpu_ms $spid); sb=$(steal_ms); wait $s; kill -KILL $spid; wait $spid || : &&
	near "$(cut -d, -f1 out)" "$(awk -v a=$a -v b=$b "BEGIN {print b - a}")" "$(awk -v a=$sa -v b=$sb "BEGIN {print b - a}")"
'

test_expect_success '-p PID -- sleep: the command is the timer, as with perf' '
	$WORKLOADS/spin 8 >spin.out & spid=$! &&
	sleep 0.2 && kill -STOP $spid && a=$(cpu_ms $spid) && sa=$(steal_ms) &&
	{ $SONDE stat -p $spid -e task-clock -- sleep 0.4 2>out & s=$!; } &&
	attached $s $(ls /proc/$spid/task | wc -l) && kill -CONT $spid && wait $s && kill -STOP $spid &&
	b=$(cpu_ms $spid); sb=$(steal_ms); kill -KILL $spid; wait $spid || : &&
	grep -q "for process id .$spid.:" out &&
	near "$(grep task-clock out | awk "{print \$1}" | tr -d ,)" "$(awk -v a=$a -v b=$b "BEGIN {print b - a}")" "$(awk -v a=$sa -v b=$sb "BEGIN {print b - a}")"
'

test_expect_success '--per-thread: one row per thread of the process' '
	$WORKLOADS/spin 3 3 >spin.out & spid=$! &&
	sleep 0.3 &&
	$SONDE stat -p $spid --per-thread -x, -e task-clock --duration 0.3 2>out; kill $spid; wait $spid || : &&
	[ $(grep -c "^spin-[0-9]*,.*task-clock" out) -eq 3 ]
'

test_expect_success '-t TID: one thread only' '
	$WORKLOADS/spin 8 2 >spin.out & spid=$! &&
	sleep 0.3 && kill -STOP $spid &&
	tid=$(ls /proc/$spid/task | sort -n | tail -1) && a=$(cpu_ms $spid/task/$tid) && p0=$(cpu_ms $spid) && sa=$(steal_ms) &&
	{ $SONDE stat -t $tid -x, -e task-clock --duration 1.5 2>out & s=$!; } &&
	attached $s 1 && kill -CONT $spid && sleep 0.4 && kill -STOP $spid &&
	b=$(cpu_ms $spid/task/$tid) && p1=$(cpu_ms $spid) && sb=$(steal_ms); wait $s; kill -KILL $spid; wait $spid || : &&
	near "$(cut -d, -f1 out)" "$(awk -v a=$a -v b=$b "BEGIN {print b - a}")" "$(awk -v a=$sa -v b=$sb "BEGIN {print b - a}")" &&
	awk -v s=$(cut -d, -f1 out) -v p=$(awk -v a=$p0 -v b=$p1 "BEGIN {print b - a}") "BEGIN { exit !(s < p - 20) }"
'

test_expect_success '-n: only the elapsed time, perf'"'"'s layout' '
	$SONDE stat -n -- $W 10 2>sonde.out && perf stat -n -- $W 10 2>perf.out &&
	layout <perf.out >expect && layout <sonde.out >actual && test_cmp expect actual
'

test_expect_success 'SIGINT ends an attached run and still prints the counts' '
	$SONDE stat -a -e cpu-clock 2>out & p=$! &&
	sleep 0.4 && kill_ready INT $p && wait $p &&
	grep -q "cpu-clock" out && grep -q "seconds time elapsed" out
'

test_expect_success 'SIGTERM too' '
	$SONDE stat -a -e cpu-clock 2>out & p=$! &&
	sleep 0.4 && kill_ready TERM $p && wait $p &&
	grep -q "cpu-clock" out
'
test_done
