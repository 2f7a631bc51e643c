#!/bin/bash
# sonde probe's string functions on strings a traced command makes (tests/lang/strs.test
# has the ones BEGIN can reach): a tracepoint's char array and __data_loc string, a
# syscall's user pointer; syscall_name() against the names of the kernel's own syscall
# tracepoints; assert()'s message and exit code; str_trunc_trailer from the environment.
# Expected values worked out by hand: the workload "syscalls 3" opens /etc/hostname 3
# times (/etc/hostname is 13 bytes long) and its comm is "syscalls". With max_strlen 8,
# strstr() of the pointer reads 8 bytes: "/etc/ho" is what it can find.
. "$(dirname "$0")/../lib.sh"

require_root 'sonde probe string functions'
W="$WORKLOADS/syscalls 3"

test_expect_success 'a tracepoint char array: strlen, strcap, globmatch, strstr, memcmp' '
	$SONDE probe -c "$W" -e "tracepoint:sched:sched_process_exit /args.pid == cpid/ { printf(\"%s %d %d %d %d %d %d\\n\", args.comm, strlen(args.comm), strcap(args.comm), globmatch(args.comm, \"sys*s\"), globmatch(args.comm, \"sys\"), strstr(args.comm, \"call\"), memcmp(args.comm, \"syscalls\", 9)); }" >out &&
	echo "syscalls 8 16 1 0 3 0" >want && grep -v "^Attaching\|^\$" out >got && test_cmp want got
'

test_expect_success 'a syscall argument in user memory: the pointer and str() of it' '
	$SONDE probe -c "$W" -e "tracepoint:syscalls:sys_enter_openat /pid == cpid && strstr(args.filename, \"host\") >= 0/ { @[str(args.filename), strlen(args.filename), globmatch(args.filename, \"/etc/host*\"), strstr(str(args.filename), \"name\"), globmatch(str(args.filename), \"*/[g-i]ost?ame\"), syscall_name(args.__syscall_nr)] = count(); }" >out &&
	echo "@[/etc/hostname, 13, 1, 9, 1, openat]: 3" >want && grep "^@" out >got && test_cmp want got
'

test_expect_success 'syscall_name of every syscall the command makes is its tracepoint name' '
	$SONDE probe -c "$W" -e "tracepoint:syscalls:sys_enter_* /pid == cpid/ { @[probe, syscall_name(args.__syscall_nr)] = count(); }" >out &&
	grep "^@\[" out | sed "s/^@\[tracepoint:syscalls:sys_enter_\([a-z0-9_]*\), \([a-z0-9_]*\)\]: [0-9]*\$/\1 \2/" >pairs &&
	test $(wc -l <pairs) -ge 10 &&
	grep -q "^getppid getppid\$" pairs && grep -q "^openat openat\$" pairs && grep -q "^exit_group exit_group\$" pairs &&
	awk "\$1 != \$2 { bad = 1; print \"mismatch: \" \$0 } END { exit bad }" pairs
'

test_expect_success 'syscall_name reads the syscall table trace decodes with (336 is uprobe)' '
	$SONDE probe -e "BEGIN { printf(\"%s %s %s %s\\n\", syscall_name(336), syscall_name(0), syscall_name(469), syscall_name(600)); exit(); }" >out &&
	echo "uprobe read file_setattr unknown" >want && sed -n 2p out >got && test_cmp want got
'

test_expect_success 'assert: a false condition prints its message on stderr, END runs, exit code 1' '
	{ $SONDE probe -e "BEGIN { assert(strlen(comm) == 3, \"comm is not 3 long\"); printf(\"not printed\\n\"); } END { printf(\"end\\n\"); }" >out 2>err; test $? = 1; } &&
	printf "Attaching 2 probes...\nend\n\n\n" >want && test_cmp want out &&
	echo "stdin:1:9-56: ERROR: assert failed: comm is not 3 long" >want && test_cmp want err
'

test_expect_success 'assert: a message made at run time, in a traced command' '
	{ $SONDE probe -c "$W" -e "tracepoint:sched:sched_process_exit /args.pid == cpid/ { assert(!globmatch(args.comm, \"sys*\"), args.comm); }" >out 2>err; test $? = 1; } &&
	echo "stdin:1:58-106: ERROR: assert failed: syscalls" >want && test_cmp want err
'

test_expect_success 'str_trunc_trailer: none by default, BPFTRACE_STR_TRUNC_TRAILER sets it and overrides config' '
	P="config = { max_strlen = 8; str_trunc_trailer = \"~\" } tracepoint:syscalls:sys_enter_openat /pid == cpid && strstr(args.filename, \"/etc/h\") == 0/ { printf(\"%s|%s\\n\", str(args.filename), str(args.filename, 3)); exit(); }" &&
	$SONDE probe -c "$W" -e "$P" >out && echo "/etc/ho~|/et" >want && sed -n 2p out >got && test_cmp want got &&
	BPFTRACE_STR_TRUNC_TRAILER=.. $SONDE probe -c "$W" -e "$P" >out && echo "/etc/ho..|/et" >want && sed -n 2p out >got && test_cmp want got &&
	BPFTRACE_STR_TRUNC_TRAILER= $SONDE probe -c "$W" -e "$P" >out && echo "/etc/ho|/et" >want && sed -n 2p out >got && test_cmp want got
'

test_expect_success 'globmatch: a pattern too long for bpf_loop is refused when compiling, a long one runs' '
	long=$(printf "%030000d" 0 | tr 0 a) &&
	! $SONDE probe --dry-run -e "config = { max_strlen = 200 } BEGIN { \$x = globmatch(str(uptr(curtask->mm->arg_start)), \"$long\"); }" 2>err &&
	grep -q "^stdin:1:44: error: globmatch() of strings of 200 and 30001 bytes can take 12120808 steps, more than bpf_loop.s 8388608" err &&
	$SONDE probe -e "BEGIN { printf(\"%d %d\\n\", globmatch(comm, \"*$(printf "%03000d" 0 | tr 0 a)\"), globmatch(\"$(printf "%03000d" 0 | tr 0 a)\", \"a*a?*\")); exit(); }" >out &&
	echo "0 1" >want && sed -n 2p out >got && test_cmp want got
'

test_done
