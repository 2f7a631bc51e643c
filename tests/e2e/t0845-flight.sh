#!/bin/bash
# sonde record --flight: the last window of samples kept in memory and
# written to a timestamped perf.data on each trigger. The known answer is
# tests/workloads/spiky: fast reads of /dev/zero all along, and every PERIOD
# a 50 ms spin in spike_compute() then a read in spike_read() that waits for
# a byte a thread writes SPIKE ms later (it prints how long each took).
. "$(dirname "$0")/../lib.sh"

require_root 'the flight recorder' 'its triggers are BPF programs: they need root'

SP=$WORKLOADS/spiky
have_perf() { command -v perf >/dev/null 2>&1 && perf version >/dev/null 2>&1; }

# the dump lines of a recorder's stderr
dumps() { grep "^sonde record: dumped " "$1"; }
# the file a dump line names
dump_file() { sed -n 's/^sonde record: dumped .* to \([^:]*\): trigger .*/\1/p' "$1" | sed -n "${2:-1}p"; }
# wait until file $1 has $2 lines matching $3 (10 s at most)
wait_lines() {
	local i=0
	while [ "$(grep -c "$3" "$1" 2>/dev/null)" -lt "$2" ]; do
		i=$((i + 1)); [ $i -lt 200 ] || { echo "no $2 lines '$3' in $1:"; cat "$1"; return 1; }
		sleep 0.05
	done
}
# the sample times (seconds) of a dump, from sonde script: first and last
times() { $SONDE script -i "$1" | awk '$3 ~ /^[0-9]+\.[0-9]+:$/ { sub(":", "", $3); print $3 }' | sort -n | sed -n '1p;$p'; }

test_expect_success 'syscall:read > 100ms fires on the slow read; its stack is in the dump (--offcpu)' '
	$SONDE record -q --flight 3s -F 999 --offcpu -o fl \
		--trigger "syscall:read > 100ms" -- $SP 2.5 1000 200 >out 2>err &&
	cat err && dumps err >lines && test $(wc -l <lines) = 1 &&
	grep -E "^sonde record: dumped [0-9]+\.[0-9] s \([0-9]+ samples\) to fl\.[0-9]{8}-[0-9]{6}: trigger .syscall:read > 100ms. \(read took [0-9]+ ms, pid [0-9]+ .spiky.\)$" lines &&
	took=$(sed -n "s/.*read took \([0-9]*\) ms.*/\1/p" lines) &&
	real=$(sed -n "1s/slow read 1: \([0-9]*\) ms/\1/p" out) &&
	# the read is slow because the writer sleeps 200 ms first; a loaded machine may start the
	# read late, so the read itself takes less: over the threshold, at most what the workload saw
	test $took -gt 100 && test $took -le $real &&
	f=$(dump_file err) && test -f $f && test "$(stat -c %a $f)" = 600 &&
	$SONDE script -i $f >script &&
	grep -B12 "spike_read+" script | grep -q "prev_state=S" &&
	$SONDE report -i $f --stdio --no-children >report 2>&1 && grep -q "spike_compute" report
'

if have_perf; then
	test_expect_success 'perf 6.1 reads the dump: the slow read stack, the trigger in the header' '
		$SONDE record -q --flight 3s -F 999 -g -e cpu-clock -e sched:sched_switch -o fl \
			--trigger "syscall:read > 100ms" -- $SP 1.5 1000 200 >out 2>err &&
		f=$(dump_file err) &&
		perf script -i $f >pscript 2>perr && test ! -s perr && grep -B12 "spike_read+" pscript | grep -q "prev_state=S" &&
		perf report -i $f --stdio --no-children >preport 2>&1 && grep -q spike_compute preport &&
		perf report -i $f --header-only >header 2>&1 &&
		grep "^# cmdline : .* # trigger: syscall:read > 100ms (read took [0-9]* ms, pid [0-9]* spiky)" header
	'
else
	test_skip 'perf 6.1 reads the dump' 'no perf here'
fi

test_expect_success 'a trigger on read leaves the recording its own read tracepoint samples' '
	$SONDE record -q --flight 3s -g -e syscalls:sys_enter_read -o tp \
		--trigger "syscall:read > 100ms" -- $SP 1.5 1000 200 0 >out 2>err &&
	f=$(dump_file err) && $SONDE script -i $f >script &&
	grep -A3 "syscalls:sys_enter_read:" script | grep -q "spike_read+"
