#!/bin/bash
# t0020-options: the options every command shares mean one thing and are
# checked one way (-p/-t/-a/-C, -- CMD, --duration, -F), usage errors are one
# line and "see 'sonde CMD --help'" (exit 129), a pid that does not exist is one
# line (exit 1), and the messages of issue 17 item 15 say what is wrong.
. "$(dirname "$0")/../lib.sh"

# expect_rc N CMD...: run CMD, fail unless it exits N
expect_rc() { local want=$1 rc=0; shift; "$@" || rc=$?; [ $rc -eq "$want" ] || { echo "exit $rc, wanted $want: $*"; return 1; }; }
# one_line FILE: FILE holds exactly one line
one_line() { [ "$(wc -l <"$1")" -eq 1 ] || { echo "not one line:"; cat "$1"; return 1; }; }
# usage_error FILE CMD: the error line, then the see-line naming CMD
usage_error() {
	[ "$(wc -l <"$1")" -eq 2 ] && grep -q "^sonde: " "$1" &&
	[ "$(tail -n 1 "$1")" = "see 'sonde $2 --help'" ] || { echo "not a two-line usage error:"; cat "$1"; return 1; }
}

test_expect_success 'usage errors: one line and where to read more, exit 129, in every command' '
	for c in stat record report script collapse flame top offcpu trace probe ftrace use list; do
		expect_rc 129 $SONDE $c --no-such-option 2>err && usage_error err $c &&
		grep -q "unknown option .--no-such-option." err || exit 1
	done &&
	expect_rc 129 $SONDE stat -Q -- true 2>err && usage_error err stat &&
	expect_rc 129 $SONDE record 2>err && usage_error err record && grep -q "nothing to sample" err
'

test_expect_success '-p abc: the same words and exit 129 in every command that takes -p' '
	for c in "stat -p abc -- true" "record -p abc" "top -p abc" "offcpu -p abc" "trace -p abc" \
		 "ftrace -e sched:sched_switch -p abc" "probe -e BEGIN{exit();} -p abc" "addr2sym -p abc" \
		 "lock -p abc" "ltrace -p abc" "memleak -p abc"; do
		set -- $c
		expect_rc 129 $SONDE "$@" 2>err && usage_error err $1 &&
		grep -q "^sonde: invalid pid .abc.: give process ids like 12 or 12,34$" err || exit 1
	done &&
	expect_rc 129 $SONDE record -t 1,x 2>err && grep -q "invalid tid .1,x." err &&
	expect_rc 129 $SONDE record -C x 2>err && grep -q "invalid CPU list .x." err &&
	expect_rc 129 $SONDE record -p 1 -a 2>err && grep -q "cannot be combined" err
'

test_expect_success 'a pid that does not exist: one line, exit 1, in every command (probe -p too)' '
	expect_rc 1 $SONDE probe -p 999999 -e "BEGIN{exit();}" 2>err && one_line err &&
	grep -q "^sonde: cannot attach to process 999999: no such process$" err &&
	for c in "stat -p 999999" "record -o x.data -p 999999" "top -p 999999" "offcpu -p 999999" \
		 "trace -p 999999" "ftrace -e sched:sched_switch -p 999999" "probe -p 999999 -e BEGIN{}" \
		 "addr2sym -p 999999" "lock -p 999999" "ltrace -p 999999" "memleak -p 999999"; do
		expect_rc 1 $SONDE $c 2>err && one_line err &&
		grep -q "^sonde: cannot attach to process 999999: no such process$" err || exit 1
	done &&
	expect_rc 1 $SONDE stat -t 999999 2>err && grep -q "cannot attach to thread 999999: no such thread" err &&
	[ ! -e x.data ]
'

test_expect_success 'a -p of one process: a list is refused in the same words everywhere' '
	for c in "probe -e BEGIN{exit();}" addr2sym ltrace memleak; do
		expect_rc 129 $SONDE $c -p 1,2 2>err && usage_error err ${c%% *} &&
		grep -q "^sonde: -p takes one process id, not .1,2.$" err || exit 1
	done
'

test_expect_success 'a zombie is not a process to attach to' '
	( sleep 0.1 & exec sleep 3 ) & parent=$! &&
	sleep 0.5 && z=$(pgrep -P $parent) && grep -q "^State:.Z" /proc/$z/status &&
	rc=0; { expect_rc 1 $SONDE stat -p $z 2>err && grep -q "cannot attach to process $z" err; } || rc=1;
	kill $parent; wait $parent || :; exit $rc
'

