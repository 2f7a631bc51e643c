#!/bin/bash
# The tools Debian ships with bpftrace (/usr/sbin/*.bt) run unchanged under sonde probe
# where the kernel has what they read, each with a known trigger run by -c (started once
# every probe is attached; the run ends with it), and their output checked:
#  - runqlat.bt needs TASK_RUNNING of <linux/sched.h>, the tcp tools AF_INET of
#    <sys/socket.h> (src/lang/kconst.c; tests/lang/kconst.test has the language cases);
#  - loads.bt reads the kernel's avenrun through kaddr(): /proc/kallsyms lists it only
#    with CONFIG_KALLSYMS_ALL; runqlen.bt reads cfs_rq->nr_running, which 6.18 renamed
#    nr_queued: where the kernel lacks them they fail as bpftrace 0.17 does, in one line.
# The tools that need kprobes (biolatency, tcpaccept...) fail here for lack of them (their
# error says so); t0702 compiles every tool and runs opensnoop, syscount and threadsnoop.
. "$(dirname "$0")/../lib.sh"

require_root 'bpftrace tools'
if [ ! -e /usr/sbin/runqlat.bt ]; then
	test_skip "bpftrace's tools" 'bpftrace is not installed (scripts/deps.sh test)'
	test_done
	exit
fi

# run TOOL 'TRIGGER': sonde probe /usr/sbin/TOOL.bt with TRIGGER (a shell script) as its
# command; TOOL.out and TOOL.err; the run must end with 0. As with bpftrace -c, uprobes fire
# only in the command's process: a trigger for them execs.
run() {
	printf '%s\n' "$2" >"$1.sh"
	timeout 60 $SONDE probe -c "sh $TMP/$1.sh" /usr/sbin/"$1".bt >"$1.out" 2>"$1.err"
}

test_expect_success 'runqlat.bt (TASK_RUNNING): a histogram of run-queue latencies, 20 sleeps woken at least, nothing left of @qtime' '
	run runqlat "$WORKLOADS/naps 20 5" &&
	sed -n 2p runqlat.out | grep -qx "Tracing CPU scheduler... Hit Ctrl-C to end." &&
	grep -qx "@usecs: " runqlat.out &&
	grep -E "^\[[0-9]+(, [0-9]+[KM]?\))? +[0-9]+ \|@* *\|$" runqlat.out >buckets &&
	test $(sed -E "s/^[^)]*[])] +([0-9]+) .*/\1/" buckets | awk "{ n += \$1 } END { print n }") -ge 20 &&
	! grep "^@qtime" runqlat.out
'

# bpftrace detaches the probes before END: what END clears stays cleared. sonde's own bpf()
# calls that print the maps would count here if the probe were still attached.
test_expect_success 'END runs with the probes detached (runqlat.bt clears @qtime there): a cleared count stays 0' '
	$SONDE probe -e "BEGIN { @n = count(); } tracepoint:syscalls:sys_enter_bpf /comm == \"sonde\"/ { @n = count(); } interval:ms:100 { exit(); } END { clear(@n); }" >out &&
	printf "%s\n" "Attaching 4 probes..." "" "" "@n: 0" >exp &&
	test_cmp exp out
'

test_expect_success '#include "defs.h": the script'"'"'s own header beside it, and one it includes; comments, continued lines, operators' '
	mkdir -p d/sub &&
	printf "%s\n" "/* bases */" "#define BASE 0x10 // sixteen" "#define SHIFTED (BASE << 2)" \
		"#define MASK (SHIFTED | 3) & ~1" "#define NEXT_PROTO (IPPROTO_TCP + 1)" "#define CONT (1 + \\" "	2)" \
		"#include \"sub/more.h\"" >d/defs.h &&
	echo "#define MORE (CONT * 10 - (SHIFTED >> 4) % 3)" >d/sub/more.h &&
	printf "%s\n" "#include \"defs.h\"" "BEGIN { printf(\"%d %d %d %d %d %d\\n\", BASE, SHIFTED, MASK, NEXT_PROTO, CONT, MORE); exit(); }" >d/p.bt &&
	(cd / && $SONDE probe "$TMP/d/p.bt") >out &&
	test "$(sed -n 2p out)" = "16 64 66 7 3 29"
