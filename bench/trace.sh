#!/bin/bash
# trace.sh - sonde trace vs strace (and perf trace where it works) on 200,000
# cheap syscalls (100,000 getppid + 100,000 one-byte writes to /dev/null).
# Prints, for each tracer, the wall time of the whole command and the time it
# added over the bare program, then sonde's added time as a fraction of
# strace's. The issue's targets: -c at most 0.10 of strace -c's, -o FILE
# (every line written) at most 0.20 of strace -o's. Tracer and tracee are not
# pinned: the scheduler places them (strace is 3x cheaper when both share a CPU).
set -u
. "$(dirname "$0")/lib.sh"
W=$BUILD/workloads/cheap
N=${N:-200000}
R=${R:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

[ -x "$W" ] || { echo "build the workloads first: make workloads"; exit 1; }
"$SONDE" trace -c -o /dev/null -- true || { echo "sonde trace does not run here: nothing to measure"; exit 1; }
echo "workload: $W $N ($(nproc) CPUs); best of $R runs; wall time of the whole command"
base=$(best_of 5 "$W" "$N")
printf '%-34s %8.4fs\n' "bare" "$base"

row() {	# label, time
	printf '%-34s %8.4fs  added %8.4fs\n' "$1" "$2" "$(added "$2" "$base")"
}

s_c=$(best_of "$R" "$SONDE" trace -c -o "$out/s.c" -- "$W" "$N");       row "sonde trace -c" "$s_c"
t_c=$(best_of "$R" strace -c -o "$out/t.c" -- "$W" "$N");              row "strace -c" "$t_c"
s_o=$(best_of "$R" "$SONDE" trace -o "$out/s.o" -- "$W" "$N");          row "sonde trace -o FILE" "$s_o"
t_o=$(best_of "$R" strace -o "$out/t.o" -- "$W" "$N");                 row "strace -o FILE" "$t_o"
if perf trace -s -o "$out/p.c" -- true >/dev/null 2>&1; then
	p_c=$(best_of "$R" perf trace -s -o "$out/p.c" -- "$W" "$N");  row "perf trace -s" "$p_c"
	p_o=$(best_of "$R" perf trace -o "$out/p.o" -- "$W" "$N");     row "perf trace -o FILE" "$p_o"
	pc_calls=$(awk '$1 == "getppid" { print $2 }' "$out/p.c")
	po_lines=$(grep -c 'getppid()' "$out/p.o")
	echo "perf trace counted getppid ${pc_calls:-?} times with -s, printed ${po_lines:-?} lines with -o (of $((N / 2)))"
else
	echo "perf trace: does not run here"
fi
# the workload's own loop time (start-up and teardown of the tracer left out), one run each
self() { "$@" 2>/dev/null | tail -1; }
printf 'loop time alone: bare %s  sonde -c %s  strace -c %s  sonde -o %s  strace -o %s\n' \
	"$(self "$W" "$N")" "$(self "$SONDE" trace -c -o "$out/s.c" -- "$W" "$N")" \
	"$(self strace -c -o "$out/t.c" -- "$W" "$N")" "$(self "$SONDE" trace -o "$out/s.o" -- "$W" "$N")" \
	"$(self strace -o "$out/t.o" -- "$W" "$N")"
sc_calls=$(awk '$NF == "getppid" { print $4 }' "$out/s.c")
so_lines=$(grep -c '^getppid()' "$out/s.o")
echo "sonde trace counted getppid ${sc_calls:-?} times with -c, printed ${so_lines:-?} lines with -o (of $((N / 2)))"
printf 'sonde -c added / strace -c added   = %s  (target <= 0.10)\n' "$(ratio "$(added "$s_c" "$base")" "$(added "$t_c" "$base")")"
printf 'sonde -o added / strace -o added   = %s  (target <= 0.20)\n' "$(ratio "$(added "$s_o" "$base")" "$(added "$t_o" "$base")")"
