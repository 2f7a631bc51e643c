#!/bin/bash
# sonde probe's functions whose output depends on this machine (uaddr, ntop of
# socket addresses, strftime, cgroup_path) against bpftrace 0.17 run on the same
# program at the same time; hist(n, k) as json (hand-derived: 0.17 has no k).
. "$(dirname "$0")/../lib.sh"

require_root 'sonde probe functions against bpftrace'
W=$WORKLOADS/globals

test_expect_success 'uaddr: link-time addresses of 1..16-byte objects, hex as map keys (nm agrees)' '
	P="uprobe:$W:touch { printf(\"%p %p %p %p %p %d\\n\", uaddr(\"g_u8\"), uaddr(\"g_u16\"), uaddr(\"g_u32\"), uaddr(\"g_u64\"), uaddr(\"g_arr\"), sizeof(uaddr(\"g_u8\"))); @a = uaddr(\"g_u32\"); @k[uaddr(\"g_arr\")] = 1; @t[uaddr(\"g_u8\"), 5] = 2; }" &&
	$SONDE probe -e "$P" -c "$W" >sonde.out &&
	want=$(for s in g_u8 g_u16 g_u32 g_u64 g_arr; do
		printf "0x%x " $((0x$(nm "$W" | sed -n "s/^\([0-9a-f]*\) [dD] $s\$/\1/p")))
	done)8 &&
	test "$(grep "^0x" sonde.out)" = "$want" &&
	if have_bpftrace; then
		bpftrace -e "$P" -c "$W" 2>/dev/null | grep -v "^[0-9]*\$" >bpftrace.out &&
		grep -v "^[0-9]*\$" sonde.out >sonde1.out && test_cmp bpftrace.out sonde1.out
	fi
'
test_expect_success 'uaddr of a function and of a missing symbol' '
	$SONDE probe -e "uprobe:$W:touch { printf(\"%d\\n\", uaddr(\"touch\") == uaddr(\"touch\")); @t = uaddr(\"touch\"); }" -c "$W" >out &&
	printf "@t: %d\n" 0x$(nm "$W" | sed -n "s/^\([0-9a-f]*\) T touch\$/\1/p") >want && grep "^@t" out >got && test_cmp want got &&
	! $SONDE probe --dry-run -e "uprobe:$W:touch { @ = uaddr(\"g_nothing\"); }" 2>err &&
	grep -q "no function or object .g_nothing. in the symbol tables of $W" err &&
	! $SONDE probe --dry-run -e "tracepoint:sched:sched_switch { @ = uaddr(\"g_u8\"); }" 2>err &&
	grep -q "uaddr() is only available in uprobes" err
'

if have_bpftrace; then
	test_expect_success 'buf of user memory with a length known at run time, and past it, as bpftrace reads it' '
		P="tracepoint:syscalls:sys_enter_write /pid == cpid/ { printf(\"%r|%r|%r\\n\", buf(args->buf, args->count), buf(args->buf, 3), buf(args->buf, args->count + 100)); @[buf(args->buf, 1)] = count(); }" &&
		$SONDE probe -e "$P" -c "$WORKLOADS/syscalls 3" >sonde.out &&
		bpftrace -e "$P" -c "$WORKLOADS/syscalls 3" >bpftrace.out 2>/dev/null &&
		test_cmp bpftrace.out sonde.out && grep -q "^@\[x\]: 3\$" sonde.out
	'
fi

test_expect_success 'uaddr in a usdt probe: the objects of the probed binary' '
	U=$WORKLOADS/usdt &&
	$SONDE probe -e "usdt:$U:sonde_test:start { printf(\"%p %p\\n\", uaddr(\"counter\"), uaddr(\"tab\")); exit(); }" -c "$U" >out &&
	test "$(grep "^0x" out)" = "$(printf "0x%x 0x%x" 0x$(nm "$U" | sed -n "s/ B counter\$//p") 0x$(nm "$U" | sed -n "s/ D tab\$//p"))"
