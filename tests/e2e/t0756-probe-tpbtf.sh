#!/bin/bash
# sonde probe's raw tracepoints on a kernel whose BTF types their arguments
# (btf_trace_EVENT): loaded as tp_btf, where the members read through the
# arguments are loads of their own rather than bpf_probe_read_kernel calls;
# what the verifier refuses in that form is loaded again as a raw tracepoint.
# Both read a known task's members: values set for it (its comm, uid,
# oom_score_adj) and the parent that started it. Last, sched latency --live
# loads that way.
. "$(dirname "$0")/../lib.sh"

require_root 'raw tracepoints as tp_btf'
if ! command -v setpriv >/dev/null || ! command -v strace >/dev/null ||
	! bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q "TYPEDEF 'btf_trace_sched_switch'"; then
	test_skip 'raw tracepoints as tp_btf' 'needs the kernel BTF (btf_trace_sched_switch), bpftool, strace and setpriv'
	test_done
	exit
fi

# the first switch to the started command (tgid cpid) once it runs sleep:
# members of next (exit_signal: SIGCHLD), through pointers (signal, cred,
# real_parent) and a struct member (euid.val), a short (oom_score_adj, as set)
# and char arrays (comm); $1 more of the probe's body
prog() {
	cat <<EOF
rawtracepoint:sched_switch /((struct task_struct *)arg2)->tgid == cpid/
{
	\$n = (struct task_struct *)arg2;
	$1
	if (\$n->comm != "sleep") { return; }	/* sonde's child before the exec */
	printf("%s %d %d %d %d %d %s\n", \$n->comm, \$n->pid - cpid, \$n->exit_signal, \$n->signal->nr_threads,
		\$n->signal->oom_score_adj, \$n->cred->euid.val, \$n->real_parent->comm);
	exit();
}
EOF
}
# what prog prints for the command run (sonde started it: its parent)
run() {
	echo "echo 500 >/proc/self/oom_score_adj; exec setpriv --reuid 65534 sleep 0.5" >child.sh &&
	strace -f -e trace=bpf -o trace $SONDE probe -c "sh child.sh" prog.bt >out &&
	echo "sleep 0 17 1 500 65534 sonde" >expect &&
	grep -v -e "^Attaching" -e "^$" out >got && test_cmp expect got
}

test_expect_success 'tp_btf: members through the arguments, a signed short and a char array, by loads' '
	prog "" >prog.bt &&
	run &&
	grep "prog_name=\"sonde_rawtracep\"" trace >loads &&
	test "$(wc -l <loads)" = 1 && grep -q "prog_type=BPF_PROG_TYPE_TRACING.*expected_attach_type=BPF_TRACE_RAW_TP" loads &&
	$SONDE probe --dry-run -v prog.bt >dump &&
	! grep -q "call 113" dump
'
test_expect_success 'tp_btf refused (a task pointer from curtask): the same values as a raw tracepoint' '
	prog "\$c = (struct task_struct *)curtask; if (\$c->pid < 0) { printf(\"a negative pid\n\"); }" >prog.bt &&
	run &&
	grep "prog_name=\"sonde_rawtracep\"" trace >loads &&
	test "$(wc -l <loads)" = 2 &&
	sed -n 1p loads | grep -q "prog_type=BPF_PROG_TYPE_TRACING.*= -1" &&
	sed -n 2p loads | grep -q "prog_type=BPF_PROG_TYPE_RAW_TRACEPOINT.*= [0-9]"
'
test_expect_success 'a raw tracepoint with no kernel types read stays a raw tracepoint (no BTF parsed)' '
	strace -f -e trace=bpf,openat -o trace $SONDE probe -e "rawtracepoint:sched_switch { @n = count(); exit(); }" >out &&
	grep -q "^@n: [1-9]$" out && ! grep -q btf/vmlinux trace &&	# both CPUs may switch before exit() stops them
	grep "prog_name=\"sonde_rawtracep\"" trace | grep -q "prog_type=BPF_PROG_TYPE_RAW_TRACEPOINT"
'
test_expect_success 'a raw tracepoint tracefs names is not test-attached to see that it exists (10 ms a close)' '
	strace -f -e trace=bpf -o trace $SONDE probe --dry-run -e "rawtracepoint:sched_switch { @n = count(); }" >out &&
	! grep -q BPF_RAW_TRACEPOINT_OPEN trace &&
	rc=0 && $SONDE probe --dry-run -e "rawtracepoint:nonsense { exit(); }" 2>err || rc=$? &&
	test $rc -ne 0 && grep -q "no raw tracepoint .nonsense. in the kernel" err
'
test_expect_success '-kk: the reads stay bpf_probe_read_kernel calls, whose failures it reports' '
	echo "rawtracepoint:sched_switch { \$n = (struct task_struct *)arg2; printf(\"%d\n\", \$n->pid); exit(); }" >k.bt &&
	$SONDE probe --dry-run -v k.bt >dump && ! grep -q "call 113" dump &&
	$SONDE probe -kk --dry-run -v k.bt >dump && test "$(grep -c "call 113" dump)" = 1
'
test_expect_success 'sched latency --live: its three raw tracepoints load as tp_btf (members by loads)' '
	strace -f -e trace=bpf -o trace $SONDE sched latency --live --duration 0.2 >out &&
	grep -q "^Tracing run queue latency" out &&
	test "$(grep "prog_name=\"sonde_rawtracep\"" trace | grep -c "prog_type=BPF_PROG_TYPE_TRACING.*expected_attach_type=BPF_TRACE_RAW_TP.*= [0-9]")" = 3
'
test_done