'

test_expect_success 'tcpdrop.bt (AF_INET, SKB_DROP_REASON_NOT_SPECIFIED) compiles, attaches and ends with its header' '
	run tcpdrop "sleep 0.2" &&
	sed -n 1,3p tcpdrop.out >head &&
	printf "%s\n" "Attaching 3 probes..." "Tracing tcp drops. Hit Ctrl-C to end." \
		"TIME     PID      COMM             SADDR:SPORT           DADDR:DPORT           STATE   " >exp &&
	test_cmp exp head && ! test -s tcpdrop.err
'

# a drop with a socket, in a network namespace of its own: a veth whose neighbour never
# answers, a queue of unresolved packets one byte long; bash sends three datagrams from a
# connected UDP socket, the second and third drop the one queued before (NEIGH_QUEUEFULL).
# The neighbour is asked again only after a minute: its third unanswered request (3 s by
# default) drops the packet still queued, a third drop when the tracer is slow to end
if command -v unshare >/dev/null && command -v ip >/dev/null &&
	unshare -n sh -c "ip link add t0761a type veth peer name t0761b" 2>/dev/null; then
	cat >"$TMP/netns.sh" <<-\EOF
		ip link set lo up && ip link add t0761a type veth peer name t0761b &&
		ip addr add 10.9.9.1/24 dev t0761a && ip link set t0761a up && ip link set t0761b up &&
		echo 1 >/proc/sys/net/ipv4/neigh/t0761a/unres_qlen_bytes &&
		echo 60000 >/proc/sys/net/ipv4/neigh/t0761a/retrans_time_ms &&
		echo "exec bash -c 'exec 3>/dev/udp/10.9.9.2/4242; for i in 1 2 3; do echo x >&3; done'" >trig.sh &&
		"$@"
	EOF
	test_expect_success 'tcpdrop.bt: two UDP datagrams a full neighbour queue drops, with the socket'"'"'s ends and the stack' '
		unshare -n sh netns.sh $SONDE probe -c "/bin/sh trig.sh" /usr/sbin/tcpdrop.bt >out 2>err &&
		test $(grep -cE "^[0-9:]{8} [0-9]+ +bash +10\.9\.9\.1:[1-9][0-9]* +10\.9\.9\.2:4242 +ESTABLISHED$" out) -eq 2 &&
		test $(grep -c "^        __neigh_event_send+[0-9]*$" out) -eq 2 &&
		test $(grep -c "^        udp_sendmsg+[0-9]*$" out) -eq 2
	'
	# bpftrace 0.17 cannot compile tcpdrop.bt here (clang: no <net/sock.h>): it runs a copy
	# with the #include block left out and AF_INET, AF_INET6 written as 2, 10
	if have_bpftrace; then
		test_expect_success 'tcpdrop.bt prints those drops as bpftrace 0.17 does (times, pids, ports aside)' '
			sed -e "/^#ifndef BPFTRACE_HAVE_BTF/,/^#endif/d" -e "s/AF_INET6/10/g; s/AF_INET/2/g" \
				/usr/sbin/tcpdrop.bt >plain.bt &&
			unshare -n sh netns.sh bpftrace -c "/bin/sh trig.sh" plain.bt >bt.out 2>/dev/null &&
			unshare -n sh netns.sh $SONDE probe -c "/bin/sh trig.sh" /usr/sbin/tcpdrop.bt >out &&
			mask() { sed -E "s/^[0-9:]{8} [0-9]+ /T P /; s/:[0-9]+( +10)/:PORT\1/" "$1"; } &&
			mask bt.out >exp && mask out >got && test_cmp exp got && grep -q ESTABLISHED got
		'
	fi
else
	test_skip 'tcpdrop.bt with a drop' 'no unshare, ip or veth here'
fi

test_expect_success 'the tcp tools that need kprobes compile with AF_INET; they fail only at the attach' '
	for t in tcpaccept tcpconnect tcplife tcpretrans; do
		$SONDE probe --dry-run /usr/sbin/$t.bt >out 2>err || { cat err; exit 1; }
	done
