#!/bin/bash
# The generic BCC tools on kernel functions (kprobes, which the host lacks): trace,
# argdist, funccount and stackcount on vfs_write, which the syscalls workload reaches
# exactly N times (N one-byte writes to /dev/null); -p names a process held at a fifo
# until the tool traces (its pid stays through exec).
. "$(dirname "$0")/../lib.sh"

if [ ! -e /sys/bus/event_source/devices/kprobe/type ]; then
	test_skip 'the generic tools on kprobes' 'this kernel has no kprobe PMU'
	test_done
	exit
fi
SC=$WORKLOADS/syscalls
held() {	# held: a syscalls 9 that waits for a line on ./go; its pid in $wp
	rm -f go && mkfifo go && { (read x <go; exec $SC 9) & } && wp=$!
}
test_expect_success 'trace -p: vfs_write with its third argument (count) and its return' '
	held && tool_start out $SONDE tool trace -p $wp "vfs_write \"count=%d\", arg3" "r::vfs_write \"ret=%d\", retval" &&
	echo >go && wait $wp && sleep 0.5 && tool_stop &&
	test $(grep -c " syscalls  *vfs_write  *count=1$" out) -eq 9 &&
	test $(grep -c " syscalls  *vfs_write  *ret=1$" out) -eq 9
'
test_expect_success 'funccount -p: vfs_write 9 times' '
	held && tool_start out $SONDE tool funccount -p $wp "vfs_writ*" &&
	echo >go && wait $wp && sleep 0.5 && tool_stop &&
	printf "%-36s %8d\n" vfs_write 9 >expect && grep "^vfs_write " out >got && test_cmp expect got
'
test_expect_success 'argdist -C -p: the count argument of vfs_write, 1, nine times' '
	held && tool_start out $SONDE tool argdist -i 1 -p $wp -C "p::vfs_write(void *f, void *b, size_t n):size_t:n" &&
	echo >go && wait $wp && sleep 1.5 && tool_stop &&
	awk "/n = 1\$/ { n += \$1 } END { exit !(n == 9) }" out
'
test_expect_success 'stackcount -K -p: vfs_write from the write syscall, 9 times' '
	held && tool_start out $SONDE tool stackcount -K -p $wp vfs_write &&
	echo >go && wait $wp && sleep 0.5 && tool_stop &&
	grep -q "^  vfs_write$" out && grep -qx "    9" out
'
test_done