# a process that blocks and makes syscalls, and forks nothing: the target
# a python3 calling getppid() every 20 ms: returns once it is in its loop (its start takes
# a while on a loaded machine), at most 20 s
start_target() {
	local i=0
	rm -f target.ready
	python3 -c "import time,os
open(\"target.ready\", \"w\").close()
while True: os.getppid(); time.sleep(0.02)" & tgt=$!
	until [ -e target.ready ]; do i=$((i + 1)); [ $i -lt 1000 ] || return 1; sleep 0.02; done
}

test_expect_success 'record -p PID -- sleep N: samples PID (not sleep) while sleep runs' '
	"$WORKLOADS/spin" 20 >spin.out & sp=$! && sleep 0.3 &&
	start=$(date +%s%N) &&
	rc=0; $SONDE record -q -o r.data -p $sp -- sleep 0.7 || rc=$?;
	end=$(date +%s%N); kill $sp; wait $sp || :;
	[ $rc -eq 0 ] && [ $(( (end - start) / 1000000 )) -lt 5000 ] &&
	$SONDE report -i r.data -s comm --stdio >rep && grep -q " spin" rep && ! grep -q " sleep" rep
'

test_expect_success 'offcpu -p PID -- sleep N: PID blocks (not sleep), until sleep ends, its status' '
	start_target &&
	rc=0; expect_rc 3 $SONDE offcpu -f --no-follow -p $tgt -- sh -c "sleep 0.7; exit 3" >out 2>err || rc=1;
	kill $tgt; wait $tgt || :; [ $rc -eq 0 ] &&
	grep -q "^python3" out && ! grep -q "^sleep\|^sh" out
'

test_expect_success 'offcpu and trace -a -- sleep N: the whole system while sleep runs' '
	start_target &&
	rc=0; $SONDE offcpu -f -a -- sleep 0.5 >oa.txt 2>/dev/null || rc=1;
	$SONDE trace -a -o ta.txt -- sleep 0.5 || rc=1;
	kill $tgt; wait $tgt || :; [ $rc -eq 0 ] &&
	grep -q "^python3" oa.txt && grep -q "getppid" ta.txt
'

test_expect_success 'trace -p PID -- sleep N: PID syscalls (not sleep), until sleep ends, its status' '
	start_target &&
	rc=0; expect_rc 4 $SONDE trace -o tr.txt -p $tgt -- sh -c "sleep 0.7; exit 4" || rc=1;
	start=$(date +%s%N);
	timeout 20 $SONDE trace -f -o trf.txt -p $tgt -- sleep 0.5 || rc=1;
	end=$(date +%s%N); kill $tgt; wait $tgt || :; [ $rc -eq 0 ] &&
	[ $(( (end - start) / 1000000 )) -lt 5000 ] &&
	grep -q "^getppid() *= " tr.txt && ! grep -q "execve" tr.txt && ! grep -q "execve" trf.txt
'

test_expect_success 'ftrace -p PID -- sleep N: PID events (not sleep), until sleep ends' '
	start_target &&
	rc=0; $SONDE ftrace -e raw_syscalls:sys_enter -p $tgt -- sleep 0.7 >ft.txt || rc=$?;
	kill $tgt; wait $tgt || :; [ $rc -eq 0 ] &&
	grep -q "python3-$tgt " ft.txt && ! grep -q "sleep-" ft.txt
'

test_expect_success 'stat -p PID -- sleep N counts PID while sleep runs' '
	start_target &&
	rc=0; $SONDE stat -e raw_syscalls:sys_enter -p $tgt -- sleep 0.5 2>st.txt || rc=$?;
	kill $tgt; wait $tgt || :; [ $rc -eq 0 ] &&
	grep -q "process id .$tgt." st.txt
'

test_expect_success '-F: one parser; 0 is an error (top sampled at 99 Hz), max works, over max refused' '
	for c in "top" "record -o f.data" "offcpu --wall"; do
		expect_rc 129 $SONDE $c -F 0 -- true 2>err && grep -q "invalid frequency .0." err &&
		expect_rc 129 $SONDE $c -F fast -- true 2>err && grep -q "invalid frequency .fast." err &&
		expect_rc 129 $SONDE $c -F 999999999 -- true 2>err &&
		grep -q "above kernel.perf_event_max_sample_rate" err || exit 1
	done && [ ! -e f.data ] &&
	$SONDE record -q -F max -o m.data -- true
'

test_expect_success '--duration: seconds to stop after, never negative, in every command' '
	for c in "stat -a" "record -o d.data -a" "top" "offcpu" "trace -a" "ftrace -e sched:sched_switch" "use"; do
		expect_rc 129 $SONDE $c --duration -3 2>err && grep -q "option .--duration. takes seconds" err || exit 1
	done &&
	start=$(date +%s%N) &&
	$SONDE trace -a -c --duration 0.5 -o /dev/null && end=$(date +%s%N) &&
	[ $(( (end - start) / 1000000 )) -lt 5000 ]
'

test_expect_success 'trace: the slow-call filter is --min-duration MS; --seconds still works' '
	# every call shown took 30 ms or more (at load 6 an execve did too: none is named)
	$SONDE trace --min-duration 30 -T -o slow.txt -- sh -c "sleep 0.05; true" &&
	grep -q "wait4\|nanosleep" slow.txt &&
	awk "/^[a-z].*<[0-9.]+>\$/ { n++; d = \$NF; gsub(/[<>]/, \"\", d); if (d < 0.030) bad++ }
		END { exit !(n > 0 && !bad) }" slow.txt &&
	$SONDE trace -c --seconds 0.2 -a -o /dev/null &&
	$SONDE trace --help | grep -q "min-duration.*perf trace.s --duration"
'

test_expect_success '-d is not a duration anywhere: use and ftrace refuse it, top keeps perf top -d' '
	expect_rc 129 $SONDE use -d 1 2>err && grep -q "unknown switch .d." err &&
	expect_rc 129 $SONDE ftrace -e sched:sched_switch -d 1 2>err && grep -q "unknown switch .d." err &&
	$SONDE top --help | grep -q "^ *-d, --delay"
'

test_expect_success 'trace -e trace=file: strace class names without %' '
	$SONDE trace -e trace=file -o tf.txt -- cat /etc/hostname >/dev/null &&
	grep -q "^openat(.*/etc/hostname" tf.txt && ! grep -q "^read(" tf.txt
'

# issue 17 item 15, one by one
test_expect_success 'offcpu -- true >/dev/full: no stale errno' '
	expect_rc 1 $SONDE offcpu -- true >/dev/full 2>err &&
	grep -q "cannot write the output" err && ! grep -q "No such file" err
'

test_expect_success 'flame --width 99999999 names the range; --total -1 is refused' '
	echo "a;b 1" >in.folded &&
	expect_rc 129 $SONDE flame --width 99999999 in.folded 2>err && grep -q "width 99999999: give 21 to 1000000" err &&
	expect_rc 129 $SONDE flame --total -1 in.folded 2>err && grep -q "total -1" err
'

test_expect_success 'ftrace -b 99999999999 is out of range, not "not a number"' '
	expect_rc 129 $SONDE ftrace -e sched:sched_switch -b 99999999999 2>err &&
	grep -q "99999999999 is out of range" err && ! grep -q "expects a number" err
'

test_expect_success 'report -i DIR says it once' '
	mkdir adir &&
	expect_rc 1 $SONDE report -i adir 2>err && one_line err &&
	[ $(grep -o "adir" err | wc -l) -eq 1 ]
'

test_expect_success 'stat -- /nonexistent: no PATH hint for a path' '
	expect_rc 127 $SONDE stat -- /nonexistent 2>err && one_line err &&
	expect_rc 127 $SONDE stat -- no-such-cmd-here 2>err && grep -q "in PATH" err
'

test_expect_success '-- CMD that cannot run: one wording, the PATH hint, 127 or 126, in every command' '
	printf "echo not executable\n" >notexec &&
	cmds="stat record"; ! is_root || cmds="$cmds trace offcpu lock memleak ftrace" &&
	for c in $cmds; do
		case $c in record) set -- record -o rec.data ;; ftrace) set -- ftrace -e sched:sched_switch ;;
			   *) set -- $c ;; esac
		expect_rc 127 $SONDE "$@" -- no-such-cmd-here 2>err &&
		grep -q "^sonde: cannot run .no-such-cmd-here.: No such file or directory" err &&
		grep -q "^hint: is .no-such-cmd-here. in PATH" err &&
		expect_rc 126 $SONDE "$@" -- ./notexec 2>err && one_line err &&
		grep -q "cannot run .\./notexec.: Permission denied" err || { echo "in $*:"; cat err; exit 1; }
	done
