#!/bin/bash
# sonde stat's exit codes and error messages: one clear line, no partial output.
. "$(dirname "$0")/../lib.sh"
W=$WORKLOADS/syscalls

test_expect_success 'the command'"'"'s exit status is sonde'"'"'s' '
	rc=0; $SONDE stat -e task-clock -- $W 10 7 2>/dev/null || rc=$? && [ $rc -eq 7 ] &&
	rc=0; $SONDE stat -e task-clock -- sh -c "kill -TERM \$\$" 2>/dev/null || rc=$? && [ $rc -eq 143 ]
'

test_expect_success 'a command that does not exist: exit 127 and one line' '
	rc=0; $SONDE stat -- /nonexistent/cmd 2>err || rc=$? && [ $rc -eq 127 ] &&
	grep -q "^sonde: cannot run ./nonexistent/cmd.: No such file or directory$" err &&
	! grep -q "Performance counter" err
'

test_expect_success 'a file that cannot be executed: exit 126' '
	echo "not a program" >notexec && chmod 644 notexec &&
	rc=0; $SONDE stat -- ./notexec 2>err || rc=$? && [ $rc -eq 126 ] &&
	grep -q "Permission denied" err
'

test_expect_success 'an unknown event names it and suggests a close one' '
	rc=0; $SONDE stat -e task-clok -- true 2>err || rc=$? && [ $rc -ne 0 ] &&
	head -1 err | grep -q "^sonde: unknown event .task-clok.; did you mean .task-clock.?" &&
	! grep -q "Performance counter" err
'

test_expect_success 'a malformed event list is refused' '
	! $SONDE stat -e "cycles,,page-faults" -- true 2>err && grep -q "empty event name" err &&
	! $SONDE stat -e "{cycles" -- true 2>err && grep -q "without" err &&
	! $SONDE stat -e "nosuchgroup:nosuch" -- true 2>err && grep -q "unknown tracepoint" err
'

test_expect_success 'a pid that does not exist' '
	rc=0; $SONDE stat -p 4000000 2>err || rc=$? && [ $rc -eq 1 ] &&
	grep -q "^sonde: cannot attach to process 4000000: no such process$" err
'

test_expect_success 'malformed pid and cpu lists' '
	! $SONDE stat -p 12x -- true 2>err && grep -q "invalid pid .12x.: give process ids" err &&
	! $SONDE stat -C 0-x -- true 2>err && grep -q "invalid CPU list .0-x.: give CPUs" err &&
	! $SONDE stat -C 9999 -- true 2>err && grep -q "not online" err
'

test_expect_success 'option combinations that make no sense' '
	! $SONDE stat -A -- true 2>err && grep -q "needs -a or -C" err &&
	! $SONDE stat --per-thread -- true 2>err && grep -q "needs -p or -t" err &&
	! $SONDE stat -I 5 -- true 2>err && grep -q "at least 10 ms" err &&
	! $SONDE stat -r 0 -- true 2>err && grep -q "between 1 and 100" err &&
	! $SONDE stat 2>err && grep -q "nothing to count" err
'

test_expect_success 'hardware events here: <not supported>, and the rest is counted' '
	$SONDE stat -e cycles,instructions,task-clock -- true 2>err &&
	grep -q "<not supported>      cycles" err && grep -q "msec task-clock" err
'

test_expect_success '-o FILE: the counts go there, created 0600' '
	$SONDE stat -o counts.txt -e task-clock -- true 2>err &&
	[ ! -s err ] && grep -q "msec task-clock" counts.txt &&
	[ "$(stat -c %a counts.txt)" = 600 ] &&
	$SONDE stat -o counts.txt --append -e page-faults -- true &&
	grep -q task-clock counts.txt && grep -q page-faults counts.txt
'

test_expect_success 'a full disk is an error, not silence' '
	! $SONDE stat -o /dev/full -e task-clock -- true 2>err && grep -q "cannot write" err
