#!/bin/bash
# sonde record: the files it writes open in perf report / perf script, its
# options, exit codes, targets (-- CMD, -p, -a), signals and errors.
. "$(dirname "$0")/../lib.sh"

have_perf() { command -v perf >/dev/null 2>&1; }

# perf's verdict on a file: no warning on stderr or in the report
perf_clean() {
	perf report -i "$1" --stdio --no-children >report.out 2>report.err &&
	! grep -iE "warning|error|fail|broken|incompatible" report.err report.out
}

test_expect_success '--help says the defaults (99 Hz, sonde.data)' '
	$SONDE record --help >help &&
	grep -q "default 99" help && grep -q "default sonde.data" help && grep -q "dwarf" help
'

test_expect_success 'no target is a usage error (129)' '
	rc=0; $SONDE record 2>err || rc=$? &&
	[ $rc -eq 129 ] && grep -q "nothing to sample" err
'

test_expect_success 'record a command: file 0600, summary with samples and lost' '
	$SONDE record -g -F 499 -o demo.data -- $EXAMPLES/demo 1 >out 2>err &&
	[ "$(stat -c %a demo.data)" = 600 ] &&
	grep -E "^\[ sonde record: wrote .demo.data. \([0-9.]+ MB\): [0-9]+ samples, 0 lost \]$" err &&
	# samples follow the CPU time demo gets in its 1 s, which a loaded machine shares (94 seen at a
	# load of 8 on 2 CPUs); idle it gets ~450
	n=$(sed -nE "s/.*: ([0-9]+) samples.*/\1/p" err) && [ "$n" -gt 20 ]
'

if have_perf; then
test_expect_success 'perf report reads it without a warning and finds hot_loop, warm_loop' '
	perf_clean demo.data &&
	hot=$(awk "/\[\.\] hot_loop/ {sub(\"%\",\"\",\$1); print int(\$1)}" report.out) &&
	warm=$(awk "/\[\.\] warm_loop/ {sub(\"%\",\"\",\$1); print int(\$1)}" report.out) &&
	echo "hot_loop $hot% warm_loop $warm%" &&
	[ "$hot" -ge 45 ] && [ "$hot" -le 75 ] && [ "$warm" -ge 18 ] && [ "$warm" -le 42 ]
'