'

test_expect_success 'samples older than the window are gone' '
	$SONDE record --flight 1s -F 999 -o fl --trigger "syscall:read > 100ms" -- $SP 3.5 3000 200 >out 2>err &&
	f=$(dump_file err) && set -- $(times $f) &&
	awk -v a=$1 -v b=$2 "BEGIN { exit !(b - a <= 1.0 && b - a > 0.5) }" &&
	n=$($SONDE script -i $f | grep -c cpu-clock) &&
	seen=$(sed -n "s/.*flight recorder: 1 dump[^,]*, \([0-9]*\) samples seen.*/\1/p" err) &&
	test $seen -gt $((n * 2)) && grep -q "dumped 1.0 s ($n samples)" err
'

test_expect_success 'two slow reads give two files (--holdoff 0); the default holdoff is the window' '
	$SONDE record -q --flight 3s --holdoff 0 -o two --trigger "syscall:read > 100ms" -- $SP 2.6 1000 200 >out 2>err &&
	test $(dumps err | wc -l) = 2 && a=$(dump_file err 1) && b=$(dump_file err 2) &&
	test "$a" != "$b" && test -s "$a" && test -s "$b" &&
	$SONDE script -i "$a" | grep -q cpu-clock && $SONDE script -i "$b" | grep -q cpu-clock &&
	$SONDE record --flight 3s -o one --trigger "syscall:read > 100ms" -- $SP 2.6 1000 200 >out 2>err &&
	test $(dumps err | wc -l) = 1 &&
	grep -q "^\[ sonde record: flight recorder: 1 dump (1 more trigger within --holdoff), " err
'

test_expect_success 'no dump when the threshold is above the slow read' '
	$SONDE record -q --flight 2s -o none --trigger "syscall:read > 300ms" -- $SP 1.5 1000 200 >out 2>err &&
	grep -q "slow read 1" out && ! dumps err && ! ls none.* 2>/dev/null
'

test_expect_success 'p99(read) fires when 1% of the reads are slow; its p99 is theirs (workload clock, +1/16)' '
	$SONDE record -q --flight 3s -o pct --trigger "p99(read) > 50ms over 2s" -- $SP 4 1500 60 1 40 >out 2>err &&
	cat err && test $(dumps err | wc -l) -ge 1 &&
	line=$(dumps err | head -1) &&
	expect_contains "$line" "trigger '"'"'p99(read) > 50ms over 2s'"'"' (p99 of read was " &&
	p=$(echo "$line" | sed -n "s/.*p99 of read was \([0-9]*\) ms over \([0-9]*\) calls in 2 s)$/\1/p") &&
	lo=$(sed -n "s/^slow read [0-9]*: \([0-9]*\) ms$/\1/p" out | sort -n | head -1) &&
	hi=$(sed -n "s/^slow read [0-9]*: \([0-9]*\) ms$/\1/p" out | sort -n | tail -1) &&
	echo "p99 $p ms, the slow reads took $lo to $hi ms" && test $lo -ge 60 &&
	test $p -ge $((lo - 1)) && test $p -le $((hi + hi / 16 + 1)) &&
	$SONDE record -q --flight 3s -o pct2 --trigger "p99(read) > 100ms over 2s" -- $SP 4 1500 60 1 40 >out 2>err &&
	! dumps err
'

# a recorder of spiky (started apart, -p) in the background; FL_PID, SP_PID
start_recorder() {
	$SP 30 100000 200 >/dev/null &
	SP_PID=$!
	(echo $SP_PID >>"$TMP/.tools")
	: >rec.err	# now: an earlier test's line must not count
	$SONDE record --flight 5s -p $SP_PID "$@" >rec.out 2>rec.err &
	FL_PID=$!
	(echo $FL_PID >>"$TMP/.tools")
	wait_lines rec.err 1 "flight recorder on"
}

