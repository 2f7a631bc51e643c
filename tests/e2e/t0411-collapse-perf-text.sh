#!/bin/bash
# sonde collapse on perf script text folds as stackcollapse-perf.pl does
# (issue 22, FlameGraph's own test inputs are its yardstick): the older
# layouts (no time, no cpu, frames not indented, "COMM TID" without a pid),
# stacks weighed by the period perf script prints, functions with spaces and
# parentheses or none at all, unknown frames named by their module (--addrs:
# with the address), _[k] for [kernel...] and .../vmlinux, _[j] for
# /tmp/perf-PID.map, java's "L" dropped, an "a->b" chain's later names
# inlined, the first event kept, and a sample cut off at the end left out.
# The inputs are made up; each expected line was checked against
# stackcollapse-perf.pl itself.
. "$(dirname "$0")/../lib.sh"

cat >"$TMP/old.txt" <<'EOF'
# an old perf script: no time, no cpu, frames not indented
javaapp 4242 cycles:
ffffffff81001000 native_write_msr ([kernel.kallsyms])
7f0000001000 Lcom/example/Work;.run()V (/tmp/perf-4242.map)
7f0000002000 Interpreter (/tmp/perf-4242.map)
7f0000003000 start_thread (/lib/libpthread.so.0)

java 77 cpu-clock: 
	    7f0000004000  (/lib/libc.so.6)
	    7f0000005000 Lorg/demo/Io;.write([B)I (/tmp/perf-77.map)
	    7f0000006000 std::vector<int>::push_back(int const&) (/opt/app/bin/app)
	    7f0000007000 [unknown] (/opt/app/lib/libz.so.1)
	    7f0000008000 [unknown] ([unknown])

swapper     0 [001]  1333.768770: cpu-clock: 
	ffffffff8100a000 xen_hypercall_sched_op (/lib/modules/4.3.0/build/vmlinux)
	ffffffff8100b000 default_idle+0x20 ([kernel.kallsyms])
	ffffffff8100c000 cpu_startup_entry (/lib/modules/4.3.0/build/vmlinux)

EOF

cat >"$TMP/new.txt" <<'EOF'
my worker 12/34 [002] 10.000001:     250000 cpu-clock:pppH: 
	    5000 leaf+0x10 (/bin/w)
	    6000 mid->inl1->inl2 (inlined) (/bin/w)
	    7000 main (/bin/w)

my worker 12/35 [002] 10.000002:     250000 cpu-clock:pppH: 
	    5000 leaf+0x10 (/bin/w)
	    6000 mid->inl1->inl2 (inlined) (/bin/w)
	    7000 main (/bin/w)

my worker 12/34 [002] 10.000003:          0 cpu-clock:pppH: 
	    7000 main (/bin/w)

my worker 12/34 [002] 10.000004:          3 page-faults: 
	    8000 faulter (/bin/w)

my worker 12/34 [002] 10.000005:     250000 cpu-clock:pppH: 
	    9000 cut_short (/bin/w)
EOF

# fold $1 with options $2... and compare with stdin
folds() {
	in=$1
	shift
	cat >expect &&
	$SONDE collapse "$@" <"$TMP/$in" >out 2>err &&
	test_cmp expect out
}

test_expect_success 'old layouts: no time, unindented frames, COMM TID as comm-?/TID' '
	folds old.txt --tid <<-\EOF &&
	java-?/77;[unknown];[libz.so.1];std::vector<int>::push_back;org/demo/Io:.write;  1
	javaapp-?/4242;start_thread;Interpreter;com/example/Work:.run;native_write_msr 1
	swapper-?/0;cpu_startup_entry;default_idle;xen_hypercall_sched_op 1
	EOF
	[ ! -s err ]
'

test_expect_success '--all: _[k] on [kernel.kallsyms] and vmlinux frames, _[j] on /tmp/perf-PID.map ones' '
	folds old.txt --all <<-\EOF
	java;[unknown];[libz.so.1];std::vector<int>::push_back;org/demo/Io:.write_[j];  1
	javaapp;start_thread;Interpreter_[j];com/example/Work:.run_[j];native_write_msr_[k] 1
	swapper;cpu_startup_entry_[k];default_idle_[k];xen_hypercall_sched_op_[k] 1
	EOF
'

test_expect_success '--addrs: unknown frames keep their address' '
	folds old.txt --addrs --pid <<-\EOF
	java-?;[unknown <7f0000008000>];[libz.so.1 <7f0000007000>];std::vector<int>::push_back;org/demo/Io:.write;  1
	javaapp-?;start_thread;Interpreter;com/example/Work:.run;native_write_msr 1
	swapper-?;cpu_startup_entry;default_idle;xen_hypercall_sched_op 1
	EOF
'

test_expect_success 'periods weigh the stacks (0: 1); the sample cut off at the end is left out' '
	folds new.txt <<-\EOF &&
	my_worker;main 1
	my_worker;main;mid;inl1_[i];inl2 _[i];leaf 500000
	EOF
	grep -q "keeping .cpu-clock:pppH. only" err &&
	folds new.txt --tid --all <<-\EOF
	my_worker-12/34;main 1
	my_worker-12/34;main;mid;inl1_[i];inl2 _[i];leaf 250000
	my_worker-12/35;main;mid;inl1_[i];inl2 _[i];leaf 250000
	EOF
'

test_expect_success '--event-filter: the other event, weighed by its own periods' '
	folds new.txt --event-filter page-faults <<-\EOF
	my_worker;faulter 3
	EOF
'
test_done
