#!/bin/bash
# sonde probe's kernel-type features that need what this machine's kernel lacks:
# socket_cookie() in fentry (BPF trampolines), percpu_kaddr() (per-CPU symbols in
# kallsyms: CONFIG_KALLSYMS_ALL), and the iterators on another kernel (6.1).
. "$(dirname "$0")/../lib.sh"

if ! $SONDE probe -e 'fentry:vfs_write { exit(); }' -c true >/dev/null 2>err; then
	test_skip 'socket_cookie in fentry' "this kernel refuses fentry: $(head -1 err)"
else
	test_expect_success 'socket_cookie(): the cookies user space reads with SO_COOKIE (sock_def_readable of each receiver)' '
		$SONDE probe -e "fentry:sock_def_readable /pid == cpid/ { printf(\"sonde %llu\\n\", socket_cookie(args.sk)); }" \
			-c "$WORKLOADS/sockcookie 5" >out 2>err &&
		grep "^cookie " out | awk "NR % 2 == 0 { print \$2 }" >want &&
		sed -n "s/^sonde //p" out >got &&
		test "$(wc -l <want)" = 5 && test_cmp want got
	'
	test_expect_success 'socket_cookie() of a number the verifier cannot see as a socket: the kernel says no' '
		! $SONDE probe -e "fentry:sock_def_readable { @ = socket_cookie(pid); }" -c true >out 2>err &&
		grep -q "refused the program" err
	'
fi
if grep -qw kstat /proc/kallsyms; then
	test_expect_success 'percpu_kaddr(): kstat'"'"'s softirq counts of CPU 0 between two reads of /proc/softirqs' '
		a=$(awk "\$1 == \"TIMER:\" { print \$2 }" /proc/softirqs) &&
		$SONDE probe -e "BEGIN { \$k = (struct kernel_stat *)percpu_kaddr(\"kstat\", 0); printf(\"%llu\\n\", \$k->softirqs[1]); exit(); }" >out 2>err &&
		b=$(awk "\$1 == \"TIMER:\" { print \$2 }" /proc/softirqs) &&
		v=$(sed -n 2p out) && test "$v" -ge "$a" && test "$v" -le "$b"
	'
	test_expect_success 'percpu_kaddr(): this CPU'"'"'s copy, and a CPU past the last: NULL' '
		$SONDE probe -e "BEGIN { printf(\"%d %d\\n\", percpu_kaddr(\"kstat\") != 0, percpu_kaddr(\"kstat\", 4096) == 0); exit(); }" >out 2>err &&
		grep -qx "1 1" out
	'
else
	test_skip 'percpu_kaddr' 'no per-CPU symbols in /proc/kallsyms'
fi
test_expect_success 'iter:task on this kernel: sonde itself among the tasks' '
	$SONDE probe -e "iter:task { printf(\"%d %s\\n\", ctx.task.pid, ctx.task.comm); }" >out 2>err &&
	grep -q " sonde$" out && grep -qx "2 kthreadd" out
'
test_expect_success 'iter:task_file on this kernel: a process'"'"'s fds and their paths (bpf_d_path)' '
	exec 7</etc/hostname &&
	$SONDE probe -e "iter:task_file /ctx.task.pid == $BASHPID/ { printf(\"%d %s\\n\", ctx.fd, path(ctx.file.f_path)); }" >out 2>err &&
	exec 7<&- &&
	grep -qx "7 $(readlink -f /etc/hostname)" out
'
test_done
