#!/bin/bash
# offcpu.sh - the cost of off-CPU tracing on a context-switch-heavy workload (two
# threads ping-ponging a byte over pipes: every round trip blocks each thread):
# `sonde offcpu -a` against bpftrace running the same offcputime-like program
# (sched_switch, user + kernel stacks, in-kernel sums), both system-wide, and
# against no tracing. The anchor of issue 21 is offcputime from libbpf-tools
# (Debian's package; $OFFCPUTIME, else /usr/sbin/offcputime): user + kernel
# stacks by frame pointers, in-kernel sums, system-wide. The ratio printed is
# the added cost per context switch, sonde's default / offcputime's.
# BCC's offcputime is used too where it can run (it needs a
# kprobe on finish_task_switch and kernel headers; this VM has neither).
# sonde's default gives complete user stacks where libc has no frame pointers
# (Debian's): the first copies of a stack are unwound with DWARF CFI in user
# space, which leaves each frame's rule in a cache the BPF program then walks
# with; `-g fp` is the frame-pointer walk BCC and bpftrace do, so sonde/fp is
# the price of complete stacks. The user side's CPU per block is measured too
# (sonde's utime + stime over the loop, from /proc).
set -u
. "$(dirname "$0")/lib.sh"
PP=$BUILD/workloads/pingpong
N=${N:-100000}
REPS=${REPS:-3}
T=$(mktemp -d /tmp/sonde-bench-offcpu.XXXXXX)
trap 'rm -rf "$T"; [ -n "${tp:-}" ] && kill $tp 2>/dev/null' EXIT

cat >"$T/offcpu.bt" <<'EOT'
tracepoint:sched:sched_switch
{
	@ts[tid] = nsecs;
	@k[tid] = kstack;
	@u[tid] = ustack;
	$t = @ts[args->next_pid];
	if ($t) {
		@us[args->next_comm, @k[args->next_pid], @u[args->next_pid]] = sum((nsecs - $t) / 1000);
		delete(@ts[args->next_pid]);
	}
}
END { clear(@ts); clear(@k); clear(@u); }
EOT

# per_trip LOOP_S: the time LOOP_S adds to the bare loop per round trip, in ns (a
# round trip blocks each thread once; the context switches per trip are the same
# under every tracer, so the ratios are the ratios per context switch)
per_trip() { awk -v a="$1" -v b="$bare" -v n="$N" 'BEGIN { d = a - b; if (d < 0) d = 0; printf "%.0f", d * 1e9 / n }'; }
loop_s() { "$PP" "$N" | sed -n 's/.* in \([0-9.]*\) s$/\1/p'; }
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# last_prog: the highest BPF program id loaded now (bpftool here does not say whose
# a program is: a tracer's programs are the new ones)
last_prog() { bpftool -j prog show | python3 -c 'import json, sys; print(max([p["id"] for p in json.load(sys.stdin)] + [0]))'; }
# has_prog AFTER: a tracepoint-type program newer than id AFTER is loaded
has_prog() {
	bpftool -j prog show | python3 -c "
import json, sys
sys.exit(not any(p['id'] > int(sys.argv[1]) and p.get('type') in ('tracing', 'tracepoint', 'raw_tracepoint')
                 for p in json.load(sys.stdin)))" "$1"
}

# cpu_ticks PID: its utime + stime, in clock ticks
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# under WAITFOR TOOL...: start the tracer, wait until it is attached (WAITFOR in its
# output; "" for a tool that says nothing: until it holds a program), time one loop,
# stop it with SIGINT; prints "loop_s stop_s"
under() {
	local waitfor=$1 i t s before
	shift
	[ -n "$waitfor" ] || before=$(last_prog)
	"$@" >"$T/out" 2>"$T/err" &
	tp=$!
	for i in $(seq 200); do
		if [ -n "$waitfor" ]; then
			grep -q "$waitfor" "$T/err" "$T/out" 2>/dev/null && break
		else
			has_prog "$before" && break
		fi
		sleep 0.05
	done
	sleep 0.3
	c0=$(cpu_ticks $tp)
	t=$(loop_s)
	echo $(( $(cpu_ticks $tp) - c0 )) >"$T/lastcpu"	# (a subshell: through a file)
	s=$(date +%s.%N)
	kill -INT $tp; wait $tp 2>/dev/null
	tp=
	echo "$t $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{printf "%.3f", b-a}')"
}

