#!/bin/bash
# sched.sh - sonde sched vs perf sched and bpftrace, in the same run:
#  1. recording: the bytes per context switch of `sonde sched record` and
#     `perf sched record` recording the same workload at once, and the time
#     each adds to it;
#  2. in-kernel aggregation: the time per context switch that
#     `sonde sched latency --live` adds to a switch-heavy workload, vs bpftrace
#     running the same aggregation (per-task log2 histograms of run-queue
#     delay) and libbpf-tools' runqlat -P; sonde probe runs bpftrace's program
#     too, so the language's cost and the command's are apart.
# Ratios are sonde/anchor. Needs root.
set -u
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "sched.sh: needs root"; exit 0; }
W="$BUILD/workloads/pingpong"
[ -x "$W" ] || { echo "sched.sh: build the workloads first (make workloads)"; exit 0; }
RT=${RT:-100000}	# pingpong's round trips: two blocks, four switches each
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# ns a tool adds per round trip of pingpong, both threads on one CPU (best of
# $N alone, best of $N traced)
N=${N:-5}
cost() {
	local base traced pid
	base=$(best_of $N taskset -c 0 $W $RT)
	"$@" >/dev/null 2>&1 &
	pid=$!
	sleep 2	# attached (a bench: timing is what it measures)
	traced=$(best_of $N taskset -c 0 $W $RT)
	stop $pid
	awk -v a="$traced" -v b="$base" -v n="$RT" 'BEGIN { d = (a - b) * 1e9 / n; if (d < 0) d = 0; printf "%.0f", d }'
}

echo "recording $RT round trips of pingpong, perf sched record and sonde sched record at once:"
if command -v perf >/dev/null; then
	perf sched record -o "$TMP/perf.data" -- "$SONDE" sched record -q -o "$TMP/sonde.data" -- $W $RT \
		>/dev/null 2>&1
	for t in perf sonde; do
		sw=$("$SONDE" sched timehist -i "$TMP/$t.data" | tail -n +4 | wc -l)
		sz=$(stat -c %s "$TMP/$t.data")
		eval "${t}_bps=$(awk -v s="$sz" -v n="$sw" 'BEGIN { printf "%.1f", n ? s / n : 0 }')"
		printf '  %-5s %9d bytes, %7d switches\n' $t "$sz" "$sw"
	done
	echo "  bytes per switch: sonde $sonde_bps, perf $perf_bps, sonde/perf = $(ratio "$sonde_bps" "$perf_bps")" \
	     "(sonde records sched_wakeup and process_exit, perf sched_waking)"
	s=$(cost "$SONDE" sched record -q -o "$TMP/s2.data")
	p=$(cost perf sched record -o "$TMP/p2.data")
	echo "  time added per round trip: sonde $s ns, perf $p ns, sonde/perf = $(ratio "$s" "$p")"
fi

echo
echo "in-kernel histograms of run-queue delay per task, time added per round trip of pingpong:"
cat >"$TMP/runq.bt" <<'EOF'
tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new { @qtime[args->pid] = nsecs; }
tracepoint:sched:sched_switch
{
	if (args->prev_state == 0) { @qtime[args->prev_pid] = nsecs; }
	if (@qtime[args->next_pid]) {
		@lat[args->next_pid, args->next_comm] = hist((nsecs - @qtime[args->next_pid]) / 1000);
		delete(@qtime[args->next_pid]);
	}
}
END { clear(@qtime); }
EOF
s=$(cost "$SONDE" sched latency --live)
line=$(printf '  sonde sched latency --live %s ns' "$s")
p=$(cost "$SONDE" probe "$TMP/runq.bt")
line="$line$(printf ', sonde probe (tracepoints) %s ns' "$p")"
if command -v bpftrace >/dev/null; then
	b=$(cost bpftrace "$TMP/runq.bt")
	line="$line$(printf ', bpftrace %s ns: --live/bpftrace = %s, probe/bpftrace = %s' "$b" "$(ratio "$s" "$b")" \
		"$(ratio "$p" "$b")")"
fi
if [ -x /usr/sbin/runqlat ]; then
	r=$(cost /usr/sbin/runqlat -P)
	line="$line$(printf ', runqlat -P %s ns: --live/runqlat = %s' "$r" "$(ratio "$s" "$r")")"
fi
echo "$line"

# the kernel's own measure, steadier than timing the workload under each in turn on a
# shared VM: all four attached at once, kernel.bpf_stats_enabled on, one run of
# pingpong; each one's programs' run time over the run, per round trip. Each tool's
# programs are those its process holds (/proc/PID/fdinfo), not whatever else was
# loaded meanwhile. The program that runs first on an event warms the caches for the
# others (about 10% here), and programs run in the order they were attached: $ROUNDS
# rounds, every other one in the reverse order; the ratios over all rounds, and the
# median of the rounds' ratios (a round the host stole time in stands out).
ROUNDS=${ROUNDS:-6}
prog_ids() { grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u; }
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
if command -v bpftool >/dev/null; then
	echo
	echo "BPF run time per round trip of pingpong, all attached at once (kernel.bpf_stats_enabled):"
	declare -A cmd=([live]="$SONDE sched latency --live" [probe]="$SONDE probe $TMP/runq.bt")
	command -v bpftrace >/dev/null && cmd[bpftrace]="bpftrace $TMP/runq.bt"
	[ -x /usr/sbin/runqlat ] && cmd[runqlat]="/usr/sbin/runqlat -P"
	declare -A total=() rs=()
	for round in $(seq "$ROUNDS"); do
		order="live probe bpftrace runqlat"
		[ $((round % 2)) = 0 ] && order="runqlat bpftrace probe live"
		pids=
		for l in $order; do
			[ -n "${cmd[$l]:-}" ] || continue
			${cmd[$l]} >/dev/null 2>&1 &
			pids="$pids $!"
			sleep 2
			prog_ids $! >"$TMP/prog.$l"
		done
		old=$(sysctl -n kernel.bpf_stats_enabled)
		sysctl -qw kernel.bpf_stats_enabled=1
		prog_stats >"$TMP/before"
		taskset -c 0 $W $RT >/dev/null 2>&1
		prog_stats >"$TMP/after"
		sysctl -qw kernel.bpf_stats_enabled="$old"
		stop $pids
		line="  round $round (attached in the order $order):"
		declare -A ns=()
		for l in $order; do
			[ -n "${cmd[$l]:-}" ] || continue
			ns[$l]=$(ns_of "$TMP/prog.$l" "$TMP/before" "$TMP/after")
			total[$l]=$(( ${total[$l]:-0} + ns[$l] ))
			line="$line $l $(awk -v a=${ns[$l]} -v n=$RT 'BEGIN { printf "%.0f", a / n }') ns,"
		done
		for a in live probe; do
			for b in bpftrace runqlat; do
				[ -n "${ns[$b]:-}" ] && rs[$a/$b]="${rs[$a/$b]:-} $(ratio "${ns[$a]}" "${ns[$b]}")"
			done
		done
		echo "${line%,}"
	done
	for r in live/bpftrace probe/bpftrace live/runqlat; do
		[ -n "${rs[$r]:-}" ] || continue
		a=${r%/*} b=${r#*/}
		echo "  $ROUNDS rounds: $r = $(ratio "${total[$a]}" "${total[$b]}") (all rounds' run time)," \
			"$(echo ${rs[$r]} | tr ' ' '\n' | median) (median of the rounds' ratios)"
	done
fi
