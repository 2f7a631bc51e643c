#!/bin/bash
# --comms: an exact name from a comma list, as perf's --comms takes it, in report,
# script, collapse and top alike ("sh" is not "bash", "bash" is not "sh").
. "$(dirname "$0")/../lib.sh"

# two busy programs whose names are a substring of each other (different
# files: sonde names a DSO after the first file it saw with that build id)
cp $WORKLOADS/spin $TMP/sh && cp $EXAMPLES/demo $TMP/bash

# the comm column of each entry, sorted
comms() { awk "/^ *[0-9.]+%/ {print \$NF}" "$1" | sort; }
# started by dash, not sh: each command one thread. perf orders entries of equal period
# by call depth within a thread and by their keys across threads, which is no order at
# all when two threads share a name (a cycle; then perf's order is its tree's shape)
test_expect_success 'record the spinners sh and bash' '
	$SONDE record -g -q -o $TMP/two.data -- dash -c "$TMP/sh 0.6 >/dev/null & $TMP/bash 0.6 >/dev/null; wait" &&
	$SONDE report -i $TMP/two.data -s comm -q -g none --no-children >all &&
	comms all | grep -qx sh && comms all | grep -qx bash
'
# perf report keeps the samples it hides in the total (percentages of all
# samples) and, given one command, leaves the comm column out ("# comm: sh");
# the entries it hides stay in its sorting tree and move equal entries around
no_tip() { grep -v "^# (Tip:" | report_ties_sorted; }
for c in sh bash sh,bash; do
	test_expect_success "report --comms $c: perf report's text" '
		for a in "" "--no-children -g none" "-s comm -g none" "-s comm,dso -g caller"; do
			$SONDE report -i $TMP/two.data --comms '$c' $a | no_tip >out &&
			perf report -i $TMP/two.data --comms '$c' $a --stdio 2>/dev/null | no_tip >perf.out &&
			test_cmp perf.out out || exit 1
		done &&
		$SONDE report -i $TMP/two.data --comms '$c' -s comm -q -g none --no-children >out &&
		comms out >got && [ -s got ] && ! grep -v -x -e "${c%%,*}" -e "${c##*,}" got
	'
done

test_expect_success 'report and script --pid, --tid: the same samples as perf' '
	pid=$($SONDE script -i $TMP/two.data -F comm,pid | awk "\$1 == \"bash\" {print \$2; exit}") &&
	[ -n "$pid" ] &&
	for o in "--pid $pid" "--tid $pid" "--pid 1,$pid" "--pid 1"; do
		$SONDE report -i $TMP/two.data $o | no_tip >out &&
		perf report -i $TMP/two.data $o --stdio 2>/dev/null | no_tip >perf.out &&
		test_cmp perf.out out &&
		$SONDE script -i $TMP/two.data $o -F comm,pid,tid >out &&
		perf script -i $TMP/two.data $o -F comm,pid,tid >perf.out 2>/dev/null &&
		test_cmp perf.out out || exit 1
	done &&
	# the process was dash until its exec: a sample there (a loaded machine) has that name
	$SONDE report -i $TMP/two.data --pid $pid -s comm -q -g none --no-children >out &&
	comms out | grep -qx bash && ! comms out | grep -vx -e bash -e dash
'

test_expect_success 'script --comms: the same samples as perf script' '
	for c in sh bash sh,bash; do
		$SONDE script -i $TMP/two.data --comms $c -F comm,tid >out &&
		perf script -i $TMP/two.data --comms $c -F comm,tid >perf.out 2>/dev/null &&
		test_cmp perf.out out && [ -s out ] || exit 1
	done &&
	$SONDE script -i $TMP/two.data --comms sh -F comm >out && [ "$(awk "{print \$1}" out | sort -u)" = sh ]
'

test_expect_success 'script -S: the samples in these functions, as perf script -S' '
	$SONDE record -g -q -o $TMP/demo.data -- $EXAMPLES/demo 0.5 >/dev/null &&
	for syms in hot_loop hot_loop,warm_loop hot nosuch; do
		$SONDE script -i $TMP/demo.data -S $syms -F comm,tid,ip,sym,dso >out &&
		perf script -i $TMP/demo.data -S $syms -F comm,tid,ip,sym,dso >perf.out 2>/dev/null &&
		test_cmp perf.out out || exit 1
	done &&
	$SONDE script -i $TMP/demo.data -S hot_loop -G -F comm,sym >out &&
	grep -q "hot_loop$" out && ! grep -v "hot_loop$" out
'

test_expect_success 'collapse --comms bash: only bash'"'"'s stacks' '
	$SONDE collapse -i $TMP/two.data --comms bash >out &&
	[ -s out ] && ! grep -v "^bash;" out &&
	$SONDE script -i $TMP/two.data | $SONDE collapse -i - --comms bash >text.out &&
	[ -s text.out ] && ! grep -v "^bash;" text.out
'

test_expect_success 'top --comms: bash'"'"'s samples are not sh'"'"'s, nor sh'"'"'s bash'"'"'s' '
	# the spinners outlive both runs (a loaded machine starts top slowly); killed after them
	$TMP/sh 20 >/dev/null & a=$!
	$TMP/bash 20 >/dev/null & b=$!
	sleep 0.3
	r1=0 r2=0
	$SONDE top --stdio -a -s comm --comms bash -d 1 --duration 1.5 >bash.out 2>err || r1=$?
	$SONDE top --stdio -a -s comm --comms sh -d 1 --duration 1.5 >sh.out 2>>err || r2=$?
	kill $a $b 2>/dev/null || :; wait $a $b || :;
	cat bash.out sh.out err; echo "exit codes $r1 $r2";
	[ $r1 -eq 0 ] && [ $r2 -eq 0 ] &&
	comms bash.out | grep -qx bash && ! comms bash.out | grep -vx bash &&
	comms sh.out | grep -qx sh && ! comms sh.out | grep -vx sh
'
test_done
