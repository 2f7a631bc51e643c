#!/bin/bash
# sonde probe against bpftrace 0.17 on deterministic workloads: the same map
# output byte for byte (counts, hist/lhist layout, stats, printf), and the
# probe types and options bpftrace has; where bpftrace lacks a feature
# (raw tracepoints in 0.17), the counts are checked against the workload's.
. "$(dirname "$0")/../lib.sh"

# a copy of this run's own: a uprobe is on a file, and other tests run the shared one beside this
W=$TMP/syscalls
cp "$WORKLOADS/syscalls" "$W"
require_root 'sonde probe against bpftrace'

# both tools on one program and workload; bpftrace's stderr has a harmless RLIMIT line
compare() {	# program command
	$SONDE probe -e "$1" -c "$2" >sonde.out &&
	bpftrace -e "$1" -c "$2" >bpftrace.out 2>bpftrace.err &&
	test_cmp bpftrace.out sonde.out
}

P_COUNTS='tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @n = count(); @p[comm] = count(); }
tracepoint:syscalls:sys_enter_openat /pid == cpid && str(args->filename) == "/etc/hostname"/ { @f[str(args->filename)] = count(); @h = hist(args->flags + 1000); }
tracepoint:syscalls:sys_enter_write /pid == cpid/ { @w = sum(args->count); @l = lhist(args->count, 0, 10, 1); @s = stats(args->count); @a = avg(args->count * 3); @mx = max(args->fd); }
tracepoint:syscalls:sys_exit_write /pid == cpid/ { @r[args->ret] = count(); }'
if have_bpftrace; then
	test_expect_success 'syscall counts, sum, stats, avg, max, hist, lhist as bpftrace prints them' '
		compare "$P_COUNTS" "$W 1000" &&
		grep -q "^@n: 1000$" sonde.out && grep -q "^@w: 1000$" sonde.out
	'
	test_expect_success 'hist of a spread of values, keyed hist sorted by total' '
		P="tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @i++; @h = hist(@i); @k[@i % 3 == 0 ? \"a\" : \"b\"] = hist(@i * 1000); @l = lhist(@i, 0, 1000, 100); }" &&
		compare "$P" "$W 700"
	'
	test_expect_success 'printf of tracepoint fields, ternaries and strings in order' '
		P="tracepoint:syscalls:sys_enter_write /pid == cpid/ { @c++; printf(\"%d fd=%d n=%d %s\\n\", @c, args->fd > 2 ? 1 : 0, args->count, comm); }" &&
		compare "$P" "$W 5"
	'
	test_expect_success 'uprobe and uretprobe on a binary: arguments and return value' '
		P="uprobe:$W:main { printf(\"main argc=%d\\n\", arg0); } uretprobe:$W:main { printf(\"returned %d\\n\", retval); }" &&
		compare "$P" "$W 3 7" &&
		grep -q "returned 7" sonde.out
	'
	test_expect_success 'uprobe on a shared library by name (libc)' '
		P="uprobe:libc:syscall /pid == cpid/ { @ = count(); }" &&
		compare "$P" "$W 250" && grep -q "^@: 250$" sonde.out
	'
	test_expect_success 'json output (-f json) as bpftrace writes it' '
		P="tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @n = count(); @h = hist(5); @st = stats(2); @m[comm, 1] = sum(3); printf(\"x\\n\"); }" &&
		$SONDE probe -f json -e "$P" -c "$W 3" >sonde.out &&
		bpftrace -f json -e "$P" -c "$W 3" >bpftrace.out 2>/dev/null &&
		test_cmp bpftrace.out sonde.out
	'
	test_expect_success 'positional parameters' '
		P="BEGIN { printf(\"%d %s %d\\n\", \$1, str(\$2), \$#); exit(); }" &&
		$SONDE probe -e "$P" 42 hello >sonde.out &&
		bpftrace -e "$P" 42 hello >bpftrace.out 2>/dev/null &&
		test_cmp bpftrace.out sonde.out
	'
	test_expect_success '-l lists the tracepoints bpftrace lists' '
		$SONDE probe -l "tracepoint:sched:*" | sort >sonde.out &&
		bpftrace -l "tracepoint:sched:*" 2>/dev/null | sort >bpftrace.out &&
		test_cmp bpftrace.out sonde.out && [ $(wc -l <sonde.out) -gt 5 ]
	'
else
	test_skip 'comparisons with bpftrace' 'bpftrace is not installed (scripts/deps.sh test)'
fi