'

test_expect_success 'modifiers and groups are shown as given' '
	$SONDE stat -x, -e "task-clock:u,{page-faults,cs}" -- true 2>out &&
	grep -q ",task-clock:u," out && grep -q ",page-faults," out && grep -q ",cs," out
'

test_expect_success '-d adds perf'"'"'s detailed cache events' '
	$SONDE stat -d -- true 2>out && grep -q "L1-dcache-load-misses" out && grep -q "LLC-load-misses" out
'

test_expect_success '-v -v shows the perf_event_attr of each event' '
	$SONDE stat -vv -e cycles:u,task-clock -- true 2>out &&
	grep -q "event .cycles:u.: type 0 config 0 .*exclude_user 0 exclude_kernel 1" out &&
	grep -q "event .task-clock.: type 1 config 0x1" out
'

test_expect_success 'sonde list: software events and tracepoints, perf list'"'"'s layout' '
	$SONDE list >out &&
	grep -q "^  task-clock  *\[Software event\]$" out &&
	grep -q "^  context-switches OR cs  *\[Software event\]$" out &&
	grep -q "^  sched:sched_switch  *\[Tracepoint event\]$" out &&
	perf list 2>/dev/null | grep "\[Software event\]" >expect &&
	grep "\[Software event\]" out >actual && test_cmp expect actual
'

test_expect_success 'sonde list PATTERN and CLASS filter; no match is an error' '
	$SONDE list "sched:*" >out && ! grep -qv "^  sched:" out && [ $(wc -l <out) -gt 5 ] &&
	$SONDE list sw >out && ! grep -qv "Software event" out &&
	! $SONDE list "nosuch*event" 2>err && grep -q "no event matches" err
'

test_expect_success 'sonde list leaves out hardware events the machine cannot count, --all shows them' '
	if perf stat -e cycles true 2>&1 | grep -q "not supported"; then
		! $SONDE list hw | grep -q cycles && $SONDE list --all hw | grep -q "cpu-cycles OR cycles"
	else
		$SONDE list hw | grep -q "cpu-cycles OR cycles"
	fi
'
test_expect_success 'list --features: the BPF hooks, as another tool finds them' '
	$SONDE list --features >out && cat out &&
	grep -q "^  raw_tp .* yes$" out && grep -q "^  perf_event .* yes$" out &&
	if [ -e /sys/kernel/tracing/kprobe_events ] || [ -e /sys/bus/event_source/devices/kprobe ]; then
		grep -q "^  kprobe .* yes$" out
	else
		grep -q "^  kprobe .* no: this kernel has no kprobes" out
	fi &&
	if timeout 20 bpftrace -e "kfunc:do_sys_openat2 { exit(); } interval:ms:100 { exit(); }" >/dev/null 2>&1; then
		grep -q "^  fentry .* yes$" out
	else
		grep -q "^  fentry .* no: " out
	fi
'

test_expect_success 'unprivileged: system-wide is refused naming perf_event_paranoid and CAP_PERFMON' '
	cp $SONDE ./sonde-copy && chmod 755 . ./sonde-copy &&
	rc=0; setpriv --reuid 65534 --regid 65534 --clear-groups ./sonde-copy stat -a -e cpu-clock -- true 2>err || rc=$? &&
	cat err && [ $rc -eq 1 ] && grep -q "perf_event_paranoid" err && grep -q "CAP_PERFMON" err
'

test_expect_success 'unprivileged: falls back to user-space counting as perf does (:u)' '
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ] || { echo "paranoid < 2: nothing to fall back from"; exit 0; } &&
	cp $SONDE ./sonde-copy && chmod 755 . ./sonde-copy &&
	setpriv --reuid 65534 --regid 65534 --clear-groups ./sonde-copy stat -e task-clock,page-faults -- true 2>err &&
	grep -q "msec task-clock:u" err && grep -q " page-faults:u" err
'
test_done
