#!/bin/bash
# sonde probe --add/--del/--list/--funcs/--vars: perf probe's dynamic events.
# Uprobe events here (arguments from DWARF, values of a known workload, counted
# by sonde stat, sonde ftrace and perf stat, compared with perf probe's own
# event); kprobe definitions from BTF with --dry-run (the VM adds them for real).
. "$(dirname "$0")/../lib.sh"

T=/sys/kernel/tracing
if [ ! -w $T/uprobe_events ]; then
	test_skip 'sonde probe --add' "no writable $T/uprobe_events"
	test_done
	exit 0
fi
EV=t0811_$$	# the events' names: this run's own
expect_rc() { local want=$1 rc=0; shift; "$@" || rc=$?; [ $rc -eq $want ] || { echo "exit $rc, expected $want: $*"; return 1; }; }
cleanup() { $SONDE probe -q -d "sonde_probes:${EV}*" 2>/dev/null; perf probe -q -d "probe_dwargs:${EV}*" 2>/dev/null; :; }
trap cleanup EXIT

test_expect_success '--vars: the parameters perf probe -V shows' '
	$SONDE probe -x $WORKLOADS/dwargs --vars take >out &&
	cat out &&
	head -2 out | tr -d "\t" >head && printf "Available variables at take\n@<take+0>\n" >want && test_cmp want head &&
	tail -n +3 out | awk "{print \$NF}" >names && printf "name\np\nu\nc\nt\ncol\n" >want && test_cmp want names &&
	grep -q "^		struct point\*	p$" out && grep -q "^		u32_t	t$" out &&
	{ perf probe -x $WORKLOADS/dwargs -V take >perf.out 2>&1 || true; } &&
	if grep -q "Available variables" perf.out; then
		tail -n +3 perf.out | awk "{print \$NF}" | sort >p && sort names >s && test_cmp p s
	fi
'

test_expect_success '--add -x: arguments from DWARF, the values of a known workload, exact' '
	$SONDE probe -x $WORKLOADS/dwargs --add "${EV}=take name:string p->x p->y p->tag:string nx=p->next->x u c t col" >out &&
	grep -q "^  sonde_probes:$EV  *(on take in .*dwargs with name x y tag nx u c t col)$" out &&
	grep -q "^p:sonde_probes/$EV .*dwargs:0x[0-9a-f]* name=+0(%di):string x=+0(%si):s32 y=+8(%si):s64 tag=+16(%si):string nx=+0(+24(%si)):s32 u=%dx:u16 c=%cx:s8 t=%r8:u32 col=%r9:u32$" $T/uprobe_events &&
	$SONDE ftrace -e sonde_probes:$EV -- $WORKLOADS/dwargs 40 >trace &&
	[ $(grep -c ": $EV: (0x" trace) -eq 40 ] &&
	[ $(grep -c ": $EV: (0x[0-9a-f]*) name=\"hello\" x=7 y=-9000000000 tag=\"pt\" nx=3 u=65535 c=-5 t=4000000000 col=5$" trace) -eq 40 ]
'

test_expect_success 'the event counts in sonde stat, perf stat, sonde record (perf script reads it), and sonde probe --list shows it' '
	$SONDE stat -x, -e sonde_probes:$EV -- $WORKLOADS/dwargs 123 2>stat.out >/dev/null &&
	[ "$(grep sonde_probes:$EV stat.out | cut -d, -f1)" -eq 123 ] &&
	perf stat -x, -e sonde_probes:$EV -- $WORKLOADS/dwargs 77 2>perf.out >/dev/null &&
	[ "$(grep sonde_probes:$EV perf.out | cut -d, -f1)" -eq 77 ] &&
	$SONDE record -q -e sonde_probes:$EV -o rec.data -- $WORKLOADS/dwargs 5 >/dev/null 2>&1 &&
	[ $($SONDE script -i rec.data | grep -c " sonde_probes:$EV: (.*x=7 y=-9000000000 ") -eq 5 ] &&
	[ $(perf script -i rec.data 2>/dev/null | grep -c " sonde_probes:$EV: (.*nx=3 u=65535 ") -eq 5 ] &&
	$SONDE probe --list >list && grep -q "^  sonde_probes:$EV  *(on take in " list &&
	# BPF on a probe event: the kernel refuses it (bpftrace too); sonde says what works instead
	expect_rc 1 $SONDE probe -q -e "tracepoint:sonde_probes:$EV { @ = count(); }" -c "$WORKLOADS/dwargs 1" 2>err >/dev/null &&
	grep -q "a kprobe or uprobe event: the kernel runs BPF there only as kprobe:FUNC or uprobe:BIN:FUNC" err
