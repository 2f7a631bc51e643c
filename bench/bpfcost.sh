#!/bin/bash
# bpfcost.sh - the kernel's own measure of what a tool's BPF programs cost per event: sonde's tool
# and libbpf-tools' tool of the same name attached at the same time, kernel.bpf_stats_enabled on,
# one workload run; each tool's programs' run_time_ns summed over the run and divided by the
# workload's events. Both tools see the same events on the same (noisy) machine, so the ratio is
# steadier than timing the workload under each in turn (tools.sh does that too).
#   bench/bpfcost.sh            runqlat, biolatency, opensnoop, syscount
#   bench/bpfcost.sh runqlat    one of them
set -u
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "bpfcost.sh: needs root"; exit 0; }
command -v bpftool >/dev/null || { echo "bpfcost.sh: needs bpftool"; exit 0; }

# measure NAME EVENTS WORKLOAD...: ns per event of each tool's programs, in two rounds: sonde's
# attached first, then libbpf-tools' (the program a tracepoint runs first pays for the cold caches:
# about 10%, bench/sched.sh found), and the mean of the two rounds' ratios
measure() {
	local r1 r2
	r1=$(measure_once sonde "$@") && r2=$(measure_once libbpf "$@") || return
	echo "$r1"
	echo "$r2"
	[ -n "$r1" ] && [ -n "$r2" ] && printf '  %-11s mean of the two orders: sonde/libbpf-tools = %s\n' "$1" \
		"$(awk -v a="${r1##*= }" -v b="${r2##*= }" 'BEGIN { split(a, x, " "); split(b, y, " "); printf "%.2f", (x[1] + y[1]) / 2 }')"
}
# measure_once FIRST NAME EVENTS WORKLOAD...: one round, FIRST (sonde or libbpf) attached first
measure_once() {
	local first=$1 name=$2 ev=$3 s l old
	shift 3
	[ -x /usr/sbin/$name ] || { echo "  $name: no libbpf-tools $name here"; return 1; }
	local d; d=$(mktemp -d /tmp/sonde-bpfcost.XXXXXX)
	prog_stats | cut -d' ' -f1 | sort >"$d/none"
	if [ $first = sonde ]; then "$SONDE" $name >/dev/null 2>&1 & s=$!; else /usr/sbin/$name >/dev/null 2>&1 & l=$!; fi
	sleep 2
	prog_stats | cut -d' ' -f1 | sort >"$d/s1"
	comm -13 "$d/none" "$d/s1" >"$d/$first"
	if [ $first = sonde ]; then /usr/sbin/$name >/dev/null 2>&1 & l=$!; else "$SONDE" $name >/dev/null 2>&1 & s=$!; fi
	sleep 2
	prog_stats | cut -d' ' -f1 | sort | comm -13 "$d/s1" - >"$d/$([ $first = sonde ] && echo libbpf || echo sonde)"
	old=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
	prog_stats >"$d/before"
	"$@" >/dev/null 2>&1
	prog_stats >"$d/after"
	sysctl -qw kernel.bpf_stats_enabled="$old"
	kill -INT $s $l; wait $s $l 2>/dev/null
	local sn ln
	sn=$(ns_of "$d/sonde" "$d/before" "$d/after")
	ln=$(ns_of "$d/libbpf" "$d/before" "$d/after")
	printf '  %-11s %s first: sonde %6.0f ns  libbpf-tools %6.0f ns  (%d + %d programs, %d events)  sonde/libbpf-tools = %s\n' \
		"$name" "$first" "$(awk -v a=$sn -v n=$ev 'BEGIN{print a/n}')" "$(awk -v a=$ln -v n=$ev 'BEGIN{print a/n}')" \
		"$(wc -l <"$d/sonde")" "$(wc -l <"$d/libbpf")" "$ev" "$(ratio "$sn" "$ln")"
	rm -rf "$d"
}

want=${1:-all}
echo "BPF run time per event (kernel.bpf_stats_enabled), both tools attached together:"
if [ "$want" = all ] || [ "$want" = runqlat ]; then
	measure runqlat 100000 "$BUILD/workloads/pingpong"
fi
if [ "$want" = all ] || [ "$want" = opensnoop ] || [ "$want" = syscount ]; then
	for t in opensnoop syscount; do
		[ "$want" = all ] || [ "$want" = $t ] || continue
		measure $t 400000 "$BUILD/workloads/syscalls" 200000
	done
fi
if [ "$want" = all ] || [ "$want" = biolatency ]; then
	IMG=$(mktemp /tmp/sonde-bench-disk.XXXXXX)
	truncate -s 64M "$IMG"
	if LOOP=$(losetup -f --show "$IMG" 2>/dev/null); then
		measure biolatency 20000 dd if=/dev/zero of="$LOOP" bs=4k count=20000 oflag=direct
		losetup -d "$LOOP"
	fi
	rm -f "$IMG"
fi
