#!/bin/bash
# for ($kv : @map) on real tracepoints: the loop body is a BPF callback of
# bpf_for_each_map_elem that reads the probe's args, sums per-CPU counts over the
# CPUs and shares variables with the code around it; -v lists the callback.
# (tests/lang/formap.test has the language cases, run by t0700.)
. "$(dirname "$0")/../lib.sh"

require_root 'for over maps'

test_expect_success 'per-CPU counts summed over the CPUs, args read in the body (sys_enter_write)' '
	$SONDE probe -e "tracepoint:syscalls:sys_enter_write /pid == cpid/ {
		@w[args->fd] = count();
		\$n = 0; \$same = 0;
		for (\$kv : @w) { \$n += \$kv.1; if (\$kv.0 == args->fd) { \$same++; } }
		@most = max(\$n); @matched = sum(\$same);
	} END { clear(@w); }" -c "$WORKLOADS/syscalls 100" >out 2>err &&
	grep -qx "@most: 100" out && grep -qx "@matched: 100" out
'

test_expect_success 'string keys, printf once a count is reached (sys_enter_getppid)' '
	$SONDE probe -e "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ {
		@c[comm] = count();
		for (\$kv : @c) { if (\$kv.1 == 50) { printf(\"%s reached %d\\n\", \$kv.0, \$kv.1); } }
	} END { clear(@c); }" -c "$WORKLOADS/syscalls 80" >out 2>err &&
	grep -c reached out >n && echo 1 >expect && test_cmp expect n &&
	grep -qx "syscalls reached 50" out
'

test_expect_success 'two attach points, a counter and break in the body, exit() from it' '
	$SONDE probe -e "tracepoint:syscalls:sys_enter_getppid, tracepoint:syscalls:sys_enter_close /pid == cpid/ {
		@k[probe] = count(); \$t = 0; \$seen = 0;
		for (\$kv : @k) { \$seen++; \$t += \$kv.1; if (\$seen == 2) { break; } }
		@tot = max(\$t);
		for (\$kv : @k) { if (\$kv.1 >= 1000000) { exit(); } }
	} END { clear(@k); }" -c "$WORKLOADS/syscalls 100" >out 2>err &&
	tot=$(sed -n "s/^@tot: //p" out) && [ "$tot" -ge 200 ] && [ "$tot" -le 210 ]
'

test_expect_success 'every sys_enter_* program (tail-called by the dispatcher) with its callback' '
	$SONDE probe -e "tracepoint:syscalls:sys_enter_* /pid == cpid/ {
		@c[probe] = count(); \$t = 0; for (\$kv : @c) { \$t += \$kv.1; } @max = max(\$t);
	}" -c "$WORKLOADS/syscalls 50" >out 2>err &&
	grep -qx "@c\[tracepoint:syscalls:sys_enter_getppid\]: 50" out &&
	max=$(sed -n "s/^@max: //p" out) && sum=$(( $(sed -n "s/^@c\[.*\]: //p" out | paste -sd+) )) &&
	[ "$max" -gt 150 ] && [ "$max" = "$sum" ]
'

test_expect_success 'one probe iterates what another counts: (comm, path) keys, a string compared in the body' '
	$SONDE probe -e "tracepoint:syscalls:sys_enter_openat /pid == cpid/ { @files[comm, str(args->filename)] = count(); }
	tracepoint:syscalls:sys_exit_getppid /pid == cpid/ { @n++; if (@n == 10) {
		for (\$kv : @files) { if (\$kv.0.1 == \"/etc/hostname\") { printf(\"%s %s %d\\n\", \$kv.0.0, \$kv.0.1, \$kv.1); } } } }
	END { clear(@files); clear(@n); }" -c "$WORKLOADS/syscalls 20" >out 2>err &&
	echo "syscalls /etc/hostname 9" >expect && grep hostname out >got && test_cmp expect got
'

test_expect_success 'a uprobe (a kprobe-type program) with a for loop, exit() after three calls' '
	$SONDE probe -e "uprobe:$EXAMPLES/demo:cold_path { @c[tid] = count(); \$t = 0;
		for (\$kv : @c) { \$t += \$kv.1; } @max = max(\$t); if (\$t >= 3) { exit(); } }" \
		-c "$EXAMPLES/demo" >out 2>err &&
	max=$(sed -n "s/^@max: //p" out) && [ "$max" -ge 3 ] &&
	sum=$(( $(sed -n "s/^@c\[[0-9]*\]: //p" out | paste -sd+) )) && [ "$max" = "$sum" ]
'

test_expect_success '-v lists the callback after the main program' '
	$SONDE probe --dry-run -v -e "BEGIN { @m[1] = 2; for (\$kv : @m) { print(\$kv); } }" >out 2>err &&
	grep -q "call 164\$" out && grep -q "^; subprogram 1 (a for loop.s callback)\$" out &&
	grep -q "r2 = func [0-9]* ll" out
'

test_expect_success 'a program without for loops has no subprogram' '
	$SONDE probe --dry-run -v -e "BEGIN { @m[1] = 2; }" >out 2>err &&
	! grep -q subprogram out
'

test_expect_success 'the callback runs on the CPU the probe fires on: profile probes on every CPU' '
	$SONDE probe -e "profile:hz:99 { @c[cpu] = count(); \$t = 0; for (\$kv : @c) { \$t += \$kv.1; } @all = max(\$t); }
		interval:ms:300 { exit(); }" >out 2>err &&
	all=$(sed -n "s/^@all: //p" out) && sum=$(( $(sed -n "s/^@c\[[0-9]*\]: //p" out | paste -sd+) )) &&
	[ "$all" -gt 0 ] && [ "$all" = "$sum" ]
'
test_done