test_expect_success 'sys_enter_* (hundreds of probes) counts exactly and exits in seconds, not bpftrace'"'"'s minutes' '
	start=$(date +%s) &&
	$SONDE probe -e "tracepoint:syscalls:sys_enter_* /pid == cpid/ { @[probe] = count(); }" -c "$W 100" >out &&
	end=$(date +%s) && [ $((end - start)) -lt 10 ] &&
	grep -q "^Attaching [0-9][0-9][0-9] probes" out &&
	grep -q "^@\[tracepoint:syscalls:sys_enter_getppid\]: 100$" out &&
	grep -q "^@\[tracepoint:syscalls:sys_enter_write\]: 100$" out
'

test_expect_success 'syscall tracepoints on raw_syscalls read what perf-event tracepoints read' '
	P="t:syscalls:sys_exit_getppid,t:syscalls:sys_exit_write,t:syscalls:sys_exit_close /pid == cpid/ { @[probe, args->ret > 0] = count(); } t:syscalls:sys_enter_openat /pid == cpid/ { @o[str(args->filename), args->flags, args->__syscall_nr] = count(); }" &&
	$SONDE probe -e "$P" -c "$W 50" >raw.out &&
	SONDE_PROBE_PERF_TRACEPOINTS=1 $SONDE probe -e "$P" -c "$W 50" >perf.out &&
	sort raw.out >a && sort perf.out >b && test_cmp b a &&
	grep -q "^@\[tracepoint:syscalls:sys_exit_write, 1\]: 50$" raw.out &&
	grep -q "^@o\[/etc/hostname, 0, 257\]: 50$" raw.out
'

test_expect_success 'args.field (current spelling) reads what args->field reads' '
	$SONDE probe -e "t:syscalls:sys_enter_write /pid == cpid/ { @a = sum(args.count); @b = sum(args->count); }" -c "$W 321" >out &&
	grep -q "^@a: 321$" out && grep -q "^@b: 321$" out
'

test_expect_success 'rawtracepoint: every getppid of the workload (bpftrace 0.17 has no raw tracepoints)' '
	$SONDE probe -e "rawtracepoint:sys_enter /pid == cpid && arg1 == 110/ { @ = count(); }" -c "$W 432" >out &&
	grep -q "^@: 432$" out
'

test_expect_success 'interval and profile fire; exit() ends the run' '
	timeout 20 $SONDE probe -e "interval:ms:50 { @i++; if (@i == 3) { exit(); } } profile:hz:99 { @p = count(); }" >out &&
	grep -q "^@i: 3$" out && grep -q "^@p: [0-9]" out
'

test_expect_success 'software events: page faults of a command' '
	$SONDE probe -e "software:page-faults:1 /pid == cpid/ { @ = count(); }" -c "$W 10" >out &&
	grep -q "^@: [1-9]" out
'

test_expect_success 'kstack in a tracepoint: symbolized frames indented by 4 in keys' '
	$SONDE probe -e "t:syscalls:sys_enter_getppid /pid == cpid/ { @[kstack] = count(); }" -c "$W 20" >out &&
	grep -q "^    [a-z_0-9.]*+[0-9]*$" out && grep -q "^\]: 20$" out
'

# syscalls:sys_enter_X runs as a raw tracepoint: its stacks skip the program,
# bpf_trace_run2 and __bpf_trace_sys_enter frames and so are the perf-event
# tracepoint's (bpftrace's way) without its own perf_syscall_enter frame
test_expect_success 'kstack of a syscall tracepoint: the perf-event tracepoint'"'"'s frames after perf_syscall_enter, no BPF frames' '
	SONDE_PROBE_PERF_TRACEPOINTS=1 $SONDE probe -e "t:syscalls:sys_enter_getppid /pid == cpid/ { @[kstack(6)] = count(); }" -c "$W 20" >perf.out &&
	$SONDE probe -e "t:syscalls:sys_enter_getppid /pid == cpid/ { @[kstack(3)] = count(); }" -c "$W 20" >raw.out &&
	$SONDE probe -e "rt:sys_enter /pid == cpid && arg1 == 110/ { @[kstack(3)] = count(); }" -c "$W 20" >rt.out &&
	for f in perf raw rt; do grep "^    " $f.out | grep -v "^    __traceiter_sys_enter+" >$f.frames || exit 1; done &&
	head -1 perf.frames | grep -q "^    perf_syscall_enter+" &&
	sed 1d perf.frames | head -n $(wc -l <raw.frames) >want && test_cmp want raw.frames && test_cmp want rt.frames &&
	[ $(wc -l <raw.frames) -ge 2 ] && grep -q "^\]: 20$" raw.out
'