test_expect_success 'SIGUSR2, sonde record --dump PID and a line on the FIFO each dump, naming it' '
	start_recorder -o sig --control fifo:ctl,ack &&
	test -p ctl && sleep 0.5 &&
	kill -USR2 $FL_PID && wait_lines rec.err 1 "^sonde record: dumped" &&
	$SONDE record --dump $FL_PID 2>dump.err && wait_lines rec.err 2 "^sonde record: dumped" &&
	grep -q "asked process $FL_PID to dump" dump.err &&
	mkfifo ack && (cat ack >ack.out &) && echo "deploy 42" >ctl && wait_lines rec.err 3 "^sonde record: dumped" &&
	wait_lines ack.out 1 "^ack$" &&
	kill -INT $FL_PID && wait $FL_PID && kill $SP_PID &&
	dumps rec.err >lines && cat lines &&
	sed -n 1p lines | grep -q ": trigger SIGUSR2 (from pid [0-9]*)$" &&
	sed -n 2p lines | grep -q ": trigger .sonde record --dump. (from pid [0-9]*)$" &&
	sed -n 3p lines | grep -q ": trigger control fifo (.deploy 42.)$" &&
	f=$(dump_file rec.err 3) && $SONDE report -i $f --header 2>&1 | grep -q "# trigger: control fifo (deploy 42)$" &&
	test ! -e ctl && test -z "$(ls | grep tmp)" && test $(ls sig.* | wc -l) = 3
'

test_expect_success 'Ctrl-C ends it with no dump unless --dump-on-exit; SIGTERM dumps on exit' '
	start_recorder -o quiet && kill -INT $FL_PID && wait $FL_PID && kill $SP_PID && { wait $SP_PID || :; } &&
	! dumps rec.err && ! ls quiet.* 2>/dev/null && grep -q "flight recorder: 0 dumps" rec.err &&
	start_recorder -o exit --dump-on-exit && sleep 0.5 && kill_ready TERM $FL_PID && wait $FL_PID &&
	kill $SP_PID && { wait $SP_PID || :; } &&
	dumps rec.err | grep -q ": trigger exit (SIGTERM)$" && test $(ls exit.* | wc -l) = 1 &&
	! pgrep -af "$SP 30 100000"
'

test_expect_success 'lost samples are counted and reported (the recorder stopped while events pour in)' '
	start_recorder -o lost -m 1 -e syscalls:sys_enter_read &&
	kill -STOP $FL_PID && sleep 1 && kill -CONT $FL_PID && sleep 0.5 &&
	kill -USR2 $FL_PID && wait_lines rec.err 1 "^sonde record: dumped" &&
	kill -INT $FL_PID && wait $FL_PID; kill $SP_PID; cat rec.err &&
	dumps rec.err | grep -E -q "samples, [0-9]+ lost\) to lost\." &&
	grep -E -q "flight recorder: 1 dump, [0-9]+ samples seen, [1-9][0-9]* lost" rec.err &&
	grep -q "warning: lost [0-9]* samples" rec.err
'

test_expect_success 'sonde record --dump refuses a process that is not a flight recorder' '
	rc=0; $SONDE record --dump $$ 2>err || rc=$? && test $rc = 1 &&
	grep -q "^sonde: --dump $$: that process is not a flight recorder" err &&
	rc=0; $SONDE record --dump 2147483647 2>err || rc=$? && test $rc = 1 && grep -q "no such process" err
'

test_expect_success 'bad triggers and flight options: one error line, exit 129' '
	for t in "syscall:read > 100" "p99(read > 5ms" "foo" "syscall:read < 5ms" "p100(read) > 1ms" \
		 "syscall:nosuchcall > 1ms" "syscall:read > 5ms over 2s"; do
		rc=0; $SONDE record --flight 1s --trigger "$t" -- true 2>err || rc=$?
		test $rc = 129 && test $(grep -c "^sonde: --trigger" err) = 1 && grep -q "^see .sonde record --help.$" err ||
			{ echo "for $t: exit $rc"; cat err; exit 1; }
	done &&
	rc=0; $SONDE record --trigger "syscall:read > 1ms" -- true 2>err || rc=$? && test $rc = 129 &&
	grep -q "go with --flight" err &&
	rc=0; $SONDE record --flight 0 -- true 2>err || rc=$? && test $rc = 129 &&
	rc=0; $SONDE record --flight 2s -o - -- true 2>err || rc=$? && test $rc = 129 &&
	rc=0; $SONDE record --dump abc 2>err || rc=$? && test $rc = 129 &&
	rc=0; $SONDE record --flight 2s -o /nonexistent/x -- true 2>err || rc=$? && test $rc = 1 &&
	grep -q "^sonde: cannot write dumps to ./nonexistent/.: No such file or directory$" err
'

test_done
