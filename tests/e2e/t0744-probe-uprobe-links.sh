#!/bin/bash
# t0744: how sonde probe attaches uprobes. Where the kernel has uprobe_multi links
# (Linux 6.6) each uprobe is a link of its own, whose closing does not queue behind
# the perf-event path's event_mutex (a perf uprobe's close waits ~0.1 s, one at a
# time: bench/probe.sh measures both); SONDE_NO_UPROBE_MULTI=1 takes the perf path,
# and both count the same. Also: -p ends with its process, as bpftrace's does; a
# wildcard's functions the kernel cannot probe (ENOTSUPP: ulock's ul_locked starts
# with a lock prefix) are left out with one warning, a named one is an error.
. "$(dirname "$0")/../lib.sh"

require_root 'uprobe attachment' 'uprobes need root'
UL=$WORKLOADS/ulock
# a copy of its own: the uprobe events on it (none, at the end) are this file's alone
FC=$TMP/calls_$$
cp "$WORKLOADS/ftrace_calls" "$FC"
kver=$(uname -r | sed 's/[^0-9.].*//')
if [ "$(printf '6.6\n%s\n' "$kver" | sort -V | head -1)" = 6.6 ] && command -v bpftool >/dev/null; then
	test_expect_success 'uprobe_multi links where the kernel has them (bpftool lists them while sonde runs)' '
		bpftool link show | sed -nE "s/^([0-9]+): (type 12|uprobe_multi) .*/\1/p" | sort >before &&
		: >out && $SONDE probe -q -e "BEGIN { printf(\"on\\n\"); }
			uprobe:$FC:tick, uretprobe:$FC:tock { @ = count(); } interval:ms:3000 { exit(); }" >out &
		s=$! &&
		# attached once BEGIN has run ("Attaching N probes..." comes before the attach, as in
		# bpftrace); a loaded machine may take a while
		for i in $(seq 300); do grep -q "^on$" out && break; sleep 0.1; done &&
		bpftool link show | sed -nE "s/^([0-9]+): (type 12|uprobe_multi) .*/\1/p" | sort >during; wait $s &&
		comm -13 before during >ours && cat ours && test $(wc -l <ours) -ge 2 &&
		# the links that were sonde'"'"'s are gone (other processes may hold links of their own)
		bpftool link show | sed -nE "s/^([0-9]+): (type 12|uprobe_multi) .*/\1/p" | sort >after &&
		! comm -12 ours after | grep -q .
	'
else
	test_skip 'uprobe_multi links' "Linux $kver has none (6.6), or no bpftool"
fi

for mode in multi perf; do
	if [ $mode = perf ]; then export SONDE_NO_UPROBE_MULTI=1; fi
	test_expect_success "$mode: uprobe and uretprobe counts and return values exact" '
		$SONDE probe -e "uprobe:$FC:tick { @calls = count(); @args = sum(arg0); } uretprobe:$FC:tick { @ret = max(retval); } uretprobe:$FC:tock { @tock = count(); }" -c "$FC 500" >out &&
		grep -qx "@calls: 500" out && grep -qx "@args: 124750" out &&
		grep -qx "@ret: 124750" out && grep -qx "@tock: 1" out
	'
	test_expect_success "$mode: -p PID: only that process, and the trace ends when it does" '
		"$UL" 9 2000 &
		a=$!
		"$UL" 7 2000 &
		b=$!
		sleep 0.3 &&
		timeout 20 $SONDE probe -p $a -e "uprobe:$UL:ul_plain1 { @[pid] = count(); }" >out 2>err &&
		wait $a && wait $b &&
		grep -qx "@\[$a\]: 9" out && ! grep -q "@\[$b\]" out
	'
	test_expect_success "$mode: a wildcard's function the kernel cannot probe: one warning, the others traced" '
		"$UL" 9 2000 & a=$! && sleep 0.3 &&
		timeout 20 $SONDE probe -p $a -e "uprobe:$UL:ul_* { @[probe] = count(); }" >out 2>err &&
		grep -qx "@\[uprobe:$UL:ul_plain1\]: 9" out && grep -qx "@\[uprobe:$UL:ul_plain2\]: 9" out &&
		! grep -q ul_locked out &&
		test "$(wc -l <err)" = 1 &&
		grep -qF "warning: '"'"'uprobe:$UL:ul_*'"'"': 1 of its 3 functions cannot be probed (the kernel refuses a uprobe there, ENOTSUPP: ul_locked); the other 2 are traced" err
	'
	test_expect_success "$mode: the same function named: one line saying why, exit 1" '
		"$UL" 9 2000 & a=$! && sleep 0.3 &&
		! timeout 20 $SONDE probe -p $a -e "uprobe:$UL:ul_locked { @ = count(); }" >out 2>err &&
		wait $a &&
		test "$(wc -l <err)" = 1 &&
		grep -q "ul_locked'"'"': the kernel cannot place a probe on that instruction (ENOTSUPP" err
	'
	unset SONDE_NO_UPROBE_MULTI
done
# (system-wide: another sonde running beside this test, an ltrace, holds uprobe_multi links of
# its own; the links this file's runs made are checked gone where they ran, above; and another
# test's sonde may have uprobe events of its own: those on this file's programs are the check)
test_expect_success 'nothing left behind: no uprobe event on the programs this file probed' '
	! grep -v "^#" /sys/kernel/tracing/uprobe_events 2>/dev/null | grep -e "$UL:" -e "$FC:"
'
test_done