'

test_expect_success 'kaddr() gives a kernel symbol the address /proc/kallsyms has (loads.bt reads avenrun by it)' '
	want=$(awk "\$3 == \"_stext\" { print \$1; exit }" /proc/kallsyms) && test -n "$want" &&
	$SONDE probe -e "BEGIN { printf(\"%lx\n\", kaddr(\"_stext\")); exit(); }" >out &&
	test "$(sed -n 2p out)" = "$want"
'

if grep -q " avenrun$" /proc/kallsyms; then
	test_expect_success 'loads.bt prints load averages as /proc/loadavg has them' '
		run loads "sleep 1.5" &&
		grep -E "^[0-9]{2}:[0-9]{2}:[0-9]{2} load averages: [0-9]+\.[0-9]{3} [0-9]+\.[0-9]{3} [0-9]+\.[0-9]{3}$" loads.out >line &&
		read -r l1 l5 l15 rest </proc/loadavg &&
		awk -v a="$(sed -n "1s/.*averages: //p" line)" -v b="$l15" "BEGIN { split(a, x, \" \"); d = x[3] - b; exit (d < -0.02 || d > 0.02) }"
	'
else
	test_expect_success 'loads.bt: this kernel does not list avenrun (no CONFIG_KALLSYMS_ALL): one line says so' '
		! $SONDE probe --dry-run /usr/sbin/loads.bt >out 2>err &&
		head -1 err | grep -qx "/usr/sbin/loads.bt:[0-9]*:[0-9]*: error: no kernel symbol .avenrun. in /proc/kallsyms (data symbols need CONFIG_KALLSYMS_ALL)" &&
		test $(grep -c error err) -eq 1
	'
	test_skip 'loads.bt prints load averages' 'this kernel lists no data symbols in /proc/kallsyms'
fi

if command -v bpftool >/dev/null && bpftool btf dump file /sys/kernel/btf/vmlinux format c 2>/dev/null |
	sed -n "/^struct cfs_rq {/,/^};/p" | grep -q "[ *]nr_running;"; then
	test_expect_success 'runqlen.bt: a linear histogram of run-queue lengths while two CPUs spin' '
		run runqlen "$WORKLOADS/spin 0.5 2 >/dev/null" &&
		grep -qx "@runqlen: " runqlen.out && grep -qE "^\[0, 1\) +[0-9]+ \|" runqlen.out
	'
else
	test_expect_success 'runqlen.bt: cfs_rq has no nr_running in this kernel (6.18 calls it nr_queued): one line says so' '
		! $SONDE probe --dry-run /usr/sbin/runqlen.bt >out 2>err &&
		head -1 err | grep -qx "/usr/sbin/runqlen.bt:[0-9]*:[0-9]*: error: struct cfs_rq has no member .nr_running." &&
		test $(grep -c error err) -eq 1
	'
fi

test_expect_success 'naptime.bt: two raw nanosleep()s of 50 ms, with the parent' '
	run naptime "$WORKLOADS/naps 2 50" &&
	test $(grep -cE "^[0-9:]{8} [0-9]+ +sh +[0-9]+ +naps +0\.050$" naptime.out) -eq 2
'

test_expect_success 'killsnoop.bt: a SIGUSR1 to a known pid, sent and delivered (result 0)' '
	run killsnoop "sleep 5 & p=\$!; kill -USR1 \$p; echo \$p >$TMP/kpid" &&
	grep -qE "^[0-9:]{8}  [0-9]+ +sh +10 +$(cat kpid) +0$" killsnoop.out
'

test_expect_success 'statsnoop.bt: stat of a file that is there (0) and of one that is not (ENOENT 2)' '
	run statsnoop "stat /etc/hostname /nonexistent-t0761 >/dev/null 2>&1; true" &&
	grep -qE "^[0-9]+ +stat +0 /etc/hostname$" statsnoop.out &&
	grep -qE "^[0-9]+ +stat +2 /nonexistent-t0761$" statsnoop.out
'

test_expect_success 'syncsnoop.bt: sync(1)'"'"'s sync()' '
	run syncsnoop "sync" &&
	grep -qE "^[0-9:]{8}  [0-9]+ +sync +tracepoint:syscalls:sys_enter_sync$" syncsnoop.out
