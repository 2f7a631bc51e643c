#!/bin/bash
# sonde probe with the kernel's types from BTF: curtask, casts to struct pointers,
# members, bitfields, arrays, dereferences of user pointers in uprobes, and the
# fentry/fexit probes (which this kernel refuses: the VM runs them, tests/vm/t0701).
. "$(dirname "$0")/../lib.sh"

require_root 'BTF types'
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	test_skip 'BTF types' 'this kernel has no BTF'
	test_done
	exit
fi
FIXTURE=$ROOT/tests/fixtures/probe-cstruct.bt
LIBC=$(ldd $EXAMPLES/demo | awk '/libc.so/ { print $3 }')

probe_err() {	# probe_err PROGRAM EXPECTED-FIRST-LINE
	! $SONDE probe --dry-run -e "$1" >out 2>err &&
	head -1 err >first && echo "$2" >exp && test_cmp exp first
}

test_expect_success 'a user struct read through a uprobe argument: nanosleep(&{0, 5 ms}) in the demo' '
	$SONDE probe -e "uprobe:$LIBC:nanosleep /pid == cpid/ { printf(\"%d %d %d\\n\", ((struct __kernel_timespec *)arg0)->tv_nsec, *(int64 *)arg0, *((int64 *)arg0 + 1)); exit(); }" \
		-c "$EXAMPLES/demo 2" >out 2>err &&
	grep -qx "5000000 0 5000000" out
'
test_expect_success 'the same with bpftrace, when it is installed' '
	if ! have_bpftrace; then echo "no bpftrace: not compared"; exit 0; fi
	P="uprobe:$LIBC:nanosleep /pid == cpid/ { printf(\"%d\\n\", ((struct __kernel_timespec *)arg0)->tv_nsec); exit(); }" &&
	timeout 30 bpftrace -e "$P" -c "$EXAMPLES/demo 2" 2>/dev/null | grep -v "^$" >exp &&
	$SONDE probe -e "$P" -c "$EXAMPLES/demo 2" 2>/dev/null | grep -v "^$" >got && test_cmp exp got
'
test_expect_success 'a tracepoint field that points to a struct is typed from BTF (syscalls: user memory)' '
	P="tracepoint:syscalls:sys_enter_clock_nanosleep /pid == cpid/ { printf(\"%d %d\\n\", args->rqtp->tv_sec, args->rqtp->tv_nsec); exit(); }" &&
	$SONDE probe -e "$P" -c "$EXAMPLES/demo 1" >out 2>err && grep -qx "0 5000000" out &&
	SONDE_PROBE_PERF_TRACEPOINTS=1 $SONDE probe -e "$P" -c "$EXAMPLES/demo 1" >out 2>err && grep -qx "0 5000000" out
'
test_expect_success 'a plain integer dereferenced reads 8 bytes (loads.bt'"'"'s *kaddr())' '
	$SONDE probe -e "uprobe:$LIBC:nanosleep /pid == cpid/ { \$a = arg0; printf(\"%d %d\\n\", *\$a, *(\$a + 8)); exit(); }" -c "$EXAMPLES/demo 1" >out 2>err &&
	grep -qx "0 5000000" out
'
test_expect_success 'a tracepoint reads the task that the scheduler switches from' '
	$SONDE probe -e "tracepoint:sched:sched_switch /args->prev_pid == cpid/ { @[curtask->pid == args->prev_pid, curtask->comm] = count(); }" \
		-c "$EXAMPLES/demo 2" >out 2>err &&
	grep -q "^@\[1, demo\]: [0-9]" out
'
test_expect_success 'structs and unions the script defines: members, arrays, bitfields, nested, self-referential' '
	$SONDE probe "$FIXTURE" -c "$EXAMPLES/demo 1" "$LIBC" >out 2>err &&
	printf "Attaching 1 probe...\n5000000 5000000 0 180 1220 5000000\n\n\n" >exp && test_cmp exp out &&
	if have_bpftrace; then
		bpftrace "$FIXTURE" -c "$EXAMPLES/demo 1" "$LIBC" >bt.out 2>/dev/null && test_cmp bt.out out
	fi
