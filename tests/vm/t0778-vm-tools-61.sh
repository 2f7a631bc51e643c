#!/bin/bash
# The tools that take another route on Debian 12's 6.1 than on a newer kernel, run
# on a known workload there: tcptop and tcprtt (kprobes: no sock_send_length, no
# tcp_probe skaddr), slabratetop (a kprobe: kmem_cache_alloc's tracepoint has no
# name), biosnoop and biotop (block_rq_insert/issue/complete: no block_io_start;
# the VM has no disk, so they only start and end), memleak's kernel mode (raw
# tracepoints where a BTF-typed one may not read a void *).
. "$(dirname "$0")/../lib.sh"

# tcppair N: N loopback connections, 1 byte each way; its port in $TMP/port
pair() {
	"$WORKLOADS/tcppair" "$1" >port
}

test_expect_success 'tcptop -C -S 4 1: the 2 ends of each of 5 loopback connections, one row each' '
	tool_start out $SONDE tcptop -C -S 4 1 &&
	pair 5 && P=$(awk "{ print \$2 }" port) &&
	wait $TOOL_PID &&
	cat out &&
	grep -E " 127\.0\.0\.1:[0-9]+ +127\.0\.0\.1:$P +0 +0$" out | grep -c " tcppair " >n1 &&
	grep -E " 127\.0\.0\.1:$P +127\.0\.0\.1:[0-9]+ +0 +0$" out | grep -c " tcppair " >n2 &&
	test $(cat n1) -eq 5 && test $(cat n2) -eq 5
'
test_expect_success 'tcprtt -d 3: a sample for each segment the 10 ends of 5 connections receive' '
	tool_start out $SONDE tcprtt -d 3 &&
	pair 5 && wait $TOOL_PID && cat out &&
	grep -qx "All Addresses = \*\*\*\*\*\* " out &&
	test $(awk "/ -> / { n += \$5 } END { print n }" out) -ge 10
'
test_expect_success 'slabratetop -C -p PID: 1000 opens by one shell are 1000 or more filp allocations' '
	rm -f go && mkfifo go &&
	{ read -t 30 x <>go; exec bash -c "for i in \$(seq 1000); do : </dev/null; done"; } & S=$! &&
	tool_start out $SONDE slabratetop -C -p $S -r 100 4 1 &&
	echo >go && wait $S && wait $TOOL_PID && cat out &&
	n=$(awk "\$1 == \"filp\" { print \$2 }" out) && test "$n" -ge 1000 && test "$n" -le 1100
'
test_expect_success 'biosnoop 1 and biotop -C 1 1: their headers, and they end by themselves' '
	$SONDE biosnoop 1 >bs && head -1 bs | grep -q "^TIME(s) *COMM *PID *DISK *T *SECTOR *BYTES *LAT(ms)$" &&
	$SONDE biotop -C 1 1 >bt && grep -q "^PID *COMM *D MAJ MIN DISK *I/O *Kbytes *AVGms$" bt
'
test_expect_success 'memleak 1 1: the kernel allocations outstanding, by stack' '
	$SONDE memleak 1 1 >ml 2>err && cat err &&
	grep -q "^Attaching to kernel allocators" ml &&
	grep -q "bytes in [0-9]* allocations from stack" ml
'
test_done