# the configurations take turns, REPS rounds, so that a change in the machine's
# load (other jobs on this VM) hits them all alike; medians are reported
declare -A L S
configs="bare sonde sonde_fp sonde_f"
LBT=${OFFCPUTIME:-/usr/sbin/offcputime}
[ -x "$LBT" ] && configs="$configs offcputime"
command -v bpftrace >/dev/null && configs="$configs bpftrace"
for rep in $(seq "$REPS"); do
	for c in $configs; do
		case $c in
		bare) r="$(loop_s) 0" ;;
		sonde) r=$(under "Tracing off-CPU" "$SONDE" offcpu -a); cat "$T/lastcpu" >>"$T/ucpu" ;;
		sonde_fp) r=$(under "Tracing off-CPU" "$SONDE" offcpu -a -g fp) ;;
		sonde_f) r=$(under "hook:" "$SONDE" -v offcpu -a -f) ;;	# -v: a debug line says it is attached
		offcputime) r=$(under "" "$LBT") ;;
		bpftrace) r=$(under "Attaching" bpftrace "$T/offcpu.bt") ;;
		esac
		L[$c]="${L[$c]:-} ${r% *}"
		S[$c]="${S[$c]:-} ${r#* }"
	done
done
for c in $configs; do
	L[$c]=$(echo ${L[$c]} | tr ' ' '\n' | median)
	S[$c]=$(echo ${S[$c]} | tr ' ' '\n' | median)
done
bare=${L[bare]} sonde=${L[sonde]} sonde_fp=${L[sonde_fp]} sonde_f=${L[sonde_f]} bt=${L[bpftrace]:-}
lbt=${L[offcputime]:-}
sonde_stop=${S[sonde]} bt_stop=${S[bpftrace]:-}

bcc=/usr/sbin/offcputime-bpfcc
if [ -x $bcc ] && timeout 20 $bcc 1 >"$T/bcc" 2>&1; then
	bcc_t=$(under "Tracing" $bcc)
	bcc_note="BCC offcputime: ${bcc_t% *}s"
else
	bcc_note="BCC offcputime cannot run here: $( [ -x $bcc ] && grep -m1 -iE 'unable|error|cannot|fail' "$T/bcc" | cut -c1-120 || echo 'bpfcc-tools not installed')"
fi