'
test_expect_success 'script structs: sizes laid out as C lays them out (bpftrace agrees)' '
	cat >s.bt <<-\EOF &&
	struct a { char c; long l; short s; };
	struct b { int x:3, y:30; char z; };
	union c { char c[5]; int i; };
	struct d { struct a a; union c c[3]; void *p; unsigned char e; };
	BEGIN { printf("%d %d %d %d\n", sizeof(struct a), sizeof(struct b), sizeof(union c), sizeof(struct d)); exit(); }
	EOF
	$SONDE probe s.bt >out && grep -qx "24 12 8 64" out
'
test_expect_success 'script structs: errors name the member and its type' '
	printf "struct a { struct nosuch x; };\nBEGIN { exit(); }\n" >e.bt &&
	! $SONDE probe --dry-run e.bt 2>err &&
	head -1 err >got && echo "e.bt:1:26: error: unknown type '"'"'struct nosuch'"'"' (neither a C type, a struct defined before, nor one in the kernel'"'"'s BTF)" >exp &&
	test_cmp exp got
'
test_expect_success 'uprobe args.NAME typed from the binary'"'"'s DWARF (user struct followed through pointers), as bpftrace' '
	P="uprobe:$WORKLOADS/dwargs:take { printf(\"%d %ld %d %d %u %d %d %s\\n\", args->p->x, args->p->y, args->u, args->c, args->t, args->col, args->p->next->x, args->p->tag); exit(); }" &&
	$SONDE probe -e "$P" -c "$WORKLOADS/dwargs 2" >out 2>err &&
	grep -qx "7 -9000000000 65535 -5 4000000000 5 3 pt" out &&
	if have_bpftrace; then
		bpftrace -e "$P" -c "$WORKLOADS/dwargs 2" 2>/dev/null | grep -x "7 .*" >bt.out && grep -x "7 .*" out >s.out && test_cmp bt.out s.out
	fi
'
test_expect_success 'uprobe -lv: the parameters as bpftrace -lv prints them; -l sorted, named by the path given' '
	$SONDE probe -lv "uprobe:$WORKLOADS/dwargs:take" >got &&
	printf "uprobe:%s:take\n    const char* name\n    struct point* p\n    short unsigned int u\n    signed char c\n    u32_t t\n    enum color col\n" "$WORKLOADS/dwargs" >exp &&
	test_cmp exp got &&
	if have_bpftrace; then
		for p in "uprobe:$WORKLOADS/dwargs:*" "uprobe:/bin/bash:read*"; do
			bpftrace -lv "$p" >exp 2>/dev/null && $SONDE probe -lv "$p" >got && test_cmp exp got || exit 1
		done
	fi
'
test_expect_success 'uprobe args.NAME: errors for a missing parameter and a binary without DWARF' '
	probe_err "uprobe:$WORKLOADS/dwargs:take { print(args.nope); }" "stdin:1:$((${#WORKLOADS} + 34)): error: take() has no parameter '"'"'nope'"'"' in the DWARF of '"'"'$WORKLOADS/dwargs'"'"'" &&
	probe_err "uprobe:/bin/bash:readline { print(args.x); }" "stdin:1:40: error: '"'"'/usr/bin/bash'"'"' has no DWARF: a uprobe'"'"'s args.NAME needs its debug information (arg0..arg5 do not)"
'
test_expect_success 'macaddr() of a 6-byte array in a script struct and of an address, as bpftrace prints them' '
	printf "struct m { int x; long y; unsigned char mac[6]; };\nuprobe:%s:take { \$m = (struct m *)arg1; printf(\"%%s %%s\\\\n\", macaddr(\$m->mac), macaddr(arg1)); @[macaddr(\$m->mac)] = count(); exit(); }\n" "$WORKLOADS/dwargs" >mac.bt &&
	$SONDE probe mac.bt -c "$WORKLOADS/dwargs 1" | grep -v "^4000065646$" >out &&
	printf "Attaching 1 probe...\n70:74:00:00:00:00 07:00:00:00:00:00\n\n\n@[70:74:00:00:00:00]: 1\n" >exp && test_cmp exp out &&
	if have_bpftrace; then
		bpftrace mac.bt -c "$WORKLOADS/dwargs 1" 2>/dev/null | grep -v "^4000065646$" >bt.out && test_cmp bt.out out
	fi