'

test_expect_success 'execsnoop.bt: a command and its arguments' '
	run execsnoop "/bin/true t0761-marker one two" &&
	grep -qE "^[0-9]+ +[0-9]+ +/bin/true t0761-marker one two$" execsnoop.out
'

test_expect_success '-c runs its command with one execve(): no PATH search for execsnoop.bt to see' '
	$SONDE probe -c "true" -e "t:syscalls:sys_enter_execve /pid == cpid/ { @ = count(); }" >out &&
	test "$(sed -n 4p out)" = "@: 1" &&
	$SONDE probe -c "sh $TMP/execsnoop.sh" /usr/sbin/execsnoop.bt >out &&
	test $(grep -c " sh $TMP/execsnoop.sh$" out) -eq 1
'

test_expect_success 'setuids.bt: setpriv'"'"'s setresuid(0, ...)' '
	command -v setpriv >/dev/null || { echo "no setpriv (util-linux)"; exit 0; }
	run setuids "setpriv --ruid=0 true" &&
	grep -qE "^[0-9:]{8} [0-9]+ +setpriv +0 +setresuid ruid=0 euid=[-0-9]+ suid=[-0-9]+ \(0\)$" setuids.out
'

test_expect_success 'pidpersec.bt: 30 forks within a second are counted' '
	run pidpersec "for i in \$(seq 30); do /bin/true; done; sleep 1.2" &&
	grep -E "^[0-9:]{8} PIDs/sec: @: [0-9]+$" pidpersec.out >lines &&
	test $(awk "{ n += \$NF } END { print n }" lines) -ge 30
'

test_expect_success 'gethostlatency.bt: getaddrinfo() of localhost' '
	run gethostlatency "exec getent ahosts localhost >/dev/null" &&
	grep -qE "^[0-9:]{8}  [0-9]+ +getent +[0-9]+ localhost$" gethostlatency.out
'

test_expect_success 'bashreadline.bt: a line an interactive bash reads' '
	echo "echo t0761-marker" >lines &&
	run bashreadline "exec bash --norc -i <$TMP/lines >/dev/null 2>&1" &&
	grep -qE "^[0-9:]{8}  [0-9]+ +echo t0761-marker$" bashreadline.out
'

test_expect_success 'cpuwalk.bt: a histogram of the CPUs two spinning threads ran on' '
	run cpuwalk "$WORKLOADS/spin 0.5 2 >/dev/null" &&
	grep -qx "@cpu: " cpuwalk.out && grep -qE "^\[[0-9]+, [0-9]+\) +[0-9]+ \|@+ *\|$" cpuwalk.out
'

if findmnt -n -o SOURCE -T "$TMP" 2>/dev/null | grep -q "^/dev/"; then
	test_expect_success 'bitesize.bt: dd'"'"'s eight direct 256 KiB writes' '
		# written and synced first: the direct writes then overwrite blocks in place, so
		# dd itself issues no journal or allocation I/O of its own
		dd if=/dev/zero of=$TMP/f bs=256k count=8 2>/dev/null && sync $TMP/f &&
		run bitesize "dd if=/dev/zero of=$TMP/f bs=256k count=8 oflag=direct conv=notrunc 2>/dev/null" &&
		# the eight in the 256K row of dd: on a loaded machine dd may also write back
		# another file'"'"'s pages (one 64K I/O once), a row of its own
		{ sed -n "/^@\[dd\]: $/,/^$/p" bitesize.out | grep -qE "^\[256K, 512K\) +8 \|@+\|$" ||
			{ cat bitesize.out; false; }; }
	'
	test_expect_success 'writeback.bt: sync(1) writes back dirty pages' '
		run writeback "dd if=/dev/zero of=$TMP/g bs=1M count=4 2>/dev/null; sync" &&
		grep -qE "^[0-9:]{8}  [0-9]+:[0-9]+ +[0-9]+ +sync +[0-9]+\.[0-9]{3}$" writeback.out
	'
else
	test_skip 'bitesize.bt and writeback.bt' "$TMP is on no block device"
fi
test_done