test_expect_success 'the percentages are close to perf'\''s own recording of the same workload' '
	perf record -q -g -F 499 -o perf.data -- $EXAMPLES/demo 1 >/dev/null 2>&1 &&
	pct() { perf report -i $1 --stdio --no-children 2>/dev/null |
		awk -v s="$2" "\$0 ~ \"\\\\[\\\\.\\\\] \"s\"\$\" {sub(\"%\",\"\",\$1); print int(\$1 + 0.5); exit}"; } &&
	for f in hot_loop warm_loop; do
		a=$(pct demo.data $f) && b=$(pct perf.data $f) &&
		echo "$f: sonde $a% perf $b%" >&2 && [ -n "$a" ] && [ -n "$b" ] &&
		d=$((a - b)) && [ ${d#-} -le 10 ] || exit 1
	done
'

test_expect_success 'the kernel map record is the one perf writes ([_text, _etext))' '
	perf script -i demo.data --show-mmap-events 2>/dev/null | grep -o "PERF_RECORD_MMAP -1/0: .*" >ours &&
	perf script -i perf.data --show-mmap-events 2>/dev/null | grep -o "PERF_RECORD_MMAP -1/0: .*kernel.kallsyms.*" >theirs &&
	[ -s ours ] && test_cmp theirs ours
'

test_expect_success 'perf script shows the frame-pointer call chains (hot_loop called from main)' '
	perf script -i demo.data >script.out 2>script.err &&
	! grep -iE "warning|error" script.err &&
	grep -A1 " hot_loop+0x" script.out | grep -q " main+0x" &&
	grep -q "demo.*cpu-clock: *$" script.out
'

test_expect_success 'perf sees the sample count sonde reported' '
	n=$(sed -nE "s/.*: ([0-9]+) samples.*/\1/p" err) &&
	p=$(perf report -i demo.data --stats 2>/dev/null | awk "/SAMPLE events:/ {print \$3; exit}") &&
	[ "$n" = "$p" ]
'

test_expect_success 'the header has hostname, os release, cmdline, nr_cpus, build ids' '
	perf report -i demo.data --header-only >hdr 2>&1 &&
	grep -q "^# hostname : $(uname -n)" hdr &&
	grep -q "^# os release : $(uname -r)" hdr &&
	grep -q "^# cmdline : .*sonde[^ ]* record -g -F 499 -o demo.data" hdr &&
	grep -q "^# nrcpus online : $(nproc)" hdr &&
	grep -q "^# event : name = cpu-clock" hdr &&
	perf buildid-list -i demo.data >ids 2>&1 &&
	grep -q "examples/demo$" ids && grep -q "kernel.kallsyms" ids
'
else
	test_skip 'perf reads sonde files' 'perf is not installed'
fi

test_expect_success 'lost samples are counted and reported, as perf counts them' '
	rc=0; $SONDE record -m 1 --call-graph dwarf,2048 -o lost.data -- true 2>err || rc=$? &&
	[ $rc -eq 129 ] && grep -q "cannot hold two samples" err &&
	$SONDE record -m 1 --call-graph dwarf,1024 -F 20000 -o lost.data -- $EXAMPLES/demo 0.3 >/dev/null 2>err &&
	cat err && lost=$(sed -nE "s/.* ([0-9]+) lost \]$/\1/p" err) && [ "$lost" -gt 0 ] &&
	grep -q "warning: lost $lost samples in [0-9]* overflows.*raise -m or lower -F" err &&
	if have_perf; then
		chunks=$(sed -nE "s/.* in ([0-9]+) overflows.*/\1/p" err) &&
		p=$(perf report -i lost.data --stats 2>/dev/null | awk "/LOST events:/ {print \$3; exit}") &&
		[ "$chunks" = "$p" ]
	fi
'

if is_root && command -v setpriv >/dev/null; then
test_expect_success 'unprivileged, small locked-memory limit: user-space samples, smaller buffers, said so' '
	chmod 755 "$TMP" && mkdir -p u && chmod 777 u &&
	# copies the unprivileged user can reach, wherever the checkout lives
	cp $SONDE u/sonde && cp $EXAMPLES/demo u/demo && chmod 755 u/sonde u/demo &&
	setpriv --reuid=65534 --regid=65534 --clear-groups bash -c \
		"ulimit -l 512; u/sonde record -g -o u/u.data -- u/demo 0.3" >/dev/null 2>err &&
	cat err && grep -q "allows only [0-9]*-page buffers" err &&
	n=$(sed -nE "s/.*: ([0-9]+) samples.*/\1/p" err) && [ "$n" -gt 0 ]
'
else
	test_skip 'unprivileged recording' 'needs root to switch to an unprivileged user'
fi

if command -v script >/dev/null; then
test_expect_success 'on a terminal: a status line with samples, lost and how to stop' '
	script -qec "$SONDE record -o tty.data -- $EXAMPLES/demo 0.8" /dev/null >tty.out &&
	grep -aqE "sonde record: [0-9]+ samples, 0 lost, [0-9.]+ s \(Ctrl-C to stop\)" tty.out &&
	grep -aq "\[ sonde record: wrote .tty.data." tty.out &&
	$SONDE record -o notty.data -- $EXAMPLES/demo 0.3 2>err >/dev/null && ! grep -q "Ctrl-C to stop" err
'
fi

test_expect_success '-o -: pipe-mode data on stdout, the command'\''s own output on stderr, no file' '
	$SONDE record -g -F 499 -o - -- $EXAMPLES/demo 0.5 >p.data 2>err &&
	[ ! -e ./- ] && grep -q "^demo: [0-9]* rounds" err &&
	[ "$(head -c 16 p.data | od -An -tx1 | tr -d " \n")" = 50455246494c45321000000000000000 ] &&
	$SONDE report -i - --no-children <p.data >ours && grep -q "\[\.\] hot_loop" ours &&
	$SONDE script -i p.data >s1 && $SONDE script -i - <p.data >s2 && test_cmp s1 s2 &&
	[ $(grep -c "hot_loop" s1) -gt 5 ]
'

test_expect_success '-o -: a build id record cut short is one error line (fuzz find)' '
	rc=0; $SONDE script -i $ROOT/tests/fuzz/corpus/perfdata/pipe-short-build-id >out 2>err || rc=$? &&
	[ $rc -eq 1 ] && [ $(wc -l <err) -eq 1 ] && grep -q "bad build id record at offset 0x278" err
'

test_expect_success '-o - on a terminal is refused; a reader that quits ends the recording' '
	script -qec "$SONDE record -o - -- $EXAMPLES/demo 0.2" /dev/null >tty.out || :
	grep -aq "not writing a binary recording to a terminal" tty.out && [ ! -e ./- ] &&
	{ r=0; $SONDE record -F 999 -o - -- $EXAMPLES/demo 2 2>err || r=$?; echo $r >rc; } | head -c 100 >/dev/null &&
	[ "$(cat rc)" = 1 ] && grep -q "^sonde: cannot write .-.: Broken pipe" err && ! grep -q "rounds in 2" err
'

test_expect_success 'the exit status of the command is sonde record'\''s' '
	rc=0; $SONDE record -q -o x.data -- sh -c "exit 3" || rc=$? && [ $rc -eq 3 ] &&
	rc=0; $SONDE record -q -o x.data -- /nonexistent/cmd 2>err || rc=$? && [ $rc -eq 127 ] &&
	grep -q "cannot run ./nonexistent/cmd." err && [ -s x.data ] && [ ! -e x.data.old ]
'

test_expect_success 'an existing file is replaced and stays 0600' '
	echo old >old.data && chmod 644 old.data &&
	$SONDE record -q -o old.data -- true && [ "$(stat -c %a old.data)" = 600 ] &&
	[ "$(head -c 8 old.data)" = PERFILE2 ]
'

test_expect_success 'an unwritable -o is one clear error' '
	rc=0; $SONDE record -o /nonexistent/dir/x.data -- true 2>err || rc=$? &&
	[ $rc -eq 1 ] && [ $(wc -l <err) -eq 1 ] && grep -q "cannot create ./nonexistent/dir/x.data." err
'

test_expect_success '--call-graph lbr says clearly that this machine lacks it' '
	if [ -e /sys/bus/event_source/devices/cpu/caps/branches ]; then exit 0; fi &&
	rc=0; $SONDE record --call-graph lbr -o l.data -- true 2>err || rc=$? &&
	[ $rc -eq 1 ] && grep -q "lbr: no last branch record" err && [ ! -e l.data ]
'

test_expect_success 'bad --call-graph, bad -F, -F with -c are usage errors' '
	rc=0; $SONDE record --call-graph frames -- true 2>err || rc=$? && [ $rc -eq 129 ] &&
	grep -q "expected fp, dwarf" err &&
	rc=0; $SONDE record -F 99 -c 1000 -- true 2>err || rc=$? && [ $rc -eq 129 ] &&
	rc=0; $SONDE record -F fast -- true 2>err || rc=$? && [ $rc -eq 129 ] && grep -q "or .max." err
'

test_expect_success '-F max samples at kernel.perf_event_max_sample_rate' '
	$SONDE record -q -F max -o max.data -- true &&
	if command -v perf >/dev/null; then
		perf report -i max.data --header-only 2>/dev/null |
			grep -q "sample_freq } = $(cat /proc/sys/kernel/perf_event_max_sample_rate),"
	fi
'

test_expect_success '-p PID: attaches, follows threads, names the process' '
	$WORKLOADS/spin 3 2 >spin.out & pid=$! &&
	while ! grep -q ready spin.out; do sleep 0.05; done &&
	$SONDE record -q -g -o p.data -p $pid --duration 0.6 &&
	kill $pid; wait $pid || : &&
	if have_perf; then
		perf report -i p.data --stdio --no-children --sort comm,sym 2>/dev/null >rep &&
		grep -E "spin +\[\.\] spin_here" rep && grep -q thread_fn rep
	fi
'

test_expect_success '-a --duration: every CPU, cpu in the samples' '
	$SONDE record -q -a -o a.data --duration 0.4 &&
	if have_perf; then
		perf script -i a.data -F comm,cpu 2>/dev/null | grep -E "\[[0-9]{3}\]" >cpus &&
		[ -s cpus ]
	fi
'

test_expect_success 'SIGTERM stops a system-wide recording cleanly: the file is finished' '
	$SONDE record -q -a -o s.data & pid=$! &&
	sleep 1 && kill_ready TERM $pid && wait $pid &&
	if have_perf; then
		perf script -i s.data >/dev/null 2>err && ! grep -iE "warning|error" err
	fi &&
	[ "$(head -c 8 s.data)" = PERFILE2 ]
'

test_expect_success 'Ctrl-C (SIGINT) reaches the command; the file is finished' '
	# once spin runs, and long enough for samples however loaded the machine (perf report
	# calls a file without any an error)
	$SONDE record -q -F 999 -o i.data -- $WORKLOADS/spin 10 1 >i.out & pid=$! &&
	for i in $(seq 400); do grep -q ready i.out && break; sleep 0.05; done &&
	sleep 0.5 && kill_ready INT $pid && rc=0 && wait $pid || rc=$? &&
	[ $rc -eq 130 ] &&
	if have_perf; then perf_clean i.data; fi
'

if have_perf; then
test_expect_success 'tracepoints: perf script decodes every hit (tracing data saved)' '
	$SONDE record -q -e syscalls:sys_enter_getppid -o tp.data -- $WORKLOADS/syscalls 300 &&
	perf script -i tp.data >tp.out 2>tp.err &&
	! grep -iE "warning|error|broken" tp.err &&
	[ $(grep -c "syscalls:sys_enter_getppid:" tp.out) -eq 300 ] &&
	perf report -i tp.data --header-only 2>&1 | grep -q "^# event : name = syscalls:sys_enter_getppid"
'

test_expect_success '--call-graph dwarf: perf unwinds the stack copies (hot_loop <- work <- main)' '
	$SONDE record -q --call-graph dwarf,4096 -F 199 -o dw.data -- $EXAMPLES/demo 0.6 &&
	perf report -i dw.data --header-only 2>/dev/null | grep -q "sample_stack_user = 4096" &&
	perf report -i dw.data --stdio --no-children >dw.out 2>dw.err &&
	! grep -iE "warning|error" dw.err &&
	grep -A4 "\[\.\] hot_loop" dw.out | grep -q "work" &&
	grep -A5 "\[\.\] hot_loop" dw.out | grep -q "main"
'

test_expect_success '-o -: perf reads the stream: report, script, header, build ids, tracepoints' '
	$SONDE record -q -g -F 499 -o - -- $EXAMPLES/demo 0.5 >p2.data 2>/dev/null &&
	perf_clean p2.data && grep -q "\[\.\] hot_loop" report.out &&
	perf script -i - <p2.data 2>/dev/null | script_comparable >theirs && $SONDE script -i p2.data | script_comparable >ours &&
	[ -s ours ] && test_cmp theirs ours &&
	perf report -i p2.data --header-only 2>/dev/null >hdr &&
	grep -q "^# cmdline : .*record -q -g -F 499 -o - -- " hdr && grep -q "^# event : name = cpu-clock" hdr &&
	perf buildid-list -i p2.data 2>/dev/null | grep -q " .*/demo$" &&
	$SONDE record -q -e syscalls:sys_enter_getppid -o - -- $WORKLOADS/syscalls 300 2>/dev/null |
		perf script -i - >tp2.out 2>tp2.err &&
	! grep -iE "warning|error|fail|mismatch" tp2.err &&
	[ $(grep -c "syscalls:sys_enter_getppid:" tp2.out) -eq 300 ]
'

test_expect_success '-z: Zstandard-compressed records that perf reads: header, counts, the same script output' '
	$SONDE record -z -g -F 499 -o z.data -- $EXAMPLES/demo 0.5 >/dev/null 2>err &&
	grep -qE "^\[ sonde record: wrote .z.data. \([0-9.]+ MB, compressed from [0-9.]+ MB\): [0-9]+ samples, 0 lost \]$" err &&
	n=$(sed -nE "s/.*: ([0-9]+) samples.*/\1/p" err) &&
	perf report -i z.data --header-only 2>/dev/null | grep -qE "^# compressed : Zstd, level = 1, ratio = [1-9][0-9]*$" &&
	perf report -i z.data --stats 2>/dev/null >stats &&
	grep -qE "COMPRESSED events: +[1-9]" stats && grep -qE "^ +SAMPLE events: +$n$" stats &&
	perf script -i z.data 2>/dev/null | script_comparable >theirs && $SONDE script -i z.data | script_comparable >ours &&
	[ $(grep -c hot_loop ours) -gt 20 ] && test_cmp theirs ours &&
	$SONDE record -q -z9 -o z9.data -- $EXAMPLES/demo 0.2 >/dev/null &&
	perf report -i z9.data --header-only 2>/dev/null | grep -q "^# compressed : Zstd, level = 9," &&
	$SONDE record -q -z -e syscalls:sys_enter_getppid -o - -- $WORKLOADS/syscalls 300 2>/dev/null >zp.data &&
	perf script -i - <zp.data 2>/dev/null | grep -c "syscalls:sys_enter_getppid:" >n && [ "$(cat n)" = 300 ] &&
	[ $($SONDE script -i - <zp.data | grep -c "syscalls:sys_enter_getppid:") = 300 ] &&
	rc=0; $SONDE record --compression-level=23 -o z.data -- true 2>err || rc=$? &&
	[ $rc -eq 129 ] && grep -q "a Zstandard level is 1 to 22" err
'

test_expect_success 'two events in one file: each sample keeps its event' '
	$SONDE record -q -e cpu-clock -e syscalls:sys_enter_getppid -F 499 -o two.data -- $WORKLOADS/syscalls 200 &&
	perf script -i two.data -F event 2>/dev/null | sort | uniq -c >ev &&
	grep -q " 200 syscalls:sys_enter_getppid:" ev
'
fi

test_expect_success '-o FIFO: the pipe format perf reads from a FIFO (perf report -i - <FIFO)' '
	mkfifo fifo &&
	{ perf report -i - --stdio --sort comm <fifo >rep 2>rep.err & } && r=$! &&
	$SONDE record -F 499 -o fifo -- $EXAMPLES/demo 0.3 2>rec.err &&
	wait $r && grep -q "^ *[0-9.]*% *demo *$" rep
'
test_done