'
test_expect_success 'errors: a member that does not exist' '
	probe_err "BEGIN { print(curtask->pidd); }" "stdin:1:24: error: struct task_struct has no member '"'"'pidd'"'"'"
'
test_expect_success 'errors: a struct type that does not exist' '
	probe_err "BEGIN { print(((struct nosuch *)0)->x); }" "stdin:1:16: error: unknown type '"'"'struct nosuch'"'"': the kernel'"'"'s BTF has no such type (only kernel types can be named here)"
'
test_expect_success '. on a pointer reaches through it (current bpftrace), -> on a struct is an error' '
	$SONDE probe -e "BEGIN { printf(\"%d %d\\n\", curtask.pid == curtask->pid, curtask.real_parent.pid == curtask->real_parent->pid); exit(); }" >out &&
	grep -qx "1 1" out &&
	probe_err "BEGIN { print(curtask->se->on_rq); }" "stdin:1:28: error: this is a struct, not a pointer: use '"'"'.'"'"' to reach its member"
'
test_expect_success 'errors: a struct cannot be copied into a variable or a map' '
	probe_err "BEGIN { \$t = *curtask; }" "stdin:1:12: error: a kernel struct, union or array cannot be copied: keep a pointer to it, or read its members" &&
	probe_err "BEGIN { @t = curtask->se; }" "stdin:1:12: error: a kernel struct, union or array cannot be copied: keep a pointer to it, or read its members"
'
test_expect_success 'errors: void pointers and plain integers have no members' '
	probe_err "BEGIN { print(*(void *)0); }" "stdin:1:15: error: a void pointer cannot be dereferenced: cast it to a pointer to a type first" &&
	probe_err "BEGIN { print(pid->x); }" "stdin:1:20: error: a uint64 has no fields (cast it to a pointer to a kernel struct first: ((struct task_struct *)arg0)->pid)"
'
test_expect_success 'an array index beyond the array reads as 0, within it reads the element' '
	$SONDE probe -e "BEGIN { \$i = 1000; printf(\"%d %d\\n\", curtask->mm->saved_auxv[\$i], curtask->mm->saved_auxv[0]); exit(); }" >out 2>err &&
	grep -qx "0 33" out
'
test_expect_success 'fentry: listed from BTF with -l' '
	$SONDE probe -l "fentry:vfs_rea*" >out && grep -qx "fentry:vfs_read" out &&
	$SONDE probe -l "kfunc:vfs_read" >out && grep -qx "fentry:vfs_read" out
'
test_expect_success 'fentry: args typed from BTF, errors named' '
	$SONDE probe --dry-run -e "fentry:vfs_read { @[comm] = sum(args.count); } fexit:vfs_read { @r = hist(retval); }" &&
	probe_err "fentry:vfs_read { print(args.nope); }" "stdin:1:30: error: vfs_read() has no parameter '"'"'nope'"'"'" &&
	probe_err "fentry:no_such_function_here { }" "stdin:1:1: error: the kernel has no function '"'"'no_such_function_here'"'"' (none in its BTF)" &&
	probe_err "fentry:vfs_read { print(retval); }" "stdin:1:25: error: '"'"'retval'"'"' is only available in uretprobes, kretprobes and fexit probes"
'
test_expect_success 'fentry: runs where the kernel has trampolines, or one clear line where it refuses them' '
	rc=0 && $SONDE probe -e "fentry:vfs_read /pid == cpid/ { @n = count(); }" -c "$WORKLOADS/syscalls 10" >out 2>err || rc=$?
	if [ $rc = 0 ]; then grep -q "^@n: [1-9]" out
	else [ $(wc -l <err) = 1 ] && grep -q "this kernel refuses fentry/fexit programs" err
	fi
