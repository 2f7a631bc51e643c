#!/bin/bash
# stat.sh - sonde stat vs perf stat: start-up cost on `true`, and the cost added
# to a syscall-heavy workload (200,000 x getppid + open/close + write), as ratios.
set -u
. "$(dirname "$0")/lib.sh"
W=$BUILD/workloads/syscalls
N=${N:-15}

base_true=$(best_of $N true)
s_true=$(best_of $N "$SONDE" stat -- true)
p_true=$(best_of $N perf stat -- true)
printf 'stat -- true        sonde %.4fs  perf %.4fs  (bare %.4fs)  sonde/perf = %s\n' \
	"$s_true" "$p_true" "$base_true" "$(ratio "$s_true" "$p_true")"

# start-up alone: the dynamic loader's work (serve's libraries are opened by serve, not here)
v=$(best_of $N "$SONDE" --version) pv=$(best_of $N perf --version)
printf 'sonde --version     sonde %.4fs  perf %.4fs  (bare %.4fs)  sonde/perf = %s\n' "$v" "$pv" "$base_true" "$(ratio "$v" "$pv")"

base=$(best_of 5 $W 200000)
s=$(best_of 5 "$SONDE" stat -- $W 200000)
p=$(best_of 5 perf stat -- $W 200000)
printf 'stat -- syscalls    sonde %.4fs  perf %.4fs  (bare %.4fs)  sonde/perf = %s\n' "$s" "$p" "$base" "$(ratio "$s" "$p")"
printf '  time added        sonde %.4fs  perf %.4fs\n' "$(added "$s" "$base")" "$(added "$p" "$base")"

ev=syscalls:sys_enter_getppid,syscalls:sys_enter_write,raw_syscalls:sys_enter
s=$(best_of 5 "$SONDE" stat -e $ev -- $W 200000)
p=$(best_of 5 perf stat -e $ev -- $W 200000)
printf 'stat -e tracepoints sonde %.4fs  perf %.4fs  (bare %.4fs)  sonde/perf = %s\n' "$s" "$p" "$base" "$(ratio "$s" "$p")"

t=$(mktemp)
/usr/bin/time -f %M -o "$t" "$SONDE" stat -- true >/dev/null 2>&1; rss_s=$(tail -1 "$t")
/usr/bin/time -f %M -o "$t" perf stat -- true >/dev/null 2>&1; rss_p=$(tail -1 "$t")
rm -f "$t"
printf 'max RSS             sonde %s KB  perf %s KB  sonde/perf = %s\n' "$rss_s" "$rss_p" "$(ratio "$rss_s" "$rss_p")"
