#!/bin/bash
# lock.sh - the cost of in-kernel lock contention aggregation: four threads
# mapping and unmapping in one mm (tests/workloads/mmapstorm) contend on its
# mmap_lock thousands of times a second; how many rounds they make in S seconds
# bare, under `sonde lock -a` (by kernel stack) and under bpftrace running the
# same aggregation (contention_begin/end paired per thread, count, sum and max
# by kstack). perf lock contention -b is not built into Debian's perf.
# The throughput of a contended workload swings with the tracers' timing, so the
# per-event cost is also read from the kernel's own BPF statistics
# (kernel.bpf_stats_enabled, turned on for the run and restored): the average
# run time of each tool's two programs.
set -u
. "$(dirname "$0")/lib.sh"
MS=$BUILD/workloads/mmapstorm
S=${S:-2}
REPS=${REPS:-4}	# even: the cost rounds take turns at attaching first
T=$(mktemp -d /tmp/sonde-bench-lock.XXXXXX)
stats0=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
trap 'rm -rf "$T"; [ -n "${tp:-}" ] && kill $tp 2>/dev/null; sysctl -qw kernel.bpf_stats_enabled=$stats0' EXIT
sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null || echo "(no kernel.bpf_stats_enabled: no per-event costs)"

cat >"$T/lock.bt" <<'EOT'
tracepoint:lock:contention_begin /@s[tid] == 0/
{
	@s[tid] = nsecs; @l[tid] = args->lock_addr; @k[tid] = kstack;
}
tracepoint:lock:contention_end /@s[tid] != 0 && @l[tid] == args->lock_addr/
{
	$d = nsecs - @s[tid];
	@c[@k[tid]] = count(); @t[@k[tid]] = sum($d); @m[@k[tid]] = max($d);
	delete(@s[tid]); delete(@l[tid]); delete(@k[tid]);
}
END { clear(@s); clear(@l); clear(@k); }
EOT

rounds() { "$MS" 4 "$S" 2>&1 | sed -n 's/^mmapstorm: \([0-9]*\) rounds.*/\1/p'; }
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# under WAITFOR TOOL...: start the tracer, wait until it is attached, count rounds, stop it
under() {
	local waitfor=$1 i r
	shift
	"$@" >"$T/out" 2>"$T/err" &
	tp=$!
	for i in $(seq 200); do grep -q "$waitfor" "$T/err" "$T/out" 2>/dev/null && break; sleep 0.05; done
	sleep 0.3
	r=$(rounds)
	stop $tp
	tp=
	echo "$r"
}

declare -A R
configs="bare sonde"
command -v bpftrace >/dev/null && configs="$configs bpftrace"
for rep in $(seq "$REPS"); do
	for c in $configs; do
		case $c in
		bare) r=$(rounds) ;;
		sonde) r=$(under "attached:" "$SONDE" -v lock -a) ;;
		bpftrace) r=$(under "Attaching" bpftrace "$T/lock.bt") ;;
		esac
		R[$c]="${R[$c]:-} $r"
	done
done
for c in $configs; do
	R[$c]=$(echo ${R[$c]} | tr ' ' '\n' | median)
	echo "$c: ${R[$c]} rounds of 100 maps in $S s (median of $REPS)"
done
# the slowdown each tracer adds, and sonde's against bpftrace's
sd_sonde=$(ratio "${R[bare]}" "${R[sonde]}")
echo "slowdown: sonde ${sd_sonde}x"
if [ -n "${R[bpftrace]:-}" ]; then
	sd_bt=$(ratio "${R[bare]}" "${R[bpftrace]}")
	echo "slowdown: bpftrace ${sd_bt}x; added cost, sonde/bpftrace:" \
	     "$(ratio "$(added "$sd_sonde" 1)" "$(added "$sd_bt" 1)")"
fi
# Per-event cost: sonde and bpftrace attached at once, so that their programs
# run on the very same events (the load of this machine changes by the second):
# run_time_ns / run_cnt of each one's two programs, over one storm per round.
# The program that runs first on an event warms the caches for the other (the
# stack walk above all), and programs run in the order they were attached: the
# rounds take turns at attaching first.
stats() {	# "sonde_ns bpftrace_ns": average run time of each tool's programs
	bpftool -j prog show 2>/dev/null | python3 -c "
import json, sys
t = {'s': [0, 0], 'b': [0, 0]}
for p in json.load(sys.stdin):
    n = p.get('name', '')
    k = 's' if n in ('lock_begin', 'lock_end') else 'b' if 'contention' in n else None
    if k:
        t[k][0] += p.get('run_time_ns', 0); t[k][1] += p.get('run_cnt', 0)
print(*(round(v[0] / v[1]) if v[1] else 0 for v in t.values()))"
}
if command -v bpftrace >/dev/null && [ "$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null)" = 1 ]; then
	sum_s=0 sum_b=0
	for rep in $(seq "$REPS"); do
		: >"$T/s.err"; : >"$T/b.out"
		if [ $((rep % 2)) = 1 ]; then
			"$SONDE" -v lock -a >"$T/s.out" 2>"$T/s.err" &
			sp=$!
			for i in $(seq 200); do grep -q "attached:" "$T/s.err" && break; sleep 0.05; done
		fi
		bpftrace "$T/lock.bt" >"$T/b.out" 2>&1 &
		bp=$!
		for i in $(seq 200); do grep -q Attaching "$T/b.out" && break; sleep 0.05; done
		sleep 0.5	# "Attaching" comes before the probes are
		if [ $((rep % 2)) = 0 ]; then
			"$SONDE" -v lock -a >"$T/s.out" 2>"$T/s.err" &
			sp=$!
			for i in $(seq 200); do grep -q "attached:" "$T/s.err" && break; sleep 0.05; done
		fi
		sleep 0.3
		rounds >/dev/null
		set -- $(stats)
		stop $sp $bp
		echo "per event (BPF run time, both attached, $([ $((rep % 2)) = 1 ] && echo sonde || echo bpftrace)" \
			"first): sonde $1 ns, bpftrace $2 ns"
		sum_s=$((sum_s + $1)) sum_b=$((sum_b + $2))
	done
	echo "per event, sonde/bpftrace over both orders: $(ratio $sum_s $sum_b)"
fi