'
# a branch a constant drops is checked without parsing the kernel's BTF for curtask's members
# (5-10 ms of start-up); code that reads what it assigned is compiled again with the BTF
test_expect_success 'syscount: its dropped -P branch reads curtask, yet the kernel BTF is never parsed' '
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 &&	# LeakSanitizer cannot run under ptrace
	strace -f -e trace=openat -o trace $SONDE syscount -d 1 >out &&
	grep -q "^SYSCALL  *COUNT$" out && ! grep vmlinux trace &&
	strace -f -e trace=openat -o trace $SONDE syscount -P -d 1 >out &&
	grep -q "^PID    COMM  *COUNT$" out && grep -q "btf/vmlinux" trace
'
test_expect_success 'what a dropped branch assigned from curtask and live code reads: 0 and "", as before' '
	$SONDE probe -e "BEGIN { if (0) { @x = curtask->pid; \$t = curtask->comm; } printf(\"%d [%s]\n\", @x, \$t); exit(); }" >out &&
	printf "Attaching 1 probe...\n0 []\n\n\n\n" >expect && test_cmp expect out &&
	$SONDE probe -e "BEGIN { if (1) { @c[1] = curtask->pid > 0; } else { @c[2] = curtask->group_leader->pid; } exit(); }" >out &&
	grep -qx "@c\[1\]: 1" out && ! grep -q "@c\[2\]" out
'
test_expect_success 'biolatency: casts, struct members and enumerators only its options use leave the BTF unparsed' '
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 &&
	strace -f -e trace=openat -o trace $SONDE biolatency 1 1 >out &&
	grep -q "^Tracing block device I/O" out && ! grep vmlinux trace &&
	strace -f -e trace=openat -o trace $SONDE biolatency -F 1 1 >out &&
	grep -q "^Tracing block device I/O" out && grep -q "btf/vmlinux" trace
'
test_expect_success 'kernel types of code not generated: what live code reads of them is compiled with the BTF' '
	$SONDE probe -e "BEGIN { if (0) { \$r = (struct task_struct *)curtask; @e = TASK_COMM_LEN; \$n = \$r->comm; }
		\$r = (struct task_struct *)curtask; printf(\"%d %d\n\", \$r->pid > 0, @e); exit(); }" >out &&
	grep -qx "1 0" out &&
	$SONDE probe -e "BEGIN { if (0) { \$r = (struct task_struct *)curtask; } printf(\"%d\n\", \$r->pid); exit(); }" >out &&
	grep -qx "0" out
'
test_expect_success 'a probe its constant predicate turns off is neither loaded nor parsed for BTF' '
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 &&
	strace -f -e trace=openat,bpf -o trace $SONDE probe -e "tracepoint:sched:sched_switch /0/ {
		@s[((struct task_struct *)curtask)->pid] = count(); } BEGIN { printf(\"ok\n\"); exit(); }" >out &&
	grep -qx ok out && ! grep -q btf/vmlinux trace &&
	grep -q "prog_name=\"sonde_BEGIN\"" trace && ! grep -q "prog_name=\"sonde_tracepoi" trace
'
test_expect_success 'maps are as large as what can be stored: one key for a scalar, the buckets of a histogram' '
	$SONDE probe --unsafe -e "BEGIN { @x = 1; @h = hist(5); @l = lhist(5, 0, 100, 10); @k[pid] = count(); if (0) { @d[1] = 2; }
		system(\"bpftool map list\"); exit(); }" >out &&
	grep -A1 " name x " out | grep -q "max_entries 1 " &&
	grep -A1 " name h " out | grep -q "max_entries 68 " &&
	grep -A1 " name l " out | grep -q "max_entries 13 " &&
	grep -A1 " name k " out | grep -q "max_entries 4096 " &&
	grep -A1 " name d " out | grep -q "max_entries 1 "
'
test_done