'

test_expect_success 'kptr and uptr choose the memory a dereference reads (probe_read_kernel 113, _user 112)' '
	$SONDE probe --dry-run -v -e "BEGIN { \$p = (int32 *)8; printf(\"%d\\n\", *uptr(\$p)); }" >u 2>&1 &&
	$SONDE probe --dry-run -v -e "BEGIN { \$p = (int32 *)8; printf(\"%d\\n\", *kptr(\$p)); }" >k 2>&1 &&
	grep -q "call 112\$" u && ! grep -q "call 113\$" u && grep -q "call 113\$" k && ! grep -q "call 112\$" k &&
	$SONDE probe -e "BEGIN { \$p = (int32 *)8; printf(\"%d %d\\n\", *uptr(\$p), *kptr(\$p)); exit(); }" >out &&
	test "$(sed -n 2p out)" = "0 0"
'

test_expect_success 'ntop and buf of a kernel type'"'"'s u8[4] (BTF) read the same bytes' '
	$SONDE probe -e "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { printf(\"%s|%r\\n\", ntop(curtask->perf_recursion), buf(curtask->perf_recursion)); exit(); }" -c "$WORKLOADS/syscalls 2" >out &&
	line=$(grep "|" out) && a=${line%|*} && b=${line#*|} &&
	test "$a" = "$(printf "%s" "$b" | sed "s/\\\\x/ 0x/g" | { read -r w x y z; echo $((w)).$((x)).$((y)).$((z)); })"
'

# a TCP connection to a closed local port: SYN_SENT then CLOSE
P_NTOP='tracepoint:sock:inet_sock_set_state /args->newstate == 2 && args->dport == 1/ { printf("%s %s %s %s|%r|%s\n", ntop(args->saddr), ntop(args->daddr), ntop(args->daddr_v6), ntop(args->family, args->daddr), buf(args->daddr), ntop(10, args->saddr_v6)); @[ntop(args->daddr)] = count(); exit(); }'
# the test's own connects only (to port 1): another process's, two at once, made bpftrace
# count one that came before it detached and sonde, which runs no probe after exit(), not.
# Once each tracer has said "Attaching", a connect a second until all have exited (at load 8
# an ASan sonde had not attached 4 s after its start)
connect_till_done() {
	local f p i
	for f in "$@"; do
		for i in $(seq 400); do grep -q "^Attaching" "${f%:*}" 2>/dev/null && break; sleep 0.05; done
	done
	for i in $(seq 20); do
		(exec 3<>/dev/tcp/127.0.0.1/1) 2>/dev/null || :
		sleep 1
		for f in "$@"; do	# running (a zombie has ended: its job is not waited for yet)
			case $(cut -d" " -f3 /proc/${f#*:}/stat 2>/dev/null) in "" | Z) ;; *) continue 2 ;; esac
		done
		return 0
	done
}
if [ ! -d /sys/kernel/tracing/events/sock/inet_sock_set_state ] && [ ! -d /sys/kernel/debug/tracing/events/sock/inet_sock_set_state ]; then
	test_skip 'ntop and buf of a socket tracepoint'"'"'s address arrays' 'no sock:inet_sock_set_state tracepoint'
elif have_bpftrace; then
	test_expect_success 'ntop and buf of a socket tracepoint'"'"'s address arrays, as bpftrace prints them' '
		timeout 20 bpftrace -e "$P_NTOP" >bpftrace.out 2>/dev/null & b=$!
		timeout 20 $SONDE probe -e "$P_NTOP" >sonde.out & s=$!
		connect_till_done bpftrace.out:$b sonde.out:$s; wait $b; wait $s &&
		test_cmp bpftrace.out sonde.out &&
		grep -q "^127.0.0.1 127.0.0.1 ::ffff:127.0.0.1 127.0.0.1|\\\\x7f\\\\x00\\\\x00\\\\x01|" sonde.out
	'
else
	test_expect_success 'ntop and buf of a socket tracepoint'"'"'s address arrays' '
		timeout 20 $SONDE probe -e "$P_NTOP" >sonde.out & s=$!
		connect_till_done sonde.out:$s; wait $s &&
		grep -q "^127.0.0.1 127.0.0.1 ::ffff:127.0.0.1 127.0.0.1|\\\\x7f\\\\x00\\\\x00\\\\x01|" sonde.out
	'
fi

P_TIME='BEGIN { printf("%s\n", strftime("%Y-%m-%d %H:%M:%S %s %a %j", 0)); printf("%s\n", strftime("%H:%M:%S", 3600000000000)); print(strftime("%s", 86400000000000)); @t = strftime("[%M]", 60000000000); @k[strftime("%y", 0)] = 1; exit(); }'
test_expect_success 'strftime: the boot time plus nanoseconds, as date sees the boot time' '
	$SONDE probe -e "$P_TIME" >sonde.out &&
	boot=$(sed -n 2p sonde.out | cut -d" " -f3) &&
	up=$(cut -d" " -f1 /proc/uptime | cut -d. -f1) && now=$(date +%s) &&
	d=$((now - up - boot)) && [ $d -ge -2 ] && [ $d -le 2 ] &&
	test "$(sed -n 4p sonde.out)" = $((boot + 86400)) &&
	$SONDE probe -e "BEGIN { printf(\"%s\\n\", strftime(\"%s\", nsecs)); exit(); }" >out &&
	t=$(sed -n 2p out) && now=$(date +%s) && [ $((now - t)) -ge 0 ] && [ $((now - t)) -le 2 ]
'
if have_bpftrace; then
	test_expect_success 'strftime as bpftrace prints it: printf, print, map values and keys' '
		$SONDE probe -e "$P_TIME" >sonde.out && bpftrace -e "$P_TIME" >bpftrace.out 2>/dev/null &&
		test_cmp bpftrace.out sonde.out
	'
	test_expect_success 'strftime %f: microseconds, within 1 of bpftrace'"'"'s (both estimate the boot time)' '
		P="BEGIN { printf(\"%s\\n\", strftime(\"%f|%S\", 1500)); exit(); }" &&
		a=$($SONDE probe -e "$P" | sed -n 2p) && b=$(bpftrace -e "$P" 2>/dev/null | sed -n 2p) &&
		[ ${#a} = 9 ] && d=$((10#${a%|*} - 10#${b%|*})) && [ ${d#-} -le 1 ] && [ "${a#*|}" = "${b#*|}" ]
	'
fi

CG=
for root in /sys/fs/cgroup/unified /sys/fs/cgroup; do
	[ -f $root/cgroup.procs ] && [ "$(stat -f -c %T $root)" = cgroup2fs ] && CG=$root/sonde-t0716-$$ && break
done
if [ -z "$CG" ] || ! mkdir -p "$CG/inner" 2>/dev/null; then
	test_skip 'cgroup_path in a new cgroup' 'no writable cgroup v2 mount'
else
	in_cg() { (echo $BASHPID >"$CG/inner/cgroup.procs" && exec "$@"); }
	export CG
	test_expect_success 'cgroupid of a cgroup directory is the id cgroup gives inside it' '
		in_cg $SONDE probe -e "BEGIN { printf(\"%d %d %d\\n\", cgroup == cgroupid(\"$CG/inner\"), cgroupid(\"$CG/inner\"), cgroupid(\"$CG\")); exit(); }" >out &&
		test "$(sed -n 2p out)" = "1 $(stat -c %i "$CG/inner") $(stat -c %i "$CG")" &&
		if have_bpftrace; then
			P="BEGIN { printf(\"%d %s\\n\", cgroupid(\"$CG/inner\"), cgroup_path(cgroupid(\"$CG/inner\"), \"unified\")); exit(); }" &&
			$SONDE probe -e "$P" >sonde.out && bpftrace -e "$P" >bpftrace.out 2>/dev/null && test_cmp bpftrace.out sonde.out
		fi
	'
	test_expect_success 'cgroup_path of a process in a new cgroup: its v2 path first' '
		in_cg $SONDE probe -e "BEGIN { printf(\"%s\\n\", cgroup_path(cgroup)); @[cgroup_path(cgroup, \"unified\")] = count(); exit(); }" >out &&
		sed -n 2p out | grep -q "^unified:/sonde-t0716-$$/inner\(,\|\$\)" &&
		grep -q "^@\[unified:/sonde-t0716-$$/inner\]: 1\$" out
	'
	if have_bpftrace; then
		for filter in unified 'c*' '*'; do
			export FILTER="$filter"
			test_expect_success "cgroup_path(cgroup, \"$filter\") as bpftrace prints it (directories only: bpftrace can match a file)" '
				P="BEGIN { printf(\"%s\\n\", cgroup_path(cgroup, \"$FILTER\")); exit(); }" &&
				in_cg $SONDE probe -e "$P" >sonde.out && in_cg bpftrace -e "$P" >bpftrace.out 2>/dev/null &&
				if [ "$FILTER" = "*" ]; then
					sed -n 2p bpftrace.out | tr , "\\n" >b.list && sed -n 2p sonde.out | tr , "\\n" >s.list &&
					while IFS=: read -r h p; do	# what sonde leaves out is a file, not a cgroup
						grep -qx "$h:$p" s.list || [ -f /sys/fs/cgroup/$h$p ] || return 1
					done <b.list &&
					while read -r l; do grep -qxF "$l" b.list || return 1; done <s.list
				else
					test_cmp bpftrace.out sonde.out
				fi
			'
		done
	fi
	rmdir "$CG/inner" "$CG" 2>/dev/null
fi

test_expect_success 'hist(n, k) as json: min and max of each sub-bucket (hand-derived)' '
	$SONDE probe -f json -e "BEGIN { @h = hist(-3, 2); @h = hist(6, 2); @h = hist(8, 2); @h = hist(9, 2); @h = hist(12, 2); exit(); }" >out &&
	cat >want <<-\EOT &&
	{"type": "hist", "data": {"@h": [{"max": -1, "count": 1}, {"min": 0, "max": 0, "count": 0}, {"min": 1, "max": 1, "count": 0}, {"min": 2, "max": 2, "count": 0}, {"min": 3, "max": 3, "count": 0}, {"min": 4, "max": 4, "count": 0}, {"min": 5, "max": 5, "count": 0}, {"min": 6, "max": 6, "count": 1}, {"min": 7, "max": 7, "count": 0}, {"min": 8, "max": 9, "count": 2}, {"min": 10, "max": 11, "count": 0}, {"min": 12, "max": 13, "count": 1}]}}
	EOT
	grep "\"hist\"" out >got && test_cmp want got
'
if have_bpftrace; then
	test_expect_success 'json values of ntop, strerror and buf as bpftrace writes them' '
		P="BEGIN { printf(\"%s|%s|%r\\n\", ntop(0x0100007f), strerror(1), buf(\"a\\x01\", 2)); print(ntop(2, 1)); @n = ntop(0x0100007f); @e[strerror(2)] = 1; exit(); }" &&
		$SONDE probe -f json -e "$P" >sonde.out &&
		bpftrace -f json -e "${P%% @e*} exit(); }" >bpftrace.out 2>/dev/null &&
		grep -v "@e" sonde.out >sonde1.out && test_cmp bpftrace.out sonde1.out &&
		grep -q "{\"type\": \"map\", \"data\": {\"@e\": {\"No such file or directory\": 1}}}" sonde.out
	'
fi
test_done