test_expect_success 'ustack of a process that has exited is symbolized (bpftrace prints addresses)' '
	$SONDE probe -e "profile:hz:999 /pid == cpid/ { @[ustack(4)] = count(); }" -c "$EXAMPLES/demo 1" >out &&
	grep -q "^    hot_loop+[0-9]*$" out && grep -q "^    main+[0-9]*$" out
'

test_expect_success '-p PID: a uprobe fires in that process only' '
	$EXAMPLES/demo 3 >/dev/null &
	d1=$!
	$EXAMPLES/demo 3 >/dev/null &
	d2=$!
	sleep 0.3 &&
	$SONDE probe -p $d1 -e "uprobe:$EXAMPLES/demo:cold_path { @[pid] = count(); } interval:ms:700 { exit(); }" >out;
	kill $d1 $d2; wait $d1 $d2 2>/dev/null || :; cat out;
	grep -q "^@\[$d1\]: [1-9]" out && ! grep -q "^@\[$d2\]" out
'

test_expect_success 'uprobe wildcards: every matching function, each with its probe name' '
	$SONDE probe -e "uprobe:$EXAMPLES/demo:*_loop /pid == cpid/ { @[func] = count(); }" -c "$EXAMPLES/demo 1" >out &&
	grep -q "^@\[hot_loop\]: [1-9]" out && grep -q "^@\[warm_loop\]: [1-9]" out && [ $(grep -c "^@\[" out) -eq 2 ]
'

test_expect_success 'Ctrl-C (SIGINT) ends the run and prints the maps' '
	$SONDE probe -e "interval:ms:10 { @ticks = count(); }" >out 2>err &
	pid=$! && sleep 1 && kill_ready INT $pid && wait $pid &&
	grep -q "^@ticks: [0-9]" out
'

test_expect_success 'kprobe: a clear error on a kernel without kprobes' '
	if [ -e /sys/bus/event_source/devices/kprobe ]; then exit 0; fi
	! $SONDE probe -e "kprobe:do_sys_openat2 { @ = count(); }" 2>err &&
	grep -q "this kernel has no kprobes" err && [ $(wc -l <err) -eq 1 ]
'

test_expect_success 'hardware: a clear error without a PMU' '
	if $SONDE probe -e "hardware:cycles:100000 { exit(); }" >out 2>err; then exit 0; fi
	grep -q "no hardware PMU" err
'

test_expect_success '-v shows the bytecode, --dry-run loads nothing' '
	$SONDE probe -v --dry-run -e "BEGIN { @x = count(); }" >out &&
	grep -q "call 1$" out && grep -q "exit$" out && ! grep -q Attaching out
'

test_expect_success 'a script file with a shebang-style comment and params' '
	printf "#!/usr/bin/env bpftrace\n// a tool\nBEGIN {\n  printf(\"%%s\\\\n\", str(\$1));\n  exit();\n}\n" >t.bt &&
	$SONDE probe t.bt world >out && grep -q "^world$" out
'

test_expect_success 'garbage programs: one error, no crash' '
	for p in "\x01\x02" "BEGIN {{{{" "@@@@" "BEGIN { printf(\"%\"); }" "tracepoint:" "u:::" ")" "BEGIN { \$x = (1,(2,3)) + 1; }"; do
		printf "%b" "$p" >g.bt
		rc=0; $SONDE probe --dry-run g.bt >out 2>err || rc=$?
		[ $rc -eq 1 ] || { echo "rc $rc for $p"; exit 1; }
		grep -q "error" err || { cat err; exit 1; }
	done
'
test_expect_success 'stack modes: ustack(perf, N) as bpftrace prints it, raw addresses, an empty kstack is ""' '
	P="uprobe:$EXAMPLES/demo:cold_path { print(ustack(perf, 2)); print(kstack(perf)); printf(\"X\\n\"); exit(); }" &&
	$SONDE probe -e "$P" -c "$EXAMPLES/demo 1" | sed -E "s/^\t[0-9a-f]+ /\tADDR /" >sonde.out &&
	printf "Attaching 1 probe...\n\n\tADDR cold_path+0 ($EXAMPLES/demo)\n\tADDR main+90 ($EXAMPLES/demo)\n\n\nX\n\n\n" >exp &&
	test_cmp exp sonde.out &&
	if have_bpftrace; then
		bpftrace -e "$P" -c "$EXAMPLES/demo 1" 2>/dev/null | sed -E "s/^\t[0-9a-f]+ /\tADDR /" >bpftrace.out &&
		test_cmp bpftrace.out sonde.out
	fi &&
	$SONDE probe -e "uprobe:$EXAMPLES/demo:cold_path { print(ustack(raw, 2)); exit(); }" -c "$EXAMPLES/demo 1" >raw.out &&
	[ $(grep -cE "^[0-9a-f]{6,16}$" raw.out) = 2 ]
