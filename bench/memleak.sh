#!/bin/bash
# memleak.sh - the cost of leak checking on an allocation-heavy workload
# (tests/workloads/leaky with N more malloc/free pairs): `sonde memleak -- CMD`
# against `valgrind --leak-check=full CMD` and against no tracing. Times are CPU
# seconds (user + system, the command and the tool together, as GNU time counts
# them): a machine shared with other jobs makes wall time wander, CPU time much
# less. BCC's memleak (bpfcc-tools) needs kernel headers this VM lacks, so it is
# not run. The medians of REPS interleaved rounds are reported.
# The uprobe modes pay three traps per pair (malloc's uprobe and uretprobe,
# free's uprobe): on the 6.18 kernel this was measured on, those traps with
# programs that return at once already cost 1.4-1.8 s per 1M pairs, about
# valgrind's whole added time. --preload (a malloc shim in the command's
# LD_PRELOAD) has no trap at all.
set -u
. "$(dirname "$0")/lib.sh"
L=$BUILD/workloads/leaky
N=${N:-1000000}
REPS=${REPS:-3}
T=$(mktemp -d /tmp/sonde-bench-memleak.XXXXXX)
trap 'rm -rf "$T"' EXIT

cpu() { /usr/bin/time -f "%U %S %e" -o "$T/t" "$@" >/dev/null 2>&1; awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$T/t"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for rep in $(seq "$REPS"); do
	cpu "$L" 0 - "$N" >>"$T/bare"
	cpu "$SONDE" memleak -- "$L" 0 - "$N" >>"$T/sonde"
	cpu "$SONDE" memleak --combined-only -- "$L" 0 - "$N" >>"$T/combined"
	cpu "$SONDE" memleak --preload -- "$L" 0 - "$N" >>"$T/preload"
	cpu "$SONDE" memleak --preload --combined-only -- "$L" 0 - "$N" >>"$T/preload-combined"
	command -v valgrind >/dev/null && cpu valgrind --leak-check=full "$L" 0 - "$N" >>"$T/valgrind"
done
col() { awk -v c="$2" '{ print $c }' "$T/$1" | median; }
bare=$(col bare 1)
printf 'leaky with %s malloc/free pairs, median of %s rounds: CPU s (wall s)\n' "$N" "$REPS"
printf 'bare:                      %ss (%ss)\n' "$bare" "$(col bare 2)"
for c in sonde combined preload preload-combined valgrind; do
	[ -s "$T/$c" ] || continue
	printf '%-26s %ss (%ss)  added %ss\n' "$c:" "$(col $c 1)" "$(col $c 2)" "$(added "$(col $c 1)" "$bare")"
done
if [ -s "$T/valgrind" ]; then
	vg=$(added "$(col valgrind 1)" "$bare")
	printf 'added CPU time sonde/valgrind = %s (--combined-only: %s; --preload: %s, with --combined-only: %s)\n' \
		"$(ratio "$(added "$(col sonde 1)" "$bare")" "$vg")" "$(ratio "$(added "$(col combined 1)" "$bare")" "$vg")" \
		"$(ratio "$(added "$(col preload 1)" "$bare")" "$vg")" \
		"$(ratio "$(added "$(col preload-combined 1)" "$bare")" "$vg")"
fi
