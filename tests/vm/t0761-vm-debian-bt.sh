#!/bin/bash
# Debian's bpftrace tools that read what this machine's kernel lacks, run unchanged on
# the VM's (6.1: kprobes, CONFIG_KALLSYMS_ALL, cfs_rq->nr_running): loads.bt reads avenrun
# through kaddr(), runqlen.bt cfs_rq->nr_running, the tcp tools compare with AF_INET and
# AF_INET6 of <sys/socket.h> (src/lang/kconst.c); tests/e2e/t0761 runs the others.
. "$(dirname "$0")/../lib.sh"

BT=$(cd "$(dirname "$0")/../.." && pwd)/bt
if [ ! -e "$BT/loads.bt" ]; then
	test_skip "bpftrace's tools" 'bpftrace is not installed on the host (scripts/deps.sh test)'
	test_done
	exit
fi

if grep -q " avenrun$" /proc/kallsyms; then
	test_expect_success 'loads.bt: kaddr("avenrun") read as /proc/loadavg has it' '
		# the kernel updates the averages every 5 s: once at most during the run, before or
		# after the probe read them (in a VM just booted they move fast: 0.134 to 0.16)
		read -r l1 l5 b15 rest </proc/loadavg &&
		$SONDE probe -c "sleep 1.5" "$BT/loads.bt" >out 2>err &&
		read -r l1 l5 a15 rest </proc/loadavg &&
		grep -E "^[0-9]{2}:[0-9]{2}:[0-9]{2} load averages: [0-9]+\.[0-9]{3} [0-9]+\.[0-9]{3} [0-9]+\.[0-9]{3}$" out >line &&
		awk -v a="$(sed -n "1s/.*averages: //p" line)" -v b="$b15" -v c="$a15" "BEGIN { split(a, x, \" \");
			d = x[3] - b; e = x[3] - c; exit !((d >= -0.02 && d <= 0.02) || (e >= -0.02 && e <= 0.02)) }" ||
		{ cat out err; echo "before: $b15, after: $a15"; false; }
	'
else
	test_skip 'loads.bt' 'this kernel lists no avenrun in /proc/kallsyms'
fi

test_expect_success 'runqlen.bt: cfs_rq->nr_running sampled at 99 Hz while two threads spin' '
	$SONDE probe -c "$WORKLOADS/spin 0.5 2" "$BT/runqlen.bt" >out 2>err &&
	grep -qx "@runqlen: " out && grep -qE "^\[0, 1\) +[0-9]+ \|@*" out || { cat out err; false; }
'

if [ ! -e /sys/bus/event_source/devices/kprobe/type ]; then
	test_skip 'tcpconnect.bt, tcpaccept.bt, tcplife.bt' 'this kernel has no kprobe PMU'
	test_done
	exit
fi
# biolatency.bt's form: kprobe:blk_account_io_start, kprobe:__blk_account_io_start (a kernel
# has one or the other; Debian's 6.1 inlines both, so the tool itself has nothing to attach)
test_expect_success 'a probe of several kernel functions: one that does not attach is skipped with a warning, as bpftrace does' '
	$SONDE probe -e "kprobe:__x64_sys_getppid, kprobe:blk_account_io_start /pid == cpid/ { @[probe] = count(); }" \
		-c "$WORKLOADS/syscalls 3" >out 2>err &&
	grep -qx "@\[kprobe:__x64_sys_getppid\]: 3" out &&
	grep -qx "sonde: warning: cannot open the perf event of .kprobe:blk_account_io_start.: No such file or directory: skipped, another function of its probe is traced" err ||
	{ cat out err; false; }
'
test_expect_success 'a probe of several kernel functions none of which attaches: the first one'"'"'s error' '
	! $SONDE probe -e "kprobe:blk_account_io_start, kprobe:__blk_account_io_start { @ = count(); }" -c "true" >out 2>err &&
	test "$(cat err)" = "sonde: cannot open the perf event of '"'"'kprobe:blk_account_io_start'"'"': No such file or directory" ||
	{ cat out err; false; }
'

# tcppair N [6]: N loopback connections to its own listener, whose port it prints first
for fam in 4 6; do
	lo=127.0.0.1
	[ $fam = 6 ] && lo=::1
	test_expect_success "tcpconnect.bt: IPv$fam connects to the workload's port (AF_INET${fam#4})" '
		$SONDE probe -c "$WORKLOADS/tcppair 2 '$fam'" "$BT/tcpconnect.bt" >out 2>err &&
		port=$(sed -n "s/^port //p" out) && test -n "$port" &&
		test $(grep -cE "^[0-9:]{8} [0-9]+ +tcppair +'$lo' +[0-9]+ +'$lo' +$port *$" out) -eq 2 ||
		{ cat out err; false; }
	'
	test_expect_success "tcpaccept.bt: IPv$fam accepts on the workload's port" '
		$SONDE probe -c "$WORKLOADS/tcppair 2 '$fam'" "$BT/tcpaccept.bt" >out 2>err &&
		port=$(sed -n "s/^port //p" out) && test -n "$port" &&
		test $(grep -cE "^[0-9:]{8} [0-9]+ +tcppair +'$lo' +[0-9]+ +'$lo' +$port +[0-9]+/[0-9]+$" out) -eq 2 ||
		{ cat out err; false; }
	'
done
test_expect_success 'tcplife.bt: both ends of each IPv4 connection, with their ports' '
	$SONDE probe -c "$WORKLOADS/tcppair 2" "$BT/tcplife.bt" >out 2>err &&
	port=$(sed -n "s/^port //p" out) && test -n "$port" &&
	test $(grep -cE "^[0-9]+ +tcppair +127\.0\.0\.1 +$port +127\.0\.0\.1 +[0-9]+ +0 +0 [0-9]+$" out) -eq 2 &&
	test $(grep -cE "^[0-9]+ +tcppair +127\.0\.0\.1 +[0-9]+ +127\.0\.0\.1 +$port +0 +0 [0-9]+$" out) -eq 2 ||
	{ cat out err; false; }
'
test_done