'
test_expect_success 'usermode: a CPU-bound workload is sampled in user mode' '
	$SONDE probe -e "profile:hz:199 /pid == cpid/ { @[usermode] = count(); }" -c "$WORKLOADS/spin 0.5 1" >out 2>err &&
	# samples are CPU time: 100 idle, a tenth of that on a loaded machine; most in user mode
	n=$(sed -n "s/^@\[1\]: //p" out) && k=$(sed -n "s/^@\[0\]: //p" out) &&
	[ "${n:-0}" -ge 5 ] && [ "${n:-0}" -gt "${k:-0}" ]
'
test_expect_success 'options after the script file (bpftrace takes them anywhere), -- before a parameter like an option, $1 in an attach point' '
	printf "tracepoint:syscalls:sys_enter_\$1 /pid == cpid/ { @[\$#, str(\$2)] = count(); }\n" >p.bt &&
	$SONDE probe p.bt getppid -c "$W 7" -- -x >out 2>err &&
	grep -qx "@\[2, -x\]: 7" out
'
test_expect_success 'the probe builtin is whole however long the probe name (bpftrace prints it whole)' '
	d=$TMP/a-directory-with-a-long-name-so-that-the-probe-name-passes-64-bytes && mkdir -p $d && cp $W $d/ &&
	$SONDE probe -e "uprobe:$d/syscalls:main { printf(\"%s\\n\", probe); @[probe] = count(); }" -c "$d/syscalls 1" >out &&
	grep -qx "uprobe:$d/syscalls:main" out && grep -qx "@\[uprobe:$d/syscalls:main\]: 1" out
'
test_expect_success 'config stack_mode and BPFTRACE_STACK_MODE (the environment wins, as in bpftrace)' '
	P="config = { stack_mode = perf } uprobe:$EXAMPLES/demo:cold_path { print(ustack(2)); exit(); }" &&
	$SONDE probe -e "$P" -c "$EXAMPLES/demo 1" | sed -E "s/^\t[0-9a-f]+ /\tADDR /" >out &&
	grep -qxF "$(printf "\tADDR cold_path+0 (%s)" "$EXAMPLES/demo")" out &&
	BPFTRACE_STACK_MODE=raw $SONDE probe -e "$P" -c "$EXAMPLES/demo 1" >out && [ $(grep -cE "^[0-9a-f]{6,16}$" out) = 2 ] &&
	! BPFTRACE_MAX_STRLEN=999 $SONDE probe -e "BEGIN { exit(); }" 2>err &&
	grep -qx "sonde: BPFTRACE_MAX_STRLEN=999: max_strlen must be between 1 and 200 (the BPF stack is 512 bytes)" err
'
test_expect_success '-lv lists tracepoint fields as bpftrace -lv does, and kernel functions'"'"' parameters from BTF' '
	if have_bpftrace; then
		for tp in "tracepoint:syscalls:sys_enter_openat" "tracepoint:sched:sched_switch" "tracepoint:syscalls:sys_enter_read*"; do
			bpftrace -lv "$tp" >exp 2>/dev/null && $SONDE probe -lv "$tp" >got && test_cmp exp got || exit 1
		done
	fi &&
	$SONDE probe -lv "fexit:vfs_read" >got &&
	printf "fexit:vfs_read\n    struct file *file\n    char *buf\n    size_t count\n    loff_t *pos\n    ssize_t retval\n" >exp &&
	test_cmp exp got
'
test_expect_success 'pton() compared with a tracepoint'"'"'s address array, as bpftrace does' '
	printf "import socket\ns=socket.socket(); s.bind((\"127.0.0.1\",0)); s.listen()\nc=socket.create_connection(s.getsockname()); a,_=s.accept(); c.close(); a.close()\n" >tcp.py &&
	P="tracepoint:sock:inet_sock_set_state /args->saddr == pton(\"127.0.0.1\") && args->protocol == 6/ { @[ntop(args->saddr), args->saddr != pton(\"127.0.0.2\")] = count(); }" &&
	$SONDE probe -e "$P" -c "/usr/bin/python3 $TMP/tcp.py" >out &&
	grep -q "^@\[127.0.0.1, 1\]: [1-9]" out &&
	if have_bpftrace; then
		bpftrace -e "$P" -c "/usr/bin/python3 $TMP/tcp.py" >bt.out 2>/dev/null && test_cmp bt.out out
	fi
'
test_done