'

test_expect_success 'the values perf probe -x fetches for the same arguments' '
	perf probe -q -x $WORKLOADS/dwargs --add "${EV}p=take p->x p->y u c t col" 2>perr || { cat perr; false; } &&
	$SONDE ftrace -e probe_dwargs:${EV}p -- $WORKLOADS/dwargs 3 >ptrace &&
	[ $(grep -c ": ${EV}p: " ptrace) -eq 3 ] &&
	line=$(grep -m1 ": ${EV}p: " ptrace) && echo "perf: $line" &&
	# perf writes unsigned values in hex: the same numbers as ours
	for f in x=7 y=-9000000000 u=65535 c=-5 t=4000000000 col=5; do
		v=$(echo "$line" | grep -o " ${f%%=*}=[^ ]*" | cut -d= -f2) &&
		[ $((v)) -eq ${f#*=} ] || { echo "perf ${f%%=*}=$v, sonde ${f#*=}"; false; }
	done
'

test_expect_success '%return with $retval, FUNC+OFF, the names FUNC__return and FUNC_1' '
	before=$(cat $T/uprobe_events) &&
	$SONDE probe -q --add "${EV}r=$WORKLOADS/ftrace_calls:tick%return \$retval" &&
	$SONDE ftrace -e sonde_probes:${EV}r -- $WORKLOADS/ftrace_calls 10 >trace &&
	grep -o "retval=-\?[0-9]*" trace | cut -d= -f2 | { tr "\n" " "; echo; } >got &&
	echo "0 1 3 6 10 15 21 28 36 45 " >want && test_cmp want got &&
	$SONDE probe -q -x $WORKLOADS/ftrace_calls -a "${EV}o=tick+1" &&
	grep -q "^p:sonde_probes/${EV}o .*ftrace_calls:0x[0-9a-f]*$" $T/uprobe_events &&
	$SONDE probe --list | grep -q "sonde_probes:${EV}o  *(on tick+1 in .*ftrace_calls)" &&
	$SONDE probe --list | grep -q "sonde_probes:${EV}r  *(on tick%return in .*ftrace_calls with retval)" &&
	$SONDE probe -d "${EV}r" -d "sonde_probes:${EV}o" >del &&
	printf "Removed event: sonde_probes:${EV}r\nRemoved event: sonde_probes:${EV}o\n" >want && test_cmp want del &&
	[ "$(cat $T/uprobe_events)" = "$before" ]
'

test_expect_success 'default names: FUNC, then FUNC_1; a library by name with its debug file (libc:malloc)' '
	cp $WORKLOADS/ftrace_calls ./${EV}bin &&
	$SONDE probe -q -x ./${EV}bin -a tock -a tock -a "tick%return" &&
	grep -q "^p:sonde_probes/tock .*${EV}bin:" $T/uprobe_events &&
	grep -q "^p:sonde_probes/tock_1 .*${EV}bin:" $T/uprobe_events &&
	grep -q "^r:sonde_probes/tick__return .*${EV}bin:" $T/uprobe_events &&
	$SONDE probe -q -d tock -d tock_1 -d tick__return &&
	! grep -q "${EV}bin" $T/uprobe_events &&
	if $SONDE probe -q --add "${EV}m=libc:malloc bytes" 2>err; then
		$SONDE ftrace -e sonde_probes:${EV}m --filter "bytes >= 24 && bytes <= 33" -- $WORKLOADS/leaky 0 >trace &&
		grep -o "bytes=0x[0-9a-f]*\|bytes=[0-9]*" trace | sort | uniq -c | awk "{print \$1, \$2}" >got &&
		for i in 24 25 26 27 28 29 30 31 32 33; do echo "5 bytes=$i"; done >want && test_cmp want got
	else
		cat err && grep -q "no DWARF" err
	fi
'

test_expect_success 'errors: an unknown parameter names the known ones; nothing is left behind' '
	before=$(cat $T/uprobe_events) &&
	expect_rc 1 $SONDE probe -x $WORKLOADS/dwargs --add "take size" 2>err &&
	grep -q "take has no parameter .size. in its DWARF (it has: name p u c t col)" err &&
	expect_rc 1 $SONDE probe -x $WORKLOADS/dwargs --add "take%return u" 2>err &&
	grep -q "parameters are gone at a return probe" err &&
	expect_rc 1 $SONDE probe -x $WORKLOADS/dwargs --add "take \$retval" 2>err &&
	grep -q "needs a return probe" err &&
	expect_rc 1 $SONDE probe -x $WORKLOADS/dwargs --add "take p->nope" 2>err &&
	grep -q "no member .nope." err &&
	expect_rc 1 $SONDE probe -x $WORKLOADS/dwargs --add "no_such_function" 2>err &&
	grep -q "no such function in its symbol tables" err &&
	expect_rc 1 $SONDE probe -d "sonde_probes:${EV}_none" 2>err &&
	grep -q "no probe event matches" err &&
	[ "$(cat $T/uprobe_events)" = "$before" ]
'

test_expect_success '--funcs -x: the functions of a binary, sorted, no _*' '
	$SONDE probe -x $WORKLOADS/ftrace_calls --funcs >out &&
	grep -qx tick out && grep -qx tock out && grep -qx main out && ! grep -q "^_" out &&
	sort -c out &&
	$SONDE probe -x $WORKLOADS/ftrace_calls --funcs "t*" >out2 &&
	printf "tick\ntock\n" >want && test_cmp want out2
'

test_expect_success '--line as perf probe -L shows it; FUNC:N probes that line, where perf does' '
	$SONDE probe -x $WORKLOADS/dwargs --line main >lines &&
	head -1 lines | grep -q "^<main@.*tests/workloads/dwargs.c:0>$" &&
	perf probe -x $WORKLOADS/dwargs -L main >perf.lines 2>/dev/null && test_cmp perf.lines lines &&
	$SONDE probe -x $WORKLOADS/ftrace_calls --line tick >lines &&
	sed -n 2,5p lines | cut -c1-9 | tr -d " " | tr "\n" , >nums && printf "0,,,3," >want && test_cmp want nums &&
	$SONDE probe -q -x $WORKLOADS/ftrace_calls --add "${EV}l=tick:3 sum=%ax:s64" &&
	$SONDE probe --list | grep -q "sonde_probes:${EV}l  *(on tick+[0-9]* in .*ftrace_calls with sum)" &&
	$SONDE ftrace -e sonde_probes:${EV}l -- $WORKLOADS/ftrace_calls 5 >trace &&
	grep -o "sum=-\?[0-9]*" trace | cut -d= -f2 | { tr "\n" " "; echo; } >got &&
	echo "0 1 3 6 10 " >want && test_cmp want got &&
	ours=$(grep "sonde_probes/${EV}l " $T/uprobe_events | sed "s/.*:0x0*\([0-9a-f]*\) .*/\1/") &&
	perf probe -q -x $WORKLOADS/ftrace_calls --add "${EV}q=tick:3" 2>/dev/null &&
	theirs=$(grep "/${EV}q " $T/uprobe_events | sed "s/.*:0x0*\([0-9a-f]*\)$/\1/") &&
	perf probe -q -d "probe_ftrace_calls:${EV}q" && echo "sonde 0x$ours, perf 0x$theirs" && [ "$ours" = "$theirs" ] &&
	$SONDE probe -q -d "${EV}l" &&
	expect_rc 1 $SONDE probe -x $WORKLOADS/ftrace_calls --add "tick:2" 2>err && grep -q "no code at line 2 of tick" err &&
	expect_rc 1 $SONDE probe -x $WORKLOADS/ftrace_calls --add "tick:3 i" 2>err && grep -q "names are read at the function.s entry only" err
'

test_expect_success 'kprobe definitions from the kernel BTF (--dry-run); without kprobe_events, one clear line' '
	[ -r /sys/kernel/btf/vmlinux ] || { echo "no BTF: nothing to check"; exit 0; } &&
	$SONDE probe -n --add "vfs_read count file->f_path.dentry->d_name.name:string" \
		-a "vfs_read%return \$retval" -a "probe:${EV}k=vfs_read+4 \$arg3:u64" >out &&
	cat out &&
	grep -qx "p:sonde_probes/vfs_read vfs_read count=%dx:u64 name=+0(+[0-9]*(+[0-9]*(%di))):string" out &&
	grep -qx "r:sonde_probes/vfs_read__return vfs_read retval=\$retval:s64" out &&
	grep -qx "p:probe/${EV}k vfs_read+4 arg3=%dx:u64" out &&
	$SONDE probe --vars vfs_read >vars && grep -q "^		size_t	count$" vars && grep -q "^		struct file\*	file$" vars &&
	$SONDE probe --funcs "vfs_rea*" | grep -qx vfs_read &&
	if [ ! -e $T/kprobe_events ]; then
		expect_rc 1 $SONDE probe --add "vfs_read count" 2>err && cat err &&
		[ $(wc -l <err) -eq 1 ] && grep -q "this kernel has no kprobe_events" err
	fi
'

test_done