'

test_expect_success 'trace -e trace=/[ says the regular expression does not compile' '
	expect_rc 129 $SONDE trace -e "trace=/[" -- true 2>err &&
	grep -q "cannot compile the regular expression" err && ! grep -q "unknown syscall" err
'

test_expect_success 'values accepted silently before: now refused' '
	expect_rc 129 $SONDE report --pid abc 2>err && grep -q "invalid pid .abc." err &&
	expect_rc 129 $SONDE script --tid x 2>err && grep -q "invalid tid .x." err &&
	expect_rc 129 $SONDE record -c 0 -- true 2>err && grep -q "^sonde: -c 0" err &&
	expect_rc 129 $SONDE use -I 0 2>err && grep -q "^sonde: -I 0" err &&
	expect_rc 129 $SONDE use --duration -3 2>err && grep -q "duration" err
'

test_expect_success 'collapse --event-filter nosuch: no samples of it is an error' '
	$SONDE record -q -g -o c.data -- "$EXAMPLES/demo" 0.2 >/dev/null &&
	expect_rc 1 $SONDE collapse -i c.data --event-filter nosuch 2>err && one_line err &&
	grep -q "no samples of event .nosuch. in the input (it has .cpu-clock.)" err &&
	$SONDE script -i c.data | { expect_rc 1 $SONDE collapse --event-filter nosuch 2>err; } &&
	$SONDE collapse -i c.data --event-filter cpu-clock | grep -q "main"
'

test_done