# the BPF programs' own cost per sched_switch (kernel.bpf_stats_enabled, restored after):
# less sensitive to the VM's load than the slowdowns
ns_per_run() {	# ns_per_run NAME_REGEX AFTER: of the program NAME newer than id AFTER
	bpftool -j prog show | python3 -c "
import json, re, sys
for p in json.load(sys.stdin):
    if p.get('run_cnt', 0) > 1000 and re.search(sys.argv[1], p.get('name', '')) and \\
       p.get('type') in ('tracing', 'tracepoint', 'raw_tracepoint') and p['id'] > int(sys.argv[2]):
        print(p['run_time_ns'] // p['run_cnt']); break" "$1" "$2"
}
stats=/proc/sys/kernel/bpf_stats_enabled
if [ -w $stats ]; then
	old=$(cat $stats)
	echo 1 >$stats
	for g in fp default; do
		a=; [ $g = fp ] && a="-g fp"
		before=$(last_prog)
		"$SONDE" -v offcpu -a -f $a -o /dev/null >"$T/out" 2>"$T/err" & tp=$!
		for i in $(seq 200); do grep -q "hook:" "$T/err" && break; sleep 0.05; done
		"$PP" "$N" >/dev/null
		eval "sonde_ns_$g=\$(ns_per_run '^offcpu_switch' $before)"
		kill -INT $tp; wait $tp 2>/dev/null; tp=
	done
	sonde_ns=$sonde_ns_fp
	if [ -x "$LBT" ]; then
		before=$(last_prog)
		"$LBT" >"$T/out" 2>"$T/err" & tp=$!
		for i in $(seq 200); do has_prog "$before" && break; sleep 0.05; done
		sleep 0.5
		"$PP" "$N" >/dev/null
		lbt_ns=$(ns_per_run 'sched_switch' $before)
		kill -INT $tp; wait $tp 2>/dev/null; tp=
	fi
	if command -v bpftrace >/dev/null; then
		before=$(last_prog)
		bpftrace "$T/offcpu.bt" >"$T/out" 2>"$T/err" & tp=$!
		for i in $(seq 200); do grep -q "Attaching" "$T/err" "$T/out" && break; sleep 0.05; done
		sleep 1
		"$PP" "$N" >/dev/null
		bt_ns=$(ns_per_run '^sched_switch$' $before)
		kill -TERM $tp; wait $tp 2>/dev/null; tp=
	fi
	echo "$old" >$stats
fi

printf 'pingpong %s round trips, median of %s interleaved rounds; bare %ss\n' "$N" "$REPS" "$bare"
printf 'sonde offcpu -a:        %ss  slowdown %sx   (exit after Ctrl-C: %ss)\n' "$sonde" "$(ratio "$sonde" "$bare")" "$sonde_stop"
hz=$(getconf CLK_TCK)
printf 'sonde offcpu -a, its own CPU over the loop (every process traced): %s ns per pingpong block (median of %s)\n' \
	"$(median <"$T/ucpu" | awk -v hz="$hz" -v n="$N" '{ printf "%.0f", $1 * 1e9 / hz / (2 * n) }')" "$REPS"
printf 'sonde offcpu -a -g fp:  %ss  slowdown %sx   added cost default/fp = %s\n' "$sonde_fp" \
	"$(ratio "$sonde_fp" "$bare")" "$(ratio "$(added "$sonde" "$bare")" "$(added "$sonde_fp" "$bare")")"
printf 'sonde offcpu -a -f:     %ss  slowdown %sx\n' "$sonde_f" "$(ratio "$sonde_f" "$bare")"
if [ -n "$lbt" ]; then
	printf 'offcputime (libbpf-tools): %ss  slowdown %sx   (exit after Ctrl-C: %ss)\n' "$lbt" "$(ratio "$lbt" "$bare")" "${S[offcputime]}"
	printf 'added cost per round trip: sonde %s ns, sonde -g fp %s ns, offcputime %s ns\n' \
		"$(per_trip "$sonde")" "$(per_trip "$sonde_fp")" "$(per_trip "$lbt")"
	printf 'ratio: added cost sonde default/offcputime = %s (goal <= 1.2), sonde -g fp/offcputime = %s\n' \
		"$(ratio "$(added "$sonde" "$bare")" "$(added "$lbt" "$bare")")" \
		"$(ratio "$(added "$sonde_fp" "$bare")" "$(added "$lbt" "$bare")")"
fi
if [ -n "$bt" ]; then
	printf 'bpftrace (same work):   %ss  slowdown %sx   (exit after Ctrl-C: %ss)\n' "$bt" "$(ratio "$bt" "$bare")" "$bt_stop"
	printf 'added cost sonde -g fp/bpftrace (the same stacks) = %s\n' "$(ratio "$(added "$sonde_fp" "$bare")" "$(added "$bt" "$bare")")"
fi
[ -n "${sonde_ns:-}" ] && printf 'BPF cost per sched_switch: sonde -g fp %s ns, bpftrace %s ns, sonde/bpftrace = %s\n' \
	"$sonde_ns" "${bt_ns:-?}" "$(ratio "$sonde_ns" "${bt_ns:-0}")"
[ -n "${lbt_ns:-}" ] && printf 'BPF cost per sched_switch: sonde default %s ns, sonde -g fp %s ns, offcputime %s ns; default/offcputime = %s\n' \
	"${sonde_ns_default:-?}" "$sonde_ns" "$lbt_ns" "$(ratio "${sonde_ns_default:-0}" "$lbt_ns")"
# a traced command (the usual use): the blocks the default could not copy keep
# frame-pointer stacks, and it says how many. sonde's own CPU (perf stat
# --no-inherit: not the command's) from start to end, default less fp, is what
# complete stacks cost the user side (copies unwound, rules learned)
for g in default fp; do
	a=; [ $g = fp ] && a="-g fp"
	perf stat -x, --no-inherit -e task-clock -o "$T/stat" \
		"$SONDE" -v offcpu $a -f -o /dev/null -- "$PP" "$N" >"$T/out" 2>"$T/err"
	t=$(sed -n 's/.* in \([0-9.]*\) s$/\1/p' "$T/out" "$T/err" | head -1)
	kept=$(sed -n 's/.*warning: \([0-9]*\) blocks kept with frame-pointer.*/\1/p' "$T/err")
	eval "cmd_$g=$t"
	eval "cpu_$g=$(awk -F, '/task-clock/ { printf "%.0f", $1 * 1e6 }' "$T/stat")"	# ns
	printf 'sonde offcpu %-6s -- pingpong: %ss  slowdown %sx  blocks with fp stacks: %s of %s\n' "$g" "$t" \
		"$(ratio "$t" "$bare")" "${kept:-0}" "$((2 * N))"
	[ $g = default ] && sed -n 's/.*debug: user stacks: /  user stacks: /p' "$T/err"
done
printf 'added cost of complete stacks on a traced command, default/fp = %s\n' \
	"$(ratio "$(added "$cmd_default" "$bare")" "$(added "$cmd_fp" "$bare")")"
printf "sonde's own CPU on a traced command: default %s ms, fp %s ms; (default - fp) per block: %s ns\n" \
	$((cpu_default / 1000000)) $((cpu_fp / 1000000)) $(( (cpu_default - cpu_fp) / (2 * N) ))
echo "$bcc_note"
